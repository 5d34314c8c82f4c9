//! Uploads, recitation tasks and `multitask_strategy: enqueue` over a real
//! socket: a recitation form without its recording, with a file that is no
//! recording, or with a body that is neither JSON nor a form is refused
//! with its documented code and nothing is stored or left in `inbox/` (a
//! photo in the entry's form that is no photo is the entry's coded error,
//! as in JSON); a
//! typed check runs as a task (polled and streamed, a late client getting
//! the current state first) and a dev clip as a task for a child (one
//! whisper decode), its attempt recorded; unknown tasks are 404; a second
//! run on a busy thread is refused by default and waits its turn with
//! `enqueue`, streamed and in the background.

use super::*;

/// Sends `body` with `content_type`; the status, the body as JSON (when it
/// is) and the raw response.
async fn send_typed(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> (u16, Value, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nHost: {addr}\r\nx-api-key: {TOKEN}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(t) = content_type {
        head.push_str(&format!("Content-Type: {t}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let _ = stream.write_all(body).await;
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let text = String::from_utf8_lossy(&raw).to_string();
    let status: u16 = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let json = body
        .find('{')
        .and_then(|start| body.rfind('}').map(|end| &body[start..=end]))
        .map_or(Value::Null, |s| {
            serde_json::from_str(s).unwrap_or(Value::Null)
        });
    (status, json, text)
}

const BOUNDARY: &str = "deskmate-test-boundary";

/// A `multipart/form-data` body: text fields, then files (field, file name, bytes).
fn form(fields: &[(&str, &str)], files: &[(&str, &str, &[u8])]) -> (String, Vec<u8>) {
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    for (name, file, bytes) in files {
        body.extend_from_slice(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={BOUNDARY}"), body)
}

fn attempts(app: &Deskmate) -> i64 {
    app.store()
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM recite_attempts", [], |r| r.get(0))?))
        .unwrap()
}

/// What is left in the data directory's inbox (uploads are removed).
fn inbox(app: &Deskmate) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(app.config().data_dir.join("inbox"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

/// Polls a recitation task until it has finished.
async fn finished_task(addr: std::net::SocketAddr, id: &str, within: u64) -> Value {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(within);
    loop {
        let (status, task, _) =
            send_typed(addr, "GET", &format!("/recitation/tasks/{id}"), None, b"").await;
        assert_eq!(status, 200, "{task}");
        if matches!(task["status"].as_str(), Some("done" | "failed")) {
            return task;
        }
        assert!(std::time::Instant::now() < until, "not finished: {task}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The `event:` names and parsed `data:` of a server-sent-events response.
fn sse(raw: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut name = String::new();
    for line in raw.lines() {
        if let Some(n) = line.strip_prefix("event: ") {
            name = n.trim().to_string();
        } else if let Some(d) = line.strip_prefix("data: ") {
            out.push((
                name.clone(),
                serde_json::from_str(d.trim()).unwrap_or(Value::Null),
            ));
        }
    }
    out
}

#[tokio::test]
async fn bad_uploads_are_refused_with_their_codes_and_store_nothing() {
    let s = server().await;
    deskmate_testkit::family::child_with_jing_ye_si(s.app.store());
    for route in ["/recitation/check", "/recitation/tasks"] {
        // Neither JSON nor a form.
        let (status, body, _) = send_typed(
            s.addr,
            "POST",
            route,
            Some("text/plain"),
            "床前明月光".as_bytes(),
        )
        .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (415, Some("body.wrong_type")),
            "{route}: {body}"
        );
        // A form without the recording.
        let (kind, bytes) = form(&[("material", "静夜思"), ("profile", "小明")], &[]);
        let (status, body, _) = send_typed(s.addr, "POST", route, Some(&kind), &bytes).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (422, Some("upload.missing")),
            "{route}: {body}"
        );
        assert!(
            body["message"].as_str().unwrap().contains("audio"),
            "{body}"
        );
        // A file that is no recording, and an empty one: named as the client named them.
        for (name, bytes) in [
            ("clip.wav", &b"RIFF....WAVEnot really audio"[..]),
            ("empty.mp3", &b""[..]),
        ] {
            let (kind, body_bytes) = form(
                &[("material", "静夜思"), ("profile", "小明")],
                &[("audio", name, bytes)],
            );
            let (status, body, _) =
                send_typed(s.addr, "POST", route, Some(&kind), &body_bytes).await;
            assert_eq!(
                (status, body["code"].as_str()),
                (422, Some("speech.audio")),
                "{route} {name}: {body}"
            );
            let message = body["message"].as_str().unwrap();
            assert!(message.contains(name), "{message}");
            assert!(
                !message.contains("inbox"),
                "the server's path is not told: {message}"
            );
        }
        // A broken form.
        let (status, body, _) = send_typed(
            s.addr,
            "POST",
            route,
            Some(&format!("multipart/form-data; boundary={BOUNDARY}")),
            b"--not-the-boundary\r\n",
        )
        .await;
        assert_eq!(status / 100, 4, "{route}: {body}");
        // An unknown child, and a reference with a child (nothing to record against).
        let (kind, bytes) = form(
            &[("material", "静夜思"), ("profile", "nobody")],
            &[("audio", "a.wav", b"x")],
        );
        let (status, _, _) = send_typed(s.addr, "POST", route, Some(&kind), &bytes).await;
        assert_eq!(status, 404, "{route}");
        let (kind, bytes) = form(
            &[("reference", "床前明月光"), ("profile", "小明")],
            &[("audio", "a.wav", b"x")],
        );
        let (status, body, _) = send_typed(s.addr, "POST", route, Some(&kind), &bytes).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (422, Some("invalid")),
            "{body}"
        );
    }
    // The entry's form: no recording, no photo, no words.
    let (kind, bytes) = form(&[("profile", "小明")], &[]);
    let (status, body, _) =
        send_typed(s.addr, "POST", "/orchestrator/process", Some(&kind), &bytes).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("upload.missing")),
        "{body}"
    );
    let (kind, bytes) = form(
        &[("profile", "小明")],
        &[("audio", "said.ogg", b"OggS broken")],
    );
    let (status, body, _) =
        send_typed(s.addr, "POST", "/orchestrator/process", Some(&kind), &bytes).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("speech.audio")),
        "{body}"
    );
    let (status, body, _) = send_typed(
        s.addr,
        "POST",
        "/orchestrator/process",
        Some("text/csv"),
        b"a,b",
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (415, Some("body.wrong_type")),
        "{body}"
    );

    // Unknown tasks.
    for path in [
        "/recitation/tasks/no-such-task",
        "/recitation/tasks/no-such-task/stream",
    ] {
        let (status, body, _) = send_typed(s.addr, "GET", path, None, b"").await;
        assert_eq!(
            (status, body["code"].as_str()),
            (404, Some("not_found")),
            "{path}"
        );
    }
    assert_eq!(attempts(&s.app), 0);
    assert_eq!(
        inbox(&s.app),
        Vec::<std::path::PathBuf>::new(),
        "uploads are removed"
    );
    let decisions: i64 = s
        .app
        .store()
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM scene_decisions", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(
        decisions, 0,
        "the entry logged nothing for a refused upload"
    );
    // The entry's form: a photo that is not one is the entry's coded error
    // (as in JSON); a recording and a photo at once are refused.
    let (kind, bytes) = form(
        &[("profile", "小明"), ("text", "帮我看看作业")],
        &[("image", "sheet.jpg", b"not an image at all")],
    );
    let (status, body, _) =
        send_typed(s.addr, "POST", "/orchestrator/process", Some(&kind), &bytes).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["error"]["code"], "homework.not_an_image", "{body}");
    let (kind, bytes) = form(
        &[("profile", "小明")],
        &[("image", "sheet.jpg", b"x"), ("audio", "said.wav", b"y")],
    );
    let (status, body, _) =
        send_typed(s.addr, "POST", "/orchestrator/process", Some(&kind), &bytes).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("invalid")),
        "{body}"
    );
    assert_eq!(
        inbox(&s.app),
        Vec::<std::path::PathBuf>::new(),
        "the photo went too"
    );
}

