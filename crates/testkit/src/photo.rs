//! Small, real PNG images made in the test (never binary fixtures): a valid
//! file with its signature, IHDR, one stored-deflate IDAT and IEND, each
//! chunk with its CRC, that any image decoder opens.

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for b in bytes {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for x in bytes {
        a = (a + u32::from(*x)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// A `width` × `height` RGB PNG: a white page with a grey ruled line every
/// fourth row (a worksheet, roughly). At most 100 × 100.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    assert!(width > 0 && height > 0 && width <= 100 && height <= 100);
    let mut raw = Vec::new();
    for y in 0..height {
        raw.push(0); // filter: none
        let shade = if y % 4 == 3 { 0x80 } else { 0xff };
        for _ in 0..width {
            raw.extend_from_slice(&[shade, shade, shade]);
        }
    }
    // zlib: header, one stored block (the image is under 64 KiB), Adler-32.
    let mut z = vec![0x78, 0x01, 0x01];
    let len = u16::try_from(raw.len()).unwrap();
    z.extend_from_slice(&len.to_le_bytes());
    z.extend_from_slice(&(!len).to_le_bytes());
    z.extend_from_slice(&raw);
    z.extend_from_slice(&adler32(&raw).to_be_bytes());
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB, no interlace
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_crc_is_the_standard_one() {
        assert_eq!(super::crc32(b"IEND"), 0xae42_6082);
        assert_eq!(super::adler32(b"Wikipedia"), 0x11e6_0398);
    }
}
