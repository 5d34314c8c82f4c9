//! Text out of a parent's document: plain text and Markdown (UTF-8), PDF
//! (through `pdf-extract`, page by page, so a passage can name its page)
//! and Word `.docx` (a zip whose `word/document.xml` holds the paragraphs).
//! A damaged or unreadable file is a plain error; nothing is stored.

use std::io::Read;
use std::path::Path;

use crate::{KnowledgeError, KnowledgeResult};

/// The largest file read (bytes).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// A document's text.
#[derive(Debug, Clone)]
pub struct Extracted {
    /// The file name without its folder.
    pub source: String,
    /// The first heading or line, else the file name.
    pub title: String,
    pub text: String,
    /// For a PDF: the character offset where each page starts.
    pub page_starts: Vec<usize>,
}

impl Extracted {
    /// The 1-based page a character offset is on (PDF only).
    pub fn page_of(&self, offset: usize) -> Option<usize> {
        if self.page_starts.is_empty() {
            return None;
        }
        Some(self.page_starts.partition_point(|&s| s <= offset).max(1))
    }
}

/// Reads and extracts `path` by its extension.
pub fn extract_file(path: &Path) -> KnowledgeResult<Extracted> {
    let shown = path.display().to_string();
    let unreadable = |reason: String| KnowledgeError::Unreadable {
        path: shown.clone(),
        reason,
    };
    let meta = std::fs::metadata(path).map_err(|e| unreadable(e.to_string()))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(unreadable(format!(
            "it is {} MB; at most {} MB can be added",
            meta.len() / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        )));
    }
    let source = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    let bytes = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
    extract_named(&source, &shown, &bytes)
}

/// Extracts a file's `bytes` by the extension of its `name` (a chat
/// attachment sent as bytes; the same rules as [`extract_file`]).
pub fn extract_bytes(name: &str, bytes: &[u8]) -> KnowledgeResult<Extracted> {
    extract_named(name, name, bytes)
}

fn extract_named(source: &str, shown: &str, bytes: &[u8]) -> KnowledgeResult<Extracted> {
    let unreadable = |reason: String| KnowledgeError::Unreadable {
        path: shown.to_string(),
        reason,
    };
    let ext = Path::new(source)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let (text, page_starts) = match ext.as_str() {
        "txt" | "text" => (utf8(bytes).map_err(unreadable)?, Vec::new()),
        "md" | "markdown" => (
            markdown_to_text(&utf8(bytes).map_err(unreadable)?),
            Vec::new(),
        ),
        "pdf" => pdf_text(bytes).map_err(unreadable)?,
        "docx" => (docx_text(bytes).map_err(unreadable)?, Vec::new()),
        _ => {
            return Err(KnowledgeError::Unsupported {
                path: shown.to_string(),
            })
        }
    };
    if text.trim().is_empty() {
        return Err(KnowledgeError::Empty {
            path: shown.to_string(),
        });
    }
    let title = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(80).collect())
        .unwrap_or_else(|| source.to_string());
    Ok(Extracted {
        source: source.to_string(),
        title,
        text,
        page_starts,
    })
}

fn utf8(bytes: &[u8]) -> Result<String, String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8(bytes.to_vec())
        .map_err(|_| "it is not UTF-8 text (save it as UTF-8 and add it again)".to_string())
}

/// Markdown as readable text: heading marks, list bullets and code fences
/// go; the words stay.
pub fn markdown_to_text(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    for line in md.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            continue;
        }
        let t = t.trim_start_matches('#').trim_start_matches('>');
        let t = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .unwrap_or(t);
        out.push_str(t.trim_start());
        out.push('\n');
    }
    out
}

/// A PDF's text, page by page. `pdf-extract` panics on some malformed
/// files; that is caught and reported like any other damage.
fn pdf_text(bytes: &[u8]) -> Result<(String, Vec<usize>), String> {
    let damaged = |why: String| format!("the PDF is damaged or not a PDF ({why})");
    let pages = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem_by_pages(bytes))
        .map_err(|_| damaged("its structure could not be read".into()))?
        .map_err(|e| damaged(e.to_string()))?;
    let mut text = String::new();
    let mut starts = Vec::with_capacity(pages.len());
    let mut chars = 0usize;
    for page in pages {
        starts.push(chars);
        let page = page.trim_end();
        chars += page.chars().count() + 1;
        text.push_str(page);
        text.push('\n');
    }
    Ok((text, starts))
}

