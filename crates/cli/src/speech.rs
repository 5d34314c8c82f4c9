//! `deskmate speech`: offline speech recognition of an audio file, the same
//! pipeline (decode → VAD → whisper) the app runs on a recitation.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use deskmate_app::Deskmate;
use deskmate_speech::asr::AudioContext;
use deskmate_speech::{AsrConfig, Lang, ModelPaths, SpeechPipeline};
use serde::Serialize;

use crate::output;

#[derive(Subcommand)]
pub enum SpeechCmd {
    /// Transcribe an audio file (WAV, MP3, FLAC, Ogg, M4A) with a confidence per character.
    Transcribe {
        #[arg(long = "wav", value_name = "FILE")]
        file: PathBuf,
        #[arg(long, value_parser = ["zh", "en"], default_value = "zh")]
        lang: String,
        /// Use an encoder window sized to the clip (faster, slightly less accurate).
        #[arg(long)]
        fit_audio_ctx: bool,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Serialize)]
struct TranscribeOutput {
    file: PathBuf,
    lang: Lang,
    /// False when no speech was detected (silence or noise).
    speech: bool,
    text: String,
    raw_text: String,
    units: Vec<deskmate_speech::asr::HeardUnit>,
    flags: Vec<deskmate_speech::asr::GuardFlag>,
    audio_ms: u64,
    vad_ms: u64,
    asr_ms: u64,
}

/// Loads the speech models from the app's models directory.
pub fn pipeline(app: &Deskmate, fit_audio_ctx: bool) -> anyhow::Result<SpeechPipeline> {
    let paths = ModelPaths::present_in(&app.config().models_dir)?;
    let mut config = AsrConfig::new(&paths.whisper);
    if fit_audio_ctx {
        config.audio_context = AudioContext::FitToClip;
    }
    Ok(SpeechPipeline::load(&paths, config)?)
}

pub fn parse_lang(code: &str) -> anyhow::Result<Lang> {
    Lang::parse(code).ok_or_else(|| anyhow::anyhow!("language must be zh or en, not {code:?}"))
}

pub fn run(app: &Deskmate, cmd: SpeechCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        SpeechCmd::Transcribe { file, lang, fit_audio_ctx, json } => {
            let lang = parse_lang(&lang)?;
            let pipeline = pipeline(app, fit_audio_ctx)?;
            let heard = pipeline.hear_file(&file, lang, None)?;
            let t = heard.transcript;
            let out = TranscribeOutput {
                file,
                lang,
                speech: t.is_some(),
                text: t.as_ref().map(|t| t.text.clone()).unwrap_or_default(),
                raw_text: t.as_ref().map(|t| t.raw_text.clone()).unwrap_or_default(),
                units: t.as_ref().map(|t| t.units.clone()).unwrap_or_default(),
                flags: t.as_ref().map(|t| t.flags.clone()).unwrap_or_default(),
                audio_ms: heard.audio_ms,
                vad_ms: heard.vad_ms,
                asr_ms: heard.asr_ms,
            };
            if json {
                output::json(&out)?;
            } else if !out.speech {
                println!("(no speech heard in {})", out.file.display());
            } else {
                println!("{}", out.text);
                let unsure: Vec<String> =
                    out.units.iter().filter(|u| u.confidence < 0.8).map(|u| format!("{} ({:.2})", u.text, u.confidence)).collect();
                if !unsure.is_empty() {
                    println!("unsure: {}", unsure.join(", "));
                }
                println!("audio {} ms, vad {} ms, asr {} ms", out.audio_ms, out.vad_ms, out.asr_ms);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
