//! The copies a rewritten create info goes down with: its stages (with the layer's modules),
//! and the state structs the rewrite changes, each a copy of the application's with the
//! layer's structs chained in front of the application's `pNext` chain. The copies borrow
//! the application's chains (`'a`): they point into them, never past the call down.

use ash::vk::{self, TaggedStructure};

use crate::layer::data::layer_memory::fed_attributes;
use crate::layer::objects::create_info::{PipelineView, VertexInput};
use crate::layer::rewrite::run::Rewrite;
use crate::layer::support::ffi::link_in_front;
use glsem_spirv::interface::InputKind;

/// The arrays handed to the driver for one rewritten create info, and the temporary
/// modules to destroy afterwards.
pub(crate) struct Patched<'a> {
    pub stages: Vec<vk::PipelineShaderStageCreateInfo<'a>>,
    pub temporaries: Vec<vk::ShaderModule>,
    /// Copied `pNext` structs of stages whose inline code was unlinked, and of the
    /// input-assembly state's chain.
    pub chain_copies: Vec<Box<[u64]>>,
    /// Boxed: the chains point into them.
    rasterization: Option<Box<RasterizationCopy<'a>>>,
    pub viewport: Option<Box<Chained<ViewportState<'a>, DepthClipControl<'a>>>>,
    dynamic: Option<Box<DynamicCopy<'a>>>,
    pub tessellation: Option<Box<Chained<TessellationState<'a>, DomainOrigin<'a>>>>,
    vertex_input: Option<Box<VertexInputCopy<'a>>>,
    /// The vertex-input state is dynamic and goes down without the one the create info
    /// points at (which Vulkan ignores, and which names formats the device lacks).
    no_vertex_input: bool,
    input_assembly: Option<Box<vk::PipelineInputAssemblyStateCreateInfo<'a>>>,
}

type ViewportState<'a> = vk::PipelineViewportStateCreateInfo<'a>;
type TessellationState<'a> = vk::PipelineTessellationStateCreateInfo<'a>;
pub(crate) type DomainOrigin<'a> = vk::PipelineTessellationDomainOriginStateCreateInfo<'a>;
pub(crate) type DepthClipControl<'a> = vk::PipelineViewportDepthClipControlCreateInfoEXT<'a>;

/// A state struct with one struct of the layer's chained in front of its `pNext`.
pub(crate) struct Chained<S, F> {
    state: S,
    front: F,
}

impl<S: TaggedStructure, F: TaggedStructure> Chained<S, F> {
    pub fn new(state: S, front: F) -> Box<Self> {
        let mut copy = Box::new(Chained { state, front });
        let Chained { state, front } = &mut *copy;
        link_in_front(state, front);
        copy
    }
}

/// The vertex-input state with the layer's changes: the stride-0 binding of GL's current
/// attributes, attributes in formats the device lacks replaced (`rules/vertex_formats.rs`).
/// Each change edits the arrays and calls [`VertexInputCopy::relink`].
struct VertexInputCopy<'a> {
    state: vk::PipelineVertexInputStateCreateInfo<'a>,
    bindings: Vec<vk::VertexInputBindingDescription>,
    attributes: Vec<vk::VertexInputAttributeDescription>,
}

impl<'a> VertexInputCopy<'a> {
    fn new(app: &VertexInput<'a>) -> Box<Self> {
        let mut copy = Box::new(VertexInputCopy {
            state: *app.state,
            bindings: app.bindings.to_vec(),
            attributes: app.attributes.to_vec(),
        });
        copy.relink();
        copy
    }

    /// Adds the layer's stride-0 `binding` of GL's current attributes for `inputs`.
    fn add_layer_attributes(&mut self, binding: u32, inputs: &[(u32, InputKind)]) {
        self.bindings.push(vk::VertexInputBindingDescription {
            binding,
            stride: 0,
            input_rate: vk::VertexInputRate::VERTEX,
        });
        self.attributes.extend(fed_attributes(binding, inputs).map(
            |(location, binding, format, offset)| vk::VertexInputAttributeDescription {
                location,
                binding,
                format,
                offset,
            },
        ));
        self.relink();
    }

    /// Points the state at the arrays as they are now.
    fn relink(&mut self) {
        self.state.vertex_binding_description_count = self.bindings.len() as u32;
        self.state.p_vertex_binding_descriptions = self.bindings.as_ptr();
        self.state.vertex_attribute_description_count = self.attributes.len() as u32;
        self.state.p_vertex_attribute_descriptions = self.attributes.as_ptr();
    }
}

/// The rasterization state with the layer's provoking vertex and line state, each chained
/// in front of its `pNext` when a step asks for it.
pub(crate) struct RasterizationCopy<'a> {
    pub state: vk::PipelineRasterizationStateCreateInfo<'a>,
    pub provoking: vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT<'a>,
    pub line: vk::PipelineRasterizationLineStateCreateInfoKHR<'a>,
}

impl<'a> RasterizationCopy<'a> {
    fn new(state: &vk::PipelineRasterizationStateCreateInfo<'a>) -> Box<Self> {
        Box::new(RasterizationCopy {
            state: *state,
            provoking: vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT {
                provoking_vertex_mode: vk::ProvokingVertexModeEXT::LAST_VERTEX,
                ..Default::default()
            },
            line: Default::default(),
        })
    }
}

/// The dynamic state with states the layer sets added (`Patched::add_dynamic`).
struct DynamicCopy<'a> {
    state: vk::PipelineDynamicStateCreateInfo<'a>,
    states: Vec<vk::DynamicState>,
}

