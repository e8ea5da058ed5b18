//! Every vertex format GL reads, under dynamic vertex input (DESIGN §4.13, issue "every
//! path"): the formats and offsets are known only at `vkCmdSetVertexInputEXT`. Where that
//! state names an attribute the device cannot read where it is given (a format it lacks, an
//! offset or stride its format cannot be fetched from), the layer makes the pipeline again
//! from a copy of its create info kept at creation (`objects/kept_pipeline.rs`), its vertex
//! shader rewritten for those attributes by the rule static vertex input takes
//! (`rules/vertex_formats.rs`); binds it in the application's pipeline's place; and gives
//! the driver the attributes as that shader reads them. Each distinct need is made once and
//! cached with the pipeline, destroyed with it; a state the pipeline can read as it is binds
//! the application's pipeline again, and costs nothing more.

use ash::vk;
use parking_lot::Mutex;
use std::sync::Arc;

use crate::layer::data::dynamic_inputs::{
    AppVertexInput, Variant, VariantKey, VertexInputVariants,
};
use crate::layer::data::kept_pipeline::KeptPipeline;
use crate::layer::data::vertex_formats::vertex_format;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::{PipelineView, VertexInput};
use crate::layer::objects::pipeline_info::{
    is_library, misaligned, needs_shader_apart, stage_module, Misaligned,
};
use crate::layer::pipelines::{library_inputs, planner};
use crate::layer::support::error::PlanError;
use crate::layer::support::log;
use glsem_spirv::semantics::{Semantic, Step};

/// Whether `ci` is kept to be made again for its vertex input: a whole pipeline whose
/// vertex input is dynamic state, with a vertex shader, on a device that can set it.
pub(crate) fn keeps(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
    dev.settings.semantics.contains(Semantic::VertexFormats)
        && dev.table.cmd_set_vertex_input_ext.is_some()
        && ci.is_dynamic(vk::DynamicState::VERTEX_INPUT_EXT)
        && !is_library(ci)
        && ci.libraries.is_none_or(|l| l.is_empty())
        && ci
            .stages
            .iter()
            .any(|s| s.info.stage == vk::ShaderStageFlags::VERTEX)
}

