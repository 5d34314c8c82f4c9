//! Speech recognition with whisper.cpp (through whisper-rs) on a dedicated
//! worker thread — never on an async executor. One model load, then jobs in
//! order; each job is cancellable. Decoding is greedy with no temperature
//! fallback, capped in tokens by the material's length, in the material's
//! language, and **never prompted with the target text or its title**
//! (measured: that hides the child's mistakes). Mandarin gets a neutral
//! prompt that keeps the output in Simplified characters.

pub mod guards;
mod recheck;
pub mod units;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use whisper_rs::{
    FullParams, SamplingStrategy, WhisperContext, WhisperContextParameters, WhisperTokenId,
};

use crate::audio::SAMPLE_RATE;
pub use guards::GuardFlag;
pub use units::{HeardUnit, Lang, TokenPiece};

/// The only prompt whisper ever gets for Mandarin: neutral, not the material.
pub const MANDARIN_PROMPT: &str = "以下是普通话的句子。";

#[derive(Debug, thiserror::Error)]
pub enum AsrError {
    #[error("cannot load the whisper model {path}: {reason}")]
    Load { path: PathBuf, reason: String },
    #[error("speech recognition failed: {0}")]
    Whisper(String),
    #[error("speech recognition was cancelled")]
    Cancelled,
    #[error("the speech recognition worker has stopped")]
    WorkerGone,
    #[error("that recording is no longer loaded for re-examining")]
    RecordingGone,
}

/// How much of whisper's 30 s encoder window to use. The default is sized
/// to the clip: on the 150 dev clips it was 3× faster (ASR median 0.73 s
/// against 2.3 s on 2 cores) with the same error rates (crate README).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AudioContext {
    /// The full 30 s window (whisper's own default).
    Full,
    /// Sized to the clip plus a 2 s margin (clips under 29 s).
    FitToClip,
}

/// Engine settings.
#[derive(Debug, Clone)]
pub struct AsrConfig {
    pub model: PathBuf,
    pub threads: u16,
    pub audio_context: AudioContext,
    /// whisper.cpp's flash attention (a different attention kernel; the
    /// bench measures what it changes).
    pub flash_attention: bool,
    /// A voice pitched above this (Hz) is lowered to it before whisper hears
    /// it (`audio::voice`); None (the default) hears every voice as
    /// recorded. Measured and not taken by default: see the speech README,
    /// "A high voice lowered".
    pub voice_ceiling_hz: Option<f32>,
    /// Decode with a beam of this many hypotheses instead of greedily
    /// (whisper.cpp's beam search, patience 1). None (the default): greedy.
    /// Measured and not taken by default: see the speech README, "A wider
    /// beam".
    pub beam_size: Option<u8>,
}

impl AsrConfig {
    pub fn new(model: &Path) -> Self {
        Self {
            model: model.to_path_buf(),
            threads: 2,
            audio_context: AudioContext::FitToClip,
            flash_attention: false,
            voice_ceiling_hz: None,
            beam_size: None,
        }
    }
}

/// One piece of speech to transcribe.
#[derive(Debug, Clone)]
pub struct AsrRequest {
    /// 16 kHz mono.
    pub samples: Vec<f32>,
    pub lang: Lang,
    /// Units (hanzi or words) in the material, to cap the output; never its text.
    pub expected_units: Option<usize>,
    /// Whether voice activity detection found speech in it (None: not checked).
    pub speech_detected: Option<bool>,
}

/// What whisper heard.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Transcript {
    pub lang: Lang,
    /// The heard units joined: hanzi run together, English words with spaces.
    pub text: String,
    /// Whisper's own text (Simplified), with punctuation, before the guards.
    pub raw_text: String,
    pub units: Vec<HeardUnit>,
    pub flags: Vec<GuardFlag>,
    pub audio_ms: u64,
    pub asr_ms: u64,
    /// Which recording on the worker this came from (see [`AsrEngine::recheck`]).
    #[serde(skip)]
    pub audio_id: u64,
}

/// Cancels a job from another thread.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

