//! Measuring the speech pipeline on the dev clips (`recite-audio-dev`:
//! synthetic recitations with a manifest of what was said and which errors
//! it holds): recognition error rates, errors found, false alarms, timing.
//! Shared by the agreement test and the bench binaries so all measure the
//! same thing; [`live`] times the live path (judged at the child's pause).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use deskmate_recite::{ErrorType, Reference};
use pinyin::ToPinyin;
use serde::Deserialize;

use crate::asr::units::is_hanzi;
use crate::asr::AsrError;
use crate::asr::{Lang, Transcript};
use crate::fairness::{
    judge, judge_with_fit, less_prior, word_for_word, FairnessSettings, VoiceVerdict,
};
use crate::pipeline::{SpeechError, SpeechPipeline};

pub mod live;

/// One line of `manifest.jsonl`.
#[derive(Debug, Clone, Deserialize)]
pub struct DevClip {
    pub id: String,
    pub reference: String,
    /// What the clip says (the reference with the injected errors).
    pub transcript: String,
    pub lang: String,
    pub units: usize,
    pub expected_errors: Vec<ExpectedError>,
    pub note: String,
    pub wav: String,
    pub duration_s: f64,
    /// How a clip of the hard set was made harder (None in the dev set).
    #[serde(default)]
    pub augment: Option<Augment>,
}

/// The hard set's perturbation of one clip (the fields used here).
#[derive(Debug, Clone, Deserialize)]
pub struct Augment {
    /// The voice raised by this many cents (pitch and formants).
    pub pitch_cents: f32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExpectedError {
    #[serde(rename = "type")]
    pub error_type: String,
    pub line: usize,
}

/// Reads the manifest in `dir`.
pub fn read_manifest(dir: &Path) -> Result<Vec<DevClip>, String> {
    let text = std::fs::read_to_string(dir.join("manifest.jsonl"))
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("manifest line {}: {e}", i + 1)))
        .collect()
}

impl DevClip {
    pub fn lang(&self) -> Lang {
        Lang::parse(&self.lang).unwrap_or(Lang::Zh)
    }
    pub fn path(&self, dir: &Path) -> PathBuf {
        dir.join(&self.wav)
    }
    /// A Mandarin poem of four lines (a quatrain: the latency target's case).
    pub fn four_lines(&self) -> bool {
        self.lang == "zh" && self.reference.matches(['。', '！', '？', '，']).count() == 4
    }
}

/// What the pipeline heard on one clip.
#[derive(Debug, Clone)]
pub struct HeardClip {
    pub clip: DevClip,
    pub transcript: Option<Transcript>,
    pub vad_ms: u64,
    pub asr_ms: u64,
    /// Wall time from the audio being complete to the verdict (VAD + ASR +
    /// check with the default settings, re-examining included).
    pub to_verdict_ms: u64,
    /// Re-examining deltas of each corrected variant of the transcript
    /// (every difference of the plain check), measured while the recording
    /// was loaded, so [`score`] can apply any settings afterwards.
    pub fits: HashMap<String, f64>,
}

/// How much re-examining [`hear_all`] measures per clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fits {
    /// The variants the default settings ask for (the timed verdict).
    Default,
    /// Also every variant the bench's fairness sweep could ask for.
    Sweep,
}

