//! Knowledge base benchmark (issue 19): the sentence encoder's embedding
//! throughput (chunks of 1000 characters per second, 2 threads, batches of
//! 16 as an add embeds them), retrieval latency p50/p99 in a base of
//! 100,000 chunks (the whole search — the question embedded, then the
//! sqlite-vec KNN and the rows — and the KNN alone), and the memory the
//! loaded encoder takes (resident set before and after loading it, and
//! after a first batch).
//!
//! `cargo bench -p deskmate-knowledge --bench knowledge` (the encoder from
//! DESKMATE_MODELS_DIR or <repo>/models). BENCH_CHUNKS=N sets the base's
//! size (default 100000); BENCH_QUERIES=N the questions timed (default
//! 200); BENCH_EMBED=N the chunks embedded for throughput (default 256).
//!
//! The 100,000 chunks are real rows added through `Shelf::add_document`
//! (text cut by `chunk_text`, one transaction per document), but their
//! vectors come from a seeded generator instead of the encoder: embedding
//! 100,000 chunks would take hours, and the KNN's cost does not depend on
//! what the vectors mean.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use deskmate_knowledge::encoder::normalised;
use deskmate_knowledge::{
    chunk_text, Embedder, Extracted, KnowledgeResult, SentenceEncoder, Shelf, CHUNK_CHARS,
    EMBEDDING_DIM, OVERLAP_CHARS,
};
use deskmate_store::Store;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Resident memory of this process, in MB (Linux).
fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn percentile(v: &mut [Duration], p: f64) -> f64 {
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1000.0
}

/// A seeded xorshift generator: the bulk vectors and texts.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn unit_vector(&mut self) -> Vec<f32> {
        let v: Vec<f32> = (0..EMBEDDING_DIM)
            .map(|_| (self.next() % 20_001) as f32 / 10_000.0 - 1.0)
            .collect();
        normalised(&v)
    }
}

/// Vectors from a seeded generator (each text's own seed), not meaning.
struct SeededVectors;

impl Embedder for SeededVectors {
    fn id(&self) -> &str {
        "use-multilingual-int8"
    }

    fn embed(&self, texts: &[&str]) -> KnowledgeResult<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let seed = t
                    .bytes()
                    .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                    })
                    .max(1);
                Seeded(seed).unit_vector()
            })
            .collect())
    }
}

/// The question's vector, fixed: times the KNN alone.
struct Fixed(Vec<f32>);

impl Embedder for Fixed {
    fn id(&self) -> &str {
        "use-multilingual-int8"
    }

    fn embed(&self, texts: &[&str]) -> KnowledgeResult<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|_| self.0.clone()).collect())
    }
}

const WORDS: &[&str] = &[
    "床前明月光，",
    "疑是地上霜。",
    "举头望明月，",
    "低头思故乡。",
    "春眠不觉晓，",
    "处处闻啼鸟。",
    "The quick brown fox jumps over the lazy dog. ",
    "Fractions name parts of a whole. ",
    "霸王龙生活在白垩纪晚期。",
    "Add the numerators and keep the denominator. ",
    "小蝌蚪找妈妈。",
    "Twinkle, twinkle, little star. ",
];

/// A document of about `chunks` chunks of mixed Chinese and English.
fn document(n: usize, chunks: usize, rng: &mut Seeded) -> Extracted {
    let stride = CHUNK_CHARS - OVERLAP_CHARS;
    let target = chunks * stride + OVERLAP_CHARS;
    let mut text = String::new();
    let mut len = 0;
    while len < target {
        let w = WORDS[(rng.next() % WORDS.len() as u64) as usize];
        text.push_str(w);
        len += w.chars().count();
        if rng.next().is_multiple_of(9) {
            text.push('\n');
            len += 1;
        }
    }
    Extracted {
        source: format!("bulk-{n}.txt"),
        title: format!("bulk {n}"),
        text,
        page_starts: Vec::new(),
    }
}

