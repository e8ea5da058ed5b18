//! An owned copy of an application's `VkGraphicsPipelineCreateInfo`, for the pipelines the
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
use std::sync::Arc;

use crate::layer::objects::create_info::PipelineView;
use crate::layer::support::error::KeepError;
use crate::layer::support::ffi::slice;
use glsem_abi::{
    PipelinePrimitiveModeCreateInfo, STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO,
};

/// The copy: the create info, pointing into `storage`, and each stage's code.
pub struct KeptPipeline {
    info: vk::GraphicsPipelineCreateInfo<'static>,
    /// The stages, whose `module` is set for each use from `codes`.
    stages: Vec<vk::PipelineShaderStageCreateInfo<'static>>,
    codes: Vec<Arc<[u32]>>,
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

fn link_of(s_type: vk::StructureType) -> Option<Link> {
    use vk::StructureType as T;
    let plain = |size| Some(Link::Plain(size));
    match s_type {
        T::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT => {
            plain(size_of::<vk::GraphicsPipelineLibraryCreateInfoEXT<'_>>())
        }
        T::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR => {
            plain(size_of::<vk::PipelineCreateFlags2CreateInfoKHR<'_>>())
        }
        T::PIPELINE_ROBUSTNESS_CREATE_INFO_EXT => {
            plain(size_of::<vk::PipelineRobustnessCreateInfoEXT<'_>>())
        }
        T::PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_KHR => {
            plain(size_of::<vk::PipelineRasterizationLineStateCreateInfoKHR<'_>>())
        }
        T::PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT => plain(size_of::<
            vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT<'_>,
        >()),
        T::PIPELINE_RASTERIZATION_DEPTH_CLIP_STATE_CREATE_INFO_EXT => plain(size_of::<
            vk::PipelineRasterizationDepthClipStateCreateInfoEXT<'_>,
        >()),
        T::PIPELINE_RASTERIZATION_CONSERVATIVE_STATE_CREATE_INFO_EXT => plain(size_of::<
            vk::PipelineRasterizationConservativeStateCreateInfoEXT<'_>,
        >()),
        T::PIPELINE_RASTERIZATION_STATE_STREAM_CREATE_INFO_EXT => plain(size_of::<
            vk::PipelineRasterizationStateStreamCreateInfoEXT<'_>,
        >()),
        T::DEPTH_BIAS_REPRESENTATION_INFO_EXT => {
            plain(size_of::<vk::DepthBiasRepresentationInfoEXT<'_>>())
        }
        T::PIPELINE_VIEWPORT_DEPTH_CLIP_CONTROL_CREATE_INFO_EXT => plain(size_of::<
            vk::PipelineViewportDepthClipControlCreateInfoEXT<'_>,
        >()),
        T::PIPELINE_TESSELLATION_DOMAIN_ORIGIN_STATE_CREATE_INFO => plain(size_of::<
            vk::PipelineTessellationDomainOriginStateCreateInfo<'_>,
        >()),
        T::PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO => plain(size_of::<
            vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>,
        >()),
        T::PIPELINE_COLOR_BLEND_ADVANCED_STATE_CREATE_INFO_EXT => plain(size_of::<
            vk::PipelineColorBlendAdvancedStateCreateInfoEXT<'_>,
        >()),
        T::PIPELINE_FRAGMENT_SHADING_RATE_STATE_CREATE_INFO_KHR => plain(size_of::<
            vk::PipelineFragmentShadingRateStateCreateInfoKHR<'_>,
        >()),
        T::PIPELINE_RENDERING_CREATE_INFO => Some(Link::RenderingFormats),
        T::PIPELINE_COLOR_WRITE_CREATE_INFO_EXT => Some(Link::ColorWriteEnables),
        T::PIPELINE_CREATION_FEEDBACK_CREATE_INFO
        | T::DEBUG_UTILS_OBJECT_NAME_INFO_EXT
        | T::SHADER_MODULE_CREATE_INFO => Some(Link::Drop),
        t if t == STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO => {
            plain(size_of::<PipelinePrimitiveModeCreateInfo>())
        }
        _ => None,
    }
}

/// The storage being filled.
#[derive(Default)]
struct Storage(Vec<Box<[u64]>>);

impl Storage {
    /// A copy of `bytes` bytes at `src`, in storage that lives as long as `self`.
    ///
    /// # Safety
    /// `src` is readable for `bytes` bytes.
    unsafe fn bytes(&mut self, src: *const u8, bytes: usize) -> *mut u8 {
        let mut copy = vec![0u64; bytes.div_ceil(8).max(1)].into_boxed_slice();
        // SAFETY: `src` holds `bytes` bytes (this function's contract); `copy` at least as
        // many.
        unsafe { std::ptr::copy_nonoverlapping(src, copy.as_mut_ptr().cast::<u8>(), bytes) };
        let at = copy.as_mut_ptr().cast::<u8>();
        self.0.push(copy);
        at
    }

    /// A copy of `items`; NULL where there are none.
    fn slice<T: Copy>(&mut self, items: &[T]) -> *const T {
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
    unsafe fn state<T: Copy>(
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
    unsafe fn chain(&mut self, p_next: *const c_void) -> Result<*const c_void, KeepError> {
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
    unsafe fn name(&mut self, name: *const c_char) -> *const c_char {
        if name.is_null() {
            return name;
        }
        // SAFETY: nul-terminated (this function's contract).
        let bytes = unsafe { CStr::from_ptr(name) }.to_bytes_with_nul();
        self.slice(bytes).cast()
    }
}

impl KeptPipeline {
    /// Copies `ci`, a whole pipeline's or a library part's create info (not a link), with
    /// `code`, the code of each of its stages.
    pub(crate) fn of(
        ci: &PipelineView<'_>,
        code: impl Fn(usize) -> Option<Arc<[u32]>>,
    ) -> Result<KeptPipeline, KeepError> {
        if ci.libraries.is_some_and(|l| !l.is_empty()) {
            return Err(KeepError::Linked);
        }
        let mut storage = Storage::default();
        let info = *ci.info;
        let mut codes = Vec::with_capacity(ci.stages.len());
        let mut stages = Vec::with_capacity(ci.stages.len());
        for (i, s) in ci.stages.iter().enumerate() {
            codes.push(code(i).ok_or(KeepError::NoCode(i))?);
            let mut stage = *s.info;
            stage.module = vk::ShaderModule::null();
            // SAFETY: a valid stage of a valid create info (the view's contract).
            unsafe {
                stage.p_next = storage.chain(stage.p_next)?;
                stage.p_name = storage.name(stage.p_name);
                if let Some(spec) = stage.p_specialization_info.as_ref() {
                    let mut spec = *spec;
                    spec.p_map_entries =
                        storage.slice(slice(spec.p_map_entries, spec.map_entry_count));
                    spec.p_data = storage
                        .slice(slice(spec.p_data.cast::<u8>(), spec.data_size as u32))
                        .cast();
                    stage.p_specialization_info = storage.slice(std::slice::from_ref(&spec));
                }
            }
            // SAFETY: the stage's pointers point into `storage`, which the copy keeps.
            stages.push(unsafe { erase(stage) });
        }
        type Part = vk::GraphicsPipelineLibraryFlagsEXT;
        let holds = |part: Part| ci.library_parts.is_none_or(|p| p.intersects(part));
        // A part without the rasterization state cannot say: it keeps what it holds.
        let rasterizes = ci.rasterization.as_ref().is_none_or(|r| {
            r.rasterizer_discard_enable == vk::FALSE
                || ci.is_dynamic(vk::DynamicState::RASTERIZER_DISCARD_ENABLE)
        });
        let pre_rasterization = holds(Part::PRE_RASTERIZATION_SHADERS);
        let fragment = holds(Part::FRAGMENT_SHADER) && rasterizes;
        let output = holds(Part::FRAGMENT_OUTPUT_INTERFACE) && rasterizes;
        let mut kept = info;
        // SAFETY: the pointers of a valid create info (the view's contract), read where
        // Vulkan's valid usage makes them valid: the states of the parts it holds, those a
        // rasterizing pipeline needs only where it rasterizes.
        unsafe {
            kept.p_next = storage.chain(info.p_next)?;
            kept.stage_count = 0;
            kept.p_stages = std::ptr::null();
            // The vertex input is what each use gives (`info`).
            kept.p_vertex_input_state = std::ptr::null();
            kept.p_input_assembly_state = match ci.input_assembly.is_some() {
                true => storage.state(info.p_input_assembly_state, |s| &mut s.p_next)?,
                false => std::ptr::null(),
            };
            kept.p_tessellation_state = match ci.tessellation.is_some() && pre_rasterization {
                true => storage.state(info.p_tessellation_state, |s| &mut s.p_next)?,
                false => std::ptr::null(),
            };
            kept.p_rasterization_state = match pre_rasterization {
                true => storage.state(info.p_rasterization_state, |s| &mut s.p_next)?,
                false => std::ptr::null(),
            };
            kept.p_dynamic_state = match ci.dynamic_state {
                Some(d) => {
                    let mut d = *d;
                    d.p_dynamic_states = storage.slice(ci.dynamic);
                    storage.slice(std::slice::from_ref(&d))
                }
                None => std::ptr::null(),
            };
            kept.p_viewport_state = match ci
                .viewport
                .as_ref()
                .filter(|_| pre_rasterization && rasterizes)
            {
                Some(v) => {
                    let mut v = *v.state;
                    v.p_next = storage.chain(v.p_next)?;
                    v.p_viewports = storage.slice(slice(v.p_viewports, v.viewport_count));
                    v.p_scissors = storage.slice(slice(v.p_scissors, v.scissor_count));
                    storage.slice(std::slice::from_ref(&v))
                }
                None => std::ptr::null(),
            };
            kept.p_multisample_state = match ci.multisample.filter(|_| fragment || output) {
                Some(m) => {
                    let mut m = *m;
                    m.p_next = storage.chain(m.p_next)?;
                    let words = (m.rasterization_samples.as_raw().max(1)).div_ceil(32);
                    m.p_sample_mask = storage.slice(slice(m.p_sample_mask, words));
                    storage.slice(std::slice::from_ref(&m))
                }
                None => std::ptr::null(),
            };
            kept.p_depth_stencil_state = match fragment {
                true => storage.state(info.p_depth_stencil_state, |s| &mut s.p_next)?,
                false => std::ptr::null(),
            };
            kept.p_color_blend_state = match info.p_color_blend_state.as_ref().filter(|_| output) {
                Some(b) => {
                    let mut b = *b;
                    b.p_next = storage.chain(b.p_next)?;
                    b.p_attachments = storage.slice(slice(b.p_attachments, b.attachment_count));
                    storage.slice(std::slice::from_ref(&b))
                }
                None => std::ptr::null(),
            };
        }
        // Made alone: no derivative of a pipeline the copy does not know.
        kept.flags &= !vk::PipelineCreateFlags::DERIVATIVE;
        kept.base_pipeline_handle = vk::Pipeline::null();
        kept.base_pipeline_index = -1;
        Ok(KeptPipeline {
            // SAFETY: the create info's pointers point into `storage`, which the copy keeps.
            info: unsafe { erase(kept) },
            stages,
            codes,
            _storage: storage.0,
        })
    }

    /// The pipeline layout and render pass the copy names (the application's).
    pub fn handles(&self) -> (vk::PipelineLayout, vk::RenderPass) {
        (self.info.layout, self.info.render_pass)
    }

    /// The code of each stage, in order.
    pub fn codes(&self) -> &[Arc<[u32]>] {
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