/// `ci` kept (`keeps` holds for it); `None`, said, where its create info cannot be copied.
pub(crate) fn keep(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<Arc<VertexInputVariants>> {
    let kept = KeptPipeline::of(ci, |i| {
        stage_module(dev, &ci.stages[i]).map(|m| m.words.clone())
    });
    match kept {
        Ok(kept) => Some(Arc::new(VertexInputVariants {
            kept,
            made: Mutex::new(Vec::new()),
        })),
        Err(why) => {
            log::warning!(
                "vkCreateGraphicsPipelines: a pipeline with dynamic vertex input is not kept \
                 ({why}): a vkCmdSetVertexInputEXT naming a format the device lacks, or an \
                 offset its format cannot be fetched from, goes down as it is"
            );
            None
        }
    }
}

/// The pipeline to draw `app` with in the application's place (`None`: the application's
/// own reads it), made on first use. One that cannot be made is said once and leaves the
/// application's.
pub(crate) fn for_input(
    dev: &DeviceData,
    variants: &VertexInputVariants,
    app: &AppVertexInput,
) -> Option<Arc<Variant>> {
    let key = variant_key(dev, app)?;
    let mut made = variants.made.lock();
    if let Some((_, variant)) = made.iter().find(|(k, _)| *k == key) {
        return variant.clone();
    }
    let bindings: Vec<vk::VertexInputBindingDescription> = app
        .bindings
        .iter()
        .map(
            |&(binding, stride, input_rate, _)| vk::VertexInputBindingDescription {
                binding,
                stride,
                input_rate,
            },
        )
        .collect();
    let attributes: Vec<vk::VertexInputAttributeDescription> = app
        .attributes
        .iter()
        .map(
            |&(location, binding, format, offset)| vk::VertexInputAttributeDescription {
                location,
                binding,
                format,
                offset,
            },
        )
        .collect();
    let variant = match make_again(dev, &variants.kept, &bindings, &attributes) {
        Ok(variant) => Some(Arc::new(variant)),
        Err(why) => {
            log::error!(
                "vkCmdSetVertexInputEXT: the pipeline cannot be made again to read the vertex \
                 attributes {:?} (Location, format, byte by byte): {why}; they go down as they are",
                key.refetched
            );
            None
        }
    };
    made.push((key, variant.clone()));
    variant
}

/// The pipeline or pre-rasterization library `kept` made again, its vertex shader reading
/// `attributes` (of `bindings`) as a static vertex input's (`rules/vertex_formats.rs`),
/// with how it reads those it refetches.
pub(crate) fn make_again(
    dev: &DeviceData,
    kept: &KeptPipeline,
    bindings: &[vk::VertexInputBindingDescription],
    attributes: &[vk::VertexInputAttributeDescription],
) -> Result<Variant, PlanError> {
    let (layout, render_pass) = kept.handles();
    let live = (layout == vk::PipelineLayout::null()
        || dev.records.layouts.read().contains_key(&layout))
        && (render_pass == vk::RenderPass::null()
            || dev.records.render_passes.read().contains_key(&render_pass));
    if !live {
        return Err(PlanError::KeptHandlesDestroyed);
    }
    let state = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(bindings)
        .vertex_attribute_descriptions(attributes);
    let modules = planner::register_modules(dev, kept.codes())?;
    let mut stages = Vec::new();
    let info = kept.info(&modules.handles, &state, &mut stages);
    // SAFETY: the kept create info, valid as the application's was, with the layer's
    // modules of its code and a vertex-input state that the dynamic state ignores.
    let mut view = unsafe { PipelineView::new(&info) };
    // The planner reads the attributes as a static state's, with the strides given; a
    // dynamic vertex input stays dynamic (the layer sends the chunks), a library's goes
    // with the vertex-input library the layer makes with it.
    view.vertex_input = Some(VertexInput {
        state: &state,
        bindings,
        attributes,
    });
    let dynamic: Vec<vk::DynamicState> = view
        .dynamic
        .iter()
        .copied()
        .filter(|&d| d != vk::DynamicState::VERTEX_INPUT_BINDING_STRIDE)
        .collect();
    view.dynamic = &dynamic;
    let made = planner::create_alone(dev, &view);
    drop(modules);
    let (pipeline, rewrite) = made?;
    let refetch = rewrite.state.iter().find_map(|step| match step {
        Step::RefetchVertexInputs(r) => Some(r.clone()),
        _ => None,
    });
    match refetch {
        Some(refetch) => Ok(Variant { pipeline, refetch }),
        None => {
            library_inputs::destroy(dev, pipeline);
            Err(PlanError::VertexFormatsUnplanned)
        }
    }
}

/// Destroys what was made of a pipeline being destroyed.
pub(crate) fn destroy(dev: &DeviceData, variants: &VertexInputVariants) {
    for (_, variant) in variants.made.lock().drain(..) {
        if let Some(variant) = variant {
            library_inputs::destroy(dev, variant.pipeline);
        }
    }
}

/// The key of the variant `app` needs; `None` where the pipeline reads it as it is: every
/// format one the device has at an offset it can fetch, doubles aside (the pipeline's
/// vertex shader reads them in place: `pipeline_info::in_place_doubles`).
fn variant_key(dev: &DeviceData, app: &AppVertexInput) -> Option<VariantKey> {
    let stride_of = |binding| {
        app.bindings
            .iter()
            .find(|b| b.0 == binding)
            .map_or(0, |b| b.1)
    };
    let force = dev.settings.debug_force_vertex_formats;
    // The fast path: a device with every format, offsets and strides 8-aligned.
    if dev.missing_vertex_formats.is_empty()
        && !force
        && app
            .attributes
            .iter()
            .all(|a| (a.3 | stride_of(a.1)).is_multiple_of(8))
    {
        return None;
    }
    let mut needed = false;
    let mut key = VariantKey {
        refetched: Vec::new(),
        kept: Vec::new(),
    };
    for &(location, binding, format, offset) in &app.attributes {
        let attribute = vk::VertexInputAttributeDescription {
            location,
            binding,
            format,
            offset,
        };
        let stride = stride_of(binding);
        needed |= needs_shader_apart(dev, &attribute, stride);
        // What the variant's plan refetches (`pipeline_info::refetched_attributes`).
        let refetched = vertex_format(format).map(|(i, f)| {
            let fetch = misaligned(&f, offset, stride);
            let missing = dev.missing_vertex_formats.contains(i) || force;
            (
                missing || fetch != Misaligned::No,
                fetch == Misaligned::Bytes,
            )
        });
        match refetched {
            Some((true, bytes)) => key.refetched.push((location, format, bytes)),
            _ => key.kept.push(location),
        }
    }
    needed.then_some(key)
}
