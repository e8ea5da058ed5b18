//! The runner's Vulkan side: an ordinary application using the system loader.

mod dynamic_state;
pub mod features;
pub mod format;
mod gpu;
mod images;
mod instance;
pub mod pipeline;
mod pipeline_path;
mod result;
pub mod target;

pub use gpu::{Buffer, Gpu, Needs};
pub use images::{color_range, whole_image_copy, ImageUse};
pub use instance::{take_messages, Vulkan};
pub use result::{check, VkError, VkResult};
