//! `deskmate report weekly --save FILE`: the week's report as a PDF or a
//! picture to keep, a certificate when the child met the week's goals.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_testkit::cli::{add_child, deskmate, json};

/// A learned poem on Monday and its review passed when due: one review
/// sitting in the week of 2026-03-02.
fn learn_and_review(dir: &std::path::Path) {
    let attempt = |at: &str| {
        let out = deskmate(dir)
            .args([
                "recite",
                "attempt",
                "--profile",
                "小明",
                "--material",
                "静夜思",
            ])
            .args([
                "--transcript",
                "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
            ])
            .args(["--at", at, "--duration-secs", "12", "--json"])
            .assert()
            .success();
        json(&out.get_output().stdout)
    };
    let first = attempt("2026-03-02T08:00:00+08:00");
    let due = first["schedule"]["next_review_at"]
        .as_str()
        .unwrap()
        .to_string();
    let review = attempt(&due);
    assert_eq!(review["purpose"], "review", "{review}");
    assert_eq!(review["passed"], true, "{review}");
}

fn save(dir: &std::path::Path, file: &std::path::Path) -> serde_json::Value {
    let out = deskmate(dir)
        .args([
            "report",
            "weekly",
            "--profile",
            "小明",
            "--date",
            "2026-03-04",
            "--save",
        ])
        .arg(file)
        .arg("--json")
        .assert()
        .success();
    json(&out.get_output().stdout)
}

/// The colour of the page at (x, y) in page pixels (the PNG is at twice the size).
fn pixel(png_file: &std::path::Path, x: u32, y: u32) -> [u8; 3] {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_file).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (794 * 2, 1123 * 2));
    let channels = info.line_size / info.width as usize;
    let i = (y * 2 * info.width + x * 2) as usize * channels;
    [buf[i], buf[i + 1], buf[i + 2]]
}

#[test]
fn a_week_with_its_goals_met_is_saved_as_a_certificate_and_one_without_as_the_report() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    deskmate(dir.path())
        .args([
            "plan",
            "goals",
            "set",
            "--profile",
            "小明",
            "reviews-per-week",
            "1",
        ])
        .assert()
        .success();
    learn_and_review(dir.path());

    let pdf = dir.path().join("week.pdf");
    let written = save(dir.path(), &pdf);
    assert_eq!(written["certificate"], true, "{written}");
    assert_eq!(written["week_of"], "2026-03-02");
    assert_eq!(written["format"], "pdf");
    assert_eq!(
        written["goals"],
        serde_json::json!([{"kind": "reviews_per_week", "target": 1, "done": 1, "met": true}])
    );
    let bytes = std::fs::read(&pdf).unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    assert_eq!(written["bytes"], bytes.len() as u64);
    // The text is kept as text, in Chinese too (the extractor spaces the
    // glyphs out and reads "fi" as one ligature: compared without spaces).
    let text: String = pdf_extract::extract_text_from_mem(&bytes)
        .unwrap()
        .split_whitespace()
        .collect();
    for words in [
        "奖状",
        "小明完成了本周的全部目标",
        "Welldone",
        "✓本周复习1/1次",
        "背诵次数Attempts",
    ] {
        assert!(
            text.contains(words),
            "{words} not in the PDF's text: {text}"
        );
    }

    let png_file = dir.path().join("week.png");
    let written = save(dir.path(), &png_file);
    assert_eq!(written["format"], "png");
    // The certificate's gold frame at the page's edge.
    assert_eq!(pixel(&png_file, 22, 500), [0xc9, 0xa2, 0x27]);

    // A higher goal not met: the report page, no frame.
    deskmate(dir.path())
        .args([
            "plan",
            "goals",
            "set",
            "--profile",
            "小明",
            "reviews-per-week",
            "3",
        ])
        .assert()
        .success();
    let written = save(dir.path(), &png_file);
    assert_eq!(written["certificate"], false, "{written}");
    assert_eq!(written["goals"][0]["done"], 1);
    assert_eq!(written["goals"][0]["met"], false);
    assert_eq!(pixel(&png_file, 22, 500), [0xff, 0xfd, 0xf7]);
    let out = deskmate(dir.path())
        .args([
            "report",
            "weekly",
            "--profile",
            "小明",
            "--date",
            "2026-03-04",
            "--save",
        ])
        .arg(&png_file)
        .assert()
        .success();
    let said = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(said.contains("not every goal met"), "{said}");
    assert!(said.contains("reviews_per_week: 1/3 not met"), "{said}");
}

#[test]
fn saving_asks_for_a_png_or_pdf_name_and_a_weekly_report() {
    let dir = tempfile::tempdir().unwrap();
    add_child(dir.path());
    let err = |args: &[&str]| {
        let out = deskmate(dir.path()).args(args).assert().failure();
        String::from_utf8(out.get_output().stderr.clone()).unwrap()
    };
    let txt = dir.path().join("week.txt");
    let txt = txt.to_str().unwrap();
    let said = err(&[
        "report",
        "weekly",
        "--profile",
        "小明",
        "--date",
        "2026-03-04",
        "--save",
        txt,
    ]);
    assert!(said.contains(".png or .pdf"), "{said}");
    assert!(!std::path::Path::new(txt).exists());
    let said = err(&[
        "report",
        "daily",
        "--profile",
        "小明",
        "--date",
        "2026-03-04",
        "--save",
        "d.pdf",
    ]);
    assert!(said.contains("weekly"), "{said}");
}
