//! Framing on the serial line: a frame is `[version][seq u32 LE][postcard
//! message][CRC-32 LE]`, COBS-encoded and ended by a `0x00` delimiter.
//!
//! [`encode`] builds one frame; [`FrameDecoder`] turns any stream of bytes —
//! including line noise, half frames and garbage — back into frames, and
//! always resynchronises on the next delimiter.

use crc::{Crc, CRC_32_ISO_HDLC};

use crate::protocol::{Message, PROTOCOL_VERSION};

/// CRC-32/ISO-HDLC (the zlib/Ethernet CRC), over version, seq and message.
pub const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// The frame delimiter on the line.
pub const DELIMITER: u8 = 0x00;

/// Header bytes before the message: version (1) and sequence number (4).
pub const HEADER_LEN: usize = 5;
/// Trailer bytes after the message: the CRC (4).
pub const CRC_LEN: usize = 4;
/// The largest decoded frame (header + message + CRC) either side may send.
pub const MAX_FRAME_LEN: usize = 2048;
/// The largest COBS-encoded frame, without delimiters.
pub const MAX_ENCODED_LEN: usize = MAX_FRAME_LEN + MAX_FRAME_LEN / 254 + 1;

/// One received frame: its header and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    pub seq: u32,
    pub message: Message,
}

/// Why bytes on the line were not a usable frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("frame is longer than {MAX_ENCODED_LEN} bytes; skipped to the next delimiter")]
    TooLong,
    #[error("frame is not valid COBS")]
    Cobs,
    #[error("frame is {0} bytes, shorter than a header and CRC")]
    TooShort(usize),
    #[error("frame CRC does not match (sent {sent:08x}, computed {computed:08x})")]
    BadCrc { sent: u32, computed: u32 },
    #[error("frame is protocol version {0}, this side speaks version {PROTOCOL_VERSION}")]
    UnsupportedVersion(u8),
    /// The frame arrived intact but its message could not be read (for
    /// example a message this version does not know). The sequence number is
    /// kept so the receiver can answer with a Nack.
    #[error("frame #{seq} holds a message this side cannot read: {reason}")]
    BadMessage { seq: u32, reason: String },
    #[error("message is too large for one frame ({0} bytes; at most {MAX_FRAME_LEN})")]
    MessageTooLarge(usize),
    #[error("cannot serialize message: {0}")]
    Serialize(String),
}

/// Encodes `message` with sequence number `seq` into bytes ready to write,
/// starting and ending with a delimiter (the leading one flushes any noise
/// the receiver may hold).
pub fn encode(seq: u32, message: &Message) -> Result<Vec<u8>, FrameError> {
    encode_with_crc_xor(seq, message, 0)
}

/// Like [`encode`] but with a deliberately wrong CRC: the simulator's `crc`
/// fault, and tests of the receiver.
pub fn encode_with_bad_crc(seq: u32, message: &Message) -> Result<Vec<u8>, FrameError> {
    encode_with_crc_xor(seq, message, 0x5A5A_5A5A)
}

fn encode_with_crc_xor(seq: u32, message: &Message, crc_xor: u32) -> Result<Vec<u8>, FrameError> {
    let mut raw = Vec::with_capacity(64);
    raw.push(PROTOCOL_VERSION);
    raw.extend_from_slice(&seq.to_le_bytes());
    let mut raw =
        postcard::to_extend(message, raw).map_err(|e| FrameError::Serialize(e.to_string()))?;
    let crc = CRC32.checksum(&raw) ^ crc_xor;
    raw.extend_from_slice(&crc.to_le_bytes());
    if raw.len() > MAX_FRAME_LEN {
        return Err(FrameError::MessageTooLarge(raw.len()));
    }
    let mut out = Vec::with_capacity(raw.len() + raw.len() / 254 + 3);
    out.push(DELIMITER);
    out.extend_from_slice(&cobs::encode_vec(&raw));
    out.push(DELIMITER);
    Ok(out)
}

/// Checks and reads one COBS-decoded frame.
pub fn parse(raw: &[u8]) -> Result<Envelope, FrameError> {
    if raw.len() < HEADER_LEN + CRC_LEN {
        return Err(FrameError::TooShort(raw.len()));
    }
    let (body, crc_bytes) = raw.split_at(raw.len() - CRC_LEN);
    let sent = u32::from_le_bytes([crc_bytes[0], crc_bytes[1], crc_bytes[2], crc_bytes[3]]);
    let computed = CRC32.checksum(body);
    if sent != computed {
        return Err(FrameError::BadCrc { sent, computed });
    }
    if body[0] != PROTOCOL_VERSION {
        return Err(FrameError::UnsupportedVersion(body[0]));
    }
    let seq = u32::from_le_bytes([body[1], body[2], body[3], body[4]]);
    match postcard::from_bytes::<Message>(&body[HEADER_LEN..]) {
        Ok(message) => Ok(Envelope { seq, message }),
        Err(e) => Err(FrameError::BadMessage {
            seq,
            reason: e.to_string(),
        }),
    }
}

/// A streaming frame decoder: push bytes as they arrive, get frames out.
///
/// Bytes are collected up to a delimiter; an over-long run is dropped whole
/// and decoding starts again after the next delimiter. Empty frames (two
/// delimiters in a row) are skipped silently.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    buf: Vec<u8>,
    overflowed: bool,
}