/// Runs every clip through decode → VAD → ASR → the fair verdict under
/// `timed` (the slow part, done once, timed), keeping the re-examining deltas so [`score`]
/// can judge again without whisper.
pub fn hear_all(
    pipeline: &SpeechPipeline,
    dir: &Path,
    clips: &[DevClip],
    timed: &FairnessSettings,
    fits: Fits,
    progress: &mut dyn FnMut(usize, &HeardClip),
) -> Result<Vec<HeardClip>, SpeechError> {
    let mut out = Vec::new();
    for (i, clip) in clips.iter().enumerate() {
        let audio = crate::audio::file::load(&clip.path(dir), 120.0)?;
        let started = Instant::now();
        let heard = pipeline.hear(&audio, clip.lang(), Some(clip.units))?;
        let reference = Reference::new(&clip.reference, None).ok();
        let measured = Mutex::new(HashMap::<String, f64>::new());
        if let (Some(t), Some(reference)) = (&heard.transcript, &reference) {
            let fit = recording_fit(pipeline, t, &measured, timed.prior_weight);
            // The verdict itself is rebuilt by `score` from the deltas.
            let _ = judge_with_fit(reference, t, timed, &fit);
        }
        let to_verdict_ms = started.elapsed().as_millis() as u64;
        if let (Fits::Sweep, Some(t), Some(reference)) = (fits, &heard.transcript, &reference) {
            // Every score any settings of the grid may ask for (not timed),
            // with whisper's expectation of each text alone (the prior).
            let fit = recording_fit(pipeline, t, &measured, 1.0);
            let everything = FairnessSettings {
                accept_from: Some(0.0),
                material_context: true,
                ..FairnessSettings::default()
            };
            let _ = judge_with_fit(reference, t, &everything, &fit);
        }
        if let (Fits::Sweep, Some(t), Some(reference)) = (fits, &heard.transcript, &reference) {
            let fit = recording_fit(pipeline, t, &measured, 1.0);
            for settings in swept_settings() {
                let _ = judge_with_fit(reference, t, &settings, &fit);
            }
        }
        let h = HeardClip {
            clip: clip.clone(),
            transcript: heard.transcript,
            vad_ms: heard.vad_ms,
            asr_ms: heard.asr_ms,
            to_verdict_ms,
            fits: measured.into_inner().unwrap_or_default(),
        };
        progress(i, &h);
        out.push(h);
    }
    Ok(out)
}

/// Re-examines variants on the worker, each (base, variant) once,
/// remembering every delta in `measured` under [`fit_key`] — and, when
/// `prior_weight` is not 0, the same variants scored against silence under
/// [`prior_key`]. Returns what [`crate::fairness::judge_with_audio`] would
/// (the delta less `prior_weight` × the prior).
fn recording_fit<'a>(
    pipeline: &'a SpeechPipeline,
    t: &'a Transcript,
    measured: &'a Mutex<HashMap<String, f64>>,
    prior_weight: f64,
) -> impl Fn(&str, Vec<String>) -> Result<Vec<f64>, AsrError> + 'a {
    move |base: &str, variants: Vec<String>| {
        // As `judge_with_audio` does: the prior only for a word in place of a word.
        let same_length = |v: &str| word_for_word(t.lang, base, v);
        let (new, new_priors): (Vec<String>, Vec<String>) = {
            let m = measured.lock().map_err(|_| AsrError::WorkerGone)?;
            (
                variants
                    .iter()
                    .filter(|v| !m.contains_key(&fit_key(t, base, v)))
                    .cloned()
                    .collect(),
                variants
                    .iter()
                    .filter(|v| {
                        prior_weight != 0.0
                            && same_length(v)
                            && !m.contains_key(&prior_key(t, base, v))
                    })
                    .cloned()
                    .collect(),
            )
        };
        let (deltas, priors) = if new.is_empty() && new_priors.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            pipeline
                .asr()
                .recheck_with_prior(t, base, new.clone(), new_priors.clone())?
        };
        let mut m = measured.lock().map_err(|_| AsrError::WorkerGone)?;
        m.extend(new.iter().map(|v| fit_key(t, base, v)).zip(deltas));
        m.extend(new_priors.iter().map(|v| prior_key(t, base, v)).zip(priors));
        Ok(variants
            .iter()
            .map(|v| fit_of(&m, t, base, v, prior_weight))
            .collect())
    }
}

/// A variant's delta from the measured scores, less `prior_weight` × its
/// prior (−∞ when it was not measured).
fn fit_of(
    m: &HashMap<String, f64>,
    t: &Transcript,
    base: &str,
    variant: &str,
    prior_weight: f64,
) -> f64 {
    let delta = m
        .get(&fit_key(t, base, variant))
        .copied()
        .unwrap_or(f64::NEG_INFINITY);
    let prior = m.get(&prior_key(t, base, variant)).copied();
    less_prior(t.lang, base, variant, delta, prior, prior_weight)
}

/// How a variant's score against silence is remembered.
fn prior_key(t: &Transcript, base: &str, variant: &str) -> String {
    format!("prior | {}", fit_key(t, base, variant))
}

