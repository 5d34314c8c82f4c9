//! Vector search in the same SQLite database: the `sqlite-vec` extension,
//! registered once per process as an auto-extension so every connection
//! (the store's, the sync client's, a test's) can read the knowledge base's
//! `vec0` table created by migration 0016.

use std::sync::Once;

static REGISTER: Once = Once::new();

/// Makes `sqlite-vec` load into every SQLite connection opened after this
/// call (idempotent).
pub fn register() {
    REGISTER.call_once(|| {
        // SAFETY: `sqlite3_vec_init` is the extension's entry point with the
        // signature SQLite's auto-extension mechanism calls; registering it
        // before connections are opened is what sqlite-vec documents.
        #[allow(unsafe_code, clippy::missing_transmute_annotations)]
        unsafe {
            rusqlite::ffi::sqlite3_auto_extension(Some(std::mem::transmute(
                sqlite_vec::sqlite3_vec_init as *const (),
            )));
        }
    });
}
