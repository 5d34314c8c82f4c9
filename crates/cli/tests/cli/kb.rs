//! `deskmate kb` as a parent runs it, with the real sentence encoder
//! (DESKMATE_MODELS_DIR or `<repo>/models`) and a data directory of its
//! own: documents added, listed, searched (the passage that answers comes
//! first, with its source), removed; a damaged or unsupported file is a
//! plain error that leaves the base as it was. And the lead's
//! `rag_retrieval`: offered once a base has documents, its passages sent
//! back to the (scripted) model.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use assert_cmd::Command;
use deskmate_testkit::cli::json;
use serde_json::Value;

const DINOSAURS_MD: &str = "# 恐龙小知识\n\n\
霸王龙生活在白垩纪晚期，是一种大型肉食性恐龙。它用强壮的后腿走路，前肢很短，牙齿像香蕉一样大，主要捕食其他恐龙。\n\n\
- 三角龙头上有三只角，吃植物。\n\
- 梁龙的脖子很长，可以吃到高处的树叶。\n";

const FRACTIONS_TXT: &str = "Fractions\n\
A fraction names a part of a whole. In the fraction three quarters, the bottom number (the denominator) says the whole is cut into four equal parts, \
and the top number (the numerator) says we take three of them. To add fractions with the same denominator, add the numerators and keep the denominator.\n";

fn deskmate(dir: &Path) -> Command {
    let mut cmd = deskmate_testkit::cli::deskmate(dir);
    cmd.env("DESKMATE_MODELS_DIR", deskmate_testkit::clips::models_dir());
    cmd
}

