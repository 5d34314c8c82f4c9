//! Speech pipeline benchmark on both dev sets (`recite-audio-dev` and the
//! same clips made harder, `recite-audio-dev-hard`): per clip ASR time and
//! real-time factor (2 threads), end-of-speech → verdict latency,
//! recognition error rates, and the verdict's five figures per set —
//! clean recitations passed with no re-ask, false errors, slips found as
//! errors, slips found counting re-asks, median/p90 total ms — with the
//! fairness thresholds chosen by cross-validation across poems (chosen on
//! the other poems of both sets, reported on each fold's own).
//!
//! `cargo bench -p deskmate-speech --bench pipeline` (models from
//! DESKMATE_MODELS_DIR or <repo>/models; clips from DESKMATE_DEV_CLIPS and
//! DESKMATE_DEV_CLIPS_HARD, or <repo>/../shared/recite-audio-dev{,-hard}).
//! BENCH_SETS=dev|hard keeps one set; BENCH_LANG=zh|en keeps one language;
//! BENCH_STEP=N runs every Nth clip (all poems, fewer clips);
//! BENCH_LIMIT=N runs the first N clips of each set; BENCH_FOLDS=N (default
//! 5) folds of poems; BENCH_FULL=1 also runs whisper's full 30 s window;
//! BENCH_SAVE=FILE appends every transcript to FILE, BENCH_SCORE=FILE scores
//! a saved FILE again without running whisper (e.g. under new rules);
//! BENCH_VOICE=HZ lowers voices pitched above HZ (e.g. 255) before whisper;
//! BENCH_BEAM=N decodes with whisper's beam search of N instead of greedily;
//! BENCH_TIMED='{"accept_from":…}' times the verdict under other settings
//! (a whole FairnessSettings in JSON); BENCH_COST=false,clean,error,found weighs what choosing minimises
//! (default 5,1,1,4: see `evaluation::Cost`); BENCH_FLASH=1 turns on whisper.cpp's flash attention; BENCH_DELTAS=1
//! prints every difference with its scores; BENCH_MISSED=1 every slip not
//! found as an error.

mod common;

use std::path::PathBuf;

use deskmate_speech::asr::{AsrConfig, AudioContext};
use deskmate_speech::evaluation::live::stream_clip;
use deskmate_speech::evaluation::{
    cross_validate, hear_all, score, settings_grid, verdict_of, Cost, Figures, Fits, HeardClip,
};
use deskmate_speech::fairness::FairnessSettings;
use deskmate_speech::{ModelPaths, SpeechPipeline};

