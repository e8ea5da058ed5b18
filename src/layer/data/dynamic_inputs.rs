//! GL state followed where a whole pipeline makes the deciding state dynamic (docs/architecture.md, "Dynamic state followed at record time"),
//! besides the line mode (`data/lines.rs`): GL's current vertex attributes under
//! `VK_DYNAMIC_STATE_VERTEX_INPUT_EXT`, and GL's provoking vertex and clip-space depth under
//! `VK_DYNAMIC_STATE_PROVOKING_VERTEX_MODE_EXT` / `DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT`.
//!
//! - **Vertex input**: the application's `vkCmdSetVertexInputEXT` goes down with the layer's
//!   stride-0 binding and an attribute per Location the bound vertex shader reads and the
//!   application leaves unfed (as the planner adds them to a static vertex-input state);
//!   sent again at bind only where the new pipeline's additions differ. A state whose
//!   bindings use the layer's binding is the application's choice: nothing is added.
//! - **Conventions**: where the layer enabled `VK_EXT_provoking_vertex` /
//!   `VK_EXT_depth_clip_control` behind the application, the application may only set
//!   Vulkan's defaults (`FIRST_VERTEX`, `negativeOneToOne` off: its "no choice"), so the
//!   layer gives the driver GL's (`LAST_VERTEX`, on) for them, and sets them once at the
//!   first bind of such a pipeline in a command buffer. Where the application enabled the
//!   extension itself, its values go down as they are.
//!
//! - **Vertex formats**: a pipeline made again for a vertex input that names attributes the
//!   device cannot read where they are given (`pipelines/vertex_input_variants.rs`): the
//!   kept create info, the variants made, and the one bound in the application's place.
//!
//! The types here are pure bookkeeping; the hooks are in `followed_state`.

use std::sync::Arc;

use ash::vk;

use crate::layer::data::lines::LayerLineState;
use parking_lot::Mutex;

use crate::layer::data::kept_pipeline::KeptPipeline;
use crate::layer::data::vertex_formats::chunk_attributes;
use glsem_spirv::interface::InputKind;
use glsem_spirv::vertex_formats::RefetchVertexInputs;

/// What a whole pipeline with dynamic state needs the layer to follow at bind.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FollowedPipeline {
    /// Its vertex input is dynamic: every Location its vertex shader reads (below the
    /// layer's slots), with the numeric type it reads there.
    pub vertex_inputs: Option<Arc<[(u32, InputKind)]>>,
    /// Its provoking vertex mode / `negativeOneToOne` is dynamic and the layer sets GL's.
    pub conventions: bool,
}

/// A vertex binding of `vkCmdSetVertexInputEXT`: binding, stride, input rate, divisor.
pub type Binding2 = (u32, u32, vk::VertexInputRate, u32);
/// A vertex attribute of `vkCmdSetVertexInputEXT`: location, binding, format, offset.
pub type Attribute2 = (u32, u32, vk::Format, u32);

/// The application's last `vkCmdSetVertexInputEXT`, copied.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AppVertexInput {
    pub bindings: Vec<Binding2>,
    pub attributes: Vec<Attribute2>,
}

/// What the layer follows of dynamic vertex input and conventions in one command buffer.
#[derive(Debug, Clone, Default)]
pub struct DynamicInputState {
    /// The bound pipeline's followed state (`None`: a pipeline the layer does not follow).
    pub bound: Option<Arc<FollowedPipeline>>,
    /// The application's vertex input state since the last bind of a pipeline with a
    /// static one (which makes the dynamic state undefined).
    pub app_input: Option<AppVertexInput>,
    /// The Locations the layer added to what went down last.
    pub sent: Option<Vec<(u32, InputKind)>>,
    /// GL's conventions were set in this command buffer since the last static bind.
    pub conventions_set: bool,
    /// The application's last `vkCmdSetVertexInputEXT` as it gave it, where a kept pipeline
    /// would be made again for it (`app_input` is what the bound pipeline reads of it).
    pub app_raw: Option<AppVertexInput>,
    /// What a kept pipeline would be made again for, for that state.
    pub app_key: Option<VariantKey>,
    /// The bound pipeline, where it may be made again for its vertex input.
    pub variants: Option<(vk::Pipeline, Arc<VertexInputVariants>)>,
    /// The variant bound in its place, whose chunks went down as the vertex input.
    pub variant_bound: Option<Arc<Variant>>,
    /// The vertex shader object made again bound in the application's place
    /// (`gl_primitives::refetched_vertex`).
    pub object_variant_bound: Option<Arc<ObjectVariant>>,
}

/// A pipeline with dynamic vertex input, kept to be made again, and what was made of it.
pub struct VertexInputVariants {
    pub kept: KeptPipeline,
    pub made: MadeAgain<Variant>,
    /// It draws GL's quads under a dynamic polygon mode through pipelines made beside it
    /// (`PolygonModeVariants`), which a pipeline made again would not have: not made again.
    pub polygon_mode_variants: bool,
}

