//! From the child's last syllable to the verdict, on the live path the
//! window takes (issue 13, point 4): each dev clip, followed by 1.5 s of
//! silence, streams through the voice detector in 20 ms pieces as a
//! microphone delivers them. At the first moment of `BENCH_PAUSE_MS`
//! (default 200, as the window) of silence the attempt as it stands is transcribed and
//! judged (`judge_recording` with the audio re-examined, the window's
//! function), timed on the wall clock. If the verdict shows the material was
//! heard to its end, the attempt ends there; otherwise the verdict waits for
//! the voice detector's end silence (1.2 s), and is ready then or when the
//! judgement finishes, whichever is later.
//!
//! Printed per set, for 4-line poems and all clips: the last syllable →
//! verdict median / p90 / max, on the live path and as before (the end
//! silence, then the judgement), how many attempts ended at the pause, and
//! whether the samples judged at the pause were the attempt's (they must be).
//!
//! The last syllable is where the voice detector last heard speech (the
//! utterance's end less its 200 ms padding). Earlier pauses (between lines)
//! are judged in the window too and cancelled when the child goes on; that
//! cost is not simulated here (whisper aborts within a moment).
//!
//! `cargo bench -p deskmate-speech --bench live` (release). Knobs:
//! BENCH_SETS=dev|hard, BENCH_LANG=zh|en, BENCH_STEP=N (every Nth clip),
//! BENCH_LIMIT=N, BENCH_PAUSE_MS.

mod common;

use std::time::Instant;

use deskmate_recite::Reference;
use deskmate_speech::asr::{AsrConfig, AsrRequest};
use deskmate_speech::attempt::{judge_recording, RecordingVerdict};
use deskmate_speech::evaluation::live::stream_clip;
use deskmate_speech::fairness::FairnessSettings;
use deskmate_speech::SpeechPipeline;

use common::{env_num, percentile};

struct Timed {
    four_lines: bool,
    live_ms: u64,
    before_ms: u64,
    judge_ms: u64,
    ended_at_pause: bool,
}

fn main() {
    let paths = common::models();
    let mut config = AsrConfig::new(&paths.whisper);
    config.threads = 2;
    let pipeline = SpeechPipeline::load(&paths, config).unwrap_or_else(|e| {
        eprintln!("cannot load the pipeline: {e}");
        std::process::exit(1)
    });
    let pause_ms = env_num("BENCH_PAUSE_MS").unwrap_or(200) as u32;
    let end_silence_ms = u64::from(deskmate_speech::vad::VadSettings::default().end_silence_ms);
    let settings = FairnessSettings::default();
    for (label, dir, clips) in common::sets() {
        let mut timed: Vec<Timed> = Vec::new();
        let (mut not_the_attempt, mut cut_early, mut not_judged) = (0, 0, 0);
        for (i, clip) in clips.iter().enumerate() {
            let streamed = match stream_clip(&paths, &clip.path(&dir), pause_ms) {
                Ok(Some(s)) => s,
                Ok(None) => {
                    not_judged += 1;
                    continue;
                }
                Err(e) => {
                    eprintln!("{}: {e}", clip.id);
                    std::process::exit(1);
                }
            };
            if !streamed.same_samples {
                not_the_attempt += 1;
                continue;
            }
            // The clip has a silence long enough to end the attempt before its end.
            let speech_ms = streamed
                .at_pause
                .end_ms
                .saturating_sub(streamed.at_pause.start_ms);
            if speech_ms + 2_000 < (clip.duration_s * 1000.0) as u64 {
                cut_early += 1;
            }
            let started = Instant::now();
            let heard = pipeline.asr().transcribe(AsrRequest {
                samples: streamed.at_pause.samples.clone(),
                lang: clip.lang(),
                expected_units: Some(clip.units),
                speech_detected: Some(true),
            });
            let text = heard.as_ref().map(|h| h.text.clone()).unwrap_or_default();
            let reaches_the_end = match (heard, Reference::new(&clip.reference, None)) {
                (Ok(heard), Ok(reference)) => matches!(
                    judge_recording(&reference, Some(&heard), &settings, Some(pipeline.asr())),
                    Ok(RecordingVerdict::Judged(v)) if v.reaches_the_end()
                ),
                _ => false,
            };
            let judge_ms = started.elapsed().as_millis() as u64;
            let live_ms = streamed.to_verdict_ms(judge_ms, reaches_the_end);
            let before_ms = streamed.silence_after_ms.max(end_silence_ms) + judge_ms;
            eprintln!(
                "[{label}] {:>3}/{} {:<14} pause after {:>4} ms  judged in {:>5} ms  {}  verdict {:>5} ms after the last syllable (before: {:>5} ms)  heard {text}",
                i + 1,
                clips.len(),
                clip.id,
                streamed.pause_after_ms,
                judge_ms,
                if reaches_the_end { "heard to the end" } else { "waits the silence" },
                live_ms,
                before_ms,
            );
            timed.push(Timed {
                four_lines: clip.four_lines(),
                live_ms,
                before_ms,
                judge_ms,
                ended_at_pause: reaches_the_end,
            });
        }
        println!("== {label}: {} clips", clips.len());
        for (what, four_only) in [("4-line poems", true), ("all clips", false)] {
            let rows: Vec<&Timed> = timed
                .iter()
                .filter(|t| !four_only || t.four_lines)
                .collect();
            let live: Vec<u64> = rows.iter().map(|t| t.live_ms).collect();
            let before: Vec<u64> = rows.iter().map(|t| t.before_ms).collect();
            let judge: Vec<u64> = rows.iter().map(|t| t.judge_ms).collect();
            println!(
                "last syllable -> verdict, {what} ({} clips): live median {} / p90 {} / max {} ms; before (end silence, then the judgement) median {} / p90 {} ms; the judgement alone median {} / p90 {} ms; ended at the pause {}/{}",
                rows.len(),
                percentile(live.clone(), 0.5),
                percentile(live.clone(), 0.9),
                percentile(live, 1.0),
                percentile(before.clone(), 0.5),
                percentile(before, 0.9),
                percentile(judge.clone(), 0.5),
                percentile(judge, 0.9),
                rows.iter().filter(|t| t.ended_at_pause).count(),
                rows.len(),
            );
        }
        println!(
            "samples judged at the pause differed from the attempt's: {not_the_attempt}; no pause or no end found: {not_judged}; attempt ended by a silence inside the clip: {cut_early}"
        );
    }
}
