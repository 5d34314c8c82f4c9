//! How long one tool call may take. A call past its limit is abandoned and
//! the model is told, naming the tool and the limit, so a run never hangs
//! on a tool; blocking file work runs on the blocking pool, so the limit can
//! fire while it is still going.

use std::collections::BTreeMap;
use std::time::Duration;

/// The default time limit of a tool call.
pub const DEFAULT_TOOL_TIME_LIMIT: Duration = Duration::from_secs(60);
/// `internet_search`'s own limit: a little over its HTTP timeout, so a slow
/// search service usually ends with the HTTP client's clearer error first.
pub const SEARCH_TIME_LIMIT: Duration = Duration::from_secs(35);

/// Time limits of tool calls: one default, and exceptions by tool name (a
/// subagent's `task` may need far longer than a file tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolTimeLimits {
    pub default: Duration,
    pub per_tool: BTreeMap<String, Duration>,
}

impl Default for ToolTimeLimits {
    fn default() -> Self {
        Self {
            default: DEFAULT_TOOL_TIME_LIMIT,
            per_tool: BTreeMap::from([
                ("internet_search".to_string(), SEARCH_TIME_LIMIT),
                // A subagent works through several model calls.
                ("task".to_string(), super::TASK_TIME_LIMIT),
            ]),
        }
    }
}

impl ToolTimeLimits {
    /// Every tool gets `default`, with no exceptions.
    pub fn uniform(default: Duration) -> Self {
        Self {
            default,
            per_tool: BTreeMap::new(),
        }
    }

    /// Sets the limit of the tool `name`.
    pub fn with(mut self, name: impl Into<String>, limit: Duration) -> Self {
        self.per_tool.insert(name.into(), limit);
        self
    }

    /// The limit of the tool `name`.
    pub fn for_tool(&self, name: &str) -> Duration {
        self.per_tool.get(name).copied().unwrap_or(self.default)
    }
}

/// A limit in words: `60 s`, `1.5 s`, `200 ms`.
pub(crate) fn in_words(limit: Duration) -> String {
    if limit < Duration::from_secs(1) {
        format!("{} ms", limit.as_millis())
    } else if limit.subsec_millis() == 0 {
        format!("{} s", limit.as_secs())
    } else {
        format!("{} s", limit.as_secs_f64())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn limits_by_tool_and_in_words() {
        let limits = ToolTimeLimits::default();
        assert_eq!(limits.for_tool("read_file"), Duration::from_secs(60));
        assert_eq!(limits.for_tool("internet_search"), SEARCH_TIME_LIMIT);
        let limits =
            ToolTimeLimits::uniform(Duration::from_secs(5)).with("task", Duration::from_secs(600));
        assert_eq!(limits.for_tool("internet_search"), Duration::from_secs(5));
        assert_eq!(limits.for_tool("task"), Duration::from_secs(600));
        assert_eq!(in_words(Duration::from_secs(60)), "60 s");
        assert_eq!(in_words(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(in_words(Duration::from_millis(200)), "200 ms");
    }
}
