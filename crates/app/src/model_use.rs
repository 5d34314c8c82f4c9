//! The model calls a child causes outside a conversation — the entry's
//! router and homework check, the memory tips of an attempt, the memory
//! sweep — stored in `llm_calls` with the child and the purpose (migration
//! 0028), so usage and the daily limits count them with the conversations'
//! calls (issue 20). The companion's runs record their own streamed calls;
//! these are the one-off calls `LlmClient::complete` makes, told to a
//! [`ChildCalls`] meter. A meter that cannot write logs it and lets the call
//! stand: counting never breaks what the child was doing.

use std::sync::Arc;

use deskmate_llm::{CallMeter, LlmClient, MeteredCall, PriceTable};
use deskmate_store::Store;

/// What a call outside a conversation was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The entry's model classification of what the router was unsure of.
    Route,
    /// Checking or judging homework.
    Homework,
    /// Memory tips after an attempt.
    Tips,
    /// Reading a conversation for memories.
    Memories,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Route => "route",
            Self::Homework => "homework",
            Self::Tips => "tips",
            Self::Memories => "memories",
        }
    }
}

/// The prices a call is costed with: the family's (`llm.prices` over the
/// built-in ones); the built-in ones alone when that setting is unreadable
/// (named in the log), rather than not counting the call.
pub(crate) fn prices(store: &Store) -> PriceTable {
    crate::chat::llm_prices(store).unwrap_or_else(|e| {
        tracing::warn!("model calls are costed with the built-in prices: {e}");
        PriceTable::builtin()
    })
}

/// Stores each call as one of the child's.
pub struct ChildCalls {
    store: Store,
    profile_id: String,
    purpose: Purpose,
    prices: PriceTable,
}

impl ChildCalls {
    /// `client`, with its calls stored as `profile_id`'s for `purpose`.
    pub fn meter(
        client: LlmClient,
        store: &Store,
        profile_id: &str,
        purpose: Purpose,
        prices: PriceTable,
    ) -> LlmClient {
        client.with_meter(Arc::new(Self {
            store: store.clone(),
            profile_id: profile_id.to_string(),
            purpose,
            prices,
        }))
    }
}

impl CallMeter for ChildCalls {
    fn record(&self, call: &MeteredCall<'_>) {
        let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let cost = if call.error.is_none() && !call.dropped {
            self.prices.cost(call.model, call.usage)
        } else {
            None
        };
        let written = self.store.with_conn(|c| {
            c.execute(
                "INSERT INTO llm_calls (id, thread_id, run_id, model, status, input_tokens, output_tokens,
                     cached_input_tokens, cost_usd, duration_ms, error, created_at, profile_id, purpose)
                 VALUES (?1, NULL, NULL, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                rusqlite::params![
                    uuid::Uuid::now_v7().to_string(),
                    call.model.to_string(),
                    if call.dropped {
                        "cancelled"
                    } else if call.error.is_none() {
                        "completed"
                    } else {
                        "error"
                    },
                    n(call.usage.input_tokens),
                    n(call.usage.output_tokens),
                    n(call.usage.cached_input_tokens),
                    cost,
                    i64::try_from(call.duration.as_millis()).unwrap_or(i64::MAX),
                    match (call.error, call.dropped) {
                        (Some(e), _) => Some(e.to_string()),
                        (None, true) => Some("dropped before it finished (a time limit)".to_string()),
                        (None, false) => None,
                    },
                    deskmate_store::now_utc(),
                    self.profile_id,
                    self.purpose.as_str(),
                ],
            )?;
            Ok(())
        });
        if let Err(e) = written {
            tracing::warn!(
                purpose = self.purpose.as_str(),
                "a model call was made but could not be counted ({e})"
            );
        }
    }
}
