//! One test per checking rule of the issue, through the public API:
//! normalization, units and lines, the two modes, accuracy, typed errors
//! (omission, insertion, substitution, order), fillers and restarts,
//! confidences, and bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_recite::{
    check, check_text, normalize, CheckError, ErrorKind, ErrorType, Lang, Mode, RecitationError,
    Reference, Transcript, Verdict,
};

const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";
const TWINKLE: &str =
    "Twinkle, twinkle, little star, how I wonder what you are! Up above the world so high, like a diamond in the sky.";

fn run(reference: &str, transcript: &str, mode: Mode) -> Verdict {
    check_text(reference, transcript, mode, None).unwrap()
}

fn kinds(v: &Verdict) -> Vec<(ErrorType, ErrorKind, usize)> {
    v.errors
        .iter()
        .map(|e| (e.error_type, e.kind, e.line))
        .collect()
}

/// Each substitution as (expected, heard).
fn substitutions(v: &Verdict) -> Vec<(&str, &str)> {
    v.errors
        .iter()
        .filter(|e| e.error_type == ErrorType::Substitution)
        .map(|e| (e.expected.as_str(), e.actual.as_str()))
        .collect()
}

fn only(v: &Verdict) -> &RecitationError {
    assert_eq!(v.errors.len(), 1, "{:?}", v.errors);
    &v.errors[0]
}

#[test]
fn normalization_makes_equivalent_text_perfect() {
    for (reference, transcript) in [
        (POEM, "床前明月光 疑是地上霜 举头望明月 低头思故乡"),
        (POEM, "牀前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。"),
        (POEM, "床前明月光，疑是地上霜．举头望明月！低头思故乡？"),
        ("飞流直下三千尺", "飞流直下3000尺"),
        ("二月春风似剪刀", "2月春风似剪刀"),
        ("欲穷千里目", "欲穷1000里目"),
        ("两个黄鹂鸣翠柳", "2个黄鹂鸣翠柳"),
        (TWINKLE, "TWINKLE twinkle little star how i wonder what you are up above the world so high like a diamond in the sky"),
        ("All the king's men couldn't put Humpty together again.", "all the king's men could not put humpty together again"),
        ("Three bags full.", "3 bags full"),
        ("A well-known tale.", "a well known tale"),
        ("I cannot go", "I can't go"),
        ("Ｔｈｒｅｅ ｂａｇｓ", "three bags"),
    ] {
        for mode in [Mode::Voice, Mode::Text] {
            let v = run(reference, transcript, mode);
            assert_eq!(v.accuracy, 100.0, "{reference} / {transcript} ({mode:?}): {:?}", v.errors);
            assert!(v.errors.is_empty(), "{reference} / {transcript}: {:?}", v.errors);
        }
    }
    // Heard, an apostrophe makes no difference; typed, it does.
    let (r, t) = ("All the king's horses.", "all the kings horses");
    assert_eq!(run(r, t, Mode::Voice).accuracy, 100.0);
    assert_eq!(only(&run(r, t, Mode::Text)).kind, ErrorKind::Spelling);
}

#[test]
fn normalized_text_reads_numbers_and_folds_forms() {
    assert_eq!(
        normalize("飛流直下３０００尺！", Lang::Zh),
        "飞流直下三千尺"
    );
    assert_eq!(
        normalize("He couldn't see 21 stars.", Lang::En),
        "he couldn't see twenty one stars"
    );
}

#[test]
fn chinese_counts_characters_and_english_counts_words_with_lines() {
    let zh = Reference::new(POEM, None).unwrap();
    assert_eq!((zh.lang(), zh.len(), zh.lines().len()), (Lang::Zh, 20, 4));
    let en = Reference::new(TWINKLE, None).unwrap();
    assert_eq!((en.lang(), en.len(), en.lines().len()), (Lang::En, 22, 2));
    // Errors carry 1-based lines and 0-based offsets within the line.
    let v = run(
        POEM,
        "床前明月光，疑是地上霜。举头望明月，低头思故土。",
        Mode::Text,
    );
    let e = only(&v);
    assert_eq!(
        (e.line, e.offset, e.expected.as_str(), e.actual.as_str()),
        (4, 4, "乡", "土")
    );
    let v = run(
        TWINKLE,
        TWINKLE.replace("diamond", "diamonds").as_str(),
        Mode::Text,
    );
    let e = only(&v);
    assert_eq!((e.line, e.offset, e.kind), (2, 8, ErrorKind::Spelling));
}