impl<'a> Patched<'a> {
    /// `ci`'s stages, to be patched, with the vertex-input state `rewrite` changes; the
    /// rules add their dynamic state and chain the state of their steps after
    /// ([`crate::layer::rules::chain`]).
    pub fn new(ci: &PipelineView<'a>, rewrite: &Rewrite) -> Patched<'a> {
        let vertex_input = rewrite
            .layer_attributes
            .as_ref()
            .zip(ci.vertex_input.as_ref())
            .map(|((binding, inputs), state)| {
                let mut copy = VertexInputCopy::new(state);
                copy.add_layer_attributes(*binding, inputs);
                copy
            });
        Patched {
            stages: ci.stages.iter().map(|s| *s.info).collect(),
            temporaries: Vec::new(),
            chain_copies: Vec::new(),
            rasterization: None,
            viewport: None,
            dynamic: None,
            tessellation: None,
            vertex_input,
            no_vertex_input: false,
            input_assembly: None,
        }
    }

    /// The attributes of the copy of `ci`'s vertex-input state (made on first use), for a
    /// rule to edit; [`Patched::relink_vertex_input`] after. `None`: `ci` holds none.
    pub fn vertex_attributes(
        &mut self,
        ci: &PipelineView<'a>,
    ) -> Option<&mut Vec<vk::VertexInputAttributeDescription>> {
        if self.vertex_input.is_none() {
            self.vertex_input = ci.vertex_input.as_ref().map(VertexInputCopy::new);
        }
        self.vertex_input.as_deref_mut().map(|c| &mut c.attributes)
    }

    /// The create info goes down without its (ignored) vertex-input state: the vertex
    /// input is dynamic state.
    pub fn drop_vertex_input(&mut self) {
        self.no_vertex_input = true;
    }

    /// Points the vertex-input state copy at its arrays after an edit.
    pub fn relink_vertex_input(&mut self) {
        if let Some(copy) = self.vertex_input.as_deref_mut() {
            copy.relink();
        }
    }

    /// The copy of `ci`'s rasterization state, made on first use.
    pub fn rasterization(&mut self, ci: &PipelineView<'a>) -> Option<&mut RasterizationCopy<'a>> {
        if self.rasterization.is_none() {
            self.rasterization = ci.rasterization.as_ref().map(|s| RasterizationCopy::new(s));
        }
        self.rasterization.as_deref_mut()
    }

    /// `state` added to the copy of `ci`'s dynamic states.
    pub fn add_dynamic(&mut self, ci: &PipelineView<'a>, state: vk::DynamicState) {
        let copy = self.dynamic.get_or_insert_with(|| {
            Box::new(DynamicCopy {
                state: ci.dynamic_state.copied().unwrap_or_default(),
                states: ci.dynamic.to_vec(),
            })
        });
        copy.states.push(state);
        copy.state.dynamic_state_count = copy.states.len() as u32;
        copy.state.p_dynamic_states = copy.states.as_ptr();
    }

    /// The input-assembly state drawing `topology`, with the layer's own structs taken out
    /// of its chain. `None`: one of the structs in front of them is a struct the layer
    /// cannot copy. A list keeps the application's primitive restart only where lists may
    /// restart (`list_restart`): the layer's indices of GL's primitives hold no restart
    /// (`converted_draws` reads the application's).
    pub fn draw_topology(
        &mut self,
        ci: &PipelineView<'a>,
        topology: vk::PrimitiveTopology,
        list_restart: bool,
    ) -> Option<()> {
        let app = ci.input_assembly.as_ref()?;
        let p_next = app.chain.without_layer_structs(&mut self.chain_copies)?;
        let mut copy = vk::PipelineInputAssemblyStateCreateInfo {
            flags: app.flags,
            topology,
            primitive_restart_enable: match is_list(topology) && !list_restart {
                true => vk::FALSE,
                false => app.primitive_restart_enable,
            },
            ..Default::default()
        };
        copy.p_next = p_next;
        self.input_assembly = Some(Box::new(copy));
        Some(())
    }

    /// Points `info` at the patched stages and state.
    pub fn apply(&self, info: &mut vk::GraphicsPipelineCreateInfo<'a>) {
        info.stage_count = self.stages.len() as u32;
        info.p_stages = self.stages.as_ptr();
        if let Some(copy) = &self.rasterization {
            info.p_rasterization_state = &copy.state;
        }
        if let Some(copy) = &self.viewport {
            info.p_viewport_state = &copy.state;
        }
        if let Some(copy) = &self.dynamic {
            info.p_dynamic_state = &copy.state;
        }
        if let Some(copy) = &self.tessellation {
            info.p_tessellation_state = &copy.state;
        }
        if let Some(copy) = &self.vertex_input {
            info.p_vertex_input_state = &copy.state;
        }
        if self.no_vertex_input {
            info.p_vertex_input_state = std::ptr::null();
        }
        if let Some(copy) = &self.input_assembly {
            info.p_input_assembly_state = &**copy;
        }
    }
}

/// Whether `topology` is a list (or patches): primitive restart needs a feature there.
pub(crate) fn is_list(topology: vk::PrimitiveTopology) -> bool {
    !matches!(
        topology,
        vk::PrimitiveTopology::LINE_STRIP
            | vk::PrimitiveTopology::TRIANGLE_STRIP
            | vk::PrimitiveTopology::TRIANGLE_FAN
            | vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY
            | vk::PrimitiveTopology::TRIANGLE_STRIP_WITH_ADJACENCY
    )
}