use common::percentile;

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
    if let Ok(v) = std::env::var("BENCH_VOICE") {
        config.voice_ceiling_hz = v.parse().ok();
    }
    if let Ok(v) = std::env::var("BENCH_BEAM") {
        config.beam_size = v.parse().ok();
    }
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
    let timed = timed_settings();
    let heard = match hear_all(&pipeline, dir, clips, &timed, Fits::Sweep, &mut |i, h| {
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

/// BENCH_TIMED='{…}': the verdict timed and scored under other settings
/// than the default.
fn timed_settings() -> FairnessSettings {
    match std::env::var("BENCH_TIMED") {
        Ok(json) => serde_json::from_str(&json).unwrap_or_else(|e| {
            eprintln!("BENCH_TIMED: {e}");
            std::process::exit(1)
        }),
        Err(_) => FairnessSettings::default(),
    }
}

fn report(label: &str, heard: &[HeardClip]) {
    let asr: Vec<u64> = heard.iter().map(|h| h.asr_ms).collect();
    let audio_total: f64 = heard.iter().map(|h| h.clip.duration_s).sum();
    let asr_total: f64 = asr.iter().sum::<u64>() as f64 / 1000.0;
    let four_line: Vec<u64> = heard
        .iter()
        .filter(|h| h.clip.four_lines())
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
        // Every difference scored every way (alone, in its run, in the
        // material), with the rule's flags: what a decision rule can use.
        let everything = FairnessSettings {
            accept_from: Some(0.0),
            material_context: true,
            ..FairnessSettings::default()
        };
        println!("every difference: clip, clean?, type, kind, line, expected -> heard, low confidence, alone / in run / in material nats");
        let nats = |d: Option<f64>| d.map(|d| format!("{d:+.1}")).unwrap_or_else(|| "-".into());
        let less_prior = FairnessSettings {
            prior_weight: 1.0,
            ..everything
        };
        for h in heard {
            let Some(v) = verdict_of(h, &everything) else {
                continue;
            };
            let p = verdict_of(h, &less_prior);
            for r in &v.rechecked {
                let rp = p
                    .as_ref()
                    .and_then(|p| p.rechecked.iter().find(|x| x.error == r.error));
                let Some(e) = v.differences.get(r.error) else {
                    continue;
                };
                println!(
                    "  {:<14} {:<5} {:<12} {:<10} {} {:?} -> {:?} {} {} / {} / {}   less prior {} / {} / {}",
                    h.clip.id,
                    if h.clip.expected_errors.is_empty() {
                        "clean"
                    } else {
                        "err"
                    },
                    e.error_type.as_str(),
                    format!("{:?}", e.kind),
                    e.line,
                    e.expected,
                    e.actual,
                    if e.uncertain { "low" } else { "ok" },
                    nats(r.alone),
                    nats(r.in_run),
                    nats(r.in_material),
                    nats(rp.and_then(|r| r.alone)),
                    nats(rp.and_then(|r| r.in_run)),
                    nats(rp.and_then(|r| r.in_material))
                );
            }
        }
    }
}

/// The five figures of one set (the table).
fn five(label: &str, f: &Figures, heard: &[&HeardClip]) {
    let total: Vec<u64> = heard.iter().map(|h| h.to_verdict_ms).collect();
    println!(
        "  {label:<28} clean passed, no re-ask {:>2}/{} = {:>5.1} %   false errors {:>2}/{} = {:>4.1} %   slips found as errors {:>3}/{} = {:>5.1} % (of the same type {:>3} = {:>5.1} %)   counting re-asks {:>3}/{} = {:>5.1} %   total ms median {} p90 {}",
        f.clean_passed(),
        f.clean_clips,
        f.clean_passed_rate() * 100.0,
        f.false_alarm_clips,
        f.clean_clips,
        f.false_alarm_rate() * 100.0,
        f.found_certain,
        f.expected_errors,
        f.found_certain_rate() * 100.0,
        f.found_certain_same_type,
        f.found_certain_same_type_rate() * 100.0,
        f.found_any,
        f.expected_errors,
        f.found_any_rate() * 100.0,
        percentile(total.clone(), 0.5),
        percentile(total, 0.9),
    );
}

/// The cross-validated figures per set.
fn cross_validated(slices: &[&[HeardClip]], sets: &[(String, Vec<HeardClip>)], folds: usize) {
    let grid = settings_grid();
    let cost = match std::env::var("BENCH_COST") {
        Ok(v) => Cost::parse(&v).unwrap_or_else(|| {
            eprintln!("BENCH_COST is four weights: false,clean,error,found");
            std::process::exit(1)
        }),
        Err(_) => Cost::default(),
    };
    println!("choosing by {cost:?}");
    let (held_out, chosen) = cross_validate(slices, &grid, folds, &cost);
    println!(
        "== the verdict, cross-validated: {folds} folds of poems, thresholds chosen on the other poems of all sets ({} settings)",
        grid.len()
    );
    for ((label, heard), f) in sets.iter().zip(&held_out) {
        five(label, f, &heard.iter().collect::<Vec<_>>());
        for line in &f.false_alarms {
            println!("      false error {line}");
        }
        if std::env::var_os("BENCH_MISSED").is_some() {
            for line in &f.missed {
                println!("      slip {line}");
            }
        }
    }
    for (k, s) in chosen.iter().enumerate() {
        println!("  fold {k} chose {s:?}");
    }
    // The settings chosen on all poems (what the default should be).
    let (_, all) = cross_validate(slices, &grid, 1, &cost);
    if let Some(s) = all.first() {
        println!("  chosen on all poems: {s:?}");
    }
}

/// The fifth figure: from the last syllable to the verdict on the live path
/// (judged at the child's pause, `evaluation::live`), 4-line poems: each
/// clip streamed through the voice detector again for where its pause and
/// its end silence fell, with the judgement's time measured on the file's
/// speech (the same samples but for the padding; `--bench live` times the
/// judgement on the pause's own samples).
fn live_path(
    label: &str,
    heard: &[HeardClip],
    dir: &std::path::Path,
    paths: &ModelPaths,
    settings: &FairnessSettings,
) {
    let mut times = Vec::new();
    for h in heard.iter().filter(|h| h.clip.four_lines()) {
        let streamed = match stream_clip(paths, &h.clip.path(dir), 200) {
            Ok(Some(s)) => s,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("{}: {e}", h.clip.id);
                return;
            }
        };
        let reaches = verdict_of(h, settings).is_some_and(|v| v.reaches_the_end());
        let judge_ms = h.to_verdict_ms.saturating_sub(h.vad_ms);
        times.push(streamed.to_verdict_ms(judge_ms, reaches));
    }
    println!(
        "  {label:<28} last syllable -> verdict on the live path, 4-line poems ({} clips): median {} ms, p90 {} ms",
        times.len(),
        percentile(times.clone(), 0.5),
        percentile(times, 0.9)
    );
}

