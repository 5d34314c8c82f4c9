//! The offline router on labelled utterances (`tests/router/*.jsonl`: what
//! children say, in Chinese and English, with the scene they are in, the
//! intent and the material meant), over the app's built-in library. The
//! dev set is the one the rules were written against; the held-out set was
//! written before the rules and never tuned on. Each fails below the
//! accuracy measured when this test was written.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::path::PathBuf;

use deskmate_orchestrator::router::{route, Catalog, CatalogEntry, Intent, Scene};
use serde::Deserialize;

#[derive(Deserialize)]
struct Labelled {
    text: String,
    scene: Option<Scene>,
    intent: Intent,
    material: Option<String>,
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
    title: String,
    author: Option<String>,
    body: String,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The built-in library, read from the app's material files.
fn library() -> Catalog {
    let mut entries = Vec::new();
    for file in ["poems-zh.toml", "texts-en.toml"] {
        let path = repo().join("crates/app/materials").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let lib: Library = toml::from_str(&text).unwrap();
        for item in lib.poem.into_iter().chain(lib.text) {
            entries.push(CatalogEntry {
                id: item.slug,
                title: item.title,
                author: item.author,
                body: item.body,
            });
        }
    }
    assert!(
        entries.len() > 100,
        "the library has {} materials",
        entries.len()
    );
    Catalog::new(entries)
}

struct Score {
    right: usize,
    total: usize,
    by_intent: HashMap<Intent, (usize, usize)>,
    materials_right: usize,
    materials_total: usize,
    misses: Vec<String>,
}

fn score(set: &str) -> Score {
    let catalog = library();
    let path = repo().join("crates/orchestrator/tests/router").join(set);
    let mut s = Score {
        right: 0,
        total: 0,
        by_intent: HashMap::new(),
        materials_right: 0,
        materials_total: 0,
        misses: Vec::new(),
    };
    for line in std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        let l: Labelled = serde_json::from_str(line).unwrap();
        let r = route(&l.text, l.scene, &catalog);
        s.total += 1;
        let entry = s.by_intent.entry(l.intent).or_default();
        entry.1 += 1;
        if r.intent == l.intent {
            s.right += 1;
            entry.0 += 1;
        } else {
            s.misses.push(format!(
                "{:?} in {:?}: {:?} ({}), expected {:?}",
                l.text, l.scene, r.intent, r.reason, l.intent
            ));
        }
        if l.intent == Intent::Recite {
            s.materials_total += 1;
            if r.material_title.as_deref() == l.material.as_deref() {
                s.materials_right += 1;
            } else {
                s.misses.push(format!(
                    "{:?}: material {:?}, expected {:?}",
                    l.text, r.material_title, l.material
                ));
            }
        }
    }
    let per_intent: Vec<String> = Intent::ALL
        .iter()
        .filter_map(|i| {
            s.by_intent
                .get(i)
                .map(|(r, t)| format!("{} {r}/{t}", i.as_str()))
        })
        .collect();
    println!(
        "{set}: {}/{} intents right ({}); materials {}/{}",
        s.right,
        s.total,
        per_intent.join(", "),
        s.materials_right,
        s.materials_total
    );
    for m in &s.misses {
        println!("  miss: {m}");
    }
    s
}

#[test]
fn the_dev_utterances_route_as_labelled() {
    let s = score("dev.jsonl");
    assert!(s.total >= 40);
    assert!(
        s.right >= 44,
        "{} of {} right: {:?}",
        s.right,
        s.total,
        s.misses
    );
    assert!(s.materials_right >= s.materials_total, "{:?}", s.misses);
}

#[test]
fn the_held_out_utterances_route_as_labelled() {
    let s = score("held_out.jsonl");
    assert!(s.total >= 40);
    // Measured when written: 39 of 40 ("one more time" inside a recitation
    // went to chat: the rule for short replies counts characters, and an
    // English phrase is long in characters). Left as measured: fixing it
    // here would tune on the held-out set.
    assert!(
        s.right >= 39,
        "{} of {} right: {:?}",
        s.right,
        s.total,
        s.misses
    );
    assert!(s.materials_right >= s.materials_total, "{:?}", s.misses);
}
