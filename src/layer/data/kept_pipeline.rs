//! An owned copy of an application's `VkGraphicsPipelineCreateInfo` (made by
//! `objects/kept_create_info.rs`), for the pipelines the
//! layer makes again after creation, when state the create info left dynamic is known (a
//! vertex shader rewritten for the formats a `vkCmdSetVertexInputEXT` names:
//! `pipelines/vertex_input_variants.rs`).
//!
//! Every struct and array the create info points at is copied into storage of the copy's
//! own; the stages' code is the layer's copy of it (the application may destroy its
//! modules once the pipeline exists), given to the driver as modules made for each use.
//! The pipeline layout and render pass stay the application's handles: a copy is used only
//! while they live. A chain holding a struct the layer does not know cannot be copied
//! faithfully: the copy fails, naming it.

use ash::vk;
use std::ffi::{c_char, c_void, CStr};
use std::mem::size_of;

use crate::layer::data::words::Words;
use crate::layer::support::error::KeepError;
use crate::layer::support::ffi::slice;
use glsem_abi::CHAINED_STRUCTS;

/// The copy: the create info, pointing into `storage`, and each stage's code.
pub struct KeptPipeline {
    info: vk::GraphicsPipelineCreateInfo<'static>,
    /// The stages, whose `module` is set for each use from `codes`.
    stages: Vec<vk::PipelineShaderStageCreateInfo<'static>>,
    codes: Vec<Words>,
    /// Every struct and array the copy points at (u64 storage: aligned for any of them).
    _storage: Vec<Box<[u64]>>,
}

// SAFETY: the raw pointers point into `storage`, which the copy owns and never changes
// after `of`; the handles are plain values.
unsafe impl Send for KeptPipeline {}
// SAFETY: as above; nothing is written through `&KeptPipeline`.
unsafe impl Sync for KeptPipeline {}

/// How a struct of a chain is copied: as its bytes (no pointer but `pNext`), with an
/// array it points at, or left out (an output or a debug name, nothing the pipeline is).
enum Link {
    Plain(usize),
    RenderingFormats,
    ColorWriteEnables,
    Drop,
}

/// The structs the layer copies as their bytes: no pointer but `pNext`.
const PLAIN: [(vk::StructureType, usize); 14] = {
    use vk::StructureType as T;
    [
        (
            T::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
            size_of::<vk::GraphicsPipelineLibraryCreateInfoEXT<'_>>(),
        ),
        (
            T::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR,
            size_of::<vk::PipelineCreateFlags2CreateInfoKHR<'_>>(),
        ),
        (
            T::PIPELINE_ROBUSTNESS_CREATE_INFO_EXT,
            size_of::<vk::PipelineRobustnessCreateInfoEXT<'_>>(),
        ),
        (
            T::PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_KHR,
            size_of::<vk::PipelineRasterizationLineStateCreateInfoKHR<'_>>(),
        ),
        (
            T::PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT,
            size_of::<vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT<'_>>(),
        ),
        (
            T::PIPELINE_RASTERIZATION_DEPTH_CLIP_STATE_CREATE_INFO_EXT,
            size_of::<vk::PipelineRasterizationDepthClipStateCreateInfoEXT<'_>>(),
        ),
        (
            T::PIPELINE_RASTERIZATION_CONSERVATIVE_STATE_CREATE_INFO_EXT,
            size_of::<vk::PipelineRasterizationConservativeStateCreateInfoEXT<'_>>(),
        ),
        (
            T::PIPELINE_RASTERIZATION_STATE_STREAM_CREATE_INFO_EXT,
            size_of::<vk::PipelineRasterizationStateStreamCreateInfoEXT<'_>>(),
        ),
        (
            T::DEPTH_BIAS_REPRESENTATION_INFO_EXT,
            size_of::<vk::DepthBiasRepresentationInfoEXT<'_>>(),
        ),
        (
            T::PIPELINE_VIEWPORT_DEPTH_CLIP_CONTROL_CREATE_INFO_EXT,
            size_of::<vk::PipelineViewportDepthClipControlCreateInfoEXT<'_>>(),
        ),
        (
            T::PIPELINE_TESSELLATION_DOMAIN_ORIGIN_STATE_CREATE_INFO,
            size_of::<vk::PipelineTessellationDomainOriginStateCreateInfo<'_>>(),
        ),
        (
            T::PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
            size_of::<vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>>(),
        ),
        (
            T::PIPELINE_COLOR_BLEND_ADVANCED_STATE_CREATE_INFO_EXT,
            size_of::<vk::PipelineColorBlendAdvancedStateCreateInfoEXT<'_>>(),
        ),
        (
            T::PIPELINE_FRAGMENT_SHADING_RATE_STATE_CREATE_INFO_KHR,
            size_of::<vk::PipelineFragmentShadingRateStateCreateInfoKHR<'_>>(),
        ),
    ]
};