/// A Word document's paragraphs, one per line.
fn docx_text(bytes: &[u8]) -> Result<String, String> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("the Word file is damaged or not a .docx ({e})"))?;
    let mut xml = String::new();
    zip.by_name("word/document.xml")
        .map_err(|_| "the Word file has no document body (word/document.xml)".to_string())?
        .read_to_string(&mut xml)
        .map_err(|e| format!("the Word file's body is unreadable ({e})"))?;
    Ok(docx_body_text(&xml))
}

/// The text runs (`<w:t>`) of WordprocessingML, with paragraph ends,
/// breaks and tabs.
pub fn docx_body_text(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    while let Some(lt) = rest.find('<') {
        let Some(gt) = rest[lt..].find('>') else {
            break;
        };
        let tag = &rest[lt + 1..lt + gt];
        let after = &rest[lt + gt + 1..];
        let name = tag.split([' ', '/']).next().unwrap_or("");
        if name == "w:t" && !tag.ends_with('/') {
            let end = after.find("</w:t>").unwrap_or(after.len());
            out.push_str(&unescape(&after[..end]));
            rest = &after[end..];
            continue;
        }
        match (name, tag.starts_with('/')) {
            ("", true) if tag == "/w:p" => out.push('\n'),
            ("w:br", _) | ("w:cr", _) => out.push('\n'),
            ("w:tab", _) => out.push('\t'),
            _ => {}
        }
        rest = after;
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn docx_paragraphs_become_lines() {
        let xml = r#"<w:document><w:body><w:p><w:r><w:t>春晓</w:t></w:r></w:p><w:p><w:r><w:t xml:space="preserve">春眠不觉晓，</w:t></w:r><w:r><w:t>处处闻啼鸟。</w:t></w:r></w:p><w:p><w:r><w:t>A &amp; B</w:t><w:br/><w:t>next</w:t></w:r></w:p></w:body></w:document>"#;
        assert_eq!(
            docx_body_text(xml),
            "春晓\n春眠不觉晓，处处闻啼鸟。\nA & B\nnext\n"
        );
    }

    #[test]
    fn a_docx_file_and_a_markdown_file_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lesson.docx");
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        zip.start_file(
            "word/document.xml",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        zip.write_all(b"<w:document><w:body><w:p><w:r><w:t>Photosynthesis</w:t></w:r></w:p></w:body></w:document>").unwrap();
        zip.finish().unwrap();
        let e = extract_file(&path).unwrap();
        assert_eq!(
            (e.source.as_str(), e.title.as_str()),
            ("lesson.docx", "Photosynthesis")
        );

        let md = dir.path().join("notes.md");
        std::fs::write(&md, "# 第一课\n\n- 春眠不觉晓\n```\ncode\n```\n").unwrap();
        let e = extract_file(&md).unwrap();
        assert_eq!(e.text, "第一课\n\n春眠不觉晓\ncode\n");
        assert_eq!(e.title, "第一课");
    }

    #[test]
    fn damaged_and_unsupported_files_are_plain_errors() {
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("broken.pdf");
        std::fs::write(&pdf, b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ngarbage").unwrap();
        let err = extract_file(&pdf).unwrap_err();
        assert_eq!(err.code(), "knowledge.unreadable");
        assert!(err.to_string().contains("damaged"), "{err}");
        let docx = dir.path().join("broken.docx");
        std::fs::write(&docx, b"not a zip").unwrap();
        assert!(extract_file(&docx)
            .unwrap_err()
            .to_string()
            .contains("damaged"));
        let png = dir.path().join("photo.png");
        std::fs::write(&png, b"x").unwrap();
        assert_eq!(
            extract_file(&png).unwrap_err().code(),
            "knowledge.unsupported"
        );
        let blank = dir.path().join("blank.txt");
        std::fs::write(&blank, "  \n").unwrap();
        assert_eq!(extract_file(&blank).unwrap_err().code(), "knowledge.empty");
        let latin1 = dir.path().join("latin1.txt");
        std::fs::write(&latin1, b"caf\xe9").unwrap();
        assert!(extract_file(&latin1)
            .unwrap_err()
            .to_string()
            .contains("UTF-8"));
    }

    #[test]
    fn pages_are_found_by_offset() {
        let e = Extracted {
            source: "a.pdf".into(),
            title: "a".into(),
            text: String::new(),
            page_starts: vec![0, 10, 25],
        };
        assert_eq!(e.page_of(0), Some(1));
        assert_eq!(e.page_of(9), Some(1));
        assert_eq!(e.page_of(10), Some(2));
        assert_eq!(e.page_of(100), Some(3));
    }
}
