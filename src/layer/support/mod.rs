pub(crate) mod error;
pub(crate) mod ffi;
pub mod loader_abi;
pub mod log;
pub mod settings;
pub(crate) mod shader_code;
