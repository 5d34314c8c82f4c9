//! `rag_retrieval`: the lead's search of the family's knowledge bases.
//! Arguments `{query, base?, top_k?}`; the result is the top passages as
//! JSON, each with its base, source (the file name, or the library's
//! slug), title, PDF page and position, so the answer can say where it
//! comes from. The lead is given it only when some base holds a document
//! and the sentence encoder is installed (see `Chat::tools`).

use deskmate_agent::tools::{Tool, ToolContext, ToolFuture, ToolOutput};
use serde::Deserialize;
use serde_json::{json, Value};

use super::{Knowledge, DEFAULT_TOP_K};

/// The most passages one call returns.
const MAX_TOP_K: usize = 20;

/// The tool, with the bases there were when the run began (named in its
/// description, so the model can pick one).
pub(crate) struct RagRetrieval {
    knowledge: Knowledge,
    description: String,
}

impl RagRetrieval {
    pub(crate) fn new(knowledge: Knowledge, bases: &[String]) -> Self {
        let description = format!(
            "Searches the family's knowledge bases (textbooks, worksheets, notes a parent added, and the built-in poem library) \
             and returns the passages closest in meaning to the query, best first, each with its source and page. \
             Use it before answering a question about the child's own school material. Knowledge bases: {}.",
            bases.join(", ")
        );
        Self {
            knowledge,
            description,
        }
    }
}

#[derive(Deserialize)]
struct Args {
    query: String,
    #[serde(default)]
    base: Option<String>,
    #[serde(default)]
    top_k: Option<usize>,
}

impl Tool for RagRetrieval {
    fn name(&self) -> &str {
        "rag_retrieval"
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "query": {"type": "string", "description": "What to look for, as a question or a few words (Chinese or English)."},
            "base": {"type": "string", "description": "Only this knowledge base (default: all of them)."},
            "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_TOP_K, "description": "How many passages (default 5)."}},
            "required": ["query"]})
    }

    fn call(&self, _ctx: ToolContext, args: Value) -> ToolFuture {
        let knowledge = self.knowledge.clone();
        Box::pin(async move {
            let args: Args = match serde_json::from_value(args) {
                Ok(a) => a,
                Err(e) => return ToolOutput::error(format!("invalid arguments: {e}")),
            };
            let top_k = args.top_k.unwrap_or(DEFAULT_TOP_K).clamp(1, MAX_TOP_K);
            let base = args.base.filter(|b| !b.trim().is_empty());
            let work = tokio::task::spawn_blocking(move || {
                knowledge.search(&args.query, base.as_deref(), top_k)
            });
            match work.await {
                Ok(Ok(passages)) if passages.is_empty() => {
                    ToolOutput::ok(json!({"passages": [], "note": "nothing found"}).to_string())
                }
                Ok(Ok(passages)) => ToolOutput::ok(json!({"passages": passages}).to_string()),
                Ok(Err(e)) => ToolOutput::error(e.to_string()),
                Err(e) => ToolOutput::error(format!("the search stopped: {e}")),
            }
        })
    }
}
