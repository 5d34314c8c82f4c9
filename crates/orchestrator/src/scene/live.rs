//! The live partial transcript while a child recites. Every couple of
//! seconds of new speech (see `deskmate_speech::listen::SpeechSoFar`) the
//! audio so far is offered here; it is transcribed on the shared whisper
//! worker only when that worker is idle and no partial is still running, and
//! the text goes to a [`PartialSink`] (the scene publishes it as the
//! window's `practice://partial`).
//!
//! A partial must never hold up the final transcription: when the attempt
//! ends, [`LiveTranscript::finish`] cancels a partial still running (whisper
//! aborts within a moment) and nothing more is shown. One worker, not a
//! second whisper for partials: on two cores two whisper workers spin
//! against each other and both slow down several times over (measured in
//! the speech crate's README).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use deskmate_speech::asr::{AsrRequest, CancelToken, Lang};
use deskmate_speech::SpeechPipeline;

/// Where partial transcripts go: the text so far.
pub type PartialSink = Arc<dyn Fn(&str) + Send + Sync>;

/// How much new speech between two partial transcripts.
pub const PARTIAL_EVERY: Duration = Duration::from_secs(2);

/// Counts the whisper jobs the app has in flight, so a partial is only tried
/// while the worker is idle.
#[derive(Debug, Clone, Default)]
pub struct AsrGate(Arc<AtomicUsize>);

/// One job in flight; dropping it says the job ended.
#[derive(Debug)]
pub struct AsrJob(Arc<AtomicUsize>);

impl Drop for AsrJob {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl AsrGate {
    /// Marks a job as running until the returned guard drops.
    pub fn enter(&self) -> AsrJob {
        self.0.fetch_add(1, Ordering::SeqCst);
        AsrJob(self.0.clone())
    }

    pub fn is_idle(&self) -> bool {
        self.0.load(Ordering::SeqCst) == 0
    }
}

/// What became of an offer of speech.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// A partial transcription started.
    Started,
    /// Skipped: a partial is still running or the worker is busy.
    Busy,
    /// Skipped: the attempt has ended.
    Finished,
}

#[derive(Default)]
struct Running {
    /// The partial in flight, to cancel when the attempt ends.
    cancel: Option<CancelToken>,
    finished: bool,
}

/// The partial transcripts of one recitation attempt.
pub struct LiveTranscript {
    pipeline: Arc<SpeechPipeline>,
    gate: AsrGate,
    lang: Lang,
    expected_units: Option<usize>,
    sink: PartialSink,
    running: Arc<Mutex<Running>>,
}

impl LiveTranscript {
    pub fn new(
        pipeline: Arc<SpeechPipeline>,
        gate: AsrGate,
        lang: Lang,
        expected_units: Option<usize>,
        sink: PartialSink,
    ) -> Self {
        Self {
            pipeline,
            gate,
            lang,
            expected_units,
            sink,
            running: Arc::new(Mutex::new(Running::default())),
        }
    }

    /// The request for a partial: the speech so far, in the material's
    /// language, capped by its length. (The worker's audio context is the
    /// engine's; sizing it to the clip per request needs a field on
    /// `AsrRequest`.)
    fn request(&self, samples: Vec<f32>) -> AsrRequest {
        AsrRequest {
            samples,
            lang: self.lang,
            expected_units: self.expected_units,
            speech_detected: Some(true),
        }
    }

    /// Offers the speech heard so far. Returns at once; the text, if any,
    /// arrives at the sink from a waiting thread.
    pub fn offer(&self, samples: Vec<f32>) -> Offer {
        let Ok(mut running) = self.running.lock() else {
            return Offer::Busy;
        };
        if running.finished {
            return Offer::Finished;
        }
        if running.cancel.is_some() || !self.gate.is_idle() {
            return Offer::Busy;
        }
        let job = self.gate.enter();
        let ticket = self.pipeline.asr().submit(self.request(samples));
        running.cancel = Some(ticket.cancel_token());
        drop(running);
        let state = self.running.clone();
        let sink = self.sink.clone();
        let spawned = std::thread::Builder::new()
            .name("live-transcript".into())
            .spawn(move || {
                let heard = ticket.wait();
                drop(job);
                let Ok(mut running) = state.lock() else {
                    return;
                };
                running.cancel = None;
                match heard {
                    // Shown under the lock, so nothing appears after `finish`.
                    Ok(t) if !running.finished && !t.text.is_empty() => sink(&t.text),
                    Ok(_) => {}
                    Err(e) => tracing::debug!("no partial transcript: {e}"),
                }
            });
        match spawned {
            Ok(_) => Offer::Started,
            Err(e) => {
                tracing::warn!("cannot wait for a partial transcript: {e}");
                if let Ok(mut running) = self.running.lock() {
                    if let Some(c) = running.cancel.take() {
                        c.cancel();
                    }
                }
                Offer::Busy
            }
        }
    }

    /// The child paused and the attempt is being judged at the pause
    /// ([`super::at_pause`]): a partial still running is cancelled so the
    /// judgement starts at once. Partials go on when the child speaks again.
    pub fn pause(&self) {
        if let Ok(mut running) = self.running.lock() {
            if let Some(c) = running.cancel.take() {
                c.cancel();
            }
        }
    }

    /// Shows `text`, the speech so far transcribed elsewhere (the judgement
    /// at a pause, which holds the worker while a partial would run), unless
    /// the attempt has ended or nothing was heard.
    pub fn show(&self, text: &str) {
        if let Ok(running) = self.running.lock() {
            if !running.finished && !text.is_empty() {
                (self.sink)(text);
            }
        }
    }

    /// The attempt ended: a partial still running is cancelled (so the final
    /// transcription starts at once) and no partial is shown after this.
    pub fn finish(&self) {
        if let Ok(mut running) = self.running.lock() {
            running.finished = true;
            if let Some(c) = running.cancel.take() {
                c.cancel();
            }
        }
    }

    /// Whether a partial is still being transcribed.
    pub fn is_running(&self) -> bool {
        self.running
            .lock()
            .map(|r| r.cancel.is_some())
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_counts_jobs_until_their_guards_drop() {
        let gate = AsrGate::default();
        assert!(gate.is_idle());
        let a = gate.enter();
        let b = gate.clone().enter();
        assert!(!gate.is_idle());
        drop(a);
        assert!(!gate.is_idle());
        drop(b);
        assert!(gate.is_idle());
    }
}
