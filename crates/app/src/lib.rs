//! The composition root. [`Deskmate`] is built once from a [`Config`] by each
//! front end — the Tauri shell, the `deskmate` CLI and the local HTTP API — and
//! holds the services they all call. Nothing here depends on Tauri.

pub mod chat;
mod config;
pub mod doctor;
mod error;
pub mod family;
pub mod lamp;
pub mod lamp_buttons;
pub mod library;
pub mod live_transcript;
pub mod practice;
pub mod recite;
pub mod report_attempts;
pub mod review_reminders;
pub mod settings;
pub mod tips;
pub mod voice;
pub mod voice_out;

pub use config::{Config, DATA_DIR_ENV, MODELS_DIR_ENV};
pub use deskmate_store as store;
use deskmate_store::Store;
pub use error::{AppError, AppResult};

/// The running app's services.
#[derive(Debug, Clone)]
pub struct Deskmate {
    config: Config,
    store: Store,
    lamp: lamp::LampSlot,
    speech: voice::SpeechSlot,
    voice_out: voice_out::VoiceOutSlot,
    screen: lamp_buttons::ScreenSlot,
}

impl Deskmate {
    /// Opens the data directory and database, runs migrations and brings the
    /// built-in material library up to date.
    pub fn open(config: Config) -> AppResult<Self> {
        config::ensure_writable(&config.data_dir)?;
        let store = Store::open(&config.database_path())?;
        let app = Self {
            config,
            store,
            lamp: lamp::LampSlot::default(),
            speech: voice::SpeechSlot::default(),
            voice_out: voice_out::VoiceOutSlot::default(),
            screen: lamp_buttons::ScreenSlot::default(),
        };
        library::sync_builtin(&app.store)?;
        Ok(app)
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    fn lamp_slot(&self) -> &lamp::LampSlot {
        &self.lamp
    }

    fn speech_slot(&self) -> &voice::SpeechSlot {
        &self.speech
    }

    fn voice_out_slot(&self) -> &voice_out::VoiceOutSlot {
        &self.voice_out
    }

    fn screen_slot(&self) -> &lamp_buttons::ScreenSlot {
        &self.screen
    }
}
