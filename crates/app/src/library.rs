//! The built-in material library: classical poems from the primary-school
//! curriculum and English rhymes and passages, kept as TOML files in
//! `crates/app/materials/` and upserted into the store on every start
//! (unchanged rows are not rewritten, so this is idempotent and cheap).

use deskmate_store::{NewMaterial, Store};
use serde::Deserialize;

use crate::{AppError, AppResult};

const POEMS_ZH: &str = include_str!("../materials/poems-zh.toml");
const TEXTS_EN: &str = include_str!("../materials/texts-en.toml");

#[derive(Deserialize)]
struct PoemFile {
    poem: Vec<Poem>,
}

#[derive(Deserialize)]
struct Poem {
    slug: String,
    title: String,
    author: String,
    dynasty: String,
    grade: u8,
    body: String,
}

#[derive(Deserialize)]
struct TextFile {
    text: Vec<Text>,
}

#[derive(Deserialize)]
struct Text {
    slug: String,
    title: String,
    author: Option<String>,
    level: u8,
    body: String,
}

/// Every built-in material, parsed from the embedded data files.
pub fn builtin() -> AppResult<Vec<NewMaterial>> {
    let poems: PoemFile =
        toml::from_str(POEMS_ZH).map_err(|e| AppError::Library(format!("poems-zh.toml: {e}")))?;
    let texts: TextFile =
        toml::from_str(TEXTS_EN).map_err(|e| AppError::Library(format!("texts-en.toml: {e}")))?;
    let zh = poems.poem.into_iter().map(|p| NewMaterial {
        slug: Some(format!("zh/{}", p.slug)),
        lang: "zh".into(),
        title: p.title,
        author: Some(p.author),
        dynasty: Some(p.dynasty),
        grade: Some(p.grade),
        level: None,
        body: p.body,
    });
    let en = texts.text.into_iter().map(|t| NewMaterial {
        slug: Some(format!("en/{}", t.slug)),
        lang: "en".into(),
        title: t.title,
        author: t.author,
        dynasty: None,
        grade: None,
        level: Some(t.level),
        body: t.body,
    });
    Ok(zh.chain(en).collect())
}

/// Brings the store's built-in materials up to date with the data files.
pub(crate) fn sync_builtin(store: &Store) -> AppResult<usize> {
    let items = builtin()?;
    let changed = store.materials().upsert_builtin(&items)?;
    if changed > 0 {
        tracing::info!(changed, "built-in material library updated");
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn library_is_large_enough_and_slugs_are_unique() {
        let all = builtin().unwrap();
        let zh = all.iter().filter(|m| m.lang == "zh").count();
        let en = all.iter().filter(|m| m.lang == "en").count();
        assert!(zh >= 60, "only {zh} poems");
        assert!(en >= 20, "only {en} English texts");
        let slugs: HashSet<_> = all.iter().map(|m| m.slug.clone()).collect();
        assert_eq!(slugs.len(), all.len(), "duplicate slugs");
    }

    #[test]
    fn every_grade_has_poems() {
        let all = builtin().unwrap();
        for g in 1..=6u8 {
            assert!(
                all.iter().any(|m| m.lang == "zh" && m.grade == Some(g)),
                "no poem for grade {g}"
            );
        }
    }

    #[test]
    fn poems_are_simplified_with_chinese_punctuation() {
        // Traditional forms that differ from the simplified ones a textbook uses.
        const TRADITIONAL: &str =
            "牀頭鄉學書說話聽見開關門馬鳥魚龍風雲東車長間問時來樓處數陽陰還邊過";
        for m in builtin().unwrap().iter().filter(|m| m.lang == "zh") {
            assert!(
                !m.body.chars().any(|c| TRADITIONAL.contains(c)),
                "{} has a traditional character",
                m.title
            );
            assert!(
                !m.body.chars().any(|c| c.is_ascii_alphanumeric()),
                "{} has ASCII letters or digits",
                m.title
            );
            assert!(
                !m.body.contains(',') && !m.body.contains('.'),
                "{} has half-width punctuation",
                m.title
            );
        }
    }

    #[test]
    fn key_poems_have_textbook_wording() {
        let all = builtin().unwrap();
        let body = |title: &str| {
            all.iter()
                .find(|m| m.title == title)
                .map(|m| m.body.replace('\n', ""))
                .unwrap_or_default()
        };
        assert_eq!(
            body("静夜思"),
            "床前明月光，疑是地上霜。举头望明月，低头思故乡。"
        );
        assert_eq!(
            body("登鹳雀楼"),
            "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"
        );
        assert_eq!(
            body("春晓"),
            "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。"
        );
        assert_eq!(
            body("咏柳"),
            "碧玉妆成一树高，万条垂下绿丝绦。不知细叶谁裁出，二月春风似剪刀。"
        );
        // The textbook excerpt goes on past 雨雪霏霏 (issue 13).
        assert_eq!(
            body("采薇（节选）"),
            "昔我往矣，杨柳依依。今我来思，雨雪霏霏。行道迟迟，载渴载饥。我心伤悲，莫知我哀。"
        );
    }

    #[test]
    fn sync_is_idempotent() {
        let store = Store::open_in_memory().unwrap();
        let first = sync_builtin(&store).unwrap();
        assert!(first >= 80);
        assert_eq!(sync_builtin(&store).unwrap(), 0);
    }
}
