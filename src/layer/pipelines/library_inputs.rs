//! GL's current vertex attributes for pipelines linked from graphics pipeline libraries
//! (`VK_GLSEM_gl_state`): the vertex shader is in the pre-rasterization library and the
//! vertex-input state in the vertex-input library, so neither create info alone knows which
//! Locations are unfed.
//!
//! The layer keeps a deep copy of every vertex-input library's state and the code of every
//! pre-rasterization library's vertex shader ([`LibraryPart`]). A link of both whose shader
//! reads a Location the state does not feed gets a replacement vertex-input library: the
//! application's state plus the layer's stride-0 binding and one attribute per unfed
//! Location, as for whole pipelines (`current_attributes`). The link names it instead of the
//! application's; the linked pipeline's record keeps it (destroyed with the pipeline: the
//! layer does not rely on a library outliving nothing linked from it) and reads GL's current
//! values when bound.

use ash::vk;
use std::ffi::c_void;
use std::sync::Arc;

use crate::layer::commands::current_attributes::{format_of, integer_slots};
use crate::layer::data::records::{LibraryPart, VertexInputPart};
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::pipeline_info::stage_codes;
use crate::layer::support::log;
use glsem_spirv::semantics::{Semantic, Stage};
use glsem_spirv::unfed_inputs::unfed_input_kinds;

type Part = vk::GraphicsPipelineLibraryFlagsEXT;

/// A link that feeds unfed inputs: the chain naming the replacement library (the structs
/// in front of `VkPipelineLibraryCreateInfoKHR` are copies kept here), the replacement and
/// the integer-slot mask of the linked pipeline.
pub struct LinkFeed {
    pub library: vk::Pipeline,
    pub integer: u32,
    link: Box<vk::PipelineLibraryCreateInfoKHR<'static>>,
    _libraries: Vec<vk::Pipeline>,
    _copies: Vec<Box<[u64]>>,
}

