//! Error patterns: the mistakes a child makes again and again, per child and
//! material, with an occurrence count, first and last seen, and a cached
//! memory tip.
//!
//! Deduplication follows the seed system's V3: first by the normalized key
//! (type, line, expected text, and what was said — by sound in voice mode, so
//! 烟 and 焉 heard for 月 are one pattern); then by core text on the same line
//! and type, where one contains the other (leaving out 地上霜 and later all
//! of 疑是地上霜 is one pattern). Patterns are created or updated inside the
//! attempt's transaction with `occurrence_count = occurrence_count + 1`, so
//! concurrent attempts never lose a count.

use rusqlite::{params, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};

use deskmate_store::{Store, StoreResult};

use crate::normalize::is_cjk;
use crate::sound;
use crate::tips::Tip;
use crate::verdict::{ErrorType, RecitationError};
use crate::Mode;

/// A recurring error of one child on one material.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorPattern {
    pub id: String,
    pub profile_id: String,
    pub material_id: String,
    pub error_type: String,
    pub kind: String,
    pub line: usize,
    pub pattern_key: String,
    pub core_text: String,
    pub expected: String,
    pub actual: String,
    pub occurrence_count: u32,
    pub first_seen_at: String,
    pub last_seen_at: String,
    pub tip: Option<Tip>,
    pub tip_source: Option<String>,
}

const COLUMNS: &str = "id, profile_id, material_id, error_type, kind, line, pattern_key, core_text, expected, actual, \
                       occurrence_count, first_seen_at, last_seen_at, tip_zh, tip_en, tip_source";

fn from_row(r: &Row<'_>) -> rusqlite::Result<ErrorPattern> {
    let tip_zh: Option<String> = r.get(13)?;
    let tip_en: Option<String> = r.get(14)?;
    Ok(ErrorPattern {
        id: r.get(0)?,
        profile_id: r.get(1)?,
        material_id: r.get(2)?,
        error_type: r.get(3)?,
        kind: r.get(4)?,
        line: usize::try_from(r.get::<_, i64>(5)?).unwrap_or(0),
        pattern_key: r.get(6)?,
        core_text: r.get(7)?,
        expected: r.get(8)?,
        actual: r.get(9)?,
        occurrence_count: r.get(10)?,
        first_seen_at: r.get(11)?,
        last_seen_at: r.get(12)?,
        tip: tip_zh.zip(tip_en).map(|(zh, en)| Tip { zh, en }),
        tip_source: r.get(15)?,
    })
}

