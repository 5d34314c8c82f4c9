//! What the companion cost (issue 20): tokens and cost per run, per day and
//! per child, read from the stored model calls (`llm_calls` of the child's
//! conversations, subagents' calls under the run that started them, and the
//! calls made for the child outside a conversation — the router, homework
//! checks, tips, memories — which count in the day, not in a run), and
//! the day's minutes of chat. A day is the child's local day (the profile's
//! time zone).
//!
//! **Minutes of chat** are the time between the messages of the child's
//! conversations that day, counting each gap of at most
//! [`PAUSE_COUNTED`] (a pause longer than that is the child away, not
//! chatting): a question and its answer 40 s later is 40 s of chat.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use deskmate_store::{ProfileKind, Store, StoreResult};

/// The longest gap between two messages still counted as chatting.
pub const PAUSE_COUNTED: chrono::Duration = chrono::Duration::minutes(5);

// The shapes are the protocol's (what `deskmate usage --json` prints and
// the parents' screen receives); this module fills them.
pub use deskmate_protocol::family::{DayUsage, RunUsage, UsageReport};

/// The child's time zone (Shanghai when the stored one is not a zone).
pub fn zone(time_zone: &str) -> Tz {
    time_zone.parse().unwrap_or(chrono_tz::Asia::Shanghai)
}

/// The UTC instants a local date starts and ends at.
pub fn day_bounds(tz: Tz, date: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
    let at = |d: NaiveDate| {
        let midnight = d.and_hms_opt(0, 0, 0).unwrap_or_default();
        tz.from_local_datetime(&midnight)
            .earliest()
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|| Utc.from_utc_datetime(&midnight))
    };
    (
        at(date),
        at(date.checked_add_days(Days::new(1)).unwrap_or(date)),
    )
}

