//! What a parent is told about a child (issue 20): a daily limit reached, a
//! request in quiet hours (each noted once per child and local day), a
//! companion's reply the safety check replaced (each one, with its
//! conversation). Kept on this device (`parent_notices`, migration 0026)
//! until a parent marks them read; `deskmate usage` and the parents' view
//! list them.

use rusqlite::{params, OptionalExtension};

use crate::{now_utc, Store, StoreError, StoreResult};

// The shapes a parent reads are the protocol's (`deskmate notices --json`,
// the parents' screen).
pub use deskmate_protocol::family::{Notice, NoticeKind};

/// A notice to keep.
#[derive(Debug, Clone, PartialEq)]
pub struct NewNotice<'a> {
    pub profile_id: &'a str,
    pub kind: NoticeKind,
    pub day: &'a str,
    pub detail: serde_json::Value,
    pub thread_id: Option<&'a str>,
}

pub struct Notices<'s> {
    store: &'s Store,
}

impl<'s> Notices<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Keeps `notice`; a limit or quiet hours already noted for the child
    /// that day is not noted again. Returns whether it was kept.
    pub fn add(&self, notice: &NewNotice<'_>) -> StoreResult<bool> {
        let detail = notice.detail.to_string();
        self.store.with_conn(|c| {
            let n = c.execute(
                "INSERT INTO parent_notices (id, profile_id, kind, day, detail, thread_id, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT DO NOTHING",
                params![
                    uuid::Uuid::now_v7().to_string(),
                    notice.profile_id,
                    notice.kind.as_str(),
                    notice.day,
                    detail,
                    notice.thread_id,
                    now_utc()
                ],
            )?;
            Ok(n > 0)
        })
    }

    /// The notices of one child (or of all), newest first; only the unread
    /// ones with `unread`.
    pub fn list(&self, profile_id: Option<&str>, unread: bool) -> StoreResult<Vec<Notice>> {
        self.select(None, profile_id, unread)
    }

    /// One notice; an unknown id is `not_found`.
    pub fn get(&self, id: &str) -> StoreResult<Notice> {
        self.select(Some(id), None, false)?
            .pop()
            .ok_or_else(|| StoreError::NotFound(format!("notice {id}")))
    }

    fn select(
        &self,
        id: Option<&str>,
        profile_id: Option<&str>,
        unread: bool,
    ) -> StoreResult<Vec<Notice>> {
        let rows: Vec<(Notice, String, String)> = self.store.with_conn(|c| {
            let mut stmt = c.prepare(
                "SELECT id, profile_id, kind, day, detail, thread_id, created_at, read_at
                 FROM parent_notices
                 WHERE (?1 IS NULL OR profile_id = ?1) AND (?2 = 0 OR read_at IS NULL)
                 AND (?3 IS NULL OR id = ?3)
                 ORDER BY created_at DESC, id DESC",
            )?;
            let rows = stmt
                .query_map(params![profile_id, unread, id], |r| {
                    Ok((
                        Notice {
                            id: r.get(0)?,
                            profile_id: r.get(1)?,
                            kind: NoticeKind::LimitReached,
                            day: r.get(3)?,
                            detail: serde_json::Value::Null,
                            thread_id: r.get(5)?,
                            created_at: r.get(6)?,
                            read_at: r.get(7)?,
                        },
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(4)?,
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })?;
        rows.into_iter()
            .map(|(mut n, kind, detail)| {
                n.kind = NoticeKind::parse(&kind).ok_or_else(|| {
                    StoreError::Invalid(format!("notice {} has an unknown kind {kind:?}", n.id))
                })?;
                n.detail = serde_json::from_str(&detail)
                    .map_err(|e| StoreError::Invalid(format!("notice {} is damaged: {e}", n.id)))?;
                Ok(n)
            })
            .collect()
    }

    /// Marks a notice read; an unknown id is `not_found`.
    pub fn mark_read(&self, id: &str) -> StoreResult<()> {
        let n = self.store.with_conn(|c| {
            Ok(c.execute(
                "UPDATE parent_notices SET read_at = COALESCE(read_at, ?2) WHERE id = ?1",
                params![id, now_utc()],
            )?)
        })?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("notice {id}")));
        }
        Ok(())
    }

    /// The reply `message_id` replaced by the safety check: the original the
    /// model wrote and the reasons, for the parent only.
    pub fn replaced(&self, message_id: &str) -> StoreResult<Option<(String, Vec<String>)>> {
        let row: Option<(String, String)> = self.store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT original, reasons FROM replaced_replies WHERE message_id = ?1",
                [message_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
        })?;
        row.map(|(original, reasons)| {
            let reasons = serde_json::from_str(&reasons).map_err(|e| {
                StoreError::Invalid(format!("replaced reply {message_id} is damaged: {e}"))
            })?;
            Ok((original, reasons))
        })
        .transpose()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::NewProfile;

    #[test]
    fn a_limit_is_noted_once_a_day_and_read_marks_stay() {
        let store = Store::open_in_memory().unwrap();
        let child = store
            .profiles()
            .add(NewProfile {
                kind: Some(crate::ProfileKind::Child),
                name: "小明".into(),
                ..Default::default()
            })
            .unwrap();
        let notices = store.notices();
        let limit = |day: &'static str| NewNotice {
            profile_id: &child.id,
            kind: NoticeKind::LimitReached,
            day,
            detail: serde_json::json!({"limit": "model_calls"}),
            thread_id: None,
        };
        assert!(notices.add(&limit("2026-11-27")).unwrap());
        assert!(!notices.add(&limit("2026-11-27")).unwrap());
        assert!(notices.add(&limit("2026-11-28")).unwrap());
        let all = notices.list(Some(&child.id), false).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].detail["limit"], "model_calls");
        notices.mark_read(&all[0].id).unwrap();
        assert_eq!(notices.list(Some(&child.id), true).unwrap().len(), 1);
        assert_eq!(notices.list(None, false).unwrap().len(), 2);
        assert_eq!(notices.mark_read("nope").unwrap_err().code(), "not_found");
        assert_eq!(notices.get(&all[1].id).unwrap(), all[1]);
        assert_eq!(notices.get("nope").unwrap_err().code(), "not_found");
    }
}