/// How a delta is remembered: the variant's text when it was compared
/// with the transcript itself, else "base → variant".
fn fit_key(t: &Transcript, base: &str, variant: &str) -> String {
    if base == t.text {
        variant.to_string()
    } else {
        format!("{base} → {variant}")
    }
}

/// The settings whose re-examined variants [`Fits::Sweep`] measures (which
/// differences are re-examined, and so which run together, depends on the
/// other rules; the margin does not change which variants are asked for).
fn swept_settings() -> impl Iterator<Item = FairnessSettings> {
    [true, false].into_iter().flat_map(|tone| {
        SWEPT_LOW_CONFIDENCE
            .into_iter()
            .map(move |low| FairnessSettings {
                low_confidence_below: low,
                tone_is_uncertain: tone,
                recheck_margin: Some(0.0),
                accept_from: None,
                material_context: true,
                prior_weight: 0.0,
                tone_accept_from: None,
            })
    })
}

/// The low-confidence thresholds the bench sweeps.
pub const SWEPT_LOW_CONFIDENCE: [f32; 4] = [0.0, 0.5, 0.8, 0.9];

fn edit_distance<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(x != y))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Comparable units: hanzi for Mandarin, lower-case words for English.
fn units_of(text: &str, lang: Lang) -> Vec<String> {
    match lang {
        Lang::Zh => text
            .chars()
            .filter(|c| is_hanzi(*c))
            .map(|c| c.to_string())
            .collect(),
        Lang::En => text
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect(),
    }
}

/// Toneless syllables of hanzi (the first reading of each).
fn syllables(units: &[String]) -> Vec<String> {
    units
        .iter()
        .map(|u| {
            u.chars()
                .next()
                .and_then(|c| c.to_pinyin())
                .map(|p| p.plain().to_string())
                .unwrap_or_else(|| u.clone())
        })
        .collect()
}

/// The figures over a set of heard clips under one fairness setting.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    pub clips: usize,
    pub zh_chars: usize,
    pub zh_char_errors: usize,
    pub zh_syllable_errors: usize,
    pub en_words: usize,
    pub en_word_errors: usize,
    pub expected_errors: usize,
    /// Expected errors matched by a certain error of any type on its line or
    /// the next one over: the issue's definition ("an error, not a re-ask,
    /// reported within a line of it").
    pub found_certain: usize,
    /// … by a certain error of the same type (a swap told as a swap, not as
    /// a character left out and another added): the stricter figure.
    pub found_certain_same_type: usize,
    /// … by a certain or an uncertain error (the child is asked to repeat).
    pub found_any: usize,
    pub clean_clips: usize,
    /// Clean clips (no expected error) with any certain error.
    pub false_alarm_clips: usize,
    /// Clean clips without a certain error where the child is still asked to
    /// say something again (the price of the fairness rules).
    pub clean_asked_again: usize,
    /// Each certain error on a clean clip: "clip: type line N expected → heard".
    pub false_alarms: Vec<String>,
    /// Each expected error not found as an error: "clip (note): type line N re-asked|not found".
    pub missed: Vec<String>,
    pub no_speech: usize,
}

impl Figures {
    pub fn cer(&self) -> f64 {
        ratio(self.zh_char_errors, self.zh_chars)
    }
    pub fn syllable_er(&self) -> f64 {
        ratio(self.zh_syllable_errors, self.zh_chars)
    }
    pub fn wer(&self) -> f64 {
        ratio(self.en_word_errors, self.en_words)
    }
    pub fn found_certain_rate(&self) -> f64 {
        ratio(self.found_certain, self.expected_errors)
    }
    pub fn found_certain_same_type_rate(&self) -> f64 {
        ratio(self.found_certain_same_type, self.expected_errors)
    }
    pub fn found_any_rate(&self) -> f64 {
        ratio(self.found_any, self.expected_errors)
    }
    pub fn clean_asked_again_rate(&self) -> f64 {
        ratio(self.clean_asked_again, self.clean_clips)
    }
    pub fn false_alarm_rate(&self) -> f64 {
        ratio(self.false_alarm_clips, self.clean_clips)
    }
    /// Clean clips with no certain error and nothing to say again.
    pub fn clean_passed(&self) -> usize {
        self.clean_clips - self.false_alarm_clips - self.clean_asked_again
    }
    pub fn clean_passed_rate(&self) -> f64 {
        ratio(self.clean_passed(), self.clean_clips)
    }

