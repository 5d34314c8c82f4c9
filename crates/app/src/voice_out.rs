//! Spoken feedback: after a verdict, the practice scene's feedback (Chinese
//! or English, as the material) is synthesized offline by espeak-ng — or,
//! when a parent has configured one, by an OpenAI-compatible
//! `/v1/audio/speech` service, falling back to espeak-ng whenever that
//! fails (offline first) — each phrase cached as a WAV in the data
//! directory, and played through the speech crate's playback queue — one
//! voice at a time, in order.
//!
//! The cloud voice is the app-wide setting `voice.cloud` ([`CloudVoice`]);
//! its key, if the service needs one, is the chat provider key of
//! `key_provider` (environment or OS keyring, never the database). The child
//! starting to speak (record start) interrupts it; leaving the practice (a
//! scene change) clears it.
//!
//! One worker thread owns the speaker and the synthesizer, so nothing here
//! blocks a caller. A missing speaker or synthesizer is logged and reported
//! as [`VoiceNotice::Unavailable`]; the practice goes on, the feedback stays
//! on screen. Speaking is off until a front end turns it on
//! ([`FeedbackVoice::enable`]): the window speaks, the CLI and
//! unit tests stay quiet.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deskmate_speech::audio::playback::{PlaybackEvent, PlaybackQueue, VoiceClip};
use deskmate_speech::tts::{CachedSynthesizer, EspeakNg, OpenAiSpeech, Synthesizer, TtsError};
use deskmate_store::Store;

use crate::events::{AppEvent, EventBus};
use crate::practice::FeedbackView;
use crate::{AppError, AppResult, Deskmate};

/// What the voice did, published as [`AppEvent::Voice`] on `voice://notice`
/// (a protocol type).
pub use deskmate_protocol::voice::VoiceNotice;

/// How often the worker looks at the queue's events while clips are queued.
const POLL: Duration = Duration::from_millis(20);

use crate::settings::VOICE_CLOUD as CLOUD_VOICE_KEY;

/// How long a phrase may take the cloud voice before espeak-ng says it:
/// feedback a child waits for must not hang on a slow network.
const CLOUD_VOICE_TIMEOUT: Duration = Duration::from_secs(8);

/// An OpenAI-compatible speech service to speak feedback with, and what
/// [`FeedbackVoice::test`] did (protocol types).
pub use deskmate_protocol::voice::{CloudVoice, VoiceTest};

/// A phrase made ready to play, and by whom.
pub struct Spoken {
    pub clip: VoiceClip,
    /// The synthesizer that made it (`openai:…` or `espeak-ng@…`).
    pub backend: String,
    /// Why the cloud voice was not used although configured.
    pub fell_back: Option<String>,
}

/// The voices feedback can be spoken with: the configured cloud voice, if
/// any, and espeak-ng, always there for when the cloud one fails.
pub struct Voices {
    cloud: Option<(CachedSynthesizer<OpenAiSpeech>, String)>,
    offline: CachedSynthesizer<EspeakNg>,
}

impl Voices {
    /// Synthesizes `text` in the material's language `lang`.
    pub fn say(&self, lang: &str, text: &str) -> Result<Spoken, TtsError> {
        let mut fell_back = None;
        if let Some((cloud, voice)) = &self.cloud {
            match cloud.synthesize(voice, text) {
                Ok(clip) => {
                    return Ok(Spoken {
                        clip,
                        backend: cloud.name(),
                        fell_back: None,
                    })
                }
                Err(TtsError::EmptyText) => return Err(TtsError::EmptyText),
                Err(e) => {
                    tracing::warn!("the cloud voice failed ({e}); speaking with espeak-ng instead");
                    fell_back = Some(e.to_string());
                }
            }
        }
        let clip = self.offline.synthesize(espeak_voice(lang), text)?;
        Ok(Spoken {
            clip,
            backend: self.offline.name(),
            fell_back,
        })
    }
}

enum Order {
    Say { lang: String, text: String },
    Use(Box<Voices>),
    Clip { text: String, clip: VoiceClip },
    Interrupt,
    Clear,
}

