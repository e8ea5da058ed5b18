//! Every vertex format GL reads, layer side: which formats the device lacks for vertex
//! buffers (asked once at `vkCreateDevice`), which attributes of a pipeline's vertex-input
//! state name one (the key's `vertex_formats`), free Locations for the attributes that
//! replace them, and the vertex-input state they go down with (`rewrite/patched.rs`).
//! The vertex shader's rewrite is `glsem_spirv::vertex_formats`.

use ash::vk;

use crate::layer::data::cache::Outcome;
use crate::layer::data::vertex_formats::{
    chunk_attributes, vertex_format, vk_format, MissingVertexFormats,
};
use crate::layer::loader::registry::Dispatchable;
use crate::layer::loader::state::{DeviceData, InstanceData};
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::pipeline_info::{
    attribute_stride, holds_vertex_input, misaligned, needs_shader_apart, Misaligned,
};
use crate::layer::rewrite::patched::Patched;
use crate::layer::rewrite::run::Run;
use crate::layer::rules::layer_step::LayerStep;
use crate::layer::support::error::PlanError;
use glsem_spirv::semantics::{Semantic, Stage, Step};
use glsem_spirv::vertex_formats::{
    assign_locations, occupied_input_locations, RefetchVertexInputs, RefetchedAttribute,
};

/// `vkCreateDevice`: the formats `physical_device` cannot read from vertex buffers.
pub(crate) fn missing_vertex_formats(
    inst: &InstanceData,
    physical_device: Dispatchable<vk::PhysicalDevice>,
) -> MissingVertexFormats {
    let Some(get) = inst.table.get_physical_device_format_properties else {
        return MissingVertexFormats::default();
    };
    MissingVertexFormats::of(|format| {
        let mut props = vk::FormatProperties::default();
        // SAFETY: the next layer's command on a live physical device (a `Dispatchable`) of
        // `inst`, the instance its dispatch key found.
        unsafe { get(physical_device.handle(), format, &mut props) };
        !props
            .buffer_features
            .contains(vk::FormatFeatureFlags::VERTEX_BUFFER)
    })
}

/// A vertex-input state apart from its vertex shader (a vertex-input library) naming a
/// format the device cannot read, or an attribute at an offset or stride its format cannot be
/// fetched from, where the layer cannot keep it to make again at the link (the planner asks
/// `library_inputs::kept_apart` first): the layer cannot rewrite the shader it will feed,
/// and the driver cannot read the attribute (SwiftShader crashes on a missing format), so
/// the library fails, naming the attribute. Doubles are read in place, by the rule every vertex
/// shader is rewritten with where its vertex input is apart
/// (`pipeline_info::in_place_doubles`), as 32-bit words wherever those are aligned.
pub(crate) fn unreadable_apart(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<PlanError> {
    let vertex_shader = ci
        .stages
        .iter()
        .any(|s| s.info.stage == vk::ShaderStageFlags::VERTEX);
    if !holds_vertex_input(ci)
        || vertex_shader
        || !dev.settings.semantics.contains(Semantic::VertexFormats)
    {
        return None;
    }
    let input = ci.vertex_input.as_ref()?;
    let dynamic_stride = ci.is_dynamic(vk::DynamicState::VERTEX_INPUT_BINDING_STRIDE);
    let unreadable = |a: &vk::VertexInputAttributeDescription| {
        needs_shader_apart(dev, a, attribute_stride(input.bindings, dynamic_stride, a))
    };
    if !input.attributes.iter().any(unreadable) {
        return None;
    }
    let missing = input.attributes.iter().find(|a| {
        vertex_format(a.format)
            .is_some_and(|(i, f)| dev.missing_vertex_formats.contains(i) && f.bits != 64)
    });
    if let Some(attribute) = missing {
        return Some(PlanError::VertexFormatApart {
            location: attribute.location,
            format: attribute.format,
        });
    }
    input.attributes.iter().find_map(|a| {
        let stride = attribute_stride(input.bindings, dynamic_stride, a);
        let (_, format) = vertex_format(a.format)?;
        (misaligned(&format, a.offset, stride) == Misaligned::Bytes).then_some(
            PlanError::UnalignedApart {
                location: a.location,
                format: a.format,
                offset: a.offset,
                stride,
            },
        )
    })
}

impl LayerStep for RefetchVertexInputs {
    /// Assigns the replacing attributes free Locations, rewrites the vertex shader with
    /// them and keeps the step for [`LayerStep::chain`]. The pipeline fails where an
    /// attribute cannot be read otherwise: the device could not read it at all.
    fn plan(&self, _step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        let name = |a: &RefetchedAttribute| (a.location, vk_format(&a.format));
        if let Some(a) = self.attributes.iter().find(|a| !a.offsets_fit) {
            let (location, format) = name(a);
            return Err(PlanError::VertexFormatOffset { location, format });
        }
        let shader = run.position(Stage::Vertex).and_then(|i| {
            let entry = run.codes[i].entry.clone()?;
            Some((run.current[i].as_ref()?.words.clone(), entry))
        });
        let Some((words, entry)) = shader else {
            // A vertex-input library: its doubles are read in place, the attributes it cannot
            // read otherwise where the layer makes it again at the link
            // ([`LayerStep::chain`]).
            run.out.state.push(Step::RefetchVertexInputs(self.clone()));
            return Ok(());
        };
        let rebuilt: Vec<u32> = self.attributes.iter().map(|a| a.location).collect();
        let mut taken = occupied_input_locations(&words, &entry, &rebuilt).unwrap_or_default();
        taken.extend(&self.kept);
        let mut step = self.clone();
        let max = run.dev.limits.max_vertex_input_attributes;
        // Doubles read in place (dynamic vertex input) keep the Locations they take.
        let in_place = step
            .attributes
            .iter()
            .all(|a| !a.fetch_locations.is_empty());
        if !in_place {
            if let Err(i) = assign_locations(&mut step.attributes, &taken, max) {
                let (location, format) = name(&step.attributes[i]);
                return Err(PlanError::VertexFormatNoRoom { location, format });
            }
        }
        let step = Step::RefetchVertexInputs(step);
        if let Outcome::Failed(why) = run.apply(&step) {
            let (location, format) = name(&self.attributes[0]);
            return Err(PlanError::VertexFormatShader {
                location,
                format,
                why,
            });
        }
        run.out.state.push(step);
        Ok(())
    }

    /// The vertex-input state with each refetched attribute replaced by its chunks, on
    /// the same binding, at the chunks' offsets.
    fn chain<'a>(&self, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        // Dynamic vertex input: `vkCmdSetVertexInputEXT` gets the chunks (`followed_state`),
        // and the state the create info points at, ignored, names the formats the device
        // lacks.
        if ci.is_dynamic(vk::DynamicState::VERTEX_INPUT_EXT) {
            patched.drop_vertex_input();
            return;
        }
        let Some(attributes) = patched.vertex_attributes(ci) else {
            return;
        };
        for refetched in &self.attributes {
            let Some(at) = attributes
                .iter()
                .position(|a| a.location == refetched.location)
            else {
                continue;
            };
            let app = attributes.remove(at);
            // Read only through the pipeline linked from the library, which the layer links
            // with a vertex-input library and vertex shader made again for it
            // (`library_inputs::feed`).
            if refetched.fetch_locations.is_empty() {
                continue;
            }
            attributes.extend(chunk_attributes(refetched, app.offset).map(
                |(location, format, offset)| vk::VertexInputAttributeDescription {
                    location,
                    binding: app.binding,
                    format,
                    offset,
                },
            ));
        }
        patched.relink_vertex_input();
    }
}
