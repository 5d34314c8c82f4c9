-- Faster knowledge search (issue 19's target: p99 <= 20 ms at 100,000
-- chunks). A KNN over knowledge_vectors scanned 2 KB a chunk (200 MB at
-- 100,000), and re-ranking through that vec0 table's point lookups cost
-- ~0.5 ms a row. Now each chunk keeps its float32 vector in its own row
-- (for exact re-ranking by cosine), and a binary copy (one bit per
-- dimension, its sign: 64 bytes) is what a search scans first, by Hamming
-- distance (crates/knowledge/src/shelf.rs). The vectors are moved, then
-- knowledge_vectors goes.
ALTER TABLE knowledge_chunks ADD COLUMN embedding BLOB;

UPDATE knowledge_chunks
   SET embedding = (SELECT v.embedding FROM knowledge_vectors v WHERE v.chunk_id = knowledge_chunks.id);

CREATE VIRTUAL TABLE knowledge_bits USING vec0(
    chunk_id  INTEGER PRIMARY KEY,
    kb_id     INTEGER PARTITION KEY,
    embedding BIT[512]
);

INSERT INTO knowledge_bits (chunk_id, kb_id, embedding)
    SELECT c.id, d.kb_id, vec_quantize_binary(c.embedding)
      FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id
     WHERE c.embedding IS NOT NULL;

DROP TABLE knowledge_vectors;
