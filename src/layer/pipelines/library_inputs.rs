//! Replacement vertex-input libraries for pipelines linked from graphics pipeline libraries
//! (`VK_GLSEM_gl_state`), where what the vertex-input state must be depends on the
//! pre-rasterization library, which its create info cannot see:
//!
//! - GL's current vertex attributes: the vertex shader is in the pre-rasterization library
//!   and the vertex-input state in the vertex-input library, so neither create info alone
//!   knows which Locations are unfed. The replacement adds the layer's stride-0 binding and
//!   one attribute per unfed Location, as for whole pipelines.
//! - GL's quads, quad strips and polygons on the index route in polygon mode `GL_LINE` or
//!   `GL_POINT`: the vertex-input library draws the filled pattern's triangle list; the
//!   replacement draws the line or point list of the pattern the pre-rasterization library
//!   recorded (`PipelineRecord::gl_primitive`).
//!
//! - Every vertex format GL reads: a vertex-input library naming attributes the device
//!   cannot read where they are given (a format it lacks, an offset or stride the format
//!   cannot be fetched from) went down without them; the link gets a pre-rasterization
//!   library made again from its kept create info, its vertex shader reading those
//!   attributes in formats the device has (`vertex_input_variants::make_again`), and a
//!   replacement with the attributes it reads there.
//!
//! The layer keeps a deep copy of every vertex-input library's state, and the code and
//! create info of every pre-rasterization library's vertex shader ([`LibraryPart`]). The
//! link names the replacements instead of the application's libraries; the linked
//! pipeline's record keeps them (destroyed with the pipeline: the layer does not rely on a
//! library outliving nothing linked from it).

use ash::vk;
use std::ffi::c_void;
use std::sync::Arc;

use crate::layer::data::dynamic_inputs::{AppVertexInput, Attribute2, Variant};
use crate::layer::data::kept_pipeline::KeptPipeline;
use crate::layer::data::layer_memory::{fed_attributes, integer_slots};
use crate::layer::data::lines::LayerLineState;
use crate::layer::data::records::{LibraryPart, VertexInputPart};
use crate::layer::data::words::Words;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::kept_create_info;
use crate::layer::objects::pipeline_info::{
    attribute_stride, needs_shader_apart, stage_codes, stage_module,
};
use crate::layer::rewrite::patched::is_list;
use crate::layer::rules::{
    gl_mode, links_take_line_rule, list_topology, topology_for, GlModeError, IndicesError,
};
use crate::layer::support::error::PlanError;
use crate::layer::support::log;
use glsem_spirv::interface::InputKind;
use glsem_spirv::semantics::{IndexedPrimitive, List};
use glsem_spirv::semantics::{Semantic, Stage};

type Part = vk::GraphicsPipelineLibraryFlagsEXT;

/// A link with a replacement vertex-input library: the chain naming it (the structs in front
/// of `VkPipelineLibraryCreateInfoKHR` are copies kept here), the replacement and, where it
/// feeds unfed inputs, the integer-slot mask of the linked pipeline.
pub struct LinkFeed {
    pub library: vk::Pipeline,
    /// The pre-rasterization library made again for the vertex input or GL's line rule,
    /// where it was.
    pub pre_rasterization: Option<vk::Pipeline>,
    /// What the layer sets at bind of that library's lines.
    pub lines: LayerLineState,
    pub integer: Option<u32>,
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

/// Whether the layer may replace the vertex-input libraries of links on `dev`: to feed
/// unfed inputs, to draw GL's primitive modes on the index route as lines or points, or to
/// read attributes the device cannot read as given.
fn replaces(dev: &DeviceData) -> bool {
    dev.extensions.gl_state || reads_vertex_formats(dev)
}

fn reads_vertex_formats(dev: &DeviceData) -> bool {
    dev.settings.semantics.contains(Semantic::VertexFormats)
}

/// Whether the vertex-input library `ci` is kept, so that its links make it and the vertex
/// shader again for the attributes the device cannot read as given.
pub fn kept_apart(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
    reads_vertex_formats(dev) && vertex_input_part(dev, ci).is_some()
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
    if !replaces(dev) {
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
            (true, false) => vertex_input_part(dev, ci).map(LibraryPart::VertexInput),
            (false, true) if dev.feeds_inputs() || reads_vertex_formats(dev) => {
                stage_codes(dev, ci)
                    .into_iter()
                    .find(|c| c.stage == Stage::Vertex)
                    .and_then(|c| {
                        Some(LibraryPart::VertexShader {
                            words: c.module?.words.clone(),
                            entry: c.entry?,
                            kept: kept_library(dev, ci),
                        })
                    })
            }
            _ => None,
        };
        if let Some(part) = part {
            let records = &dev.records;
            records.keep_pipeline(&records.library_parts, pipeline, part);
        }
    }
}