fn main() {
    let models = deskmate_speech::ModelPaths::dev_dir();
    let chunks_wanted = env_usize("BENCH_CHUNKS", 100_000);
    let queries = env_usize("BENCH_QUERIES", 200);
    let embed_n = env_usize("BENCH_EMBED", 256);
    println!(
        "machine: {} logical CPUs; encoder intra-op threads: 2",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );

    // Memory of the loaded encoder.
    let before = rss_mb();
    let started = Instant::now();
    let encoder = SentenceEncoder::in_dir(&models)
        .unwrap_or_else(|e| panic!("{e} (looked in {})", models.display()));
    let load_s = started.elapsed().as_secs_f64();
    let loaded = rss_mb();

    // Embedding throughput on chunks cut as an add cuts them.
    let mut rng = Seeded(19);
    let sample = document(0, embed_n + 1, &mut rng);
    let texts: Vec<String> = chunk_text(&sample.text, CHUNK_CHARS, OVERLAP_CHARS)
        .into_iter()
        .take(embed_n)
        .map(|c| c.text)
        .collect();
    let refs: Vec<&str> = texts.iter().map(|t| t.trim()).collect();
    encoder.embed(&refs[..16.min(refs.len())]).unwrap(); // warm-up
    let after_first = rss_mb();
    let started = Instant::now();
    for batch in refs.chunks(16) {
        encoder.embed(batch).unwrap();
    }
    let embed_s = started.elapsed().as_secs_f64();
    let peak = rss_mb();
    println!(
        "encoder: loaded in {load_s:.2} s; resident memory {before:.0} MB before, {loaded:.0} MB loaded (+{:.0}), {after_first:.0} MB after a first batch, {peak:.0} MB after the throughput run (+{:.0} over not loaded)",
        loaded - before,
        peak - before
    );
    println!(
        "embedding: {} chunks of ~{CHUNK_CHARS} characters in {embed_s:.1} s = {:.1} chunks/s (batches of 16)",
        refs.len(),
        refs.len() as f64 / embed_s
    );

    // A base of `chunks_wanted` chunks.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("bench.db")).unwrap();
    let shelf = Shelf::new(&store);
    let per_doc = 500;
    let started = Instant::now();
    let mut stored = 0;
    let mut n = 1;
    while stored < chunks_wanted {
        let doc = document(n, per_doc.min(chunks_wanted - stored), &mut rng);
        stored += shelf
            .add_document("bench", &doc, &SeededVectors, &mut |_| {})
            .unwrap()
            .chunks;
        n += 1;
    }
    println!(
        "base: {stored} chunks in {} documents stored in {:.1} s",
        n - 1,
        started.elapsed().as_secs_f64()
    );

    // Retrieval: the whole search, and the KNN alone.
    const QUESTIONS: &[&str] = &[
        "床前明月光是谁写的？",
        "What is a fraction?",
        "霸王龙吃什么？",
        "How do you add fractions with the same denominator?",
        "春天的早上能听到什么？",
        "Which star twinkles?",
    ];
    let top_k = 5;
    let mut whole = Vec::with_capacity(queries);
    for i in 0..queries {
        let q = QUESTIONS[i % QUESTIONS.len()];
        let t = Instant::now();
        let found = shelf.search(q, Some("bench"), top_k, &encoder).unwrap();
        whole.push(t.elapsed());
        assert_eq!(found.len(), top_k);
    }
    let mut knn = Vec::with_capacity(queries);
    for _ in 0..queries {
        let fixed = Fixed(rng.unit_vector());
        let t = Instant::now();
        let found = shelf.search("q", Some("bench"), top_k, &fixed).unwrap();
        knn.push(t.elapsed());
        assert_eq!(found.len(), top_k);
    }
    // The first stage alone: the binary copies' Hamming KNN.
    let mut bits = Vec::with_capacity(queries);
    for _ in 0..queries {
        let v: Vec<u8> = rng
            .unit_vector()
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let t = Instant::now();
        let n: usize = store
            .with_conn(|c| {
                let mut stmt = c.prepare_cached(
                    "SELECT chunk_id FROM knowledge_bits
                     WHERE embedding MATCH vec_quantize_binary(?1) AND k = 100 AND kb_id = 1",
                )?;
                let rows = stmt.query_map([v], |r| r.get::<_, i64>(0))?;
                Ok(rows.count())
            })
            .unwrap();
        bits.push(t.elapsed());
        assert_eq!(n, 100);
    }
    println!(
        "retrieval at {stored} chunks, top {top_k}, {queries} questions: whole search p50 {:.1} ms, p99 {:.1} ms; KNN and rows alone p50 {:.1} ms, p99 {:.1} ms; the binary KNN alone (100 candidates) p50 {:.1} ms, p99 {:.1} ms (target p99 <= 20 ms)",
        percentile(&mut whole, 0.5),
        percentile(&mut whole, 0.99),
        percentile(&mut knn, 0.5),
        percentile(&mut knn, 0.99),
        percentile(&mut bits, 0.5),
        percentile(&mut bits, 0.99)
    );
}
