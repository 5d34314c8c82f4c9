//! A parent's daily limits for a child (issue 20): minutes of chat, model
//! calls and cost a day, and quiet hours. Kept as the child's family
//! setting `limits.daily` (synced with the family's other settings), read
//! where every request enters — [`crate::entry::Entry::process`] and the
//! app's chat start — with the clock given by the caller (tests fix it).
//!
//! - **Quiet hours** (`from`–`to`, the child's local time, crossing midnight
//!   when `from` is later than `to`): every request is answered kindly
//!   ("该休息了") and nothing else is done.
//! - **A limit reached** (the day's figures from [`crate::usage`]): what
//!   needs a model — the companion, homework photos, the router's model —
//!   is refused kindly; reciting and reviews go on, offline.
//!
//! Either way the parent gets a notice (`parent_notices`), once per child,
//! kind and local day.

use chrono::{DateTime, NaiveTime, Utc};
use deskmate_protocol::WireError;
use deskmate_store::{NewNotice, NoticeKind, Store, StoreError, StoreResult};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::usage::{self, DayUsage};

/// The per-child setting holding the [`Limits`] (JSON).
pub const LIMITS: &str = "limits.daily";

// The shapes are the protocol's (`deskmate limits --json`, the parents'
// screen); their rules are here.
pub use deskmate_protocol::family::{Limits, QuietHours};

/// The most a limit may say (a day has 1440 minutes; more is a typo).
const MAX_MINUTES: u32 = 1440;
const MAX_CALLS: u32 = 100_000;
const MAX_COST: f64 = 1000.0;

/// `HH:MM` read as a time of day, or why not.
pub fn time_of_day(s: &str) -> Result<NaiveTime, String> {
    NaiveTime::parse_from_str(s.trim(), "%H:%M")
        .map_err(|_| format!("{s:?} is not a time of day like 21:00"))
}

/// The rules of quiet hours (the type is the protocol's).
pub trait QuietHoursRules: Sized {
    /// Checked: two times of day, not the same.
    fn new(from: &str, to: &str) -> Result<Self, String>;
    /// Whether the local time `t` is in the quiet hours (`from` included,
    /// `to` not); `from` later than `to` crosses midnight.
    fn contains(&self, t: NaiveTime) -> bool;
}

impl QuietHoursRules for QuietHours {
    fn new(from: &str, to: &str) -> Result<Self, String> {
        let (f, t) = (time_of_day(from)?, time_of_day(to)?);
        if f == t {
            return Err(format!(
                "quiet hours from {from} to {to} are empty; give two different times"
            ));
        }
        Ok(Self {
            from: f.format("%H:%M").to_string(),
            to: t.format("%H:%M").to_string(),
        })
    }

    fn contains(&self, t: NaiveTime) -> bool {
        let (Ok(from), Ok(to)) = (time_of_day(&self.from), time_of_day(&self.to)) else {
            return false;
        };
        if from < to {
            from <= t && t < to
        } else {
            t >= from || t < to
        }
    }
}

/// The rules of a child's limits (the type is the protocol's).
pub trait LimitsRules {
    /// Every problem with the limits, in plain words (empty: fine).
    fn problems(&self) -> Vec<String>;
    /// Whether any limit or quiet hours are set.
    fn any(&self) -> bool;
}

impl LimitsRules for Limits {
    fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.chat_minutes.is_some_and(|m| m > MAX_MINUTES) {
            out.push(format!(
                "minutes of chat a day must be at most {MAX_MINUTES}"
            ));
        }
        if self.model_calls.is_some_and(|n| n > MAX_CALLS) {
            out.push(format!("model calls a day must be at most {MAX_CALLS}"));
        }
        if let Some(c) = self.cost_usd {
            if !(0.0..=MAX_COST).contains(&c) {
                out.push(format!(
                    "the cost a day must be from 0 to {MAX_COST} US dollars"
                ));
            }
        }
        if let Some(q) = &self.quiet {
            if let Err(e) = QuietHours::new(&q.from, &q.to) {
                out.push(e);
            }
        }
        out
    }

    fn any(&self) -> bool {
        self != &Limits::default()
    }
}

