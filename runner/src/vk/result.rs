//! The runner's Vulkan errors: which call failed, or what is missing.

use ash::vk;

use crate::scene::SceneError;

/// Why the runner's Vulkan side could not do what it was asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VkError {
    /// A Vulkan call returned an error.
    #[error("{call} failed: {result:?}")]
    Call { call: String, result: vk::Result },
    /// The loader, a layer, a device, a format or the window system is missing or lacks
    /// what is needed.
    #[error("{0}")]
    Setup(String),
}

/// A Vulkan failure while playing a scene fails the scene.
impl From<VkError> for SceneError {
    fn from(e: VkError) -> Self {
        SceneError::Fail(e.to_string())
    }
}

impl From<String> for VkError {
    fn from(why: String) -> Self {
        VkError::Setup(why)
    }
}

impl From<&str> for VkError {
    fn from(why: &str) -> Self {
        VkError::Setup(why.to_owned())
    }
}

/// A Vulkan failure, with the call that failed.
pub type VkResult<T> = Result<T, VkError>;

/// The error of the Vulkan call `what`.
pub fn check(what: &str) -> impl FnOnce(vk::Result) -> VkError + '_ {
    move |result| VkError::Call {
        call: what.to_owned(),
        result,
    }
}
