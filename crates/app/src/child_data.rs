//! A child's data as a whole, for parents: one action exports it (every
//! table's rows as JSON and CSV in a zip, with a README.txt of the fields,
//! and the files of the child's chat workspaces), one deletes the child with
//! all their data — the rows (one transaction in the store) and the files in
//! the data directory (each chat thread's folder; the voice cache, whose
//! clips cannot be told apart by child, is cleared and remade on demand).
//! Deleting needs a parent's PIN, checked like the parent area's.

use std::io::Write;
use std::path::{Path, PathBuf};

use deskmate_protocol::family::{ChildDeleted, ChildExported, TableRowCount};
use deskmate_store::ChildRows;
use serde_json::{Map, Value};
use zip::write::SimpleFileOptions;

use crate::{AppError, AppResult, Deskmate};

/// The folder of cached voice clips in the data directory.
const VOICE_CACHE: &str = "voice-cache";

impl Deskmate {
    /// Writes every record of the child `profile` (id or name) to the zip
    /// file `out`: `<table>.json` and `<table>.csv` for each table that can
    /// hold a child's rows, `workspaces/<thread id>/…` for the files of their
    /// chats, and `README.txt` describing each file's fields. An existing
    /// file is refused; nothing is left at `out` when writing fails.
    pub fn export_child(&self, profile: &str, out: &Path) -> AppResult<ChildExported> {
        let child = self.find_profile(profile)?;
        if out.exists() {
            return Err(AppError::FileExists {
                path: out.display().to_string(),
            });
        }
        let tables = self.store().child_data().export(&child.id)?;
        let partial = out.with_extension("zip.partial");
        let written = write_zip(&partial, &child.name, &tables, &self.chat().threads_dir());
        let workspace_files = match written.and_then(|n| {
            std::fs::rename(&partial, out).map_err(|e| io_error(out, &e))?;
            Ok(n)
        }) {
            Ok(n) => n,
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                return Err(e);
            }
        };
        Ok(ChildExported {
            profile_id: child.id,
            name: child.name,
            file: out.display().to_string(),
            tables: tables
                .iter()
                .map(|t| TableRowCount {
                    table: t.table.clone(),
                    rows: t.rows.len() as u64,
                })
                .collect(),
            workspace_files,
        })
    }

    /// Deletes the child `profile` (id or name) and all their data, once the
    /// parent `parent_id`'s PIN is right (a wrong one counts towards the
    /// lock). The rows go in one transaction (nothing is deleted when any
    /// part fails); then the child's chat folders and the voice cache are
    /// removed. With sync on, the family's other devices learn the deletion.
    pub fn delete_child(
        &self,
        profile: &str,
        parent_id: &str,
        pin: &str,
    ) -> AppResult<ChildDeleted> {
        let child = self.find_profile(profile)?;
        self.unlock_parent(parent_id, pin)?;
        let gone = self.store().child_data().delete(&child.id)?;
        let threads_dir = self.chat().threads_dir();
        let mut dirs: Vec<PathBuf> = gone
            .thread_ids
            .iter()
            .map(|id| deskmate_agent::thread_dir(&threads_dir, id))
            .collect();
        dirs.push(self.config().data_dir.join(VOICE_CACHE));
        let mut paths_removed = Vec::new();
        let mut failed = Vec::new();
        for dir in dirs.into_iter().filter(|d| d.exists()) {
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => paths_removed.push(dir.display().to_string()),
                Err(e) => failed.push(format!("{} ({e})", dir.display())),
            }
        }
        if !failed.is_empty() {
            return Err(AppError::Invalid(format!(
                "{}'s records are deleted, but these folders could not be removed: {}; delete them by hand",
                child.name,
                failed.join(", ")
            )));
        }
        Ok(ChildDeleted {
            profile_id: child.id,
            name: child.name,
            tables: gone
                .rows
                .into_iter()
                .map(|(table, n)| TableRowCount {
                    table,
                    rows: n as u64,
                })
                .collect(),
            paths_removed,
            sent_to_family: gone.sent_to_family,
        })
    }
}

fn io_error(path: &Path, e: &dyn std::fmt::Display) -> AppError {
    AppError::Invalid(format!("cannot write {}: {e}", path.display()))
}

