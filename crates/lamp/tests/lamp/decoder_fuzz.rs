//! The frame decoder fed arbitrary bytes: it never panics, never invents a
//! frame out of a good one's pieces, and always resynchronises on the next
//! delimiter.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use deskmate_lamp::frame::{encode, Envelope, FrameDecoder, FrameError, MAX_ENCODED_LEN};
use deskmate_lamp::{Button, DeviceEvent, Expression, Gesture, Light, Message};
use proptest::prelude::*;

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        (0u8..=100, 2700u16..=6500, 0u16..=10_000).prop_map(|(b, t, ms)| Message::SetLight(
            Light {
                brightness: b,
                temperature_k: t,
                transition_ms: ms
            }
        )),
        proptest::sample::select(Expression::ALL.to_vec()).prop_map(Message::ShowExpression),
        (proptest::sample::select(Gesture::ALL.to_vec()), 1u8..=100)
            .prop_map(|(gesture, speed)| Message::ArmGesture { gesture, speed }),
        any::<u32>().prop_map(|seq| Message::Ack { seq }),
        Just(Message::Heartbeat),
        Just(Message::Event(DeviceEvent::Button(Button::Start))),
        ".{0,40}".prop_map(|host| Message::Hello { protocol: 1, host }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..600), 0..8)) {
        let mut decoder = FrameDecoder::new();
        for chunk in &chunks {
            for item in decoder.push(chunk) {
                // Whatever came out, it is a value, not a crash.
                let _ = item;
            }
        }
    }

    #[test]
    fn garbage_then_a_frame_resynchronises(garbage in proptest::collection::vec(any::<u8>(), 0..3000), seq in any::<u32>(), msg in message()) {
        let mut decoder = FrameDecoder::new();
        let mut results = decoder.push(&garbage);
        results.extend(decoder.push(&encode(seq, &msg).unwrap()));
        let last = results.pop();
        prop_assert_eq!(last, Some(Ok(Envelope { seq, message: msg })));
    }

    #[test]
    fn frames_survive_any_chunking(frames in proptest::collection::vec((any::<u32>(), message()), 1..10), cuts in proptest::collection::vec(1usize..64, 1..50)) {
        let stream: Vec<u8> = frames.iter().flat_map(|(seq, m)| encode(*seq, m).unwrap()).collect();
        let mut decoder = FrameDecoder::new();
        let mut got = Vec::new();
        let mut rest = stream.as_slice();
        let mut cut = cuts.iter().cycle();
        while !rest.is_empty() {
            let n = (*cut.next().unwrap()).min(rest.len());
            got.extend(decoder.push(&rest[..n]));
            rest = &rest[n..];
        }
        let want: Vec<_> = frames.into_iter().map(|(seq, message)| Ok(Envelope { seq, message })).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn a_damaged_byte_never_passes_as_the_original(seq in any::<u32>(), msg in message(), pos in any::<prop::sample::Index>(), flip in 1u8..=255) {
        let mut bytes = encode(seq, &msg).unwrap();
        // Damage one byte strictly inside the frame (not the delimiters).
        let i = 1 + pos.index(bytes.len() - 2);
        bytes[i] ^= flip;
        let mut decoder = FrameDecoder::new();
        let mut results = decoder.push(&bytes);
        results.extend(decoder.push(&encode(seq.wrapping_add(1), &Message::Heartbeat).unwrap()));
        let original = Ok(Envelope { seq, message: msg });
        prop_assert!(!results.contains(&original), "damaged frame decoded as the original: {:?}", results);
        prop_assert_eq!(results.last(), Some(&Ok(Envelope { seq: seq.wrapping_add(1), message: Message::Heartbeat })));
    }
}

#[test]
fn an_endless_run_without_delimiter_is_reported_once() {
    let mut decoder = FrameDecoder::new();
    let mut results = Vec::new();
    for _ in 0..10 {
        results.extend(decoder.push(&vec![0x11; MAX_ENCODED_LEN]));
    }
    assert!(results.is_empty());
    results.extend(decoder.push(&[0]));
    assert_eq!(results, vec![Err(FrameError::TooLong)]);
}
