//! Reminders that reviews are due: for each child with reviews due today
//! (by the schedule, through [`Deskmate::reviews_due`]), one reminder naming
//! how many and which. [`Deskmate::follow_reviews`] looks at start and then
//! hourly and publishes a `reviews://due` event per child and a
//! `reviews://reminder` (the window's OS notification) for news;
//! [`ReminderLog`] keeps that from repeating the same news every hour.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Duration, Utc};
use deskmate_store::ProfileKind;
use serde::Serialize;

use crate::events::{AppEvent, ReminderEvent};
use crate::{AppError, AppResult, Deskmate};
use deskmate_protocol::ReviewsDueEvent;

/// One child's reviews due today.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DueReminder {
    pub profile_id: String,
    pub profile_name: String,
    pub count: usize,
    /// Titles of the due materials, most overdue first.
    pub titles: Vec<String>,
    /// Material ids, in the same order.
    pub material_ids: Vec<String>,
}

impl DueReminder {
    /// The notification's title and body, in Chinese or English (the profile's locale).
    pub fn notification(&self, english: bool) -> (String, String) {
        let shown: Vec<&str> = self.titles.iter().take(3).map(String::as_str).collect();
        let more = self.titles.len().saturating_sub(shown.len());
        if english {
            let list = shown.join(", ");
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let noun = if self.count == 1 { "review" } else { "reviews" };
            (
                format!("{}: {} {noun} due today", self.profile_name, self.count),
                format!("Time to review {list}{tail}."),
            )
        } else {
            let list = shown.join("、");
            let tail = if more > 0 {
                format!("等{}篇", self.titles.len())
            } else {
                String::new()
            };
            (
                format!("{}今天有 {} 篇要复习", self.profile_name, self.count),
                format!("该复习了：{list}{tail}。"),
            )
        }
    }
}

impl Deskmate {
    /// Every child with reviews due by the end of `at`'s day (in the child's
    /// time zone), in profile order.
    pub fn reviews_due_reminders(&self, at: DateTime<Utc>) -> AppResult<Vec<DueReminder>> {
        let mut out = Vec::new();
        for profile in self.store().profiles().list()? {
            if profile.kind != ProfileKind::Child {
                continue;
            }
            let due = self.reviews_due(&profile.id, at)?;
            if due.is_empty() {
                continue;
            }
            out.push(DueReminder {
                profile_id: profile.id,
                profile_name: profile.name,
                count: due.len(),
                titles: due.iter().map(|d| d.title.clone()).collect(),
                material_ids: due.into_iter().map(|d| d.material_id).collect(),
            });
        }
        Ok(out)
    }
}

/// How often [`Deskmate::follow_reviews`] looks at the schedule again.
pub const REVIEWS_EVERY: std::time::Duration = std::time::Duration::from_secs(60 * 60);

impl Deskmate {
    /// Looks at the schedule once: every child with reviews due today gets an
    /// [`AppEvent::ReviewsDue`], and what is news (see [`ReminderLog`]) an
    /// [`AppEvent::Reminder`] in the app's language.
    pub fn publish_due_reviews(&self, log: &mut ReminderLog, at: DateTime<Utc>) -> AppResult<()> {
        let reminders = self.reviews_due_reminders(at)?;
        for r in &reminders {
            self.publish(AppEvent::ReviewsDue(ReviewsDueEvent {
                profile_id: r.profile_id.clone(),
                count: r.count,
            }));
        }
        let english = self.locale().is_ok_and(|l| l.starts_with("en"));
        for r in log.news(&reminders, at) {
            let (title, body) = r.notification(english);
            self.publish(AppEvent::Reminder(ReminderEvent {
                profile_id: r.profile_id,
                title,
                body,
            }));
        }
        Ok(())
    }

    /// Looks at the schedule now and then every `every` on a thread of its
    /// own, publishing what [`Deskmate::publish_due_reviews`] finds. The
    /// window starts this once; the polling lives here, not in a front end.
    pub fn follow_reviews(&self, every: std::time::Duration) -> AppResult<()> {
        let app = self.clone();
        std::thread::Builder::new()
            .name("review-reminders".into())
            .spawn(move || {
                let mut log = ReminderLog::default();
                loop {
                    if let Err(e) = app.publish_due_reviews(&mut log, Utc::now()) {
                        tracing::warn!("cannot look at the review schedule: {e}");
                    }
                    std::thread::sleep(every);
                }
            })
            .map_err(|e| AppError::Thread {
                what: "cannot follow the review schedule",
                reason: e.to_string(),
            })?;
        Ok(())
    }
}

/// What each child was last reminded of, so the hourly check notifies only
/// news: a review that newly came due, or the same reviews a day later.
#[derive(Debug, Default)]
pub struct ReminderLog {
    last: HashMap<String, (DateTime<Utc>, BTreeSet<String>)>,
}

/// The same due reviews are mentioned again after this long.
pub const REMIND_AGAIN_AFTER: Duration = Duration::hours(20);

