//! What each scene does with what the child said, once the entry has
//! routed it and the guardrails have let it through ([`Entry::act`]): a
//! recitation opened or tried again, today's plan shown or walked on, the
//! homework walk, a memory kept or recalled, or the hand-off to the
//! companion. Offline throughout: a scene that needs the model says so.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deskmate_recite::Mode;

use crate::chat::ChatEvent;
use crate::guardrails::Session;
use crate::homework::{Step, Worksheet};
use crate::plan::{self, Plan, TaskKind};
use crate::router::{Intent, Scene};
use crate::scene::SceneResult;
use crate::PracticeState;

use super::{said, Entry, MaterialRef, Response};

/// What the child said, as a scene acts on it.
pub(super) struct Said<'a> {
    pub(super) profile_id: &'a str,
    pub(super) text: &'a str,
    /// The material meant, if any.
    pub(super) slot: Option<String>,
    /// Too vague to act on ([`crate::chat::is_vague`]).
    pub(super) vague: bool,
    pub(super) intent: Intent,
    /// The worksheet the model checked, when photos came.
    pub(super) checked: Option<Worksheet>,
    pub(super) model_ready: bool,
    pub(super) tz: Tz,
    pub(super) now: DateTime<Utc>,
}

impl Entry {
    /// What the scene the child is now in does with what they said.
    pub(super) fn act(
        &self,
        response: &mut Response,
        session: &mut Session,
        said_: Said<'_>,
    ) -> SceneResult<(String, String)> {
        let Said {
            profile_id,
            text,
            slot,
            vague,
            intent,
            checked,
            model_ready,
            tz,
            now,
        } = said_;
        Ok(match response.scene {
            Scene::Recite => {
                // Going on after a verdict that did not pass is the retry.
                if intent == Intent::ContinueCurrent && slot.is_none() {
                    if let Some(p) = self.practice.current(profile_id)? {
                        let again =
                            matches!(p.state, PracticeState::Feedback { passed: false, .. });
                        let p = if again {
                            self.practice.retry(&p.id)?
                        } else {
                            p
                        };
                        let title = p.material.title.clone();
                        response.material = Some(MaterialRef {
                            id: p.material.id.clone(),
                            title: title.clone(),
                        });
                        response.practice = Some(p);
                        return Ok(said(
                            format!("好，再背一遍《{title}》。准备好了就按录音键。"),
                            format!("OK, {title} once more. Press record when you're ready."),
                        ));
                    }
                }
                let material = match slot {
                    Some(id) => Some(self.store.materials().get(&id)?),
                    None => {
                        let due = deskmate_recite::schedule::due(&self.store, profile_id, now)?;
                        match due.first() {
                            Some(d) => Some(self.store.materials().get(&d.material_id)?),
                            None => None,
                        }
                    }
                };
                match material {
                    Some(m) => {
                        let p = self.practice.start(profile_id, &m.id, Mode::Voice)?;
                        response.material = Some(MaterialRef {
                            id: m.id.clone(),
                            title: m.title.clone(),
                        });
                        response.practice = Some(p);
                        said(
                            format!("我们来背《{}》吧！准备好了就按录音键。", m.title),
                            format!("Let's recite {}! Press record when you're ready.", m.title),
                        )
                    }
                    None => said(
                        "想背哪一首？说出名字就行。",
                        "Which one would you like to recite? Just say its name.",
                    ),
                }
            }
            Scene::Plan => {
                let plan = plan::today(&self.store, profile_id, now)?;
                response.due = plan
                    .tasks
                    .iter()
                    .filter(|t| t.kind == TaskKind::Review && !t.done)
                    .filter_map(|t| t.title.clone())
                    .collect();
                let words = if intent == Intent::ContinueCurrent {
                    self.walk(response, session, profile_id, &plan, tz, now)?
                } else {
                    plan::summary(&plan)
                };
                response.plan = Some(plan);
                words
            }
            Scene::Homework => {
                let walk = self.load_walk(profile_id, tz, now)?;
                let going = matches!(walk.step, Step::Mistake { .. } | Step::Redo { .. });
                let on = intent == Intent::ContinueCurrent;
                if let Some(sheet) = checked {
                    self.checked(response, profile_id, &walk, sheet, now)?
                } else if (going && intent != Intent::Homework)
                    || (on && walk.step == Step::Summary)
                {
                    self.homework_reply(response, profile_id, walk, text, now)?
                } else if on
                    && !crate::homework::mistakes::to_redo(&self.store, profile_id)?.is_empty()
                {
                    // 下一题 after a mistake redone: the next one.
                    self.redo_next(response, profile_id, walk, None, now)?
                } else {
                    response.needs_model = true;
                    if model_ready {
                        said(
                            "好的，我来想一想。把作业拍下来发给我，我可以一题一题帮你看。",
                            "OK, let me think. Send me a photo of your homework and I'll go through it with you.",
                        )
                    } else {
                        said(
                            "聊天和作业辅导要用 AI 伙伴，需要家长先在设置里配好模型。背诗和复习现在就能做。",
                            "Chat and homework help need the AI companion: a parent has to set up a model in Settings first. Reciting and reviews work now.",
                        )
                    }
                }
            }
            Scene::Chat if crate::memory::Request::parse(text).is_some() => {
                // Remembering and recalling need no model: answered here.
                session.chat = session.chat.apply(ChatEvent::Left);
                self.memory_request(profile_id, text)?
            }
            Scene::Chat if vague => {
                session.chat = session.chat.apply(ChatEvent::Vague(text));
                said(
                    "你想做什么呢？背诗、看看今天的计划、问作业，还是聊点别的？",
                    "What would you like to do? Recite, look at today's plan, homework, or talk about something?",
                )
            }
            Scene::Chat => {
                response.needs_model = true;
                if model_ready {
                    session.chat = session.chat.apply(ChatEvent::Handoff(text));
                    said("好的，我来想一想。", "OK, let me think.")
                } else {
                    session.chat = session.chat.apply(ChatEvent::Left);
                    said(
                        "聊天和作业辅导要用 AI 伙伴，需要家长先在设置里配好模型。背诗和复习现在就能做。",
                        "Chat and homework help need the AI companion: a parent has to set up a model in Settings first. Reciting and reviews work now.",
                    )
                }
            }
        })
    }

