//! Judging an attempt while the end silence runs. The voice detector ends
//! an attempt only after 1.2 s of silence (a child's pause between lines
//! must not end it), and the verdict used to start after that. Now, as soon
//! as the child has paused for a moment (`deskmate_speech::listen::Pauses`),
//! the attempt as it stands is transcribed and judged on the whisper
//! worker. If the child speaks again, that judgement is cancelled and
//! dropped. If it shows the material was heard to its end
//! (`VoiceVerdict::reaches_the_end`), the attempt ends at the pause
//! ([`EndAtPause`]) without waiting out the silence; and whenever the
//! attempt ends with the samples judged (followed at most by more of the
//! end padding), the verdict is the one already made ([`AtPause::take`]) —
//! the same function on the same audio as judging afterwards, only sooner.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use deskmate_speech::asr::{AsrRequest, CancelToken};
use deskmate_speech::listen::EndAtPause;
use deskmate_speech::vad::Utterance;
use deskmate_speech::SpeechPipeline;
use deskmate_store::Material;

use super::error::{SceneError, SceneResult};
use super::hearing::{asr_lang, expected_units, judge_heard_to_the_end, Transcribed};
use super::live::{AsrGate, PartialSink};

/// At most this many samples of end padding (the voice detector's 200 ms)
/// may follow the samples judged at the pause in the attempt's.
const MORE_PADDING: usize = 3_200;

#[derive(Default)]
struct State {
    /// Counts pauses and resumptions: a judgement keeps its result only
    /// while its pause is still the latest.
    pause: u64,
    /// The samples of the latest pause, while it holds.
    samples: Option<Arc<Vec<f32>>>,
    /// The transcription in flight, to cancel when the child speaks again.
    cancel: Option<CancelToken>,
    /// Judgements whose threads have not finished.
    running: usize,
    /// The verdict on the latest pause's samples, once made.
    verdict: Option<SceneResult<Transcribed>>,
}

impl State {
    /// Drops the latest pause (the child spoke again, another pause began,
    /// or the attempt is other samples): its judgement is cancelled and
    /// whatever it finds is not kept.
    fn forget_pause(&mut self) {
        self.pause += 1;
        self.samples = None;
        self.verdict = None;
        if let Some(c) = self.cancel.take() {
            c.cancel();
        }
    }
}

/// The judgements at the pauses of one attempt at one material.
pub struct AtPause {
    pipeline: Arc<SpeechPipeline>,
    gate: AsrGate,
    material: Material,
    end: EndAtPause,
    state: Arc<(Mutex<State>, Condvar)>,
    /// Where what a pause's transcription heard is shown (the live
    /// partials), if anywhere.
    shown: Option<PartialSink>,
}

fn lock(state: &(Mutex<State>, Condvar)) -> SceneResult<MutexGuard<'_, State>> {
    state
        .0
        .lock()
        .map_err(|_| SceneError::Poisoned("the judgement at a pause's lock was poisoned"))
}

impl AtPause {
    pub fn new(
        pipeline: Arc<SpeechPipeline>,
        gate: AsrGate,
        material: Material,
        end: EndAtPause,
    ) -> Self {
        Self {
            pipeline,
            gate,
            material,
            end,
            state: Arc::default(),
            shown: None,
        }
    }

    /// Shows what each pause's transcription heard at `shown` (the speech
    /// so far, whether or not the child goes on).
    pub fn showing(self, shown: PartialSink) -> Self {
        Self {
            shown: Some(shown),
            ..self
        }
    }

