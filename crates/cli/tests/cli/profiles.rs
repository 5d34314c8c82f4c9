//! `deskmate profiles export|delete` as a parent runs them: a family with
//! two children, each with attempts, reviews, an error pattern, a report, a
//! chat thread with a workspace file (a scripted model on loopback), a
//! memory and the requests behind it. The export of one child holds every
//! row of theirs the database has (counted by scanning every table for the
//! child's id) and nothing of the sibling; deleting leaves no row and no
//! file of the child — not even the words in the database file — and the
//! sibling untouched.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use deskmate_llm::scripted::{openai, ScriptedServer};
use deskmate_testkit::cli::{deskmate, json};
use serde_json::Value;

const JING_YE_SI_MISSED: &str = "床前明月光，疑是地上霜。举偷望明月，低头思故乡。";
const JING_YE_SI: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

/// Gives the child `name` two attempts (a review and an error pattern
/// follow), a daily report, a chat thread whose companion wrote a file, and
/// a memory said in words; returns the thread's id.
fn fill(dir: &Path, name: &str, likes: &str, server: &ScriptedServer) -> String {
    for (text, at) in [
        (JING_YE_SI_MISSED, "2026-03-02T08:00:00+08:00"),
        (JING_YE_SI, "2026-03-02T08:05:00+08:00"),
    ] {
        deskmate(dir)
            .args([
                "recite",
                "attempt",
                "--profile",
                name,
                "--material",
                "静夜思",
            ])
            .args(["--transcript", text, "--at", at, "--duration-secs", "12"])
            .assert()
            .success();
    }
    deskmate(dir)
        .args(["report", "daily", "--profile", name, "--date", "2026-03-02"])
        .assert()
        .success();
    let out = deskmate(dir)
        .env("DESKMATE_LLM_API_KEY", "sk-test")
        .args(["chat", "--profile", name, "--model", "openai:gpt-4o-mini"])
        .args(["--base-url", &server.base_url(), &format!("{name}的计划")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = deskmate(dir)
        .env_remove("DESKMATE_LLM_API_KEY")
        .args(["say", "--profile", name, &format!("记住我喜欢{likes}")])
        .assert()
        .success();
    assert!(!said.get_output().stdout.is_empty());
    let threads = json(
        &deskmate(dir)
            .args(["threads", "list", "--profile", name, "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(threads.as_array().unwrap().len(), 1, "{threads}");
    threads[0]["id"].as_str().unwrap().to_string()
}

/// Rows per table with any column holding `needle`, in every table of the
/// database (virtual tables are read through their shadow tables).
fn rows_holding(db: &Path, needle: &str) -> BTreeMap<String, usize> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut found = BTreeMap::new();
    for t in tables {
        let cols: Vec<String> = conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{t}')"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let any = cols
            .iter()
            .map(|c| format!("instr(CAST(\"{c}\" AS TEXT), ?1) > 0"))
            .collect::<Vec<_>>()
            .join(" OR ");
        let n: i64 = conn
            .query_row(
                &format!("SELECT count(*) FROM \"{t}\" WHERE {any}"),
                [needle],
                |r| r.get(0),
            )
            .unwrap();
        let n = usize::try_from(n).unwrap();
        if n > 0 {
            found.insert(t, n);
        }
    }
    found
}

/// Every file in the zip, by name.
fn unzip(path: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    (0..zip.len())
        .map(|i| {
            let mut f = zip.by_index(i).unwrap();
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes).unwrap();
            (f.name().unwrap().to_string(), bytes)
        })
        .collect()
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                dirs.push(e.path());
            }
            found.push(e.path());
        }
    }
    found
}