impl FrameDecoder {
    pub fn new() -> Self {
        Self {
            buf: Vec::with_capacity(256),
            overflowed: false,
        }
    }

    /// Feeds `bytes`; returns every frame (or frame error) they complete, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Result<Envelope, FrameError>> {
        let mut out = Vec::new();
        for &b in bytes {
            if b == DELIMITER {
                if self.overflowed {
                    self.overflowed = false;
                    out.push(Err(FrameError::TooLong));
                } else if !self.buf.is_empty() {
                    out.push(decode_one(&self.buf));
                }
                self.buf.clear();
            } else if !self.overflowed {
                if self.buf.len() >= MAX_ENCODED_LEN {
                    self.overflowed = true;
                    self.buf.clear();
                } else {
                    self.buf.push(b);
                }
            }
        }
        out
    }

    /// Forgets any partial frame (after reopening a port, say).
    pub fn reset(&mut self) {
        self.buf.clear();
        self.overflowed = false;
    }
}

fn decode_one(encoded: &[u8]) -> Result<Envelope, FrameError> {
    let raw = cobs::decode_vec(encoded).map_err(|_| FrameError::Cobs)?;
    parse(&raw)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::protocol::{Card, DeviceEvent, Light, ProjectorCommand};

    fn one(decoder: &mut FrameDecoder, bytes: &[u8]) -> Vec<Result<Envelope, FrameError>> {
        decoder.push(bytes)
    }

    #[test]
    fn encoded_frame_has_no_inner_delimiters_and_decodes_back() {
        let msg = Message::SetLight(Light {
            brightness: 0,
            temperature_k: 2700,
            transition_ms: 0,
        });
        let bytes = encode(7, &msg).unwrap();
        assert_eq!(bytes.first(), Some(&DELIMITER));
        assert_eq!(bytes.last(), Some(&DELIMITER));
        assert!(!bytes[1..bytes.len() - 1].contains(&DELIMITER));
        let frames = one(&mut FrameDecoder::new(), &bytes);
        assert_eq!(
            frames,
            vec![Ok(Envelope {
                seq: 7,
                message: msg
            })]
        );
    }

    #[test]
    fn frame_split_across_reads_is_reassembled() {
        let msg = Message::Projector(ProjectorCommand::ShowCard(Card {
            title: "静夜思".into(),
            lines: vec!["床前明月光".into(), "疑是地上霜".into()],
        }));
        let bytes = encode(u32::MAX, &msg).unwrap();
        let mut d = FrameDecoder::new();
        let mut got = Vec::new();
        for chunk in bytes.chunks(3) {
            got.extend(d.push(chunk));
        }
        assert_eq!(
            got,
            vec![Ok(Envelope {
                seq: u32::MAX,
                message: msg
            })]
        );
    }

    #[test]
    fn flipped_bit_is_reported_as_bad_crc() {
        let mut bytes = encode(1, &Message::Event(DeviceEvent::Touch)).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x10;
        if bytes[mid] == 0 {
            bytes[mid] = 0x55;
        }
        let frames = FrameDecoder::new().push(&bytes);
        assert_eq!(frames.len(), 1);
        assert!(
            matches!(
                frames[0],
                Err(FrameError::BadCrc { .. }) | Err(FrameError::Cobs)
            ),
            "{frames:?}"
        );
    }

    #[test]
    fn deliberately_bad_crc_is_caught() {
        let bytes = encode_with_bad_crc(4, &Message::Ack { seq: 3 }).unwrap();
        let frames = FrameDecoder::new().push(&bytes);
        assert!(
            matches!(frames.as_slice(), [Err(FrameError::BadCrc { .. })]),
            "{frames:?}"
        );
    }

    #[test]
    fn wrong_version_is_named() {
        let mut raw = vec![9u8, 1, 0, 0, 0];
        raw.extend(postcard::to_allocvec(&Message::Heartbeat).unwrap());
        let crc = CRC32.checksum(&raw);
        raw.extend(crc.to_le_bytes());
        assert_eq!(parse(&raw), Err(FrameError::UnsupportedVersion(9)));
    }

    #[test]
    fn unknown_message_keeps_its_sequence_number() {
        let mut raw = vec![PROTOCOL_VERSION, 42, 0, 0, 0, 200];
        let crc = CRC32.checksum(&raw);
        raw.extend(crc.to_le_bytes());
        assert!(matches!(
            parse(&raw),
            Err(FrameError::BadMessage { seq: 42, .. })
        ));
    }

    #[test]
    fn over_long_garbage_is_dropped_then_decoding_resumes() {
        let mut d = FrameDecoder::new();
        let garbage = vec![0xAB; MAX_ENCODED_LEN * 2];
        assert!(d.push(&garbage).is_empty());
        let good = encode(3, &Message::Heartbeat).unwrap();
        let got = d.push(&good);
        assert_eq!(
            got,
            vec![
                Err(FrameError::TooLong),
                Ok(Envelope {
                    seq: 3,
                    message: Message::Heartbeat
                })
            ]
        );
    }

    #[test]
    fn too_large_message_is_refused_before_sending() {
        let card = Card {
            title: "x".into(),
            lines: vec!["y".repeat(MAX_FRAME_LEN); 1],
        };
        let err = encode(1, &Message::Projector(ProjectorCommand::ShowCard(card)));
        assert!(matches!(err, Err(FrameError::MessageTooLarge(_))));
    }
}
