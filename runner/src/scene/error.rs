//! The scene's error: its own module, so that the parsers of `scene`'s children share it
//! without importing their parent.

/// Why a scene could not be turned into something runnable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// Something the runner does not implement: the scene is skipped, never silently passed.
    #[error("{0}")]
    Skip(String),
    /// The scene itself is wrong (malformed number, missing operand, ...).
    #[error("{0}")]
    Fail(String),
}
