//! The composition root. [`Deskmate`] is built once from a [`Config`] by each
//! front end — the Tauri shell, the `deskmate` CLI and the local HTTP API — and
//! holds the services they all call. Nothing here depends on Tauri.

pub mod ask;
pub mod ask_model;
pub mod chat;
mod child_data;
mod config;
pub mod doctor;
mod error;
pub mod events;
pub mod family;
pub mod family_limits;
pub mod family_sync;
pub mod handoff;
pub mod keepsake;
pub mod knowledge;
pub mod lamp;
pub mod library;
pub mod mcp;
pub mod memories;
pub mod model_use;
pub mod models;
pub mod photos;
pub mod plan;
pub mod practice;
pub mod recite;
pub mod recording;
pub mod report_attempts;
pub mod review_reminders;
pub mod routines;
pub mod settings;
pub mod skills;
mod study_tools;
pub mod talk;
pub mod tips;
pub mod voice_out;

pub use config::{Config, DATA_DIR_ENV, MODELS_DIR_ENV};
pub use deskmate_orchestrator as orchestrator;
pub use deskmate_store as store;
use deskmate_store::Store;
pub use error::{AppError, AppResult};

/// The running app: its configuration and database, and the services that
/// own the state the front ends share — the practice scene
/// ([`Deskmate::practice`]: the recordings in progress, the practice on
/// screen), the lamp link (the connected lamp and the simulator the window
/// may host), the feedback voice (its queue and listeners) and the chat runs
/// going on (their stop switches) — and the one event stream they all
/// publish on ([`Deskmate::events`]). Clones share all of it; nothing is
/// process-global, so two handles on two data directories stay apart.
#[derive(Debug, Clone)]
pub struct Deskmate {
    config: Config,
    store: Store,
    practice: deskmate_orchestrator::PracticeScene,
    /// The practice's microphone, whose speech models the entry hears with.
    ears: deskmate_orchestrator::scene::Microphone,
    /// One recording heard and judged at a time (see [`recording`]).
    hearing_turn: recording::HearingTurn,
    lamp: lamp::LampLink,
    voice_out: voice_out::FeedbackVoice,
    chat: chat::Chat,
    bus: events::EventBus,
    /// The talk button's listening, by child (its stop buttons).
    talks: talk::Talks,
    /// The family's background sync, when a long-running front end started it.
    sync_loop: family_sync::SyncLoop,
}

impl Deskmate {
    /// Opens the data directory and database, runs migrations and brings the
    /// built-in material library up to date.
    pub fn open(config: Config) -> AppResult<Self> {
        config::ensure_writable(&config.data_dir)?;
        let store = Store::open(&config.database_path())?;
        let connected = lamp::ConnectedLamp::default();
        let bus = events::EventBus::default();
        let voice_out =
            voice_out::FeedbackVoice::new(store.clone(), config.data_dir.clone(), bus.clone());
        let (practice, ears) = practice::scene(&config, &store, &connected, &voice_out, &bus);
        let chat = chat::Chat::new(store.clone(), config.clone(), connected.clone());
        let lamp = lamp::LampLink::new(
            connected,
            config.data_dir.clone(),
            bus.clone(),
            practice.clone(),
        );
        let app = Self {
            practice,
            ears,
            hearing_turn: recording::HearingTurn::default(),
            config,
            store,
            lamp,
            voice_out,
            chat,
            bus,
            talks: talk::Talks::default(),
            sync_loop: family_sync::SyncLoop::default(),
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

    fn bus(&self) -> &events::EventBus {
        &self.bus
    }
}