struct Job {
    request: AsrRequest,
    cancel: CancelToken,
    reply: mpsc::Sender<Result<Transcript, AsrError>>,
}

/// Scoring texts against a recording the worker still holds, or against
/// silence (what whisper's decoder expects of a text with nothing heard).
struct ScoreJob {
    against: Against,
    lang: Lang,
    /// The text the variants are compared with.
    base: String,
    variants: Vec<String>,
    /// Variants also scored against silence (their priors), beside the
    /// scoring against a recording: on a second thread, each with half the
    /// worker's threads (see [`AsrEngine::recheck_with_prior`]).
    priors: Vec<String>,
    reply: mpsc::Sender<Result<Scores, AsrError>>,
}

/// A score job's answer: one delta per variant, and per prior variant.
type Scores = (Vec<f64>, Vec<f64>);

/// What texts are scored against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Against {
    /// The recording with this id (the last one transcribed).
    Recording(u64),
    /// A second of silence: the decoder's own expectation of a text, with
    /// nothing heard (the prior that a difference of scores is corrected by).
    Silence,
}

enum Work {
    Transcribe(Job),
    Score(ScoreJob),
}

/// A job in flight.
pub struct AsrTicket {
    reply: mpsc::Receiver<Result<Transcript, AsrError>>,
    cancel: CancelToken,
}

impl AsrTicket {
    /// Blocks until the transcript is ready (call from a blocking thread).
    pub fn wait(self) -> Result<Transcript, AsrError> {
        self.reply.recv().map_err(|_| AsrError::WorkerGone)?
    }
    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }
}

/// The whisper worker: owns the model on its own thread.
pub struct AsrEngine {
    jobs: Option<mpsc::Sender<Work>>,
    thread: Option<JoinHandle<()>>,
    pub model_description: String,
}

impl AsrEngine {
    /// Loads the model on a new worker thread; fails in plain words if it cannot.
    pub fn start(config: AsrConfig) -> Result<Self, AsrError> {
        whisper_rs::install_logging_hooks();
        if !config.model.is_file() {
            return Err(AsrError::Load {
                path: config.model.clone(),
                reason: "file not found — models missing: run scripts/fetch-models.sh".into(),
            });
        }
        let (jobs_tx, jobs_rx) = mpsc::channel::<Work>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<String, AsrError>>();
        let thread = std::thread::Builder::new()
            .name("deskmate-asr".into())
            .spawn(move || worker(config, jobs_rx, ready_tx))
            .map_err(|e| AsrError::Whisper(format!("cannot start the worker thread: {e}")))?;
        let description = ready_rx.recv().map_err(|_| AsrError::WorkerGone)??;
        Ok(Self {
            jobs: Some(jobs_tx),
            thread: Some(thread),
            model_description: description,
        })
    }

    /// Queues a job; jobs run one at a time in order.
    pub fn submit(&self, request: AsrRequest) -> AsrTicket {
        let (reply_tx, reply_rx) = mpsc::channel();
        let cancel = CancelToken::default();
        let job = Job {
            request,
            cancel: cancel.clone(),
            reply: reply_tx,
        };
        if let Some(jobs) = &self.jobs {
            // If the worker is gone the ticket's wait() reports it.
            let _ = jobs.send(Work::Transcribe(job));
        }
        AsrTicket {
            reply: reply_rx,
            cancel,
        }
    }

    /// Transcribes and waits (from a blocking thread).
    pub fn transcribe(&self, request: AsrRequest) -> Result<Transcript, AsrError> {
        self.submit(request).wait()
    }

    /// How much better (positive) or worse (negative) the audio of
    /// `transcript` fits each variant of its text than the text itself, in
    /// nats of whisper's token log-probabilities over the stretch where
    /// they differ. Works while the recording is the last one this engine
    /// transcribed; after another transcription it fails with
    /// [`AsrError::RecordingGone`]. Blocks: call from a blocking thread.
    pub fn recheck(
        &self,
        transcript: &Transcript,
        variants: Vec<String>,
    ) -> Result<Vec<f64>, AsrError> {
        self.recheck_against(transcript, &transcript.text, variants)
    }