#[test]
fn text_mode_counts_a_homophone_as_a_wrong_character() {
    let v = run(
        POEM,
        "床前明月光，宜是地上霜。举头望明月，低头思故乡。",
        Mode::Text,
    );
    assert_eq!(v.accuracy, 95.0);
    let e = only(&v);
    assert_eq!(
        (e.error_type, e.kind, e.label_zh.as_str()),
        (ErrorType::Substitution, ErrorKind::Homophone, "错别字")
    );
    let v = run(
        POEM,
        "床前明月光，疑是地上霜。举头望明月，低头想故乡。",
        Mode::Text,
    );
    assert_eq!(only(&v).kind, ErrorKind::Other);
}

#[test]
fn voice_mode_compares_by_sound() {
    // Same sound, other character: recognition's choice, not the child's error.
    for t in [
        "床前明越光，疑是地上霜。举头望明月，低头思故乡。",
        "床前明月光，移是地上霜。举头望明月，低头思故乡。",
    ] {
        let v = run(POEM, t, Mode::Voice);
        assert_eq!((v.accuracy, v.errors.len()), (100.0, 0), "{t}");
    }
    // Heteronyms: 行 is xíng or háng.
    assert_eq!(
        run("一行白鹭上青天", "一航白鹭上青天", Mode::Voice).accuracy,
        100.0
    );
    // Same syllable, other tone: a tone error.
    let v = run(
        POEM,
        "床前明月光，疑是地上霜。举偷望明月，低头思故乡。",
        Mode::Voice,
    );
    let e = only(&v);
    assert_eq!(
        (e.kind, e.label_zh.as_str(), v.accuracy),
        (ErrorKind::Tone, "字音错（声调）", 95.0)
    );
    // Another syllable: a wrong sound.
    let v = run(
        POEM,
        "床前明烟光，疑是地上霜。举头望明月，低头思故乡。",
        Mode::Voice,
    );
    assert_eq!(
        (only(&v).kind, only(&v).label_zh.as_str()),
        (ErrorKind::Sound, "字音错")
    );
    // English homophones are heard alike; typed they are spelling mistakes.
    let jack = "Jack and Jill went up the hill to fetch a pail of water.";
    assert_eq!(
        run(
            jack,
            "Jack and Jill went up the hill to fetch a pale of water",
            Mode::Voice
        )
        .accuracy,
        100.0
    );
    assert_eq!(
        only(&run(
            jack,
            "Jack and Jill went up the hill to fetch a pale of water",
            Mode::Text
        ))
        .kind,
        ErrorKind::Spelling
    );
}

#[test]
fn fillers_are_forgiven_in_voice_mode_only() {
    let t = "嗯床前明月光，疑是啊地上霜。呃举头望明月，低头思故乡。";
    let v = run(POEM, t, Mode::Voice);
    assert_eq!((v.accuracy, v.errors.len(), v.fillers), (100.0, 0, 3));
    let v = run(POEM, t, Mode::Text);
    assert_eq!(v.errors.len(), 3);
    assert!(v
        .errors
        .iter()
        .all(|e| e.error_type == ErrorType::Insertion));
    let v = run(
        TWINKLE,
        &format!("um {} uh", TWINKLE.replace("little", "um little")),
        Mode::Voice,
    );
    assert_eq!((v.errors.len(), v.fillers), (0, 3));
    // A filler the reference contains is matched, not dropped.
    assert_eq!(run("啊，春天", "啊春天", Mode::Voice).accuracy, 100.0);
}

