//! Printing results: JSON for scripts (`--json`), short lines for people.

use serde::Serialize;

pub fn json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