fn link_of(s_type: vk::StructureType) -> Option<Link> {
    use vk::StructureType as T;
    match s_type {
        T::PIPELINE_RENDERING_CREATE_INFO => Some(Link::RenderingFormats),
        T::PIPELINE_COLOR_WRITE_CREATE_INFO_EXT => Some(Link::ColorWriteEnables),
        T::PIPELINE_CREATION_FEEDBACK_CREATE_INFO
        | T::DEBUG_UTILS_OBJECT_NAME_INFO_EXT
        | T::SHADER_MODULE_CREATE_INFO => Some(Link::Drop),
        t => PLAIN
            .iter()
            .chain(&CHAINED_STRUCTS)
            .find(|(plain, _)| *plain == t)
            .map(|&(_, size)| Link::Plain(size)),
    }
}

/// The storage a copy is made in: every struct and array it points at.
#[derive(Default)]
pub struct Storage(Vec<Box<[u64]>>);

impl Storage {
    /// A copy of `bytes` bytes at `src`, in storage that lives as long as `self`.
    ///
    /// # Safety
    /// `src` is readable for `bytes` bytes.
    pub unsafe fn bytes(&mut self, src: *const u8, bytes: usize) -> *mut u8 {
        let mut copy = vec![0u64; bytes.div_ceil(8).max(1)].into_boxed_slice();
        // SAFETY: `src` holds `bytes` bytes (this function's contract); `copy` at least as
        // many.
        unsafe { std::ptr::copy_nonoverlapping(src, copy.as_mut_ptr().cast::<u8>(), bytes) };
        let at = copy.as_mut_ptr().cast::<u8>();
        self.0.push(copy);
        at
    }

    /// A copy of `items`; NULL where there are none.
    pub fn slice<T: Copy>(&mut self, items: &[T]) -> *const T {
        if items.is_empty() {
            return std::ptr::null();
        }
        // SAFETY: `items` is readable for its size.
        unsafe { self.bytes(items.as_ptr().cast(), std::mem::size_of_val(items)) }
            .cast_const()
            .cast()
    }

    /// A copy of the struct at `src`, `T` with its `pNext` chain; NULL for NULL.
    ///
    /// # Safety
    /// `src` is NULL or a valid `T` whose chain is valid; `next` reads its `pNext`.
    pub unsafe fn state<T: Copy>(
        &mut self,
        src: *const T,
        next: impl FnOnce(&mut T) -> &mut *const c_void,
    ) -> Result<*const T, KeepError> {
        // SAFETY: NULL or a valid `T` (this function's contract).
        let Some(state) = (unsafe { src.as_ref() }) else {
            return Ok(std::ptr::null());
        };
        let mut copy = *state;
        let p_next = next(&mut copy);
        // SAFETY: its valid chain (this function's contract).
        *p_next = unsafe { self.chain(*p_next) }?;
        Ok(self.slice(std::slice::from_ref(&copy)))
    }