#[test]
fn restarts_are_forgiven_in_voice_mode() {
    for t in [
        "床前床前明月光，疑是地上霜。举头望明月，低头思故乡。",
        "床前明月光，疑是，疑是地上霜。举头望明月，低头思故乡。",
        "床前明月光，疑是地上霜，床前明月光，疑是地上霜。举头望明月，低头思故乡。",
        // A slip the child corrected at once.
        "床前明月光，疑是地上霜。举偷，举头望明月，低头思故乡。",
        "床前明月光，疑是地上霜。举头望明月，低低头思故乡。",
        // A stutter heard a little differently the second time (whisper
        // heard 拂堤，拂堤 as 福滴福地): the first copy matched, the repeat
        // forgiven as a re-read is.
        "床前明月光，疑是地上霜。举头举偷望明月，低头思故乡。",
    ] {
        let v = run(POEM, t, Mode::Voice);
        assert_eq!(
            (v.accuracy, v.errors.len()),
            (100.0, 0),
            "{t}: {:?}",
            v.errors
        );
        assert!(v.restarted > 0);
        let typed = run(POEM, t, Mode::Text);
        assert!(
            !typed.errors.is_empty(),
            "typed repetition is an insertion: {t}"
        );
    }
    let v = run(
        TWINKLE,
        &TWINKLE.replace("how I wonder", "how I how I wonder"),
        Mode::Voice,
    );
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    // A doubled unit where the reference has one left is a unit misheard,
    // not a re-read: 瀑布 heard as 不不 is 瀑 said as 不, not 瀑 left out.
    let v = run("遥看瀑布挂前川", "遥看不不挂前川", Mode::Voice);
    let e = only(&v);
    assert_eq!(
        (
            e.error_type,
            e.expected.as_str(),
            e.actual.as_str(),
            v.restarted
        ),
        (ErrorType::Substitution, "瀑", "不", 0)
    );
    // A stretch heard shorter than it is: the heard unit pairs with the
    // one it rhymes with (虚 xū for 曲 qū), the rest are left out.
    let v = run("鹅，鹅，鹅，曲项向天歌。", "虚项向天歌", Mode::Voice);
    assert_eq!(substitutions(&v), vec![("曲", "虚")], "{:?}", v.errors);
    // Typed, a rhyme is no clue: the first unit of the stretch is paired.
    let typed = run("鹅，鹅，鹅，曲项向天歌。", "虚项向天歌", Mode::Text);
    assert_eq!(
        substitutions(&typed),
        vec![("鹅", "虚")],
        "{:?}",
        typed.errors
    );
    // Re-reading is not a licence to say something else.
    let v = run(
        POEM,
        "床前明月光，疑是地上霜。举头望明月，低头思故乡，我爱吃苹果。",
        Mode::Voice,
    );
    assert!(v
        .errors
        .iter()
        .any(|e| e.error_type == ErrorType::Insertion && e.actual == "我爱吃苹果"));
}

#[test]
fn accuracy_is_the_optimal_alignment_over_reference_units() {
    assert_eq!(
        run(POEM, "床前明月光，举头望明月，低头思故乡。", Mode::Voice).accuracy,
        75.0
    );
    assert_eq!(
        run(
            POEM,
            "床前光，疑是地上霜，举头望明月，低头思故乡。",
            Mode::Voice
        )
        .accuracy,
        90.0
    );
    assert_eq!(run(POEM, "", Mode::Voice).accuracy, 0.0);
    // Extra words do not lower accuracy: they are errors of their own.
    let v = run(
        POEM,
        "床前明月光，疑是地上霜。举头望明月，低头红思故乡。",
        Mode::Text,
    );
    assert_eq!(v.accuracy, 100.0);
    assert_eq!(kinds(&v), [(ErrorType::Insertion, ErrorKind::Extra, 4)]);
    assert_eq!(only(&v).offset, 2);
    // Rounded to two decimals.
    assert_eq!(
        run(
            "鹅，鹅，鹅，曲项向天歌。白毛浮绿水，红掌拨清波。",
            "鹅鹅鹅",
            Mode::Voice
        )
        .accuracy,
        16.67
    );
}

#[test]
fn passing_uses_the_exact_ratio() {
    let v = run(
        "一二三四五六七八九十一二三四五六七八九十",
        "一二三四五六七八九十一二三四五六七",
        Mode::Text,
    );
    assert_eq!(v.accuracy, 85.0);
    assert!(v.passed(85.0));
    assert!(!v.passed(85.01));
    assert!(!run(POEM, "床前", Mode::Voice).passed(85.0));
}

#[test]
fn omissions_are_reported_per_line() {
    let v = run(POEM, "", Mode::Voice);
    assert_eq!(
        kinds(&v),
        (1..=4)
            .map(|l| (ErrorType::Omission, ErrorKind::Line, l))
            .collect::<Vec<_>>()
    );
    assert_eq!(v.errors[1].expected, "疑是地上霜");
    let v = run(POEM, "床前明月光，疑是地上霜。举头望", Mode::Voice);
    assert_eq!(
        kinds(&v),
        [
            (ErrorType::Omission, ErrorKind::Part, 3),
            (ErrorType::Omission, ErrorKind::Line, 4)
        ]
    );
    assert_eq!(
        (v.errors[0].expected.as_str(), v.errors[0].offset),
        ("明月", 3)
    );
    // In a run of identical units the missing one is the last.
    let v = run(
        "鹅，鹅，鹅，曲项向天歌。",
        "鹅，鹅，曲项向天歌。",
        Mode::Voice,
    );
    assert_eq!(kinds(&v), [(ErrorType::Omission, ErrorKind::Line, 3)]);
}

