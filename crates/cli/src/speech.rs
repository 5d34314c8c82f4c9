//! `deskmate speech`: offline speech recognition of an audio file, the same
//! pipeline (decode → VAD → whisper) the app runs on a recitation.

use std::path::PathBuf;
use std::process::ExitCode;

use std::time::{Duration, Instant};

use anyhow::bail;
use clap::{Args, Subcommand};
use deskmate_app::recite::{
    AttemptOutcome, Judgement, NewAttempt, Reference, DEFAULT_PASS_THRESHOLD,
};
use deskmate_app::voice_out::CloudVoice;
use deskmate_app::{events, Deskmate};
use deskmate_protocol::check::{self, Transcription};
use deskmate_protocol::voice::{PlaybackEvent, SpokenPhrase, VoiceNotice, VoiceSetting};
use deskmate_protocol::AppEvent;
use deskmate_speech::asr::{AudioContext, GuardFlag, HeardUnit};
use deskmate_speech::attempt::{judge_recording, NotAnAttempt, RecordingVerdict};
use deskmate_speech::audio::file;
use deskmate_speech::fairness::{FairnessSettings, Rechecked, UncertainReason, UncertainSpan};
use deskmate_speech::{AsrConfig, Lang, ModelPaths, SpeechPipeline, Transcript};

use crate::output;

