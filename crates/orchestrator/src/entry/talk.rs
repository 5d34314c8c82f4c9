//! The talk button (issue 16): the child presses it and speaks. The
//! microphone is heard the way a spoken practice attempt is — the practice
//! scene's [`crate::scene::Microphone`], its voice detector ending the take
//! when the child falls silent (or `release` when the button is pressed
//! again) — and what was said goes through [`Entry::process`] like typed
//! words or a recording. While it runs, [`Talking`] tells the front end
//! what is happening: the level and the text heard so far while listening,
//! then `thinking` once the microphone has closed.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deskmate_speech::attempt::NotAnAttempt;
use deskmate_speech::listen::Release;
use serde::Serialize;

use super::{asr_lang, Entry, Input, Response};
use crate::scene::{Listening, ListeningSink, SceneError, SceneResult};

/// What a talk is doing, for the front end that started it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Talking {
    /// The microphone is open: its level (RMS), about 20 a second.
    Level { level: f32 },
    /// The text heard so far.
    Partial { text: String },
    /// The microphone has closed: what was said is heard and acted on.
    Thinking,
}

/// One press of the talk button: releasing `release` ends the listening
/// at once (the stop button); `report` is told what is happening.
#[derive(Clone)]
pub struct Listen {
    pub release: Release,
    pub report: Arc<dyn Fn(Talking) + Send + Sync>,
}

impl std::fmt::Debug for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listen")
            .field("released", &self.release.is_released())
            .finish()
    }
}

impl Listen {
    /// A press whose progress goes to `report`.
    pub fn new(report: impl Fn(Talking) + Send + Sync + 'static) -> Self {
        Self {
            release: Release::default(),
            report: Arc::new(report),
        }
    }
}

impl Entry {
    /// Listens to `profile_id` until they fall silent (or `listen.release`),
    /// then handles what they said as [`Entry::process`] does (`heard`,
    /// `speech_us` for the transcription, not for the child's talking).
    /// Nothing said, no microphone, the microphone gone or no speech models:
    /// the response's coded error in plain words; nothing is stored.
    pub fn talk(
        &self,
        profile_id: &str,
        listen: &Listen,
        now: DateTime<Utc>,
        model_ready: bool,
    ) -> SceneResult<Response> {
        let profile = self.store.profiles().get(profile_id)?;
        let report = listen.report.clone();
        let sink: ListeningSink = Arc::new(move |heard| {
            report(match heard {
                Listening::Level(level) => Talking::Level { level },
                Listening::Partial(text) => Talking::Partial { text },
            })
        });
        let listened = match &self.hearing {
            Some(hearing) => hearing.listen(asr_lang(&profile.locale), &listen.release, sink),
            None => Err(SceneError::ModelsNeeded(
                "no speech recognition is set up here".into(),
            )),
        };
        (listen.report)(Talking::Thinking);
        let speech = listened.and_then(|l| match (l.speech, l.device_lost) {
            (Some(speech), lost) => {
                if let Some(d) = lost {
                    tracing::warn!(
                        "microphone lost while the child talked ({d}); hearing what came before"
                    );
                }
                Ok(speech)
            }
            (None, Some(d)) => Err(SceneError::MicrophoneLost(d)),
            (None, None) => Err(SceneError::NotAnAttempt(NotAnAttempt::NothingHeard)),
        });
        match speech {
            Ok(speech) => self.process(profile_id, Input::Speech(speech), now, model_ready),
            Err(e) => {
                let tz: Tz = profile
                    .time_zone
                    .parse()
                    .unwrap_or(chrono_tz::Asia::Shanghai);
                let before = self.session(profile_id, tz, now)?;
                Ok(Self::not_heard(&before, &e, 0, 0))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::path::Path;
    use std::sync::Mutex;

    use deskmate_speech::asr::Lang as AsrLang;

    use super::*;
    use crate::entry::Hearing;
    use crate::router::{Intent, Scene};
    use crate::scene::tests::fixture;
    use crate::scene::{Listened, Speech};
    use chrono::TimeZone;

    fn at() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 2, 2, 0, 0).unwrap()
    }

    /// A microphone that hears `said` (or nothing) and reports one level
    /// and one partial while it listens.
    #[derive(Debug)]
    struct Heard(Option<&'static str>);

    impl Hearing for Heard {
        fn words(&self, _recording: &Path, _lang: AsrLang) -> SceneResult<String> {
            panic!("the talk button hears the microphone, not a file")
        }

        fn listen(
            &self,
            lang: AsrLang,
            release: &Release,
            report: ListeningSink,
        ) -> SceneResult<Listened> {
            assert_eq!(lang, AsrLang::Zh);
            assert!(!release.is_released());
            report(Listening::Level(0.3));
            Ok(Listened {
                speech: self.0.map(|said| Speech {
                    samples: said.chars().map(|c| c as u32 as f32).collect(),
                    duration_ms: 1200,
                }),
                device_lost: None,
            })
        }

        fn words_in(&self, speech: &Speech, _lang: AsrLang) -> SceneResult<String> {
            Ok(speech
                .samples
                .iter()
                .filter_map(|c| char::from_u32(*c as u32))
                .collect())
        }
    }

    fn progress() -> (Listen, Arc<Mutex<Vec<Talking>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        (Listen::new(move |t| log.lock().unwrap().push(t)), seen)
    }

    #[test]
    fn what_the_microphone_heard_is_routed_and_the_talk_says_when_it_thinks() {
        let f = fixture();
        let entry = Entry::new(f.store.clone(), f.scene.clone())
            .with_hearing(Arc::new(Heard(Some("我要背静夜思"))));
        let (listen, seen) = progress();
        let r = entry.talk(&f.child, &listen, at(), false).unwrap();
        assert_eq!(r.heard.as_deref(), Some("我要背静夜思"));
        assert_eq!((r.scene, r.intent), (Scene::Recite, Intent::Recite));
        assert_eq!(r.material.map(|m| m.id), Some(f.poem.clone()));
        assert_eq!(
            *seen.lock().unwrap(),
            [Talking::Level { level: 0.3 }, Talking::Thinking]
        );
        assert_eq!(entry.trace(&r.trace_id).unwrap().input, "我要背静夜思");
    }

    #[test]
    fn nothing_said_or_nothing_to_listen_with_is_a_coded_error_and_nothing_is_stored() {
        let f = fixture();
        let silent =
            Entry::new(f.store.clone(), f.scene.clone()).with_hearing(Arc::new(Heard(None)));
        let (listen, seen) = progress();
        let r = silent.talk(&f.child, &listen, at(), false).unwrap();
        assert_eq!(r.error.unwrap().code, "speech.nothing_heard");
        assert!(r.text_zh.contains("没听清楚"), "{}", r.text_zh);
        assert_eq!(seen.lock().unwrap().last(), Some(&Talking::Thinking));
        let none = Entry::new(f.store.clone(), f.scene.clone());
        let r = none.talk(&f.child, &listen, at(), false).unwrap();
        assert_eq!(r.error.unwrap().code, "models.needed");
        assert!(silent.decisions(&f.child, 10).unwrap().is_empty());
    }
}