impl std::fmt::Debug for VertexInputVariants {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VertexInputVariants")
            .field("made", &self.made.lock().len())
            .finish_non_exhaustive()
    }
}

/// What was made again for each distinct need (`None`: it could not be made).
pub type MadeAgain<T> = Mutex<Vec<(VariantKey, Option<Arc<T>>)>>;

/// The object made for `key` in `made`, made by `make` on first use (`None` kept too: said
/// once).
pub fn made_once<T>(
    made: &MadeAgain<T>,
    key: &VariantKey,
    make: impl FnOnce() -> Option<T>,
) -> Option<Arc<T>> {
    let mut made = made.lock();
    if let Some((_, object)) = made.iter().find(|(k, _)| k == key) {
        return object.clone();
    }
    let object = make().map(Arc::new);
    made.push((key.clone(), object.clone()));
    object
}

/// A pipeline made for one vertex input: it, and how its vertex shader reads the attributes
/// it refetches.
#[derive(Debug)]
pub struct Variant {
    pub pipeline: vk::Pipeline,
    pub refetch: RefetchVertexInputs,
    /// What the layer sets at bind of GL's line rule, taken at a link (`library_inputs`).
    pub lines: LayerLineState,
}

/// What decides a variant's vertex shader: the attributes it refetches (Location, format,
/// read byte by byte) and the Locations fed as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantKey {
    pub refetched: Vec<(u32, vk::Format, bool)>,
    pub kept: Vec<u32>,
}

/// A vertex shader object made for one vertex input (`gl_primitives::refetched_vertex`):
/// it, and how it reads the attributes it refetches (doubles it reads in place, as the
/// application's object does).
#[derive(Debug)]
pub struct ObjectVariant {
    pub shader: vk::ShaderEXT,
    pub refetch: RefetchVertexInputs,
    /// The other shaders of its linked set, made again with it: bound with it.
    pub linked: Vec<(vk::ShaderStageFlags, vk::ShaderEXT)>,
}

impl Variant {
    /// `app` as the variant's vertex shader reads it ([`read_as`]).
    pub fn vertex_input(&self, app: &AppVertexInput) -> AppVertexInput {
        read_as(&self.refetch, app)
    }
}

/// `app` as a vertex shader rewritten by `refetch` reads it: each refetched attribute
/// replaced by its chunks, on the same binding, at the chunks' offsets and Locations.
pub fn read_as(refetch: &RefetchVertexInputs, app: &AppVertexInput) -> AppVertexInput {
    let mut attributes = Vec::with_capacity(app.attributes.len());
    for &(location, binding, format, offset) in &app.attributes {
        let refetched = refetch.attributes.iter().find(|r| r.location == location);
        match refetched {
            Some(refetched) => attributes.extend(
                chunk_attributes(refetched, offset)
                    .map(|(location, format, offset)| (location, binding, format, offset)),
            ),
            None => attributes.push((location, binding, format, offset)),
        }
    }
    AppVertexInput {
        bindings: app.bindings.clone(),
        attributes,
    }
}

impl DynamicInputState {
    /// The Locations to add to `app` for the bound pipeline: those its vertex shader reads
    /// that `app` does not feed (none where `app` uses the layer's `binding`).
    pub fn additions(&self, app: &AppVertexInput, binding: u32) -> Vec<(u32, InputKind)> {
        let Some(inputs) = self.bound.as_ref().and_then(|b| b.vertex_inputs.as_ref()) else {
            return Vec::new();
        };
        if app.bindings.iter().any(|b| b.0 == binding) {
            return Vec::new();
        }
        inputs
            .iter()
            .filter(|(l, _)| !app.attributes.iter().any(|a| a.0 == *l))
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(inputs: &[(u32, InputKind)]) -> DynamicInputState {
        DynamicInputState {
            bound: Some(Arc::new(FollowedPipeline {
                vertex_inputs: Some(inputs.into()),
                conventions: false,
            })),
            ..Default::default()
        }
    }

    #[test]
    fn unfed_locations_are_added_unless_the_application_uses_the_binding() {
        let s = bound(&[
            (0, InputKind::Float),
            (1, InputKind::Int),
            (3, InputKind::Float),
        ]);
        let app = AppVertexInput {
            bindings: vec![(0, 16, vk::VertexInputRate::VERTEX, 1)],
            attributes: vec![(0, 0, vk::Format::R32G32B32A32_SFLOAT, 0)],
        };
        assert_eq!(
            s.additions(&app, 15),
            vec![(1, InputKind::Int), (3, InputKind::Float)]
        );
        let mut own = app.clone();
        own.bindings.push((15, 0, vk::VertexInputRate::VERTEX, 1));
        assert_eq!(s.additions(&own, 15), vec![]);
        // A pipeline not followed adds nothing.
        assert_eq!(DynamicInputState::default().additions(&app, 15), vec![]);
    }
}
