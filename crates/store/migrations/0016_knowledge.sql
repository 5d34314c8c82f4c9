-- Knowledge bases (issue 19): named collections of documents a parent adds
-- (text, Markdown, PDF, Word) plus the built-in poem library, cut into
-- chunks with their position in the source, and one 512-d embedding per
-- chunk in a sqlite-vec vec0 table (cosine distance). The database is the
-- family's, so every knowledge base here is the family's.
CREATE TABLE knowledge_bases (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    builtin     INTEGER NOT NULL DEFAULT 0,
    -- the encoder the vectors were made with (a different one means re-embedding)
    encoder     TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

CREATE TABLE knowledge_documents (
    id          INTEGER PRIMARY KEY,
    kb_id       INTEGER NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
    -- file name (or built-in id) the passages are cited by
    source      TEXT NOT NULL,
    title       TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    chars       INTEGER NOT NULL,
    added_at    TEXT NOT NULL,
    UNIQUE (kb_id, sha256)
);

CREATE TABLE knowledge_chunks (
    id          INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES knowledge_documents(id) ON DELETE CASCADE,
    -- 0-based index of the chunk in its document
    position    INTEGER NOT NULL,
    -- character offsets in the extracted text, end exclusive
    start_char  INTEGER NOT NULL,
    end_char    INTEGER NOT NULL,
    -- page of a PDF (1-based) where the chunk starts; NULL otherwise
    page        INTEGER,
    text        TEXT NOT NULL,
    UNIQUE (document_id, position)
);

-- Rows are removed with their chunk by the knowledge crate (a virtual table
-- takes no foreign key); kb_id is a partition key so a search reads one base.
CREATE VIRTUAL TABLE knowledge_vectors USING vec0(
    chunk_id  INTEGER PRIMARY KEY,
    kb_id     INTEGER PARTITION KEY,
    embedding FLOAT[512] distance_metric=cosine
);