#[tokio::test]
async fn a_typed_check_runs_as_a_task_polled_and_streamed() {
    let s = server().await;
    let check = serde_json::json!({
        "material": "静夜思",
        "transcript": "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
    });
    let (status, started, _) = send_typed(
        s.addr,
        "POST",
        "/recitation/tasks",
        Some("application/json"),
        check.to_string().as_bytes(),
    )
    .await;
    assert_eq!(status, 202, "{started}");
    let id = started["task_id"].as_str().unwrap().to_string();
    assert_eq!(started["status"], "queued");
    let task = finished_task(s.addr, &id, 10).await;
    assert_eq!(task["status"], "done", "{task}");
    assert_eq!(task["result"]["passed"], true, "{task}");
    assert_eq!(task["result"]["accuracy"].as_f64(), Some(100.0), "{task}");
    assert_eq!(task["progress"]["phase"], "done");
    assert!(task.get("error").is_none(), "{task}");
    // A client joining after the end gets the final state at once, and the stream ends.
    let (status, _, raw) = send_typed(
        s.addr,
        "GET",
        &format!("/recitation/tasks/{id}/stream"),
        None,
        b"",
    )
    .await;
    assert_eq!(status, 200);
    let events = sse(&raw);
    assert_eq!(events.len(), 1, "{raw}");
    assert_eq!(events[0].0, "done");
    assert_eq!(events[0].1["result"], task["result"]);
    // Nothing typed is recorded by a check.
    assert_eq!(attempts(&s.app), 0);
}