/// The cross-validated figures per set (unless BENCH_NO_CV), and the timed
/// settings' figures with the live path's timing.
fn verdict_table(sets: &[(String, Vec<HeardClip>)], dirs: &[PathBuf], paths: &ModelPaths) {
    let folds = std::env::var("BENCH_FOLDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let slices: Vec<&[HeardClip]> = sets.iter().map(|(_, h)| h.as_slice()).collect();
    if std::env::var_os("BENCH_NO_CV").is_none() {
        cross_validated(&slices, sets, folds);
    }
    let timed = timed_settings();
    println!("== the verdict with the timed settings (default unless BENCH_TIMED; not cross-validated): {timed:?}");
    for (label, heard) in sets {
        let f = score(heard, &timed);
        five(label, &f, &heard.iter().collect::<Vec<_>>());
    }
    for ((label, heard), dir) in sets.iter().zip(dirs) {
        live_path(label, heard, dir, paths, &timed);
    }
}

fn main() {
    // `cargo bench` passes --bench; nothing else is taken.
    let paths = common::models();
    let sets = common::sets();
    // BENCH_SCORE=FILE: score transcripts saved earlier with BENCH_SAVE=FILE (no ASR run).
    if let Some(saved) = std::env::var_os("BENCH_SCORE") {
        let text = std::fs::read_to_string(&saved).unwrap_or_default();
        let mut heard_sets: Vec<(String, Vec<HeardClip>)> = Vec::new();
        for (label, _, clips) in &sets {
            let mut heard = Vec::new();
            for line in text.lines() {
                let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                    continue;
                };
                if v["label"] != label.as_str() {
                    continue;
                }
                let Some(clip) = clips.iter().find(|c| v["id"] == c.id.as_str()) else {
                    continue;
                };
                // A clip saved twice (runs resumed) counts once: the last run.
                heard.retain(|h: &HeardClip| h.clip.id != clip.id);
                heard.push(HeardClip {
                    clip: clip.clone(),
                    transcript: serde_json::from_value(v["transcript"].clone()).ok(),
                    vad_ms: v["vad_ms"].as_u64().unwrap_or(0),
                    asr_ms: v["asr_ms"].as_u64().unwrap_or(0),
                    to_verdict_ms: v["to_verdict_ms"].as_u64().unwrap_or(0),
                    fits: serde_json::from_value(v["fits"].clone()).unwrap_or_default(),
                });
            }
            report(label, &heard);
            heard_sets.push((label.clone(), heard));
        }
        let dirs: Vec<PathBuf> = sets.iter().map(|(_, d, _)| d.clone()).collect();
        verdict_table(&heard_sets, &dirs, &paths);
        return;
    }
    let mut heard_sets = Vec::new();
    for (label, dir, clips) in &sets {
        let heard = run(label, &paths, AudioContext::FitToClip, dir, clips);
        heard_sets.push((label.clone(), heard));
    }
    let dirs: Vec<PathBuf> = sets.iter().map(|(_, d, _)| d.clone()).collect();
    verdict_table(&heard_sets, &dirs, &paths);
    if std::env::var_os("BENCH_FULL").is_some() {
        if let Some((label, dir, clips)) = sets.first() {
            run(
                &format!("{label}, full 30 s window"),
                &paths,
                AudioContext::Full,
                dir,
                clips,
            );
        }
    }
}