#[test]
fn a_child_is_exported_whole_and_deleted_without_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let made = json(
        &deskmate(&data)
            .args([
                "profiles",
                "setup",
                "--parent-name",
                "妈妈",
                "--pin",
                "1357",
            ])
            .args(["--child-name", "小明", "--grade", "2", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let a = made[1]["id"].as_str().unwrap().to_string();
    let b = json(
        &deskmate(&data)
            .args([
                "profiles", "add", "--name", "小红", "--kind", "child", "--json",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    let server = ScriptedServer::start(vec![
        openai::tool_calls(
            None,
            &[(
                "call_w",
                "write_file",
                r#"{"file_path": "/计划.md", "content": "小明的秘密计划"}"#,
            )],
        ),
        openai::text("写好了。"),
        openai::text("好的，小红。"),
    ])
    .unwrap();
    let thread_a = fill(&data, "小明", "恐龙", &server);
    let thread_b = fill(&data, "小红", "星星", &server);
    let workspace_a = data.join("threads").join(&thread_a);
    assert!(workspace_a.join("workspace").join("计划.md").is_file());
    // 小红's thread has files of its own too (a thread's folder is made only
    // when a tool first uses its workspace; here as one would).
    let workspace_b = data.join("threads").join(&thread_b).join("workspace");
    std::fs::create_dir_all(&workspace_b).unwrap();
    std::fs::write(workspace_b.join("星星.md"), "小红的星星").unwrap();
    // A clip the feedback voice cached (the window speaks; the CLI does not).
    std::fs::create_dir_all(data.join("voice-cache")).unwrap();
    std::fs::write(data.join("voice-cache").join("clip.wav"), b"RIFF").unwrap();

    let db = data.join("deskmate.sqlite3");
    let of_a = rows_holding(&db, &a);
    for t in [
        "profiles",
        "recite_attempts",
        "recite_reviews",
        "recite_error_patterns",
        "recite_reports",
        "threads",
        "memories",
        "scene_decisions",
        "trace_spans",
    ] {
        assert!(
            of_a.contains_key(t),
            "no {t} row of 小明 to test with: {of_a:?}"
        );
    }
    let of_b_before = rows_holding(&db, &b);

    // Export: every table's rows of 小明, nothing of 小红.
    let zip_path = dir.path().join("小明.zip");
    let exported = json(
        &deskmate(&data)
            .args(["profiles", "export", "小明", "--out"])
            .arg(&zip_path)
            .arg("--json")
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(exported["profile_id"], a.as_str());
    assert!(exported["workspace_files"].as_u64().unwrap() >= 1);
    let files = unzip(&zip_path);
    let readme = String::from_utf8(files["README.txt"].clone()).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    for t in exported["tables"].as_array().unwrap() {
        let table = t["table"].as_str().unwrap();
        let rows: Vec<Value> = serde_json::from_slice(&files[&format!("{table}.json")]).unwrap();
        assert_eq!(rows.len() as u64, t["rows"].as_u64().unwrap(), "{table}");
        // Rows that name 小明 directly are all there…
        assert!(
            rows.len() >= of_a.get(table).copied().unwrap_or(0),
            "{table}: {} exported, {:?} in the database",
            rows.len(),
            of_a.get(table)
        );
        // …the CSV has the same rows (a header line, then one per row)…
        let csv = String::from_utf8(files[&format!("{table}.csv")].clone()).unwrap();
        if rows.iter().all(|r| !r.to_string().contains("\\n")) {
            assert_eq!(csv.lines().count(), rows.len() + 1, "{table}");
        }
        // …every field is described, and nothing of 小红 came along.
        assert!(
            readme.contains(&format!("{table}.json, {table}.csv: ")),
            "{table}"
        );
        for field in rows
            .first()
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|o| o.keys())
        {
            assert!(readme.contains(&format!("  {field} (")), "{table}.{field}");
        }
        let text = String::from_utf8_lossy(&files[&format!("{table}.json")]).into_owned();
        assert!(
            !text.contains(&b) && !text.contains("小红") && !text.contains("星星"),
            "{table}"
        );
    }
    let count = |table: &str| -> i64 {
        conn.query_row(
            &format!("SELECT count(*) FROM {table} WHERE profile_id = ?1"),
            [&a],
            |r| r.get(0),
        )
        .unwrap()
    };
    let attempts: Vec<Value> = serde_json::from_slice(&files["recite_attempts.json"]).unwrap();
    assert_eq!(attempts.len() as i64, count("recite_attempts"));
    assert_eq!(attempts.len(), 2);
    let memories: Vec<Value> = serde_json::from_slice(&files["memories.json"]).unwrap();
    assert!(memories[0]["text"].as_str().unwrap().contains("恐龙"));
    assert_eq!(
        String::from_utf8_lossy(&files[&format!("workspaces/{thread_a}/计划.md")]),
        "小明的秘密计划"
    );
    assert!(!files.keys().any(|k| k.contains(&thread_b)));
    drop(conn);
    // An existing file is not overwritten.
    let again = deskmate(&data)
        .args(["profiles", "export", "小明", "--out"])
        .arg(&zip_path)
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));

    // Delete: refused without a confirmation when stdin is not a terminal,
    // and with a wrong PIN; nothing goes either time.
    let unconfirmed = deskmate(&data)
        .args(["profiles", "delete", "小明", "--pin", "1357"])
        .output()
        .unwrap();
    assert!(!unconfirmed.status.success());
    let err = String::from_utf8_lossy(&unconfirmed.stderr);
    assert!(
        err.contains("stdin is not a terminal") && err.contains("--yes"),
        "{err}"
    );
    let wrong = deskmate(&data)
        .args(["profiles", "delete", "小明", "--yes", "--pin", "0000"])
        .output()
        .unwrap();
    assert!(!wrong.status.success());
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("wrong PIN"));
    assert_eq!(rows_holding(&db, &a), of_a);

    let deleted = json(
        &deskmate(&data)
            .args([
                "profiles", "delete", "小明", "--yes", "--pin", "1357", "--json",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(deleted["sent_to_family"], false);
    assert!(deleted["tables"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["table"] == "memories" && t["rows"] == 1));
    assert_eq!(rows_holding(&db, &a), BTreeMap::new());
    assert!(!workspace_a.exists());
    assert!(!data.join("voice-cache").exists());
    for f in files_under(&data) {
        let name = f.to_string_lossy();
        assert!(!name.contains(&a) && !name.contains(&thread_a), "{name}");
        if f.is_file() {
            let bytes = std::fs::read(&f).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(&a), "{name} still holds 小明's id");
            assert!(
                !text.contains("小明的秘密计划"),
                "{name} still holds 小明's words"
            );
        }
    }
    // 小红 is untouched.
    assert_eq!(rows_holding(&db, &b), of_b_before);
    assert!(workspace_b.join("星星.md").is_file());
    let list = json(
        &deskmate(&data)
            .args(["profiles", "list", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"小红") && !names.contains(&"小明"));
}