#[tokio::test]
async fn a_recording_task_for_a_child_hears_judges_and_records_the_attempt() {
    let models = deskmate_testkit::clips::models_dir();
    let dir = tempfile::tempdir().unwrap();
    let app = Deskmate::open(Config {
        data_dir: dir.path().to_path_buf(),
        models_dir: models,
    })
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(deskmate_api::serve(
        app.clone(),
        listener,
        deskmate_api::Security::new(TOKEN, "127.0.0.1"),
    ));
    deskmate_testkit::family::child_with_jing_ye_si(app.store());
    // 静夜思 with its second line left out (the manifest's 静夜思-4).
    let clip =
        std::fs::read(deskmate_testkit::clips::dev_clips_dir().join("静夜思-4.wav")).unwrap();
    let (kind, bytes) = form(
        &[("material", "静夜思"), ("profile", "小明")],
        &[("audio", "静夜思-4.wav", &clip)],
    );
    let (status, started, _) =
        send_typed(addr, "POST", "/recitation/tasks", Some(&kind), &bytes).await;
    assert_eq!(status, 202, "{started}");
    let id = started["task_id"].as_str().unwrap().to_string();
    // Streamed from while it runs: the phases in order, the result last.
    let (status, _, raw) = send_typed(
        addr,
        "GET",
        &format!("/recitation/tasks/{id}/stream"),
        None,
        b"",
    )
    .await;
    assert_eq!(status, 200);
    let events = sse(&raw);
    let (last, result) = events.last().unwrap();
    assert_eq!(last, "done", "{raw}");
    assert!(
        events[..events.len() - 1]
            .iter()
            .all(|(n, _)| n == "progress"),
        "{raw}"
    );
    let steps: Vec<u64> = events
        .iter()
        .map(|(_, e)| e["progress"]["step"].as_u64().unwrap())
        .collect();
    assert!(steps.windows(2).all(|w| w[0] <= w[1]), "{steps:?}");
    let checked = &result["result"];
    let errors = checked["verdict"]["errors"].as_array().unwrap();
    assert!(
        errors
            .iter()
            .any(|e| e["type"] == "omission" && e["line"] == 2 && e["uncertain"] == false),
        "{errors:?}"
    );
    assert_eq!(checked["verdict"]["passed"], false);
    assert!(checked["timings"]["asr_ms"].is_u64(), "{checked}");
    assert_eq!(checked["attempt"]["title"], "静夜思", "{checked}");
    assert_eq!(result["progress"]["records"], true);
    // Polled afterwards: the same result.
    let task = finished_task(addr, &id, 5).await;
    assert_eq!(task["result"], *checked);
    assert_eq!(attempts(&app), 1, "one attempt recorded for the child");
    assert_eq!(inbox(&app), Vec::<std::path::PathBuf>::new());
}

/// A scripted model whose answer to "慢慢说" takes a while.
fn slow_model() -> deskmate_llm::scripted::ScriptedServer {
    use deskmate_llm::scripted::{openai, Frame, Reply, ScriptedServer};
    ScriptedServer::with_responder(|req| {
        let asked = req.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .map(|m| m["content"].to_string())
            .unwrap_or_default();
        if asked.contains("慢慢说") {
            let mut f = openai::text_frames("好的，", 1);
            f.push(Frame::Delay(std::time::Duration::from_millis(700)));
            f.extend(openai::text_frames("慢慢来。", 1));
            f.extend(openai::end_frames("stop", 10, 5));
            Reply::Stream(f)
        } else {
            openai::text("pong")
        }
    })
    .unwrap()
}

fn run_body(text: &str, strategy: Option<&str>) -> Vec<u8> {
    let mut body = serde_json::json!({
        "assistant_id": "companion",
        "input": {"messages": [{"role": "user", "content": text}]},
        "stream_mode": ["values"],
    });
    if let Some(s) = strategy {
        body["multitask_strategy"] = s.into();
    }
    body.to_string().into_bytes()
}