    /// A copy of the chain at `p_next`, without the structs [`Link::Drop`] leaves out.
    ///
    /// # Safety
    /// `p_next` is NULL or a valid `pNext` chain.
    pub unsafe fn chain(&mut self, p_next: *const c_void) -> Result<*const c_void, KeepError> {
        let mut links = Vec::new();
        let mut p = p_next.cast::<vk::BaseInStructure<'_>>();
        // SAFETY: every struct of a valid chain (this function's contract) starts with sType
        // and pNext.
        while let Some(s) = unsafe { p.as_ref() } {
            links.push(s);
            p = s.p_next;
        }
        let mut next: *const c_void = std::ptr::null();
        for s in links.into_iter().rev() {
            let src = (s as *const vk::BaseInStructure<'_>).cast::<u8>();
            let link = link_of(s.s_type).ok_or(KeepError::UnknownStruct(s.s_type))?;
            // SAFETY: each arm reads a struct of the size its sType gives, and the arrays
            // its counts give (a valid chain: this function's contract).
            let copy = unsafe {
                match link {
                    Link::Drop => continue,
                    Link::Plain(size) => self.bytes(src, size),
                    Link::RenderingFormats => {
                        let mut r = *src.cast::<vk::PipelineRenderingCreateInfo<'_>>();
                        r.p_color_attachment_formats = self.slice(slice(
                            r.p_color_attachment_formats,
                            r.color_attachment_count,
                        ));
                        self.bytes(
                            (&r as *const vk::PipelineRenderingCreateInfo<'_>).cast(),
                            size_of_val(&r),
                        )
                    }
                    Link::ColorWriteEnables => {
                        let mut c = *src.cast::<vk::PipelineColorWriteCreateInfoEXT<'_>>();
                        c.p_color_write_enables =
                            self.slice(slice(c.p_color_write_enables, c.attachment_count));
                        self.bytes(
                            (&c as *const vk::PipelineColorWriteCreateInfoEXT<'_>).cast(),
                            size_of_val(&c),
                        )
                    }
                }
            };
            // SAFETY: every copied struct starts with sType and pNext.
            unsafe { (*copy.cast::<vk::BaseOutStructure<'_>>()).p_next = next as *mut _ };
            next = copy.cast_const().cast();
        }
        Ok(next)
    }

    /// A copy of the nul-terminated `name`.
    ///
    /// # Safety
    /// `name` is NULL or nul-terminated.
    pub unsafe fn name(&mut self, name: *const c_char) -> *const c_char {
        if name.is_null() {
            return name;
        }
        // SAFETY: nul-terminated (this function's contract).
        let bytes = unsafe { CStr::from_ptr(name) }.to_bytes_with_nul();
        self.slice(bytes).cast()
    }
}

impl KeptPipeline {
    /// The copy of a create info `info` with `stages`, both pointing into `storage` only
    /// (`objects/kept_create_info.rs` makes them), and each stage's code.
    ///
    /// # Safety
    /// Every pointer in `info` and `stages` (and their chains) is NULL or points into
    /// `storage`.
    pub unsafe fn new(
        info: vk::GraphicsPipelineCreateInfo<'_>,
        stages: Vec<vk::PipelineShaderStageCreateInfo<'_>>,
        codes: Vec<Words>,
        storage: Storage,
    ) -> KeptPipeline {
        KeptPipeline {
            // SAFETY: the pointers point into `storage`, which the copy keeps (this
            // function's contract).
            info: unsafe { erase(info) },
            stages: stages
                .into_iter()
                // SAFETY: as above.
                .map(|s| unsafe { erase(s) })
                .collect(),
            codes,
            _storage: storage.0,
        }
    }

    /// The pipeline layout and render pass the copy names (the application's).
    pub fn handles(&self) -> (vk::PipelineLayout, vk::RenderPass) {
        (self.info.layout, self.info.render_pass)
    }

    /// The code of each stage, in order.
    pub fn codes(&self) -> &[Words] {
        &self.codes
    }

    /// The create info with `modules` (one per stage, from [`KeptPipeline::codes`]) and
    /// `vertex_input`; `stages` receives the stage array it points at.
    pub fn info<'a>(
        &'a self,
        modules: &[vk::ShaderModule],
        vertex_input: &'a vk::PipelineVertexInputStateCreateInfo<'a>,
        stages: &'a mut Vec<vk::PipelineShaderStageCreateInfo<'a>>,
    ) -> vk::GraphicsPipelineCreateInfo<'a> {
        *stages = self
            .stages
            .iter()
            .zip(modules)
            .map(|(s, &module)| vk::PipelineShaderStageCreateInfo { module, ..*s })
            .collect();
        vk::GraphicsPipelineCreateInfo {
            stage_count: stages.len() as u32,
            p_stages: stages.as_ptr(),
            p_vertex_input_state: vertex_input,
            ..self.info
        }
    }
}

/// `value` with its lifetime erased.
///
/// # Safety
/// Its pointers point into a [`KeptPipeline`]'s storage, and it is used only through that
/// copy.
unsafe fn erase<'a, T, U>(value: T) -> U
where
    T: Erase<'a, Static = U> + 'a,
{
    // SAFETY: `T` and `U` are one struct type with different lifetimes (`Erase`).
    unsafe { std::mem::transmute_copy(&std::mem::ManuallyDrop::new(value)) }
}

/// A Vulkan struct type and the same type with `'static` pointers.
trait Erase<'a> {
    type Static;
}

impl<'a> Erase<'a> for vk::GraphicsPipelineCreateInfo<'a> {
    type Static = vk::GraphicsPipelineCreateInfo<'static>;
}

impl<'a> Erase<'a> for vk::PipelineShaderStageCreateInfo<'a> {
    type Static = vk::PipelineShaderStageCreateInfo<'static>;
}
