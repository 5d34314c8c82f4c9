//! The homework walk as a table (every step × event), the model's reply
//! read or refused, and scene-local replies read.

use super::*;

fn q(question: &str, answer: &str, correct: bool) -> CheckedQuestion {
    CheckedQuestion {
        question: question.into(),
        child_answer: answer.into(),
        correct,
        hint: if correct {
            String::new()
        } else {
            format!("看看 {question}")
        },
        explanation: if correct {
            String::new()
        } else {
            "先算个位，再算十位。".into()
        },
        correct_answer: "17".into(),
    }
}

fn sheet() -> Worksheet {
    Worksheet {
        subject: "数学".into(),
        questions: vec![
            q("12+5=", "17", true),
            q("9+8=", "16", false),
            q("20-3=", "17", true),
        ],
    }
}

fn walking(step: Step) -> Walk {
    Walk {
        sheet: Some(sheet()),
        mistake_ids: vec!["m1".into()],
        put_right: vec![],
        step,
    }
}

#[test]
fn the_walk_goes_hint_explanation_answer_only_when_allowed_then_summary() {
    let start = Walk::default()
        .apply(Event::Checked {
            sheet: sheet(),
            mistake_ids: vec!["m1".into()],
        })
        .unwrap();
    let hint = Step::Mistake {
        index: 0,
        help: Help::Hint,
    };
    let explained = Step::Mistake {
        index: 0,
        help: Help::Explanation,
    };
    let answered = Step::Mistake {
        index: 0,
        help: Help::Answer,
    };
    assert_eq!(start.step, hint);
    let not_allowed = Event::MoreHelp {
        answers_allowed: false,
    };
    let allowed = Event::MoreHelp {
        answers_allowed: true,
    };
    // (from, event, to) — every step the walk can be in, every event.
    let table: Vec<(Step, Event, Option<Step>)> = vec![
        (hint.clone(), not_allowed.clone(), Some(explained.clone())),
        (hint.clone(), allowed.clone(), Some(explained.clone())),
        (
            explained.clone(),
            not_allowed.clone(),
            Some(explained.clone()),
        ),
        (explained.clone(), allowed.clone(), Some(answered.clone())),
        (answered.clone(), allowed.clone(), Some(answered.clone())),
        (hint.clone(), Event::Next, Some(Step::Summary)),
        (
            explained.clone(),
            Event::Answered { right: false },
            Some(explained.clone()),
        ),
        (
            hint.clone(),
            Event::Answered { right: false },
            Some(explained.clone()),
        ),
        (
            hint.clone(),
            Event::Answered { right: true },
            Some(Step::Summary),
        ),
        (Step::Summary, Event::Next, None),
        (Step::Summary, not_allowed.clone(), None),
        (Step::Summary, Event::Answered { right: true }, None),
        (Step::Idle, Event::Next, None),
        (Step::Idle, not_allowed.clone(), None),
        (Step::Idle, Event::Answered { right: true }, None),
        (
            Step::Redo {
                mistake_id: "m1".into(),
                tries: 0,
            },
            Event::Answered { right: false },
            Some(Step::Redo {
                mistake_id: "m1".into(),
                tries: 1,
            }),
        ),
        (
            Step::Redo {
                mistake_id: "m1".into(),
                tries: 1,
            },
            Event::Answered { right: true },
            Some(Step::Idle),
        ),
        (
            Step::Redo {
                mistake_id: "m1".into(),
                tries: 1,
            },
            Event::Next,
            Some(Step::Idle),
        ),
        (
            Step::Redo {
                mistake_id: "m1".into(),
                tries: 1,
            },
            not_allowed.clone(),
            None,
        ),
        (hint.clone(), Event::Leave, Some(Step::Idle)),
        (
            Step::Summary,
            Event::Redo {
                mistake_id: "m9".into(),
            },
            Some(Step::Redo {
                mistake_id: "m9".into(),
                tries: 0,
            }),
        ),
    ];
    for (from, event, to) in table {
        let w = walking(from.clone());
        match (w.apply(event.clone()), to) {
            (Ok(next), Some(to)) => assert_eq!(next.step, to, "{from:?} + {event:?}"),
            (Err(_), None) => {}
            (got, want) => panic!("{from:?} + {event:?}: got {got:?}, want {want:?}"),
        }
    }
    // Put right during the walk: remembered for the summary.
    let fixed = walking(hint)
        .apply(Event::Answered { right: true })
        .unwrap();
    assert_eq!(fixed.put_right, vec![0]);
    assert!(fixed.words(false, None).0.contains("当场改对 1 题"));
    // Ids must be one per mistake.
    assert!(Walk::default()
        .apply(Event::Checked {
            sheet: sheet(),
            mistake_ids: vec![]
        })
        .is_err());
}