#[tokio::test]
async fn enqueue_waits_its_turn_on_a_busy_thread_and_reject_refuses() {
    let model = slow_model();
    std::env::set_var("DESKMATE_LLM_API_KEY", "sk-api-test");
    let s = server().await;
    s.app
        .chat()
        .save_llm_settings("openai:scripted", Some(&model.base_url()))
        .unwrap();
    s.app.chat().agree_model_notice().unwrap();
    let (_, thread, _) =
        send_typed(s.addr, "POST", "/threads", Some("application/json"), b"{}").await;
    let tid = thread["thread_id"].as_str().unwrap().to_string();
    let runs = format!("/threads/{tid}/runs");
    let json = Some("application/json");

    let (status, first, _) =
        send_typed(s.addr, "POST", &runs, json, &run_body("慢慢说", None)).await;
    assert_eq!(status, 200, "{first}");
    // Reject (the default): refused while the first runs.
    for strategy in [None, Some("reject")] {
        let (status, body, _) =
            send_typed(s.addr, "POST", &runs, json, &run_body("你好", strategy)).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (409, Some("chat.busy")),
            "{strategy:?}"
        );
    }
    // Enqueue, streamed: it waits for the first, then runs.
    let (status, _, raw) = send_typed(
        s.addr,
        "POST",
        &format!("/threads/{tid}/runs/stream"),
        json,
        &run_body("你好", Some("enqueue")),
    )
    .await;
    assert_eq!(status, 200, "{raw}");
    let events = sse(&raw);
    let (end, data) = events.last().unwrap();
    assert_eq!(
        (end.as_str(), data["status"].as_str()),
        ("end", Some("success")),
        "{raw}"
    );
    let second = events[0].1["run_id"].as_str().unwrap().to_string();
    assert_ne!(second, first["run_id"].as_str().unwrap());
    let (_, state, _) =
        send_typed(s.addr, "GET", &format!("/threads/{tid}/state"), None, b"").await;
    let said: Vec<(String, String)> = state["values"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["type"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let said: Vec<(&str, &str)> = said.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(
        said,
        [
            ("human", "慢慢说"),
            ("ai", "好的，慢慢来。"),
            ("human", "你好"),
            ("ai", "pong")
        ],
        "the second run came after the first had ended"
    );

    // Enqueue in the background: answered at once as pending, started when
    // its turn comes, then joined under the id it was given.
    let (status, slow, _) =
        send_typed(s.addr, "POST", &runs, json, &run_body("慢慢说", None)).await;
    assert_eq!(status, 200);
    let (status, queued, _) = send_typed(
        s.addr,
        "POST",
        &runs,
        json,
        &run_body("再说一次", Some("enqueue")),
    )
    .await;
    assert_eq!(status, 200, "{queued}");
    assert_eq!(
        (
            queued["status"].as_str(),
            queued["multitask_strategy"].as_str()
        ),
        (Some("pending"), Some("enqueue")),
        "{queued}"
    );
    let rid = queued["run_id"].as_str().unwrap().to_string();
    assert_ne!(rid, slow["run_id"].as_str().unwrap());
    // A third, called off while it waits: it never runs.
    let (_, dropped, _) = send_typed(
        s.addr,
        "POST",
        &runs,
        json,
        &run_body("不用了", Some("enqueue")),
    )
    .await;
    assert_eq!(dropped["status"], "pending", "{dropped}");
    let did = dropped["run_id"].as_str().unwrap();
    let (status, _, _) =
        send_typed(s.addr, "POST", &format!("{runs}/{did}/cancel"), json, b"").await;
    assert_eq!(status, 204);
    let (_, gone, _) = send_typed(s.addr, "GET", &format!("{runs}/{did}"), None, b"").await;
    assert_eq!(gone["status"], "interrupted", "{gone}");

    let (status, values, _) =
        send_typed(s.addr, "GET", &format!("{runs}/{rid}/join"), None, b"").await;
    assert_eq!(status, 200, "{values}");
    let last = values["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (last["type"].as_str(), last["content"].as_str()),
        (Some("ai"), Some("pong"))
    );
    let (_, run, _) = send_typed(s.addr, "GET", &format!("{runs}/{rid}"), None, b"").await;
    assert_eq!(
        (run["run_id"].as_str(), run["status"].as_str()),
        (Some(rid.as_str()), Some("success")),
        "{run}"
    );
    // Its stream, replayed under the same id: the core's run, ended well.
    let (_, _, raw) = send_typed(s.addr, "GET", &format!("{runs}/{rid}/stream"), None, b"").await;
    let events = sse(&raw);
    assert_eq!(events.last().unwrap().1["status"], "success", "{raw}");
    let said: Vec<String> = values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !said.iter().any(|m| m == "不用了"),
        "the called-off run never ran: {said:?}"
    );
    assert_eq!(
        said[said.len() - 4..],
        ["慢慢说", "好的，慢慢来。", "再说一次", "pong"],
        "the queued run came after the slow one had ended"
    );
}

