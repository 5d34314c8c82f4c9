//! Files and photos attached to a chat message (issue 19 point 5). Each is
//! checked before anything is stored — at most [`MAX_ATTACHMENTS`] files of
//! at most [`MAX_ATTACHMENT_BYTES`], known by their first bytes: text
//! (`.txt`, `.md`, `.csv`, `.json`, UTF-8), PDF, Word (`.docx`) and photos
//! (PNG, JPEG, GIF, WebP). A PDF or Word file must give its text (a damaged
//! one is a plain error), and a photo is refused when the run's model is
//! known not to see pictures. Then every file goes into the thread's
//! workspace under `/attachments/` (a PDF's or Word file's text beside it
//! as `<name>.txt`, for `read_file`), photos also go to the model as image
//! parts, and the message says where each file is.

use base64::Engine;
use deskmate_agent::Sandbox;
use deskmate_llm::ModelSpec;

use crate::{AppError, AppResult};

/// The most files one message can carry.
pub const MAX_ATTACHMENTS: usize = 5;

/// The largest file one message can carry (bytes).
pub const MAX_ATTACHMENT_BYTES: usize = 10 * 1024 * 1024;

/// The workspace folder attachments go to.
pub const FOLDER: &str = "/attachments";

/// A file attached to a message, as a front end sends it: its name (any
/// folders in it are dropped) and its bytes in base64.
pub use deskmate_protocol::files::FileUpload as ChatAttachment;

/// What an attachment is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Text,
    /// PDF or Word: its extracted text goes beside it.
    Document(String),
    /// A photo, with its media type.
    Image(&'static str),
}

/// An attachment that passed the checks.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    name: String,
    bytes: Vec<u8>,
    base64: String,
    kind: Kind,
}

/// An attachment in the thread's workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stored {
    /// Its workspace path.
    pub path: String,
    /// Where its text is, for a PDF or Word file.
    pub text_path: Option<String>,
    /// For a photo: media type and base64, for the model's image part.
    pub image: Option<(String, String)>,
}

const ALLOWED: &str =
    "only text (txt, md, csv, json), PDF, Word (docx) and photos (PNG, JPEG, GIF, WebP) can be attached";

/// Checks every attachment; the first that fails is the error and nothing
/// is kept. `model` is the model the run will call.
pub(crate) fn check(attachments: &[ChatAttachment], model: &ModelSpec) -> AppResult<Vec<Checked>> {
    if attachments.len() > MAX_ATTACHMENTS {
        return Err(AppError::Invalid(format!(
            "{} files were attached; at most {MAX_ATTACHMENTS} go with one message",
            attachments.len()
        )));
    }
    attachments.iter().map(|a| check_one(a, model)).collect()
}

fn check_one(a: &ChatAttachment, model: &ModelSpec) -> AppResult<Checked> {
    let name = file_name(&a.name)?;
    let invalid = |why: String| Err(AppError::Invalid(format!("{name}: {why}")));
    // The size from the base64 length first, so a huge upload is not decoded.
    if a.data_base64.len() / 4 * 3 > MAX_ATTACHMENT_BYTES + 3 {
        return invalid(format!(
            "it is larger than {mb} MB; at most {mb} MB can be attached",
            mb = MAX_ATTACHMENT_BYTES / (1024 * 1024)
        ));
    }
    let bytes = match base64::engine::general_purpose::STANDARD.decode(a.data_base64.trim()) {
        Ok(b) => b,
        Err(_) => return invalid("it could not be read (its data is not base64)".into()),
    };
    if bytes.is_empty() {
        return invalid("the file is empty".into());
    }
    if bytes.len() > MAX_ATTACHMENT_BYTES {
        return invalid(format!(
            "it is {:.1} MB; at most {} MB can be attached",
            bytes.len() as f64 / (1024.0 * 1024.0),
            MAX_ATTACHMENT_BYTES / (1024 * 1024)
        ));
    }
    let ext = std::path::Path::new(&name)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let kind = if let Some(media) = image_type(&bytes) {
        if model.sees_images() == Some(false) {
            return invalid(format!(
                "{model} cannot see pictures; choose a model that can (for example openai:gpt-4o-mini) to show it a photo"
            ));
        }
        Kind::Image(media)
    } else if bytes.starts_with(b"%PDF-") || (ext == "docx" && bytes.starts_with(b"PK\x03\x04")) {
        let as_named = if bytes.starts_with(b"%PDF-") && ext != "pdf" {
            format!("{name}.pdf")
        } else {
            name.clone()
        };
        match deskmate_knowledge::extract::extract_bytes(&as_named, &bytes) {
            Ok(doc) => Kind::Document(doc.text),
            Err(e) => return invalid(format!("its text cannot be read: {e}")),
        }
    } else if matches!(
        ext.as_str(),
        "txt" | "text" | "md" | "markdown" | "csv" | "json"
    ) {
        if std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes)).is_err() {
            return invalid("it is not UTF-8 text (save it as UTF-8 and attach it again)".into());
        }
        Kind::Text
    } else {
        return invalid(ALLOWED.into());
    };
    Ok(Checked {
        name,
        base64: a.data_base64.trim().to_string(),
        bytes,
        kind,
    })
}