    /// [`AsrEngine::recheck`] with the variants compared to `base`, any
    /// text, instead of the transcript's own (e.g. the transcript with its
    /// neighbouring mishearings already put right).
    pub fn recheck_against(
        &self,
        transcript: &Transcript,
        base: &str,
        variants: Vec<String>,
    ) -> Result<Vec<f64>, AsrError> {
        self.score(
            Against::Recording(transcript.audio_id),
            transcript.lang,
            base,
            variants,
        )
    }

    /// [`AsrEngine::recheck_against`] against a second of silence instead
    /// of a recording: how much more likely whisper's decoder finds each
    /// variant than `base` with nothing heard — its expectation of the text
    /// alone (a rare character spelled in several tokens scores low here as
    /// in any recording). Works at any time. Blocks: call from a blocking
    /// thread.
    pub fn prior_against(
        &self,
        lang: Lang,
        base: &str,
        variants: Vec<String>,
    ) -> Result<Vec<f64>, AsrError> {
        self.score(Against::Silence, lang, base, variants)
    }

    /// [`AsrEngine::recheck_against`] and, for `priors`,
    /// [`AsrEngine::prior_against`] on the same base, in one job: the two
    /// are scored at the same time on two threads, each with half the
    /// worker's threads. Whisper's decoder steps are small, so two
    /// threads do one little faster than one; side by side, the judgement
    /// of the hard clips (every third) took 674 ms at the median against
    /// 750 ms one after the other (the speech README). Returns the deltas
    /// against the recording and the priors.
    pub fn recheck_with_prior(
        &self,
        transcript: &Transcript,
        base: &str,
        variants: Vec<String>,
        priors: Vec<String>,
    ) -> Result<(Vec<f64>, Vec<f64>), AsrError> {
        self.submit_score(
            Against::Recording(transcript.audio_id),
            transcript.lang,
            base,
            variants,
            priors,
        )
    }

    fn score(
        &self,
        against: Against,
        lang: Lang,
        base: &str,
        variants: Vec<String>,
    ) -> Result<Vec<f64>, AsrError> {
        self.submit_score(against, lang, base, variants, Vec::new())
            .map(|(deltas, _)| deltas)
    }

    fn submit_score(
        &self,
        against: Against,
        lang: Lang,
        base: &str,
        variants: Vec<String>,
        priors: Vec<String>,
    ) -> Result<Scores, AsrError> {
        let (reply, answer) = mpsc::channel();
        let job = ScoreJob {
            against,
            lang,
            base: base.to_string(),
            variants,
            priors,
            reply,
        };
        self.jobs
            .as_ref()
            .ok_or(AsrError::WorkerGone)?
            .send(Work::Score(job))
            .map_err(|_| AsrError::WorkerGone)?;
        answer.recv().map_err(|_| AsrError::WorkerGone)?
    }
}