    /// Adds another set of clips' figures to these.
    pub fn add(&mut self, o: &Figures) {
        self.clips += o.clips;
        self.zh_chars += o.zh_chars;
        self.zh_char_errors += o.zh_char_errors;
        self.zh_syllable_errors += o.zh_syllable_errors;
        self.en_words += o.en_words;
        self.en_word_errors += o.en_word_errors;
        self.expected_errors += o.expected_errors;
        self.found_certain += o.found_certain;
        self.found_certain_same_type += o.found_certain_same_type;
        self.found_any += o.found_any;
        self.clean_clips += o.clean_clips;
        self.false_alarm_clips += o.false_alarm_clips;
        self.clean_asked_again += o.clean_asked_again;
        self.false_alarms.extend(o.false_alarms.iter().cloned());
        self.missed.extend(o.missed.iter().cloned());
        self.no_speech += o.no_speech;
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Matches expected errors to reported ones (line ±1, of the same type when
/// `same_type`, each used once): whether each expected error was found.
fn found(
    expected: &[ExpectedError],
    reported: &[(ErrorType, usize)],
    same_type: bool,
) -> Vec<bool> {
    let mut used = vec![false; reported.len()];
    expected
        .iter()
        .map(|e| {
            let hit = reported.iter().enumerate().position(|(i, (t, line))| {
                !used[i] && (!same_type || t.as_str() == e.error_type) && line.abs_diff(e.line) <= 1
            });
            if let Some(i) = hit {
                used[i] = true;
            }
            hit.is_some()
        })
        .collect()
}

/// The verdict on one heard clip (None when nothing was heard or the reference is unusable).
pub fn verdict_of(h: &HeardClip, settings: &FairnessSettings) -> Option<VoiceVerdict> {
    let reference = Reference::new(&h.clip.reference, None).ok()?;
    let empty = Transcript {
        lang: h.clip.lang(),
        text: String::new(),
        raw_text: String::new(),
        units: vec![],
        flags: vec![],
        audio_ms: 0,
        asr_ms: 0,
        audio_id: 0,
    };
    let heard = h.transcript.as_ref().unwrap_or(&empty);
    let fit = |base: &str, texts: Vec<String>| -> Result<Vec<f64>, AsrError> {
        Ok(texts
            .iter()
            .map(|t| fit_of(&h.fits, heard, base, t, settings.prior_weight))
            .collect())
    };
    if h.fits.is_empty() {
        judge(&reference, heard, settings).ok()
    } else {
        judge_with_fit(&reference, heard, settings, &fit).ok()
    }
}

/// Scores heard clips under `settings`.
pub fn score<'a>(
    heard: impl IntoIterator<Item = &'a HeardClip>,
    settings: &FairnessSettings,
) -> Figures {
    let mut f = Figures::default();
    for h in heard {
        f.add(&score_clip(h, settings));
    }
    f
}

/// The figures of one heard clip under `settings`.
pub fn score_clip(h: &HeardClip, settings: &FairnessSettings) -> Figures {
    let mut f = Figures {
        clips: 1,
        ..Default::default()
    };
    let lang = h.clip.lang();
    let said = units_of(&h.clip.transcript, lang);
    let got = h
        .transcript
        .as_ref()
        .map(|t| units_of(&t.text, lang))
        .unwrap_or_default();
    if h.transcript.is_none() {
        f.no_speech += 1;
    }
    match lang {
        Lang::Zh => {
            f.zh_chars += said.len();
            f.zh_char_errors += edit_distance(&said, &got);
            f.zh_syllable_errors += edit_distance(&syllables(&said), &syllables(&got));
        }
        Lang::En => {
            f.en_words += said.len();
            f.en_word_errors += edit_distance(&said, &got);
        }
    }
    let Some(v) = verdict_of(h, settings) else {
        return f;
    };
    let certain: Vec<(ErrorType, usize)> =
        v.certain_errors().map(|e| (e.error_type, e.line)).collect();
    let all: Vec<(ErrorType, usize)> = v
        .verdict
        .errors
        .iter()
        .map(|e| (e.error_type, e.line))
        .collect();
    f.expected_errors += h.clip.expected_errors.len();
    let as_errors = found(&h.clip.expected_errors, &certain, false);
    let any = found(&h.clip.expected_errors, &all, false);
    f.found_certain += as_errors.iter().filter(|f| **f).count();
    f.found_certain_same_type += found(&h.clip.expected_errors, &certain, true)
        .iter()
        .filter(|f| **f)
        .count();
    f.found_any += any.iter().filter(|f| **f).count();
    for ((e, as_error), any) in h.clip.expected_errors.iter().zip(as_errors).zip(any) {
        if !as_error {
            f.missed.push(format!(
                "{} ({}): {} line {} {}",
                h.clip.id,
                h.clip.note,
                e.error_type,
                e.line,
                if any { "re-asked" } else { "not found" }
            ));
        }
    }
    if h.clip.expected_errors.is_empty() {
        f.clean_clips += 1;
        if !certain.is_empty() {
            f.false_alarm_clips += 1;
        } else if !v.uncertain.is_empty() {
            f.clean_asked_again += 1;
        }
        for e in v.certain_errors() {
            f.false_alarms.push(format!(
                "{}: {} line {} {:?} → {:?}",
                h.clip.id,
                e.error_type.as_str(),
                e.line,
                e.expected,
                e.actual
            ));
        }
    }
    f
}

/// The fairness settings cross-validation chooses among.
pub fn settings_grid() -> Vec<FairnessSettings> {
    let mut grid = Vec::new();
    for accept_from in [
        None,
        Some(-14.0),
        Some(-12.0),
        Some(-10.0),
        Some(-8.0),
        Some(-6.0),
        Some(-4.0),
        Some(-3.0),
        Some(-2.0),
        Some(-1.0),
        Some(0.0),
        Some(1.0),
        Some(2.0),
        Some(4.0),
    ] {
        for margin in [4.0, 6.0, 8.0, 10.0, 12.0, 15.0] {
            for tone in [true, false] {
                for low in [0.0, 0.5, 0.8] {
                    for material_context in [false, true] {
                        for prior_weight in [0.0, 0.5, 1.0] {
                            // A tone threshold only counts below the
                            // general one.
                            for tone_accept_from in [None, Some(-11.0), Some(-13.0)]
                                .into_iter()
                                .filter(|t| match (t, accept_from) {
                                    (None, _) | (Some(_), None) => true,
                                    (Some(t), Some(a)) => *t < a,
                                })
                            {
                                grid.push(FairnessSettings {
                                    low_confidence_below: low,
                                    tone_is_uncertain: tone,
                                    recheck_margin: Some(margin),
                                    accept_from,
                                    material_context,
                                    prior_weight,
                                    tone_accept_from,
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    grid
}

/// What choosing settings minimises on the training poems, summed over the
/// sets: a weighted sum of the shortfalls — a false error (a child told a
/// right line is wrong), a slip not found even as a re-ask, a re-asked clean
/// recitation, a slip found only as a re-ask.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    pub false_error: f64,
    pub clean_not_passed: f64,
    pub slip_not_an_error: f64,
    pub slip_not_found: f64,
}

impl Default for Cost {
    /// A false error and a slip missed altogether weigh most: both are the
    /// teacher getting it wrong, where a re-ask only costs a little time.
    fn default() -> Self {
        Self {
            false_error: 5.0,
            clean_not_passed: 1.0,
            slip_not_an_error: 1.0,
            slip_not_found: 4.0,
        }
    }
}

impl Cost {
    /// Parses "false,clean,error,found" (e.g. "5,1,1,4").
    pub fn parse(s: &str) -> Option<Self> {
        let w: Vec<f64> = s
            .split(',')
            .map(|x| x.trim().parse().ok())
            .collect::<Option<_>>()?;
        match w[..] {
            [false_error, clean_not_passed, slip_not_an_error, slip_not_found] => Some(Self {
                false_error,
                clean_not_passed,
                slip_not_an_error,
                slip_not_found,
            }),
            _ => None,
        }
    }

    pub fn of(&self, f: &Figures) -> f64 {
        self.false_error * f.false_alarm_rate()
            + self.clean_not_passed * (1.0 - f.clean_passed_rate())
            + self.slip_not_an_error * (1.0 - f.found_certain_rate())
            + self.slip_not_found * (1.0 - f.found_any_rate())
    }
}

/// Cross-validation across poems: the poems (by reference text) are dealt
/// into `folds` folds; for each fold, the settings of `grid` with the least
/// [`Cost`] summed over every set's clips of the *other* poems are chosen,
/// and the fold's own clips are scored with them. Returns, per set, the
/// held-out figures summed over the folds, and the settings each fold chose.
pub fn cross_validate(
    sets: &[&[HeardClip]],
    grid: &[FairnessSettings],
    folds: usize,
    cost: &Cost,
) -> (Vec<Figures>, Vec<FairnessSettings>) {
    let folds = folds.max(2);
    let mut poems: Vec<&str> = sets
        .iter()
        .flat_map(|s| s.iter().map(|h| h.clip.reference.as_str()))
        .collect();
    poems.sort_unstable();
    poems.dedup();
    let fold_of = |h: &HeardClip| {
        poems
            .iter()
            .position(|p| *p == h.clip.reference)
            .unwrap_or(0)
            % folds
    };
    // Each clip's figures under each setting, computed once.
    let per_clip: Vec<Vec<Vec<Figures>>> = grid
        .iter()
        .map(|s| {
            sets.iter()
                .map(|set| set.iter().map(|h| score_clip(h, s)).collect())
                .collect()
        })
        .collect();
    let mut held_out = vec![Figures::default(); sets.len()];
    let mut chosen = Vec::new();
    for fold in 0..folds {
        let train_cost = |g: usize| -> f64 {
            sets.iter()
                .enumerate()
                .map(|(k, set)| {
                    let mut f = Figures::default();
                    for (i, h) in set.iter().enumerate() {
                        if fold_of(h) != fold {
                            f.add(&per_clip[g][k][i]);
                        }
                    }
                    cost.of(&f)
                })
                .sum()
        };
        let Some(best) = (0..grid.len()).min_by(|a, b| train_cost(*a).total_cmp(&train_cost(*b)))
        else {
            continue;
        };
        chosen.push(grid[best]);
        for (k, set) in sets.iter().enumerate() {
            for (i, h) in set.iter().enumerate() {
                if fold_of(h) == fold {
                    held_out[k].add(&per_clip[best][k][i]);
                }
            }
        }
    }
    (held_out, chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_substitutions_insertions_deletions() {
        let a: Vec<char> = "床前明月光".chars().collect();
        let b: Vec<char> = "床前明越光光".chars().collect();
        assert_eq!(edit_distance(&a, &b), 2);
        assert_eq!(edit_distance::<char>(&[], &a), 5);
    }

    #[test]
    fn syllables_ignore_tones() {
        let a = units_of("疑是", Lang::Zh);
        let b = units_of("一世", Lang::Zh);
        assert_eq!(edit_distance(&a, &b), 2);
        assert_eq!(syllables(&a), vec!["yi", "shi"]);
        assert_eq!(edit_distance(&syllables(&a), &syllables(&b)), 0);
    }

    #[test]
    fn expected_errors_match_an_error_on_a_nearby_line_of_the_same_type_if_asked() {
        let e = vec![ExpectedError {
            error_type: "omission".into(),
            line: 2,
        }];
        assert_eq!(found(&e, &[(ErrorType::Omission, 3)], true), vec![true]);
        assert_eq!(found(&e, &[(ErrorType::Omission, 4)], true), vec![false]);
        assert_eq!(
            found(&e, &[(ErrorType::Substitution, 2)], true),
            vec![false]
        );
        // The definition: any error within a line.
        assert_eq!(
            found(&e, &[(ErrorType::Substitution, 2)], false),
            vec![true]
        );
        assert_eq!(found(&e, &[(ErrorType::Omission, 4)], false), vec![false]);
        // Each reported error finds one expected error.
        let two = vec![e[0].clone(), e[0].clone()];
        assert_eq!(
            found(&two, &[(ErrorType::Order, 1)], false),
            vec![true, false]
        );
    }
}