/// The spoken-feedback service (`app.feedback_voice()`): the voice as a
/// parent set it (settings, keyring), and the worker that says what it is
/// told, started by [`FeedbackVoice::enable`]. Clones share the worker.
#[derive(Clone)]
pub struct FeedbackVoice {
    enabled: Arc<AtomicBool>,
    orders: Arc<Mutex<Option<flume::Sender<Order>>>>,
    store: Store,
    data_dir: PathBuf,
    bus: EventBus,
}

impl std::fmt::Debug for FeedbackVoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeedbackVoice")
            .field("enabled", &self.enabled.load(Ordering::SeqCst))
            .finish()
    }
}

/// The espeak-ng voice for a material's language.
fn espeak_voice(lang: &str) -> &'static str {
    if lang == "en" {
        "en-us"
    } else {
        "cmn"
    }
}

/// What to say after a verdict: the feedback, then the memory tip, in the material's language.
pub fn spoken_phrases(lang: &str, feedback: &FeedbackView) -> Vec<String> {
    let (main, tip) = if lang == "en" {
        (&feedback.en, &feedback.tip_en)
    } else {
        (&feedback.zh, &feedback.tip_zh)
    };
    [Some(main), tip.as_ref()]
        .into_iter()
        .flatten()
        .filter(|t| !t.trim().is_empty())
        .cloned()
        .collect()
}

impl FeedbackVoice {
    pub(crate) fn new(store: Store, data_dir: PathBuf, bus: EventBus) -> Self {
        Self {
            enabled: Arc::default(),
            orders: Arc::default(),
            store,
            data_dir,
            bus,
        }
    }

    /// Says a verdict's feedback (and memory tip) in the material's
    /// language (`zh`, `en`), after whatever is already queued. Never fails
    /// the practice.
    pub(crate) fn speak_feedback(&self, lang: &str, feedback: &FeedbackView) {
        for text in spoken_phrases(lang, feedback) {
            self.send(Order::Say {
                lang: lang.to_string(),
                text,
            });
        }
    }

    /// The child started speaking: the voice stops now and nothing queued plays.
    pub fn interrupt(&self) {
        self.send(Order::Interrupt);
    }

    /// The scene changed: everything queued is dropped.
    pub fn clear(&self) {
        self.send(Order::Clear);
    }

    fn send(&self, order: Order) {
        if !self.enabled.load(Ordering::SeqCst) {
            return;
        }
        if let Ok(orders) = self.orders.lock() {
            if let Some(tx) = orders.as_ref() {
                if tx.send(order).is_err() {
                    tracing::warn!("the spoken feedback worker has stopped");
                }
            }
        }
    }
}

/// The worker: owns the speaker (opened on first use, again after a failure)
/// and the synthesizer; plays what it is told, in order.
struct Worker {
    voices: Voices,
    queue: Option<PlaybackQueue>,
    /// Clips queued and not yet finished, interrupted or dropped.
    in_flight: usize,
    /// The last reason nothing could be said, to log it once, not per phrase.
    last_problem: Option<String>,
    /// Where the notices go (the app's one event stream).
    bus: EventBus,
}

impl Worker {
    fn notify(&self, notice: VoiceNotice) {
        self.bus.publish(AppEvent::Voice(notice));
    }

    fn run(mut self, orders: flume::Receiver<Order>) {
        loop {
            let order = if self.in_flight > 0 {
                match orders.recv_timeout(POLL) {
                    Ok(o) => Some(o),
                    Err(flume::RecvTimeoutError::Timeout) => None,
                    Err(flume::RecvTimeoutError::Disconnected) => break,
                }
            } else {
                match orders.recv() {
                    Ok(o) => Some(o),
                    Err(_) => break,
                }
            };
            match order {
                Some(Order::Say { lang, text }) => self.say(&lang, text),
                Some(Order::Use(voices)) => self.voices = *voices,
                Some(Order::Clip { text, clip }) => self.play(text, clip),
                Some(Order::Interrupt) => {
                    if let Some(q) = &self.queue {
                        q.interrupt();
                    }
                }
                Some(Order::Clear) => {
                    if let Some(q) = &self.queue {
                        q.clear();
                    }
                }
                None => {}
            }
            self.drain_events();
        }
    }