impl Drop for AsrEngine {
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn worker(
    config: AsrConfig,
    jobs: mpsc::Receiver<Work>,
    ready: mpsc::Sender<Result<String, AsrError>>,
) {
    let mut params = WhisperContextParameters::default();
    params.use_gpu(false);
    params.flash_attn(config.flash_attention);
    let load = WhisperContext::new_with_params(&config.model, params).map_err(|e| AsrError::Load {
        path: config.model.clone(),
        reason: format!("{e} (is it a whisper.cpp ggml file? run scripts/fetch-models.sh)"),
    });
    let ctx = match load {
        Ok(ctx) => ctx,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let description = format!(
        "{} ({} layers, {} multilingual)",
        ctx.model_type_readable_str_lossy()
            .map(|s| s.into_owned())
            .unwrap_or_else(|_| "unknown".into()),
        ctx.model_n_audio_layer(),
        if ctx.is_multilingual() { "is" } else { "not" }
    );
    if ready.send(Ok(description)).is_err() {
        return;
    }
    // The last recording's state (its encoded audio), kept for re-examining.
    let mut last: Option<(u64, whisper_rs::WhisperState)> = None;
    // Silence encoded once, on first use, for scoring texts with nothing heard.
    let mut silence: Option<whisper_rs::WhisperState> = None;
    let mut next_id = 0u64;
    while let Ok(work) = jobs.recv() {
        match work {
            Work::Transcribe(job) => {
                last = None;
                let result = if job.cancel.is_cancelled() {
                    Err(AsrError::Cancelled)
                } else {
                    next_id += 1;
                    run(&ctx, &config, &job.request, &job.cancel, next_id).map(|(t, state)| {
                        last = Some((next_id, state));
                        t
                    })
                };
                let _ = job.reply.send(result);
            }
            Work::Score(job) => {
                let threads = usize::from(config.threads.max(1));
                let result = score_job(&ctx, &job, &mut last, &mut silence, threads);
                let _ = job.reply.send(result);
            }
        }
    }
}

/// Runs a score job on the worker: the variants against the recording it
/// names (or silence), and its prior variants against silence — at the
/// same time on a second thread when the worker has two threads or more.
fn score_job(
    ctx: &WhisperContext,
    job: &ScoreJob,
    last: &mut Option<(u64, whisper_rs::WhisperState)>,
    silence: &mut Option<whisper_rs::WhisperState>,
    threads: usize,
) -> Result<Scores, AsrError> {
    let needs_silence = job.against == Against::Silence || !job.priors.is_empty();
    if needs_silence && silence.is_none() {
        *silence = Some(encoded_silence(ctx, job.lang, threads)?);
    }
    let silence = silence.as_mut();
    let score = |state: &mut whisper_rs::WhisperState, texts: &[String], threads: usize| {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        recheck::deltas(ctx, state, job.lang, &job.base, texts, threads)
    };
    match job.against {
        Against::Silence => {
            let state = silence.ok_or(AsrError::WorkerGone)?;
            Ok((score(state, &job.variants, threads)?, Vec::new()))
        }
        Against::Recording(audio_id) => {
            let recording = match last.as_mut() {
                Some((id, state)) if *id == audio_id => state,
                _ => return Err(AsrError::RecordingGone),
            };
            let Some(quiet) = silence.filter(|_| !job.priors.is_empty()) else {
                return Ok((score(recording, &job.variants, threads)?, Vec::new()));
            };
            if threads < 2 {
                let deltas = score(recording, &job.variants, threads)?;
                return Ok((deltas, score(quiet, &job.priors, threads)?));
            }
            let half = threads / 2;
            std::thread::scope(|scope| {
                let priors = scope.spawn(|| score(quiet, &job.priors, threads - half));
                let deltas = score(recording, &job.variants, half);
                let priors = priors.join().unwrap_or_else(|_| {
                    Err(AsrError::Whisper("scoring against silence failed".into()))
                });
                Ok((deltas?, priors?))
            })
        }
    }
}

/// A state holding a second of silence encoded (the smallest window), for
/// scoring texts with nothing heard. The decoder's language does not depend
/// on it: the scoring prefix names the language of each job.
fn encoded_silence(
    ctx: &WhisperContext,
    lang: Lang,
    threads: usize,
) -> Result<whisper_rs::WhisperState, AsrError> {
    let whisper = |e: whisper_rs::WhisperError| AsrError::Whisper(e.to_string());
    let mut state = ctx.create_state().map_err(whisper)?;
    let mut params = FullParams::new(SamplingStrategy::Greedy { best_of: 1 });
    params.set_n_threads(i32::try_from(threads).unwrap_or(1));
    params.set_language(Some(lang.code()));
    params.set_no_context(true);
    params.set_single_segment(true);
    params.set_max_tokens(1);
    params.set_audio_ctx(64);
    params.set_print_special(false);
    params.set_print_progress(false);
    params.set_print_realtime(false);
    params.set_print_timestamps(false);
    let silence = vec![0.0f32; SAMPLE_RATE as usize + SAMPLE_RATE as usize / 10];
    state.full(params, &silence).map_err(whisper)?;
    Ok(state)
}

/// whisper.cpp's abort callback: true once the job's cancel flag is set.
unsafe extern "C" fn abort_if_cancelled(data: *mut std::ffi::c_void) -> bool {
    if data.is_null() {
        return false;
    }
    // SAFETY: `data` is `Arc::as_ptr` of the job's flag, alive during `full` (see `run`).
    let flag = unsafe { &*(data as *const AtomicBool) };
    flag.load(Ordering::SeqCst)
}

/// What [`block_loops`] needs to know of the model.
struct LoopFilter {
    eot: WhisperTokenId,
    n_vocab: usize,
}

/// whisper.cpp's logits filter: forbids the next tokens that would begin a
/// fourth copy of a loop ([`guards::tokens_to_block`]).
unsafe extern "C" fn block_loops(
    _ctx: *mut whisper_rs::WhisperSysContext,
    _state: *mut whisper_rs::WhisperSysState,
    tokens: *const whisper_rs::WhisperTokenData,
    n_tokens: std::ffi::c_int,
    logits: *mut f32,
    data: *mut std::ffi::c_void,
) {
    if data.is_null() || logits.is_null() || tokens.is_null() || n_tokens <= 0 {
        return;
    }
    // SAFETY: `data` is the `LoopFilter` `run` keeps alive during `full`;
    // whisper.cpp passes the `n_tokens` tokens decoded so far and the
    // logits row of the whole vocabulary, alive for this call.
    let (filter, decoded) = unsafe {
        (
            &*(data as *const LoopFilter),
            std::slice::from_raw_parts(tokens, n_tokens as usize),
        )
    };
    let text: Vec<i32> = decoded
        .iter()
        .map(|t| t.id)
        .filter(|id| *id < filter.eot)
        .collect();
    for id in guards::tokens_to_block(&text) {
        if let Ok(i) = usize::try_from(id) {
            if i < filter.n_vocab {
                // SAFETY: `i` is within the logits row (checked above).
                unsafe { *logits.add(i) = f32::NEG_INFINITY };
            }
        }
    }
}

/// whisper's encoder frames per second of audio (1500 per 30 s).
const FRAMES_PER_SECOND: f32 = 50.0;

fn run(
    ctx: &WhisperContext,
    config: &AsrConfig,
    request: &AsrRequest,
    cancel: &CancelToken,
    audio_id: u64,
) -> Result<(Transcript, whisper_rs::WhisperState), AsrError> {
    let started = Instant::now();
    let audio_ms = request.samples.len() as u64 * 1000 / u64::from(SAMPLE_RATE);
    let lang = request.lang;
    // A high voice is heard lowered (slowed); whisper's times are mapped back.
    let (mut samples, warp) = crate::audio::voice::lower(&request.samples, config.voice_ceiling_hz)
        .map_err(|e| AsrError::Whisper(e.to_string()))?;
    // whisper.cpp wants at least a second of audio; pad short clips with silence.
    let min_len = SAMPLE_RATE as usize + SAMPLE_RATE as usize / 10;
    if samples.len() < min_len {
        samples.resize(min_len, 0.0);
    }
    let mut state = ctx
        .create_state()
        .map_err(|e| AsrError::Whisper(e.to_string()))?;
    let strategy = match config.beam_size {
        Some(beam) if beam > 1 => SamplingStrategy::BeamSearch {
            beam_size: i32::from(beam),
            patience: 1.0,
        },
        _ => SamplingStrategy::Greedy { best_of: 1 },
    };
    let mut params = FullParams::new(strategy);
    params.set_n_threads(i32::from(config.threads.max(1)));
    params.set_language(Some(lang.code()));
    params.set_translate(false);
    params.set_no_context(true);
    params.set_temperature(0.0);
    params.set_temperature_inc(0.0);
    params.set_max_tokens(guards::max_tokens(request.expected_units, lang));
    params.set_token_timestamps(true);
    params.set_suppress_blank(true);
    params.set_suppress_nst(true);
    params.set_print_special(false);
    params.set_print_progress(false);
    params.set_print_realtime(false);
    params.set_print_timestamps(false);
    if lang == Lang::Zh {
        params.set_initial_prompt(MANDARIN_PROMPT);
    }
    let seconds = samples.len() as f32 / SAMPLE_RATE as f32;
    // A recitation shorter than whisper's window is decoded as one segment:
    // no seeking and re-decoding, so `max_tokens` bounds the whole job
    // (measured: a looping clip otherwise took 40–60 s).
    params.set_single_segment(seconds < 29.0);
    if config.audio_context == AudioContext::FitToClip && seconds < 29.0 {
        // A margin of 2 s keeps the last words; too tight a window makes whisper loop.
        let frames = ((seconds + 2.0) * FRAMES_PER_SECOND).ceil() as i32;
        params.set_audio_ctx(frames.clamp(64, 1500));
    }
    // whisper-rs 0.16's `set_abort_callback_safe` casts its boxed closure to
    // the wrong type (measured: encoding aborted at random), so the plain C
    // callback is used with the cancel flag as its data.
    let flag: Arc<AtomicBool> = cancel.0.clone();
    // SAFETY: the callback only reads an AtomicBool through the pointer, and
    // `flag` keeps that AtomicBool alive until after `full` returns.
    unsafe {
        params.set_abort_callback(Some(abort_if_cancelled));
        params.set_abort_callback_user_data(Arc::as_ptr(&flag) as *mut std::ffi::c_void);
    }
    let filter = LoopFilter {
        eot: ctx.token_eot(),
        n_vocab: usize::try_from(ctx.n_vocab()).unwrap_or(0),
    };
    // SAFETY: `block_loops` only reads what whisper.cpp hands it and the
    // filter, and writes within the logits row; `filter` outlives `full`.
    unsafe {
        params.set_filter_logits_callback(Some(block_loops));
        params.set_filter_logits_callback_user_data(
            &filter as *const LoopFilter as *mut std::ffi::c_void,
        );
    }
    let outcome = state.full(params, &samples);
    drop(flag);
    if cancel.is_cancelled() {
        return Err(AsrError::Cancelled);
    }
    outcome.map_err(|e| AsrError::Whisper(e.to_string()))?;

    let eot = ctx.token_eot();
    let mut tokens = Vec::new();
    let mut raw_text = String::new();
    let mut flags = Vec::new();
    for segment in state.as_iter() {
        let text = segment
            .to_str_lossy()
            .map(|s| s.into_owned())
            .unwrap_or_default();
        if let Some(phrase) = guards::stock_phrase(&units::to_simplified(&text)) {
            flags.push(GuardFlag::StockPhrase {
                phrase: phrase.to_string(),
            });
            continue;
        }
        raw_text.push_str(&text);
        for i in 0..segment.n_tokens() {
            let Some(token) = segment.get_token(i) else {
                continue;
            };
            if token.token_id() >= eot {
                continue; // special and timestamp tokens
            }
            let data = token.token_data();
            let bytes = token.to_bytes().map(<[u8]>::to_vec).unwrap_or_default();
            tokens.push(TokenPiece {
                bytes,
                p: data.p,
                start_ms: warp.to_source_ms((data.t0.max(0) * 10) as u32),
                end_ms: warp.to_source_ms((data.t1.max(0) * 10) as u32),
            });
        }
    }
    let mut heard = units::units(&tokens, lang);
    if request.speech_detected == Some(false) && !heard.is_empty() {
        flags.push(GuardFlag::TextOnSilence {
            text: units::join(&heard, lang),
        });
        heard.clear();
    }
    if let Some(flag) = guards::cut_inner_loops(&mut heard) {
        flags.push(flag);
    }
    if let Some(flag) = guards::cut_repetition(&mut heard, lang) {
        flags.push(flag);
    }
    if let Some(expected) = request.expected_units {
        if let Some(flag) = guards::cut_too_long(&mut heard, expected) {
            flags.push(flag);
        }
    }
    let transcript = Transcript {
        lang,
        text: units::join(&heard, lang),
        raw_text: units::to_simplified(raw_text.trim()),
        units: heard,
        flags,
        audio_ms,
        asr_ms: started.elapsed().as_millis() as u64,
        audio_id,
    };
    Ok((transcript, state))
}
