//! Every vertex format GL reads, layer side: which formats the device lacks for vertex
//! buffers (asked once at `vkCreateDevice`), which attributes of a pipeline's vertex-input
//! state name one (the key's `vertex_formats`), free Locations for the attributes that
//! replace them, and the vertex-input state they go down with (`rewrite/patched.rs`).
//! The vertex shader's rewrite is `glsem_spirv::vertex_formats`.

use ash::vk;

use crate::layer::data::cache::Outcome;
use crate::layer::loader::registry::Dispatchable;
use crate::layer::loader::state::{DeviceData, InstanceData};
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::pipeline_info::holds_vertex_input;
use crate::layer::rewrite::patched::Patched;
use crate::layer::rewrite::run::Run;
use crate::layer::rules::LayerStep;
use crate::layer::support::error::PlanError;
use glsem_spirv::semantics::{Semantic, Stage, Step};
use glsem_spirv::vertex_formats::{
    assign_locations, occupied_input_locations, Chunk, ChunkKind, Layout, Numeric,
    RefetchVertexInputs, RefetchedAttribute, VertexFormat,
};

use vk::Format as F;
use Numeric as N;

/// The formats GL can name for an attribute (`glVertexAttrib{,I,L}Pointer`), as Vulkan
/// spells them, with what they read: [`PLAIN`], then [`PACKED`] (4 components of 8 bits
/// for `B8G8R8A8`, in one 32-bit word for the others).
const FORMATS: [(vk::Format, Numeric, u32, u32); 68 + PACKED.len()] = {
    let mut all = [(F::UNDEFINED, N::Uint, 0, 0); 68 + PACKED.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = match i < 68 {
            true => PLAIN[i],
            false => {
                let (format, numeric, layout) = PACKED[i - 68];
                let bits = match layout {
                    Layout::Bgra => 8,
                    _ => 32,
                };
                (format, numeric, bits, 4)
            }
        };
        i += 1;
    }
    all
};

/// The formats of components in order, `bits` each.
const PLAIN: [(vk::Format, Numeric, u32, u32); 68] = [
    (F::R8_UNORM, N::Unorm, 8, 1),
    (F::R8G8_UNORM, N::Unorm, 8, 2),
    (F::R8G8B8_UNORM, N::Unorm, 8, 3),
    (F::R8G8B8A8_UNORM, N::Unorm, 8, 4),
    (F::R8_SNORM, N::Snorm, 8, 1),
    (F::R8G8_SNORM, N::Snorm, 8, 2),
    (F::R8G8B8_SNORM, N::Snorm, 8, 3),
    (F::R8G8B8A8_SNORM, N::Snorm, 8, 4),
    (F::R8_USCALED, N::Uscaled, 8, 1),
    (F::R8G8_USCALED, N::Uscaled, 8, 2),
    (F::R8G8B8_USCALED, N::Uscaled, 8, 3),
    (F::R8G8B8A8_USCALED, N::Uscaled, 8, 4),
    (F::R8_SSCALED, N::Sscaled, 8, 1),
    (F::R8G8_SSCALED, N::Sscaled, 8, 2),
    (F::R8G8B8_SSCALED, N::Sscaled, 8, 3),
    (F::R8G8B8A8_SSCALED, N::Sscaled, 8, 4),
    (F::R8_UINT, N::Uint, 8, 1),
    (F::R8G8_UINT, N::Uint, 8, 2),
    (F::R8G8B8_UINT, N::Uint, 8, 3),
    (F::R8G8B8A8_UINT, N::Uint, 8, 4),
    (F::R8_SINT, N::Sint, 8, 1),
    (F::R8G8_SINT, N::Sint, 8, 2),
    (F::R8G8B8_SINT, N::Sint, 8, 3),
    (F::R8G8B8A8_SINT, N::Sint, 8, 4),
    (F::R16_UNORM, N::Unorm, 16, 1),
    (F::R16G16_UNORM, N::Unorm, 16, 2),
    (F::R16G16B16_UNORM, N::Unorm, 16, 3),
    (F::R16G16B16A16_UNORM, N::Unorm, 16, 4),
    (F::R16_SNORM, N::Snorm, 16, 1),
    (F::R16G16_SNORM, N::Snorm, 16, 2),
    (F::R16G16B16_SNORM, N::Snorm, 16, 3),
    (F::R16G16B16A16_SNORM, N::Snorm, 16, 4),
    (F::R16_USCALED, N::Uscaled, 16, 1),
    (F::R16G16_USCALED, N::Uscaled, 16, 2),
    (F::R16G16B16_USCALED, N::Uscaled, 16, 3),
    (F::R16G16B16A16_USCALED, N::Uscaled, 16, 4),
    (F::R16_SSCALED, N::Sscaled, 16, 1),
    (F::R16G16_SSCALED, N::Sscaled, 16, 2),
    (F::R16G16B16_SSCALED, N::Sscaled, 16, 3),
    (F::R16G16B16A16_SSCALED, N::Sscaled, 16, 4),
    (F::R16_UINT, N::Uint, 16, 1),
    (F::R16G16_UINT, N::Uint, 16, 2),
    (F::R16G16B16_UINT, N::Uint, 16, 3),
    (F::R16G16B16A16_UINT, N::Uint, 16, 4),
    (F::R16_SINT, N::Sint, 16, 1),
    (F::R16G16_SINT, N::Sint, 16, 2),
    (F::R16G16B16_SINT, N::Sint, 16, 3),
    (F::R16G16B16A16_SINT, N::Sint, 16, 4),
    (F::R16_SFLOAT, N::Float, 16, 1),
    (F::R16G16_SFLOAT, N::Float, 16, 2),
    (F::R16G16B16_SFLOAT, N::Float, 16, 3),
    (F::R16G16B16A16_SFLOAT, N::Float, 16, 4),
    (F::R32_UINT, N::Uint, 32, 1),
    (F::R32G32_UINT, N::Uint, 32, 2),
    (F::R32G32B32_UINT, N::Uint, 32, 3),
    (F::R32G32B32A32_UINT, N::Uint, 32, 4),
    (F::R32_SINT, N::Sint, 32, 1),
    (F::R32G32_SINT, N::Sint, 32, 2),
    (F::R32G32B32_SINT, N::Sint, 32, 3),
    (F::R32G32B32A32_SINT, N::Sint, 32, 4),
    (F::R32_SFLOAT, N::Float, 32, 1),
    (F::R32G32_SFLOAT, N::Float, 32, 2),
    (F::R32G32B32_SFLOAT, N::Float, 32, 3),
    (F::R32G32B32A32_SFLOAT, N::Float, 32, 4),
    (F::R64_SFLOAT, N::Float, 64, 1),
    (F::R64G64_SFLOAT, N::Float, 64, 2),
    (F::R64G64B64_SFLOAT, N::Float, 64, 3),
    (F::R64G64B64A64_SFLOAT, N::Float, 64, 4),
];

