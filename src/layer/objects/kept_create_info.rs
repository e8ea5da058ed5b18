//! Keeps a copy of an application's graphics pipeline create info
//! ([`KeptPipeline`]), for the pipelines the layer makes again once state the create info
//! left apart is known (`pipelines/vertex_input_variants.rs`, `pipelines/library_inputs.rs`).

use ash::vk;

use crate::layer::data::kept_pipeline::{KeptPipeline, Storage};
use crate::layer::data::words::Words;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::support::error::KeepError;
use crate::layer::support::ffi::slice;

/// Copies `ci`, a whole pipeline's or a library part's create info (not a link), with
/// `code`, the code of each of its stages.
pub(crate) fn keep(
    ci: &PipelineView<'_>,
    code: impl Fn(usize) -> Option<Words>,
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
                spec.p_map_entries = storage.slice(slice(spec.p_map_entries, spec.map_entry_count));
                spec.p_data = storage
                    .slice(slice(spec.p_data.cast::<u8>(), spec.data_size as u32))
                    .cast();
                stage.p_specialization_info = storage.slice(std::slice::from_ref(&spec));
            }
        }
        stages.push(stage);
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
    // SAFETY: every pointer of `kept` and `stages` points into `storage` (or is NULL).
    Ok(unsafe { KeptPipeline::new(kept, stages, codes, storage) })
}
