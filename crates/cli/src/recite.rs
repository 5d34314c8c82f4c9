//! `deskmate recite`, `deskmate reviews` and `deskmate report`: check a
//! recitation, record a child's attempt, list due reviews, build reports.
//! The command lines and the `--batch` JSON are a contract that tools and
//! tests depend on; extend them only with optional flags.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use chrono::{DateTime, NaiveDate, Utc};
use clap::{Args, Subcommand};
use deskmate_app::recite::{
    check, AttemptOutcome, DueReview, Judgement, Lang, Mode, NewAttempt, Reference, Report,
    ReportType, Transcript, Verdict, DEFAULT_PASS_THRESHOLD,
};
use deskmate_app::Deskmate;
use deskmate_protocol::{CheckedError, CheckedLine, LineFailure};
use serde::Deserialize;
use serde_json::Value;

use crate::output;

#[derive(Subcommand)]
pub enum ReciteCmd {
    /// Check a transcript against a reference text (no profile, nothing stored).
    Check(CheckArgs),
    /// Record a child's attempt at a material: history, error patterns, review schedule, feedback.
    Attempt(AttemptArgs),
    /// Hear a recorded recitation offline (VAD + whisper) and check it fairly.
    Audio(crate::speech::ReciteAudioArgs),
}

#[derive(Args)]
pub struct CheckArgs {
    /// The text to recite.
    #[arg(long, required_unless_present = "batch", conflicts_with = "batch")]
    reference: Option<String>,
    /// What was said (speech recognition) or typed.
    #[arg(long, required_unless_present = "batch", conflicts_with = "batch")]
    transcript: Option<String>,
    /// voice compares by sound and forgives fillers and restarts; text compares exact characters.
    #[arg(long, value_parser = ["voice", "text"], default_value = "voice")]
    mode: String,
    /// Language of the reference (detected when not given).
    #[arg(long, value_parser = ["zh", "en"])]
    lang: Option<String>,
    /// Read JSON lines {"id","reference","transcript","mode","lang"} from FILE (`-` for standard input) and print one JSON line per input; --mode, --lang and --pass-threshold apply to lines that do not set their own.
    #[arg(long, value_name = "FILE")]
    batch: Option<PathBuf>,
    /// Pass mark in percent.
    #[arg(long, default_value_t = DEFAULT_PASS_THRESHOLD)]
    pass_threshold: f64,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct AttemptArgs {
    /// The child's profile (id or name).
    #[arg(long)]
    profile: String,
    /// The material (id, built-in slug such as zh/jing-ye-si, or unique title).
    #[arg(long)]
    material: String,
    #[arg(long)]
    transcript: String,
    #[arg(long, value_parser = ["voice", "text"], default_value = "voice")]
    mode: String,
    /// When the child recited (RFC 3339; default now).
    #[arg(long)]
    at: Option<String>,
    /// How long the child recited, in seconds (estimated from the text when not given).
    #[arg(long)]
    duration_secs: Option<f64>,
    /// The practice session id, when the caller tracks sessions.
    #[arg(long)]
    session: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
pub enum ReviewsCmd {
    /// Materials whose review is due by the end of the day (in the child's time zone).
    Due {
        /// The child's profile (id or name).
        #[arg(long)]
        profile: String,
        /// The moment to ask about (RFC 3339; default now).
        #[arg(long)]
        at: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
pub struct ReportArgs {
    /// daily or weekly (the week, Monday to Sunday, that contains --date).
    #[arg(value_parser = ["daily", "weekly"])]
    kind: String,
    /// The child's profile (id or name).
    #[arg(long)]
    profile: String,
    /// A day in the child's time zone, YYYY-MM-DD.
    #[arg(long)]
    date: String,
    /// Also list the attempts the report counts, one by one (as the parent's report screen does).
    #[arg(long)]
    attempts: bool,
    /// Weekly only: write the report as a picture or a PDF to keep
    /// (FILE ending in .png or .pdf); a certificate when the week's goals were met.
    #[arg(long, value_name = "FILE", conflicts_with = "attempts")]
    save: Option<std::path::PathBuf>,
    #[arg(long)]
    json: bool,
}

fn parse_at(at: Option<&str>) -> anyhow::Result<DateTime<Utc>> {
    match at {
        None => Ok(Utc::now()),
        Some(s) => Ok(DateTime::parse_from_rfc3339(s)
            .with_context(|| {
                format!("--at {s:?} is not an RFC 3339 time (e.g. 2026-03-02T08:30:00+08:00)")
            })?
            .with_timezone(&Utc)),
    }
}

/// `deskmate recite check` runs without opening the data directory: a check is a pure function.
pub fn run_check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    if !(0.0..=100.0).contains(&args.pass_threshold) {
        bail!("--pass-threshold must be between 0 and 100");
    }
    let mode: Mode = args.mode.parse()?;
    let lang: Option<Lang> = args.lang.as_deref().map(str::parse).transpose()?;
    if let Some(path) = &args.batch {
        let defaults = BatchDefaults {
            mode,
            lang,
            threshold: args.pass_threshold,
        };
        return run_batch(path, defaults);
    }
    let (Some(reference), Some(transcript)) = (args.reference, args.transcript) else {
        bail!("give --reference and --transcript, or --batch FILE");
    };
    let reference = Reference::new(&reference, lang)?;
    let verdict = check(&reference, &Transcript::new(transcript), mode)?;
    let judged = Judgement::new(&reference, verdict, args.pass_threshold);
    if args.json {
        output::json(&judged)?;
    } else {
        print_verdict(&judged.verdict, judged.passed);
        println!("{}", judged.feedback.zh);
        println!("{}", judged.feedback.en);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_verdict(v: &Verdict, passed: bool) {
    println!(
        "accuracy {}% ({}/{} {}) — {}",
        v.accuracy,
        v.correct,
        v.units,
        if v.lang == Lang::Zh {
            "characters"
        } else {
            "words"
        },
        if passed { "passed" } else { "not passed yet" }
    );
    for e in &v.errors {
        let uncertain = if e.uncertain { " (uncertain)" } else { "" };
        println!(
            "  line {} offset {}: {} / {} ({} · {}) expected {:?} got {:?}{uncertain}",
            e.line,
            e.offset,
            e.error_type.as_str(),
            e.kind.as_str(),
            e.label_zh,
            e.label_en,
            e.expected,
            e.actual
        );
    }
}

#[derive(Deserialize)]
struct BatchLine {
    #[serde(default)]
    id: Value,
    reference: String,
    transcript: String,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    lang: Option<String>,
}

/// What a batch line does not set itself: the command line's `--mode`,
/// `--lang` and `--pass-threshold`.
struct BatchDefaults {
    mode: Mode,
    lang: Option<Lang>,
    threshold: f64,
}

/// The longest batch line read: a reference at the library's limit and a
/// transcript four times as long fit many times over. A longer line is that
/// line's error, refused before it is held in memory or parsed.
const MAX_BATCH_LINE_BYTES: usize = 1 << 20;

fn check_line(line: &str, defaults: &BatchDefaults) -> Result<CheckedLine, (Value, String)> {
    let input: BatchLine = serde_json::from_str(line).map_err(|e| {
        let id = serde_json::from_str::<Value>(line).ok().and_then(|v| v.get("id").cloned()).unwrap_or(Value::Null);
        (id, format!("not a check request ({e}); expected {{\"id\",\"reference\",\"transcript\",\"mode\",\"lang\"}}"))
    })?;
    let id = input.id.clone();
    let fail = |e: String| (id.clone(), e);
    let mode: Mode = match input.mode.as_deref().filter(|m| !m.is_empty()) {
        Some(m) => m.parse().map_err(|e| fail(format!("{e}")))?,
        None => defaults.mode,
    };
    let lang: Option<Lang> = match input.lang.as_deref().filter(|l| !l.is_empty()) {
        Some(l) => Some(l.parse().map_err(|e| fail(format!("{e}")))?),
        None => defaults.lang,
    };
    let reference = Reference::new(&input.reference, lang).map_err(|e| fail(e.to_string()))?;
    let v = check(&reference, &Transcript::new(input.transcript), mode)
        .map_err(|e| fail(e.to_string()))?;
    Ok(CheckedLine {
        id: input.id,
        accuracy: v.accuracy,
        passed: v.passed(defaults.threshold),
        units: v.units,
        correct: v.correct,
        errors: v
            .errors
            .iter()
            .map(|e| CheckedError {
                error_type: e.error_type.as_str().to_string(),
                kind: e.kind.as_str().to_string(),
                line: e.line,
                offset: e.offset,
                expected: e.expected.clone(),
                actual: e.actual.clone(),
            })
            .collect(),
    })
}

/// One raw line of a batch, or how long it was when it is over the limit.
enum RawLine {
    Bytes(Vec<u8>),
    TooLong(usize),
}

/// Reads up to the next newline, keeping at most `max` bytes: the rest of a
/// longer line is read past without being stored.
fn read_line(reader: &mut dyn BufRead, max: usize) -> std::io::Result<Option<RawLine>> {
    let mut kept = Vec::new();
    let mut total = 0usize;
    let mut any = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        total += chunk.len();
        if total <= max {
            kept.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(buf.len());
        reader.consume(used);
        if done.is_some() {
            break;
        }
    }
    Ok(match (any, total > max) {
        (false, _) => None,
        (true, true) => Some(RawLine::TooLong(total)),
        (true, false) => Some(RawLine::Bytes(kept)),
    })
}

/// One JSON line out per JSON line in; a line that cannot be checked (bad
/// JSON, not UTF-8, too long) gets `{"id", "error"}`, the others go on, and
/// the exit code is 1 once all lines are done. A UTF-8 byte-order mark at the
/// start is skipped.
fn run_batch(path: &PathBuf, defaults: BatchDefaults) -> anyhow::Result<ExitCode> {
    let mut reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        if path.is_dir() {
            bail!(
                "{} is a folder; --batch takes a file of JSON lines (or - for standard input)",
                path.display()
            );
        }
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        Box::new(BufReader::new(file))
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = 0usize;
    let mut n = 0usize;
    while let Some(raw) = read_line(reader.as_mut(), MAX_BATCH_LINE_BYTES)
        .with_context(|| format!("cannot read {}", path.display()))?
    {
        n += 1;
        let checked = match raw {
            RawLine::TooLong(len) => Err((
                Value::Null,
                format!(
                    "the line is too long ({len} bytes; at most {MAX_BATCH_LINE_BYTES} are read)"
                ),
            )),
            RawLine::Bytes(mut bytes) => {
                if n == 1 && bytes.starts_with(b"\xEF\xBB\xBF") {
                    bytes.drain(..3);
                }
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
                match String::from_utf8(bytes) {
                    Err(e) => Err((
                        Value::Null,
                        format!(
                            "not UTF-8 text (a bad byte at {})",
                            e.utf8_error().valid_up_to()
                        ),
                    )),
                    Ok(line) if line.trim().is_empty() => continue,
                    Ok(line) => check_line(&line, &defaults),
                }
            }
        };
        let json = match checked {
            Ok(result) => serde_json::to_string(&result)?,
            Err((id, error)) => {
                failed += 1;
                serde_json::to_string(&LineFailure {
                    id,
                    error: format!("line {n}: {error}"),
                })?
            }
        };
        writeln!(out, "{json}")?;
    }
    out.flush()?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub fn run(app: &Deskmate, cmd: ReciteCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        ReciteCmd::Check(args) => run_check(args),
        ReciteCmd::Audio(a) => crate::speech::run_recite_audio(app, a),
        ReciteCmd::Attempt(a) => {
            let profile = app.find_profile(&a.profile)?;
            let material = app.find_material(&a.material)?;
            let duration_ms = match a.duration_secs {
                Some(s) if !(0.0..=86_400.0).contains(&s) => {
                    bail!("--duration-secs must be between 0 and 86400")
                }
                Some(s) => Some((s * 1000.0).round() as u64),
                None => None,
            };
            let outcome = app.record_attempt(NewAttempt {
                profile_id: profile.id,
                material_id: material.id,
                transcript: Transcript::new(a.transcript),
                mode: a.mode.parse()?,
                at: parse_at(a.at.as_deref())?,
                duration_ms,
                session_id: a.session,
            })?;
            if a.json {
                output::json(&outcome)?;
            } else {
                print_outcome(&outcome);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn print_outcome(o: &AttemptOutcome) {
    println!(
        "{} — attempt {} of this session ({}), recorded as {}",
        o.title,
        o.attempt_no,
        if o.purpose == deskmate_app::recite::Purpose::Review {
            "review"
        } else {
            "first learning"
        },
        o.attempt_id
    );
    print_verdict(&o.verdict, o.passed);
    if o.first_pass {
        println!("first pass of this material!");
    }
    if let Some(s) = &o.schedule {
        println!(
            "next review in {} day(s), {} (rated {:?})",
            s.interval_days, s.next_review_at, s.rating
        );
    }
    println!("{}", o.feedback.zh);
    println!("{}", o.feedback.en);
}

pub fn run_reviews(app: &Deskmate, cmd: ReviewsCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        ReviewsCmd::Due { profile, at, json } => {
            let profile = app.find_profile(&profile)?;
            let due: Vec<DueReview> = app.reviews_due(&profile.id, parse_at(at.as_deref())?)?;
            if json {
                output::json(&due)?;
            } else if due.is_empty() {
                println!("no reviews due for {}", profile.name);
            } else {
                for d in due {
                    let overdue = if d.overdue_days > 0 {
                        format!(" ({} day(s) overdue)", d.overdue_days)
                    } else {
                        String::new()
                    };
                    println!(
                        "{}  {} {} — due {}{overdue}",
                        d.material_id, d.lang, d.title, d.next_review_at
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

pub fn run_report(app: &Deskmate, a: ReportArgs) -> anyhow::Result<ExitCode> {
    let profile = app.find_profile(&a.profile)?;
    let date = NaiveDate::parse_from_str(&a.date, "%Y-%m-%d")
        .with_context(|| format!("--date {:?} is not YYYY-MM-DD", a.date))?;
    let kind: ReportType = if a.kind == "weekly" {
        ReportType::Weekly
    } else {
        ReportType::Daily
    };
    if let Some(out) = &a.save {
        if kind != ReportType::Weekly {
            anyhow::bail!(
                "--save writes a weekly report: use `deskmate report weekly --save FILE`"
            );
        }
        let written = app.save_report_keepsake(&profile.id, date, out, None, Utc::now())?;
        if a.json {
            output::json(&written)?;
        } else {
            let what = if written.certificate {
                "a certificate: every goal of the week was met"
            } else if written.goals.is_empty() {
                "the week's report (no goals set, so no certificate)"
            } else {
                "the week's report (not every goal met, so no certificate yet)"
            };
            println!("wrote {} ({} bytes): {what}", written.file, written.bytes);
            for g in &written.goals {
                let mark = if g.met { "met" } else { "not met" };
                println!("  {}: {}/{} {mark}", g.kind, g.done, g.target);
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let report = app.report(&profile.id, kind, date, Utc::now())?;
    let attempts = if a.attempts {
        Some(app.attempts_between(&profile.id, &report.period_start, &report.period_end)?)
    } else {
        None
    };
    if a.json {
        match attempts {
            // The report's own fields, plus the attempts behind its figures.
            Some(attempts) => {
                let mut value = serde_json::to_value(&report)?;
                if let Value::Object(map) = &mut value {
                    map.insert("attempts".into(), serde_json::to_value(&attempts)?);
                }
                output::json(&value)?;
            }
            None => output::json(&report)?,
        }
    } else {
        print_report(&profile.name, &report);
        for t in attempts.iter().flatten() {
            let mark = if t.passed { "passed" } else { "not passed" };
            println!(
                "  {}  {} #{} {:.1}% {mark} ({}, {})",
                t.created_at,
                t.title,
                t.attempt_no,
                t.accuracy,
                t.mode,
                t.purpose.as_str()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report(name: &str, r: &Report) {
    let s = &r.summary;
    let period = match r.report_type {
        ReportType::Daily => format!("{}", r.report_date),
        ReportType::Weekly => format!("week of {}", r.report_date),
    };
    println!(
        "{name} — {} report, {period} ({})",
        r.report_type.as_str(),
        r.time_zone
    );
    let avg = s
        .average_accuracy
        .map_or_else(|| "—".to_string(), |a| format!("{a}%"));
    println!(
        "  {} attempt(s), {} min, average accuracy {avg}, {} pass(es), {} first pass(es), {} material(s) mastered",
        s.attempts, s.minutes, s.passes, s.first_passes, s.materials_mastered
    );
    let delta = r
        .trend
        .average_accuracy
        .map_or_else(String::new, |d| format!(", accuracy {d:+} points"));
    println!(
        "  trend: {} ({:+} attempt(s), {:+} min{delta})",
        r.trend.direction, r.trend.attempts, r.trend.minutes
    );
    for p in &r.top_patterns {
        println!(
            "  weak point: {} line {} — {} {:?}→{:?} ×{}",
            p.title, p.line, p.error_type, p.expected, p.actual, p.occurrences
        );
    }
    for m in &r.weakest_materials {
        println!(
            "  weakest: {} — {} attempt(s), average {}%",
            m.title, m.attempts, m.average_accuracy
        );
    }
}