#[derive(Subcommand)]
pub enum SpeechCmd {
    /// Transcribe an audio file (WAV, MP3, FLAC, Ogg, M4A) with a confidence per character.
    Transcribe {
        #[arg(long = "wav", value_name = "FILE")]
        file: PathBuf,
        #[arg(long, value_parser = ["zh", "en"], default_value = "zh")]
        lang: String,
        /// Use whisper's full 30 s encoder window instead of one sized to
        /// the clip (about 3× slower; no more accurate on the dev clips).
        #[arg(long)]
        full_audio_ctx: bool,
        #[arg(long)]
        json: bool,
    },
    /// Show or set the voice spoken feedback uses: espeak-ng (offline,
    /// always the fallback) or an OpenAI-compatible speech service.
    Voice {
        /// The service's base URL (its /v1), e.g. https://api.openai.com/v1.
        #[arg(long, requires_all = ["model", "voice"], conflicts_with = "offline")]
        cloud_url: Option<String>,
        /// The service's speech model, e.g. tts-1.
        #[arg(long, requires = "cloud_url")]
        model: Option<String>,
        /// The service's voice, e.g. alloy.
        #[arg(long, requires = "cloud_url")]
        voice: Option<String>,
        /// Send this chat provider's API key (see `deskmate llm key`).
        #[arg(long, requires = "cloud_url")]
        key_provider: Option<String>,
        /// Speak with espeak-ng only (clears the cloud voice).
        #[arg(long)]
        offline: bool,
        #[arg(long)]
        json: bool,
    },
    /// Test the feedback voice as the window's settings do: a greeting
    /// synthesized (cloud voice, or espeak-ng when it fails) and played.
    VoiceTest {
        #[arg(long, value_parser = ["zh", "en"], default_value = "zh")]
        lang: String,
        #[arg(long)]
        json: bool,
    },
    /// Synthesize a phrase as feedback would be spoken, into a WAV file.
    Say {
        #[arg(long)]
        text: String,
        #[arg(long, value_parser = ["zh", "en"], default_value = "zh")]
        lang: String,
        #[arg(long = "wav", value_name = "FILE")]
        out: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

/// Waits for the feedback voice to finish its clip, drop it or say it cannot
/// speak, at most `limit`.
fn wait_until_said(events: &flume::Receiver<AppEvent>, limit: Duration) {
    let until = Instant::now() + limit;
    while let Ok(event) = events.recv_deadline(until) {
        match event {
            AppEvent::Voice(VoiceNotice::Unavailable { reason }) => {
                eprintln!("not played: {reason}");
                return;
            }
            AppEvent::Voice(VoiceNotice::Playback { playback })
                if !matches!(playback, PlaybackEvent::Started { .. }) =>
            {
                return
            }
            _ => {}
        }
    }
}

/// Loads the speech models from the app's models directory.
pub fn pipeline(app: &Deskmate, full_audio_ctx: bool) -> anyhow::Result<SpeechPipeline> {
    let paths = ModelPaths::present_in(&app.config().models_dir)?;
    let mut config = AsrConfig::new(&paths.whisper);
    if full_audio_ctx {
        config.audio_context = AudioContext::Full;
    }
    Ok(SpeechPipeline::load(&paths, config)?)
}

pub fn parse_lang(code: &str) -> anyhow::Result<Lang> {
    Lang::parse(code).ok_or_else(|| anyhow::anyhow!("language must be zh or en, not {code:?}"))
}

pub fn run(app: &Deskmate, cmd: SpeechCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        SpeechCmd::Voice {
            cloud_url,
            model,
            voice,
            key_provider,
            offline,
            json,
        } => {
            if offline {
                app.feedback_voice().save_cloud_voice(None)?;
            } else if let (Some(base_url), Some(model), Some(voice)) = (cloud_url, model, voice) {
                app.feedback_voice().save_cloud_voice(Some(&CloudVoice {
                    base_url,
                    model,
                    voice,
                    key_provider,
                }))?;
            }
            let cloud = app.feedback_voice().cloud_voice()?;
            if json {
                output::json(&VoiceSetting { cloud })?;
            } else {
                match cloud {
                    Some(c) => println!(
                        "spoken feedback: {} voice {} at {} (key: {}); espeak-ng when it fails",
                        c.model,
                        c.voice,
                        c.base_url,
                        c.key_provider.as_deref().unwrap_or("none")
                    ),
                    None => println!("spoken feedback: espeak-ng (offline)"),
                }
            }
        }
        SpeechCmd::VoiceTest { lang, json } => {
            // Played as in the window (the CLI's voice is otherwise off):
            // the command waits until it was said, or could not be.
            let events = app.events();
            app.feedback_voice().enable()?;
            let test = app.feedback_voice().test(&lang)?;
            wait_until_said(&events, Duration::from_secs_f32(test.seconds + 5.0));
            if json {
                output::json(&test)?;
            } else {
                if let Some(why) = &test.fell_back {
                    eprintln!("the cloud voice failed ({why}); spoke with espeak-ng");
                }
                println!(
                    "\"{}\" ({:.1} s, {})",
                    test.text, test.seconds, test.backend
                );
            }
        }
        SpeechCmd::Say {
            text,
            lang,
            out,
            json,
        } => {
            let spoken = app.feedback_voice().voices()?.say(&lang, &text)?;
            spoken.clip.write_wav(&out)?;
            let seconds = spoken.clip.duration_s();
            if json {
                output::json(&SpokenPhrase {
                    wav: out.display().to_string(),
                    backend: spoken.backend,
                    fell_back: spoken.fell_back,
                    seconds,
                })?;
            } else {
                if let Some(why) = &spoken.fell_back {
                    eprintln!("the cloud voice failed ({why}); spoke with espeak-ng");
                }
                println!("{} ({:.1} s, {})", out.display(), seconds, spoken.backend);
            }
        }
        SpeechCmd::Transcribe {
            file,
            lang,
            full_audio_ctx,
            json,
        } => {
            let lang = parse_lang(&lang)?;
            let pipeline = pipeline(app, full_audio_ctx)?;
            let heard = pipeline.hear_file(&file, lang, None)?;
            let t = heard.transcript.as_ref().map(heard_text);
            let out = Transcription {
                file: file.display().to_string(),
                lang: lang.code().to_string(),
                speech: t.is_some(),
                text: t.as_ref().map(|t| t.text.clone()).unwrap_or_default(),
                raw_text: t.as_ref().map(|t| t.raw_text.clone()).unwrap_or_default(),
                units: t.as_ref().map(|t| t.units.clone()).unwrap_or_default(),
                flags: t.map(|t| t.flags).unwrap_or_default(),
                audio_ms: heard.audio_ms,
                vad_ms: heard.vad_ms,
                asr_ms: heard.asr_ms,
            };
            if json {
                output::json(&out)?;
            } else if !out.speech {
                println!("(no speech heard in {})", out.file);
            } else {
                println!("{}", out.text);
                let unsure: Vec<String> = out
                    .units
                    .iter()
                    .filter(|u| u.confidence < 0.8)
                    .map(|u| format!("{} ({:.2})", u.text, u.confidence))
                    .collect();
                if !unsure.is_empty() {
                    println!("unsure: {}", unsure.join(", "));
                }
                println!(
                    "audio {} ms, vad {} ms, asr {} ms",
                    out.audio_ms, out.vad_ms, out.asr_ms
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `deskmate recite audio`: a recorded recitation, heard and checked.
#[derive(Args)]
pub struct ReciteAudioArgs {
    /// The material (id, built-in slug such as zh/jing-ye-si, or unique title).
    #[arg(
        long,
        required_unless_present = "reference",
        conflicts_with = "reference"
    )]
    material: Option<String>,
    /// The text to recite, when it is not a stored material.
    #[arg(long)]
    reference: Option<String>,
    /// The recording (WAV, MP3, FLAC, Ogg, M4A).
    #[arg(long = "wav", value_name = "FILE")]
    file: PathBuf,
    /// Record the attempt for this child (id or name); needs --material.
    /// The verdict is judged by the child's pass mark (`recite.pass_threshold`).
    #[arg(long)]
    profile: Option<String>,
    /// Language of the reference (from the material, or detected).
    #[arg(long, value_parser = ["zh", "en"])]
    lang: Option<String>,
    /// Use whisper's full 30 s encoder window instead of one sized to the
    /// clip (about 3× slower; no more accurate on the dev clips).
    #[arg(long)]
    full_audio_ctx: bool,
    #[arg(long)]
    json: bool,
}

/// The stage timings `recite-audio --json` prints (a protocol type).
type Timings = deskmate_protocol::StageTimings;

/// What `deskmate recite audio --json` prints: the protocol's shape with
/// the recitation checker's judgement and the recorded attempt.
type HeardVerdict = check::HeardVerdict<Judgement, AttemptOutcome>;

fn heard_unit(u: &HeardUnit) -> check::HeardUnit {
    check::HeardUnit {
        text: u.text.clone(),
        confidence: u.confidence,
        start_ms: u.start_ms,
        end_ms: u.end_ms,
    }
}

fn guard_flag(f: &GuardFlag) -> check::GuardFlag {
    match f.clone() {
        GuardFlag::StockPhrase { phrase } => check::GuardFlag::StockPhrase { phrase },
        GuardFlag::Repetition { ngram, times } => check::GuardFlag::Repetition { ngram, times },
        GuardFlag::TextOnSilence { text } => check::GuardFlag::TextOnSilence { text },
        GuardFlag::TooLong { heard, expected } => check::GuardFlag::TooLong { heard, expected },
    }
}

/// What whisper heard, in the protocol's shape.
fn heard_text(t: &Transcript) -> check::HeardText {
    check::HeardText {
        text: t.text.clone(),
        raw_text: t.raw_text.clone(),
        units: t.units.iter().map(heard_unit).collect(),
        flags: t.flags.iter().map(guard_flag).collect(),
    }
}

fn not_an_attempt(why: NotAnAttempt) -> check::NotAnAttempt {
    match why {
        NotAnAttempt::NothingHeard => check::NotAnAttempt::NothingHeard,
        NotAnAttempt::PromptEcho => check::NotAnAttempt::PromptEcho,
        NotAnAttempt::OnlyPunctuation => check::NotAnAttempt::OnlyPunctuation,
        NotAnAttempt::NotTheMaterial => check::NotAnAttempt::NotTheMaterial,
    }
}

fn uncertain_span(u: &UncertainSpan) -> check::UncertainSpan {
    check::UncertainSpan {
        line: u.line,
        offset: u.offset,
        expected: u.expected.clone(),
        heard: u.heard.clone(),
        error_type: events::error_type(u.error_type),
        reason: match u.reason {
            UncertainReason::ToneOnly => check::UncertainReason::ToneOnly,
            UncertainReason::LowConfidence => check::UncertainReason::LowConfidence,
            UncertainReason::RecogniserGuard => check::UncertainReason::RecogniserGuard,
            UncertainReason::AudioFitsText => check::UncertainReason::AudioFitsText,
        },
    }
}

fn rechecked(r: &Rechecked) -> check::Rechecked {
    check::Rechecked {
        error: r.error,
        line: r.line,
        error_type: events::error_type(r.error_type),
        expected: r.expected.clone(),
        heard: r.heard.clone(),
        delta: r.delta,
        alone: r.alone,
        in_run: r.in_run,
        in_material: r.in_material,
    }
}

pub fn run_recite_audio(app: &Deskmate, a: ReciteAudioArgs) -> anyhow::Result<ExitCode> {
    let material = match &a.material {
        Some(key) => Some(app.find_material(key)?),
        None => None,
    };
    if a.profile.is_some() && material.is_none() {
        bail!("--profile records the attempt against a material: give --material instead of --reference");
    }
    let profile = match &a.profile {
        Some(p) => Some(app.find_profile(p)?),
        None => None,
    };
    let (text, lang_code) = match (&material, &a.reference) {
        (Some(m), _) => (
            m.body.clone(),
            a.lang.clone().unwrap_or_else(|| m.lang.clone()),
        ),
        (None, Some(r)) => (
            r.clone(),
            a.lang
                .clone()
                .unwrap_or_else(|| deskmate_app::recite::Lang::detect(r).as_str().to_string()),
        ),
        (None, None) => bail!("give --material or --reference"),
    };
    let lang = parse_lang(&lang_code)?;
    let reference = Reference::new(&text, Some(lang_code.parse()?))?;

    let loading = Instant::now();
    let pipeline = pipeline(app, a.full_audio_ctx)?;
    let load_ms = loading.elapsed().as_millis() as u64;

    let started = Instant::now();
    let clip = file::load(&a.file, file::DEFAULT_MAX_SECONDS)?;
    let decode_ms = started.elapsed().as_millis() as u64;
    let heard = pipeline.hear(&clip, lang, Some(reference.len()))?;
    // One function judges a recording, here and in the window.
    let settings = FairnessSettings::default();
    let checking = Instant::now();
    let judged = judge_recording(
        &reference,
        heard.transcript.as_ref(),
        &settings,
        Some(pipeline.asr()),
    )?;
    let (transcript, voice) = match (heard.transcript, judged) {
        (Some(t), RecordingVerdict::Judged(v)) => (t, *v),
        (transcript, RecordingVerdict::NotAnAttempt(why)) => {
            let total_ms = started.elapsed().as_millis() as u64;
            let timings = Timings {
                decode_ms,
                vad_ms: heard.vad_ms,
                asr_ms: heard.asr_ms,
                check_ms: 0,
                total_ms,
                load_ms,
            };
            if a.json {
                output::json(&HeardVerdict {
                    speech: transcript.is_some(),
                    not_an_attempt: Some(not_an_attempt(why)),
                    message: Some(why.message_zh().to_string()),
                    transcript: transcript.as_ref().map(heard_text),
                    verdict: None,
                    uncertain: vec![],
                    rechecked: vec![],
                    fair_accuracy: None,
                    timings,
                    attempt: None,
                })?;
            } else {
                println!("{} ({})", why.message_zh(), why.message_en());
            }
            return Ok(ExitCode::SUCCESS);
        }
        (None, RecordingVerdict::Judged(_)) => bail!("nothing was heard to judge"),
    };
    let check_ms = checking.elapsed().as_millis() as u64;
    let total_ms = started.elapsed().as_millis() as u64;
    // The child's own pass mark when the attempt is recorded for a child,
    // so the verdict printed is the one stored.
    let threshold = match &profile {
        Some(p) => app.pass_threshold(&p.id)?,
        None => DEFAULT_PASS_THRESHOLD,
    };
    let judged = Judgement::new(&reference, voice.verdict.clone(), threshold);
    let verdict = &judged.verdict;
    let attempt = match (&profile, &material) {
        (Some(p), Some(m)) => Some(
            app.record_attempt(NewAttempt {
                profile_id: p.id.clone(),
                material_id: m.id.clone(),
                transcript: voice.record_transcript(&transcript, &settings),
                mode: deskmate_app::recite::Mode::Voice,
                at: chrono::Utc::now(),
                duration_ms: heard
                    .speech_end_ms
                    .zip(heard.speech_start_ms)
                    .map(|(e, s)| e.saturating_sub(s)),
                session_id: None,
            })?,
        ),
        _ => None,
    };
    let timings = Timings {
        decode_ms,
        vad_ms: heard.vad_ms,
        asr_ms: heard.asr_ms,
        check_ms,
        total_ms,
        load_ms,
    };
    if a.json {
        output::json(&HeardVerdict {
            speech: true,
            not_an_attempt: None,
            message: None,
            transcript: Some(heard_text(&transcript)),
            verdict: Some(judged.clone()),
            uncertain: voice.uncertain.iter().map(uncertain_span).collect(),
            rechecked: voice.rechecked.iter().map(rechecked).collect(),
            fair_accuracy: Some(voice.fair_accuracy),
            timings,
            attempt,
        })?;
    } else {
        println!("heard: {}", transcript.text);
        println!(
            "accuracy {}% (fair, uncertain spans not counted: {}%)",
            verdict.accuracy, voice.fair_accuracy
        );
        for e in voice.certain_errors() {
            println!(
                "  line {}: {} — expected {:?}, heard {:?}",
                e.line, e.label_en, e.expected, e.actual
            );
        }
        for u in &voice.uncertain {
            println!(
                "  line {}: not sure ({:?}) — expected {:?}, heard {:?}; ask to say it again",
                u.line, u.reason, u.expected, u.heard
            );
        }
        println!("{}", judged.feedback.zh);
        if let Some(o) = &attempt {
            println!("recorded attempt {} for {}", o.attempt_id, o.title);
        }
        println!(
            "vad {} ms, asr {} ms, check {} ms, total {} ms",
            heard.vad_ms, heard.asr_ms, check_ms, total_ms
        );
    }
    Ok(ExitCode::SUCCESS)
}