#[test]
fn the_card_and_the_words_never_show_the_answer_unless_allowed() {
    let explained = walking(Step::Mistake {
        index: 0,
        help: Help::Explanation,
    });
    let card = explained.card(false, None);
    assert_eq!((card.total, card.correct, card.mistakes), (3, 2, 1));
    assert_eq!(card.question.as_deref(), Some("9+8="));
    assert!(card.explanation.is_some() && card.correct_answer.is_none());
    // Every question marked, in order; the marks carry no correct answer.
    let marks: Vec<(&str, bool)> = card
        .marks
        .iter()
        .map(|m| (m.question.as_str(), m.correct))
        .collect();
    assert_eq!(marks.len(), 3);
    assert_eq!(marks.iter().filter(|(_, ok)| !ok).count(), 1);
    assert!(marks.contains(&("9+8=", false)), "{marks:?}");
    assert!(!serde_json::to_string(&card.marks)
        .unwrap()
        .contains("correct_answer"));
    // Even at the answer step, a card without the permission has no answer.
    let answered = walking(Step::Mistake {
        index: 0,
        help: Help::Answer,
    });
    assert!(answered.card(false, None).correct_answer.is_none());
    assert_eq!(
        answered.card(true, None).correct_answer.as_deref(),
        Some("17")
    );
    let hint = walking(Step::Mistake {
        index: 0,
        help: Help::Hint,
    });
    let (zh, _) = hint.words(false, None);
    assert!(zh.contains("再想想") && !zh.contains("17"), "{zh}");
    assert!(hint.card(true, None).explanation.is_none());
}

#[test]
fn a_model_reply_is_read_only_in_the_worksheet_shape() {
    let good = serde_json::to_string(&sheet()).unwrap();
    assert_eq!(Worksheet::from_reply(&good).unwrap(), sheet());
    let fenced = format!("好的，检查结果如下：\n```json\n{good}\n```");
    assert_eq!(Worksheet::from_reply(&fenced).unwrap(), sheet());
    for (bad, why) in [
        ("这份作业做得很好！", "no JSON"),
        (r#"{"subject": "数学"}"#, "missing field"),
        (r#"{"subject": "数学", "questions": []}"#, "no questions"),
        (
            r#"{"subject": "数学", "questions": [{"question": "1+1", "child_answer": "3", "correct": false, "hint": "", "explanation": "e", "correct_answer": "2"}]}"#,
            "no hint",
        ),
        (
            r#"{"subject": "数学", "questions": [{"question": "1+1", "child_answer": "3", "correct": "no", "hint": "h", "explanation": "e", "correct_answer": "2"}]}"#,
            "invalid type",
        ),
    ] {
        let e = Worksheet::from_reply(bad).unwrap_err();
        assert!(e.to_string().contains(why), "{bad}: {e}");
    }
}

#[test]
fn scene_local_replies_and_answers_are_told_apart() {
    for (said, reply) in [
        ("再给个提示", Reply::MoreHelp),
        ("我还是不懂", Reply::MoreHelp),
        ("我懂了", Reply::Next),
        ("下一题", Reply::Next),
        ("告诉我答案", Reply::AskAnswer),
        ("17", Reply::Answer),
        ("9+8=17", Reply::Answer),
    ] {
        assert_eq!(reply_of(said), reply, "{said}");
    }
    assert!(same_answer("17", "17"));
    assert!(same_answer(" 9 + 8 = 17。", "17"));
    assert!(same_answer("Seventeen", "seventeen"));
    assert!(!same_answer("16", "17"));
    assert!(!same_answer("", "17"));
    assert!(!same_answer("117", "17"));
}
