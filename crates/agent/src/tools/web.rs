//! `internet_search`: a web search through the Tavily API when a search key
//! is configured; without one it tells the model plainly that search is off.

use std::time::Duration;

use deskmate_llm::ApiKey;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_args, schema, Tool, ToolContext, ToolFuture, ToolOutput};

/// Environment variable holding a Tavily search API key.
pub const SEARCH_KEY_ENV: &str = "DESKMATE_SEARCH_API_KEY";
/// Environment variable overriding the search service's base URL (a
/// Tavily-compatible proxy; the tests' loopback server).
pub const SEARCH_URL_ENV: &str = "DESKMATE_SEARCH_URL";

/// Where searches go.
#[derive(Debug, Clone)]
pub struct SearchConfig {
    pub api_key: Option<ApiKey>,
    pub base_url: String,
}

impl Default for SearchConfig {
    fn default() -> Self {
        Self {
            api_key: None,
            base_url: "https://api.tavily.com".into(),
        }
    }
}

impl SearchConfig {
    /// The key from [`SEARCH_KEY_ENV`], if set, and the base URL from
    /// [`SEARCH_URL_ENV`] when it is set (else Tavily's).
    pub fn from_env() -> Self {
        let base_url = std::env::var(SEARCH_URL_ENV)
            .ok()
            .map(|u| u.trim().to_string())
            .filter(|u| !u.is_empty());
        Self {
            api_key: std::env::var(SEARCH_KEY_ENV)
                .ok()
                .and_then(|k| ApiKey::new(k).ok()),
            base_url: base_url.unwrap_or_else(|| Self::default().base_url),
        }
    }
}

/// Search the web.
#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// What to search for.
    query: String,
    /// How many results (1–10).
    #[serde(default = "five")]
    max_results: u32,
    /// "general" or "news".
    #[serde(default)]
    topic: Option<String>,
}

fn five() -> u32 {
    5
}

pub struct InternetSearch {
    config: SearchConfig,
    http: Option<reqwest::Client>,
}

impl InternetSearch {
    pub fn new(config: SearchConfig) -> Self {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .ok();
        Self { config, http }
    }
}

impl Tool for InternetSearch {
    fn name(&self) -> &'static str {
        "internet_search"
    }
    fn description(&self) -> &'static str {
        "Searches the web and returns titles, URLs and short extracts. Only when the answer needs current or outside facts."
    }
    fn parameters(&self) -> Value {
        schema::<SearchArgs>()
    }
    fn call(&self, _ctx: ToolContext, args: Value) -> ToolFuture {
        let key = self.config.api_key.clone();
        let url = format!("{}/search", self.config.base_url.trim_end_matches('/'));
        let http = self.http.clone();
        Box::pin(async move {
            let args: SearchArgs = match parse_args("internet_search", args) {
                Ok(a) => a,
                Err(e) => return e,
            };
            let (Some(key), Some(http)) = (key, http) else {
                return ToolOutput::error(format!(
                    "internet search is not enabled: no search API key is configured (a parent can set {SEARCH_KEY_ENV}). Answer from what you know and say so."
                ));
            };
            let body = json!({
                "query": args.query,
                "max_results": args.max_results.clamp(1, 10),
                "topic": args.topic.unwrap_or_else(|| "general".into()),
            });
            let resp = match http
                .post(&url)
                .bearer_auth(key.expose())
                .json(&body)
                .send()
                .await
            {
                Ok(r) => r,
                Err(e) => {
                    return ToolOutput::error(deskmate_llm::redact(
                        &format!("search failed: {e}"),
                        key.expose(),
                    ))
                }
            };
            let status = resp.status();
            let text = resp.text().await.unwrap_or_default();
            if !status.is_success() {
                let snippet: String = text.chars().take(300).collect();
                return ToolOutput::error(deskmate_llm::redact(
                    &format!("search failed (HTTP {status}): {snippet}"),
                    key.expose(),
                ));
            }
            let v: Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(e) => {
                    return ToolOutput::error(format!(
                        "the search service sent something unreadable: {e}"
                    ))
                }
            };
            let results: Vec<Value> = v
                .get("results")
                .and_then(Value::as_array)
                .map(|rs| {
                    rs.iter()
                        .map(|r| json!({"title": r.get("title"), "url": r.get("url"), "content": r.get("content")}))
                        .collect()
                })
                .unwrap_or_default();
            if results.is_empty() {
                return ToolOutput::ok(format!("No results for {:?}", body["query"]));
            }
            ToolOutput::ok(Value::Array(results).to_string())
        })
    }
}