    /// "记住我喜欢恐龙" remembered, or "你记得我什么?" answered with the list.
    fn memory_request(&self, profile_id: &str, text: &str) -> SceneResult<(String, String)> {
        use crate::memory::{recall_answer, Request};
        use deskmate_store::{MemorySource, ProfileKind};
        let Some(request) = Request::parse(text) else {
            return Ok(said("", ""));
        };
        if self.store.profiles().get(profile_id)?.kind != ProfileKind::Child {
            return Ok(said(
                "我只记关于孩子的事。家长可以在家长页面里管理孩子的记忆。",
                "I only remember things about children. Parents manage a child's memories in the parent screens.",
            ));
        }
        let memories = self.store.memories();
        Ok(match request {
            Request::Remember { kind, text } => {
                let known = memories.list(profile_id)?;
                if !known.iter().any(|m| m.text == text) {
                    memories.add(profile_id, kind, &text, MemorySource::Explicit, None)?;
                }
                said(
                    format!("好的，我记住了：{text}。"),
                    format!("OK, I'll remember that: {text}."),
                )
            }
            Request::Recall => recall_answer(&memories.list(profile_id)?),
        })
    }

    /// The plan scene's "下一个": on to the next task not done after the one
    /// whose material the child has open, opening its recitation.
    fn walk(
        &self,
        response: &mut Response,
        session: &mut Session,
        profile_id: &str,
        plan: &Plan,
        tz: Tz,
        now: DateTime<Utc>,
    ) -> SceneResult<(String, String)> {
        let current = self.practice.current(profile_id)?;
        let on = current.as_ref().map(|p| p.material.id.as_str());
        let Some(task) = plan::next(plan, on).and_then(|i| plan.tasks.get(i)) else {
            return Ok(if plan.done == plan.total {
                plan::summary(plan)
            } else {
                said(
                    "要背的都背完了！剩下的可以慢慢来。",
                    "Nothing left to recite today. The rest can wait.",
                )
            });
        };
        if task.kind == TaskKind::HomeworkRedo {
            // Redoing is the homework scene's: the child goes there, and
            // comes back to the plan after.
            session.left = Some(Scene::Plan);
            session.active = Scene::Homework;
            session.pending = None;
            let walk = self.load_walk(profile_id, tz, now)?;
            return self.redo_next(response, profile_id, walk, None, now);
        }
        let Some(material_id) = task.material_id.as_deref() else {
            return Ok(plan::summary(plan));
        };
        // The same material still open is gone on with, not opened twice.
        let practice = match current {
            Some(p) if p.material.id == material_id => p,
            _ => self.practice.start(profile_id, material_id, Mode::Voice)?,
        };
        response.material = Some(MaterialRef {
            id: practice.material.id.clone(),
            title: practice.material.title.clone(),
        });
        response.practice = Some(practice);
        Ok(said(
            format!("下一个：{}。准备好了就按录音键。", task.text_zh),
            format!("Next: {}. Press record when you're ready.", task.text_en),
        ))
    }
}