#[test]
fn an_omission_is_heard_after_the_word_said_wrong_before_it() {
    // "water. Jack" heard run together as "wagerjack": water was said wrong,
    // Jack left out — and Jack belongs after what was heard for water.
    let heard = "jack and jill went up the hill to fetch a pail of wagerjack fell down";
    let v = run(
        "Jack and Jill went up the hill to fetch a pail of water. Jack fell down.",
        heard,
        Mode::Voice,
    );
    let omission = v
        .errors
        .iter()
        .find(|e| e.error_type == ErrorType::Omission)
        .unwrap();
    let substitution = v
        .errors
        .iter()
        .find(|e| e.error_type == ErrorType::Substitution)
        .unwrap();
    assert_eq!(omission.expected.to_lowercase(), "jack", "{:?}", v.errors);
    assert_eq!(substitution.expected, "water");
    assert_eq!(
        omission.heard,
        substitution.heard.end..substitution.heard.end,
        "{:?}",
        v.errors
    );
}

#[test]
fn order_errors_are_one_error_not_an_omission_and_an_insertion() {
    // Swapped neighbours.
    let v = run(
        POEM,
        "床前明月光，疑是地上霜。头举望明月，低头思故乡。",
        Mode::Voice,
    );
    let e = only(&v);
    assert_eq!(
        (e.error_type, e.kind, e.line, e.offset),
        (ErrorType::Order, ErrorKind::Swap, 3, 0)
    );
    assert_eq!(
        (e.expected.as_str(), e.actual.as_str(), e.label_zh.as_str()),
        ("举头", "头举", "记混顺序")
    );
    assert_eq!(v.accuracy, 95.0);
    // Swapped lines.
    let v = run(
        POEM,
        "疑是地上霜，床前明月光。举头望明月，低头思故乡。",
        Mode::Voice,
    );
    let e = only(&v);
    assert_eq!(
        (e.error_type, e.kind, e.line),
        (ErrorType::Order, ErrorKind::Line, 1)
    );
    assert_eq!(
        (e.expected.as_str(), e.actual.as_str()),
        ("床前明月光疑是地上霜", "疑是地上霜床前明月光")
    );
    assert_eq!(v.accuracy, 75.0);
    // A line moved from the end to the start.
    let v = run(
        POEM,
        "低头思故乡，床前明月光，疑是地上霜。举头望明月。",
        Mode::Voice,
    );
    assert_eq!(kinds(&v), [(ErrorType::Order, ErrorKind::Line, 1)]);
    // English neighbours.
    let v = run(
        TWINKLE,
        &TWINKLE.replace("little star", "star little"),
        Mode::Voice,
    );
    assert_eq!(kinds(&v), [(ErrorType::Order, ErrorKind::Swap, 1)]);
    // A moved line with a slip in it (霜 typed as 双): the move plus the slip.
    let v = run(
        POEM,
        "疑是地上双，床前明月光。举头望明月，低头思故乡。",
        Mode::Text,
    );
    assert_eq!(
        kinds(&v),
        [
            (ErrorType::Order, ErrorKind::Move, 1),
            (ErrorType::Substitution, ErrorKind::Homophone, 2)
        ]
    );
}

#[test]
fn mixed_errors_are_all_found() {
    let v = run(POEM, "床父明月光，疑是地上霜，举头望明月。", Mode::Voice);
    assert_eq!(v.accuracy, 70.0);
    assert_eq!(
        kinds(&v),
        [
            (ErrorType::Substitution, ErrorKind::Sound, 1),
            (ErrorType::Omission, ErrorKind::Line, 4)
        ]
    );
    // Per-line scores.
    assert_eq!(
        v.lines.iter().map(|l| l.correct).collect::<Vec<_>>(),
        [4, 5, 5, 0]
    );
}

