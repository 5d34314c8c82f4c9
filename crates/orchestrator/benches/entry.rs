//! Benchmark of the one entry (issue 16): the offline router's time per
//! input over the labelled utterances (target ≤ 1 ms) and what
//! `Entry::process` costs beyond speech and model time (target ≤ 5 ms) —
//! reading the child's session and the library, routing, deciding, acting
//! (opening a practice, building today's plan), storing the session and
//! logging the decision — on a real SQLite file holding the built-in
//! library.
//!
//! Run: `cargo bench -p deskmate-orchestrator --bench entry`
//! (optional argument: rounds over the conversation, default 50).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use deskmate_orchestrator::entry::{Entry, Input};
use deskmate_orchestrator::router::{route, Catalog, CatalogEntry, Scene};
use deskmate_orchestrator::scene::{
    Ears, FeedbackView, Listened, ListeningSink, PracticeScene, SceneError, SceneEvent,
    SceneResult, Speech, Stage, Transcribed,
};
use deskmate_recite::practice::{record_attempt, AttemptOutcome, NewAttempt};
use deskmate_recite::retake::{record_retake, RetakeAttempt};
use deskmate_recite::{ReciteError, TemplateTips};
use deskmate_speech::listen::Release;
use deskmate_store::{Material, NewMaterial, NewProfile, ProfileKind, Store};
use serde::Deserialize;

/// The stage: attempts recorded, nothing acted out.
struct Quiet(Store);

impl Stage for Quiet {
    fn record_attempt(&self, attempt: NewAttempt) -> Result<AttemptOutcome, ReciteError> {
        record_attempt(&self.0, attempt, &TemplateTips)
    }
    fn record_retake(&self, retake: RetakeAttempt) -> Result<AttemptOutcome, ReciteError> {
        record_retake(&self.0, retake, &TemplateTips)
    }
    fn verdict_given(&self, _: &str, _: bool, _: &FeedbackView) {}
    fn child_about_to_speak(&self) {}
    fn scene_changed(&self) {}
    fn publish(&self, _: SceneEvent) {}
}

/// No microphone: the entry gets typed words here.
struct Deaf;

impl Ears for Deaf {
    fn ready(&self) -> SceneResult<()> {
        Err(SceneError::ModelsNeeded("benchmark".into()))
    }
    fn listen(&self, _: &Material, _: &Release, _: ListeningSink) -> SceneResult<Listened> {
        Err(SceneError::ModelsNeeded("benchmark".into()))
    }
    fn transcribe(&self, _: &Material, _: Speech) -> SceneResult<Transcribed> {
        Err(SceneError::ModelsNeeded("benchmark".into()))
    }
}

#[derive(Deserialize)]
struct Labelled {
    text: String,
    scene: Option<Scene>,
}

#[derive(Deserialize)]
struct Library {
    #[serde(default)]
    poem: Vec<Item>,
    #[serde(default)]
    text: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    slug: String,
    lang: Option<String>,
    title: String,
    author: Option<String>,
    body: String,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn library() -> Result<Vec<(Item, &'static str)>, String> {
    let mut all = Vec::new();
    for (file, lang) in [("poems-zh.toml", "zh"), ("texts-en.toml", "en")] {
        let path = repo().join("crates/app/materials").join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let lib: Library = toml::from_str(&text).map_err(|e| format!("{file}: {e}"))?;
        all.extend(lib.poem.into_iter().chain(lib.text).map(|i| (i, lang)));
    }
    Ok(all)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn report(name: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    let ms = |d: Duration| format!("{:.3} ms", d.as_secs_f64() * 1000.0);
    let p99 = percentile(&samples, 99.0);
    println!(
        "{name:<34} n={:<5} p50 {}  p90 {}  p99 {}  max {}",
        samples.len(),
        ms(percentile(&samples, 50.0)),
        ms(percentile(&samples, 90.0)),
        ms(p99),
        ms(samples.last().copied().unwrap_or_default()),
    );
    p99
}

fn run() -> Result<bool, String> {
    let rounds: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    let items = library()?;
    let catalog = Catalog::new(items.iter().map(|(i, _)| CatalogEntry {
        id: i.slug.clone(),
        title: i.title.clone(),
        author: i.author.clone(),
        body: i.body.clone(),
    }));
    let mut said = Vec::new();
    for set in ["dev.jsonl", "held_out.jsonl"] {
        let path = repo().join("crates/orchestrator/tests/router").join(set);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            said.push(serde_json::from_str::<Labelled>(line).map_err(|e| e.to_string())?);
        }
    }
    let mut routing = Vec::new();
    for _ in 0..rounds {
        for l in &said {
            let t = Instant::now();
            std::hint::black_box(route(&l.text, l.scene, &catalog));
            routing.push(t.elapsed());
        }
    }

    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let store = Store::open(&dir.path().join("deskmate.sqlite3")).map_err(|e| e.to_string())?;
    let builtin: Vec<NewMaterial> = items
        .iter()
        .map(|(i, lang)| NewMaterial {
            slug: Some(i.slug.clone()),
            lang: i.lang.clone().unwrap_or_else(|| (*lang).to_string()),
            title: i.title.clone(),
            author: i.author.clone(),
            body: i.body.clone(),
            ..NewMaterial::default()
        })
        .collect();
    store
        .materials()
        .upsert_builtin(&builtin)
        .map_err(|e| e.to_string())?;
    let child = store
        .profiles()
        .add(NewProfile {
            kind: Some(ProfileKind::Child),
            name: "小明".into(),
            ..NewProfile::default()
        })
        .map_err(|e| e.to_string())?;
    store
        .goals()
        .set(&child.id, deskmate_store::GoalKind::NewPerDay, 2)
        .map_err(|e| e.to_string())?;
    let scene = PracticeScene::new(
        store.clone(),
        Arc::new(Quiet(store.clone())),
        Arc::new(Deaf),
    );
    let entry = Entry::new(store, scene);
    // A conversation: a poem, leaving it, the plan and its walk, a chat.
    let conversation = [
        "我要背静夜思",
        "不背了",
        "今天做什么",
        "下一个",
        "下一个",
        "月亮上有兔子吗",
    ];
    let mut overhead = Vec::new();
    for _ in 0..rounds {
        for text in conversation {
            let r = entry
                .process(&child.id, Input::Text(text.into()), Utc::now(), false)
                .map_err(|e| format!("{text}: {e}"))?;
            overhead.push(Duration::from_micros(
                r.timings.total_us.saturating_sub(r.timings.speech_us),
            ));
        }
    }
    println!(
        "{} labelled inputs, {} materials, {rounds} rounds",
        said.len(),
        items.len()
    );
    let route_p99 = report("route (per input)", routing);
    let process_p99 = report("process beyond speech and model", overhead);
    let ok = route_p99 <= Duration::from_millis(1) && process_p99 <= Duration::from_millis(5);
    println!(
        "targets: route p99 ≤ 1 ms, process p99 ≤ 5 ms: {}",
        if ok { "met" } else { "NOT met" }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("benchmark failed: {e}");
            ExitCode::FAILURE
        }
    }
}
