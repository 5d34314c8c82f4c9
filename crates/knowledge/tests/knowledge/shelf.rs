//! The knowledge base end to end against a real SQLite database: adding,
//! listing, removing and searching with the real sentence encoder (from
//! DESKMATE_MODELS_DIR, like the speech tests), and all-or-nothing adds
//! with an encoder that fails half-way.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use deskmate_knowledge::{
    extract_file, Embedder, Extracted, KnowledgeError, KnowledgeResult, SentenceEncoder, Shelf,
    EMBEDDING_DIM,
};
use deskmate_store::Store;

fn encoder() -> &'static SentenceEncoder {
    static ENC: OnceLock<SentenceEncoder> = OnceLock::new();
    ENC.get_or_init(|| {
        let dir = deskmate_speech::ModelPaths::dev_dir();
        SentenceEncoder::in_dir(&dir)
            .unwrap_or_else(|e| panic!("{e} (looked in {})", dir.display()))
    })
}

fn doc(source: &str, text: &str) -> Extracted {
    Extracted {
        source: source.into(),
        title: source.into(),
        text: text.into(),
        page_starts: Vec::new(),
    }
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn the_encoder_puts_a_poem_line_near_its_translation() {
    let v = encoder()
        .embed(&[
            "床前明月光，疑是地上霜。",
            "Moonlight shines before my bed; I think it is frost on the ground.",
            "今天数学课学习两位数加法。",
        ])
        .unwrap();
    assert_eq!(v.len(), 3);
    for x in &v {
        assert_eq!(x.len(), EMBEDDING_DIM);
        assert!((x.iter().map(|a| a * a).sum::<f32>() - 1.0).abs() < 1e-3);
    }
    let (same, other) = (cosine(&v[0], &v[1]), cosine(&v[0], &v[2]));
    assert!(
        same > 0.4 && same > other + 0.15,
        "translation {same}, unrelated {other}"
    );
    // A batch gives nearly the vectors of one text at a time (the graph
    // pads a batch to its longest text, which moves vectors slightly).
    let one = encoder().embed(&["今天数学课学习两位数加法。"]).unwrap();
    let c = cosine(&one[0], &v[2]);
    eprintln!("batch vs single cosine {c}");
    assert!(c > 0.99, "batch vs single cosine {c}");
}

#[test]
fn documents_are_added_searched_listed_and_removed() {
    let store = Store::open_in_memory().unwrap();
    let shelf = Shelf::new(&store);
    let science = "植物的叶子里有叶绿素。叶子利用阳光、水和二氧化碳制造养料，同时放出氧气，这个过程叫光合作用。\n\
                   The water cycle: water evaporates from seas, forms clouds, and falls again as rain or snow.";
    let history = "长城是中国古代修建的防御工程，东起山海关，西到嘉峪关，全长一万多里。";
    let mut seen = Vec::new();
    let added = shelf
        .add_document(
            "科学",
            &doc("science.txt", science),
            encoder(),
            &mut |p| seen.push(p),
        )
        .unwrap();
    assert_eq!(added.chunks, 1);
    assert_eq!(seen.last().unwrap().done_chunks, 1);
    shelf
        .add_document("科学", &doc("history.txt", history), encoder(), &mut |_| {})
        .unwrap();
    let err = shelf
        .add_document("科学", &doc("copy.txt", history), encoder(), &mut |_| {})
        .unwrap_err();
    assert_eq!(err.code(), "knowledge.duplicate", "{err}");

    let hits = shelf
        .search("植物怎样制造养料？", Some("科学"), 2, encoder())
        .unwrap();
    assert_eq!(hits[0].source, "science.txt");
    assert_eq!(hits[0].position, 0);
    assert!(hits[0].score > hits[1].score);
    let hits = shelf
        .search("How long is the Great Wall?", None, 1, encoder())
        .unwrap();
    assert_eq!(hits[0].source, "history.txt");

    let list = shelf.list().unwrap();
    assert_eq!((list[0].name.as_str(), list[0].documents), ("科学", 2));
    assert_eq!(shelf.remove("科学", Some("history.txt")).unwrap(), 1);
    assert_eq!(
        shelf
            .remove("科学", Some("history.txt"))
            .unwrap_err()
            .code(),
        "knowledge.no_such_document"
    );
    let hits = shelf.search("长城", Some("科学"), 5, encoder()).unwrap();
    assert!(hits.iter().all(|h| h.source == "science.txt"));
    assert_eq!(shelf.remove("科学", None).unwrap(), 1);
    assert!(shelf.list().unwrap().is_empty());
    let left: i64 = store
        .with_conn(|c| Ok(c.query_row("SELECT COUNT(*) FROM knowledge_bits", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(left, 0, "binary vectors go with their chunks");
}

/// Fails on its second call: the document must not be half-stored.
struct FailsHalfway(AtomicUsize);

impl Embedder for FailsHalfway {
    fn id(&self) -> &str {
        "use-multilingual-int8"
    }
    fn embed(&self, texts: &[&str]) -> KnowledgeResult<Vec<Vec<f32>>> {
        if self.0.fetch_add(1, Ordering::SeqCst) == 1 {
            return Err(KnowledgeError::Encoder("stopped half-way".into()));
        }
        Ok(texts
            .iter()
            .map(|_| vec![1.0 / (EMBEDDING_DIM as f32).sqrt(); EMBEDDING_DIM])
            .collect())
    }
}

fn counts(store: &Store) -> (i64, i64, i64) {
    store
        .with_conn(|c| {
            let n = |t: &str| c.query_row(&format!("SELECT COUNT(*) FROM {t}"), [], |r| r.get(0));
            Ok((
                n("knowledge_documents")?,
                n("knowledge_chunks")?,
                n("knowledge_bits")?,
            ))
        })
        .unwrap()
}

#[test]
fn a_failure_half_way_or_a_corrupt_pdf_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("deskmate.db")).unwrap();
    let shelf = Shelf::new(&store);
    let long = "这是一句关于月亮的话。".repeat(2000);
    let err = shelf
        .add_document(
            "课本",
            &doc("long.txt", &long),
            &FailsHalfway(AtomicUsize::new(0)),
            &mut |_| {},
        )
        .unwrap_err();
    assert!(err.to_string().contains("half-way"), "{err}");
    assert_eq!(counts(&store), (0, 0, 0));

    let pdf = dir.path().join("worksheet.pdf");
    std::fs::write(
        &pdf,
        b"%PDF-1.7\n%\xE2\xE3\n1 0 obj\n<< /Type /Pages /Kids [2 0 R] >>\ntrailer <<>>\n",
    )
    .unwrap();
    let err = extract_file(Path::new(&pdf)).unwrap_err();
    assert!(err.to_string().contains("damaged"), "{err}");
    assert_eq!(counts(&store), (0, 0, 0));
}