    fn problem(&mut self, reason: String) {
        if self.last_problem.as_deref() != Some(reason.as_str()) {
            tracing::warn!("feedback is shown but not spoken: {reason}");
            self.last_problem = Some(reason.clone());
        }
        self.notify(VoiceNotice::Unavailable { reason });
    }

    /// The speaker, opened now if it is not open yet.
    fn speaker(&mut self) -> Option<&mut PlaybackQueue> {
        if self.queue.is_none() {
            match PlaybackQueue::open_default() {
                Ok(q) => self.queue = Some(q),
                Err(e) => {
                    self.problem(e.to_string());
                    return None;
                }
            }
        }
        self.queue.as_mut()
    }

    fn say(&mut self, lang: &str, text: String) {
        // No speaker: do not spend time synthesizing.
        if self.speaker().is_none() {
            return;
        }
        match self.voices.say(lang, &text) {
            Ok(spoken) => self.play(text, spoken.clip),
            Err(e) => self.problem(e.to_string()),
        }
    }

    fn play(&mut self, text: String, clip: VoiceClip) {
        let Some(queue) = self.speaker() else { return };
        match queue.enqueue(clip) {
            Ok(id) => {
                self.in_flight += 1;
                self.last_problem = None;
                self.notify(VoiceNotice::Queued { id, text });
            }
            Err(e) => self.problem(e.to_string()),
        }
    }

    fn drain_events(&mut self) {
        let Some(queue) = &self.queue else { return };
        while let Some(playback) = queue.next_event(Duration::ZERO) {
            if !matches!(playback, PlaybackEvent::Started { .. }) {
                self.in_flight = self.in_flight.saturating_sub(1);
            }
            self.bus.publish(AppEvent::Voice(VoiceNotice::Playback {
                playback: crate::events::playback_event(playback),
            }));
        }
    }
}

impl FeedbackVoice {
    /// The cloud voice feedback is spoken with, if a parent set one.
    pub fn cloud_voice(&self) -> AppResult<Option<CloudVoice>> {
        Ok(self.store.settings().get(None, CLOUD_VOICE_KEY)?)
    }

