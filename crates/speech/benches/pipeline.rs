//! Speech pipeline benchmark on the dev clips: prints per-clip ASR time and
//! real-time factor (2 threads), end-of-speech → verdict latency, recognition
//! error rates, errors found and false alarms for several fairness
//! thresholds, and the same with `audio_ctx` sized to the clip.
//!
//! `cargo bench -p deskmate-speech --bench pipeline` (models from
//! DESKMATE_MODELS_DIR or <repo>/models; clips from DESKMATE_DEV_CLIPS or
//! <repo>/../shared/recite-audio-dev). BENCH_LANG=zh|en keeps one language;
//! BENCH_LIMIT=N runs the first N clips;
//! BENCH_FIT_LIMIT=N (default 40) sizes the audio_ctx comparison;
//! BENCH_SAVE=FILE appends every transcript to FILE, BENCH_SCORE=FILE scores
//! a saved FILE again without running whisper (e.g. a partial run);
//! BENCH_FLASH=1 turns on whisper.cpp's flash attention;
//! BENCH_ONLY=full|fit runs one of the two audio windows.

use std::path::PathBuf;

use deskmate_speech::asr::{AsrConfig, AudioContext};
use deskmate_speech::evaluation::{
    hear_all, read_manifest, score, verdict_of, Fits, HeardClip, SWEPT_LOW_CONFIDENCE,
};
use deskmate_speech::fairness::FairnessSettings;
use deskmate_speech::{ModelPaths, SpeechPipeline};

fn percentile(mut v: Vec<u64>, p: f64) -> u64 {
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn run(
    label: &str,
    paths: &ModelPaths,
    context: AudioContext,
    dir: &std::path::Path,
    clips: &[deskmate_speech::evaluation::DevClip],
) -> Vec<HeardClip> {
    let mut config = AsrConfig::new(&paths.whisper);
    config.threads = 2;
    config.audio_context = context;
    config.flash_attention = std::env::var_os("BENCH_FLASH").is_some();
    let pipeline = match SpeechPipeline::load(paths, config) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cannot load the pipeline: {e}");
            std::process::exit(1);
        }
    };
    let n = clips.len();
    let log_path = std::env::var_os("BENCH_SAVE").map(PathBuf::from);
    let mut log = log_path.as_ref().and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let heard = match hear_all(&pipeline, dir, clips, Fits::Sweep, &mut |i, h| {
        if let Some(f) = log.as_mut() {
            use std::io::Write;
            let line = serde_json::json!({ "label": label, "id": h.clip.id, "transcript": h.transcript, "vad_ms": h.vad_ms, "asr_ms": h.asr_ms, "to_verdict_ms": h.to_verdict_ms, "fits": h.fits });
            let _ = writeln!(f, "{line}");
        }
        let audio_s = h.clip.duration_s;
        eprintln!(
            "[{label}] {:>3}/{n} {:<14} {:>5.1} s audio  asr {:>5} ms  rtf {:.2}  to verdict {:>5} ms  heard {}",
            i + 1,
            h.clip.id,
            audio_s,
            h.asr_ms,
            h.asr_ms as f64 / 1000.0 / audio_s,
            h.to_verdict_ms,
            h.transcript.as_ref().map(|t| t.text.as_str()).unwrap_or("(no speech)")
        );
    }) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("pipeline failed: {e}");
            std::process::exit(1);
        }
    };
    report(label, &heard);
    heard
}

