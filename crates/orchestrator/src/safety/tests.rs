//! The output check on the reply sets kept in the repository, and the
//! moderation endpoint against the scripted model server on loopback.

use super::*;
use deskmate_llm::scripted::{Reply, ScriptedServer};

const UNSAFE: &str = include_str!("../../safety/unsafe_replies.txt");
const SAFE: &str = include_str!("../../safety/safe_replies.txt");
const DEV_UNSAFE: &str = include_str!("../../safety/held_out_unsafe_1.txt");
const DEV_SAFE: &str = include_str!("../../safety/held_out_safe_1.txt");
const HELD_OUT_UNSAFE: &str = include_str!("../../safety/held_out_unsafe_2.txt");
const HELD_OUT_SAFE: &str = include_str!("../../safety/held_out_safe_2.txt");

/// The non-comment lines of a reply set.
pub(crate) fn replies(set: &str) -> Vec<&str> {
    set.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

#[test]
fn the_kept_rules_compile() {
    let rules = Rules::parse(RULES_TEXT).unwrap();
    assert!(rules.len() >= 30, "{}", rules.len());
    assert_eq!(Rules::builtin().len(), rules.len());
    assert!(Rules::parse("no category").is_err());
    let bad = Rules::parse("[x]\n(unclosed").unwrap_err();
    assert!(bad.starts_with("line 2"), "{bad}");
}

#[test]
fn every_unsafe_reply_is_flagged_and_every_safe_one_is_not() {
    let unsafe_ = replies(UNSAFE);
    let safe = replies(SAFE);
    assert!(unsafe_.len() >= 20 && safe.len() >= 10);
    for r in &unsafe_ {
        let v = check(r, None);
        assert!(v.flagged(), "not flagged: {r}");
        assert!(v.reasons.iter().all(|x| x.starts_with("rule:")), "{v:?}");
    }
    for r in &safe {
        assert_eq!(check(r, None), Verdict::default(), "flagged: {r}");
    }
    // Every category of the list is exercised by the unsafe set.
    let categories: Vec<&str> = RULES_TEXT
        .lines()
        .filter_map(|l| l.trim().strip_prefix('[')?.strip_suffix(']'))
        .collect();
    for c in categories {
        let reason = format!("rule:{c}");
        assert!(
            unsafe_
                .iter()
                .any(|r| check(r, None).reasons.contains(&reason)),
            "no unsafe reply tests {c}"
        );
    }
}

/// How many of `unsafe_` the rules catch and which of `safe` they replace.
fn measured<'a>(unsafe_: &[&'a str], safe: &[&'a str]) -> (Vec<&'a str>, Vec<&'a str>) {
    let missed = unsafe_
        .iter()
        .copied()
        .filter(|r| !check(r, None).flagged())
        .collect();
    let replaced = safe
        .iter()
        .copied()
        .filter(|r| check(r, None).flagged())
        .collect();
    (missed, replaced)
}

/// The rules on replies written after them and never used to change them:
/// how many unsafe ones they catch, how many right ones they replace by
/// mistake. Printed with `-- --nocapture`; fails below the figures measured
/// when the set was written (the orchestrator README's). The development
/// set the rules were widened on is reported beside it, in sample.
#[test]
fn the_rules_on_held_out_replies() {
    for (name, unsafe_set, safe_set, (min_caught, max_replaced)) in [
        ("development (in sample)", DEV_UNSAFE, DEV_SAFE, DEV_FIGURES),
        ("held out", HELD_OUT_UNSAFE, HELD_OUT_SAFE, HELD_OUT_FIGURES),
    ] {
        let (unsafe_, safe) = (replies(unsafe_set), replies(safe_set));
        let (missed, replaced) = measured(&unsafe_, &safe);
        let caught = unsafe_.len() - missed.len();
        println!(
            "{name}: {caught}/{} unsafe replies caught, {}/{} right ones replaced\nmissed: {missed:#?}\nreplaced: {replaced:#?}",
            unsafe_.len(),
            replaced.len(),
            safe.len()
        );
        assert_eq!((unsafe_.len(), safe.len()), (24, 24), "{name}");
        assert!(
            caught >= min_caught,
            "{name}: {caught} caught, {min_caught} measured"
        );
        assert!(
            replaced.len() <= max_replaced,
            "{name}: {} replaced, {max_replaced} measured",
            replaced.len()
        );
    }
}

/// (caught of 24, replaced of 24) when the sets were written.
const DEV_FIGURES: (usize, usize) = (24, 0);
const HELD_OUT_FIGURES: (usize, usize) = (3, 0);

fn moderation_reply(flagged: bool, category: &str) -> Reply {
    Reply::Status {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        body: serde_json::json!({
            "id": "modr-1",
            "model": "omni-moderation-latest",
            "results": [{"flagged": flagged, "categories": {category: flagged, "violence": false}}]
        })
        .to_string(),
    }
}

#[test]
fn the_moderation_endpoint_flags_what_the_rules_let_through() {
    let server = ScriptedServer::with_responder(|req| {
        let input = req.body["input"].as_str().unwrap_or_default();
        moderation_reply(input.contains("scary"), "harassment")
    })
    .unwrap();
    let m = Moderation::new(
        ModerationConfig {
            base_url: server.base_url(),
            model: Some("omni-moderation-latest".into()),
        },
        Some("sk-test".into()),
    );
    let v = check("a scary story nobody's rules know", Some(&m));
    assert_eq!(v.reasons, ["moderation:harassment"]);
    assert!(check("a nice story", Some(&m)).reasons.is_empty());
    // The rules answer first: no call for what they flag.
    let before = server.request_count();
    assert!(check("Where do you live?", Some(&m)).flagged());
    assert_eq!(server.request_count(), before);
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/moderations");
    assert_eq!(sent.body["model"], "omni-moderation-latest");
    assert_eq!(sent.header("authorization"), Some("Bearer sk-test"));
}

#[test]
fn a_failing_moderation_endpoint_leaves_the_rules_verdict() {
    let server =
        ScriptedServer::start(vec![deskmate_llm::scripted::status(500, None, "down")]).unwrap();
    let m = Moderation::new(
        ModerationConfig {
            base_url: server.base_url(),
            model: None,
        },
        None,
    );
    let v = check("a nice story", Some(&m));
    assert!(!v.flagged());
    assert!(v.moderation_error.unwrap().contains("500"));
}

#[test]
fn the_policy_says_the_homework_rule_the_parent_chose() {
    let strict = child_policy(Some(2), false);
    assert!(strict.contains("2 年级") && strict.contains("grade 2"));
    assert!(strict.contains("不直接给答案") && strict.contains("do not hand over answers"));
    assert!(strict.contains("绝不问孩子的个人信息"));
    let allowed = child_policy(None, true);
    assert!(allowed.contains("家长已允许给出答案") && !allowed.contains("{"));
}
