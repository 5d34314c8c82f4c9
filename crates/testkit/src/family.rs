//! The family most tests start from: a child (小明, grade 2) on a device
//! whose built-in library is loaded, and 静夜思 to recite.

use deskmate_store::{Material, MaterialFilter, NewMaterial, NewProfile, Profile, Store};

/// The text of 静夜思 as the built-in library has it (lines joined).
pub const JING_YE_SI: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

/// Adds 静夜思 to a store without the built-in library (a crate's own
/// tests below the app), as the library has it: one couplet per line.
pub fn add_jing_ye_si(store: &Store) -> Material {
    store
        .materials()
        .add_custom(
            NewMaterial {
                slug: Some("jing-ye-si".into()),
                lang: "zh".into(),
                title: "静夜思".into(),
                author: Some("李白".into()),
                dynasty: Some("唐".into()),
                grade: Some(1),
                level: None,
                body: "床前明月光，疑是地上霜。\n举头望明月，低头思故乡。".into(),
            },
            None,
        )
        .unwrap()
}

/// Adds the child 小明 and finds 静夜思 (the library must be loaded, as
/// `Deskmate::open` does).
pub fn child_with_jing_ye_si(store: &Store) -> (Profile, Material) {
    let child = store
        .profiles()
        .add(NewProfile {
            name: "小明".into(),
            grade: Some(2),
            ..Default::default()
        })
        .unwrap();
    let poem = store
        .materials()
        .list(&MaterialFilter {
            search: Some("静夜思".into()),
            ..Default::default()
        })
        .unwrap()
        .into_iter()
        .find(|m| m.title == "静夜思")
        .expect("the built-in library has 静夜思");
    assert_eq!(
        poem.body.replace('\n', ""),
        JING_YE_SI,
        "静夜思's text changed"
    );
    (child, poem)
}

/// A parent (妈妈, PIN 1357) and a child (小明, grade 2): the family a
/// parent's tools are tried on.
pub fn parent_and_child(store: &Store) -> (Profile, Profile) {
    let mut made = store
        .profiles()
        .add_all(vec![
            NewProfile {
                kind: Some(deskmate_store::ProfileKind::Parent),
                name: "妈妈".into(),
                pin: Some("1357".into()),
                ..Default::default()
            },
            NewProfile {
                kind: Some(deskmate_store::ProfileKind::Child),
                name: "小明".into(),
                grade: Some(2),
                ..Default::default()
            },
        ])
        .unwrap();
    let child = made.pop().unwrap();
    let parent = made.pop().unwrap();
    (parent, child)
}
