fn main() {
    // The window embeds the built UI (`ui/dist`) at compile time: a new UI
    // build must rebuild the shell, even when no Rust file changed.
    println!("cargo:rerun-if-changed=../ui/dist");
    let attrs = tauri_build::Attributes::new();
    if let Err(e) = tauri_build::try_build(attrs) {
        println!("cargo:warning=tauri-build failed: {e:#}");
        std::process::exit(1);
    }
}