#[test]
fn confidences_mark_errors_uncertain_without_changing_the_score() {
    let reference = Reference::new(POEM, None).unwrap();
    let text = "床前明烟光，疑是地上霜。举头望明月，低头思故乡。";
    let n = text.chars().count();
    let mut conf = vec![0.98f32; n];
    conf[3] = 0.45; // 烟 was a guess
    let sure = check(&reference, &Transcript::new(text), Mode::Voice).unwrap();
    let unsure = check(
        &reference,
        &Transcript::with_confidences(text, conf.clone()),
        Mode::Voice,
    )
    .unwrap();
    assert!(!only(&sure).uncertain);
    assert!(only(&unsure).uncertain);
    assert_eq!(
        (unsure.accuracy, only(&unsure).kind),
        (sure.accuracy, ErrorKind::Sound)
    );
    // Confident errors stay certain; typed text is never uncertain.
    let confident = check(
        &reference,
        &Transcript::with_confidences(text, vec![0.99; n]),
        Mode::Voice,
    )
    .unwrap();
    assert!(!only(&confident).uncertain);
    assert!(
        !only(
            &check(
                &reference,
                &Transcript::with_confidences(text, conf),
                Mode::Text
            )
            .unwrap()
        )
        .uncertain
    );
    // A tone-only difference stays kind `tone`, uncertain or not.
    let tone = "床前明月光，疑是地上霜。举偷望明月，低头思故乡。";
    let mut c = vec![0.99f32; tone.chars().count()];
    c[13] = 0.5;
    let v = check(
        &reference,
        &Transcript::with_confidences(tone, c),
        Mode::Voice,
    )
    .unwrap();
    assert!(only(&v).uncertain && only(&v).kind == ErrorKind::Tone);
    // Confidences that do not fit the text are refused.
    let err = check(
        &reference,
        &Transcript::with_confidences(text, vec![0.9; 3]),
        Mode::Voice,
    )
    .unwrap_err();
    assert!(matches!(err, CheckError::Confidences { chars, confidences: 3 } if chars == n));
    // NaN confidences are ignored.
    assert!(check(
        &reference,
        &Transcript::with_confidences(text, vec![f32::NAN; n]),
        Mode::Voice
    )
    .is_ok());
}

#[test]
fn bad_input_gives_a_result_or_a_clear_error() {
    for empty in ["", "，。！", "😀🎉", "\u{0}\u{1f}"] {
        let err = check_text(empty, "床前", Mode::Voice, None).unwrap_err();
        assert_eq!(err, CheckError::EmptyReference);
        assert!(err.to_string().contains("nothing to recite"));
    }
    let huge = "床".repeat(1_000_000);
    let err = check_text(POEM, &huge, Mode::Voice, None).unwrap_err();
    assert!(
        matches!(
            err,
            CheckError::TranscriptTooLong {
                units: 1_000_000,
                ..
            }
        ),
        "{err}"
    );
    for odd in [
        "\u{0}\u{7}\u{1b}[0m",
        "😀🌙✨",
        "床前 明月光 hello world",
        "\u{202e}床前明月光\u{200b}",
        "𠀀𪚥",
    ] {
        for mode in [Mode::Voice, Mode::Text] {
            let v = run(POEM, odd, mode);
            assert!((0.0..=100.0).contains(&v.accuracy));
            assert!(v.correct <= v.units);
        }
    }
    assert_eq!(run(POEM, "床前 明月光 hello world", Mode::Voice).correct, 5);
    // A reference mixing languages is checked unit by unit.
    let v = run("我爱 ABC 歌", "我爱ABC歌", Mode::Voice);
    assert_eq!((v.units, v.accuracy), (4, 100.0));
    assert!("x".parse::<Mode>().is_err() && "fr".parse::<Lang>().is_err());
}

#[test]
fn every_reference_the_library_accepts_can_be_checked() {
    use deskmate_recite::{MAX_REFERENCE_UNITS, MAX_TRANSCRIPT_FACTOR};
    // The longest reference there may be: lines of five characters.
    let line = "床前明月光，";
    let longest = line.repeat(MAX_REFERENCE_UNITS / 5);
    let reference = Reference::new(&longest, None).unwrap();
    assert_eq!(reference.len(), MAX_REFERENCE_UNITS);
    // Recited exactly, and recited with every line said four times over.
    let v = check(&reference, &Transcript::new(longest.clone()), Mode::Voice).unwrap();
    assert_eq!(v.accuracy, 100.0);
    let repeated = longest.repeat(MAX_TRANSCRIPT_FACTOR);
    assert!(check(&reference, &Transcript::new(repeated), Mode::Voice).is_ok());
    // One unit more is refused when the reference is made, with the limit.
    let err = Reference::new(&format!("{longest}床"), None).unwrap_err();
    assert_eq!(
        err,
        CheckError::ReferenceTooLong {
            max: MAX_REFERENCE_UNITS
        }
    );
}
