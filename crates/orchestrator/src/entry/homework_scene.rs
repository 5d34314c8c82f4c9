//! The entry acting in the homework scene: a checked worksheet stores its
//! mistakes and starts the walk; the child's replies (再给个提示, 我懂了,
//! 下一题, or an answer) move it on; a stored mistake is redone from the
//! plan. The walk ([`Walk`]) is stored after every step (table
//! `homework_walks`), and one from another local day is started again.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use rusqlite::{params, OptionalExtension};

use super::{said, Entry, Response, ANSWERS_ALLOWED_SENTENCE, HOMEWORK_ANSWERS};
use crate::homework::{self, mistakes, Event, Help, Redoing, Reply, Step, Walk, Worksheet};
use crate::scene::{SceneError, SceneResult};

impl Entry {
    /// The child's homework walk, or a fresh one: none yet, unreadable
    /// (started again, never guessed) or from another local day.
    pub(super) fn load_walk(
        &self,
        profile_id: &str,
        tz: Tz,
        now: DateTime<Utc>,
    ) -> SceneResult<Walk> {
        let row: Option<(String, String)> = self.store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT walk, updated_at FROM homework_walks WHERE profile_id = ?1",
                [profile_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
        })?;
        let Some((json, updated_at)) = row else {
            return Ok(Walk::default());
        };
        let Ok(walk) = serde_json::from_str::<Walk>(&json) else {
            tracing::warn!("the homework walk of {profile_id} cannot be read; starting a new one");
            return Ok(Walk::default());
        };
        let day = DateTime::parse_from_rfc3339(&updated_at)
            .ok()
            .map(|t| t.with_timezone(&tz).date_naive());
        if day != Some(now.with_timezone(&tz).date_naive()) {
            return Ok(Walk::default());
        }
        Ok(walk)
    }

    fn save_walk(&self, profile_id: &str, walk: &Walk, now: DateTime<Utc>) -> SceneResult<()> {
        let json = serde_json::to_string(walk).map_err(|e| SceneError::Damaged {
            what: "homework walk",
            reason: e.to_string(),
        })?;
        self.store.with_conn(|c| {
            c.execute(
                "INSERT INTO homework_walks (profile_id, walk, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(profile_id) DO UPDATE SET walk = excluded.walk, updated_at = excluded.updated_at",
                params![profile_id, json, now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)],
            )?;
            Ok(())
        })?;
        Ok(())
    }

    /// Whether a parent lets the scene show correct answers: the profile's
    /// `homework.answers` setting, or the homework tutor's sentence in the
    /// parent's chat context for the child. A setting that cannot be read
    /// allows nothing.
    pub fn answers_allowed(&self, profile_id: &str) -> bool {
        let settings = self.store.settings();
        if settings
            .get::<bool>(Some(profile_id), HOMEWORK_ANSWERS)
            .ok()
            .flatten()
            == Some(true)
        {
            return true;
        }
        settings
            .get::<serde_json::Value>(Some(profile_id), "chat.context")
            .ok()
            .flatten()
            .and_then(|c| {
                c.get("system_prompt")
                    .and_then(|p| p.as_str().map(str::to_string))
            })
            .is_some_and(|p| p.contains(ANSWERS_ALLOWED_SENTENCE))
    }

    fn show(
        &self,
        response: &mut Response,
        profile_id: &str,
        walk: &Walk,
        redoing: Option<&Redoing>,
    ) -> (String, String) {
        let allowed = self.answers_allowed(profile_id);
        response.homework = Some(walk.card(allowed, redoing));
        walk.words(allowed, redoing)
    }

    /// A worksheet came back checked: its mistakes are stored and the walk
    /// starts on the first.
    pub(super) fn checked(
        &self,
        response: &mut Response,
        profile_id: &str,
        walk: &Walk,
        sheet: Worksheet,
        now: DateTime<Utc>,
    ) -> SceneResult<(String, String)> {
        let ids = mistakes::record(&self.store, profile_id, &sheet, now)?;
        let walk = walk.apply(Event::Checked {
            sheet,
            mistake_ids: ids,
        })?;
        self.save_walk(profile_id, &walk, now)?;
        Ok(self.show(response, profile_id, &walk, None))
    }

    /// Whether `answer` answers a question whose answer is `correct`: the
    /// model judges when there is one, else the stored answer is matched.
    fn judge(&self, question: &str, correct: &str, answer: &str) -> SceneResult<bool> {
        if homework::same_answer(answer, correct) {
            return Ok(true);
        }
        match &self.checker {
            Some(checker) => checker.judge(question, correct, answer),
            None => Ok(false),
        }
    }

    /// What the child said while a walk is going.
    pub(super) fn homework_reply(
        &self,
        response: &mut Response,
        profile_id: &str,
        walk: Walk,
        text: &str,
        now: DateTime<Utc>,
    ) -> SceneResult<(String, String)> {
        let allowed = self.answers_allowed(profile_id);
        let reply = homework::reply_of(text);
        if let Step::Redo { mistake_id, .. } = &walk.step {
            let mistake_id = mistake_id.clone();
            let m = mistakes::get(&self.store, profile_id, &mistake_id)?;
            return match reply {
                Reply::Next => self.redo_next(response, profile_id, walk, Some(&mistake_id), now),
                Reply::Answer => {
                    let right = self.judge(&m.question, &m.correct_answer, text)?;
                    let next = walk.apply(Event::Answered { right })?;
                    if right {
                        mistakes::mark_redone(&self.store, profile_id, &mistake_id, now)?;
                        self.save_walk(profile_id, &next, now)?;
                        let left = mistakes::to_redo(&self.store, profile_id)?.len();
                        response.homework = Some(next.card(allowed, None));
                        return Ok(if left == 0 {
                            said(
                                "对了！错题都改好了，真棒！说“今天做什么”回到计划。",
                                "Right! Every mistake is put right. Say \"what's today's plan\" to go back to the plan.",
                            )
                        } else {
                            said(
                                format!("对了！这道改好了。还有 {left} 道错题，说“下一题”接着做。"),
                                format!(
                                    "Right! That one is fixed. {left} more to redo: say \"next\"."
                                ),
                            )
                        });
                    }
                    self.save_walk(profile_id, &next, now)?;
                    Ok(self.show(response, profile_id, &next, Some(&redoing(&m))))
                }
                Reply::MoreHelp | Reply::AskAnswer => {
                    let next = walk.apply(Event::Answered { right: false })?;
                    self.save_walk(profile_id, &next, now)?;
                    Ok(self.show(response, profile_id, &next, Some(&redoing(&m))))
                }
            };
        }
        let Step::Mistake { index, help } = walk.step.clone() else {
            return Ok(self.show(response, profile_id, &walk, None));
        };
        let event = match reply {
            Reply::Next => Event::Next,
            Reply::MoreHelp | Reply::AskAnswer => Event::MoreHelp {
                answers_allowed: allowed,
            },
            Reply::Answer => {
                let q = walk
                    .sheet
                    .as_ref()
                    .and_then(|s| s.mistakes().get(index).copied().cloned())
                    .ok_or_else(|| SceneError::Damaged {
                        what: "homework walk",
                        reason: format!("no mistake {index} on the sheet"),
                    })?;
                Event::Answered {
                    right: self.judge(&q.question, &q.correct_answer, text)?,
                }
            }
        };
        let right = event == Event::Answered { right: true };
        let next = walk.apply(event)?;
        self.save_walk(profile_id, &next, now)?;
        let (zh, en) = self.show(response, profile_id, &next, None);
        // Help asked past the explanation, with answers not allowed.
        let stuck = help == Help::Explanation
            && !allowed
            && matches!(reply, Reply::MoreHelp | Reply::AskAnswer);
        Ok(if stuck {
            said(
                "答案要家长同意才能告诉你哦。照着上面的步骤再做一遍，做完告诉我你的答案；也可以说“下一题”。",
                "I can only tell you the answer if a parent allows it. Follow the steps and tell me your answer, or say \"next\".",
            )
        } else if right {
            (format!("对了！{zh}"), format!("Right! {en}"))
        } else if matches!(reply, Reply::Answer) {
            (format!("还不对哦。{zh}"), format!("Not yet. {en}"))
        } else {
            (zh, en)
        })
    }

    /// Asks the next stored mistake not redone (after `after`, the one just
    /// asked, when there are others); says so when none is left.
    pub(super) fn redo_next(
        &self,
        response: &mut Response,
        profile_id: &str,
        walk: Walk,
        after: Option<&str>,
        now: DateTime<Utc>,
    ) -> SceneResult<(String, String)> {
        let left = mistakes::to_redo(&self.store, profile_id)?;
        let pick = left
            .iter()
            .position(|m| Some(m.id.as_str()) == after)
            .map_or(0, |i| (i + 1) % left.len());
        let Some(m) = left.get(pick) else {
            let next = walk.apply(Event::Leave)?;
            self.save_walk(profile_id, &next, now)?;
            response.homework = Some(next.card(self.answers_allowed(profile_id), None));
            return Ok(said("没有要重做的错题了。", "No mistakes left to redo."));
        };
        let next = walk.apply(Event::Redo {
            mistake_id: m.id.clone(),
        })?;
        self.save_walk(profile_id, &next, now)?;
        let r = redoing(m);
        Ok(self.show(response, profile_id, &next, Some(&r)))
    }
}

fn redoing(m: &mistakes::Mistake) -> Redoing {
    Redoing {
        question: m.question.clone(),
        hint: m.hint.clone(),
        explanation: m.explanation.clone(),
    }
}

#[cfg(test)]
mod tests;
