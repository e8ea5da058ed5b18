//! `--pipelines`: how the runner hands Vulkan a program's shaders.

use ash::vk;

/// How the runner builds a program's graphics pipelines (`--pipelines`): the three ways an
/// application hands Vulkan its shaders, each of which the layer rewrites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Path {
    /// One `vkCreateGraphicsPipelines` with every state.
    #[default]
    Whole,
    /// Four graphics pipeline libraries (vertex input, pre-rasterization shaders, fragment
    /// shader, fragment output) linked into the pipeline (VK_EXT_graphics_pipeline_library).
    Libraries {
        link_time_optimization: bool,
        /// The pipeline layout has `INDEPENDENT_SETS` and so do the libraries.
        independent_sets: bool,
    },
    /// Every program as `VK_EXT_shader_object` shaders, all state dynamic.
    ShaderObjects,
    /// Whole pipelines listing every dynamic state the device has
    /// (`VK_EXT_extended_dynamic_state` 1–3, `VK_EXT_vertex_input_dynamic_state`) and
    /// setting it after each bind (`dynamic_state.rs`): the state shader objects need,
    /// through pipelines.
    DynamicState,
}

impl Path {
    /// `--pipelines NAME` (`whole`, `libraries`, `libraries-lto`, `shader-objects`,
    /// `dynamic-state`), with
    /// `--independent-sets` for the library paths.
    pub fn parse(name: &str, independent_sets: bool) -> Result<Path, String> {
        let path = match name {
            "whole" => Path::Whole,
            "libraries" | "libraries-lto" => Path::Libraries {
                link_time_optimization: name == "libraries-lto",
                independent_sets,
            },
            "shader-objects" => Path::ShaderObjects,
            "dynamic-state" => Path::DynamicState,
            _ => {
                return Err(format!(
                    "--pipelines {name}: expected whole, libraries, libraries-lto, \
                     shader-objects or dynamic-state"
                ))
            }
        };
        if independent_sets && !matches!(path, Path::Libraries { .. }) {
            return Err("--independent-sets applies to --pipelines libraries[-lto]".into());
        }
        Ok(path)
    }

    /// The pipeline layout's flags this path needs.
    pub fn layout_flags(self) -> vk::PipelineLayoutCreateFlags {
        match self {
            Path::Libraries {
                independent_sets: true,
                ..
            } => vk::PipelineLayoutCreateFlags::INDEPENDENT_SETS_EXT,
            _ => vk::PipelineLayoutCreateFlags::empty(),
        }
    }
}
