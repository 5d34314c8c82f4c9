//! `deskmate llm`: the chat model provider — which model, which base URL,
//! the API key in the OS keyring, the price table costs are reckoned with,
//! and a connection test.

use std::io::BufRead;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use deskmate_app::chat::ChatOptions;
use deskmate_app::Deskmate;

use crate::output;

#[derive(Subcommand)]
pub enum LlmCmd {
    /// Save the model (provider:model) and optionally a base URL, then show
    /// the notice of what is sent there; the companion uses the model once
    /// a parent agrees (`--agree`, or `deskmate llm agree` later).
    Set {
        #[arg(long)]
        model: String,
        /// Leave out to use the provider's default.
        #[arg(long)]
        base_url: Option<String>,
        /// Agree to the notice printed for this model now.
        #[arg(long)]
        agree: bool,
    },
    /// Show the notice of what is sent to the configured model, and whether
    /// a parent agreed to it.
    Notice {
        #[arg(long)]
        json: bool,
    },
    /// Agree to the notice for the configured model (shown again first):
    /// from now on the companion may use it.
    Agree,
    /// Withdraw the agreement: no model is used until a parent agrees again.
    Withdraw,
    /// Show the settings (never the key itself).
    Show {
        #[arg(long)]
        json: bool,
    },
    /// Save a provider's API key in the OS keyring, read from standard input
    /// (so it stays out of the shell history).
    Key {
        provider: String,
        /// Remove the saved key instead.
        #[arg(long)]
        delete: bool,
    },
    /// Show, set or clear the price overrides (US dollars per million tokens)
    /// laid over the built-in prices, e.g.
    /// '{"prices": {"openai:gpt-4o-mini": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}}'.
    Prices {
        /// The price table as JSON; leave out to show the overrides.
        json: Option<String>,
        /// Remove the overrides instead.
        #[arg(long, conflicts_with = "json")]
        clear: bool,
    },
    /// Show, set or clear a profile's chat context: JSON like
    /// '{"system_prompt": "…", "tools": ["read_file"], "subagents": false, "model": "provider:model",
    /// "approvals": ["internet_search"], "subagent_depth": 1}' (approvals: tools that wait for a
    /// parent, in subagents too; subagent_depth: levels of subagents, 1-3, 1 = they start none).
    /// A conversation's own --context beats it; it beats the defaults.
    Context {
        /// The profile (name or id).
        #[arg(long)]
        profile: String,
        /// The context as JSON; leave out to show the stored one.
        json: Option<String>,
        #[arg(long, conflicts_with = "json")]
        clear: bool,
    },
    /// Whether the companion may hand work to subagents (on unless turned off).
    Subagents {
        #[arg(value_parser = ["on", "off"])]
        state: Option<String>,
    },
    /// Send a one-line question to the model.
    Test {
        #[arg(long)]
        model: Option<String>,
        #[arg(long)]
        base_url: Option<String>,
    },
}

pub fn run(app: &Deskmate, cmd: LlmCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        LlmCmd::Context {
            profile,
            json,
            clear,
        } => {
            let profile = app.find_profile(&profile)?;
            if clear {
                app.chat().set_context(&profile.id, None)?;
            } else if let Some(json) = json {
                let context: deskmate_app::chat::ChatContext = serde_json::from_str(&json)
                    .context("not a chat context (keys: model, system_prompt, tools, subagents, approvals, subagent_depth)")?;
                app.chat().set_context(&profile.id, Some(&context))?;
            }
            match app.chat().context(&profile.id)? {
                Some(c) => output::json(&c)?,
                None => println!(
                    "{} has no chat context of their own (the defaults apply)",
                    profile.name
                ),
            }
        }
        LlmCmd::Subagents { state } => {
            if let Some(state) = state {
                app.chat().set_subagents(state == "on")?;
            }
            let on = app.chat().subagents()?;
            println!("subagents: {}", if on { "on" } else { "off" });
        }
        LlmCmd::Set {
            model,
            base_url,
            agree,
        } => {
            app.chat().save_llm_settings(&model, base_url.as_deref())?;
            println!("saved: {model}");
            let notice = if agree {
                app.chat().agree_model_notice()?
            } else {
                app.chat().model_notice()?
            };
            print_notice(&notice);
        }
        LlmCmd::Notice { json } => {
            let notice = app.chat().model_notice()?;
            if json {
                output::json(&notice)?;
            } else {
                print_notice(&notice);
            }
        }
        LlmCmd::Agree => print_notice(&app.chat().agree_model_notice()?),
        LlmCmd::Withdraw => {
            app.chat().withdraw_model_notice()?;
            println!(
                "withdrawn: no model is used until a parent agrees again (`deskmate llm agree`)"
            );
        }
        LlmCmd::Show { json } => {
            let s = app.chat().llm_settings()?;
            if json {
                output::json(&s)?;
            } else {
                println!("model:    {}", s.model.as_deref().unwrap_or("(not set)"));
                println!(
                    "base URL: {}",
                    s.base_url.as_deref().unwrap_or("(provider default)")
                );
                println!(
                    "API key:  {}",
                    s.key_source
                        .map(|k| format!("{k:?}").to_lowercase())
                        .unwrap_or_else(|| "none found".into())
                );
            }
        }
        LlmCmd::Key { provider, delete } => {
            if delete {
                app.chat().delete_llm_api_key(&provider)?;
                println!("removed the {provider} key from the OS keyring");
            } else {
                let mut key = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut key)
                    .context("cannot read the key from standard input")?;
                app.chat().save_llm_api_key(&provider, key.trim())?;
                println!("saved the {provider} key in the OS keyring");
            }
        }
        LlmCmd::Prices { json, clear } => {
            if clear {
                app.chat().clear_llm_prices()?;
                println!("removed the price overrides; the built-in prices stay");
            } else if let Some(json) = json {
                let table = app.chat().save_llm_prices(&json)?;
                println!("saved prices for {} model(s)", table.prices.len());
            } else {
                output::json(&app.chat().llm_price_overrides()?)?;
            }
        }
        LlmCmd::Test { model, base_url } => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let report = rt.block_on(app.chat().test_connection(&ChatOptions {
                model,
                base_url,
                ..Default::default()
            }))?;
            println!(
                "{} answered {:?} in {} ms",
                report.model, report.reply, report.latency_ms
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The notice in both languages, then whether it is agreed.
fn print_notice(notice: &deskmate_protocol::ModelNoticeView) {
    println!("\n{}\n\n{}\n", notice.text_zh, notice.text_en);
    match &notice.agreed_at {
        Some(at) => println!("agreed at {at}: the companion may use this model"),
        None if notice.endpoint.is_some() => println!(
            "not agreed yet: the companion uses no model until a parent agrees (`deskmate llm agree`)"
        ),
        None => println!("no model is set up (`deskmate llm set --model provider:model`)"),
    }
}
