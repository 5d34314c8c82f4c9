//! Daily and weekly practice reports for parents: attempts, minutes
//! practised, average accuracy, first passes, materials mastered, the trend
//! against the previous period, and weak points (top error patterns, weakest
//! materials). Days run from midnight to midnight in the child's time zone;
//! a week runs Monday to Sunday and is stored under its Monday. Generating a
//! report again overwrites it (one row per child, type and date).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use deskmate_store::{Store, StoreError, StoreResult};

use crate::patterns;
use crate::schedule::MASTERED_INTERVAL_DAYS;
use crate::{local_day_bounds, parse_ts, time_zone, ts};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ReportType {
    Daily,
    Weekly,
}

impl ReportType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Daily => "daily",
            Self::Weekly => "weekly",
        }
    }
}

impl std::str::FromStr for ReportType {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "daily" => Ok(Self::Daily),
            "weekly" => Ok(Self::Weekly),
            other => Err(StoreError::Invalid(format!(
                "a report is daily or weekly, not {other:?}"
            ))),
        }
    }
}

/// Figures for one period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PeriodSummary {
    pub attempts: u32,
    pub minutes: f64,
    /// Mean accuracy of the attempts, `None` without attempts.
    pub average_accuracy: Option<f64>,
    pub passes: u32,
    /// Materials passed for the first time ever in this period.
    pub first_passes: u32,
    pub materials_practised: u32,
    /// Materials a review scheduled at least three weeks ahead in this period.
    pub materials_mastered: u32,
    pub reviews: u32,
}