/// Writes the zip; returns how many workspace files went in.
fn write_zip(path: &Path, name: &str, tables: &[ChildRows], threads_dir: &Path) -> AppResult<u64> {
    let file = std::fs::File::create(path).map_err(|e| io_error(path, &e))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let fail = |e: &dyn std::fmt::Display| io_error(path, e);
    let put = |zip: &mut zip::ZipWriter<std::fs::File>, name: &str, bytes: &[u8]| {
        zip.start_file(name, options).map_err(|e| fail(&e))?;
        zip.write_all(bytes).map_err(|e| fail(&e))
    };
    put(&mut zip, "README.txt", readme(name, tables).as_bytes())?;
    for t in tables {
        let json = serde_json::to_vec_pretty(&objects(t)).map_err(|e| fail(&e))?;
        put(&mut zip, &format!("{}.json", t.table), &json)?;
        put(&mut zip, &format!("{}.csv", t.table), csv(t).as_bytes())?;
    }
    let mut files = 0;
    if let Some(threads) = tables.iter().find(|t| t.table == "threads") {
        let id_at = threads.columns.iter().position(|c| c.name == "id");
        for row in &threads.rows {
            let Some(id) = id_at.and_then(|i| row.get(i)).and_then(Value::as_str) else {
                continue;
            };
            let root = deskmate_agent::workspace_dir(threads_dir, id);
            for (rel, file) in files_under(&root) {
                let bytes = std::fs::read(&file).map_err(|e| io_error(&file, &e))?;
                put(&mut zip, &format!("workspaces/{id}/{rel}"), &bytes)?;
                files += 1;
            }
        }
    }
    zip.finish().map_err(|e| fail(&e))?;
    Ok(files)
}

/// The regular files under `root` (symlinks skipped), with their path
/// relative to it, `/`-separated.
fn files_under(root: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let mut dirs = vec![(String::new(), root.to_path_buf())];
    while let Some((prefix, dir)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            match e.file_type() {
                Ok(t) if t.is_dir() => dirs.push((format!("{rel}/"), e.path())),
                Ok(t) if t.is_file() => found.push((rel, e.path())),
                _ => {}
            }
        }
    }
    found.sort();
    found
}

/// The rows as JSON objects, field by field.
fn objects(t: &ChildRows) -> Vec<Map<String, Value>> {
    t.rows
        .iter()
        .map(|row| {
            t.columns
                .iter()
                .zip(row)
                .map(|(c, v)| (c.name.clone(), v.clone()))
                .collect()
        })
        .collect()
}

/// RFC 4180 CSV with a header line, UTF-8 with a byte-order mark (so a
/// spreadsheet opens Chinese text right); an empty cell is NULL.
fn csv(t: &ChildRows) -> String {
    let mut out = String::from("\u{feff}");
    let line = |cells: Vec<String>| {
        cells
            .into_iter()
            .map(|c| {
                if c.contains([',', '"', '\n', '\r']) {
                    format!("\"{}\"", c.replace('"', "\"\""))
                } else {
                    c
                }
            })
            .collect::<Vec<_>>()
            .join(",")
            + "\r\n"
    };
    out.push_str(&line(t.columns.iter().map(|c| c.name.clone()).collect()));
    for row in &t.rows {
        out.push_str(&line(
            row.iter()
                .map(|v| match v {
                    Value::Null => String::new(),
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
        ));
    }
    out
}

fn readme(name: &str, tables: &[ChildRows]) -> String {
    let mut s = format!(
        "Deskmate: everything stored about {name} on this device\n\
         Exported {}.\n\n\
         Each table is here twice: TABLE.json (an array of objects, one per\n\
         row) and TABLE.csv (the same rows for a spreadsheet; UTF-8, an empty\n\
         cell is no value). Times are RFC 3339 in UTC unless a field says\n\
         otherwise; ids are UUIDs. Some fields hold JSON text themselves\n\
         (errors, report data, message content). workspaces/THREAD_ID/ holds\n\
         the files the companion wrote in a chat.\n",
        deskmate_store::now_utc()
    );
    for t in tables {
        s.push_str(&format!(
            "\n{0}.json, {0}.csv: {1} ({2} rows)\n",
            t.table,
            t.about,
            t.rows.len()
        ));
        for c in &t.columns {
            let about = if c.about.is_empty() {
                String::new()
            } else {
                format!(": {}", c.about)
            };
            s.push_str(&format!("  {} ({}){}\n", c.name, c.sql_type, about));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use deskmate_store::ChildColumn;

    fn table() -> ChildRows {
        ChildRows {
            table: "memories".into(),
            about: "what is remembered".into(),
            columns: ["id", "text", "n"]
                .iter()
                .map(|n| ChildColumn {
                    name: (*n).into(),
                    sql_type: "TEXT".into(),
                    about: String::new(),
                })
                .collect(),
            rows: vec![
                vec![
                    Value::from("1"),
                    Value::from("恐龙, \"大\"\n的"),
                    Value::Null,
                ],
                vec![Value::from("2"), Value::from("星星"), Value::from(3)],
            ],
        }
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(
            csv(&table()),
            "\u{feff}id,text,n\r\n1,\"恐龙, \"\"大\"\"\n的\",\r\n2,星星,3\r\n"
        );
    }

    #[test]
    fn readme_names_every_field() {
        let r = readme("小明", &[table()]);
        assert!(r.contains("memories.json, memories.csv: what is remembered (2 rows)"));
        assert!(r.contains("  text (TEXT)\n"));
    }
}
