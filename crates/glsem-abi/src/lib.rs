//! The layer's ABI in one place: its name, its device extensions, their commands and the
//! commands' function-pointer types. The layer (`layer::dispatch` hands these commands out),
//! the runner (`runner/src/layer.rs`) and the agreement test (`layer::dispatch`'s tests:
//! `layer-manifest/VkLayer_glsem.json` and `include/vk_glsem.h` say the same) all read it.
//! Only `ash` and `std` here: a crate of its own, so that the runner shares it without
//! linking the layer (whose exported `vkGetInstanceProcAddr` deadlocked `-lvulkan` programs).

// Spelled as Vulkan's `PFN_vk*` types are (and as `ash::vk` spells them).
#![allow(non_camel_case_types)]

use ash::vk;

/// The layer's name in its manifest and in `vkEnumerateDeviceExtensionProperties`.
pub const LAYER_NAME: &str = "VK_LAYER_GLSEM_gl_semantics";

/// A device extension the layer implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extension {
    pub name: &'static str,
    pub spec_version: u32,
    /// Its commands, in the manifest's `entrypoints` order.
    pub commands: &'static [&'static str],
}

pub const CMD_SET_TESSELLATION_DEFAULT_LEVELS: &str = "vkCmdSetTessellationDefaultLevelsGLSEM";
pub const CMD_SET_POINT_SIZE: &str = "vkCmdSetPointSizeGLSEM";
pub const CMD_SET_PROGRAM_POINT_SIZE_ENABLE: &str = "vkCmdSetProgramPointSizeEnableGLSEM";
pub const CMD_SET_CLIP_DISTANCE_ENABLE: &str = "vkCmdSetClipDistanceEnableGLSEM";
pub const CMD_SET_LINE_STIPPLE: &str = "vkCmdSetLineStippleGLSEM";
pub const CMD_SET_LINE_STIPPLE_ENABLE: &str = "vkCmdSetLineStippleEnableGLSEM";
pub const CMD_SET_POINT_SPRITE_COORD_ORIGIN: &str = "vkCmdSetPointSpriteCoordOriginGLSEM";
pub const CMD_SET_VERTEX_ATTRIB: &str = "vkCmdSetVertexAttribGLSEM";
pub const CMD_SET_PRIMITIVE_MODE: &str = "vkCmdSetPrimitiveModeGLSEM";

/// GL's `glPatchParameterfv` default levels.
pub const TESSELLATION_DEFAULT_LEVELS: Extension = Extension {
    name: "VK_GLSEM_tessellation_default_levels",
    spec_version: 1,
    commands: &[CMD_SET_TESSELLATION_DEFAULT_LEVELS],
};

/// GL's point, clip and rasterization state and conventions.
pub const GL_STATE: Extension = Extension {
    name: "VK_GLSEM_gl_state",
    spec_version: 1,
    commands: &[
        CMD_SET_POINT_SIZE,
        CMD_SET_PROGRAM_POINT_SIZE_ENABLE,
        CMD_SET_CLIP_DISTANCE_ENABLE,
        CMD_SET_LINE_STIPPLE,
        CMD_SET_LINE_STIPPLE_ENABLE,
        CMD_SET_POINT_SPRITE_COORD_ORIGIN,
        CMD_SET_VERTEX_ATTRIB,
        CMD_SET_PRIMITIVE_MODE,
    ],
};

/// Every extension, in the manifest's order.
pub const EXTENSIONS: [Extension; 2] = [TESSELLATION_DEFAULT_LEVELS, GL_STATE];

/// `outer`: the 4 outer levels; `inner`: the 2 inner levels (GL's array order).
pub type PFN_vkCmdSetTessellationDefaultLevelsGLSEM = unsafe extern "system" fn(
    command_buffer: vk::CommandBuffer,
    outer: *const f32,
    inner: *const f32,
);
pub type PFN_vkCmdSetPointSizeGLSEM =
    unsafe extern "system" fn(command_buffer: vk::CommandBuffer, size: f32);
pub type PFN_vkCmdSetProgramPointSizeEnableGLSEM =
    unsafe extern "system" fn(command_buffer: vk::CommandBuffer, enable: vk::Bool32);
