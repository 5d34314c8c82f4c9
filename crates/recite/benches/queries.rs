//! History and report queries over a year of one child's practice (~2,000
//! attempts on 60 materials, with their error patterns and review
//! schedules), on a real SQLite file. Target: < 2 ms each.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use chrono::{Duration, NaiveDate, TimeZone, Utc};
use criterion::{criterion_group, criterion_main, Criterion};
use deskmate_recite::history::{self, HistoryFilter};
use deskmate_recite::practice::{record_attempt, NewAttempt};
use deskmate_recite::report::{self, ReportType};
use deskmate_recite::{patterns, schedule, Mode, TemplateTips, Transcript};
use deskmate_store::{NewMaterial, NewProfile, Store};

const LINES: [&str; 8] = [
    "床前明月光",
    "疑是地上霜",
    "举头望明月",
    "低头思故乡",
    "白日依山尽",
    "黄河入海流",
    "欲穷千里目",
    "更上一层楼",
];

fn seeded() -> (tempfile::TempDir, Store, String, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("deskmate.sqlite3")).unwrap();
    let child = store
        .profiles()
        .add(NewProfile {
            name: "小明".into(),
            ..Default::default()
        })
        .unwrap()
        .id;
    let materials: Vec<NewMaterial> = (0..60)
        .map(|k| NewMaterial {
            slug: Some(format!("poem-{k}")),
            lang: "zh".into(),
            title: format!("诗{k}"),
            body: (0..4)
                .map(|l| LINES[(k + l) % LINES.len()])
                .collect::<Vec<_>>()
                .join("，")
                + "。",
            ..Default::default()
        })
        .collect();
    store.materials().upsert_builtin(&materials).unwrap();
    let ids: Vec<String> = (0..60)
        .map(|k| deskmate_store::builtin_id(&format!("poem-{k}")))
        .collect();
    let start = Utc.with_ymd_and_hms(2025, 3, 1, 1, 0, 0).unwrap();
    let mut n = 0u32;
    for day in 0..365i64 {
        for slot in 0..(5 + day % 3) {
            let k = ((day * 7 + slot * 13) % 60) as usize;
            let body = &materials[k].body;
            // A mix of perfect recitations, dropped lines and slips.
            let transcript = match (day + slot) % 4 {
                0 => body.clone(),
                1 => body.chars().take(12).collect(),
                2 => body.replacen('月', "越", 1).replacen('头', "偷", 1),
                _ => body.chars().rev().collect(),
            };
            record_attempt(
                &store,
                NewAttempt {
                    profile_id: child.clone(),
                    material_id: ids[k].clone(),
                    transcript: Transcript::new(transcript),
                    mode: Mode::Voice,
                    at: start + Duration::days(day) + Duration::minutes(slot * 7),
                    duration_ms: Some(25_000),
                    session_id: None,
                },
                &TemplateTips,
            )
            .unwrap();
            n += 1;
        }
    }
    eprintln!("seeded {n} attempts");
    (dir, store, child, ids)
}

fn bench(c: &mut Criterion) {
    let (_dir, store, child, ids) = seeded();
    let now = Utc.with_ymd_and_hms(2026, 2, 27, 12, 0, 0).unwrap();
    let day = NaiveDate::from_ymd_opt(2026, 2, 20).unwrap();
    c.bench_function("history: latest 50 attempts", |b| {
        b.iter(|| {
            history::list(
                &store,
                black_box(&child),
                &HistoryFilter {
                    limit: 50,
                    ..Default::default()
                },
            )
            .unwrap()
        })
    });
    c.bench_function("history: one material, all year", |b| {
        let filter = HistoryFilter {
            material_id: Some(ids[7].clone()),
            limit: 1000,
            ..Default::default()
        };
        b.iter(|| history::list(&store, black_box(&child), &filter).unwrap())
    });
    c.bench_function("history: one week", |b| {
        let filter = HistoryFilter {
            from: Some(now - Duration::days(7)),
            to: Some(now),
            limit: 1000,
            ..Default::default()
        };
        b.iter(|| history::list(&store, black_box(&child), &filter).unwrap())
    });
    c.bench_function("reviews due", |b| {
        b.iter(|| schedule::due(&store, black_box(&child), now).unwrap())
    });
    c.bench_function("error patterns: top 10", |b| {
        b.iter(|| patterns::list(&store, black_box(&child), None, 10).unwrap())
    });
    c.bench_function("report: daily, generate and store", |b| {
        b.iter(|| report::generate(&store, black_box(&child), ReportType::Daily, day, now).unwrap())
    });
    c.bench_function("report: weekly, generate and store", |b| {
        b.iter(|| {
            report::generate(&store, black_box(&child), ReportType::Weekly, day, now).unwrap()
        })
    });
    c.bench_function("report: stored weekly, read", |b| {
        b.iter(|| {
            report::stored(
                &store,
                black_box(&child),
                ReportType::Weekly,
                NaiveDate::from_ymd_opt(2026, 2, 16).unwrap(),
            )
            .unwrap()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
