//! The attempts behind a parent's report, listed one by one (material,
//! accuracy, passed, review or learning, when), so a parent sees what the
//! report's figures count. The period is the report's own
//! (`period_start`..`period_end`, RFC 3339 UTC).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::recite::{HistoryFilter, Purpose};
use crate::{AppError, AppResult, Deskmate};

/// At most this many attempts are listed for one period.
pub const LISTED_MAX: usize = 200;

/// One attempt as a report lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ListedAttempt {
    pub id: String,
    pub material_id: String,
    pub title: String,
    pub mode: String,
    pub accuracy: f64,
    pub passed: bool,
    pub purpose: Purpose,
    /// The attempt's number within its practice session.
    pub attempt_no: u32,
    pub created_at: String,
}

fn instant(what: &str, value: &str) -> AppResult<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(value)
        .map(|d| d.with_timezone(&Utc))
        .map_err(|_| {
            AppError::Invalid(format!(
                "the {what} {value:?} is not a time like 2026-11-22T00:00:00Z"
            ))
        })
}

impl Deskmate {
    /// A child's attempts in `[from, to)` (RFC 3339), oldest first.
    pub fn attempts_between(
        &self,
        profile_id: &str,
        from: &str,
        to: &str,
    ) -> AppResult<Vec<ListedAttempt>> {
        let filter = HistoryFilter {
            material_id: None,
            from: Some(instant("period start", from)?),
            to: Some(instant("period end", to)?),
            limit: LISTED_MAX,
        };
        let mut records = self.recitation_history(profile_id, &filter)?;
        records.reverse();
        let mut titles: HashMap<String, String> = HashMap::new();
        let mut out = Vec::with_capacity(records.len());
        for r in records {
            let title = match titles.get(&r.material_id) {
                Some(t) => t.clone(),
                None => {
                    let t = self
                        .store()
                        .materials()
                        .get(&r.material_id)
                        .map(|m| m.title)
                        .unwrap_or_default();
                    titles.insert(r.material_id.clone(), t.clone());
                    t
                }
            };
            out.push(ListedAttempt {
                id: r.id,
                material_id: r.material_id,
                title,
                mode: r.mode,
                accuracy: r.accuracy,
                passed: r.passed,
                purpose: r.purpose,
                attempt_no: r.attempt_no,
                created_at: r.created_at,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recite::{Mode, NewAttempt, Transcript};
    use crate::Config;
    use chrono::TimeZone;

    #[test]
    fn lists_the_period_s_attempts_oldest_first_with_titles() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let (child, poem) = deskmate_testkit::family::child_with_jing_ye_si(app.store());
        let at = |h| Utc.with_ymd_and_hms(2026, 3, 2, h, 0, 0).unwrap();
        let session = Some("s1".to_string());
        for (hour, text) in [
            (1, "床前明月光，举头望明月，低头思故乡。"),
            (2, "床前明月光，疑是地上霜。举头望明月，低头思故乡。"),
        ] {
            app.record_attempt(NewAttempt {
                profile_id: child.id.clone(),
                material_id: poem.id.clone(),
                transcript: Transcript::new(text),
                mode: Mode::Text,
                at: at(hour),
                duration_ms: None,
                session_id: session.clone(),
            })
            .unwrap();
        }
        let listed = app
            .attempts_between(&child.id, "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z")
            .unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!((listed[0].attempt_no, listed[0].passed), (1, false));
        assert_eq!((listed[1].attempt_no, listed[1].passed), (2, true));
        assert!(listed
            .iter()
            .all(|a| a.title == "静夜思" && a.mode == "text"));
        assert!(listed[0].accuracy < listed[1].accuracy);
        // Outside the period: none.
        assert!(app
            .attempts_between(&child.id, "2026-03-03T00:00:00Z", "2026-03-04T00:00:00Z")
            .unwrap()
            .is_empty());
        let bad = app
            .attempts_between(&child.id, "yesterday", "2026-03-04T00:00:00Z")
            .unwrap_err()
            .to_string();
        assert!(bad.contains("not a time"), "{bad}");
    }
}
