//! The sync server as a real process on a real (throwaway) PostgreSQL:
//! devices of one family exchange changes, replays change nothing, another
//! family's valid token reaches nothing, expired and revoked tokens are
//! refused, and a SIGKILL mid-push loses and doubles nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use deskmate_protocol::sync::{
    Change, PullResponse, PushRequest, PushResponse, RecordKind, StoredChange, TokenPair,
};
use deskmate_testkit::postgres::{cluster, SyncServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use uuid::Uuid;

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_deskmate-server"))
}

fn server(extra: &[&str]) -> (SyncServer, String) {
    let db = cluster().database();
    (SyncServer::start(bin(), &db, extra), db)
}

/// One device's view of the server.
struct Device {
    http: reqwest::Client,
    base: String,
    tokens: TokenPair,
}

async fn post(http: &reqwest::Client, url: String, body: Value) -> (StatusCode, Value) {
    let r = http.post(url).json(&body).send().await.unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn signup(base: &str, email: &str) -> Device {
    let http = reqwest::Client::new();
    let (status, body) = post(
        &http,
        format!("{base}/v1/accounts/signup"),
        json!({"email": email, "password": "correct horse", "device_name": "desktop"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    Device {
        http,
        base: base.to_string(),
        tokens: serde_json::from_value(body).unwrap(),
    }
}

impl Device {
    fn auth(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        rb.bearer_auth(&self.tokens.access_token)
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let r = self
            .auth(self.http.get(format!("{}{path}", self.base)))
            .send()
            .await
            .unwrap();
        let s = r.status();
        (s, r.json().await.unwrap_or(Value::Null))
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        let r = self
            .auth(self.http.post(format!("{}{path}", self.base)))
            .json(&body)
            .send()
            .await
            .unwrap();
        let s = r.status();
        (s, r.json().await.unwrap_or(Value::Null))
    }

    async fn delete(&self, path: &str) -> (StatusCode, Value) {
        let r = self
            .auth(self.http.delete(format!("{}{path}", self.base)))
            .send()
            .await
            .unwrap();
        let s = r.status();
        (s, r.json().await.unwrap_or(Value::Null))
    }

    /// A parent's device makes a code and a new device claims it.
    async fn pair_tablet(&self) -> Device {
        let (s, code) = self.post("/v1/pairing-codes", json!({})).await;
        assert_eq!(s, StatusCode::OK, "{code}");
        let http = reqwest::Client::new();
        let (s, body) = post(
            &http,
            format!("{}/v1/devices/pair", self.base),
            json!({"code": code["code"], "device_name": "tablet"}),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{body}");
        Device {
            http,
            base: self.base.clone(),
            tokens: serde_json::from_value(body).unwrap(),
        }
    }

    async fn push(&self, changes: &[Change]) -> PushResponse {
        let (s, body) = self
            .post(
                "/v1/sync/push",
                serde_json::to_value(PushRequest {
                    changes: changes.to_vec(),
                })
                .unwrap(),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{body}");
        serde_json::from_value(body).unwrap()
    }

    /// Pulls every page after `after`, `limit` at a time.
    async fn pull_all(&self, mut after: i64, limit: usize) -> (Vec<StoredChange>, usize) {
        let mut all = Vec::new();
        let mut pages = 0;
        loop {
            let (s, body) = self
                .get(&format!("/v1/sync/pull?after={after}&limit={limit}"))
                .await;
            assert_eq!(s, StatusCode::OK, "{body}");
            let page: PullResponse = serde_json::from_value(body).unwrap();
            pages += 1;
            assert!(page.changes.len() <= limit);
            all.extend(page.changes);
            after = page.cursor;
            if !page.more {
                return (all, pages);
            }
        }
    }
}

fn attempt(score: u32) -> Change {
    Change {
        change_id: Uuid::now_v7().to_string(),
        kind: RecordKind::Attempt,
        record_id: Uuid::now_v7().to_string(),
        hlc: format!("{:013}-0000-test", 1_700_000_000_000u64 + u64::from(score)),
        deleted: false,
        body: json!({"material": "静夜思", "score": score}),
    }
}

#[tokio::test]
async fn an_attempt_on_the_tablet_reaches_the_desktop_through_either_replica() {
    let (a, db) = server(&[]);
    // A second replica on the same database: no state between requests.
    let b = SyncServer::start(bin(), &db, &[]);
    let desktop = signup(&a.url, "li@example.com").await;
    let mut tablet = desktop.pair_tablet().await;
    tablet.base = b.url.clone();

    let made: Vec<Change> = (0..5).map(attempt).collect();
    let pushed = tablet.push(&made).await;
    assert_eq!(
        pushed,
        PushResponse {
            accepted: 5,
            duplicates: 0
        }
    );

    let (seen, pages) = desktop.pull_all(0, 2).await;
    assert_eq!(pages, 3, "5 changes in pages of 2");
    let got: Vec<&Change> = seen.iter().map(|c| &c.change).collect();
    assert_eq!(got, made.iter().collect::<Vec<_>>(), "in push order, whole");
    assert!(seen.iter().all(|c| c.device_id == tablet.tokens.device_id));
    assert!(seen.windows(2).all(|w| w[0].seq < w[1].seq));

    // Nothing new after the last cursor.
    let (rest, _) = desktop.pull_all(seen[4].seq, 10).await;
    assert!(rest.is_empty());

    // The desktop's edit reaches the tablet on the other replica.
    let edit = attempt(9);
    desktop.push(std::slice::from_ref(&edit)).await;
    let (news, _) = tablet.pull_all(seen[4].seq, 10).await;
    assert_eq!(news.len(), 1);
    assert_eq!(news[0].change, edit);

    let (s, devices) = desktop.get("/v1/devices").await;
    assert_eq!(s, StatusCode::OK);
    let kinds: Vec<&str> = devices
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["parent", "paired"]);
}

#[tokio::test]
async fn replayed_duplicated_and_reordered_pushes_change_nothing() {
    let (a, _db) = server(&[]);
    let desktop = signup(&a.url, "wang@example.com").await;
    let batch: Vec<Change> = (0..4).map(attempt).collect();
    assert_eq!(desktop.push(&batch).await.accepted, 4);
    // The same batch again (a reply lost on the way back).
    let again = desktop.push(&batch).await;
    assert_eq!(
        again,
        PushResponse {
            accepted: 0,
            duplicates: 4
        }
    );
    // Reordered, overlapping, and one change twice in one batch.
    let fresh = attempt(7);
    let mixed = vec![
        batch[3].clone(),
        fresh.clone(),
        batch[0].clone(),
        fresh.clone(),
    ];
    assert_eq!(
        desktop.push(&mixed).await,
        PushResponse {
            accepted: 1,
            duplicates: 3
        }
    );
    let (all, _) = desktop.pull_all(0, 100).await;
    let ids: HashSet<&str> = all.iter().map(|c| c.change.change_id.as_str()).collect();
    assert_eq!(all.len(), 5);
    assert_eq!(ids.len(), 5);
}

#[tokio::test]
async fn a_second_familys_valid_token_reaches_nothing_of_the_first() {
    let (a, db) = server(&[]);
    let li = signup(&a.url, "li.family@example.com").await;
    let li_tablet = li.pair_tablet().await;
    let secret = attempt(1);
    li_tablet.push(std::slice::from_ref(&secret)).await;
    let zhao = signup(&a.url, "zhao@example.com").await;

    // Pull: nothing of the Lis'.
    let (theirs, _) = zhao.pull_all(0, 100).await;
    assert!(theirs.is_empty(), "{theirs:?}");
    // Push of the same change id lands in Zhao's own log, not the Lis'.
    let mut forged = secret.clone();
    forged.body = json!({"overwritten": true});
    assert_eq!(zhao.push(&[forged]).await.accepted, 1);
    let (lis, _) = li.pull_all(0, 100).await;
    assert_eq!(lis.len(), 1);
    assert_eq!(lis[0].change, secret);
    // Devices: Zhao sees only his own and cannot remove the Lis' tablet.
    let (_, devices) = zhao.get("/v1/devices").await;
    assert_eq!(devices.as_array().unwrap().len(), 1);
    assert_eq!(devices[0]["id"], zhao.tokens.device_id.as_str());
    let (s, _) = zhao
        .delete(&format!("/v1/devices/{}", li_tablet.tokens.device_id))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (_, lis_devices) = li.get("/v1/devices").await;
    assert_eq!(lis_devices.as_array().unwrap().len(), 2);
    // Status names Zhao's own family.
    let (_, me) = zhao.get("/v1/accounts/me").await;
    assert_eq!(me["family_id"], zhao.tokens.family_id.as_str());
    assert_eq!(me["email"], "zhao@example.com");
    // A code Zhao makes pairs a device into Zhao's family, never the Lis'.
    let zhao_tablet = zhao.pair_tablet().await;
    assert_eq!(zhao_tablet.tokens.family_id, zhao.tokens.family_id);
    assert_ne!(zhao_tablet.tokens.family_id, li.tokens.family_id);

    // Row-level security again, below the server: as the app role with
    // Zhao's family set, a query with no WHERE sees none of the Lis' rows,
    // and writing a row for the Lis' family is refused.
    let (owner, conn) = tokio_postgres::connect(&db, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let lis_rows: i64 = owner
        .query_one(
            "SELECT count(*) FROM changes WHERE family_id = $1::text::uuid",
            &[&li.tokens.family_id],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(lis_rows, 1, "the owner role sees the Lis' change");
    let (client, conn) = tokio_postgres::connect(&db, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
        .batch_execute(&format!(
            "BEGIN; SET LOCAL ROLE deskmate_app; SELECT set_config('deskmate.family', '{}', true)",
            zhao.tokens.family_id
        ))
        .await
        .unwrap();
    for table in [
        "changes",
        "devices",
        "sessions",
        "accounts",
        "families",
        "pairing_codes",
        "invitations",
    ] {
        let column = if table == "families" {
            "id"
        } else {
            "family_id"
        };
        // No WHERE on the family: only RLS stands between Zhao and the Lis.
        let n: i64 = client
            .query_one(
                &format!("SELECT count(*) FROM {table} WHERE {column} <> $1::text::uuid"),
                &[&zhao.tokens.family_id],
            )
            .await
            .unwrap()
            .get(0);
        assert_eq!(n, 0, "{table} shows a row of another family");
    }
    let insert = client
        .execute(
            "INSERT INTO changes (family_id, change_id, device_id, kind, record_id, hlc, body)
             VALUES ($1::text::uuid, gen_random_uuid(), gen_random_uuid(), 'attempt', gen_random_uuid(), 'x', '{}')",
            &[&li.tokens.family_id],
        )
        .await;
    assert!(insert.is_err(), "RLS let a write into another family");
}

#[tokio::test]
async fn expired_revoked_and_spent_tokens_are_refused() {
    let (a, _db) = server(&["--access-ttl-secs", "1"]);
    let desktop = signup(&a.url, "sun@example.com").await;
    let (s, _) = desktop.get("/v1/accounts/me").await;
    assert_eq!(s, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let (s, body) = desktop.get("/v1/sync/pull").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert!(
        body["message"].as_str().unwrap().contains("expired"),
        "{body}"
    );

    // Refresh rotates: the new pair works, the spent refresh token does not,
    // and presenting it again ends the session (someone copied it).
    let http = reqwest::Client::new();
    let refresh = |t: String| {
        let http = http.clone();
        let url = format!("{}/v1/tokens/refresh", a.url);
        async move { post(&http, url, json!({"refresh_token": t})).await }
    };
    let (s, body) = refresh(desktop.tokens.refresh_token.clone()).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let renewed = Device {
        http: http.clone(),
        base: a.url.clone(),
        tokens: serde_json::from_value(body).unwrap(),
    };
    assert_eq!(renewed.get("/v1/accounts/me").await.0, StatusCode::OK);
    let (s, _) = refresh(desktop.tokens.refresh_token.clone()).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(
        renewed.get("/v1/accounts/me").await.0,
        StatusCode::UNAUTHORIZED
    );

    // Logout revokes at once, before the access token expires.
    let (a2, _db2) = server(&[]);
    let parent = signup(&a2.url, "zhou@example.com").await;
    let tablet = parent.pair_tablet().await;
    // A paired device is not a parent.
    assert_eq!(
        tablet.post("/v1/pairing-codes", json!({})).await.0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        tablet
            .delete(&format!("/v1/devices/{}", parent.tokens.device_id))
            .await
            .0,
        StatusCode::FORBIDDEN
    );
    // Removing the tablet ends its session.
    let (s, _) = parent
        .delete(&format!("/v1/devices/{}", tablet.tokens.device_id))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        tablet.get("/v1/sync/pull").await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        parent.post("/v1/accounts/logout", json!({})).await.0,
        StatusCode::OK
    );
    assert_eq!(parent.get("/v1/devices").await.0, StatusCode::UNAUTHORIZED);
    // No token, a forged one: refused.
    let (s, _) = post(
        &http,
        format!("{}/v1/sync/push", a2.url),
        json!({"changes": []}),
    )
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn login_and_pairing_are_rate_limited() {
    let (a, _db) = server(&[]);
    let parent = signup(&a.url, "wu@example.com").await;
    let http = reqwest::Client::new();
    let login = |password: &'static str| {
        post(
            &http,
            format!("{}/v1/accounts/login", a.url),
            json!({"email": "WU@example.com", "password": password, "device_name": "laptop"}),
        )
    };
    assert_eq!(login("correct horse").await.0, StatusCode::OK);
    for _ in 0..9 {
        assert_eq!(login("wrong").await.0, StatusCode::UNAUTHORIZED);
    }
    let (s, body) = login("correct horse").await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{body}");
    let _ = parent;
    let mut last = StatusCode::OK;
    for _ in 0..11 {
        last = post(
            &http,
            format!("{}/v1/devices/pair", a.url),
            json!({"code": "12345678", "device_name": "guess"}),
        )
        .await
        .0;
    }
    assert_eq!(last, StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn the_server_killed_mid_push_loses_and_doubles_nothing() {
    let (mut a, db) = server(&[]);
    let desktop = signup(&a.url, "zheng@example.com").await;
    // Big enough that the push is still in flight when the server dies.
    let batch: Vec<Change> = (0..500)
        .map(|i| {
            let mut c = attempt(i);
            c.body = json!({"score": i, "transcript_free_padding": "床前明月光".repeat(200)});
            c
        })
        .collect();
    let in_flight = {
        let http = desktop.http.clone();
        let url = format!("{}/v1/sync/push", desktop.base);
        let token = desktop.tokens.access_token.clone();
        let body = PushRequest {
            changes: batch.clone(),
        };
        tokio::spawn(async move {
            http.post(url)
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .map(|r| r.status())
        })
    };
    tokio::time::sleep(Duration::from_millis(30)).await;
    a.kill();
    let first = in_flight.await.unwrap();
    eprintln!("the push in flight when the server died: {first:?}");
    // Whatever the client saw, it retries the whole batch against the
    // restarted server.
    let _restarted = SyncServer::start_on(bin(), &db, a.port, &[]);
    let retried = desktop.push(&batch).await;
    assert_eq!(retried.accepted + retried.duplicates, 500, "{first:?}");
    let (all, _) = desktop.pull_all(0, 500).await;
    let ids: HashSet<&str> = all.iter().map(|c| c.change.change_id.as_str()).collect();
    assert_eq!(all.len(), 500);
    assert_eq!(ids.len(), 500);
}

async fn accept(base: &str, code: &str, email: &str, password: &str) -> (StatusCode, Value) {
    post(
        &reqwest::Client::new(),
        format!("{base}/v1/invitations/accept"),
        json!({"code": code, "email": email, "password": password, "device_name": "laptop"}),
    )
    .await
}

fn device(base: &str, body: Value) -> Device {
    Device {
        http: reqwest::Client::new(),
        base: base.to_string(),
        tokens: serde_json::from_value(body).unwrap(),
    }
}

#[tokio::test]
async fn a_second_parent_joins_by_invitation_once_before_it_expires() {
    let (a, db) = server(&[]);
    let li = signup(&a.url, "li@example.com").await;
    let tablet = li.pair_tablet().await;
    let attempt_on_tablet = attempt(3);
    tablet.push(std::slice::from_ref(&attempt_on_tablet)).await;

    // Only the owner invites: not the child's tablet.
    assert_eq!(
        tablet
            .post("/v1/invitations", json!({"email": "mei@example.com"}))
            .await
            .0,
        StatusCode::FORBIDDEN
    );
    let (s, inv) = li
        .post("/v1/invitations", json!({"email": "Mei@Example.com"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{inv}");
    let code = inv["code"].as_str().unwrap().to_string();
    assert_eq!(code.len(), 14, "XXXX-XXXX-XXXX: {code}");
    assert_eq!(inv["email"], "mei@example.com");

    // Another family sees none of it, cannot withdraw it, and its parent
    // cannot take it with their own account.
    let zhao = signup(&a.url, "zhao@example.com").await;
    zhao.push(&[attempt(1)]).await;
    let (s, theirs) = zhao.get("/v1/invitations").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(theirs, json!([]));
    let (s, _) = zhao
        .delete(&format!("/v1/invitations/{}", inv["id"].as_str().unwrap()))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, body) = accept(&a.url, &code, "zhao@example.com", "correct horse").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{body}");

    // The invited person signs up through it (code typed in lower case).
    let (s, body) = accept(
        &a.url,
        &code.to_lowercase(),
        "mei@example.com",
        "plum blossom",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let mei = device(&a.url, body);
    assert_eq!(mei.tokens.family_id, li.tokens.family_id);
    let (_, me) = mei.get("/v1/accounts/me").await;
    assert_eq!(me["role"], "parent");
    assert_eq!(me["email"], "mei@example.com");
    assert_eq!(li.get("/v1/accounts/me").await.1["role"], "owner");
    // A parent: sees the family's log, pairs devices, but does not invite.
    let (seen, _) = mei.pull_all(0, 100).await;
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].change, attempt_on_tablet);
    assert_eq!(
        mei.post("/v1/pairing-codes", json!({})).await.0,
        StatusCode::OK
    );
    assert_eq!(
        mei.post("/v1/invitations", json!({"email": "x@example.com"}))
            .await
            .0,
        StatusCode::FORBIDDEN
    );
    // Single use.
    let (s, _) = accept(&a.url, &code, "mei@example.com", "plum blossom").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    // Mei now signs in like any parent.
    let (s, body) = post(
        &reqwest::Client::new(),
        format!("{}/v1/accounts/login", a.url),
        json!({"email": "mei@example.com", "password": "plum blossom", "device_name": "phone"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body["family_id"], li.tokens.family_id.as_str());
    let (_, list) = li.get("/v1/invitations").await;
    assert!(list[0]["accepted_at"].is_string(), "{list}");
    assert!(
        list[0]["code"].is_null(),
        "a listed invitation shows no code"
    );
    // Inviting a parent who is already one is refused.
    assert_eq!(
        li.post("/v1/invitations", json!({"email": "mei@example.com"}))
            .await
            .0,
        StatusCode::CONFLICT
    );

    // An invitation past its time is refused.
    let (_, late) = li
        .post("/v1/invitations", json!({"email": "wen@example.com"}))
        .await;
    let (owner, conn) = tokio_postgres::connect(&db, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    owner
        .execute(
            "UPDATE invitations SET expires_at = now() - interval '1 second'
             WHERE id = $1::text::uuid",
            &[&late["id"].as_str().unwrap()],
        )
        .await
        .unwrap();
    let (s, body) = accept(
        &a.url,
        late["code"].as_str().unwrap(),
        "wen@example.com",
        "correct horse",
    )
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert!(
        body["message"].as_str().unwrap().contains("expired"),
        "{body}"
    );

    // Someone who signed up alone before being invited brings their account.
    let solo = signup(&a.url, "solo@example.com").await;
    let (_, inv) = li
        .post("/v1/invitations", json!({"email": "solo@example.com"}))
        .await;
    let code = inv["code"].as_str().unwrap();
    let (s, _) = accept(&a.url, code, "solo@example.com", "wrong password").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, body) = accept(&a.url, code, "solo@example.com", "correct horse").await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body["family_id"], li.tokens.family_id.as_str());
    assert_eq!(
        solo.get("/v1/accounts/me").await.0,
        StatusCode::UNAUTHORIZED,
        "the old family's session ended"
    );
    // A parent of a family with records of its own is not torn out of it.
    let (_, inv) = li
        .post("/v1/invitations", json!({"email": "zhao@example.com"}))
        .await;
    let (s, body) = accept(
        &a.url,
        inv["code"].as_str().unwrap(),
        "zhao@example.com",
        "correct horse",
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT, "{body}");
    let (_, me) = zhao.get("/v1/accounts/me").await;
    assert_eq!(me["family_id"], zhao.tokens.family_id.as_str());
    assert_eq!(zhao.pull_all(0, 10).await.0.len(), 1);
    let (_, parents) = li.get("/v1/devices").await;
    let kinds: Vec<&str> = parents
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["parent", "paired", "parent", "parent", "parent"]);
}

#[tokio::test]
async fn health_and_readiness_answer() {
    let (a, _db) = server(&[]);
    let r = reqwest::get(format!("{}/health", a.url)).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = reqwest::get(format!("{}/ready", a.url)).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["ready"], true);
}
