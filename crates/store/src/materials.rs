//! Materials: the poems and texts a child recites. Built-in ones are upserted
//! by slug (idempotent on every start); parents add custom ones.

use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::{now_utc, Store, StoreError, StoreResult};

/// The longest body a custom material may have: longer texts are not
/// something a child recites in one go, and the limit keeps the UI usable.
pub const BODY_MAX_CHARS: usize = 20_000;
const TITLE_MAX_CHARS: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum MaterialSource {
    Builtin,
    Custom,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Material {
    pub id: String,
    pub slug: Option<String>,
    pub source: MaterialSource,
    pub lang: String,
    pub title: String,
    pub author: Option<String>,
    pub dynasty: Option<String>,
    pub grade: Option<u8>,
    pub level: Option<u8>,
    pub body: String,
    pub created_at: String,
    pub updated_at: String,
}

/// A material to insert. Built-in materials carry a slug; custom ones do not.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct NewMaterial {
    pub slug: Option<String>,
    pub lang: String,
    pub title: String,
    pub author: Option<String>,
    pub dynasty: Option<String>,
    pub grade: Option<u8>,
    pub level: Option<u8>,
    pub body: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct MaterialFilter {
    pub lang: Option<String>,
    pub grade: Option<u8>,
    /// Case-insensitive substring of title, author or body.
    pub search: Option<String>,
}

pub struct Materials<'s> {
    store: &'s Store,
}

const COLUMNS: &str =
    "id, slug, source, lang, title, author, dynasty, grade, level, body, created_at, updated_at";

fn from_row(row: &Row<'_>) -> rusqlite::Result<Material> {
    let source: String = row.get(2)?;
    Ok(Material {
        id: row.get(0)?,
        slug: row.get(1)?,
        source: if source == "builtin" {
            MaterialSource::Builtin
        } else {
            MaterialSource::Custom
        },
        lang: row.get(3)?,
        title: row.get(4)?,
        author: row.get(5)?,
        dynasty: row.get(6)?,
        grade: row.get(7)?,
        level: row.get(8)?,
        body: row.get(9)?,
        created_at: row.get(10)?,
        updated_at: row.get(11)?,
    })
}

/// The stable id of a built-in material: the same on every device, so
/// history and sync refer to one poem whichever device recorded it.
pub fn builtin_id(slug: &str) -> String {
    const NS: uuid::Uuid = uuid::Uuid::from_u128(0x6465_736b_6d61_7465_6d61_7465_7269_616c);
    uuid::Uuid::new_v5(&NS, slug.as_bytes()).to_string()
}

fn validate(m: &NewMaterial) -> StoreResult<()> {
    if !matches!(m.lang.as_str(), "zh" | "en") {
        return Err(StoreError::Invalid(format!(
            "language must be zh or en, not {:?}",
            m.lang
        )));
    }
    let title = m.title.trim();
    if title.is_empty() {
        return Err(StoreError::Invalid("a material needs a title".into()));
    }
    if title.chars().count() > TITLE_MAX_CHARS {
        return Err(StoreError::Invalid(format!(
            "a title is at most {TITLE_MAX_CHARS} characters"
        )));
    }
    if !m.body.chars().any(char::is_alphanumeric) {
        return Err(StoreError::BodyEmpty);
    }
    let n = m.body.chars().count();
    if n > BODY_MAX_CHARS {
        return Err(StoreError::BodyTooLong {
            chars: n,
            max: BODY_MAX_CHARS,
        });
    }
    if let Some(g) = m.grade {
        if !(1..=12).contains(&g) {
            return Err(StoreError::Invalid("grade must be between 1 and 12".into()));
        }
    }
    Ok(())
}

impl<'s> Materials<'s> {
    pub(crate) fn new(store: &'s Store) -> Self {
        Self { store }
    }