fn run_json(dir: &Path, args: &[&str]) -> Value {
    let out = deskmate(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

/// Writes the two documents into `dir/docs` and returns their paths.
fn documents(dir: &Path) -> (String, String) {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let md = docs.join("dinosaurs.md");
    let txt = docs.join("fractions.txt");
    std::fs::write(&md, DINOSAURS_MD).unwrap();
    std::fs::write(&txt, FRACTIONS_TXT).unwrap();
    (
        md.to_string_lossy().into_owned(),
        txt.to_string_lossy().into_owned(),
    )
}

fn sources(docs: &Value) -> Vec<String> {
    docs.as_array()
        .unwrap()
        .iter()
        .map(|d| d["source"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn documents_are_added_listed_searched_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (md, txt) = documents(dir.path());

    let out = deskmate(dir.path())
        .args(["kb", "add", "--base", "science", &md, &txt])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("added dinosaurs.md to science"), "{stdout}");
    assert!(
        stdout.contains("added fractions.txt to science"),
        "{stdout}"
    );
    // Progress goes to stderr, each document counted to its end.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("dinosaurs.md: 1/1"), "{err}");

    let bases = run_json(dir.path(), &["kb", "list", "--json"]);
    let science = bases
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "science")
        .unwrap_or_else(|| panic!("no base science: {bases}"));
    assert_eq!(science["documents"], 2);
    assert_eq!(science["builtin"], false);
    let docs = run_json(dir.path(), &["kb", "list", "--base", "science", "--json"]);
    assert_eq!(sources(&docs), ["dinosaurs.md", "fractions.txt"]);
    assert_eq!(docs[0]["title"], "恐龙小知识");

    // The passage that answers comes first, in either language.
    let found = run_json(
        dir.path(),
        &[
            "kb",
            "search",
            "--base",
            "science",
            "霸王龙吃什么？",
            "--json",
        ],
    );
    assert_eq!(found[0]["source"], "dinosaurs.md", "{found}");
    assert!(found[0]["text"].as_str().unwrap().contains("肉食性"));
    let found = run_json(
        dir.path(),
        &[
            "kb",
            "search",
            "--base",
            "science",
            "--top",
            "1",
            "how do you add two fractions",
            "--json",
        ],
    );
    assert_eq!(found.as_array().unwrap().len(), 1);
    assert_eq!(found[0]["source"], "fractions.txt", "{found}");
    assert!(found[0]["score"].as_f64().unwrap() > 0.0);
    // For people: the source with the passage.
    let out = deskmate(dir.path())
        .args(["kb", "search", "--top", "1", "三角龙有几只角"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("1. dinosaurs.md — 恐龙小知识 (science"),
        "{text}"
    );
    assert!(text.contains("三只角"), "{text}");

    // The same document twice is refused, and nothing changes.
    let out = deskmate(dir.path())
        .args(["kb", "add", "--base", "science", &md])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already in knowledge base science"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    deskmate(dir.path())
        .args(["kb", "remove", "--base", "science", "dinosaurs.md"])
        .assert()
        .success();
    let docs = run_json(dir.path(), &["kb", "list", "--base", "science", "--json"]);
    assert_eq!(sources(&docs), ["fractions.txt"]);
    let found = run_json(dir.path(), &["kb", "search", "霸王龙吃什么？", "--json"]);
    assert!(found
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["source"] != "dinosaurs.md"));
    let out = deskmate(dir.path())
        .args(["kb", "remove", "--base", "science", "dinosaurs.md"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no document dinosaurs.md"));

    // The whole base.
    let out = deskmate(dir.path())
        .args(["kb", "remove", "--base", "science"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("removed the knowledge base science (1 document(s))"));
    let bases = run_json(dir.path(), &["kb", "list", "--json"]);
    assert!(
        bases
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["name"] != "science"),
        "{bases}"
    );
    let out = deskmate(dir.path())
        .args(["kb", "search", "--base", "science", "fractions"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no knowledge base named science"));
}

#[test]
fn a_damaged_or_unsupported_file_is_refused_and_the_base_stays_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let (md, txt) = documents(dir.path());
    deskmate(dir.path())
        .args(["kb", "add", &md])
        .assert()
        .success();
    let before = run_json(dir.path(), &["kb", "list", "--base", "default", "--json"]);
    assert_eq!(sources(&before), ["dinosaurs.md"]);

    let broken = dir.path().join("docs/worksheet.pdf");
    std::fs::write(
        &broken,
        b"%PDF-1.7\n%\xE2\xE3\n1 0 obj\n<< /Type /Pages /Kids [2 0 R] >>\ntrailer <<>>\n",
    )
    .unwrap();
    let sheet = dir.path().join("docs/marks.xlsx");
    std::fs::write(&sheet, b"PK\x03\x04 not a workbook either").unwrap();
    let latin1 = dir.path().join("docs/old.txt");
    std::fs::write(&latin1, b"caf\xe9 au lait").unwrap();

    for (file, words) in [
        (&broken, "the PDF is damaged or not a PDF"),
        (
            &sheet,
            "is not a supported document (use .txt, .md, .pdf or .docx)",
        ),
        (&latin1, "it is not UTF-8 text"),
    ] {
        // A good file beside it is not added either: every file is read first.
        let out = deskmate(dir.path())
            .args(["kb", "add", &txt, file.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{err}");
        assert!(
            err.contains(file.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        let after = run_json(dir.path(), &["kb", "list", "--base", "default", "--json"]);
        assert_eq!(after, before);
    }
    // A file that is not there.
    let out = deskmate(dir.path())
        .args(["kb", "add", "/nonexistent/notes.md"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/notes.md"));
    assert_eq!(
        run_json(dir.path(), &["kb", "list", "--base", "default", "--json"]),
        before
    );
}

/// Whether the model was offered the tool `name` in request `r`.
fn offers(r: &deskmate_llm::scripted::RecordedRequest, name: &str) -> bool {
    r.body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|t| t["function"]["name"] == name)
}

#[test]
fn the_lead_searches_the_knowledge_base_and_reads_the_passages() {
    use deskmate_llm::scripted::{openai, ScriptedServer};

    let dir = tempfile::tempdir().unwrap();
    let (md, txt) = documents(dir.path());
    let chat = |server: &ScriptedServer, models: &Path| {
        deskmate(dir.path())
            .env("DESKMATE_MODELS_DIR", models)
            .env("DESKMATE_LLM_API_KEY", "sk-kb-test")
            .args([
                "chat",
                "--model",
                "openai:gpt-4o-mini",
                "--base-url",
                &server.base_url(),
                "霸王龙吃什么？",
            ])
            .output()
            .unwrap()
    };
    let models = deskmate_testkit::clips::models_dir();

    // No document yet: nothing to search, so no tool.
    let server = ScriptedServer::start(vec![openai::text("我们一起查一查。")]).unwrap();
    assert!(chat(&server, &models).status.success());
    assert!(offers(&server.requests()[0], "write_file"));
    assert!(!offers(&server.requests()[0], "rag_retrieval"));

    deskmate(dir.path())
        .args(["kb", "add", "--base", "science", &md, &txt])
        .assert()
        .success();
    // Documents but no encoder: still no tool.
    let server = ScriptedServer::start(vec![openai::text("我们一起查一查。")]).unwrap();
    assert!(chat(&server, &dir.path().join("no-models"))
        .status
        .success());
    assert!(!offers(&server.requests()[0], "rag_retrieval"));

    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "call_kb",
                "rag_retrieval",
                r#"{"query": "霸王龙吃什么", "base": "science", "top_k": 2}"#,
            )],
        ),
        openai::text("霸王龙是肉食性恐龙，主要捕食其他恐龙。"),
    ])
    .unwrap();
    let out = chat(&server, &models);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("肉食性恐龙"));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(offers(&requests[0], "rag_retrieval"));
    let description = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "rag_retrieval")
        .unwrap()["function"]["description"]
        .to_string();
    assert!(
        description.contains("Knowledge bases: science"),
        "{description}"
    );
    // The passages went back to the model as the call's result.
    let result = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "call_kb")
        .unwrap_or_else(|| panic!("no result: {}", requests[1].body["messages"]))["content"]
        .as_str()
        .unwrap()
        .to_string();
    let passages: Value = serde_json::from_str(&result).unwrap_or_else(|e| panic!("{e}: {result}"));
    let passages = passages["passages"].as_array().unwrap();
    assert_eq!(passages.len(), 2, "{result}");
    assert_eq!(passages[0]["source"], "dinosaurs.md");
    assert_eq!(passages[0]["knowledge_base"], "science");
    assert!(passages[0]["text"]
        .as_str()
        .unwrap()
        .contains("大型肉食性恐龙"));
}

/// A PDF of `pages` (one text page each, small pages in Helvetica),
/// written by hand: objects, a cross-reference table with their offsets,
/// the trailer.
fn pdf_of(pages: &[Vec<String>]) -> Vec<u8> {
    let escape = |s: &str| {
        s.replace('\\', "\\\\")
            .replace('(', "\\(")
            .replace(')', "\\)")
    };
    let n = pages.len();
    // 1 catalog, 2 pages, 3 font, then a page and its content per page.
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_string(),
    ];
    for (i, lines) in pages.iter().enumerate() {
        let mut content = String::from("BT /F1 9 Tf 11 TL 20 180 Td\n");
        for line in lines {
            content.push_str(&format!("({}) Tj T*\n", escape(line)));
        }
        content.push_str("ET");
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 200] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            5 + 2 * i
        ));
        objects.push(format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ));
    }
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A 200-page PDF is embedded with its progress on stderr, stored whole,
/// and a question finds the one page that answers it. The pages are small
/// (four lines, ~250 characters: about 55 passages in all), so the test takes
/// about 5 s in a debug build on the shared 2-core machine (the test prints it).
#[test]
fn a_200_page_pdf_is_embedded_with_progress_and_its_pages_are_found() {
    let dir = tempfile::tempdir().unwrap();
    const ANIMALS: [&str; 8] = [
        "rabbit",
        "tortoise",
        "fox",
        "crow",
        "lion",
        "mouse",
        "ant",
        "grasshopper",
    ];
    let pages: Vec<Vec<String>> = (1..=200)
        .map(|p| {
            if p == 137 {
                return vec![
                    format!("Page {p}. Reading: the lighthouse."),
                    "The lighthouse keeper on Heron Island counts the seabirds".into(),
                    "every morning. Today she counted forty-two gulls and".into(),
                    "eleven puffins before breakfast.".into(),
                ];
            }
            let a = ANIMALS[p % ANIMALS.len()];
            vec![
                format!("Page {p}. Exercise {p}: adding and subtracting."),
                format!(
                    "Add {p} and {} to make {}. Take {p} from {} to get {}.",
                    p + 7,
                    2 * p + 7,
                    3 * p,
                    2 * p
                ),
                format!("Story: the {a} walked {p} steps to the river and back again."),
                format!("Copy the words: {a}, river, morning, {p} steps."),
            ]
        })
        .collect();
    let pdf = dir.path().join("workbook.pdf");
    std::fs::write(&pdf, pdf_of(&pages)).unwrap();

    let started = std::time::Instant::now();
    let out = deskmate(dir.path())
        .args([
            "kb",
            "add",
            "--base",
            "workbook",
            "--json",
            pdf.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    eprintln!(
        "200-page PDF added in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let added = json(&out.stdout);
    let total = added[0]["chunks"].as_u64().unwrap();
    assert!(total >= 50, "{added}");
    // Progress: the count first, then each batch, growing to the total.
    assert!(
        stderr.contains(&format!("workbook.pdf: {total} passages to embed")),
        "{stderr}"
    );
    let done: Vec<u64> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("workbook.pdf: "))
        .filter_map(|l| l.split_once('/'))
        .map(|(d, t)| {
            assert_eq!(t.trim().parse::<u64>().unwrap(), total, "{stderr}");
            d.parse().unwrap()
        })
        .collect();
    assert!(done.len() >= 3, "{stderr}");
    assert!(done.windows(2).all(|w| w[0] < w[1]), "{done:?}");
    assert_eq!(done.last(), Some(&total));

    let found = run_json(
        dir.path(),
        &[
            "kb",
            "search",
            "--base",
            "workbook",
            "--json",
            "How many puffins did the lighthouse keeper count?",
        ],
    );
    // The page that answers is among the passages found (each passage is
    // 1000 characters, about four of these pages of look-alike exercises,
    // so it need not be the first), and it names the page it starts on.
    let answer = found
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["text"].as_str().unwrap().contains("eleven puffins"))
        .unwrap_or_else(|| panic!("no passage with the answer: {found}"));
    assert_eq!(answer["source"], "workbook.pdf");
    let page = answer["page"].as_u64().unwrap();
    assert!((133..=137).contains(&page), "{answer}");
}
