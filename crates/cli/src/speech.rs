//! `deskmate speech`: offline speech recognition of an audio file, the same
//! pipeline (decode → VAD → whisper) the app runs on a recitation.

use std::path::PathBuf;
use std::process::ExitCode;

use std::time::{Duration, Instant};

use anyhow::bail;
use clap::{Args, Subcommand};
use deskmate_app::recording::{heard_text, RecordingCheck};
use deskmate_app::voice_out::CloudVoice;
use deskmate_app::Deskmate;
use deskmate_protocol::check::{self, Transcription};
use deskmate_protocol::voice::{PlaybackEvent, SpokenPhrase, VoiceNotice, VoiceSetting};
use deskmate_protocol::AppEvent;
use deskmate_speech::asr::AudioContext;
use deskmate_speech::attempt::NotAnAttempt;
use deskmate_speech::{AsrConfig, Lang, ModelPaths, SpeechPipeline};

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

pub fn run_recite_audio(app: &Deskmate, a: ReciteAudioArgs) -> anyhow::Result<ExitCode> {
    if a.profile.is_some() && a.material.is_none() {
        bail!("--profile records the attempt against a material: give --material instead of --reference");
    }
    if a.material.is_none() && a.reference.is_none() {
        bail!("give --material or --reference");
    }
    // One function checks a recording, here, in the API and (its judging)
    // in the window.
    let ask = RecordingCheck {
        material: a.material.clone(),
        reference: a.reference.clone(),
        profile: a.profile.clone(),
        lang: a.lang.clone(),
        pass_threshold: None,
        full_audio_ctx: a.full_audio_ctx,
    };
    let checked = app.check_recording(&ask, &a.file, &mut |_| {})?;
    if a.json {
        output::json(&checked)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (Some(transcript), Some(judged)) = (&checked.transcript, &checked.verdict) else {
        let why = checked
            .message
            .as_deref()
            .unwrap_or("没听清楚，请靠近麦克风再背一遍。");
        let en = match checked.not_an_attempt {
            Some(check::NotAnAttempt::NothingHeard) | None => NotAnAttempt::NothingHeard,
            Some(check::NotAnAttempt::PromptEcho) => NotAnAttempt::PromptEcho,
            Some(check::NotAnAttempt::OnlyPunctuation) => NotAnAttempt::OnlyPunctuation,
            Some(check::NotAnAttempt::NotTheMaterial) => NotAnAttempt::NotTheMaterial,
        };
        println!("{why} ({})", en.message_en());
        return Ok(ExitCode::SUCCESS);
    };
    let verdict = &judged.verdict;
    println!("heard: {}", transcript.text);
    println!(
        "accuracy {}% (fair, uncertain spans not counted: {}%)",
        verdict.accuracy,
        checked.fair_accuracy.unwrap_or(verdict.accuracy)
    );
    for e in verdict.errors.iter().filter(|e| !e.uncertain) {
        println!(
            "  line {}: {} — expected {:?}, heard {:?}",
            e.line, e.label_en, e.expected, e.actual
        );
    }
    for u in &checked.uncertain {
        println!(
            "  line {}: not sure ({:?}) — expected {:?}, heard {:?}; ask to say it again",
            u.line, u.reason, u.expected, u.heard
        );
    }
    println!("{}", judged.feedback.zh);
    if let Some(o) = &checked.attempt {
        println!("recorded attempt {} for {}", o.attempt_id, o.title);
    }
    let t = &checked.timings;
    println!(
        "vad {} ms, asr {} ms, check {} ms, total {} ms",
        t.vad_ms, t.asr_ms, t.check_ms, t.total_ms
    );
    Ok(ExitCode::SUCCESS)
}