fn parse_utc(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

fn u(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

/// A stored model call of a child.
struct Call {
    run_id: Option<String>,
    at: DateTime<Utc>,
    input: u64,
    output: u64,
    cached: u64,
    cost: Option<f64>,
}

/// One child's usage on each of the `days` local days up to the one `now`
/// falls in (the oldest first), with their runs.
fn child_report(
    store: &Store,
    profile_id: &str,
    name: &str,
    tz: Tz,
    days: u32,
    now: DateTime<Utc>,
) -> StoreResult<UsageReport> {
    let today = now.with_timezone(&tz).date_naive();
    let first = today
        .checked_sub_days(Days::new(u64::from(days.max(1) - 1)))
        .unwrap_or(today);
    let (from, _) = day_bounds(tz, first);
    let (_, until) = day_bounds(tz, today);
    // A day of margin on the stored text (its format is not trusted to
    // compare); each row's time is parsed and bucketed exactly below.
    let lower = (from - chrono::Duration::days(1)).to_rfc3339();
    let (calls, runs, messages) = store.with_conn(|c| {
        let calls = c
            .prepare(
                "SELECT l.run_id, l.created_at, l.input_tokens, l.output_tokens, l.cached_input_tokens, l.cost_usd
                 FROM llm_calls l LEFT JOIN threads t ON t.id = l.thread_id
                 WHERE (t.profile_id = ?1 OR l.profile_id = ?1) AND l.created_at >= ?2",
            )?
            .query_map(rusqlite::params![profile_id, lower], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, Option<f64>>(5)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let runs = c
            .prepare(
                "SELECT r.id, r.thread_id, r.parent_run_id, r.model, r.status, r.started_at
                 FROM runs r JOIN threads t ON t.id = r.thread_id
                 WHERE t.profile_id = ?1 AND r.started_at >= ?2",
            )?
            .query_map(rusqlite::params![profile_id, lower], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let messages = c
            .prepare(
                "SELECT m.created_at FROM messages m JOIN threads t ON t.id = m.thread_id
                 WHERE t.profile_id = ?1 AND m.created_at >= ?2 AND m.role IN ('user', 'assistant')",
            )?
            .query_map(rusqlite::params![profile_id, lower], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok((calls, runs, messages))
    })?;
    let within = |t: &DateTime<Utc>| *t >= from && *t < until;
    let calls: Vec<Call> = calls
        .into_iter()
        .filter_map(|(run_id, at, i, o, c, cost)| {
            let at = parse_utc(&at).filter(within)?;
            Some(Call {
                run_id,
                at,
                input: u(i),
                output: u(o),
                cached: u(c),
                cost,
            })
        })
        .collect();

    // Every day of the window, empty ones too.
    let mut by_day: BTreeMap<NaiveDate, DayUsage> = BTreeMap::new();
    let mut d = first;
    while d <= today {
        by_day.insert(
            d,
            DayUsage {
                profile_id: profile_id.to_string(),
                profile_name: name.to_string(),
                date: d.to_string(),
                ..DayUsage::default()
            },
        );
        match d.checked_add_days(Days::new(1)) {
            Some(next) => d = next,
            None => break,
        }
    }
    let local = |t: &DateTime<Utc>| t.with_timezone(&tz).date_naive();
    for call in &calls {
        if let Some(day) = by_day.get_mut(&local(&call.at)) {
            day.model_calls += 1;
            day.input_tokens += call.input;
            day.output_tokens += call.output;
            day.cached_input_tokens += call.cached;
            match call.cost {
                Some(c) => day.cost_usd += c,
                None => day.unpriced_calls += 1,
            }
        }
    }

    // Runs: each subagent's run counts under the top-level run above it.
    let parent: HashMap<&str, &str> = runs
        .iter()
        .filter_map(|(id, _, p, ..)| Some((id.as_str(), p.as_deref()?)))
        .collect();
    let root = |start: &str| -> String {
        let mut id = start.to_string();
        // A chain longer than the runs is a loop in damaged rows: stop.
        for _ in 0..=runs.len() {
            match parent.get(id.as_str()) {
                Some(p) => id = (*p).to_string(),
                None => break,
            }
        }
        id
    };
    let mut run_rows: BTreeMap<String, RunUsage> = BTreeMap::new();
    for (id, thread_id, parent_id, model, status, started_at) in &runs {
        if parent_id.is_some() {
            continue;
        }
        let Some(at) = parse_utc(started_at).filter(within) else {
            continue;
        };
        if let Some(day) = by_day.get_mut(&local(&at)) {
            day.runs += 1;
        }
        run_rows.insert(
            id.clone(),
            RunUsage {
                run_id: id.clone(),
                thread_id: thread_id.clone(),
                profile_id: profile_id.to_string(),
                model: model.clone(),
                status: status.clone(),
                started_at: started_at.clone(),
                ..RunUsage::default()
            },
        );
    }
    for call in &calls {
        let Some(run) = call.run_id.as_deref().map(root) else {
            continue;
        };
        if let Some(r) = run_rows.get_mut(&run) {
            r.model_calls += 1;
            r.input_tokens += call.input;
            r.output_tokens += call.output;
            r.cached_input_tokens += call.cached;
            r.cost_usd += call.cost.unwrap_or(0.0);
        }
    }

    // Minutes of chat: the gaps between the day's messages, long pauses left out.
    let mut times: Vec<DateTime<Utc>> = messages
        .iter()
        .filter_map(|m| parse_utc(m).filter(within))
        .collect();
    times.sort_unstable();
    for pair in times.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let gap = b - a;
        if local(&a) == local(&b) && gap <= PAUSE_COUNTED {
            if let Some(day) = by_day.get_mut(&local(&b)) {
                day.chat_seconds += u(gap.num_seconds());
            }
        }
    }

    let mut runs: Vec<RunUsage> = run_rows.into_values().collect();
    runs.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    Ok(UsageReport {
        days: by_day.into_values().collect(),
        runs,
    })
}

/// Usage of one child (`profile_id`) or of every child, over the `days`
/// local days up to `now`'s (at least 1): per child and day, and per run.
pub fn report(
    store: &Store,
    profile_id: Option<&str>,
    days: u32,
    now: DateTime<Utc>,
) -> StoreResult<UsageReport> {
    let children: Vec<_> = match profile_id {
        Some(id) => vec![store.profiles().get(id)?],
        None => store
            .profiles()
            .list()?
            .into_iter()
            .filter(|p| p.kind == ProfileKind::Child)
            .collect(),
    };
    let mut all = UsageReport::default();
    for child in children {
        let one = child_report(
            store,
            &child.id,
            &child.name,
            zone(&child.time_zone),
            days,
            now,
        )?;
        all.days.extend(one.days);
        all.runs.extend(one.runs);
    }
    all.runs.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    Ok(all)
}

/// The child's figures for the local day `now` falls in.
pub fn today(store: &Store, profile_id: &str, now: DateTime<Utc>) -> StoreResult<DayUsage> {
    let profile = store.profiles().get(profile_id)?;
    let one = child_report(
        store,
        profile_id,
        &profile.name,
        zone(&profile.time_zone),
        1,
        now,
    )?;
    Ok(one.days.into_iter().next().unwrap_or_default())
}