/// The create info of a pre-rasterization library, kept to make it again for the vertex
/// input it is linked with (`None`, said, where it cannot be copied).
fn kept_library(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<Arc<KeptPipeline>> {
    if !reads_vertex_formats(dev) {
        return None;
    }
    let kept = kept_create_info::keep(ci, |i| {
        stage_module(dev, &ci.stages[i]).map(|m| m.words.clone())
    });
    kept.inspect_err(|why| {
        log::warning!(
            "vkCreateGraphicsPipelines: a pre-rasterization library is not kept ({why}): a \
             vertex-input library naming a format the device lacks, or an offset its format \
             cannot be fetched from, cannot be linked with it"
        )
    })
    .ok()
    .map(Arc::new)
}

/// A deep copy of a vertex-input library's state; `None` where the layer could not create
/// it again as it was (structs it does not know, dynamic vertex input or strides). GL's
/// primitive mode is kept apart from its input-assembly state ([`link_assembly`]).
fn vertex_input_part(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<Arc<VertexInputPart>> {
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
    let gl_mode = gl_mode(ci);
    if !input.state.p_next.is_null() || !assembly.chain.only_layer_structs() {
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
        gl_mode,
        unreadable: reads_vertex_formats(dev)
            && input
                .attributes
                .iter()
                .any(|a| needs_shader_apart(dev, a, attribute_stride(input.bindings, false, a))),
    }))
}

/// The input-assembly state a replacement of `part` goes down with: the application's, or,
/// where it names GL's primitive mode, the topology that draws it as the layer drew it in
/// the library (`Patched::draw_topology`), on the index route the list of the linked
/// pre-rasterization library's `pattern`.
fn link_assembly(
    dev: &DeviceData,
    part: &VertexInputPart,
    pattern: Option<IndexedPrimitive>,
) -> vk::PipelineInputAssemblyStateCreateInfo<'static> {
    let app = part.input_assembly;
    let Some(mode) = part.gl_mode else {
        return app;
    };
    let topology = match pattern {
        Some(pattern) => list_topology(&pattern),
        None => topology_for(mode),
    };
    let restart = match is_list(topology) && !dev.conventions.list_restart {
        true => vk::FALSE,
        false => app.primitive_restart_enable,
    };
    vk::PipelineInputAssemblyStateCreateInfo {
        topology,
        primitive_restart_enable: restart,
        ..app
    }
}

/// The recorded vertex-input library a link names, and its vertex shader where recorded.
struct LinkedParts {
    /// The vertex-input library's index in the library array.
    index: usize,
    input: Arc<VertexInputPart>,
    shader: Option<LinkedShader>,
}

/// The vertex shader's library a link names: its index in the library array, code, entry
/// point and kept create info.
struct LinkedShader {
    index: usize,
    words: Words,
    entry: String,
    kept: Option<Arc<KeptPipeline>>,
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
    let shader = libraries
        .iter()
        .enumerate()
        .find_map(|(index, l)| match parts.get(l) {
            Some(LibraryPart::VertexShader { words, entry, kept }) => Some(LinkedShader {
                index,
                words: words.clone(),
                entry: entry.clone(),
                kept: kept.clone(),
            }),
            _ => None,
        });
    Some(LinkedParts {
        index,
        input,
        shader,
    })
}

