//! One entry for what a child says (issue 16): [`Entry::process`] takes
//! typed words, a button, or a voice recording ([`Input`]) — a recording is heard
//! offline first, on the same whisper pipeline the practice scene listens
//! with ([`Hearing`], implemented by the scene's [`crate::scene::Microphone`]) — then
//! routes the words ([`crate::router`]), lets the guardrails decide
//! ([`crate::guardrails`]), acts in the scene it lands in, stores the
//! child's session and logs the decision, and answers in one shape
//! ([`Response`]) with a trace id and the time each stage took.
//!
//! What each scene does here, offline:
//! - **recite**: a practice opens on the material named, or on the first
//!   review due today, through the practice scene; "再来一次" after a
//!   verdict is the retry;
//! - **plan**: today's plan ([`crate::plan`]: due reviews, practice to
//!   finish, the parent's goals, each done or not by today's attempts);
//!   "下一个" walks to the next task not done and opens its recitation;
//! - **chat** ([`crate::chat`]): vague words get one question and the reply
//!   is routed with them; a request goes to the companion (`needs_model`,
//!   `handoff_wait` until [`Entry::chat_answered`]); **homework** in words
//!   goes to the companion too; without a model set up the child is told a
//!   parent needs to set one up.
//!
//! A button ([`Input::Button`], [`Pressed`]) is the scene-local reply it
//! stands for, on the fast path; one that means nothing where the child is
//! changes nothing.
//!
//! A recording that cannot be heard (nothing said, a file that is not
//! audio, no speech models) comes back as the response's coded `error`
//! with plain words for the child; nothing is stored or logged for it.
//!
//! The session's scene (other than chat) is reset when the child's local
//! day has changed since they last spoke: yesterday's recitation is not
//! today's.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use deskmate_protocol::WireError;
use deskmate_store::{MaterialFilter, Store};
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use crate::guardrails::{Decision, Session};
use crate::homework::model::Checker;
use crate::homework::photo::Photo;
use crate::homework::HomeworkCard;
use crate::intent_model::{Ask, IntentModel};
use crate::plan::Plan;
use crate::router::{Catalog, CatalogEntry, Confidence, Intent, RoutedBy, Scene};
use crate::scene::{PracticeScene, PracticeView, SceneError, SceneResult, Speech};
use crate::trace::{Outcome, Spans};

mod acting;
mod button;
mod hearing;
mod refused;
mod routing;
mod shape;
mod talk;
use crate::chat::{ChatEvent, ChatStep};
use crate::router::Routed;
use acting::Said;
pub use button::{ButtonFrom, Pressed, BUTTON_MARK};
use hearing::asr_lang;
pub use hearing::Hearing;
use routing::{ask_model, judge, Judged};
pub use shape::{LampCue, Suggestion};
pub use talk::{Listen, Talking};

/// What the child gave the entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Typed words.
    Text(String),
    /// A recording of the child speaking (WAV, or any format the speech
    /// crate decodes), heard offline before it is routed.
    Voice(PathBuf),
    /// Photos of homework (PNG, JPEG, GIF, WebP; at most
    /// [`MAX_PHOTOS`](crate::homework::photo::MAX_PHOTOS)), with any words
    /// typed along: checked by the vision model, in the homework scene.
    Photos { photos: Vec<PathBuf>, text: String },
    /// Speech the microphone heard while the talk button was on, cut out by
    /// the voice detector (see [`Entry::talk`]); transcribed before it is
    /// routed.
    Speech(Speech),
    /// A button pressed on the lamp or the screen: a scene-local reply
    /// ([`Pressed::words`]), logged as `[button lamp:next]`.
    Button(Pressed),
}

/// How a request with photos is logged (its input starts with this), so a
/// replay routes it as the entry did: to homework, whatever the words.
pub const PHOTO_MARK: &str = "[photo";

/// A per-profile setting: `true` lets the homework scene show a mistake's
/// correct answer when the child asks (after the hint and the explanation).
pub const HOMEWORK_ANSWERS: &str = "homework.answers";

