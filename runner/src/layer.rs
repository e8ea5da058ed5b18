//! Enabling the glsem layer "from this build": a temporary manifest that points the loader
//! at the `libVkLayer_glsem.so` next to this executable (or `GLSEM_LAYER_LIB`).

use std::path::{Path, PathBuf};

/// The layer's names and command types, shared with the layer (one source: the `glsem-abi`
/// crate; the runner must not link the layer itself).
pub use glsem_abi as abi;

pub const GLSEM_LAYER: &str = abi::LAYER_NAME;
pub const VALIDATION_LAYER: &str = "VK_LAYER_KHRONOS_validation";
pub const LEVELS_EXTENSION: &str = abi::TESSELLATION_DEFAULT_LEVELS.name;
pub const LEVELS_COMMAND: &str = abi::CMD_SET_TESSELLATION_DEFAULT_LEVELS;
/// GL's point size, program point size and clip-distance enables, GL's provoking vertex
/// and clip-space depth.
pub const GL_STATE_EXTENSION: &str = abi::GL_STATE.name;
pub const POINT_SIZE_COMMAND: &str = abi::CMD_SET_POINT_SIZE;
pub const PROGRAM_POINT_SIZE_COMMAND: &str = abi::CMD_SET_PROGRAM_POINT_SIZE_ENABLE;
pub const CLIP_DISTANCE_COMMAND: &str = abi::CMD_SET_CLIP_DISTANCE_ENABLE;
pub const LINE_STIPPLE_COMMAND: &str = abi::CMD_SET_LINE_STIPPLE;
pub const LINE_STIPPLE_ENABLE_COMMAND: &str = abi::CMD_SET_LINE_STIPPLE_ENABLE;
pub const POINT_SPRITE_ORIGIN_COMMAND: &str = abi::CMD_SET_POINT_SPRITE_COORD_ORIGIN;
pub const VERTEX_ATTRIB_COMMAND: &str = abi::CMD_SET_VERTEX_ATTRIB;
pub const PRIMITIVE_MODE_COMMAND: &str = abi::CMD_SET_PRIMITIVE_MODE;
/// The layer's `window_origin` setting, which the runner sets to match its viewport.
pub const WINDOW_ORIGIN_ENV: &str = "VK_GLSEM_WINDOW_ORIGIN";
const LIBRARY: &str = "libVkLayer_glsem.so";

/// Why the layer could not be made available to the loader.
#[derive(Debug, thiserror::Error)]
pub enum LayerError {
    #[error("GLSEM_LAYER_LIB={} does not exist", .0.display())]
    NoSuchLibrary(PathBuf),
    #[error("cannot locate glsem-run: {0}")]
    NoExecutable(std::io::Error),
    #[error("the glsem layer {} was not found (build it with `cargo build`, set GLSEM_LAYER_LIB, or pass --no-layer)", .0.display())]
    NotBuilt(PathBuf),
    /// `what` is the verb: "resolve", "create", "write".
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    LayerPath(#[from] std::env::JoinPathsError),
}

/// The layer library this run uses: `GLSEM_LAYER_LIB`, else the one built next to us.
pub fn find_library() -> Result<PathBuf, LayerError> {
    if let Some(path) = std::env::var_os("GLSEM_LAYER_LIB") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(LayerError::NoSuchLibrary(path))
        };
    }
    let exe = std::env::current_exe().map_err(LayerError::NoExecutable)?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let path = dir.join(LIBRARY);
    if path.is_file() {
        Ok(path)
    } else {
        Err(LayerError::NotBuilt(path))
    }
}

/// The manifest JSON, with the same fields as `layer-manifest/VkLayer_glsem.json`.
pub fn manifest(library: &Path) -> String {
    let json = serde_json::json!({
        "file_format_version": "1.2.0",
        "layer": {
            "name": GLSEM_LAYER,
            "type": "INSTANCE",
            "library_path": library.to_string_lossy(),
            "api_version": "1.3.0",
            "implementation_version": "1",
            "description": "GL semantics for Vulkan pipelines (loaded by glsem-run)",
            "device_extensions": abi::EXTENSIONS.map(|ext| serde_json::json!({
                "name": ext.name,
                "spec_version": ext.spec_version.to_string(),
                "entrypoints": ext.commands,
            })),
        }
    });
    serde_json::to_string_pretty(&json).unwrap_or_default()
}

/// Writes the manifest into `dir` and prepends `dir` to `VK_ADD_LAYER_PATH`. Must run
/// before libvulkan is loaded, while the process is still single-threaded.
pub fn install_manifest(library: &Path, dir: &Path) -> Result<(), LayerError> {
    let io = |what, path: &Path| {
        let path = path.to_path_buf();
        move |source| LayerError::Io { what, path, source }
    };
    let library = library.canonicalize().map_err(io("resolve", library))?;
    std::fs::create_dir_all(dir).map_err(io("create", dir))?;
    let file = dir.join("VkLayer_glsem.json");
    std::fs::write(&file, manifest(&library)).map_err(io("write", &file))?;
    let mut paths = vec![dir.to_path_buf()];
    if let Some(old) = std::env::var_os("VK_ADD_LAYER_PATH") {
        paths.extend(std::env::split_paths(&old));
    }
    let joined = std::env::join_paths(paths)?;
    std::env::set_var("VK_ADD_LAYER_PATH", joined);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_points_at_the_library_and_lists_the_extension() {
        let json: serde_json::Value =
            serde_json::from_str(&manifest(Path::new("/x/libVkLayer_glsem.so"))).unwrap();
        let layer = &json["layer"];
        assert_eq!(layer["name"], GLSEM_LAYER);
        assert_eq!(layer["type"], "INSTANCE");
        assert_eq!(layer["library_path"], "/x/libVkLayer_glsem.so");
        assert_eq!(layer["api_version"], "1.3.0");
        assert_eq!(layer["device_extensions"][0]["name"], LEVELS_EXTENSION);
        assert_eq!(
            layer["device_extensions"][0]["entrypoints"][0],
            LEVELS_COMMAND
        );
        let gl_state = &layer["device_extensions"][1];
        assert_eq!(gl_state["name"], GL_STATE_EXTENSION);
        assert_eq!(gl_state["entrypoints"][0], POINT_SIZE_COMMAND);
        assert_eq!(gl_state["entrypoints"][1], PROGRAM_POINT_SIZE_COMMAND);
        assert_eq!(gl_state["entrypoints"][2], CLIP_DISTANCE_COMMAND);
        assert_eq!(gl_state["entrypoints"][3], LINE_STIPPLE_COMMAND);
        assert_eq!(gl_state["entrypoints"][4], LINE_STIPPLE_ENABLE_COMMAND);
        assert_eq!(gl_state["entrypoints"][5], POINT_SPRITE_ORIGIN_COMMAND);
        assert_eq!(gl_state["entrypoints"][6], VERTEX_ATTRIB_COMMAND);
        assert_eq!(gl_state["entrypoints"][7], PRIMITIVE_MODE_COMMAND);
    }
}