/// The formats of another [`Layout`] than GL's component order (`GL_BGRA` sizes, the
/// `2_10_10_10_REV` types).
const PACKED: [(vk::Format, Numeric, Layout); 13] = [
    (F::B8G8R8A8_UNORM, N::Unorm, Layout::Bgra),
    (F::A2B10G10R10_UNORM_PACK32, N::Unorm, Layout::Packed2101010),
    (F::A2B10G10R10_SNORM_PACK32, N::Snorm, Layout::Packed2101010),
    (
        F::A2B10G10R10_USCALED_PACK32,
        N::Uscaled,
        Layout::Packed2101010,
    ),
    (
        F::A2B10G10R10_SSCALED_PACK32,
        N::Sscaled,
        Layout::Packed2101010,
    ),
    (F::A2B10G10R10_UINT_PACK32, N::Uint, Layout::Packed2101010),
    (F::A2B10G10R10_SINT_PACK32, N::Sint, Layout::Packed2101010),
    (
        F::A2R10G10B10_UNORM_PACK32,
        N::Unorm,
        Layout::Packed2101010Bgra,
    ),
    (
        F::A2R10G10B10_SNORM_PACK32,
        N::Snorm,
        Layout::Packed2101010Bgra,
    ),
    (
        F::A2R10G10B10_USCALED_PACK32,
        N::Uscaled,
        Layout::Packed2101010Bgra,
    ),
    (
        F::A2R10G10B10_SSCALED_PACK32,
        N::Sscaled,
        Layout::Packed2101010Bgra,
    ),
    (
        F::A2R10G10B10_UINT_PACK32,
        N::Uint,
        Layout::Packed2101010Bgra,
    ),
    (
        F::A2R10G10B10_SINT_PACK32,
        N::Sint,
        Layout::Packed2101010Bgra,
    ),
];

/// The [`FORMATS`] a device lacks for vertex buffers, one bit per entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MissingVertexFormats(u128);

impl MissingVertexFormats {
    fn contains(self, index: usize) -> bool {
        self.0 & (1 << index) != 0
    }

    fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// What `format` reads, where GL can name it.
pub(crate) fn vertex_format(format: vk::Format) -> Option<(usize, VertexFormat)> {
    FORMATS
        .iter()
        .position(|f| f.0 == format)
        .map(|i| (i, describe(i)))
}

fn describe(i: usize) -> VertexFormat {
    let (_, numeric, bits, components) = FORMATS[i];
    VertexFormat {
        numeric,
        bits,
        components,
        layout: match i.checked_sub(PLAIN.len()) {
            Some(p) => PACKED[p].2,
            None => Layout::Plain,
        },
    }
}

/// The Vulkan format of a [`VertexFormat`] (one of [`FORMATS`]).
fn vk_format(format: &VertexFormat) -> vk::Format {
    FORMATS
        .iter()
        .enumerate()
        .find(|&(i, _)| describe(i) == *format)
        .map_or(vk::Format::UNDEFINED, |(_, f)| f.0)
}

/// The mandatory format a chunk is fetched with.
fn chunk_format(chunk: &Chunk) -> vk::Format {
    let numeric = match chunk.kind {
        ChunkKind::Uint => N::Uint,
        ChunkKind::Sint => N::Sint,
        ChunkKind::Float => N::Float,
    };
    vk_format(&VertexFormat {
        numeric,
        bits: chunk.unit_bits,
        components: chunk.units,
        layout: Layout::Plain,
    })
}

/// `vkCreateDevice`: the [`FORMATS`] `physical_device` cannot read from vertex buffers.
pub(crate) fn missing_vertex_formats(
    inst: &InstanceData,
    physical_device: Dispatchable<vk::PhysicalDevice>,
) -> MissingVertexFormats {
    let Some(get) = inst.table.get_physical_device_format_properties else {
        return MissingVertexFormats::default();
    };
    let mut missing = 0u128;
    for (i, &(format, ..)) in FORMATS.iter().enumerate() {
        let mut props = vk::FormatProperties::default();
        // SAFETY: the next layer's command on a live physical device (a `Dispatchable`) of
        // `inst`, the instance its dispatch key found.
        unsafe { get(physical_device.handle(), format, &mut props) };
        if !props
            .buffer_features
            .contains(vk::FormatFeatureFlags::VERTEX_BUFFER)
        {
            missing |= 1 << i;
        }
    }
    MissingVertexFormats(missing)
}

/// The key's `vertex_formats`: the attributes of `ci`'s vertex-input state in formats the
/// device lacks (with `debug_force_vertex_formats`, every one the layer can read).
pub(crate) fn refetched_attributes(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
) -> Option<RefetchVertexInputs> {
    if !dev.settings.semantics.contains(Semantic::VertexFormats) || !holds_vertex_input(ci) {
        return None;
    }
    let force = dev.settings.debug_force_vertex_formats;
    // The fast path: a device with every format (the common case) allocates nothing.
    if dev.missing_vertex_formats.is_empty() && !force {
        return None;
    }
    let input = ci.vertex_input.as_ref()?;
    let refetched = |a: &vk::VertexInputAttributeDescription| {
        vertex_format(a.format).filter(|&(i, _)| force || dev.missing_vertex_formats.contains(i))
    };
    if !input.attributes.iter().any(|a| refetched(a).is_some()) {
        return None;
    }
    let mut attributes = Vec::new();
    let mut kept = Vec::new();
    for a in input.attributes {
        match refetched(a) {
            Some((_, format)) => {
                let last = format.chunks().last().map_or(0, |c| c.offset);
                attributes.push(RefetchedAttribute {
                    location: a.location,
                    format,
                    offsets_fit: a.offset.saturating_add(last)
                        <= dev.limits.max_vertex_input_attribute_offset,
                    fetch_locations: Vec::new(),
                });
            }
            _ => kept.push(a.location),
        }
    }
    Some(RefetchVertexInputs { attributes, kept })
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
            return Ok(());
        };
        let rebuilt: Vec<u32> = self.attributes.iter().map(|a| a.location).collect();
        let mut taken = occupied_input_locations(&words, &entry, &rebuilt).unwrap_or_default();
        taken.extend(&self.kept);
        let mut step = self.clone();
        let max = run.dev.limits.max_vertex_input_attributes;
        if let Err(i) = assign_locations(&mut step.attributes, &taken, max) {
            let (location, format) = name(&step.attributes[i]);
            return Err(PlanError::VertexFormatNoRoom { location, format });
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
            let chunks = refetched.format.chunks();
            attributes.extend(chunks.iter().zip(&refetched.fetch_locations).map(
                |(chunk, &location)| vk::VertexInputAttributeDescription {
                    location,
                    binding: app.binding,
                    format: chunk_format(chunk),
                    offset: app.offset + chunk.offset,
                },
            ));
        }
        patched.relink_vertex_input();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_and_chunk_has_a_vulkan_format() {
        for (i, &(vk, ..)) in FORMATS.iter().enumerate() {
            let format = describe(i);
            assert_eq!(vk_format(&format), vk);
            for chunk in format.chunks() {
                assert_ne!(chunk_format(&chunk), vk::Format::UNDEFINED, "{format:?}");
            }
        }
    }
}