impl LinkFeed {
    /// The `pNext` chain the linked pipeline goes down with.
    pub fn chain(&self) -> *const c_void {
        (&*self.link as *const vk::PipelineLibraryCreateInfoKHR<'_>).cast()
    }
}

/// Whether the layer feeds unfed inputs of linked pipelines on `dev`.
fn feeds(dev: &DeviceData) -> bool {
    dev.extensions.gl_state
        && dev.attribute_memory.memory_type.is_some()
        && dev.settings.semantics.contains(Semantic::UnfedInputs)
}

/// The parts `ci` holds, where it is a library holding some but not all of them.
fn library_parts(ci: &PipelineView<'_>) -> Option<Part> {
    if !ci.info.flags.contains(vk::PipelineCreateFlags::LIBRARY_KHR) {
        return None;
    }
    ci.library_parts
}

/// Records the vertex-input and pre-rasterization libraries among `pipelines` (one per
/// create info; failed ones are null).
pub fn record(dev: &DeviceData, infos: &[PipelineView<'_>], pipelines: &[vk::Pipeline]) {
    if !feeds(dev) {
        return;
    }
    for (ci, &pipeline) in infos.iter().zip(pipelines) {
        let Some(parts) = library_parts(ci).filter(|_| pipeline != vk::Pipeline::null()) else {
            continue;
        };
        // A library holding both sides is planned as a whole pipeline.
        let part = match (
            parts.contains(Part::VERTEX_INPUT_INTERFACE),
            parts.contains(Part::PRE_RASTERIZATION_SHADERS),
        ) {
            (true, false) => vertex_input_part(ci).map(LibraryPart::VertexInput),
            (false, true) => stage_codes(dev, ci)
                .into_iter()
                .find(|c| c.stage == Stage::Vertex)
                .and_then(|c| Some(LibraryPart::VertexShader(c.module?.words.clone(), c.entry?))),
            _ => None,
        };
        if let Some(part) = part {
            dev.records.library_parts.write().insert(pipeline, part);
        }
    }
}

/// A deep copy of a vertex-input library's state; `None` where the layer could not create
/// it again as it was (structs it does not know, dynamic vertex input or strides).
fn vertex_input_part(ci: &PipelineView<'_>) -> Option<Arc<VertexInputPart>> {
    if ci
        .chain
        .types()
        .any(|t| t != vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT)
    {
        return None;
    }
    let dynamic = ci.dynamic.to_vec();
    if dynamic.iter().any(|d| {
        [
            vk::DynamicState::VERTEX_INPUT_EXT,
            vk::DynamicState::VERTEX_INPUT_BINDING_STRIDE,
        ]
        .contains(d)
    }) {
        return None;
    }
    let (input, assembly) = (ci.vertex_input.as_ref()?, ci.input_assembly.as_ref()?);
    if !input.state.p_next.is_null() || !assembly.p_next.is_null() {
        return None;
    }
    Some(Arc::new(VertexInputPart {
        flags: ci.info.flags,
        bindings: input.bindings.to_vec(),
        attributes: input.attributes.to_vec(),
        input_assembly: vk::PipelineInputAssemblyStateCreateInfo {
            flags: assembly.flags,
            topology: assembly.topology,
            primitive_restart_enable: assembly.primitive_restart_enable,
            ..Default::default()
        },
        dynamic,
    }))
}

/// The recorded vertex-input library and vertex shader a link names.
struct LinkedParts {
    /// The vertex-input library's index in the library array.
    index: usize,
    input: Arc<VertexInputPart>,
    words: Arc<[u32]>,
    entry: String,
}

fn linked_parts(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<LinkedParts> {
    let libraries = ci.libraries?;
    let parts = dev.records.library_parts.read();
    let (index, input) = libraries
        .iter()
        .enumerate()
        .find_map(|(i, l)| match parts.get(l) {
            Some(LibraryPart::VertexInput(part)) => Some((i, part.clone())),
            _ => None,
        })?;
    let (words, entry) = libraries.iter().find_map(|l| match parts.get(l) {
        Some(LibraryPart::VertexShader(words, entry)) => Some((words.clone(), entry.clone())),
        _ => None,
    })?;
    Some(LinkedParts {
        index,
        input,
        words,
        entry,
    })
}

/// Whether `ci` links a recorded vertex-input library with a recorded vertex shader (the
/// fast-path test: hash lookups only).
pub fn may_feed(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
    feeds(dev) && ci.libraries.is_some() && linked_parts(dev, ci).is_some()
}

/// The replacement vertex-input library for `ci` and the chain naming it, where `ci` links
/// a vertex shader reading Locations its vertex-input library does not feed and the layer
/// can feed them all. `next` creates the replacement (without allocation callbacks: it is
/// destroyed with the linked pipeline, whose callbacks may differ).
pub fn feed(
    dev: &DeviceData,
    next: vk::PFN_vkCreateGraphicsPipelines,
    cache: vk::PipelineCache,
    ci: &PipelineView<'_>,
) -> Option<LinkFeed> {
    if !feeds(dev) {
        return None;
    }
    let LinkedParts {
        index,
        input: part,
        words,
        entry,
    } = linked_parts(dev, ci)?;
    let memory = &dev.attribute_memory;
    // The application's choice wins: unfed inputs stay as they are.
    if part.bindings.iter().any(|b| b.binding == memory.binding) {
        return None;
    }
    let fed: Vec<u32> = part.attributes.iter().map(|a| a.location).collect();
    let inputs = match unfed_input_kinds(&words, &entry, &fed) {
        Ok(inputs) => inputs,
        Err(why) => {
            log::warning!("unfed vertex inputs of a linked pipeline are not fed: {why}");
            return None;
        }
    };
    if inputs.is_empty() || inputs.iter().any(|&(l, _)| l >= memory.slots) {
        return None;
    }
    let mut bindings = part.bindings.clone();
    bindings.push(vk::VertexInputBindingDescription {
        binding: memory.binding,
        stride: 0,
        input_rate: vk::VertexInputRate::VERTEX,
    });
    let mut attributes = part.attributes.clone();
    attributes.extend(
        inputs
            .iter()
            .map(|&(location, kind)| vk::VertexInputAttributeDescription {
                location,
                binding: memory.binding,
                format: format_of(kind),
                offset: location * 16,
            }),
    );
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&bindings)
        .vertex_attribute_descriptions(&attributes);
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&part.dynamic);
    let mut parts =
        vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(Part::VERTEX_INPUT_INTERFACE);
    let create = vk::GraphicsPipelineCreateInfo {
        flags: part.flags,
        p_vertex_input_state: &vertex_input,
        p_input_assembly_state: &part.input_assembly,
        p_dynamic_state: &dynamic,
        ..Default::default()
    }
    .push_next(&mut parts);
    let mut library = vk::Pipeline::null();
    // SAFETY: the next layer's command on the device the layer recorded, with a create info
    // whose pointers outlive the call.
    let result = unsafe {
        next(
            dev.handle,
            cache,
            1,
            &create,
            std::ptr::null(),
            &mut library,
        )
    };
    if result != vk::Result::SUCCESS {
        log::warning!("unfed vertex inputs of a linked pipeline are not fed: {result}");
        return None;
    }
    let mut libraries = ci.libraries?.to_vec();
    libraries[index] = library;
    let mut copies = Vec::new();
    // The copies live in the feed, as long as the chain is used.
    let rest = ci.chain.without(
        vk::StructureType::PIPELINE_LIBRARY_CREATE_INFO_KHR,
        &mut copies,
    );
    let Some(rest) = rest else {
        destroy(dev, library);
        return None;
    };
    let link = Box::new(vk::PipelineLibraryCreateInfoKHR {
        p_next: rest,
        library_count: libraries.len() as u32,
        p_libraries: libraries.as_ptr(),
        ..Default::default()
    });
    Some(LinkFeed {
        library,
        integer: integer_slots(&inputs),
        link,
        _libraries: libraries,
        _copies: copies,
    })
}

/// Destroys a replacement library (its linked pipeline is going, or was never made).
pub fn destroy(dev: &DeviceData, library: vk::Pipeline) {
    if let Some(destroy) = dev.table.destroy_pipeline {
        // SAFETY: a library the layer created on the device it recorded, without allocation
        // callbacks, which no command buffer uses (the pipeline linked from it is being
        // destroyed).
        unsafe { destroy(dev.handle, library, std::ptr::null()) };
    }
}