/// The `(type, id)` of each message in a thread's values.
fn conversation(values: &Value) -> Vec<(String, String)> {
    values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["type"].as_str().unwrap().to_string(),
                m["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Waits until the scripted model has been asked `n` times.
async fn asked(model: &deskmate_llm::scripted::ScriptedServer, n: usize) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while model.request_count() < n {
        assert!(std::time::Instant::now() < until, "the model was not asked");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn interrupt_stops_the_run_going_on_and_rollback_discards_it() {
    let model = slow_model();
    std::env::set_var("DESKMATE_LLM_API_KEY", "sk-api-test");
    let s = server().await;
    s.app
        .chat()
        .save_llm_settings("openai:scripted", Some(&model.base_url()))
        .unwrap();
    s.app.chat().agree_model_notice().unwrap();
    let json = Some("application/json");
    let (_, thread, _) = send_typed(s.addr, "POST", "/threads", json, b"{}").await;
    let tid = thread["thread_id"].as_str().unwrap().to_string();
    let runs = format!("/threads/{tid}/runs");
    let wait = format!("/threads/{tid}/runs/wait");

    // An unknown strategy is refused before anything runs.
    let (status, body, _) = send_typed(
        s.addr,
        "POST",
        &wait,
        json,
        &run_body("你好", Some("shove")),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("invalid")),
        "{body}"
    );
    assert_eq!(model.request_count(), 0);

    // Interrupt: the slow run is stopped where it is, its messages stay,
    // and the new run answers after them.
    let (status, first, _) =
        send_typed(s.addr, "POST", &runs, json, &run_body("慢慢说", None)).await;
    assert_eq!(status, 200, "{first}");
    let first = first["run_id"].as_str().unwrap().to_string();
    asked(&model, 1).await;
    let (status, values, _) = send_typed(
        s.addr,
        "POST",
        &wait,
        json,
        &run_body("你好", Some("interrupt")),
    )
    .await;
    assert_eq!(status, 200, "{values}");
    let after_interrupt = conversation(&values);
    let kinds: Vec<&str> = after_interrupt.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"human"));
    assert_eq!(&kinds[kinds.len() - 2..], ["human", "ai"], "{values}");
    assert_eq!(
        values["messages"][0]["content"], "慢慢说",
        "the first run's message stays"
    );
    assert_eq!(
        values["messages"].as_array().unwrap().last().unwrap()["content"],
        "pong"
    );
    let (_, run, _) = send_typed(s.addr, "GET", &format!("{runs}/{first}"), None, b"").await;
    assert_eq!(run["status"], "interrupted", "{run}");

    // Rollback: the slow run is stopped and discarded with what it wrote;
    // the thread goes on from where it was before it.
    let (status, second, _) =
        send_typed(s.addr, "POST", &runs, json, &run_body("慢慢说", None)).await;
    assert_eq!(status, 200, "{second}");
    let second = second["run_id"].as_str().unwrap().to_string();
    asked(&model, 3).await;
    let (status, values, _) = send_typed(
        s.addr,
        "POST",
        &wait,
        json,
        &run_body("再见", Some("rollback")),
    )
    .await;
    assert_eq!(status, 200, "{values}");
    let after_rollback = conversation(&values);
    assert_eq!(
        after_rollback[..after_rollback.len() - 2],
        after_interrupt[..],
        "the rolled-back run left nothing: {values}"
    );
    let last_two: Vec<&Value> = values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .take(2)
        .collect();
    assert_eq!(
        (
            last_two[1]["content"].as_str(),
            last_two[0]["content"].as_str()
        ),
        (Some("再见"), Some("pong"))
    );
    let (status, _, _) = send_typed(s.addr, "GET", &format!("{runs}/{second}"), None, b"").await;
    assert_eq!(status, 404, "the rolled-back run is gone");
    let (status, _, raw) = send_typed(s.addr, "GET", &runs, None, b"").await;
    assert_eq!(status, 200);
    assert!(raw.contains(&first) && !raw.contains(&second), "{raw}");
    // The new run's model saw the thread without the discarded run's
    // message: one 慢慢说 (the interrupted run's), not two.
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    let slow_asks = requests[3].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user" && m["content"].to_string().contains("慢慢说"))
        .count();
    assert_eq!(slow_asks, 1, "{}", requests[3].body);
}