/// The photo type by the file's first bytes.
fn image_type(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if b.starts_with(b"\xFF\xD8\xFF") {
        Some("image/jpeg")
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// The file name alone: folders dropped, no control characters, not empty.
fn file_name(given: &str) -> AppResult<String> {
    let last = given.rsplit(['/', '\\']).next().unwrap_or(given).trim();
    let clean: String = last.chars().filter(|c| !c.is_control()).take(100).collect();
    if clean.is_empty() || clean == "." || clean == ".." {
        return Err(AppError::Invalid(format!(
            "an attached file needs a name (got {given:?})"
        )));
    }
    Ok(clean)
}

/// Puts the checked files into the workspace at `root`, each under a name
/// not taken yet (`a.pdf`, `a-2.pdf`, …).
pub(crate) fn store(root: &std::path::Path, checked: Vec<Checked>) -> AppResult<Vec<Stored>> {
    let sandbox = Sandbox::open(root).map_err(|e| AppError::Thread {
        what: "cannot keep the attached files",
        reason: e.to_string(),
    })?;
    let failed = |e: deskmate_agent::SandboxError| AppError::Thread {
        what: "cannot keep the attached files",
        reason: e.to_string(),
    };
    let mut out = Vec::new();
    for c in checked {
        let (stem, ext) = match c.name.rsplit_once('.') {
            Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
            _ => (c.name.clone(), String::new()),
        };
        let mut path = None;
        for n in 1..=99 {
            let candidate = if n == 1 {
                format!("{FOLDER}/{stem}{ext}")
            } else {
                format!("{FOLDER}/{stem}-{n}{ext}")
            };
            if sandbox.put_new_file(&candidate, &c.bytes).map_err(failed)? {
                path = Some(candidate);
                break;
            }
        }
        let Some(path) = path else {
            return Err(AppError::Invalid(format!(
                "{}: this conversation already has 99 files of that name",
                c.name
            )));
        };
        let text_path = match &c.kind {
            Kind::Document(text) => {
                let t = format!("{path}.txt");
                sandbox
                    .put_new_file(&t, text.as_bytes())
                    .map_err(failed)?
                    .then_some(t)
            }
            _ => None,
        };
        let image = match c.kind {
            Kind::Image(media) => Some((media.to_string(), c.base64)),
            _ => None,
        };
        out.push(Stored {
            path,
            text_path,
            image,
        });
    }
    Ok(out)
}

/// The words added to the message so the companion knows where the files are.
pub(crate) fn note(stored: &[Stored]) -> String {
    let items: Vec<String> = stored
        .iter()
        .map(|s| match (&s.text_path, &s.image) {
            (Some(t), _) => format!("{} (its text: {t})", s.path),
            (None, Some(_)) => format!("{} (a picture, shown with this message)", s.path),
            (None, None) => s.path.clone(),
        })
        .collect();
    format!("\n\n[Attached: {}]", items.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attach(name: &str, bytes: &[u8]) -> ChatAttachment {
        ChatAttachment {
            name: name.into(),
            data_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }

    fn model(m: &str) -> ModelSpec {
        ModelSpec::parse(m).unwrap()
    }

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn files_are_known_by_their_first_bytes_and_refused_plainly() {
        let m = model("openai:gpt-4o-mini");
        let ok = check(
            &[
                attach("../../etc/notes.md", "# 生字\n床 前".as_bytes()),
                attach("page.png", PNG),
            ],
            &m,
        )
        .unwrap();
        assert_eq!(ok[0].name, "notes.md");
        assert_eq!(ok[0].kind, Kind::Text);
        assert_eq!(ok[1].kind, Kind::Image("image/png"));

        let err = |a: ChatAttachment, m: &ModelSpec| check(&[a], m).unwrap_err().to_string();
        assert!(err(attach("run.exe", b"MZ\x90\0"), &m).contains("only text"));
        assert!(err(attach("bad.txt", b"\xff\xfe\xfa"), &m).contains("not UTF-8"));
        assert!(err(attach("empty.txt", b""), &m).contains("empty"));
        assert!(err(attach("broken.pdf", b"%PDF-1.7 not really"), &m).contains("cannot be read"));
        let big = vec![b'a'; MAX_ATTACHMENT_BYTES + 1];
        assert!(err(attach("big.txt", &big), &m).contains("at most 10 MB can be attached"));
        assert!(err(attach("page.png", PNG), &model("openai:gpt-3.5-turbo"))
            .contains("cannot see pictures"));
        // An unknown model gets the photo (it answers for itself).
        assert!(check(&[attach("page.png", PNG)], &model("vllm:mine")).is_ok());
        let six: Vec<_> = (0..6).map(|i| attach(&format!("{i}.txt"), b"x")).collect();
        assert!(check(&six, &m)
            .unwrap_err()
            .to_string()
            .contains("at most 5"));
        let bad64 = ChatAttachment {
            name: "a.txt".into(),
            data_base64: "!!!".into(),
        };
        assert!(err(bad64, &m).contains("not base64"));
    }

    /// A minimal Word file: a zip whose word/document.xml holds a paragraph.
    fn docx(text: &str) -> Vec<u8> {
        use std::io::Write;
        let mut out = std::io::Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut out);
        z.start_file(
            "word/document.xml",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        write!(
            z,
            r#"<w:document><w:body><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:body></w:document>"#
        )
        .unwrap();
        z.finish().unwrap();
        out.into_inner()
    }

    #[test]
    fn a_word_file_s_text_goes_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let m = model("openai:gpt-4o-mini");
        let checked = check(&[attach("作业.docx", &docx("第三课 生字：静 夜 思"))], &m).unwrap();
        let stored = store(dir.path(), checked).unwrap();
        assert_eq!(
            stored[0].text_path.as_deref(),
            Some("/attachments/作业.docx.txt")
        );
        let text = std::fs::read_to_string(dir.path().join("attachments/作业.docx.txt")).unwrap();
        assert!(text.contains("第三课 生字：静 夜 思"), "{text}");
        assert!(note(&stored).contains("(its text: /attachments/作业.docx.txt)"));
        // A zip named .docx that is not a Word file is refused, nothing kept.
        let e = check(&[attach("x.docx", b"PK\x03\x04junk")], &m).unwrap_err();
        assert!(e.to_string().contains("cannot be read"), "{e}");
    }

    #[test]
    fn stored_files_never_overwrite_and_the_note_says_where_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let m = model("openai:gpt-4o-mini");
        let first = store(
            dir.path(),
            check(&[attach("a.txt", b"one"), attach("p.png", PNG)], &m).unwrap(),
        )
        .unwrap();
        let second = store(dir.path(), check(&[attach("a.txt", b"two")], &m).unwrap()).unwrap();
        assert_eq!(first[0].path, "/attachments/a.txt");
        assert_eq!(second[0].path, "/attachments/a-2.txt");
        let read = |p: &str| std::fs::read(dir.path().join(p.trim_start_matches('/'))).unwrap();
        assert_eq!(read("/attachments/a.txt"), b"one");
        assert_eq!(read("/attachments/a-2.txt"), b"two");
        assert_eq!(first[1].image.as_ref().unwrap().0, "image/png");
        let note = note(&first);
        assert!(
            note.contains("/attachments/a.txt; /attachments/p.png (a picture"),
            "{note}"
        );
    }
}