/// Change against the previous period of the same length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Trend {
    pub attempts: i64,
    pub minutes: f64,
    /// Percentage points; `None` when either period has no attempts.
    pub average_accuracy: Option<f64>,
    /// `up`, `down`, `steady` (within 2 points), or `new` (nothing to compare).
    pub direction: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WeakPattern {
    pub material_id: String,
    pub title: String,
    pub error_type: String,
    pub line: usize,
    pub expected: String,
    pub actual: String,
    pub occurrences: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WeakMaterial {
    pub material_id: String,
    pub title: String,
    pub attempts: u32,
    pub average_accuracy: f64,
    pub passed: bool,
}

/// One local day of a weekly report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DaySummary {
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub date: NaiveDate,
    pub attempts: u32,
    pub minutes: f64,
    pub average_accuracy: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Report {
    pub profile_id: String,
    pub report_type: ReportType,
    /// The day, or the Monday of the week, in the child's time zone.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub report_date: NaiveDate,
    pub time_zone: String,
    pub period_start: String,
    pub period_end: String,
    pub summary: PeriodSummary,
    pub previous: PeriodSummary,
    pub trend: Trend,
    pub top_patterns: Vec<WeakPattern>,
    pub weakest_materials: Vec<WeakMaterial>,
    /// Weekly reports: each day of the week.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<DaySummary>>", optional))]
    pub days: Vec<DaySummary>,
    pub generated_at: String,
}

/// The report's local date and its period in UTC, `[start, end)`.
pub fn period(
    report_type: ReportType,
    date: NaiveDate,
    tz: Tz,
) -> (NaiveDate, DateTime<Utc>, DateTime<Utc>) {
    match report_type {
        ReportType::Daily => {
            let (s, e) = local_day_bounds(date, tz);
            (date, s, e)
        }
        ReportType::Weekly => {
            let monday = date - Duration::days(i64::from(date.weekday().num_days_from_monday()));
            let (s, _) = local_day_bounds(monday, tz);
            let (e, _) = local_day_bounds(monday + Duration::days(7), tz);
            (monday, s, e)
        }
    }
}

struct Row {
    material_id: String,
    accuracy: f64,
    passed: bool,
    first_pass: bool,
    duration_ms: u64,
    review: bool,
    interval_days: Option<i64>,
    created_at: String,
}

fn rows(
    store: &Store,
    profile_id: &str,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> StoreResult<Vec<Row>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT material_id, accuracy, passed, first_pass, duration_ms, purpose = 'review', interval_days, created_at
             FROM recite_attempts INDEXED BY recite_attempts_profile_created
             WHERE profile_id = ?1 AND created_at >= ?2 AND created_at < ?3",
        )?;
        let rows = stmt
            .query_map(params![profile_id, ts(from), ts(to)], |r| {
                Ok(Row {
                    material_id: r.get(0)?,
                    accuracy: r.get(1)?,
                    passed: r.get(2)?,
                    first_pass: r.get(3)?,
                    duration_ms: u64::try_from(r.get::<_, i64>(4)?).unwrap_or(0),
                    review: r.get(5)?,
                    interval_days: r.get(6)?,
                    created_at: r.get(7)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn summarize(rows: &[Row]) -> PeriodSummary {
    let n = rows.len();
    let mut materials: Vec<&str> = rows.iter().map(|r| r.material_id.as_str()).collect();
    materials.sort_unstable();
    materials.dedup();
    let mut mastered: Vec<&str> = rows
        .iter()
        .filter(|r| r.interval_days.is_some_and(|d| d >= MASTERED_INTERVAL_DAYS))
        .map(|r| r.material_id.as_str())
        .collect();
    mastered.sort_unstable();
    mastered.dedup();
    PeriodSummary {
        attempts: n as u32,
        minutes: round1(rows.iter().map(|r| r.duration_ms).sum::<u64>() as f64 / 60_000.0),
        average_accuracy: (n > 0)
            .then(|| round2(rows.iter().map(|r| r.accuracy).sum::<f64>() / n as f64)),
        passes: rows.iter().filter(|r| r.passed).count() as u32,
        first_passes: rows.iter().filter(|r| r.first_pass).count() as u32,
        materials_practised: materials.len() as u32,
        materials_mastered: mastered.len() as u32,
        reviews: rows.iter().filter(|r| r.review).count() as u32,
    }
}

fn trend(now: &PeriodSummary, before: &PeriodSummary) -> Trend {
    let accuracy = now
        .average_accuracy
        .zip(before.average_accuracy)
        .map(|(a, b)| round2(a - b));
    let direction = match accuracy {
        None => "new",
        Some(d) if d >= 2.0 => "up",
        Some(d) if d <= -2.0 => "down",
        Some(_) => "steady",
    };
    Trend {
        attempts: i64::from(now.attempts) - i64::from(before.attempts),
        minutes: round1(now.minutes - before.minutes),
        average_accuracy: accuracy,
        direction: direction.into(),
    }
}

fn titles(store: &Store, ids: &[&str]) -> StoreResult<HashMap<String, String>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached("SELECT title FROM materials WHERE id = ?1")?;
        let mut out = HashMap::new();
        for id in ids {
            if let Some(t) = stmt.query_row([id], |r| r.get::<_, String>(0)).optional()? {
                out.insert((*id).to_string(), t);
            }
        }
        Ok(out)
    })
}

/// Computes a report and stores it (overwriting an earlier one for the same
/// child, type and date).
pub fn generate(
    store: &Store,
    profile_id: &str,
    report_type: ReportType,
    date: NaiveDate,
    now: DateTime<Utc>,
) -> StoreResult<Report> {
    let profile = store.profiles().get(profile_id)?;
    let tz = time_zone(&profile.time_zone)?;
    let (report_date, start, end) = period(report_type, date, tz);
    let (prev_start, prev_end) = match report_type {
        ReportType::Daily => {
            let (_, s, e) = period(report_type, report_date - Duration::days(1), tz);
            (s, e)
        }
        ReportType::Weekly => {
            let (_, s, e) = period(report_type, report_date - Duration::days(7), tz);
            (s, e)
        }
    };
    let current = rows(store, profile_id, start, end)?;
    let previous = rows(store, profile_id, prev_start, prev_end)?;
    let summary = summarize(&current);
    let prev_summary = summarize(&previous);

    let patterns = patterns::seen_between(store, profile_id, &ts(start), &ts(end), 5)?;
    let mut by_material: BTreeMap<&str, (u32, f64, bool)> = BTreeMap::new();
    for r in &current {
        let e = by_material
            .entry(r.material_id.as_str())
            .or_insert((0, 0.0, false));
        e.0 += 1;
        e.1 += r.accuracy;
        e.2 |= r.passed;
    }
    let mut ids: Vec<&str> = by_material.keys().copied().collect();
    ids.extend(patterns.iter().map(|p| p.material_id.as_str()));
    let names = titles(store, &ids)?;
    let title = |id: &str| names.get(id).cloned().unwrap_or_default();
    let mut weakest: Vec<WeakMaterial> = by_material
        .iter()
        .map(|(id, (n, sum, passed))| WeakMaterial {
            material_id: (*id).to_string(),
            title: title(id),
            attempts: *n,
            average_accuracy: round2(sum / f64::from(*n)),
            passed: *passed,
        })
        .filter(|m| m.average_accuracy < 100.0)
        .collect();
    weakest.sort_by(|a, b| {
        a.average_accuracy
            .total_cmp(&b.average_accuracy)
            .then(b.attempts.cmp(&a.attempts))
    });
    weakest.truncate(3);
    let top_patterns = patterns
        .iter()
        .map(|p| WeakPattern {
            material_id: p.material_id.clone(),
            title: title(&p.material_id),
            error_type: p.error_type.clone(),
            line: p.line,
            expected: p.expected.clone(),
            actual: p.actual.clone(),
            occurrences: p.occurrence_count,
        })
        .collect();
    let days = match report_type {
        ReportType::Daily => Vec::new(),
        ReportType::Weekly => (0..7)
            .map(|k| {
                let day = report_date + Duration::days(k);
                let (s, e) = local_day_bounds(day, tz);
                let (s, e) = (ts(s), ts(e));
                let in_day: Vec<&Row> = current
                    .iter()
                    .filter(|r| {
                        r.created_at.as_str() >= s.as_str() && r.created_at.as_str() < e.as_str()
                    })
                    .collect();
                let n = in_day.len();
                DaySummary {
                    date: day,
                    attempts: n as u32,
                    minutes: round1(
                        in_day.iter().map(|r| r.duration_ms).sum::<u64>() as f64 / 60_000.0,
                    ),
                    average_accuracy: (n > 0)
                        .then(|| round2(in_day.iter().map(|r| r.accuracy).sum::<f64>() / n as f64)),
                }
            })
            .collect(),
    };
    let report = Report {
        profile_id: profile_id.to_string(),
        report_type,
        report_date,
        time_zone: profile.time_zone.clone(),
        period_start: ts(start),
        period_end: ts(end),
        trend: trend(&summary, &prev_summary),
        summary,
        previous: prev_summary,
        top_patterns,
        weakest_materials: weakest,
        days,
        generated_at: ts(now),
    };
    let data = serde_json::to_string(&report)
        .map_err(|e| StoreError::Invalid(format!("cannot store the report: {e}")))?;
    store.with_conn(|c| {
        c.execute(
            "INSERT INTO recite_reports (id, profile_id, report_type, report_date, time_zone, period_start, period_end, data,
                created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
             ON CONFLICT (profile_id, report_type, report_date) DO UPDATE SET
                time_zone = excluded.time_zone, period_start = excluded.period_start, period_end = excluded.period_end,
                data = excluded.data, updated_at = excluded.updated_at",
            params![
                uuid::Uuid::now_v7().to_string(),
                profile_id,
                report_type.as_str(),
                report_date.to_string(),
                report.time_zone,
                report.period_start,
                report.period_end,
                data,
                report.generated_at
            ],
        )?;
        Ok(())
    })?;
    Ok(report)
}

/// A stored report, if one was generated.
pub fn stored(
    store: &Store,
    profile_id: &str,
    report_type: ReportType,
    report_date: NaiveDate,
) -> StoreResult<Option<Report>> {
    let data: Option<String> = store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT data FROM recite_reports WHERE profile_id = ?1 AND report_type = ?2 AND report_date = ?3",
            params![profile_id, report_type.as_str(), report_date.to_string()],
            |r| r.get(0),
        )
        .optional()?)
    })?;
    data.map(|d| {
        serde_json::from_str(&d)
            .map_err(|e| StoreError::Invalid(format!("stored report is damaged: {e}")))
    })
    .transpose()
}

/// How many reports of a child are stored (for tests and the doctor).
pub fn count(store: &Store, profile_id: &str) -> StoreResult<u32> {
    store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT count(*) FROM recite_reports WHERE profile_id = ?1",
            [profile_id],
            |r| r.get(0),
        )?)
    })
}

/// Parses a stored timestamp, for callers outside the crate.
pub fn parse_time(s: &str) -> StoreResult<DateTime<Utc>> {
    parse_ts(s)
}
