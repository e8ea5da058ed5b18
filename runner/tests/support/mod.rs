//! What the runner's integration tests share.

use std::path::PathBuf;

/// The glsem layer of this build. `cargo build` puts it next to the binary; `cargo test`
/// refreshes only the copy in `deps/`, so the newer of the two is the one that matches the
/// sources. Tests hand it to the runner through `GLSEM_LAYER_LIB`.
pub fn layer_library() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_glsem-run"));
    let dir = exe.parent().unwrap();
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [
        dir.join("libVkLayer_glsem.so"),
        dir.join("deps/libVkLayer_glsem.so"),
    ]
    .into_iter()
    .filter(|p| p.is_file())
    .max_by_key(modified)
    .expect(
        "libVkLayer_glsem.so is built with the workspace (cargo build / cargo test --workspace)",
    )
}