    /// The child paused: judges `utterance` on the whisper worker (a
    /// judgement of an earlier pause still running is cancelled). Returns
    /// at once.
    pub fn began(&self, utterance: Utterance) {
        let Ok(mut st) = lock(&self.state) else {
            return;
        };
        st.forget_pause();
        let pause = st.pause;
        let samples = Arc::new(utterance.samples);
        st.samples = Some(samples.clone());
        st.running += 1;
        drop(st);
        let job = self.gate.enter();
        let state = self.state.clone();
        let pipeline = self.pipeline.clone();
        let material = self.material.clone();
        let end = self.end.clone();
        let shown = self.shown.clone();
        let end_ms = utterance.end_ms;
        let spawned = std::thread::Builder::new()
            .name("judge-at-pause".into())
            .spawn(move || {
                let ticket = pipeline.asr().submit(AsrRequest {
                    samples: samples.to_vec(),
                    lang: asr_lang(&material),
                    expected_units: expected_units(&material),
                    speech_detected: Some(true),
                });
                if let Ok(mut st) = lock(&state) {
                    if st.pause == pause {
                        st.cancel = Some(ticket.cancel_token());
                    } else {
                        ticket.cancel_token().cancel();
                    }
                }
                let heard = ticket.wait();
                if let (Some(shown), Ok(t)) = (&shown, &heard) {
                    shown(&t.text);
                }
                // Only a pause that still holds is worth judging further.
                let current = lock(&state).is_ok_and(|st| st.pause == pause);
                let judged = match heard {
                    Ok(heard) if current => Some(judge_heard_to_the_end(
                        &material,
                        &heard,
                        Some(pipeline.asr()),
                    )),
                    Ok(_) => None,
                    Err(e) => Some(Err(deskmate_speech::SpeechError::from(e).into())),
                };
                drop(job);
                let Ok(mut st) = lock(&state) else {
                    return;
                };
                st.running -= 1;
                if st.pause == pause {
                    st.cancel = None;
                    if let Some(judged) = judged {
                        if matches!(judged, Ok((_, true))) {
                            end.end(end_ms);
                        }
                        st.verdict = Some(judged.map(|(t, _)| t));
                    }
                }
                state.1.notify_all();
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot judge the attempt at a pause: {e}");
            if let Ok(mut st) = lock(&self.state) {
                st.running -= 1;
                st.samples = None;
            }
        }
    }

    /// The child spoke again: the judgement of the pause is cancelled and
    /// dropped.
    pub fn resumed(&self) {
        if let Ok(mut st) = lock(&self.state) {
            st.forget_pause();
        }
    }

    /// The verdict on the attempt at `material` whose samples are
    /// `samples`, when the latest pause, still holding, judged them — exactly, or all but more
    /// end padding after (the pause came before the padding was all heard):
    /// waiting for a judgement still running. Otherwise `None`, once no
    /// judgement is running any more, so the whisper worker is free for
    /// judging `samples` afresh.
    pub fn take(&self, material: &Material, samples: &[f32]) -> Option<SceneResult<Transcribed>> {
        let mut st = lock(&self.state).ok()?;
        let same = self.material == *material
            && st
                .samples
                .as_deref()
                .is_some_and(|s| samples.starts_with(s) && samples.len() - s.len() <= MORE_PADDING);
        if !same {
            st.forget_pause();
        }
        loop {
            if same && st.verdict.is_some() {
                return st.verdict.take();
            }
            if st.running == 0 {
                return None;
            }
            st = self.state.1.wait(st).ok()?;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use deskmate_speech::vad::EndedBy;

    /// 静夜思 as the built-in library has it, and the real speech models.
    fn setup() -> (Arc<SpeechPipeline>, Material) {
        let dir = deskmate_speech::ModelPaths::dev_dir();
        let pipeline = SpeechPipeline::from_models_dir(&dir)
            .unwrap_or_else(|e| panic!("{e} (looked in {})", dir.display()));
        let material = Material {
            id: "jing-ye-si".into(),
            slug: None,
            source: deskmate_store::MaterialSource::Custom,
            lang: "zh".into(),
            title: "静夜思".into(),
            author: None,
            dynasty: None,
            grade: None,
            level: None,
            body: deskmate_testkit::family::JING_YE_SI.into(),
            created_at: String::new(),
            updated_at: String::new(),
        };
        (Arc::new(pipeline), material)
    }

    fn utterance(samples: Vec<f32>) -> Utterance {
        Utterance {
            start_ms: 0,
            end_ms: samples.len() as u64 / 16,
            samples,
            ended_by: EndedBy::Silence,
        }
    }

    #[test]
    fn the_verdict_at_the_pause_is_the_attempts_and_ends_it_when_complete() {
        let _turn = deskmate_testkit::process::speech_turn();
        let (pipeline, material) = setup();
        let (whole, _) = deskmate_testkit::clips::dev_clip_samples("静夜思-1.wav");
        let gate = AsrGate::default();
        let end = EndAtPause::default();
        let shown: Arc<Mutex<Vec<String>>> = Arc::default();
        let texts = shown.clone();
        let at_pause = AtPause::new(
            pipeline.clone(),
            gate.clone(),
            material.clone(),
            end.clone(),
        )
        .showing(Arc::new(move |t: &str| {
            texts.lock().unwrap().push(t.to_string())
        }));

        // A pause after the first couplet: judged, but not the end of the poem.
        let first_half = whole[..whole.len() / 2].to_vec();
        at_pause.began(utterance(first_half.clone()));
        assert!(!gate.is_idle(), "the judgement holds the whisper worker");
        let verdict = at_pause
            .take(&material, &first_half)
            .expect("judged at the pause");
        assert!(verdict.is_ok(), "{verdict:?}");
        assert_eq!(end.wanted(), None, "half a poem does not end the attempt");
        // What it heard was shown as the speech so far.
        let partials = shown.lock().unwrap().clone();
        assert_eq!(partials.len(), 1, "{partials:?}");
        assert!(
            partials[0].chars().any(|c| "床前明月光".contains(c)),
            "{partials:?}"
        );

        // The child went on and paused at the end: the verdict is ready and
        // the attempt may end there.
        let mut at_end = utterance(whole.clone());
        at_end.end_ms = 6_650;
        at_pause.began(at_end);
        let verdict = at_pause
            .take(&material, &whole)
            .expect("judged at the pause")
            .unwrap();
        assert_eq!(end.wanted(), Some(6_650));
        assert!(gate.is_idle());
        // The same as judging the attempt afterwards.
        let heard = pipeline
            .asr()
            .transcribe(AsrRequest {
                samples: whole.clone(),
                lang: asr_lang(&material),
                expected_units: expected_units(&material),
                speech_detected: Some(true),
            })
            .unwrap();
        let afterwards =
            super::super::hearing::judge_heard(&material, &heard, Some(pipeline.asr())).unwrap();
        assert_eq!(verdict.shown, afterwards.shown);
        assert_eq!(verdict.transcript, afterwards.transcript);
    }

    #[test]
    fn a_pause_the_child_spoke_after_gives_no_verdict() {
        let _turn = deskmate_testkit::process::speech_turn();
        let (pipeline, material) = setup();
        let (whole, _) = deskmate_testkit::clips::dev_clip_samples("静夜思-1.wav");
        let gate = AsrGate::default();
        let end = EndAtPause::default();
        let at_pause = AtPause::new(pipeline, gate.clone(), material.clone(), end.clone());

        at_pause.began(utterance(whole.clone()));
        at_pause.resumed();
        assert!(
            at_pause.take(&material, &whole).is_none(),
            "the child spoke again"
        );
        assert!(gate.is_idle(), "nothing left running on the worker");
        assert_eq!(end.wanted(), None);

        // Other samples than the pause's (more speech came): judged afresh.
        at_pause.began(utterance(whole[..whole.len() / 2].to_vec()));
        assert!(at_pause.take(&material, &whole).is_none());
        assert!(gate.is_idle());
        assert_eq!(end.wanted(), None);

        // The pause's samples with more end padding after (the pause came
        // before all of it was heard): the pause's verdict is the attempt's.
        let judged = whole[..whole.len() - 2_000].to_vec();
        at_pause.began(utterance(judged));
        assert!(at_pause.take(&material, &whole).is_some_and(|v| v.is_ok()));
        assert!(gate.is_idle());

        // The same samples judged against another material are not its verdict.
        at_pause.began(utterance(whole.clone()));
        let other = Material {
            body: "春眠不觉晓，处处闻啼鸟。".into(),
            ..material.clone()
        };
        assert!(at_pause.take(&other, &whole).is_none());
        assert!(gate.is_idle());
    }
}