/// Bit i of `mask` enables clip plane i.
pub type PFN_vkCmdSetClipDistanceEnableGLSEM =
    unsafe extern "system" fn(command_buffer: vk::CommandBuffer, mask: u32);
pub type PFN_vkCmdSetLineStippleGLSEM =
    unsafe extern "system" fn(command_buffer: vk::CommandBuffer, factor: u32, pattern: u16);
pub type PFN_vkCmdSetLineStippleEnableGLSEM =
    unsafe extern "system" fn(command_buffer: vk::CommandBuffer, enable: vk::Bool32);
pub type PFN_vkCmdSetPointSpriteCoordOriginGLSEM =
    unsafe extern "system" fn(command_buffer: vk::CommandBuffer, lower_left: vk::Bool32);
/// `value`: four 32-bit components in `format` (`R32G32B32A32_SFLOAT`, `_SINT` or `_UINT`).
pub type PFN_vkCmdSetVertexAttribGLSEM = unsafe extern "system" fn(
    command_buffer: vk::CommandBuffer,
    location: u32,
    format: vk::Format,
    value: *const std::ffi::c_void,
);

/// `mode`: a [`PrimitiveMode`] value, for the shader objects drawn next.
pub type PFN_vkCmdSetPrimitiveModeGLSEM =
    unsafe extern "system" fn(command_buffer: vk::CommandBuffer, mode: u32);

/// GL's primitive modes that have no Vulkan topology, by their GL enum values
/// (`VkPrimitiveModeGLSEM`); [`PrimitiveMode::NONE`] draws the Vulkan topology as it is.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PrimitiveMode(pub u32);

impl PrimitiveMode {
    pub const NONE: PrimitiveMode = PrimitiveMode(0);
    /// `GL_LINE_LOOP`.
    pub const LINE_LOOP: PrimitiveMode = PrimitiveMode(0x0002);
    /// `GL_QUADS`.
    pub const QUADS: PrimitiveMode = PrimitiveMode(0x0007);
    /// `GL_QUAD_STRIP`.
    pub const QUAD_STRIP: PrimitiveMode = PrimitiveMode(0x0008);
    /// `GL_POLYGON`.
    pub const POLYGON: PrimitiveMode = PrimitiveMode(0x0009);
}

/// `VK_STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO_GLSEM`: 'G' 'S' 'M' 1, far above
/// every value Khronos allocates (1000000000 + 1000 × extension number).
pub const STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO: vk::StructureType =
    vk::StructureType::from_raw(0x4753_4D01);

/// `VkPipelinePrimitiveModeCreateInfoGLSEM`, chained to
/// `VkPipelineInputAssemblyStateCreateInfo`: GL's primitive mode for the pipeline (whole, or
/// the vertex-input library). The layer takes it out of the chain before the driver sees it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PipelinePrimitiveModeCreateInfo {
    pub s_type: vk::StructureType,
    pub p_next: *const std::ffi::c_void,
    pub primitive_mode: PrimitiveMode,
}

/// A struct the layer defines for `pNext` chains: its `sType`. The layer reads it from the
/// application's chains and takes it out before the driver sees them.
///
/// # Safety
/// The type is `#[repr(C)]`, starts with `sType` and `pNext`, and [`ChainedStruct::S_TYPE`]
/// is the `sType` of no other struct.
pub unsafe trait ChainedStruct {
    const S_TYPE: vk::StructureType;
}

// SAFETY: `#[repr(C)]`, `sType` and `pNext` first; the sType is this struct's alone.
unsafe impl ChainedStruct for PipelinePrimitiveModeCreateInfo {
    const S_TYPE: vk::StructureType = STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO;
}

/// Every struct the layer defines for `pNext` chains: its `sType` and size.
pub const CHAINED_STRUCTS: [(vk::StructureType, usize); 1] = [(
    PipelinePrimitiveModeCreateInfo::S_TYPE,
    std::mem::size_of::<PipelinePrimitiveModeCreateInfo>(),
)];

/// Whether `s_type` is a struct the layer defines ([`CHAINED_STRUCTS`]).
pub fn is_chained_struct(s_type: vk::StructureType) -> bool {
    CHAINED_STRUCTS.iter().any(|&(t, _)| t == s_type)
}