/// The sentence that lets the homework tutor give answers (agents/AGENTS.md,
/// agents/homework-tutor): in the parent's chat context for the child
/// (`chat.context`'s `system_prompt`), it lets the homework scene too.
pub const ANSWERS_ALLOWED_SENTENCE: &str = "家长已允许给出答案";

impl From<&str> for Input {
    fn from(text: &str) -> Self {
        Self::Text(text.to_string())
    }
}

/// How long each stage took, in microseconds (`speech_us` is 0 for typed
/// words).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Timings {
    pub speech_us: u64,
    pub route_us: u64,
    pub decide_us: u64,
    pub act_us: u64,
    pub total_us: u64,
}

/// The material a response is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MaterialRef {
    pub id: String,
    pub title: String,
}

/// The one response shape of the entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "SayResponse"))]
pub struct Response {
    /// The request's id; its decision is logged under it.
    pub trace_id: String,
    /// The scene the child is in now.
    pub scene: Scene,
    pub intent: Intent,
    pub confidence: Confidence,
    /// Where the intent came from: the offline rules or the model.
    pub routed_by: RoutedBy,
    pub decision: Decision,
    /// Why, in the guardrails' words (for parents and traces).
    pub reason: String,
    /// What was heard, when the child spoke (a recording).
    pub heard: Option<String>,
    /// Why nothing could be done, coded (`speech.nothing_heard`,
    /// `speech.audio`, `models.needed`, …); `text_zh`/`text_en` say it in
    /// plain words.
    pub error: Option<WireError>,
    /// What to say to the child, in both languages.
    pub text_zh: String,
    pub text_en: String,
    pub material: Option<MaterialRef>,
    /// The practice opened or continued, in the recite scene.
    pub practice: Option<PracticeView>,
    /// Today's due reviews not done yet, in the plan scene (titles).
    pub due: Vec<String>,
    /// Today's plan with each task's progress, in the plan scene.
    pub plan: Option<Plan>,
    /// The homework scene's card: the sheet's count, the mistake in front of
    /// the child with the help given so far, or the summary. Left out of
    /// the JSON outside the homework scene.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub homework: Option<HomeworkCard>,
    /// The companion (a model) should answer: chat, and homework in words.
    pub needs_model: bool,
    /// The companion takes the request from here (a model is set up): a
    /// front end runs it on the child's words with the app's
    /// `answer_handoff`, which hangs the run under this request's trace and
    /// ends the chat scene's wait.
    #[serde(default)]
    pub handoff: bool,
    /// The child's scene session (a new one each local day).
    pub session_id: String,
    /// Where the scene is now: the chat's step (`idle`, `clarify`,
    /// `handoff_wait`), the practice's state, the homework walk's step, or
    /// `today` in the plan.
    pub phase: String,
    /// Read the answer aloud: the child spoke or pressed a lamp button.
    pub need_tts: bool,
    /// What the lamp does (a face, a gesture, a card): a connected lamp
    /// acts them out.
    pub lamp: Vec<LampCue>,
    /// One-tap replies the child may give next.
    pub suggestions: Vec<Suggestion>,
    pub timings: Timings,
}

/// The entry: the store (sessions, decisions, the library) and the practice
/// scene it opens recitations in.
#[derive(Debug, Clone)]
pub struct Entry {
    store: Store,
    practice: PracticeScene,
    hearing: Option<Arc<dyn Hearing>>,
    checker: Option<Arc<dyn Checker>>,
    /// The model that classifies what the rules are not sure of, and how
    /// long it is waited for ([`crate::intent_model`]).
    intent_model: Option<(Arc<dyn IntentModel>, Duration)>,
    /// The OpenTelemetry collector each request's spans are sent to.
    otlp_endpoint: Option<String>,
}

