//! Every vertex format GL reads, under dynamic vertex input (docs/semantics.md, `vertex_formats`): the formats
//! and offsets are known only at `vkCmdSetVertexInputEXT`. A whole pipeline whose vertex
//! input is dynamic state is kept at creation (`objects/kept_create_info.rs`); where the
//! state set names an attribute the device cannot read where it is given (a format it
//! lacks, an offset or stride its format cannot be fetched from), the command hook
//! (`commands/followed_state.rs`) has the planner make it again for it
//! (`planner::make_again`, its vertex shader rewritten by the rule static vertex input
//! takes, `rules/vertex_formats.rs`), binds it in the application's pipeline's place, and
//! gives the driver the attributes as that shader reads them. Each distinct need is made
//! once and cached with the pipeline, destroyed with it (here); a state the pipeline reads
//! as it is binds the application's pipeline again, and costs nothing more.

use ash::vk;
use parking_lot::Mutex;
use std::sync::Arc;

use crate::layer::data::dynamic_inputs::VertexInputVariants;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::kept_create_info;
use crate::layer::objects::pipeline_info::{is_library, stage_module};
use crate::layer::pipelines::library_inputs;
use crate::layer::support::log;
use glsem_spirv::semantics::Semantic;

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
pub(crate) fn keep(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    polygon_mode_variants: bool,
) -> Option<Arc<VertexInputVariants>> {
    let kept = kept_create_info::keep(ci, |i| {
        stage_module(dev, &ci.stages[i]).map(|m| m.words.clone())
    });
    match kept {
        Ok(kept) => Some(Arc::new(VertexInputVariants {
            kept,
            made: Mutex::new(Vec::new()),
            polygon_mode_variants,
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

/// Destroys what was made of a pipeline being destroyed.
pub(crate) fn destroy(dev: &DeviceData, variants: &VertexInputVariants) {
    for (_, variant) in variants.made.lock().drain(..) {
        if let Some(variant) = variant {
            library_inputs::destroy(dev, variant.pipeline);
        }
    }
}
