//! The vertex formats GL can name and what each reads (`glsem_spirv::vertex_formats`'s
//! `VertexFormat`), and the set a device lacks for vertex buffers: what the `vertex_formats`
//! rule (`rules/vertex_formats.rs`) and the key (`objects/pipeline_info.rs`) read.

use ash::vk;

use glsem_spirv::vertex_formats::{
    Chunk, ChunkKind, Layout, Numeric, RefetchedAttribute, VertexFormat,
};

use vk::Format as F;
use Numeric as N;

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
/// `2_10_10_10_REV` types): `GL_BGRA`'s bytes, then [`PACKED_2101010`]'s formats in GL's
/// component order, then in `GL_BGRA`'s.
const PACKED: [(vk::Format, Numeric, Layout); 13] = {
    let mut packed = [(F::B8G8R8A8_UNORM, N::Unorm, Layout::Bgra); 13];
    let mut i = 0;
    while i < PACKED_2101010.len() {
        let (numeric, rgba, bgra) = PACKED_2101010[i];
        packed[1 + i] = (rgba, numeric, Layout::Packed2101010);
        packed[1 + PACKED_2101010.len() + i] = (bgra, numeric, Layout::Packed2101010Bgra);
        i += 1;
    }
    packed
};

/// The `2_10_10_10_REV` formats by numeric type: in GL's component order, and in
/// `GL_BGRA`'s.
const PACKED_2101010: [(Numeric, vk::Format, vk::Format); 6] = [
    (
        N::Unorm,
        F::A2B10G10R10_UNORM_PACK32,
        F::A2R10G10B10_UNORM_PACK32,
    ),
    (
        N::Snorm,
        F::A2B10G10R10_SNORM_PACK32,
        F::A2R10G10B10_SNORM_PACK32,
    ),
    (
        N::Uscaled,
        F::A2B10G10R10_USCALED_PACK32,
        F::A2R10G10B10_USCALED_PACK32,
    ),
    (
        N::Sscaled,
        F::A2B10G10R10_SSCALED_PACK32,
        F::A2R10G10B10_SSCALED_PACK32,
    ),
    (
        N::Uint,
        F::A2B10G10R10_UINT_PACK32,
        F::A2R10G10B10_UINT_PACK32,
    ),
    (
        N::Sint,
        F::A2B10G10R10_SINT_PACK32,
        F::A2R10G10B10_SINT_PACK32,
    ),
];

/// The [`FORMATS`] a device lacks for vertex buffers, one bit per entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MissingVertexFormats(u128);

impl MissingVertexFormats {
    /// The [`FORMATS`] for which `lacks` holds.
    pub fn of(lacks: impl Fn(vk::Format) -> bool) -> Self {
        let mut missing = 0u128;
        for (i, &(format, ..)) in FORMATS.iter().enumerate() {
            if lacks(format) {
                missing |= 1 << i;
            }
        }
        MissingVertexFormats(missing)
    }
}

impl MissingVertexFormats {
    pub fn contains(self, index: usize) -> bool {
        self.0 & (1 << index) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// [`FORMATS`]' index + 1 by `VkFormat` value (0: not one of them); every one is below
/// `R64G64B64A64_SFLOAT` + 1, so that a lookup is one load (the draw and bind hooks ask).
const INDEX: [u8; 122] = {
    let mut index = [0u8; 122];
    let mut i = 0;
    while i < FORMATS.len() {
        index[FORMATS[i].0.as_raw() as usize] = i as u8 + 1;
        i += 1;
    }
    index
};

/// What `format` reads, where GL can name it.
pub(crate) fn vertex_format(format: vk::Format) -> Option<(usize, VertexFormat)> {
    let at = usize::try_from(format.as_raw()).ok()?;
    let i = usize::from(*INDEX.get(at)?).checked_sub(1)?;
    Some((i, describe(i)))
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
pub(crate) fn vk_format(format: &VertexFormat) -> vk::Format {
    FORMATS
        .iter()
        .enumerate()
        .find(|&(i, _)| describe(i) == *format)
        .map_or(vk::Format::UNDEFINED, |(_, f)| f.0)
}

/// The mandatory format a chunk is fetched with.
pub(crate) fn chunk_format(chunk: &Chunk) -> vk::Format {
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

/// The attributes that read `refetched`, given at `offset`: each chunk's Location, format
/// and offset (on the application's binding).
pub(crate) fn chunk_attributes(
    refetched: &RefetchedAttribute,
    offset: u32,
) -> impl Iterator<Item = (u32, vk::Format, u32)> + '_ {
    refetched
        .fetched_chunks()
        .into_iter()
        .zip(&refetched.fetch_locations)
        .map(move |(chunk, &location)| {
            let at = refetched.fetch_offset(offset) + chunk.offset;
            (location, chunk_format(&chunk), at)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_found_by_its_value_and_no_other_is() {
        for (i, &(format, ..)) in FORMATS.iter().enumerate() {
            assert_eq!(vertex_format(format).map(|(at, _)| at), Some(i));
        }
        for other in [
            F::UNDEFINED,
            F::D32_SFLOAT,
            F::BC1_RGB_UNORM_BLOCK,
            F::from_raw(-1),
        ] {
            assert!(vertex_format(other).is_none(), "{other:?}");
        }
    }

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