fn report(label: &str, heard: &[HeardClip]) {
    let asr: Vec<u64> = heard.iter().map(|h| h.asr_ms).collect();
    let audio_total: f64 = heard.iter().map(|h| h.clip.duration_s).sum();
    let asr_total: f64 = asr.iter().sum::<u64>() as f64 / 1000.0;
    let four_line: Vec<u64> = heard
        .iter()
        .filter(|h| {
            h.clip.lang == "zh" && h.clip.reference.matches(['。', '！', '？', '，']).count() == 4
        })
        .map(|h| h.to_verdict_ms)
        .collect();
    println!(
        "== {label}: {} clips, {:.0} s of audio",
        heard.len(),
        audio_total
    );
    println!(
        "ASR per clip: median {} ms, p90 {} ms, max {} ms; real-time factor {:.3} (2 threads)",
        percentile(asr.clone(), 0.5),
        percentile(asr.clone(), 0.9),
        percentile(asr, 1.0),
        asr_total / audio_total
    );
    println!(
        "end of speech -> verdict (VAD + ASR + check), 4-line poems ({} clips): median {} ms, p90 {} ms",
        four_line.len(),
        percentile(four_line.clone(), 0.5),
        percentile(four_line, 0.9)
    );
    // By length: five-character quatrains (20 hanzi, ~6 s) and seven-character ones (28 hanzi, ~9 s).
    for hanzi in [20, 28] {
        let t: Vec<u64> = heard
            .iter()
            .filter(|h| {
                h.clip.lang == "zh"
                    && h.clip.reference.matches(['。', '！', '？', '，']).count() == 4
                    && h.clip
                        .reference
                        .chars()
                        .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
                        .count()
                        == hanzi
            })
            .map(|h| h.to_verdict_ms)
            .collect();
        println!(
            "  of {hanzi} hanzi ({} clips): median {} ms, p90 {} ms, max {} ms",
            t.len(),
            percentile(t.clone(), 0.5),
            percentile(t.clone(), 0.9),
            percentile(t, 1.0)
        );
    }
    let f = score(heard, &FairnessSettings::default());
    println!(
        "recognition: Mandarin CER {:.1} %, syllable ER (tones ignored) {:.1} % over {} chars; English WER {:.1} % over {} words; no speech on {} clips",
        f.cer() * 100.0,
        f.syllable_er() * 100.0,
        f.zh_chars,
        f.wer() * 100.0,
        f.en_words,
        f.no_speech
    );
    println!(
        "default settings: clean clips asked to say a line again (no certain error) {}/{}; certain errors on clean clips:",
        f.clean_asked_again, f.clean_clips
    );
    for line in &f.false_alarms {
        println!("  {line}");
    }
    if std::env::var_os("BENCH_DELTAS").is_some() {
        println!("re-examined differences (default settings): clip, clean?, type, line, expected -> heard, delta nats");
        for h in heard {
            let Some(v) = verdict_of(h, &FairnessSettings::default()) else {
                continue;
            };
            for r in &v.rechecked {
                let Some(e) = v.verdict.errors.get(r.error) else {
                    continue;
                };
                println!(
                    "  {:<14} {:<5} {:<12} {} {:?} -> {:?} {:+.2}",
                    h.clip.id,
                    if h.clip.expected_errors.is_empty() {
                        "clean"
                    } else {
                        "err"
                    },
                    e.error_type.as_str(),
                    e.line,
                    e.expected,
                    e.actual,
                    r.delta
                );
            }
        }
    }
    println!("fairness sweep (errors found: certain / incl. uncertain; false alarms = clean clips with a certain error):");
    println!("  tone rule  low-conf <  recheck margin  found cert  found any  false alarms  clean asked again");
    let mut rows = Vec::new();
    for tone in [true, false] {
        for low in SWEPT_LOW_CONFIDENCE {
            rows.push((tone, low, None));
        }
    }
    for margin in [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0] {
        rows.push((true, 0.8, Some(margin)));
        rows.push((true, 0.0, Some(margin)));
    }
    for (tone, low, margin) in rows {
        let s = FairnessSettings {
            low_confidence_below: low,
            tone_is_uncertain: tone,
            recheck_margin: margin,
        };
        let f = score(heard, &s);
        println!(
            "  {:<9}  {:<9.2}  {:<14}  {:>5.1} %     {:>5.1} %    {:>2}/{} = {:>4.1} %  {:>2}",
            if tone { "on" } else { "off" },
            low,
            margin.map_or("off".to_string(), |m| format!("{m:.1}")),
            f.found_certain_rate() * 100.0,
            f.found_any_rate() * 100.0,
            f.false_alarm_clips,
            f.clean_clips,
            f.false_alarm_rate() * 100.0,
            f.clean_asked_again
        );
    }
}

fn main() {
    // `cargo bench` passes --bench; nothing else is taken.
    let paths = match ModelPaths::present_in(&ModelPaths::dev_dir()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let dir = std::env::var_os("DESKMATE_DEV_CLIPS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/recite-audio-dev")
        });
    let mut clips = match read_manifest(&dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("dev clips: {e}");
            std::process::exit(1);
        }
    };
    // BENCH_SCORE=FILE: score transcripts saved earlier with BENCH_SAVE=FILE (no ASR run).
    if let Some(saved) = std::env::var_os("BENCH_SCORE") {
        let text = std::fs::read_to_string(&saved).unwrap_or_default();
        let mut by_label: std::collections::BTreeMap<String, Vec<HeardClip>> = Default::default();
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(clip) = clips.iter().find(|c| v["id"] == c.id.as_str()) else {
                continue;
            };
            let h = HeardClip {
                clip: clip.clone(),
                transcript: serde_json::from_value(v["transcript"].clone()).ok(),
                vad_ms: v["vad_ms"].as_u64().unwrap_or(0),
                asr_ms: v["asr_ms"].as_u64().unwrap_or(0),
                to_verdict_ms: v["to_verdict_ms"].as_u64().unwrap_or(0),
                fits: serde_json::from_value(v["fits"].clone()).unwrap_or_default(),
            };
            by_label
                .entry(v["label"].as_str().unwrap_or("?").to_string())
                .or_default()
                .push(h);
        }
        for (label, heard) in &by_label {
            report(label, heard);
        }
        return;
    }
    if let Ok(lang) = std::env::var("BENCH_LANG") {
        clips.retain(|c| c.lang == lang);
    }
    if let Some(n) = std::env::var("BENCH_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        clips.truncate(n);
    }
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    if only == "fit" {
        run(
            "audio_ctx fit",
            &paths,
            AudioContext::FitToClip,
            &dir,
            &clips,
        );
        return;
    }
    let full = run("audio_ctx full", &paths, AudioContext::Full, &dir, &clips);
    if only == "full" {
        return;
    }
    // The sized window is measured on the first BENCH_FIT_LIMIT clips (default 40) to keep the run short.
    let fit_limit = std::env::var("BENCH_FIT_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
        .min(clips.len());
    report("audio_ctx full (the same subset)", &full[..fit_limit]);
    run(
        "audio_ctx fit",
        &paths,
        AudioContext::FitToClip,
        &dir,
        &clips[..fit_limit],
    );
}
