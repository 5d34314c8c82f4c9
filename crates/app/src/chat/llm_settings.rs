//! The chat model's settings a parent keeps: which model and where, its API
//! key (in the OS keyring, never SQLite), the client built from them, and
//! the price table runs are costed with.

use super::*;

impl Chat {
    pub fn llm_settings(&self) -> AppResult<LlmSettings> {
        llm_settings(self.store())
    }

    /// Saves the provider settings after checking them. An empty base URL
    /// means the provider's default.
    pub fn save_llm_settings(&self, model: &str, base_url: Option<&str>) -> AppResult<()> {
        let spec = ModelSpec::parse(model).map_err(llm_error)?;
        let base_url = base_url.map(str::trim).filter(|u| !u.is_empty());
        spec.base_url(base_url).map_err(llm_error)?;
        self.store()
            .settings()
            .set(None, MODEL_KEY, &spec.to_string())?;
        match base_url {
            Some(u) => self
                .store()
                .settings()
                .set(None, BASE_URL_KEY, &u.trim_end_matches('/'))?,
            None => self.store().settings().remove(None, BASE_URL_KEY)?,
        }
        Ok(())
    }

    /// Saves a provider's API key in the OS keyring (never in the database).
    pub fn save_llm_api_key(&self, provider: &str, key: &str) -> AppResult<()> {
        let key = ApiKey::new(key).map_err(llm_error)?;
        key_store().save(provider, &key).map_err(llm_error)
    }

    /// The model notice (what is sent where) and whether a parent agreed.
    pub fn model_notice(&self) -> AppResult<deskmate_protocol::ModelNoticeView> {
        model_notice::view(self.store())
    }

    /// Records a parent's agreement to the notice for the configured model:
    /// from now on the companion may use it.
    pub fn agree_model_notice(&self) -> AppResult<deskmate_protocol::ModelNoticeView> {
        model_notice::agree(self.store())
    }

    /// Withdraws the agreement: no model is used until a parent agrees again.
    pub fn withdraw_model_notice(&self) -> AppResult<()> {
        model_notice::withdraw(self.store())
    }

    pub fn delete_llm_api_key(&self, provider: &str) -> AppResult<()> {
        key_store().delete(provider).map_err(llm_error)
    }

    /// A client for the configured model, with `opts` laid over the settings.
    pub fn llm_client(&self, opts: &ChatOptions) -> AppResult<LlmClient> {
        llm_client(self.store(), opts)
    }

    /// The prices costs are reckoned with: the built-in ones with the
    /// `llm.prices` setting laid over them. A setting that cannot be read is
    /// an error that says how to fix it, never silently skipped.
    pub fn llm_prices(&self) -> AppResult<PriceTable> {
        llm_prices(self.store())
    }

    /// The `llm.prices` overrides alone (none when unset).
    pub fn llm_price_overrides(&self) -> AppResult<PriceTable> {
        Ok(self
            .store()
            .settings()
            .get(None, PRICES_KEY)?
            .unwrap_or_default())
    }

    /// Checks and saves the `llm.prices` overrides, given as JSON.
    pub fn save_llm_prices(&self, json: &str) -> AppResult<PriceTable> {
        let table: PriceTable = serde_json::from_str(json).map_err(|e| {
            AppError::Config(format!(
                "these prices cannot be read ({e}). {PRICE_TABLE_SHAPE}"
            ))
        })?;
        for (model, price) in &table.prices {
            let spec = model
                .strip_suffix(":*")
                .map(|p| format!("{p}:any"))
                .unwrap_or_else(|| model.clone());
            ModelSpec::parse(&spec).map_err(|_| {
                AppError::Config(format!("{model:?} is not provider:model or provider:* (e.g. openai:gpt-4o-mini, ollama:*)"))
            })?;
            let all = [
                Some(price.input_per_mtok),
                Some(price.output_per_mtok),
                price.cached_input_per_mtok,
            ];
            if all.into_iter().flatten().any(|p| !p.is_finite() || p < 0.0) {
                return Err(AppError::Config(format!(
                    "the prices of {model} must be zero or more (dollars per million tokens)"
                )));
            }
        }
        self.store().settings().set(None, PRICES_KEY, &table)?;
        Ok(table)
    }

    /// Removes the `llm.prices` overrides (the built-in prices stay).
    pub fn clear_llm_prices(&self) -> AppResult<()> {
        Ok(self.store().settings().remove(None, PRICES_KEY)?)
    }
}

/// The prices costs are reckoned with in `store` (see [`Chat::llm_prices`]).
pub(crate) fn llm_prices(store: &Store) -> AppResult<PriceTable> {
    let overrides: Option<PriceTable> = store.settings().get(None, PRICES_KEY).map_err(|e| match e {
        deskmate_store::StoreError::Invalid(why) => AppError::Config(format!(
            "the price table in the setting {PRICES_KEY} cannot be used ({why}). {PRICE_TABLE_SHAPE} \
             Set it again with `deskmate llm prices JSON`, or remove it with `deskmate llm prices --clear`"
        )),
        other => AppError::Store(other),
    })?;
    Ok(PriceTable::builtin().merged(overrides.unwrap_or_default()))
}
