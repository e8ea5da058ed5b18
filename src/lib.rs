//! glsem: a Vulkan layer that gives Vulkan pipelines OpenGL semantics.
#![allow(non_snake_case)]

pub mod spirv;
