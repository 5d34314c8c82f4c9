//! Checking speed: a 4-line poem (target < 50 µs) and a 300-word English
//! text (target < 2 ms), with the reference prepared once (as the app does)
//! and from plain strings.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use deskmate_recite::{check, check_text, Mode, Reference, Transcript};

const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";
const POEM_HEARD: &str = "床前明越光，疑是地上霜，举偷望明月，低头思故乡。";

/// About 300 words of English prose with sentence breaks.
fn english_text() -> String {
    let sentences = [
        "Once upon a time a thirsty crow flew over the dry fields looking for water.",
        "At last he found a tall jug standing in the shade of an old tree.",
        "There was a little water at the bottom, but his beak could not reach it.",
        "The crow thought hard, and then he picked up a small stone and dropped it in.",
        "He dropped another stone, and another, and the water rose a little each time.",
        "After many stones the water came up to the top of the jug.",
        "The clever crow drank until he was full and flew away happily.",
        "Little by little, patient work gets the job done.",
    ];
    let mut words = Vec::new();
    'outer: loop {
        for s in sentences {
            words.extend(s.split(' '));
            if words.len() >= 300 {
                break 'outer;
            }
        }
    }
    words.join(" ")
}

fn bench(c: &mut Criterion) {
    let poem = Reference::new(POEM, None).unwrap();
    let heard = Transcript::new(POEM_HEARD);
    c.bench_function("poem 4 lines, voice, prepared reference", |b| {
        b.iter(|| check(black_box(&poem), black_box(&heard), Mode::Voice).unwrap())
    });
    c.bench_function("poem 4 lines, voice, from strings", |b| {
        b.iter(|| check_text(black_box(POEM), black_box(POEM_HEARD), Mode::Voice, None).unwrap())
    });
    c.bench_function("poem 4 lines, text, prepared reference", |b| {
        b.iter(|| check(black_box(&poem), black_box(&heard), Mode::Text).unwrap())
    });

    let text = english_text();
    // A recitation with a few slips: a word missed, one changed, two swapped, a filler.
    let said = text
        .replacen("thirsty ", "", 1)
        .replacen("tall jug", "big jug", 1)
        .replacen("little water", "water little", 1)
        .replacen("The crow thought", "um the crow thought", 1);
    let english = Reference::new(&text, None).unwrap();
    assert!(english.len() >= 300, "{} words", english.len());
    let said = Transcript::new(said);
    c.bench_function("english 300 words, voice, prepared reference", |b| {
        b.iter(|| check(black_box(&english), black_box(&said), Mode::Voice).unwrap())
    });
    c.bench_function("english 300 words, voice, from strings", |b| {
        b.iter(|| check_text(black_box(&text), black_box(&said.text), Mode::Voice, None).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