/// The child's limits (none set: no limits).
pub fn load(store: &Store, profile_id: &str) -> StoreResult<Limits> {
    Ok(store
        .settings()
        .get::<Limits>(Some(profile_id), LIMITS)?
        .unwrap_or_default())
}

/// Checks and keeps a child's limits (all unset removes the setting). A
/// parent's profile is refused: limits are for children.
pub fn save(store: &Store, profile_id: &str, limits: &Limits) -> StoreResult<()> {
    let profile = store.profiles().get(profile_id)?;
    if profile.kind != deskmate_store::ProfileKind::Child {
        return Err(StoreError::Invalid(format!(
            "{} is a parent; daily limits are for children",
            profile.name
        )));
    }
    let problems = limits.problems();
    if !problems.is_empty() {
        return Err(StoreError::Invalid(problems.join("; ")));
    }
    let quiet = match &limits.quiet {
        Some(q) => Some(QuietHours::new(&q.from, &q.to).map_err(StoreError::Invalid)?),
        None => None,
    };
    let limits = Limits {
        quiet,
        ..limits.clone()
    };
    if limits.any() {
        store.settings().set(Some(profile_id), LIMITS, &limits)
    } else {
        store.settings().remove(Some(profile_id), LIMITS)
    }
}

/// Which daily limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    ChatMinutes,
    ModelCalls,
    CostUsd,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ChatMinutes => "chat_minutes",
            Self::ModelCalls => "model_calls",
            Self::CostUsd => "cost_usd",
        }
    }
}

/// Why a request is refused.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "refused", rename_all = "snake_case")]
pub enum Refusal {
    /// Quiet hours, `from` until `to` (local `HH:MM`).
    Quiet { from: String, to: String },
    /// A daily limit reached: the day's figure and the limit.
    Reached {
        limit: Limit,
        used: f64,
        allowed: f64,
    },
}

impl Refusal {
    /// The codes a refusal is sent with.
    pub const CODES: &'static [&'static str] = &["limits.quiet_hours", "limits.reached"];

    pub fn code(&self) -> &'static str {
        match self {
            Self::Quiet { .. } => "limits.quiet_hours",
            Self::Reached { .. } => "limits.reached",
        }
    }

    /// What the child is told, kindly, in both languages.
    pub fn words(&self) -> (String, String) {
        match self {
            Self::Quiet { to, .. } => (
                format!("现在是休息时间啦，{to} 以后再来找我玩吧。好好休息！"),
                format!("It's quiet time now. Come back after {to}. Rest well!"),
            ),
            Self::Reached { limit, .. } => {
                let (zh, en) = match limit {
                    Limit::ChatMinutes => {
                        ("今天聊天的时间用完啦", "That's all the chat time for today")
                    }
                    Limit::ModelCalls | Limit::CostUsd => {
                        ("今天和 AI 伙伴说的话已经够多啦", "We've talked a lot today")
                    }
                };
                (
                    format!("{zh}，明天再聊吧！背诗和复习现在还可以做哦。"),
                    format!("{en}. Let's talk again tomorrow! You can still recite and review."),
                )
            }
        }
    }

    /// The values the UI's words need.
    pub fn params(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }

    /// The refusal as a front end receives it (the message in English).
    pub fn wire(&self) -> WireError {
        WireError {
            code: self.code().to_string(),
            message: self.words().1,
            params: self.params(),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Quiet { from, to } => write!(f, "quiet hours ({from}–{to})"),
            Self::Reached {
                limit,
                used,
                allowed,
            } => write!(
                f,
                "the daily limit of {} is reached ({used} of {allowed})",
                limit.as_str()
            ),
        }
    }
}