impl ReminderLog {
    /// The reminders worth a notification at `at`, remembered as given.
    pub fn news(&mut self, reminders: &[DueReminder], at: DateTime<Utc>) -> Vec<DueReminder> {
        let mut fresh = Vec::new();
        for r in reminders {
            let due: BTreeSet<String> = r.material_ids.iter().cloned().collect();
            let worth = match self.last.get(&r.profile_id) {
                None => true,
                Some((when, before)) => !due.is_subset(before) || at - *when >= REMIND_AGAIN_AFTER,
            };
            if worth {
                self.last.insert(r.profile_id.clone(), (at, due));
                fresh.push(r.clone());
            }
        }
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recite::{Mode, NewAttempt, Transcript};
    use crate::Config;
    use chrono::TimeZone;
    use deskmate_store::NewProfile;

    const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

    #[test]
    fn each_child_with_reviews_due_gets_one_reminder() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let parent = NewProfile {
            kind: Some(ProfileKind::Parent),
            name: "妈妈".into(),
            pin: Some("2468".into()),
            ..Default::default()
        };
        app.store().profiles().add(parent).unwrap();
        let ming = app
            .store()
            .profiles()
            .add(NewProfile {
                name: "小明".into(),
                ..Default::default()
            })
            .unwrap();
        let hong = app
            .store()
            .profiles()
            .add(NewProfile {
                name: "小红".into(),
                ..Default::default()
            })
            .unwrap();
        let poem = app.find_material("静夜思").unwrap();
        let at = Utc.with_ymd_and_hms(2026, 3, 2, 2, 0, 0).unwrap();
        assert!(
            app.reviews_due_reminders(at).unwrap().is_empty(),
            "nothing learnt, nothing due"
        );

        let out = app
            .record_attempt(NewAttempt {
                profile_id: ming.id.clone(),
                material_id: poem.id.clone(),
                transcript: Transcript::new(POEM),
                mode: Mode::Text,
                at,
                duration_ms: None,
                session_id: None,
            })
            .unwrap();
        let days = out.schedule.unwrap().interval_days;
        assert!(
            app.reviews_due_reminders(at).unwrap().is_empty(),
            "just learnt: not due yet"
        );

        let later = at + Duration::days(days);
        let due = app.reviews_due_reminders(later).unwrap();
        assert_eq!(
            due.len(),
            1,
            "only 小明 learnt it; 小红 and the parent have nothing due: {due:?}"
        );
        assert_eq!(due[0].profile_id, ming.id);
        assert_eq!(due[0].count, 1);
        assert_eq!(due[0].titles, vec!["静夜思".to_string()]);
        assert_ne!(due[0].profile_id, hong.id);
        let (title, body) = due[0].notification(false);
        assert_eq!(title, "小明今天有 1 篇要复习");
        assert!(body.contains("静夜思"), "{body}");
        let (title, _) = due[0].notification(true);
        assert_eq!(title, "小明: 1 review due today");

        // Published on the event stream: the due strip's event every time,
        // the notification only for news.
        let events = app.events();
        let mut log = ReminderLog::default();
        app.publish_due_reviews(&mut log, later).unwrap();
        app.publish_due_reviews(&mut log, later + Duration::hours(1))
            .unwrap();
        let seen: Vec<AppEvent> = events.try_iter().collect();
        let channels: Vec<&str> = seen.iter().map(AppEvent::channel).collect();
        assert_eq!(
            channels,
            ["reviews://due", "reviews://reminder", "reviews://due"]
        );
        match &seen[1] {
            AppEvent::Reminder(r) => {
                assert_eq!(
                    (r.profile_id.as_str(), r.title.as_str()),
                    (ming.id.as_str(), "小明今天有 1 篇要复习")
                );
            }
            other => panic!("{other:?}"),
        }
    }

    fn reminder(child: &str, materials: &[&str]) -> DueReminder {
        DueReminder {
            profile_id: child.into(),
            profile_name: child.into(),
            count: materials.len(),
            titles: materials.iter().map(|m| m.to_string()).collect(),
            material_ids: materials.iter().map(|m| m.to_string()).collect(),
        }
    }

    #[test]
    fn the_log_notifies_news_only() {
        let mut log = ReminderLog::default();
        let t0 = Utc.with_ymd_and_hms(2026, 3, 2, 1, 0, 0).unwrap();
        let first = [reminder("a", &["m1"]), reminder("b", &["m2"])];
        assert_eq!(log.news(&first, t0).len(), 2);
        // An hour later, the same: nothing new.
        assert!(log.news(&first, t0 + Duration::hours(1)).is_empty());
        // A review came due for a: only a is told.
        let more = [reminder("a", &["m1", "m3"]), reminder("b", &["m2"])];
        let news = log.news(&more, t0 + Duration::hours(2));
        assert_eq!(news, vec![reminder("a", &["m1", "m3"])]);
        // One done (fewer due): no news.
        assert!(log
            .news(&[reminder("a", &["m3"])], t0 + Duration::hours(3))
            .is_empty());
        // Still due the next day: told again.
        assert_eq!(
            log.news(&[reminder("b", &["m2"])], t0 + Duration::hours(21))
                .len(),
            1
        );
    }
}
