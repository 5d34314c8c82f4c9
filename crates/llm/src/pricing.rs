//! What a call cost: a price table (US dollars per million tokens) that
//! settings can override, applied to a call's usage.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::{ModelSpec, Usage};

/// Prices of one model in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
    /// Price of cached input tokens; the input price when absent.
    #[serde(default)]
    pub cached_input_per_mtok: Option<f64>,
}

/// Prices by `provider:model` (exact) or by `provider:*` (any model of a
/// provider, e.g. `ollama:*` at zero).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    pub prices: HashMap<String, Price>,
}

impl PriceTable {
    /// List prices at the time of writing for a few common models. They
    /// change: parents or deployers override them in settings (`llm.prices`).
    pub fn builtin() -> Self {
        let p = |i: f64, o: f64, c: Option<f64>| Price {
            input_per_mtok: i,
            output_per_mtok: o,
            cached_input_per_mtok: c,
        };
        let prices = [
            ("openai:gpt-4o-mini", p(0.15, 0.60, Some(0.075))),
            ("openai:gpt-4o", p(2.50, 10.0, Some(1.25))),
            ("openai:gpt-4.1-mini", p(0.40, 1.60, Some(0.10))),
            (
                "anthropic:claude-3-5-haiku-latest",
                p(0.80, 4.0, Some(0.08)),
            ),
            ("anthropic:claude-sonnet-4-0", p(3.0, 15.0, Some(0.30))),
            ("deepseek:deepseek-chat", p(0.27, 1.10, Some(0.07))),
            ("ollama:*", p(0.0, 0.0, None)),
            ("vllm:*", p(0.0, 0.0, None)),
        ];
        Self {
            prices: prices
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        }
    }

    /// This table with `overrides` laid over it.
    pub fn merged(mut self, overrides: PriceTable) -> Self {
        self.prices.extend(overrides.prices);
        self
    }

    /// The cost of `usage` on `model`, or `None` when its price is unknown.
    pub fn cost(&self, model: &ModelSpec, usage: &Usage) -> Option<f64> {
        let price = self
            .prices
            .get(&model.to_string())
            .or_else(|| self.prices.get(&format!("{}:*", model.provider)))?;
        let cached = usage.cached_input_tokens.min(usage.input_tokens);
        let fresh = usage.input_tokens - cached;
        let m = 1_000_000.0;
        #[allow(clippy::cast_precision_loss)]
        let cost = fresh as f64 * price.input_per_mtok / m
            + cached as f64 * price.cached_input_per_mtok.unwrap_or(price.input_per_mtok) / m
            + usage.output_tokens as f64 * price.output_per_mtok / m;
        Some(cost)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn costs_by_model_and_wildcard() {
        let t = PriceTable::builtin();
        let u = Usage {
            input_tokens: 1_000_000,
            output_tokens: 500_000,
            cached_input_tokens: 200_000,
        };
        let c = t
            .cost(&ModelSpec::parse("openai:gpt-4o-mini").unwrap(), &u)
            .unwrap();
        assert!(
            (c - (0.8 * 0.15 + 0.2 * 0.075 + 0.5 * 0.60)).abs() < 1e-9,
            "{c}"
        );
        assert_eq!(
            t.cost(&ModelSpec::parse("ollama:qwen2.5").unwrap(), &u),
            Some(0.0)
        );
        assert_eq!(t.cost(&ModelSpec::parse("mylab:x").unwrap(), &u), None);
        let mut o = PriceTable::default();
        o.prices.insert(
            "mylab:x".into(),
            Price {
                input_per_mtok: 1.0,
                output_per_mtok: 2.0,
                cached_input_per_mtok: None,
            },
        );
        let c = t
            .merged(o)
            .cost(&ModelSpec::parse("mylab:x").unwrap(), &u)
            .unwrap();
        assert!((c - 2.0).abs() < 1e-9, "{c}");
    }
}