fn us(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

fn scene_name(s: Scene) -> &'static str {
    match s {
        Scene::Chat => "chat",
        Scene::Recite => "recite",
        Scene::Homework => "homework",
        Scene::Plan => "plan",
    }
}

fn said(zh: impl Into<String>, en: impl Into<String>) -> (String, String) {
    (zh.into(), en.into())
}

/// The child spoke or pressed the lamp: the answer is read aloud.
fn spoken_input(input: &Input) -> bool {
    match input {
        Input::Voice(_) | Input::Speech(_) => true,
        Input::Button(p) => p.from == ButtonFrom::Lamp,
        Input::Text(_) | Input::Photos { .. } => false,
    }
}

impl Entry {
    pub fn new(store: Store, practice: PracticeScene) -> Self {
        Self {
            store,
            practice,
            hearing: None,
            checker: None,
            intent_model: None,
            otlp_endpoint: None,
        }
    }

    /// What the offline router classifies with MID or LOW confidence (not
    /// a scene-local reply, a button, photos, vague words or an answer to
    /// a pending switch) is classified by `model`, waited for at most
    /// `limit`; a model that fails, is late or answers out of shape leaves
    /// the offline result, the reason recorded in the `route` span.
    pub fn with_intent_model(mut self, model: Arc<dyn IntentModel>, limit: Duration) -> Self {
        self.intent_model = Some((model, limit));
        self
    }

    /// Each request's spans are also sent to the OpenTelemetry collector
    /// at `endpoint` (OTLP/HTTP JSON, off the request's path); `None` or a
    /// blank one sends nothing.
    pub fn with_otlp(mut self, endpoint: Option<String>) -> Self {
        self.otlp_endpoint = endpoint.filter(|e| !e.trim().is_empty());
        self
    }

    /// Photos of homework are checked (and redone answers judged) with
    /// `checker`, the configured vision model. Without one, photos are
    /// answered with the words that a parent needs to set up a model, and
    /// a redone answer is checked against the stored correct one.
    pub fn with_checker(mut self, checker: Arc<dyn Checker>) -> Self {
        self.checker = Some(checker);
        self
    }

    /// Recordings are heard with `hearing` (without, a recording is
    /// answered with `models.needed`).
    pub fn with_hearing(mut self, hearing: Arc<dyn Hearing>) -> Self {
        self.hearing = Some(hearing);
        self
    }

    /// The words in a recording or in speech the microphone heard, for a
    /// child speaking `locale` (typed words are what they are).
    fn hear(&self, said: &Input, locale: &str) -> SceneResult<String> {
        let hearing = self.hearing.as_ref().ok_or_else(|| {
            SceneError::ModelsNeeded("no speech recognition is set up here".into())
        })?;
        let lang = asr_lang(locale);
        match said {
            Input::Text(text) => Ok(text.clone()),
            Input::Voice(recording) => hearing.words(recording, lang),
            Input::Speech(speech) => hearing.words_in(speech, lang),
            Input::Photos { text, .. } => Ok(text.clone()),
            Input::Button(pressed) => Ok(pressed.logged()),
        }
    }

    /// The library as the router looks things up in it.
    fn catalog(&self) -> SceneResult<Catalog> {
        let all = self.store.materials().list(&MaterialFilter::default())?;
        Ok(Catalog::new(all.into_iter().map(|m| CatalogEntry {
            id: m.id,
            title: m.title,
            author: m.author,
            body: m.body,
        })))
    }

