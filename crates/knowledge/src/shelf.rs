//! Knowledge bases in the family's database (migrations 0016, 0025): named
//! bases, their documents, the documents' chunks with source, position and
//! float32 vector, and each vector's binary copy (its signs, 64 bytes) in
//! the sqlite-vec table `knowledge_bits`, partitioned by base, which a
//! search scans first before ranking the candidates by exact cosine. Adding a document embeds every chunk first and then writes all
//! rows in one transaction: a failure leaves nothing half-stored. A search
//! embeds the question and returns the top-k passages by cosine.

use rusqlite::{params, OptionalExtension, Transaction};
use serde::Serialize;
use sha2::{Digest, Sha256};

use deskmate_store::{now_utc, Store, StoreError};

use crate::chunk::{chunk_text, CHUNK_CHARS, OVERLAP_CHARS};
use crate::encoder::{Embedder, EMBEDDING_DIM};
use crate::extract::Extracted;
use crate::{KnowledgeError, KnowledgeResult};

/// Chunks embedded per encoder call.
const BATCH: usize = 16;
/// A search takes this many candidates per passage wanted by Hamming
/// distance on the binary copies (`knowledge_bits`, migration 0025), at
/// least [`MIN_CANDIDATES`], and ranks them by exact cosine against the
/// chunks' own vectors: a scan of 64 bytes a chunk instead of 2 KB.
const OVERSAMPLE: usize = 10;
const MIN_CANDIDATES: usize = 100;
/// The knowledge base a document goes to when none is named.
pub const DEFAULT_BASE: &str = "default";

/// Embedding progress of one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AddProgress {
    pub done_chunks: usize,
    pub total_chunks: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct DocumentSummary {
    pub knowledge_base: String,
    pub source: String,
    pub title: String,
    pub chunks: usize,
    pub chars: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct KnowledgeBaseSummary {
    pub name: String,
    pub builtin: bool,
    pub documents: usize,
    pub chunks: usize,
}

/// One passage found by a search.
#[derive(Debug, Clone, Serialize)]
pub struct Passage {
    pub knowledge_base: String,
    pub source: String,
    pub title: String,
    /// 0-based index of the chunk in its document.
    pub position: usize,
    pub start_char: usize,
    pub end_char: usize,
    /// 1-based PDF page where the passage starts.
    pub page: Option<usize>,
    pub text: String,
    /// Cosine similarity to the question (1 = same direction).
    pub score: f32,
}

/// The knowledge bases of one database.
pub struct Shelf<'a> {
    store: &'a Store,
}

fn blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn sql(e: rusqlite::Error) -> KnowledgeError {
    KnowledgeError::Store(StoreError::Sqlite(e))
}

impl<'a> Shelf<'a> {
    pub fn new(store: &'a Store) -> Self {
        Self { store }
    }

    /// Adds an extracted document to base `kb` (created when new). Every
    /// chunk is embedded before anything is written; `progress` hears each
    /// batch. The same text twice in one base is refused.
    pub fn add_document(
        &self,
        kb: &str,
        doc: &Extracted,
        embedder: &dyn Embedder,
        progress: &mut dyn FnMut(AddProgress),
    ) -> KnowledgeResult<DocumentSummary> {
        self.add(kb, false, doc, embedder, progress)
    }