/// What the gate lets through at a moment.
#[derive(Debug, Clone, PartialEq)]
pub enum Gate {
    /// Nothing is limited now.
    Open,
    /// Quiet hours: nothing is done.
    Quiet(Refusal),
    /// A limit reached: nothing that needs a model is done.
    NoModel(Refusal),
}

/// The first daily limit `day` has reached, if any (a limit is reached when
/// the day's figure is at least it: a limit of 0 allows nothing).
pub fn reached(limits: &Limits, day: &DayUsage) -> Option<Refusal> {
    let checks = [
        (
            Limit::ChatMinutes,
            limits.chat_minutes.map(f64::from),
            day.chat_minutes() as f64,
        ),
        (
            Limit::ModelCalls,
            limits.model_calls.map(f64::from),
            f64::from(day.model_calls),
        ),
        (Limit::CostUsd, limits.cost_usd, day.cost_usd),
    ];
    checks.into_iter().find_map(|(limit, allowed, used)| {
        let allowed = allowed?;
        (used >= allowed).then_some(Refusal::Reached {
            limit,
            used: (used * 10_000.0).round() / 10_000.0,
            allowed,
        })
    })
}

/// The gate for `profile_id` at `now`: quiet hours first, then the daily
/// limits against the day's usage. No limits set costs one settings read.
pub fn gate(store: &Store, profile_id: &str, now: DateTime<Utc>) -> StoreResult<Gate> {
    let limits = load(store, profile_id)?;
    if !limits.any() {
        return Ok(Gate::Open);
    }
    let profile = store.profiles().get(profile_id)?;
    let local = now.with_timezone(&usage::zone(&profile.time_zone));
    if let Some(q) = &limits.quiet {
        if q.contains(local.time()) {
            return Ok(Gate::Quiet(Refusal::Quiet {
                from: q.from.clone(),
                to: q.to.clone(),
            }));
        }
    }
    if limits.chat_minutes.is_none() && limits.model_calls.is_none() && limits.cost_usd.is_none() {
        return Ok(Gate::Open);
    }
    let day = usage::today(store, profile_id, now)?;
    Ok(match reached(&limits, &day) {
        Some(r) => Gate::NoModel(r),
        None => Gate::Open,
    })
}

/// Tells the parent about `refusal` (once per child, kind and local day).
/// A notice that cannot be kept is logged; the child's answer is not held
/// up for it.
pub fn note(store: &Store, profile_id: &str, refusal: &Refusal, now: DateTime<Utc>) {
    let day = match store.profiles().get(profile_id) {
        Ok(p) => now
            .with_timezone(&usage::zone(&p.time_zone))
            .date_naive()
            .to_string(),
        Err(e) => {
            tracing::warn!("no notice for {profile_id}: {e}");
            return;
        }
    };
    let kind = match refusal {
        Refusal::Quiet { .. } => NoticeKind::QuietHours,
        Refusal::Reached { .. } => NoticeKind::LimitReached,
    };
    let mut detail = refusal.params();
    detail.insert("message".into(), json!(refusal.to_string()));
    let notice = NewNotice {
        profile_id,
        kind,
        day: &day,
        detail: Value::Object(detail),
        thread_id: None,
    };
    if let Err(e) = store.notices().add(&notice) {
        tracing::warn!("the parent's notice for {profile_id} could not be kept: {e}");
    }
}

/// The gate at `now` for a request that needs a model (the chat's start):
/// `Err` with the refusal, the parent noted, when quiet hours or a limit
/// stop it.
pub fn admit_model_use(
    store: &Store,
    profile_id: &str,
    now: DateTime<Utc>,
) -> StoreResult<Result<(), Refusal>> {
    Ok(match gate(store, profile_id, now)? {
        Gate::Open => Ok(()),
        Gate::Quiet(r) | Gate::NoModel(r) => {
            note(store, profile_id, &r, now);
            Err(r)
        }
    })
}

#[cfg(test)]
mod tests;
