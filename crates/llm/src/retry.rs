//! When to try a failed model call again: exponential backoff with jitter,
//! and the server's `retry-after` when it gives one.

use std::time::Duration;

/// How many times and how long to wait between tries.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Tries after the first one.
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// A `retry-after` longer than this is not waited for: the error is returned.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The wait before retry number `attempt` (0-based), or `None` when the
    /// error should be returned instead.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Option<Duration> {
        if attempt >= self.max_retries {
            return None;
        }
        if let Some(after) = retry_after {
            return (after <= self.max_retry_after).then_some(after);
        }
        let exp = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(attempt.min(16)));
        let capped = exp.min(self.max_delay);
        // Full jitter between half and all of the delay spreads out clients
        // that failed together.
        let nanos = u64::try_from(capped.as_nanos()).unwrap_or(u64::MAX);
        let jitter = nanos / 2 + pseudo_random() % (nanos / 2 + 1);
        Some(Duration::from_nanos(jitter))
    }
}

fn pseudo_random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0);
    h.finish()
}

/// Reads `retry-after-ms` or `retry-after` (seconds; HTTP dates are not
/// worth parsing for model APIs, which send seconds).
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return (ms.is_finite() && ms >= 0.0).then(|| Duration::from_secs_f64(ms / 1000.0));
    }
    let secs = text("retry-after")?.parse::<f64>().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_stops() {
        let p = RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(300),
            ..Default::default()
        };
        let d0 = p.delay(0, None).unwrap();
        assert!(
            d0 >= Duration::from_millis(50) && d0 <= Duration::from_millis(100),
            "{d0:?}"
        );
        let d2 = p.delay(2, None).unwrap();
        assert!(
            d2 >= Duration::from_millis(150) && d2 <= Duration::from_millis(300),
            "{d2:?}"
        );
        assert_eq!(p.delay(3, None), None);
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(2))),
            Some(Duration::from_secs(2))
        );
        assert_eq!(p.delay(0, Some(Duration::from_secs(600))), None);
        assert_eq!(RetryPolicy::none().delay(0, None), None);
    }

    #[test]
    fn reads_retry_after_headers() {
        let mut h = reqwest::header::HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert(
            "retry-after",
            reqwest::header::HeaderValue::from_static("3"),
        );
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3)));
        h.insert(
            "retry-after-ms",
            reqwest::header::HeaderValue::from_static("250"),
        );
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
    }
}