    pub(crate) fn add(
        &self,
        kb: &str,
        builtin: bool,
        doc: &Extracted,
        embedder: &dyn Embedder,
        progress: &mut dyn FnMut(AddProgress),
    ) -> KnowledgeResult<DocumentSummary> {
        let kb = kb.trim();
        if kb.is_empty() || kb.chars().count() > 80 {
            return Err(KnowledgeError::Invalid(
                "a knowledge base name must have 1 to 80 characters".into(),
            ));
        }
        if !builtin {
            if let Some((_, true)) = self.base(kb)? {
                return Err(KnowledgeError::BuiltIn(kb.into()));
            }
        }
        let sha = hex::encode(Sha256::digest(doc.text.as_bytes()));
        let chunks = chunk_text(&doc.text, CHUNK_CHARS, OVERLAP_CHARS);
        if chunks.is_empty() {
            return Err(KnowledgeError::Empty {
                path: doc.source.clone(),
            });
        }
        let total = chunks.len();
        progress(AddProgress {
            done_chunks: 0,
            total_chunks: total,
        });
        let mut vectors = Vec::with_capacity(total);
        for batch in chunks.chunks(BATCH) {
            let texts: Vec<&str> = batch.iter().map(|c| c.text.trim()).collect();
            let v = embedder.embed(&texts)?;
            if v.len() != texts.len() || v.iter().any(|x| x.len() != EMBEDDING_DIM) {
                return Err(KnowledgeError::Encoder(
                    "the encoder returned vectors of the wrong shape".into(),
                ));
            }
            vectors.extend(v);
            progress(AddProgress {
                done_chunks: vectors.len(),
                total_chunks: total,
            });
        }
        let encoder = embedder.id().to_string();
        let chars = doc.text.chars().count();
        self.store.with_conn(|conn| {
            let tx = conn.transaction()?;
            let result = (|| -> KnowledgeResult<()> {
                let kb_id = base_id_or_create(&tx, kb, builtin, &encoder)?;
                let exists: Option<String> = tx
                    .query_row(
                        "SELECT source FROM knowledge_documents WHERE kb_id = ?1 AND sha256 = ?2",
                        params![kb_id, sha],
                        |r| r.get(0),
                    )
                    .optional()
                    .map_err(sql)?;
                if let Some(source) = exists {
                    return Err(KnowledgeError::Duplicate {
                        source_name: source,
                        kb: kb.into(),
                    });
                }
                tx.execute(
                    "INSERT INTO knowledge_documents (kb_id, source, title, sha256, chars, added_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![kb_id, doc.source, doc.title, sha, chars as i64, now_utc()],
                )
                .map_err(sql)?;
                let doc_id = tx.last_insert_rowid();
                let mut chunk_stmt = tx
                    .prepare(
                        "INSERT INTO knowledge_chunks (document_id, position, start_char, end_char, page, text, embedding)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    )
                    .map_err(sql)?;
                let mut bits_stmt = tx
                    .prepare(
                        "INSERT INTO knowledge_bits (chunk_id, kb_id, embedding)
                         VALUES (?1, ?2, vec_quantize_binary(?3))",
                    )
                    .map_err(sql)?;
                for (c, v) in chunks.iter().zip(&vectors) {
                    let v = blob(v);
                    chunk_stmt
                        .execute(params![
                            doc_id,
                            c.position as i64,
                            c.start as i64,
                            c.end as i64,
                            doc.page_of(c.start).map(|p| p as i64),
                            c.text,
                            v
                        ])
                        .map_err(sql)?;
                    let chunk_id = tx.last_insert_rowid();
                    bits_stmt
                        .execute(params![chunk_id, kb_id, v])
                        .map_err(sql)?;
                }
                Ok(())
            })();
            match result {
                Ok(()) => {
                    tx.commit()?;
                    Ok(Ok(()))
                }
                // Dropping the transaction rolls it back.
                Err(e) => Ok(Err(e)),
            }
        })??;
        Ok(DocumentSummary {
            knowledge_base: kb.into(),
            source: doc.source.clone(),
            title: doc.title.clone(),
            chunks: total,
            chars,
        })
    }

    /// The sha256 of every document of base `kb`, sorted (empty when the
    /// base does not exist).
    pub fn document_hashes(&self, kb: &str) -> KnowledgeResult<Vec<String>> {
        Ok(self.store.with_conn(|conn| {
            let mut stmt = conn.prepare(
                "SELECT d.sha256 FROM knowledge_documents d JOIN knowledge_bases b ON b.id = d.kb_id
                 WHERE b.name = ?1 ORDER BY d.sha256",
            )?;
            let rows = stmt.query_map([kb], |r| r.get(0))?;
            Ok(rows.collect::<Result<Vec<String>, _>>()?)
        })?)
    }

    /// Replaces built-in base `kb` with `docs`: the old base is removed,
    /// then each document is added (a failure leaves the base partly
    /// built, and the next sync rebuilds it, since its hashes differ).
    pub fn replace_builtin(
        &self,
        kb: &str,
        docs: &[Extracted],
        embedder: &dyn Embedder,
    ) -> KnowledgeResult<()> {
        if let Some((id, _)) = self.base(kb)? {
            self.store.with_conn(|conn| {
                let tx = conn.transaction()?;
                remove_in(&tx, id, None)?;
                tx.execute("DELETE FROM knowledge_bases WHERE id = ?1", [id])?;
                tx.commit()?;
                Ok(())
            })?;
        }
        let mut seen = std::collections::HashSet::new();
        for doc in docs {
            if seen.insert(doc.text.clone()) {
                self.add(kb, true, doc, embedder, &mut |_| {})?;
            }
        }
        Ok(())
    }

    /// The base's id and whether it is built in.
    fn base(&self, name: &str) -> KnowledgeResult<Option<(i64, bool)>> {
        Ok(self.store.with_conn(|conn| {
            Ok(conn
                .query_row(
                    "SELECT id, builtin FROM knowledge_bases WHERE name = ?1",
                    [name],
                    |r| Ok((r.get(0)?, r.get::<_, i64>(1)? != 0)),
                )
                .optional()?)
        })?)
    }

    /// Every base with its counts, built-in ones first.
    pub fn list(&self) -> KnowledgeResult<Vec<KnowledgeBaseSummary>> {
        Ok(self.store.with_conn(|conn| {
            let mut stmt = conn.prepare(
                "SELECT b.name, b.builtin,
                        (SELECT COUNT(*) FROM knowledge_documents d WHERE d.kb_id = b.id),
                        (SELECT COUNT(*) FROM knowledge_chunks c JOIN knowledge_documents d
                           ON c.document_id = d.id WHERE d.kb_id = b.id)
                 FROM knowledge_bases b ORDER BY b.builtin DESC, b.name",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(KnowledgeBaseSummary {
                    name: r.get(0)?,
                    builtin: r.get::<_, i64>(1)? != 0,
                    documents: r.get::<_, i64>(2)? as usize,
                    chunks: r.get::<_, i64>(3)? as usize,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })?)
    }

    /// The documents of base `kb`.
    pub fn documents(&self, kb: &str) -> KnowledgeResult<Vec<DocumentSummary>> {
        let (id, _) = self
            .base(kb)?
            .ok_or_else(|| KnowledgeError::NoSuchBase(kb.into()))?;
        Ok(self.store.with_conn(|conn| {
            let mut stmt = conn.prepare(
                "SELECT d.source, d.title, d.chars,
                        (SELECT COUNT(*) FROM knowledge_chunks c WHERE c.document_id = d.id)
                 FROM knowledge_documents d WHERE d.kb_id = ?1 ORDER BY d.id",
            )?;
            let rows = stmt.query_map([id], |r| {
                Ok(DocumentSummary {
                    knowledge_base: kb.into(),
                    source: r.get(0)?,
                    title: r.get(1)?,
                    chars: r.get::<_, i64>(2)? as usize,
                    chunks: r.get::<_, i64>(3)? as usize,
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })?)
    }

    /// Removes a whole base (`source` = None) or one document of it, with
    /// their chunks and vectors. Returns how many documents went.
    pub fn remove(&self, kb: &str, source: Option<&str>) -> KnowledgeResult<usize> {
        let (id, builtin) = self
            .base(kb)?
            .ok_or_else(|| KnowledgeError::NoSuchBase(kb.into()))?;
        if builtin {
            return Err(KnowledgeError::BuiltIn(kb.into()));
        }
        self.store
            .with_conn(|conn| {
                let tx = conn.transaction()?;
                let removed = remove_in(&tx, id, source)?;
                if source.is_none() {
                    tx.execute("DELETE FROM knowledge_bases WHERE id = ?1", [id])?;
                }
                tx.commit()?;
                Ok(removed)
            })
            .map_err(KnowledgeError::from)
            .and_then(|n| match (n, source) {
                (0, Some(s)) => Err(KnowledgeError::NoSuchDocument {
                    kb: kb.into(),
                    source_name: s.into(),
                }),
                (n, _) => Ok(n),
            })
    }

    /// The `top_k` passages closest to `query`, in base `kb` or in every
    /// base, best first.
    pub fn search(
        &self,
        query: &str,
        kb: Option<&str>,
        top_k: usize,
        embedder: &dyn Embedder,
    ) -> KnowledgeResult<Vec<Passage>> {
        let query = query.trim();
        if query.is_empty() {
            return Err(KnowledgeError::Invalid("the question is empty".into()));
        }
        let top_k = top_k.clamp(1, 50);
        let bases: Vec<(i64, String)> = match kb {
            Some(name) => {
                let (id, _) = self
                    .base(name)?
                    .ok_or_else(|| KnowledgeError::NoSuchBase(name.into()))?;
                vec![(id, name.to_string())]
            }
            None => self.store.with_conn(|conn| {
                let mut stmt = conn.prepare("SELECT id, name FROM knowledge_bases ORDER BY id")?;
                let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
                Ok(rows.collect::<Result<Vec<_>, _>>()?)
            })?,
        };
        let v = embedder
            .embed(&[query])?
            .into_iter()
            .next()
            .ok_or_else(|| KnowledgeError::Encoder("no vector for the question".into()))?;
        let q = blob(&v);
        let mut found = self.store.with_conn(|conn| {
            // The nearest candidates by Hamming distance on the binary
            // copies (64 bytes a chunk), ranked by exact cosine.
            let mut stmt = conn.prepare_cached(
                "SELECT c.text, c.position, c.start_char, c.end_char, c.page, d.source, d.title,
                        vec_distance_cosine(c.embedding, ?1) AS distance
                 FROM (SELECT chunk_id FROM knowledge_bits
                       WHERE embedding MATCH vec_quantize_binary(?1) AND k = ?2 AND kb_id = ?3) n
                 JOIN knowledge_chunks c ON c.id = n.chunk_id
                 JOIN knowledge_documents d ON d.id = c.document_id
                 ORDER BY distance LIMIT ?4",
            )?;
            let candidates = (top_k * OVERSAMPLE).max(MIN_CANDIDATES);
            let mut out = Vec::new();
            for (id, name) in &bases {
                let rows =
                    stmt.query_map(params![q, candidates as i64, id, top_k as i64], |r| {
                        Ok(Passage {
                            knowledge_base: name.clone(),
                            text: r.get(0)?,
                            position: r.get::<_, i64>(1)? as usize,
                            start_char: r.get::<_, i64>(2)? as usize,
                            end_char: r.get::<_, i64>(3)? as usize,
                            page: r.get::<_, Option<i64>>(4)?.map(|p| p as usize),
                            source: r.get(5)?,
                            title: r.get(6)?,
                            score: 1.0 - r.get::<_, f64>(7)? as f32,
                        })
                    })?;
                for row in rows {
                    out.push(row?);
                }
            }
            Ok(out)
        })?;
        found.sort_by(|a, b| b.score.total_cmp(&a.score));
        found.truncate(top_k);
        Ok(found)
    }
}

fn base_id_or_create(
    tx: &Transaction<'_>,
    name: &str,
    builtin: bool,
    encoder: &str,
) -> KnowledgeResult<i64> {
    let found: Option<(i64, String)> = tx
        .query_row(
            "SELECT id, encoder FROM knowledge_bases WHERE name = ?1",
            [name],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(sql)?;
    match found {
        Some((id, e)) if e == encoder => Ok(id),
        Some((_, e)) => Err(KnowledgeError::Invalid(format!(
            "knowledge base {name} was made with encoder {e}, not {encoder}; remove it and add its documents again"
        ))),
        None => {
            tx.execute(
                "INSERT INTO knowledge_bases (name, builtin, encoder, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![name, builtin as i64, encoder, now_utc()],
            )
            .map_err(sql)?;
            Ok(tx.last_insert_rowid())
        }
    }
}

/// Deletes the documents of base `kb_id` (all, or the one named `source`)
/// with their chunks and vectors.
fn remove_in(tx: &Transaction<'_>, kb_id: i64, source: Option<&str>) -> Result<usize, StoreError> {
    let filter = "d.kb_id = ?1 AND (?2 IS NULL OR d.source = ?2)";
    tx.execute(
        &format!(
            "DELETE FROM knowledge_bits WHERE chunk_id IN
             (SELECT c.id FROM knowledge_chunks c JOIN knowledge_documents d ON c.document_id = d.id WHERE {filter})"
        ),
        params![kb_id, source],
    )?;
    let n = tx.execute(
        &format!("DELETE FROM knowledge_documents WHERE id IN (SELECT d.id FROM knowledge_documents d WHERE {filter})"),
        params![kb_id, source],
    )?;
    Ok(n)
}