    /// The child's session, or a fresh one: none yet, unreadable (it is
    /// started again, never guessed), or from another local day.
    fn session(&self, profile_id: &str, tz: Tz, now: DateTime<Utc>) -> SceneResult<Session> {
        let row: Option<(String, String)> = self.store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT session, updated_at FROM scene_sessions WHERE profile_id = ?1",
                [profile_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
        })?;
        let Some((json, updated_at)) = row else {
            return Ok(Session::default());
        };
        let Ok(mut session) = serde_json::from_str::<Session>(&json) else {
            tracing::warn!("the scene session of {profile_id} cannot be read; starting a new one");
            return Ok(Session::default());
        };
        let last_day = DateTime::parse_from_rfc3339(&updated_at)
            .ok()
            .map(|t| t.with_timezone(&tz).date_naive());
        if last_day != Some(now.with_timezone(&tz).date_naive()) {
            session.active = Scene::Chat;
            session.pending = None;
            session.left = None;
            // A new day is a new session (its id is given when it is saved).
            session.id.clear();
        }
        Ok(session)
    }

    fn save(&self, profile_id: &str, session: &Session, now: DateTime<Utc>) -> SceneResult<()> {
        let json = serde_json::to_string(session).map_err(|e| SceneError::Damaged {
            what: "session",
            reason: e.to_string(),
        })?;
        self.store.with_conn(|c| {
            c.execute(
                "INSERT INTO scene_sessions (profile_id, session, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(profile_id) DO UPDATE SET session = excluded.session, updated_at = excluded.updated_at",
                params![profile_id, json, now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)],
            )?;
            Ok(())
        })?;
        Ok(())
    }

    /// The companion answered the request `trace_id` that the chat scene
    /// handed to it for `profile_id`: what it did (`later`: its run, model
    /// and tool calls) is stored as spans under that request — and sent to
    /// the OTLP collector when one is set — and the chat scene stops
    /// waiting. Returns the chat's step now.
    pub fn companion_answered(
        &self,
        profile_id: &str,
        trace_id: &str,
        later: &[crate::trace::Later],
        now: DateTime<Utc>,
    ) -> SceneResult<ChatStep> {
        let attached = self
            .store
            .with_conn(|c| Ok(crate::trace::attach(c, trace_id, later)))?;
        match attached {
            Ok(Some(spans)) => {
                if let Some(endpoint) = &self.otlp_endpoint {
                    crate::trace::otlp::export(endpoint, spans);
                }
            }
            Ok(None) => tracing::warn!("no request {trace_id} to hang the companion's run on"),
            // The child's answer is not lost for spans that cannot be written.
            Err(e) => tracing::warn!(
                "the companion's spans of request {trace_id} could not be stored: {e}"
            ),
        }
        self.chat_answered(profile_id, now)
    }

    /// The chat reported back for `profile_id` (the companion answered
    /// the request handed off): the chat scene stops waiting. Returns the
    /// chat's step now; with nothing waiting, nothing changes.
    pub fn chat_answered(&self, profile_id: &str, now: DateTime<Utc>) -> SceneResult<ChatStep> {
        let profile = self.store.profiles().get(profile_id)?;
        let tz: Tz = profile
            .time_zone
            .parse()
            .unwrap_or(chrono_tz::Asia::Shanghai);
        let mut session = self.session(profile_id, tz, now)?;
        let next = session.chat.apply(ChatEvent::Answered);
        if next != session.chat {
            session.chat = next.clone();
            self.save(profile_id, &session, now)?;
        }
        Ok(next)
    }

    /// Handles what `profile_id` typed or said at `now`; `model_ready` says
    /// whether a model is set up for the companion. The request's spans
    /// ([`crate::trace`]) are stored with its decision and, when an OTLP
    /// endpoint is set, sent off the request's path.
    pub fn process(
        &self,
        profile_id: &str,
        input: Input,
        now: DateTime<Utc>,
        model_ready: bool,
    ) -> SceneResult<Response> {
        let spans = Spans::start(&uuid::Uuid::now_v7().to_string());
        spans.current(|| self.process_in(&spans, profile_id, input, now, model_ready))
    }

    fn process_in(
        &self,
        spans: &Spans,
        profile_id: &str,
        input: Input,
        now: DateTime<Utc>,
        model_ready: bool,
    ) -> SceneResult<Response> {
        let started = Instant::now();
        let profile = self.store.profiles().get(profile_id)?;
        let tz: Tz = profile
            .time_zone
            .parse()
            .unwrap_or(chrono_tz::Asia::Shanghai);
        let before = self.session(profile_id, tz, now)?;
        // A parent's quiet hours stop everything; a daily limit reached
        // stops what needs a model (the parent is told either way).
        let limited = match crate::limits::gate(&self.store, profile_id, now)? {
            crate::limits::Gate::Open => None,
            crate::limits::Gate::Quiet(refusal) => {
                crate::limits::note(&self.store, profile_id, &refusal, now);
                let words = refusal.words();
                let e = SceneError::Limited(refusal);
                let mut r = Self::refused(&before, &e, words, "quiet hours");
                r.timings.total_us = us(started);
                return Ok(self.keep_refused(spans, profile_id, &before, spoken_input(&input), r));
            }
            crate::limits::Gate::NoModel(refusal) => Some(refusal),
        };
        let model_ready = model_ready && limited.is_none();
        let mut photos: Option<Vec<Photo>> = None;
        // The child spoke or pressed the lamp: the answer is read aloud.
        let spoken = spoken_input(&input);
        // Reading what came in: words as typed, a button as the words it
        // logs, photos checked by their bytes (speech has its own span).
        let mut parse = match &input {
            Input::Text(_) => Some(("text", 0)),
            Input::Button(_) => Some(("button", 0)),
            Input::Photos { photos, .. } => Some(("photos", photos.len())),
            Input::Voice(_) | Input::Speech(_) => None,
        }
        .map(|(kind, n)| {
            let mut span = spans.open("parse");
            span.attr("input", kind);
            if n > 0 {
                span.attr("photos", n);
            }
            span
        });
        let (text, heard, speech_us) = match input {
            Input::Text(text) => (text, None, 0),
            Input::Button(pressed) => (pressed.logged(), None, 0),
            // No photo after all: the words alone.
            Input::Photos {
                photos: paths,
                text,
            } if paths.is_empty() => (text, None, 0),
            Input::Photos {
                photos: paths,
                text,
            } => {
                let read = match Photo::read_all(&paths) {
                    Ok(p) => p,
                    Err(e) => {
                        let e: SceneError = e.into();
                        if let Some(span) = parse.take() {
                            span.fail(e.code());
                        }
                        let r = Self::not_checked(&before, &e, us(started));
                        return Ok(self.keep_refused(spans, profile_id, &before, spoken, r));
                    }
                };
                let marked = format!("{PHOTO_MARK} ×{}] {}", read.len(), text.trim());
                photos = Some(read);
                (marked.trim().to_string(), None, 0)
            }
            said => {
                let t = Instant::now();
                let span = spans.open("speech");
                let heard = self.hear(&said, &profile.locale);
                span.end_with(&heard);
                match heard {
                    Ok(words) => (words.clone(), Some(words), us(t)),
                    Err(e) => {
                        let r = Self::not_heard(&before, &e, us(t), us(started));
                        return Ok(self.keep_refused(spans, profile_id, &before, spoken, r));
                    }
                }
            }
        };
        if let Some(span) = parse.take() {
            span.ok();
        }
        let text = text.as_str();
        let t = Instant::now();
        let mut span = spans.open("route");
        let catalog = self.catalog()?;
        // The model's reply (kept for the replay) or why there is none.
        let mut model_reply: Option<String> = None;
        let mut fallback: Option<String> = None;
        let judged = {
            let mut second = |words: &str, scene: Option<Scene>, offline: &Routed| {
                // Not asked once a daily limit is reached.
                let (model, limit) = self.intent_model.as_ref().filter(|_| limited.is_none())?;
                let ask = Ask::new(words, scene, &catalog, *limit);
                let (reply, classified) = ask_model(spans, model, &ask, &catalog);
                model_reply = reply;
                match classified {
                    Ok(c) => Some(c.over(offline)),
                    Err(why) => {
                        fallback = Some(format!("model unavailable: {why}"));
                        None
                    }
                }
            };
            judge(&before, text, &catalog, now.timestamp(), &mut second)
        };
        let Judged {
            routed,
            mut decided,
            words,
            unmeant,
        } = judged;
        span.attr("intent", routed.intent.as_str()).attr(
            "confidence",
            format!("{:?}", routed.confidence).to_lowercase(),
        );
        let routed_by = if fallback.is_none() && model_reply.is_some() {
            RoutedBy::Model
        } else {
            RoutedBy::Rules
        };
        span.attr("by", routed_by.as_str());
        if let Some(reply) = &model_reply {
            span.attr("model_reply", reply.as_str());
        }
        if let Some(why) = &fallback {
            span.attr("fallback", why.as_str());
        }
        span.ok();
        let route_us = us(t);
        // Photos are checked before anything is decided or stored: a
        // failure leaves the child where they were, with nothing stored.
        let checked = match (&photos, &self.checker) {
            (Some(p), Some(checker)) if limited.is_none() => match checker.check(p) {
                Ok(sheet) => Some(sheet),
                Err(e) => {
                    let r = Self::not_checked(&before, &e, us(started));
                    return Ok(self.keep_refused(spans, profile_id, &before, spoken, r));
                }
            },
            _ => None,
        };
        let t = Instant::now();
        let mut span = spans.open("decide");
        let decision_json = serde_json::to_value(&decided.decision).unwrap_or_default();
        span.attr(
            "decision",
            decision_json
                .get("decision")
                .and_then(|d| d.as_str())
                .unwrap_or("unknown"),
        )
        .attr("reason", decided.reason);
        span.ok();
        let decide_us = us(t);
        let t = Instant::now();
        let trace_id = spans.trace_id().to_string();
        let mut response = Response {
            trace_id: trace_id.clone(),
            scene: decided.session.active,
            intent: routed.intent,
            confidence: routed.confidence,
            routed_by,
            decision: decided.decision.clone(),
            reason: decided.reason.to_string(),
            heard,
            error: None,
            text_zh: String::new(),
            text_en: String::new(),
            material: None,
            practice: None,
            due: Vec::new(),
            plan: None,
            homework: None,
            needs_model: false,
            handoff: false,
            session_id: String::new(),
            phase: String::new(),
            need_tts: false,
            lamp: Vec::new(),
            suggestions: Vec::new(),
            timings: Timings::default(),
        };
        let slot = match &decided.decision {
            Decision::Switch { material_id, .. } | Decision::AskSwitch { material_id, .. } => {
                material_id.clone()
            }
            _ => routed.material_id.clone(),
        };
        // The chat's workflow: nothing waits in chat once the child is
        // elsewhere or is asked about going elsewhere.
        if !unmeant
            && (decided.session.active != Scene::Chat
                || matches!(
                    decided.decision,
                    Decision::Exit | Decision::AskSwitch { .. }
                ))
        {
            decided.session.chat = decided.session.chat.apply(ChatEvent::Left);
        }
        let (zh, en) = match &decided.decision {
            Decision::Continue
                if before.active == Scene::Chat
                    && decided.reason == "the switch asked about was declined" =>
            {
                said(
                    "好的，那就不去了。还想做什么？",
                    "OK, we'll stay here. What would you like to do?",
                )
            }
            _ if unmeant => said(
                "这个按钮现在用不上哦。想做什么，说给我听吧。",
                "That button does nothing here. Tell me what you'd like to do.",
            ),
            Decision::Reject { reason } => {
                if text.trim().is_empty() {
                    said(
                        "没听到你说什么，再说一次吧。",
                        "I didn't hear anything. Say it again?",
                    )
                } else {
                    said(
                        "说得太长了，说短一点吧。",
                        format!("That was too long: {reason}."),
                    )
                }
            }
            Decision::Exit => said(
                "好的，先不做了。想聊点什么？",
                "OK, we've stopped. What would you like to talk about?",
            ),
            Decision::AskSwitch { to, material_id } => {
                let title = material_id
                    .as_deref()
                    .and_then(|id| self.store.materials().get(id).ok())
                    .map(|m| m.title);
                match (to, title) {
                    (Scene::Recite, Some(t)) => said(
                        format!("要去背《{t}》吗？"),
                        format!("Shall we recite {t}?"),
                    ),
                    (Scene::Recite, None) => said("要去背诗吗？", "Shall we recite something?"),
                    (Scene::Homework, _) => {
                        said("要先做作业吗？", "Shall we do your homework first?")
                    }
                    (Scene::Plan, _) => {
                        said("要看看今天的计划吗？", "Shall we look at today's plan?")
                    }
                    (Scene::Chat, _) => said("要和同桌聊天吗？", "Shall we chat?"),
                }
            }
            Decision::Switch { .. } | Decision::Continue => {
                let mut span = spans.open(&format!("scene.{}", scene_name(response.scene)));
                let acted = self.act(
                    &mut response,
                    &mut decided.session,
                    Said {
                        profile_id,
                        text: &words,
                        slot,
                        vague: crate::chat::is_vague(&words, &routed),
                        intent: routed.intent,
                        checked,
                        model_ready,
                        tz,
                        now,
                    },
                );
                if let Some(m) = &response.material {
                    span.attr("material", m.id.as_str());
                }
                span.end_with(&acted);
                acted?
            }
        };
        // What needed a model, refused for a daily limit: said kindly, and
        // the parent told.
        let (zh, en) = match &limited {
            Some(refusal) if response.needs_model => {
                crate::limits::note(&self.store, profile_id, refusal, now);
                response.error = Some(refusal.wire());
                refusal.words()
            }
            _ => (zh, en),
        };
        response.scene = decided.session.active;
        response.text_zh = zh;
        response.text_en = en;
        response.handoff = response.needs_model && model_ready && response.error.is_none();
        if decided.session.id.is_empty() {
            decided.session.id = uuid::Uuid::now_v7().to_string();
        }
        shape::shape(&mut response, &decided.session, spoken);
        self.save(profile_id, &decided.session, now)?;
        response.timings = Timings {
            speech_us,
            route_us,
            decide_us,
            act_us: us(t),
            total_us: us(started),
        };
        let decision_json = decision_json.to_string();
        let timings_json = serde_json::to_string(&response.timings).unwrap_or_default();
        let mut root = serde_json::Map::new();
        root.insert("profile".into(), profile_id.into());
        root.insert("scene".into(), scene_name(response.scene).into());
        let recorded = spans.finish(Outcome::Ok, root);
        self.store.with_conn(|c| {
            let mut tx = c.transaction()?;
            tx.execute(
                "INSERT INTO scene_decisions (id, profile_id, input, scene_before, session_before, intent, confidence, decision, reason, scene_after, said, timings, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    trace_id,
                    profile_id,
                    text,
                    scene_name(before.active),
                    serde_json::to_string(&before).unwrap_or_default(),
                    routed.intent.as_str(),
                    format!("{:?}", routed.confidence).to_lowercase(),
                    decision_json,
                    decided.reason,
                    scene_name(response.scene),
                    response.text_zh,
                    timings_json,
                    now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
                ],
            )?;
            // Spans that cannot be written are left out; the decision and
            // the child's answer are not lost for them.
            {
                let mut sp = tx.savepoint()?;
                match crate::trace::write(&sp, &recorded) {
                    Ok(()) => sp.commit()?,
                    Err(e) => {
                        tracing::warn!("the spans of request {trace_id} could not be stored: {e}");
                        sp.rollback()?;
                    }
                }
            }
            tx.commit()?;
            Ok(())
        })?;
        if let Some(endpoint) = &self.otlp_endpoint {
            crate::trace::otlp::export(endpoint, recorded);
        }
        Ok(response)
    }
}

mod homework_scene;
mod trace;
pub use self::trace::{Replayed, Trace};

#[cfg(test)]
mod tests;