    /// Adds a parent's own material.
    pub fn add_custom(&self, m: NewMaterial, created_by: Option<&str>) -> StoreResult<Material> {
        validate(&m)?;
        let id = uuid::Uuid::now_v7().to_string();
        let now = now_utc();
        self.store.with_conn(|c| {
            c.execute(
                "INSERT INTO materials (id, slug, source, lang, title, author, dynasty, grade, level, body, created_by, created_at, updated_at)
                 VALUES (?1, NULL, 'custom', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
                params![id, m.lang, m.title.trim(), m.author, m.dynasty, m.grade, m.level, m.body.trim(), created_by, now],
            )?;
            Ok(())
        })?;
        self.get(&id)
    }

    /// Inserts or updates every built-in material in one transaction. Rows
    /// whose content is unchanged are left alone, so this is idempotent.
    /// Returns how many rows were inserted or changed.
    pub fn upsert_builtin(&self, items: &[NewMaterial]) -> StoreResult<usize> {
        for m in items {
            validate(m)?;
            if m.slug.is_none() {
                return Err(StoreError::Invalid(format!(
                    "built-in material {:?} has no slug",
                    m.title
                )));
            }
        }
        let now = now_utc();
        self.store.with_conn(|c| {
            let tx = c.transaction()?;
            let mut changed = 0;
            {
                let mut stmt = tx.prepare(
                    "INSERT INTO materials (id, slug, source, lang, title, author, dynasty, grade, level, body, created_at, updated_at)
                     VALUES (?1, ?2, 'builtin', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)
                     ON CONFLICT(id) DO UPDATE SET
                        slug = excluded.slug, lang = excluded.lang, title = excluded.title, author = excluded.author,
                        dynasty = excluded.dynasty, grade = excluded.grade, level = excluded.level, body = excluded.body,
                        updated_at = excluded.updated_at
                     WHERE (materials.slug, materials.lang, materials.title, materials.author, materials.dynasty,
                            materials.grade, materials.level, materials.body)
                        IS NOT (excluded.slug, excluded.lang, excluded.title, excluded.author, excluded.dynasty,
                            excluded.grade, excluded.level, excluded.body)",
                )?;
                for m in items {
                    let slug = m.slug.as_deref().unwrap_or_default();
                    changed += stmt.execute(params![
                        builtin_id(slug),
                        slug,
                        m.lang,
                        m.title.trim(),
                        m.author,
                        m.dynasty,
                        m.grade,
                        m.level,
                        m.body.trim(),
                        now
                    ])?;
                }
            }
            tx.commit()?;
            Ok(changed)
        })
    }

    pub fn get(&self, id: &str) -> StoreResult<Material> {
        self.store.with_conn(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM materials WHERE id = ?1"),
                [id],
                from_row,
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("material {id}")))
        })
    }

    /// Materials matching the filter: Chinese first, then by grade and title.
    pub fn list(&self, filter: &MaterialFilter) -> StoreResult<Vec<Material>> {
        let search = filter
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                format!(
                    "%{}%",
                    s.to_lowercase()
                        .replace('\\', "\\\\")
                        .replace('%', "\\%")
                        .replace('_', "\\_")
                )
            });
        self.store.with_conn(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {COLUMNS} FROM materials
                 WHERE (?1 IS NULL OR lang = ?1) AND (?2 IS NULL OR grade = ?2)
                   AND (?3 IS NULL OR lower(title) LIKE ?3 ESCAPE '\\' OR lower(coalesce(author, '')) LIKE ?3 ESCAPE '\\'
                        OR lower(body) LIKE ?3 ESCAPE '\\')
                 ORDER BY lang = 'en', grade IS NULL, grade, level, title"
            ))?;
            let rows = stmt
                .query_map(params![filter.lang, filter.grade, search], from_row)?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poem(slug: &str, body: &str) -> NewMaterial {
        NewMaterial {
            slug: Some(slug.into()),
            lang: "zh".into(),
            title: "静夜思".into(),
            author: Some("李白".into()),
            dynasty: Some("唐".into()),
            grade: Some(1),
            body: body.into(),
            ..Default::default()
        }
    }

    #[test]
    fn builtin_upsert_is_idempotent_and_updates_changed_rows() {
        let s = Store::open_in_memory().unwrap();
        let items = vec![poem("jingyesi", "床前明月光，疑是地上霜。")];
        assert_eq!(s.materials().upsert_builtin(&items).unwrap(), 1);
        assert_eq!(s.materials().upsert_builtin(&items).unwrap(), 0);
        let fixed = vec![poem(
            "jingyesi",
            "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
        )];
        assert_eq!(s.materials().upsert_builtin(&fixed).unwrap(), 1);
        let all = s.materials().list(&MaterialFilter::default()).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].id, builtin_id("jingyesi"));
        assert!(all[0].body.ends_with("思故乡。"));
    }

    #[test]
    fn custom_material_validation() {
        let s = Store::open_in_memory().unwrap();
        let base = NewMaterial {
            lang: "en".into(),
            title: "My rhyme".into(),
            body: "One two, buckle my shoe.".into(),
            ..Default::default()
        };
        s.materials().add_custom(base.clone(), None).unwrap();
        let empty = NewMaterial {
            body: " ，。 \n".into(),
            ..base.clone()
        };
        let err = s.materials().add_custom(empty, None).unwrap_err();
        assert!(err.to_string().contains("empty"));
        assert_eq!(err.code(), "material.body_empty");
        let huge = NewMaterial {
            body: "a".repeat(1_000_000),
            ..base.clone()
        };
        let err = s.materials().add_custom(huge, None).unwrap_err();
        assert!(err.to_string().contains("too long"));
        assert_eq!(err.code(), "material.body_too_long");
        assert_eq!(err.params()["chars"], 1_000_000);
        let bad_lang = NewMaterial {
            lang: "fr".into(),
            ..base
        };
        assert!(s.materials().add_custom(bad_lang, None).is_err());
        assert_eq!(
            s.materials()
                .list(&MaterialFilter::default())
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn filters_by_lang_grade_and_search() {
        let s = Store::open_in_memory().unwrap();
        s.materials()
            .upsert_builtin(&[poem("a", "床前明月光")])
            .unwrap();
        let en = NewMaterial {
            lang: "en".into(),
            title: "Twinkle 100%".into(),
            body: "Twinkle, twinkle".into(),
            ..Default::default()
        };
        s.materials().add_custom(en, None).unwrap();
        let f = |lang: Option<&str>, grade: Option<u8>, search: Option<&str>| {
            s.materials()
                .list(&MaterialFilter {
                    lang: lang.map(Into::into),
                    grade,
                    search: search.map(Into::into),
                })
                .unwrap()
                .len()
        };
        assert_eq!(f(None, None, None), 2);
        assert_eq!(f(Some("en"), None, None), 1);
        assert_eq!(f(None, Some(1), None), 1);
        assert_eq!(f(None, None, Some("李白")), 1);
        assert_eq!(f(None, None, Some("TWINKLE")), 1);
        assert_eq!(f(None, None, Some("100%")), 1);
        assert_eq!(f(None, None, Some("_")), 0);
    }
}