    /// Sets (after checking it) or clears the cloud voice; spoken feedback
    /// uses it from the next phrase on.
    pub fn save_cloud_voice(&self, cloud: Option<&CloudVoice>) -> AppResult<()> {
        match cloud {
            Some(c) => {
                let url = c.base_url.trim();
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(AppError::Config(format!(
                        "the cloud voice's base URL must start with http:// or https://, not {url:?}"
                    )));
                }
                if c.model.trim().is_empty() || c.voice.trim().is_empty() {
                    return Err(AppError::Config(
                        "the cloud voice needs a model and a voice name".into(),
                    ));
                }
                let clean = CloudVoice {
                    base_url: url.trim_end_matches('/').to_string(),
                    model: c.model.trim().to_string(),
                    voice: c.voice.trim().to_string(),
                    key_provider: c
                        .key_provider
                        .as_deref()
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .map(String::from),
                };
                self.store.settings().set(None, CLOUD_VOICE_KEY, &clean)?;
            }
            None => self.store.settings().remove(None, CLOUD_VOICE_KEY)?,
        }
        if self.enabled.load(Ordering::SeqCst) {
            self.send(Order::Use(Box::new(self.voices()?)));
        }
        Ok(())
    }

    /// The voices as configured now, caching clips in `<data dir>/voice-cache`.
    pub fn voices(&self) -> AppResult<Voices> {
        let cache = self.data_dir.join("voice-cache");
        let cloud = self.cloud_voice()?.map(|c| {
            let api_key = c
                .key_provider
                .as_deref()
                .and_then(|p| crate::chat::key_store().resolve(p))
                .map(|(key, _)| key.expose().to_string());
            let speech = OpenAiSpeech {
                base_url: c.base_url,
                api_key,
                model: c.model,
                timeout: CLOUD_VOICE_TIMEOUT,
            };
            (CachedSynthesizer::new(speech, &cache), c.voice)
        });
        Ok(Voices {
            cloud,
            offline: CachedSynthesizer::new(EspeakNg::default(), &cache),
        })
    }

    /// Says a short test phrase in `lang` with the voice as configured (and
    /// plays it when spoken feedback is on): which voice spoke, and why the
    /// cloud one did not if it failed.
    pub fn test(&self, lang: &str) -> AppResult<VoiceTest> {
        let text = if lang == "en" {
            "Hello! This is how I will read your feedback."
        } else {
            "你好！我会这样读出你的反馈。"
        };
        let spoken = self.voices()?.say(lang, text).map_err(AppError::Voice)?;
        let test = VoiceTest {
            text: text.to_string(),
            backend: spoken.backend,
            fell_back: spoken.fell_back,
            seconds: spoken.clip.duration_s(),
        };
        self.speak_clip(text, spoken.clip);
        Ok(test)
    }

    /// Turns spoken feedback on (the window does at start): starts the
    /// worker that synthesizes (see [`FeedbackVoice::voices`]) and plays.
    /// Calling it again does nothing.
    pub fn enable(&self) -> AppResult<()> {
        let slot = self;
        let mut orders = slot
            .orders
            .lock()
            .map_err(|_| AppError::Poisoned("the voice slot was poisoned"))?;
        if orders.is_some() {
            return Ok(());
        }
        // Read only when the worker starts (settings and keyring).
        let voices = self.voices()?;
        let bus = self.bus.clone();
        let (tx, rx) = flume::unbounded();
        std::thread::Builder::new()
            .name("spoken-feedback".into())
            .spawn(move || {
                // Built here: the speaker's stream stays on this thread.
                let worker = Worker {
                    voices,
                    queue: None,
                    in_flight: 0,
                    last_problem: None,
                    bus,
                };
                worker.run(rx);
            })
            .map_err(|e| AppError::Thread {
                what: "cannot start spoken feedback",
                reason: e.to_string(),
            })?;
        *orders = Some(tx);
        slot.enabled.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Queues a ready-made clip (a recorded reading, a chime) after whatever
    /// is queued; `text` names it in the notices.
    pub fn speak_clip(&self, text: &str, clip: VoiceClip) {
        self.send(Order::Clip {
            text: text.to_string(),
            clip,
        });
    }
}

impl Deskmate {
    /// Spoken feedback: the voice, its settings, the queue.
    pub fn feedback_voice(&self) -> &FeedbackVoice {
        &self.voice_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feedback(tip: bool) -> FeedbackView {
        FeedbackView {
            zh: "第二行漏掉了。".into(),
            en: "Line 2 was left out.".into(),
            tip_zh: tip.then(|| "想一想月光像什么。".into()),
            tip_en: tip.then(|| "Think of what the moonlight looks like.".into()),
        }
    }

    #[test]
    fn feedback_then_tip_in_the_material_language() {
        assert_eq!(
            spoken_phrases("zh", &feedback(true)),
            vec!["第二行漏掉了。", "想一想月光像什么。"]
        );
        assert_eq!(
            spoken_phrases("en", &feedback(false)),
            vec!["Line 2 was left out."]
        );
        let mut empty = feedback(false);
        empty.zh = "  ".into();
        assert!(spoken_phrases("zh", &empty).is_empty());
        assert_eq!(espeak_voice("en"), "en-us");
        assert_eq!(espeak_voice("zh"), "cmn");
    }

    #[test]
    fn nothing_is_queued_until_a_front_end_turns_speaking_on() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(crate::Config::in_dir(dir.path())).unwrap();
        let events = app.events();
        app.feedback_voice().speak_clip(
            "tone",
            VoiceClip {
                samples: vec![0.0; 160],
                sample_rate: 16_000,
            },
        );
        app.feedback_voice().interrupt();
        assert!(events.recv_timeout(Duration::from_millis(300)).is_err());
        assert!(!dir.path().join("voice-cache").exists());
    }
}
