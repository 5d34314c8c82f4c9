//! The shared development fixture (`../shared/recite-dev-cases.jsonl`, 228
//! hand-labelled cases) checked through the library API: accuracy within one
//! unit and every expected error found (right type, line ±1) on ≥ 98 % of the
//! cases, and no error where none is expected. The CLI test
//! (`crates/cli/tests/recite.rs`) runs the same agreement through
//! `deskmate recite check --batch`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use deskmate_recite::{
    check, ErrorType, Lang, Mode, Reference, TemplateTips, TipRequest, TipWriter, Transcript,
};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    id: String,
    reference: String,
    transcript: String,
    mode: String,
    lang: String,
    units: usize,
    expected_accuracy: f64,
    expected_errors: Vec<Expected>,
    note: String,
}

#[derive(Deserialize)]
struct Expected {
    #[serde(rename = "type")]
    error_type: String,
    line: usize,
}

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/recite-dev-cases.jsonl")
}

fn cases() -> Vec<Case> {
    let path = fixture_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the shared recitation fixture is missing at {} ({e}); it lives in ../shared beside the repository \
             (CI always has it)",
            path.display()
        )
    });
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn fixture_agreement() {
    let cases = cases();
    assert_eq!(cases.len(), 228, "the fixture changed size");
    let (mut acc_ok, mut errs_ok, mut clean_total, mut clean_ok) = (0, 0, 0, 0);
    let mut report = Vec::new();
    let mut extra = Vec::new();
    for c in &cases {
        let lang: Lang = c.lang.parse().unwrap();
        let mode: Mode = c.mode.parse().unwrap();
        let reference = Reference::new(&c.reference, Some(lang)).unwrap();
        let v = check(&reference, &Transcript::new(c.transcript.as_str()), mode).unwrap();
        assert_eq!(v.units, c.units, "{}: unit count", c.id);
        let one_unit = 100.0 / c.units as f64;
        let a_ok = (v.accuracy - c.expected_accuracy).abs() <= one_unit + 0.01;
        let e_ok = c.expected_errors.iter().all(|x| {
            let t = ErrorType::parse(&x.error_type).unwrap();
            v.errors
                .iter()
                .any(|e| e.error_type == t && e.line.abs_diff(x.line) <= 1)
        });
        acc_ok += usize::from(a_ok);
        errs_ok += usize::from(e_ok);
        if c.expected_errors.is_empty() {
            clean_total += 1;
            let clean = v
                .errors
                .iter()
                .all(|e| e.error_type == ErrorType::Insertion && mode == Mode::Voice);
            clean_ok += usize::from(clean);
            if !clean {
                report.push(format!("NOT CLEAN {} ({}): {:?}", c.id, c.note, v.errors));
            }
        }
        if (v.accuracy - c.expected_accuracy).abs() > 0.01
            || v.errors.len() != c.expected_errors.len()
        {
            extra.push(format!(
                "{} ({}): {} vs {}; {:?}",
                c.id,
                c.note,
                v.accuracy,
                c.expected_accuracy,
                v.errors
                    .iter()
                    .map(|e| format!(
                        "{}/{}@{}:{} {:?}->{:?}",
                        e.error_type.as_str(),
                        e.kind.as_str(),
                        e.line,
                        e.offset,
                        e.expected,
                        e.actual
                    ))
                    .collect::<Vec<_>>()
            ));
        }
        if !a_ok || !e_ok {
            let got: Vec<String> = v
                .errors
                .iter()
                .map(|e| format!("{}@{}", e.error_type.as_str(), e.line))
                .collect();
            let want: Vec<String> = c
                .expected_errors
                .iter()
                .map(|e| format!("{}@{}", e.error_type, e.line))
                .collect();
            report.push(format!(
                "{} ({}): accuracy {} vs {}; errors {:?} vs expected {:?}",
                c.id, c.note, v.accuracy, c.expected_accuracy, got, want
            ));
        }
    }
    let n = cases.len() as f64;
    let (acc_rate, err_rate) = (acc_ok as f64 / n * 100.0, errs_ok as f64 / n * 100.0);
    println!(
        "accuracy within one unit: {acc_ok}/{} ({acc_rate:.1} %)",
        cases.len()
    );
    println!(
        "expected errors found:    {errs_ok}/{} ({err_rate:.1} %)",
        cases.len()
    );
    println!("clean where none expected: {clean_ok}/{clean_total}");
    for r in &report {
        println!("{r}");
    }
    println!("cases where the exact accuracy or the error count differs from the label:");
    for r in &extra {
        println!("  {r}");
    }
    assert!(
        acc_rate >= 98.0,
        "accuracy agreement {acc_rate:.1} % < 98 %"
    );
    assert!(err_rate >= 98.0, "error agreement {err_rate:.1} % < 98 %");
    assert_eq!(
        clean_ok, clean_total,
        "errors reported where none are expected"
    );
}

/// No tip is empty or generic: every error of every fixture case gets a tip
/// that names something of the text itself.
#[test]
fn every_fixture_error_gets_a_concrete_tip() {
    let tips = TemplateTips;
    let mut seen = 0;
    for c in cases() {
        let lang: Lang = c.lang.parse().unwrap();
        let mode: Mode = c.mode.parse().unwrap();
        let reference = Reference::new(&c.reference, Some(lang)).unwrap();
        let v = check(&reference, &Transcript::new(c.transcript.as_str()), mode).unwrap();
        for e in &v.errors {
            let req = TipRequest::from_error(&reference, e, mode, "", 2);
            let tip = tips.write_tip(&req).unwrap();
            for (text, which) in [(&tip.zh, "zh"), (&tip.en, "en")] {
                assert!(
                    text.chars().count() >= 12,
                    "{}: {which} tip too short: {text:?}",
                    c.id
                );
                let concrete = req.expected.split_whitespace().any(|w| text.contains(w))
                    || req
                        .line_text
                        .chars()
                        .filter(|ch| !ch.is_whitespace())
                        .any(|ch| text.contains(ch))
                    || (!req.actual.is_empty() && text.contains(req.actual.as_str()));
                assert!(
                    concrete,
                    "{}: {which} tip does not name the text: {text:?}",
                    c.id
                );
            }
            assert_ne!(tip.zh, tip.en);
            seen += 1;
        }
    }
    assert!(seen > 150, "only {seen} errors in the fixture");
}