/// The static topology of the vertex-input library `ci` links (GL's primitive mode's
/// topology for the one it names); `None` where it is dynamic state or not recorded.
pub fn linked_topology(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<vk::PrimitiveTopology> {
    let input = linked_parts(dev, ci)?.input;
    if input
        .dynamic
        .contains(&vk::DynamicState::PRIMITIVE_TOPOLOGY)
    {
        return None;
    }
    Some(
        input
            .gl_mode
            .map_or(input.input_assembly.topology, topology_for),
    )
}

/// The pattern of GL's primitives the pre-rasterization library `ci` links draws on the
/// index route.
fn index_pattern(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<IndexedPrimitive> {
    let pipelines = dev.records.pipelines.read();
    ci.libraries?
        .iter()
        .find_map(|l| pipelines.get(l)?.bound.primitives.gl_primitive)
}

/// [`index_pattern`], where it is not the filled one its vertex-input library was made for.
fn unfilled_pattern(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<IndexedPrimitive> {
    index_pattern(dev, ci).filter(|p| p.list() != List::Triangles)
}

/// Whether `ci` links a recorded vertex-input library that may need replacing (the fast-path
/// test: hash lookups only).
pub fn may_feed(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
    replaces(dev)
        && ci.libraries.is_some()
        && (linked_parts(dev, ci)
            .is_some_and(|p| p.shader.is_some() || p.input.gl_mode.is_some() || p.input.unreadable)
            || takes_line_rule(dev, ci))
}

/// Why `ci`, a link, would draw GL's primitives as the wrong list: its pre-rasterization
/// library draws lines or points on the index route, and its vertex-input library is not
/// one the layer can make again with that list.
pub fn unreplaceable(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<PlanError> {
    let pattern = unfilled_pattern(dev, ci)?;
    let replaceable = linked_parts(dev, ci).is_some_and(|p| p.input.gl_mode.is_some());
    let why = GlModeError::Indices {
        primitive: pattern.primitive,
        why: IndicesError::UnfilledLibrary,
    };
    (!replaceable).then(|| why.into())
}

/// The replacement vertex-input library for `ci` and the chain naming it, where `ci` links
/// a vertex shader reading Locations its vertex-input library does not feed and the layer
/// can feed them all, draws GL's primitives on the index route as lines or points, or links
/// a vertex-input library with attributes the device cannot read as given (then with the
/// pre-rasterization library made again to read them). `next` creates the replacement
/// (without allocation callbacks: it is destroyed with the linked pipeline, whose callbacks
/// may differ). `Err`: the link cannot read its attributes, and fails.
pub fn feed(
    dev: &DeviceData,
    next: vk::PFN_vkCreateGraphicsPipelines,
    cache: vk::PipelineCache,
    ci: &PipelineView<'_>,
) -> Result<Option<LinkFeed>, PlanError> {
    if !replaces(dev) {
        return Ok(None);
    }
    let Some(LinkedParts {
        index,
        input: part,
        shader,
    }) = linked_parts(dev, ci)
    else {
        return Ok(None);
    };
    let pattern = unfilled_pattern(dev, ci).filter(|_| part.gl_mode.is_some());
    let inputs = shader
        .as_ref()
        .and_then(|s| fed_inputs(dev, &part, &s.words, &s.entry))
        .unwrap_or_default();
    let line_rule = takes_line_rule(dev, ci) && shader.as_ref().is_some_and(|s| s.kept.is_some());
    let remade = match part.unreadable || line_rule {
        true => Some(remake_shader(dev, &part, shader.as_ref(), line_rule)?),
        false => None,
    };
    if inputs.is_empty() && pattern.is_none() && remade.is_none() {
        return Ok(None);
    }
    let memory = &dev.attribute_memory;
    let mut bindings = part.bindings.clone();
    let mut attributes = match &remade {
        Some((_, variant)) => read_attributes(&part.attributes, variant),
        None => part.attributes.clone(),
    };
    if !inputs.is_empty() {
        bindings.push(vk::VertexInputBindingDescription {
            binding: memory.binding,
            stride: 0,
            input_rate: vk::VertexInputRate::VERTEX,
        });
        attributes.extend(fed_attributes(memory.binding, &inputs).map(
            |(location, binding, format, offset)| vk::VertexInputAttributeDescription {
                location,
                binding,
                format,
                offset,
            },
        ));
    }
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&bindings)
        .vertex_attribute_descriptions(&attributes);
    // A replacement for another reason draws the index route's list all the same.
    let list = index_pattern(dev, ci).filter(|_| part.gl_mode.is_some());
    let input_assembly = link_assembly(dev, &part, list);
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&part.dynamic);
    let mut parts =
        vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(Part::VERTEX_INPUT_INTERFACE);
    let create = vk::GraphicsPipelineCreateInfo {
        flags: part.flags,
        p_vertex_input_state: &vertex_input,
        p_input_assembly_state: &input_assembly,
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
    let pre_rasterization = remade.as_ref().map(|(at, v)| (*at, v.pipeline));
    let discard = |library: Option<vk::Pipeline>| {
        library
            .into_iter()
            .chain(pre_rasterization.map(|(_, p)| p))
            .for_each(|p| destroy(dev, p));
    };
    if result != vk::Result::SUCCESS {
        discard(None);
        return match remade {
            Some(_) => Err(PlanError::Driver(result)),
            None => {
                log::warning!(
                    "a linked pipeline's vertex-input library was not made again: {result}"
                );
                Ok(None)
            }
        };
    }
    let mut libraries = ci.libraries.unwrap_or_default().to_vec();
    libraries[index] = library;
    if let Some((at, made)) = pre_rasterization {
        libraries[at] = made;
    }
    let mut copies = Vec::new();
    // The copies live in the feed, as long as the chain is used.
    let rest = ci.chain.without(
        vk::StructureType::PIPELINE_LIBRARY_CREATE_INFO_KHR,
        &mut copies,
    );
    let Some(rest) = rest else {
        discard(Some(library));
        return match remade {
            Some(_) => Err(PlanError::HiddenLibraries),
            None => Ok(None),
        };
    };
    let link = Box::new(vk::PipelineLibraryCreateInfoKHR {
        p_next: rest,
        library_count: libraries.len() as u32,
        p_libraries: libraries.as_ptr(),
        ..Default::default()
    });
    Ok(Some(LinkFeed {
        library,
        pre_rasterization: pre_rasterization.map(|(_, p)| p),
        lines: remade.as_ref().map(|(_, v)| v.lines).unwrap_or_default(),
        integer: (!inputs.is_empty()).then(|| integer_slots(&inputs)),
        link,
        _libraries: libraries,
        _copies: copies,
    }))
}

/// The linked pre-rasterization library `shader` made again, its vertex shader reading
/// `part`'s attributes as a static vertex input's, with its index in the library array.
fn remake_shader(
    dev: &DeviceData,
    part: &VertexInputPart,
    shader: Option<&LinkedShader>,
    single_sampled: bool,
) -> Result<(usize, Variant), PlanError> {
    let shader = shader.ok_or(PlanError::LibraryNotKept)?;
    let kept = shader.kept.as_ref().ok_or(PlanError::LibraryNotKept)?;
    let input = (&part.bindings[..], &part.attributes[..]);
    let variant = (dev.make_again)(dev, kept, input, single_sampled)?;
    Ok((shader.index, variant))
}

/// Whether `ci`, a link, makes its pre-rasterization library again for GL's line rule
/// ([`links_take_line_rule`]): its fragment-output library is single-sampled without alpha
/// to coverage or alpha to one (GL's aliased lines).
fn takes_line_rule(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
    if !links_take_line_rule(dev) || links_fragment_route(dev, ci) {
        return false;
    }
    let records = dev.records.library_multisample.read();
    let Some(ms) = ci
        .libraries
        .and_then(|l| l.iter().find_map(|l| records.get(l)))
    else {
        return false;
    };
    ms.samples == Some(vk::SampleCountFlags::TYPE_1)
        && ms.alpha_to_coverage == Some(false)
        && ms.alpha_to_one == Some(false)
}

/// Whether `ci`, a link, links a pre-rasterization library that took GL's fragment line
/// route (it writes the route's varyings, which its fragment-shader library may read): it
/// keeps it, and its lines are the route's.
fn links_fragment_route(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
    let pipelines = dev.records.pipelines.read();
    ci.libraries
        .unwrap_or_default()
        .iter()
        .any(|l| pipelines.get(l).is_some_and(|r| r.lines.varyings))
}

/// `attributes` as `variant`'s vertex shader reads them: each it refetches replaced by its
/// chunks, on the same binding.
fn read_attributes(
    attributes: &[vk::VertexInputAttributeDescription],
    variant: &Variant,
) -> Vec<vk::VertexInputAttributeDescription> {
    let app: Vec<Attribute2> = attributes
        .iter()
        .map(|a| (a.location, a.binding, a.format, a.offset))
        .collect();
    let input = AppVertexInput {
        bindings: Vec::new(),
        attributes: app,
    };
    variant
        .vertex_input(&input)
        .attributes
        .into_iter()
        .map(
            |(location, binding, format, offset)| vk::VertexInputAttributeDescription {
                location,
                binding,
                format,
                offset,
            },
        )
        .collect()
}

/// The unfed inputs of `words`' vertex shader the layer feeds beside `part`'s state: none
/// where it does not feed them on `dev`, the application binds the layer's binding itself,
/// or one is past the layer's slots.
fn fed_inputs(
    dev: &DeviceData,
    part: &VertexInputPart,
    words: &[u32],
    entry: &str,
) -> Option<Vec<(u32, InputKind)>> {
    // The application's choice wins: unfed inputs stay as they are.
    if part
        .bindings
        .iter()
        .any(|b| b.binding == dev.attribute_memory.binding)
    {
        return None;
    }
    let fed: Vec<u32> = part.attributes.iter().map(|a| a.location).collect();
    dev.feedable_inputs(words, entry, &fed)
        .inspect_err(|why| {
            log::warning!("unfed vertex inputs of a linked pipeline are not fed: {why}")
        })
        .ok()
        .flatten()
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