/// The normalized key of an error and its core text.
pub fn pattern_key(e: &RecitationError, mode: Mode) -> (String, String) {
    let said = match mode {
        // What matters is what the child *said*: key it by sound.
        Mode::Voice => e
            .actual
            .chars()
            .map(|c| {
                if is_cjk(c) {
                    sound::pinyin_with_tone(c).map_or_else(|| c.to_string(), str::to_string)
                } else {
                    c.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
        Mode::Text => e.actual.clone(),
    };
    let key = format!(
        "{}|{}|{}|{}",
        e.error_type.as_str(),
        e.line,
        e.expected.trim(),
        said.trim().to_lowercase()
    );
    let core = match e.error_type {
        ErrorType::Insertion => e.actual.trim().to_string(),
        _ => e.expected.trim().to_string(),
    };
    (key, core)
}

/// The pattern an error was counted in, after counting.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternHit {
    pub pattern_id: String,
    pub occurrences: u32,
    pub tip: Option<Tip>,
}

/// Counts `errors` (one attempt's, uncertain ones excluded by the caller)
/// into the child's patterns for the material, inside the caller's
/// transaction. Two errors of one attempt that fall into one pattern count
/// once and get the same hit (the caller writes that pattern's tip once).
/// Returns one hit per error, in order.
pub(crate) fn record(
    tx: &Transaction<'_>,
    profile_id: &str,
    material_id: &str,
    mode: Mode,
    errors: &[&RecitationError],
    attempt_id: &str,
    at: &str,
) -> StoreResult<Vec<PatternHit>> {
    let mut hits: Vec<PatternHit> = Vec::with_capacity(errors.len());
    for e in errors {
        let (key, core) = pattern_key(e, mode);
        let existing: Option<(String, String)> = tx
            .query_row(
                "SELECT id, core_text FROM recite_error_patterns WHERE profile_id = ?1 AND material_id = ?2 AND pattern_key = ?3",
                params![profile_id, material_id, key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let existing = match existing {
            Some(found) => Some(found),
            None if !core.is_empty() => {
                let mut stmt = tx.prepare_cached(
                    "SELECT id, core_text FROM recite_error_patterns
                     WHERE profile_id = ?1 AND material_id = ?2 AND error_type = ?3 AND line = ?4
                     ORDER BY occurrence_count DESC, last_seen_at DESC",
                )?;
                let rows = stmt
                    .query_map(
                        params![
                            profile_id,
                            material_id,
                            e.error_type.as_str(),
                            e.line as i64
                        ],
                        |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
                    )?
                    .collect::<Result<Vec<_>, _>>()?;
                rows.into_iter().find(|(_, c)| {
                    !c.is_empty() && (c.contains(&core) || core.contains(c.as_str()))
                })
            }
            None => None,
        };
        let id = match existing {
            Some((id, old_core)) => {
                if hits.iter().any(|h| h.pattern_id == id) {
                    // Already counted for this attempt.
                    let same = hits.iter().find(|h| h.pattern_id == id).cloned();
                    hits.push(same.unwrap_or(PatternHit {
                        pattern_id: id,
                        occurrences: 1,
                        tip: None,
                    }));
                    continue;
                }
                // Keep the longer core text so later substrings still find it.
                let new_core = if core.chars().count() > old_core.chars().count() {
                    core.clone()
                } else {
                    old_core
                };
                tx.execute(
                    "UPDATE recite_error_patterns
                     SET occurrence_count = occurrence_count + 1, last_seen_at = ?2, last_attempt_id = ?3,
                         core_text = ?4, kind = ?5, expected = ?6, actual = ?7
                     WHERE id = ?1",
                    params![id, at, attempt_id, new_core, e.kind.as_str(), e.expected, e.actual],
                )?;
                id
            }
            None => {
                let id = uuid::Uuid::now_v7().to_string();
                tx.execute(
                    "INSERT INTO recite_error_patterns
                        (id, profile_id, material_id, error_type, kind, line, pattern_key, core_text, expected, actual,
                         occurrence_count, first_seen_at, last_seen_at, last_attempt_id)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 1, ?11, ?11, ?12)",
                    params![
                        id,
                        profile_id,
                        material_id,
                        e.error_type.as_str(),
                        e.kind.as_str(),
                        e.line as i64,
                        key,
                        core,
                        e.expected,
                        e.actual,
                        at,
                        attempt_id
                    ],
                )?;
                id
            }
        };
        let (occurrences, tip_zh, tip_en): (u32, Option<String>, Option<String>) = tx.query_row(
            "SELECT occurrence_count, tip_zh, tip_en FROM recite_error_patterns WHERE id = ?1",
            [&id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        hits.push(PatternHit {
            pattern_id: id,
            occurrences,
            tip: tip_zh.zip(tip_en).map(|(zh, en)| Tip { zh, en }),
        });
    }
    Ok(hits)
}

/// Counts a child's patterns on a material again from every attempt of it
/// this device has, in the order they were made, inside the caller's
/// transaction — as the review schedule is rebuilt
/// ([`crate::schedule::rebuild`]). Sync calls it after attempts or patterns
/// from another device arrive, so a mistake both devices saw offline counts
/// on each, and every device, whatever order the changes came in, ends with
/// the same counts. What is not counted is kept: a pattern keeps its id and
/// its memory tip; a pattern no attempt here supports (its attempts have
/// not arrived yet) stays as it came, unless the count folded it into a
/// pattern of a longer core text on the same line.
pub fn rebuild(tx: &Transaction<'_>, profile_id: &str, material_id: &str) -> StoreResult<()> {
    tx.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS pattern_recount AS SELECT * FROM main.recite_error_patterns WHERE 0;
         DELETE FROM temp.pattern_recount;",
    )?;
    tx.execute(
        "INSERT INTO temp.pattern_recount
         SELECT * FROM main.recite_error_patterns WHERE profile_id = ?1 AND material_id = ?2",
        params![profile_id, material_id],
    )?;
    tx.execute(
        "DELETE FROM main.recite_error_patterns WHERE profile_id = ?1 AND material_id = ?2",
        params![profile_id, material_id],
    )?;
    let attempts: Vec<(String, String, String, String)> = tx
        .prepare(
            "SELECT id, mode, errors, created_at FROM recite_attempts
             WHERE profile_id = ?1 AND material_id = ?2 ORDER BY created_at, id",
        )?
        .query_map(params![profile_id, material_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<Result<_, _>>()?;
    for (attempt_id, mode, errors, at) in attempts {
        // An attempt whose errors cannot be read counts nothing (it was
        // written by a build this one does not understand).
        let (Ok(mode), Ok(errors)) = (
            mode.parse::<Mode>(),
            serde_json::from_str::<Vec<RecitationError>>(&errors),
        ) else {
            continue;
        };
        let certain: Vec<&RecitationError> = errors.iter().filter(|e| !e.uncertain).collect();
        record(
            tx,
            profile_id,
            material_id,
            mode,
            &certain,
            &attempt_id,
            &at,
        )?;
    }
    tx.execute(
        "UPDATE main.recite_error_patterns AS p
         SET id = k.id, tip_zh = k.tip_zh, tip_en = k.tip_en, tip_source = k.tip_source, tip_at = k.tip_at
         FROM temp.pattern_recount AS k
         WHERE p.profile_id = ?1 AND p.material_id = ?2 AND p.pattern_key = k.pattern_key",
        params![profile_id, material_id],
    )?;
    tx.execute(
        "INSERT INTO main.recite_error_patterns
         SELECT * FROM temp.pattern_recount AS k
         WHERE NOT EXISTS (
             SELECT 1 FROM main.recite_error_patterns AS p
             WHERE p.profile_id = k.profile_id AND p.material_id = k.material_id
               AND (p.pattern_key = k.pattern_key
                    OR (p.error_type = k.error_type AND p.line = k.line
                        AND p.core_text <> '' AND k.core_text <> ''
                        AND (instr(p.core_text, k.core_text) > 0 OR instr(k.core_text, p.core_text) > 0))))",
        [],
    )?;
    tx.execute("DELETE FROM temp.pattern_recount", [])?;
    Ok(())
}

/// Caches a tip on a pattern unless one was cached meanwhile; returns the
/// tip the pattern now has.
pub fn cache_tip(
    store: &Store,
    pattern_id: &str,
    tip: &Tip,
    source: &str,
    at: &str,
) -> StoreResult<Tip> {
    store.with_conn(|c| {
        c.execute(
            "UPDATE recite_error_patterns SET tip_zh = ?2, tip_en = ?3, tip_source = ?4, tip_at = ?5
             WHERE id = ?1 AND tip_zh IS NULL",
            params![pattern_id, tip.zh, tip.en, source, at],
        )?;
        let (zh, en): (Option<String>, Option<String>) = c.query_row(
            "SELECT tip_zh, tip_en FROM recite_error_patterns WHERE id = ?1",
            [pattern_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok(zh
            .zip(en)
            .map(|(zh, en)| Tip { zh, en })
            .unwrap_or_else(|| tip.clone()))
    })
}

/// A child's patterns, most frequent first; for one material or all.
pub fn list(
    store: &Store,
    profile_id: &str,
    material_id: Option<&str>,
    limit: usize,
) -> StoreResult<Vec<ErrorPattern>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM recite_error_patterns
             WHERE profile_id = ?1 AND (?2 IS NULL OR material_id = ?2)
             ORDER BY occurrence_count DESC, last_seen_at DESC LIMIT ?3"
        ))?;
        let rows = stmt
            .query_map(
                params![
                    profile_id,
                    material_id,
                    i64::try_from(limit).unwrap_or(i64::MAX)
                ],
                from_row,
            )?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

/// A child's patterns seen within `[from, to)` (RFC 3339 UTC), most frequent first.
pub fn seen_between(
    store: &Store,
    profile_id: &str,
    from: &str,
    to: &str,
    limit: usize,
) -> StoreResult<Vec<ErrorPattern>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM recite_error_patterns
             WHERE profile_id = ?1 AND last_seen_at >= ?2 AND last_seen_at < ?3
             ORDER BY occurrence_count DESC, last_seen_at DESC LIMIT ?4"
        ))?;
        let rows = stmt
            .query_map(
                params![
                    profile_id,
                    from,
                    to,
                    i64::try_from(limit).unwrap_or(i64::MAX)
                ],
                from_row,
            )?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::practice::{record_attempt, NewAttempt};
    use crate::tips::{TipError, TipRequest, TipWriter};
    use crate::{check, Reference, Transcript};
    use deskmate_store::{NewMaterial, NewProfile};

    fn errors(transcript: &str, mode: Mode) -> Vec<RecitationError> {
        let r = Reference::new("床前明月光，疑是地上霜。举头望明月，低头思故乡。", None).unwrap();
        check(&r, &Transcript::new(transcript), mode)
            .unwrap()
            .errors
    }

    /// Counts its calls, standing in for an LLM-backed writer.
    struct Counting(AtomicUsize);

    impl TipWriter for Counting {
        fn write_tip(&self, r: &TipRequest) -> Result<Tip, TipError> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(Tip {
                zh: format!(
                    "雪花一「{}」一「{}」地飘下来，数着片片雪花背",
                    r.expected, r.expected
                ),
                en: format!(
                    "Count the snowflakes: one 「{}」, two 「{}」",
                    r.expected, r.expected
                ),
            })
        }
        fn source(&self) -> &'static str {
            "llm"
        }
    }

    #[test]
    fn two_errors_in_one_pattern_ask_for_one_tip() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("deskmate.sqlite3")).unwrap();
        let child = store
            .profiles()
            .add(NewProfile {
                name: "小雪".into(),
                ..Default::default()
            })
            .unwrap()
            .id;
        store
            .materials()
            .upsert_builtin(&[NewMaterial {
                slug: Some("yong-xue".into()),
                lang: "zh".into(),
                title: "咏雪".into(),
                body: "一片两片三四片，五片六片七八片。九片十片无数片，飞入芦花都不见。".into(),
                ..Default::default()
            }])
            .unwrap();
        let writer = Counting(AtomicUsize::new(0));
        let t0 = chrono::Utc::now() - chrono::Duration::hours(3);
        let mut outcomes = Vec::new();
        for h in 0..2 {
            // 片 heard as 天 twice on line 1: two errors, one pattern.
            let new = NewAttempt {
                profile_id: child.clone(),
                material_id: deskmate_store::builtin_id("yong-xue"),
                transcript: Transcript::new(
                    "一天两天三四片，五片六片七八片。九片十片无数片，飞入芦花都不见。",
                ),
                mode: Mode::Voice,
                at: t0 + chrono::Duration::hours(h),
                duration_ms: None,
                session_id: None,
            };
            outcomes.push(record_attempt(&store, new, &writer).unwrap());
        }
        let second = &outcomes[1];
        assert_eq!(
            second.verdict.errors.len(),
            2,
            "{:?}",
            second.verdict.errors
        );
        assert!(
            second.feedback.items.iter().all(|i| i.occurrence == 2),
            "{:?}",
            second.feedback.items
        );
        let tips: Vec<_> = second
            .feedback
            .items
            .iter()
            .map(|i| i.tip.clone().unwrap())
            .collect();
        assert_eq!(tips[0], tips[1]);
        assert!(tips[0].zh.contains("片"), "{:?}", tips[0]);
        assert_eq!(
            writer.0.load(Ordering::SeqCst),
            1,
            "one pattern, one tip per attempt"
        );
        let stored = list(&store, &child, None, 10).unwrap();
        assert_eq!(stored.len(), 1, "{stored:?}");
        assert_eq!(
            (stored[0].occurrence_count, stored[0].tip_source.as_deref()),
            (2, Some("llm"))
        );
    }

    #[test]
    fn voice_keys_are_by_sound() {
        let a = &errors(
            "床前明烟光，疑是地上霜。举头望明月，低头思故乡。",
            Mode::Voice,
        )[0];
        let b = &errors(
            "床前明焉光，疑是地上霜。举头望明月，低头思故乡。",
            Mode::Voice,
        )[0];
        assert_eq!(pattern_key(a, Mode::Voice), pattern_key(b, Mode::Voice));
        assert_ne!(pattern_key(a, Mode::Text), pattern_key(b, Mode::Text));
        assert_eq!(pattern_key(a, Mode::Voice).1, "月");
    }
}
