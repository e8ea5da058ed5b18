//! Every vertex format GL reads, on devices that lack some for vertex buffers.
//!
//! GL: an attribute may be any layout `glVertexAttrib*Pointer` names: 8-, 16-, 32- or 64-bit
//! components, 1 to 4 of them, normalized, scaled (converted to float), integer or float
//! (GL 4.6 §10.3.5, conversions §2.3.5). Vulkan makes most of those formats optional for
//! vertex buffers (`VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT`): lavapipe has no `R64*`,
//! SwiftShader no `R64*` and no three-component 8- and 16-bit ones.
//!
//! The layer replaces such an attribute with attributes of formats every device has
//! ([`VertexFormat::chunks`]: `R8`/`R16` × 1, 2 or 4 components, `R32` × 1 to 4, integer,
//! or `R16*_SFLOAT` for halves; a packed `2_10_10_10` word as one `R32_UINT`) that read the
//! same bytes of the same binding, each at a free Location; the pass rebuilds the shader's input from them with GL's conversion:
//! unsigned normalized `c / (2^b − 1)`, signed normalized `max(c / (2^(b−1) − 1), −1)`,
//! scaled `float(c)`, 32-bit floats and doubles bit for bit (`OpBitcast`, a double from a
//! `uvec2`, low word first), and GL's (0, 0, 0, 1) for the components the format lacks.

use spirv::{Decoration, ExecutionModel, Op, StorageClass};

use super::demote::demote_to_private;
use super::error::{PassError, PassResult};
use super::layout::location_slots;
use super::module::{
    entry_point_with_interface, Editor, Module, Type, INTERFACE_LISTS_ALL_GLOBALS,
};
use super::rule::{Rule, Semantic, SplitInterface, Stage};

/// How a vertex format's components read, as GL names the conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Numeric {
    /// Unsigned normalized: `c / (2^b − 1)`.
    Unorm,
    /// Signed normalized: `max(c / (2^(b−1) − 1), −1)`.
    Snorm,
    /// Unsigned integer converted to float.
    Uscaled,
    /// Signed integer converted to float.
    Sscaled,
    /// Unsigned integer (`glVertexAttribIPointer`).
    Uint,
    /// Signed integer.
    Sint,
    /// IEEE float of the format's width (16, 32 or 64 bits).
    Float,
}

/// How a format's components lie in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// In order, `bits` bits each.
    #[default]
    Plain,
    /// Four bytes, blue first (`B8G8R8A8`: GL's `GL_BGRA` size).
    Bgra,
    /// One 32-bit word, x in bits 0–9, y 10–19, z 20–29, w 30–31 (`A2B10G10R10_*_PACK32`:
    /// GL's `GL_*INT_2_10_10_10_REV`).
    Packed2101010,
    /// As [`Layout::Packed2101010`], z in bits 0–9 and x in 20–29 (`A2R10G10B10_*_PACK32`:
    /// with GL's `GL_BGRA` size).
    Packed2101010Bgra,
}

/// A vertex format as GL sees it: `components` components of `bits` bits each (a packed
/// layout: 4 components in one 32-bit word, `bits` 32), read as `numeric`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VertexFormat {
    pub numeric: Numeric,
    pub bits: u32,
    pub components: u32,
    pub layout: Layout,
}

/// The numeric type of one attribute that fetches part of a [`VertexFormat`]'s bytes (the
/// format's `UINT`, `SINT` or `SFLOAT` variant, and the 32-bit input type it feeds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    Uint,
    Sint,
    Float,
}

/// One attribute of a replacement: `units` components of `unit_bits` bits, `offset` bytes
/// past the replaced attribute's offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chunk {
    pub unit_bits: u32,
    pub units: u32,
    pub kind: ChunkKind,
    pub offset: u32,
}

impl VertexFormat {
    /// Bytes one element takes.
    pub fn size(&self) -> u32 {
        match self.layout {
            Layout::Packed2101010 | Layout::Packed2101010Bgra => 4,
            _ => self.bits / 8 * self.components,
        }
    }

    /// Where component `c` lies: the fetched unit it is in, its first bit there and its
    /// width.
    fn component_bits(&self, c: u32) -> (u32, u32, u32) {
        let packed = |x: u32| match c {
            0 => (0, x, 10),
            1 => (0, 10, 10),
            2 => (0, 20 - x, 10),
            _ => (0, 30, 2),
        };
        match self.layout {
            Layout::Plain => (c, 0, self.bits),
            Layout::Bgra => ([2, 1, 0, 3][c as usize], 0, 8),
            Layout::Packed2101010 => packed(0),
            Layout::Packed2101010Bgra => packed(20),
        }
    }

    /// Whether [`VertexFormat::piece_chunks`] can read it: not halves (whose conversion is the
    /// fetch's own).
    pub fn readable_as_bytes(&self) -> bool {
        !(self.numeric == Numeric::Float && self.bits == 16)
    }

    /// The element's bytes fetched as unsigned pieces of `bits` (8 or 16), from `lead`
    /// bytes before it (the chunks' offsets count from there) to the end of the last piece,
    /// at most four an attribute (`R8G8B8A8_UINT`, `R8G8_UINT`, `R8_UINT`;
    /// `R16G16B16A16_UINT`, …): an 8-bit format has no alignment, a 16-bit one two bytes'.
    pub fn piece_chunks(&self, bits: u32, lead: u32) -> Vec<Chunk> {
        let piece = bits / 8;
        let mut chunks = Vec::new();
        let mut offset = 0;
        let size = (lead + self.size()).next_multiple_of(piece);
        while offset < size {
            let units = match (size - offset) / piece {
                4.. => 4,
                3 | 2 => 2,
                _ => 1,
            };
            chunks.push(Chunk {
                unit_bits: bits,
                units,
                kind: ChunkKind::Uint,
                offset,
            });
            offset += units * piece;
        }
        chunks
    }

    /// Three 8- or 16-bit components read as one attribute of four, in a format every
    /// Vulkan device has (`R8G8B8A8_*`, `R16G16B16A16_*`), where the reader allows a fetch
    /// one unit past the element; `None` for other formats.
    pub fn widened_chunk(&self) -> Option<Chunk> {
        let three_small = self.components == 3 && self.bits < 32 && self.layout == Layout::Plain;
        three_small.then(|| Chunk {
            units: 4,
            ..self.chunks()[0]
        })
    }

    /// The attributes that read the format's bytes in formats every Vulkan device has for
    /// vertex buffers, in order: 64-bit components as two 32-bit words, three 8- or 16-bit
    /// components as two and one (there is no mandatory three-component 8- or 16-bit
    /// format), at most four components each. No attribute reads past the element.
    pub fn chunks(&self) -> Vec<Chunk> {
        let unit_bits = self.bits.min(32);
        let mut left = match self.layout {
            Layout::Packed2101010 | Layout::Packed2101010Bgra => 1,
            _ => self.components * (self.bits / unit_bits),
        };
        let kind = match self.numeric {
            Numeric::Float if self.bits == 16 => ChunkKind::Float,
            Numeric::Snorm | Numeric::Sscaled | Numeric::Sint if self.bits < 32 => ChunkKind::Sint,
            _ => ChunkKind::Uint,
        };
        let mut chunks = Vec::new();
        let mut offset = 0;
        while left > 0 {
            let units = match left {
                4.. => 4,
                3 if unit_bits < 32 => 2,
                n => n,
            };
            chunks.push(Chunk {
                unit_bits,
                units,
                kind,
                offset,
            });
            offset += units * unit_bits / 8;
            left -= units;
        }
        chunks
    }
}

/// One attribute the layer replaces: the application's Location and format, and the
/// Locations of its [`VertexFormat::chunks`] (assigned by the layer, [`assign_locations`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RefetchedAttribute {
    pub location: u32,
    pub format: VertexFormat,
    /// The chunks' offsets stay within the device's `maxVertexInputAttributeOffset`.
    pub offsets_fit: bool,
    pub fetch_locations: Vec<u32>,
    pub fetch: Fetch,
}

/// How the attributes that replace one read its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fetch {
    /// Its format's [`VertexFormat::chunks`].
    Chunks,
    /// Three 8- or 16-bit components read as four, one attribute at one Location
    /// ([`VertexFormat::widened_chunk`]): the unit past the element lies inside another
    /// attribute of the binding, so every buffer that holds the vertices holds it.
    Widened,
    /// In unsigned pieces of `bits`, 8 or 16 ([`VertexFormat::piece_chunks`]): the
    /// attribute's offset or stride is not aligned for its components, nor for 32-bit words
    /// (GL reads any, Vulkan wants them aligned: VUID-vkCmdDraw-None-02721). 16-bit pieces
    /// start `lead` (0 or 1) bytes before the element, at an even offset, and may end a
    /// byte past it; the attributes read from there, whose offsets count from there.
    Pieces { bits: u32, lead: u32 },
}

impl RefetchedAttribute {
    /// The attributes that fetch it ([`Fetch`]).
    pub fn fetched_chunks(&self) -> Vec<Chunk> {
        match self.fetch {
            Fetch::Chunks => self.format.chunks(),
            Fetch::Widened => self.format.widened_chunk().into_iter().collect(),
            Fetch::Pieces { bits, lead } => self.format.piece_chunks(bits, lead),
        }
    }

    /// Where its fetches start: `offset`, the application's, less the lead of 16-bit pieces.
    pub fn fetch_offset(&self, offset: u32) -> u32 {
        match self.fetch {
            Fetch::Pieces { lead, .. } => offset - lead,
            _ => offset,
        }
    }
}

/// The step: the vertex shader's inputs at these attributes' Locations are rebuilt, with
/// GL's value, from the attributes that replace them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RefetchVertexInputs {
    pub attributes: Vec<RefetchedAttribute>,
    /// The Locations the application's other attributes feed.
    pub kept: Vec<u32>,
}

impl Rule for RefetchVertexInputs {
    const SEMANTIC: Semantic = Semantic::VertexFormats;
    const STAGE: Option<Stage> = Some(Stage::Vertex);

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        let locations: Vec<String> = self
            .attributes
            .iter()
            .map(|a| a.location.to_string())
            .collect();
        format!(
            "vertex attributes at Locations {} are read in formats the device has",
            locations.join(", ")
        )
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        refetch_vertex_inputs(words, entry, &self.attributes)
    }
}

/// Every Location an input of vertex entry point `entry` occupies (each Location of a
/// `dvec3`, a matrix, an array), sorted, but for the inputs at `rebuilt` Locations (they
/// become `Private`: their Locations are free for the fetches).
pub fn occupied_input_locations(
    words: &[u32],
    entry: &str,
    rebuilt: &[u32],
) -> Result<Vec<u32>, PassError> {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Vertex) else {
        return Ok(Vec::new());
    };
    let mut taken = Vec::new();
    for &var in &ep.interface {
        let Some((StorageClass::Input, pointee)) = m.variable(var) else {
            continue;
        };
        if let Some(&[location, ..]) = m.decoration(var, Decoration::Location) {
            if rebuilt.contains(&location) {
                continue;
            }
            let slots = location_slots(&m, pointee).unwrap_or(1);
            taken.extend(location..location + slots);
        }
    }
    taken.sort_unstable();
    taken.dedup();
    Ok(taken)
}

/// The parts of a vertex input of type `pointee` that attributes feed, each with its
/// Location past the input's and its type: a scalar or vector is one; a matrix one per
/// column, an array one per element (an array of matrices: per column of each), each at
/// the Locations its column or element takes (a `dvec3` column: two).
struct InputParts {
    parts: Vec<(u32, u32)>,
    /// An array of matrices: its element type and the parts (columns) each takes.
    matrices: Option<(u32, u32)>,
}

/// [`InputParts`] of `pointee` (`None`: a type no attribute feeds, such as a struct).
fn input_parts(m: &Module<'_>, pointee: u32) -> Option<InputParts> {
    let leaf = |ty: u32| {
        matches!(
            m.type_of(ty),
            Some(Type::Float { .. } | Type::Int { .. } | Type::Vector { .. })
        )
    };
    if leaf(pointee) {
        return Some(InputParts {
            parts: vec![(0, pointee)],
            matrices: None,
        });
    }
    let columns_of = |ty: u32| match m.type_of(ty)? {
        &Type::Matrix { column, columns } if leaf(column) => {
            Some((column, columns, location_slots(m, column)?))
        }
        _ => None,
    };
    if let Some((column, columns, slots)) = columns_of(pointee) {
        return Some(InputParts {
            parts: (0..columns).map(|c| (c * slots, column)).collect(),
            matrices: None,
        });
    }
    let &Type::Array { element, length } = m.type_of(pointee)? else {
        return None;
    };
    let length = m.constant_u32(length)?;
    let element_slots = location_slots(m, element)?;
    if leaf(element) {
        return Some(InputParts {
            parts: (0..length).map(|i| (i * element_slots, element)).collect(),
            matrices: None,
        });
    }
    let (column, columns, slots) = columns_of(element)?;
    Some(InputParts {
        parts: (0..length)
            .flat_map(|i| (0..columns).map(move |c| (i * element_slots + c * slots, column)))
            .collect(),
        matrices: Some((element, columns)),
    })
}

/// The 64-bit float inputs (`double`, `dvec2`–`dvec4`) of vertex entry point `entry`, by
/// Location, with the format GL feeds them in (`glVertexAttribLPointer`: doubles of as many
/// components). Where the vertex input is not in the pipeline (dynamic, a vertex-input
/// library), a device without 64-bit vertex formats reads them in place
/// ([`in_place_double_inputs`]): each takes as many Locations as its chunks.
pub fn double_inputs(words: &[u32], entry: &str) -> Result<Vec<(u32, VertexFormat)>, PassError> {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Vertex) else {
        return Ok(Vec::new());
    };
    let mut doubles = Vec::new();
    for &var in &ep.interface {
        let Some((StorageClass::Input, pointee)) = m.variable(var) else {
            continue;
        };
        let Some(&[location, ..]) = m.decoration(var, Decoration::Location) else {
            continue;
        };
        // A matrix or array of doubles: one attribute per column or element.
        let parts = input_parts(&m, pointee).map_or_else(Vec::new, |p| p.parts);
        for (offset, part) in parts {
            let (component, components) = match m.type_of(part) {
                Some(&Type::Vector { component, count }) => (component, count),
                Some(_) => (part, 1),
                None => continue,
            };
            if let Some(Type::Float { width: 64 }) = m.type_of(component) {
                let format = VertexFormat {
                    numeric: Numeric::Float,
                    bits: 64,
                    components,
                    layout: Layout::Plain,
                };
                doubles.push((location + offset, format));
            }
        }
    }
    doubles.sort_by_key(|&(location, _)| location);
    Ok(doubles)
}

/// The step that reads `doubles` ([`double_inputs`]) in place: each chunk at the next of
/// the Locations the input takes (a `dvec3` or `dvec4`: two; the others one), so that a
/// vertex-input state made apart from the shader (`vkCmdSetVertexInputEXT`, a vertex-input
/// library) feeds it by the same rule without knowing it ([`VertexFormat::chunks`]).
pub fn in_place_double_inputs(doubles: &[(u32, VertexFormat)]) -> RefetchVertexInputs {
    RefetchVertexInputs {
        attributes: doubles
            .iter()
            .map(|&(location, format)| RefetchedAttribute {
                fetch: Fetch::Chunks,
                location,
                format,
                offsets_fit: true,
                fetch_locations: (location..).take(format.chunks().len()).collect(),
            })
            .collect(),
        kept: Vec::new(),
    }
}

/// Gives each attribute's chunks free Locations: below `max` (the device's
/// `maxVertexInputAttributes`), outside `taken`, in order. `Err(i)`: no room for
/// `attributes[i]`.
pub fn assign_locations(
    attributes: &mut [RefetchedAttribute],
    taken: &[u32],
    max: u32,
) -> Result<(), usize> {
    let mut free = (0..max).filter(|l| !taken.contains(l));
    for (i, attribute) in attributes.iter_mut().enumerate() {
        let n = attribute.fetched_chunks().len();
        attribute.fetch_locations = free.by_ref().take(n).collect();
        if attribute.fetch_locations.len() != n {
            return Err(i);
        }
    }
    Ok(())
}

/// The scalar types the pass works in.
struct Scalars {
    u32: u32,
    i32: u32,
    f32: u32,
}

/// Rebuilds the inputs of vertex entry point `entry` at the `attributes`' Locations from
/// new inputs at their fetch Locations, with GL's conversion. `Ok(None)` when no input
/// reads them.
pub fn refetch_vertex_inputs(
    words: &[u32],
    entry: &str,
    attributes: &[RefetchedAttribute],
) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Vertex) else {
        return Ok(None);
    };
    let inputs: Vec<(u32, u32, u32)> = ep
        .interface
        .iter()
        .filter_map(|&var| {
            let (StorageClass::Input, pointee) = m.variable(var)? else {
                return None;
            };
            let &[location, ..] = m.decoration(var, Decoration::Location)? else {
                return None;
            };
            Some((var, pointee, location))
        })
        .collect();
    let mut e = Editor::new(&m);
    let s = Scalars {
        u32: e.type_int(32, false),
        i32: e.type_int(32, true),
        f32: e.type_float(32),
    };
    let mut code = Vec::new();
    let mut demoted = Vec::new();
    let mut added = Vec::new();
    for &(var, pointee, location) in &inputs {
        let Some(InputParts { parts, matrices }) = input_parts(&m, pointee) else {
            continue;
        };
        let fed = |offset: u32| attributes.iter().find(|a| a.location == location + offset);
        if !parts.iter().any(|&(offset, _)| fed(offset).is_some()) {
            continue;
        }
        if m.decoration(var, Decoration::Component).is_some() {
            return Err(PassError::Unsupported(format!(
                "the vertex input at Location {location} takes a Component"
            )));
        }
        // Each part (the input itself, a matrix column, an array element) rebuilt from its
        // attribute's chunks, or read as it was where its attribute is not replaced.
        let mut values = Vec::new();
        for &(offset, part) in &parts {
            let Some(attribute) = fed(offset) else {
                let ty = part;
                let kept = e.add_variable(StorageClass::Input, ty);
                e.decorate(kept, Decoration::Location, &[location + offset]);
                added.push(kept);
                values.push(e.load(&mut code, ty, kept));
                continue;
            };
            let chunks = attribute.fetched_chunks();
            if chunks.len() != attribute.fetch_locations.len() {
                return Err(PassError::Unsupported(format!(
                    "the attribute at Location {} has no Locations to be fetched from",
                    attribute.location
                )));
            }
            let mut units = Vec::new();
            for (chunk, &at) in chunks.iter().zip(&attribute.fetch_locations) {
                let scalar = match chunk.kind {
                    ChunkKind::Uint => s.u32,
                    ChunkKind::Sint => s.i32,
                    ChunkKind::Float => s.f32,
                };
                let ty = match chunk.units {
                    1 => scalar,
                    n => e.type_vector(scalar, n),
                };
                let fetch = e.add_variable(StorageClass::Input, ty);
                e.decorate(fetch, Decoration::Location, &[at]);
                e.name(fetch, &format!("glsem_fetch{}_{at}", attribute.location));
                added.push(fetch);
                let value = e.load(&mut code, ty, fetch);
                for u in 0..chunk.units {
                    units.push(match chunk.units {
                        1 => value,
                        _ => e.composite_extract(&mut code, scalar, value, &[u]),
                    });
                }
            }
            if let Fetch::Pieces { bits, lead } = attribute.fetch {
                let bytes = bytes_of_pieces(&mut e, &s, &mut code, bits, &units);
                let element = &bytes[lead as usize..];
                units = units_of_bytes(&mut e, &s, &mut code, &attribute.format, element);
            }
            values.push(gl_value(
                &m, &mut e, &s, &mut code, attribute, part, &units,
            )?);
        }
        let value = match (values.as_slice(), matrices) {
            ([one], None) if parts[0].1 == pointee => *one,
            (_, None) => e.composite_construct(&mut code, pointee, &values),
            (_, Some((matrix, columns))) => {
                let elements: Vec<u32> = values
                    .chunks(columns as usize)
                    .map(|columns| e.composite_construct(&mut code, matrix, columns))
                    .collect();
                e.composite_construct(&mut code, pointee, &elements)
            }
        };
        e.store(&mut code, var, value);
        demoted.push((var, None));
    }
    if demoted.is_empty() {
        return Ok(None);
    }
    let Some(at) = m.function_body_start(ep.function) else {
        return Err(PassError::MissingFunction {
            function: ep.function,
        });
    };
    demote_to_private(&m, &mut e, &demoted);
    // One edit of the entry point: the demoted inputs leave its interface (before SPIR-V
    // 1.4, as `demote_to_private` does), the new ones join it.
    let mut interface: Vec<u32> = ep
        .interface
        .iter()
        .copied()
        .filter(|id| {
            m.version() >= INTERFACE_LISTS_ALL_GLOBALS || !demoted.iter().any(|d| d.0 == *id)
        })
        .collect();
    interface.extend(&added);
    e.replace(
        ep.index,
        entry_point_with_interface(&m.insts.at(ep.index), &interface),
    );
    e.insert_before(at, &code);
    Ok(Some(e.finish()?))
}

/// The element's bytes from its unsigned `pieces` of `bits` (little-endian: a 16-bit
/// piece's low byte first).
fn bytes_of_pieces(
    e: &mut Editor<'_, '_>,
    s: &Scalars,
    code: &mut Vec<u32>,
    bits: u32,
    pieces: &[u32],
) -> Vec<u32> {
    if bits == 8 {
        return pieces.to_vec();
    }
    let (mask, eight) = (e.constant_u32(0xff), e.constant_u32(8));
    let mut bytes = Vec::new();
    for &piece in pieces {
        bytes.push(e.bitwise_and(code, s.u32, piece, mask));
        let high = e.binary(code, Op::ShiftRightLogical, s.u32, piece, eight);
        bytes.push(e.bitwise_and(code, s.u32, high, mask));
    }
    bytes
}

/// The units [`VertexFormat::chunks`] would fetch, assembled from the element's `bytes`
/// (little-endian, as Vulkan's formats read them): a signed unit narrower than 32 bits
/// sign-extended, as its `SINT` fetch would give it.
fn units_of_bytes(
    e: &mut Editor<'_, '_>,
    s: &Scalars,
    code: &mut Vec<u32>,
    format: &VertexFormat,
    bytes: &[u32],
) -> Vec<u32> {
    let mut units = Vec::new();
    let mut at = 0;
    for chunk in format.chunks() {
        for _ in 0..chunk.units {
            let width = chunk.unit_bits / 8;
            let mut value = bytes[at];
            for i in 1..width {
                let shift = e.constant_u32(8 * i);
                let byte = bytes[at + i as usize];
                let shifted = e.binary(code, Op::ShiftLeftLogical, s.u32, byte, shift);
                value = e.binary(code, Op::BitwiseOr, s.u32, value, shifted);
            }
            at += width as usize;
            units.push(match chunk.kind {
                ChunkKind::Sint => {
                    let signed = e.bitcast(code, s.i32, value);
                    let (first, count) = (e.constant_u32(0), e.constant_u32(chunk.unit_bits));
                    e.emit(code, Op::BitFieldSExtract, s.i32, &[signed, first, count])
                }
                _ => value,
            });
        }
    }
    units
}

/// The value of type `pointee` GL gives an input fed by `attribute`, whose fetched
/// components are `units` (32-bit values, in memory order).
fn gl_value(
    m: &Module<'_>,
    e: &mut Editor<'_, '_>,
    s: &Scalars,
    code: &mut Vec<u32>,
    attribute: &RefetchedAttribute,
    pointee: u32,
    units: &[u32],
) -> Result<u32, PassError> {
    let (component, count) = match m.type_of(pointee) {
        Some(Type::Vector { component, count }) => (*component, *count),
        Some(Type::Int { .. } | Type::Float { .. }) => (pointee, 1),
        _ => {
            return Err(PassError::Unsupported(format!(
                "the vertex input at Location {} is not a scalar or vector",
                attribute.location
            )))
        }
    };
    let shader = m.type_of(component).cloned();
    let format = attribute.format;
    let mismatch = || {
        PassError::Unsupported(format!(
            "the vertex input at Location {} is not of a type its attribute's format feeds",
            attribute.location
        ))
    };
    let mut parts = Vec::new();
    for c in 0..count {
        if c >= format.components {
            parts.push(default_component(e, component, shader.as_ref(), c)?);
            continue;
        }
        // The component's raw bits: its fetched unit, or a bit field of it (packed), and
        // whether that value is a signed int (sign-extended) and how many bits it has.
        let (unit, first, width) = format.component_bits(c);
        let signed_kind = matches!(
            format.numeric,
            Numeric::Snorm | Numeric::Sscaled | Numeric::Sint
        );
        let (raw, raw_signed) = match format.layout {
            Layout::Packed2101010 | Layout::Packed2101010Bgra => {
                let (offset, count) = (e.constant_u32(first), e.constant_u32(width));
                let word = units[unit as usize];
                match signed_kind {
                    true => {
                        let word = e.bitcast(code, s.i32, word);
                        let field = [word, offset, count];
                        (e.emit(code, Op::BitFieldSExtract, s.i32, &field), true)
                    }
                    false => {
                        let field = [word, offset, count];
                        (e.emit(code, Op::BitFieldUExtract, s.u32, &field), false)
                    }
                }
            }
            _ => (units[unit as usize], signed_kind && format.bits < 32),
        };
        let value = match (format.numeric, shader.as_ref()) {
            (Numeric::Float, Some(Type::Float { width: 64 })) if format.bits == 64 => {
                let uvec2 = e.type_vector(s.u32, 2);
                let pair = e.composite_construct(
                    code,
                    uvec2,
                    &[units[2 * c as usize], units[2 * c as usize + 1]],
                );
                e.bitcast(code, component, pair)
            }
            (_, Some(Type::Float { width: 64 })) | (Numeric::Float, _) if format.bits == 64 => {
                return Err(mismatch())
            }
            (Numeric::Float, Some(Type::Float { width: 32 })) => match format.bits {
                16 => raw,
                _ => e.bitcast(code, s.f32, raw),
            },
            (Numeric::Unorm | Numeric::Snorm, Some(Type::Float { width: 32 })) => {
                let signed = format.numeric == Numeric::Snorm;
                let (op, max) = match signed {
                    true => (Op::ConvertSToF, (1u32 << (width - 1)) - 1),
                    false => (Op::ConvertUToF, ((1u64 << width) - 1) as u32),
                };
                let float = e.unary(code, op, s.f32, raw);
                let max = e.constant_f32(max as f32);
                let scaled = e.binary(code, Op::FDiv, s.f32, float, max);
                match signed {
                    false => scaled,
                    true => {
                        let minus_one = e.constant_f32(-1.0);
                        let bool_ty = e.type_bool();
                        let below = e.binary(code, Op::FOrdLessThan, bool_ty, scaled, minus_one);
                        e.select(code, s.f32, below, minus_one, scaled)
                    }
                }
            }
            (Numeric::Uscaled, Some(Type::Float { width: 32 })) => {
                e.unary(code, Op::ConvertUToF, s.f32, raw)
            }
            (Numeric::Sscaled, Some(Type::Float { width: 32 })) => {
                e.unary(code, Op::ConvertSToF, s.f32, raw)
            }
            (Numeric::Uint | Numeric::Sint, Some(Type::Int { width: 32, signed })) => {
                match raw_signed == *signed {
                    true => raw,
                    false => e.bitcast(code, component, raw),
                }
            }
            _ => return Err(mismatch()),
        };
        parts.push(value);
    }
    Ok(match count {
        1 => parts[0],
        _ => e.composite_construct(code, pointee, &parts),
    })
}

/// GL's (0, 0, 0, 1) at component `c`, of the shader's component type `ty`.
fn default_component(
    e: &mut Editor<'_, '_>,
    ty: u32,
    shader: Option<&Type>,
    c: u32,
) -> Result<u32, PassError> {
    let one = c == 3;
    Ok(match shader {
        Some(Type::Float { width: 32 }) => e.constant_f32(if one { 1.0 } else { 0.0 }),
        Some(Type::Float { width: 64 }) => {
            let bits = if one { 1.0f64 } else { 0.0 }.to_bits();
            e.constant_words(ty, &[bits as u32, (bits >> 32) as u32])
        }
        Some(Type::Int {
            width: 32,
            signed: true,
        }) => e.constant_i32(one as i32),
        Some(Type::Int {
            width: 32,
            signed: false,
        }) => e.constant_u32(one as u32),
        _ => {
            return Err(PassError::Unsupported(
                "a vertex input that is not 32-bit or a double".into(),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(numeric: Numeric, bits: u32, components: u32) -> VertexFormat {
        VertexFormat {
            numeric,
            bits,
            components,
            layout: Layout::Plain,
        }
    }

    #[test]
    fn chunks_read_exactly_the_elements_bytes_in_mandatory_formats() {
        for numeric in [Numeric::Unorm, Numeric::Sint, Numeric::Float] {
            for bits in [8, 16, 32, 64] {
                for components in 1..=4 {
                    let f = format(numeric, bits, components);
                    let chunks = f.chunks();
                    let last = chunks.last().map(|c| c.offset + c.units * c.unit_bits / 8);
                    assert_eq!(last, Some(f.size()));
                    for c in &chunks {
                        assert!(c.units <= 4);
                        assert!(c.units != 3 || c.unit_bits == 32);
                    }
                }
            }
        }
        let dvec3 = format(Numeric::Float, 64, 3).chunks();
        assert_eq!(dvec3.iter().map(|c| c.units).collect::<Vec<_>>(), [4, 2]);
        assert_eq!(dvec3[1].offset, 16);
        let bytes3 = format(Numeric::Uscaled, 8, 3).chunks();
        assert_eq!(bytes3.iter().map(|c| c.offset).collect::<Vec<_>>(), [0, 2]);
    }

    #[test]
    fn three_small_components_widen_to_one_chunk_of_four() {
        for (numeric, bits, kind) in [
            (Numeric::Uint, 8, ChunkKind::Uint),
            (Numeric::Sscaled, 16, ChunkKind::Sint),
            (Numeric::Float, 16, ChunkKind::Float),
        ] {
            let chunk = format(numeric, bits, 3).widened_chunk();
            assert_eq!(
                chunk,
                Some(Chunk {
                    unit_bits: bits,
                    units: 4,
                    kind,
                    offset: 0,
                })
            );
            let attribute = RefetchedAttribute {
                location: 3,
                format: format(numeric, bits, 3),
                offsets_fit: true,
                fetch_locations: Vec::new(),
                fetch: Fetch::Widened,
            };
            assert_eq!(attribute.fetched_chunks(), [chunk.unwrap()]);
        }
        // Four components need no widening; 32-bit ones have a three-component format.
        assert_eq!(format(Numeric::Uint, 8, 4).widened_chunk(), None);
        assert_eq!(format(Numeric::Float, 32, 3).widened_chunk(), None);
    }

    #[test]
    fn piece_chunks_read_every_byte_of_the_element_at_most_four_a_fetch() {
        let pieces = |f: VertexFormat, bits, lead| -> Vec<(u32, u32)> {
            f.piece_chunks(bits, lead)
                .iter()
                .map(|c| (c.offset, c.units))
                .collect()
        };
        let sizes = |f| pieces(f, 8, 0);
        // Three shorts: 6 bytes, a uvec4 and a uvec2 of bytes; three bytes: two and one.
        assert_eq!(sizes(format(Numeric::Sscaled, 16, 3)), [(0, 4), (4, 2)]);
        assert_eq!(sizes(format(Numeric::Uint, 8, 3)), [(0, 2), (2, 1)]);
        assert_eq!(sizes(format(Numeric::Float, 64, 1)), [(0, 4), (4, 4)]);
        // In 16-bit pieces: a dvec4's 32 bytes in four uvec4s, three shorts in a uvec2 and
        // one.
        assert_eq!(
            pieces(format(Numeric::Float, 64, 4), 16, 0),
            [(0, 4), (8, 4), (16, 4), (24, 4)]
        );
        assert_eq!(
            pieces(format(Numeric::Sint, 16, 3), 16, 0),
            [(0, 2), (4, 1)]
        );
        // From a byte before the element: a double's 8 bytes and the lead in 10, the last
        // piece a byte past it; three bytes and the lead in two pieces, none past.
        assert_eq!(
            pieces(format(Numeric::Float, 64, 1), 16, 1),
            [(0, 4), (8, 1)]
        );
        assert_eq!(pieces(format(Numeric::Uint, 8, 3), 16, 1), [(0, 2)]);
        assert!(format(Numeric::Float, 32, 2).readable_as_bytes());
        assert!(!format(Numeric::Float, 16, 2).readable_as_bytes());
    }

    #[test]
    fn doubles_read_in_place_take_the_locations_of_their_type() {
        let dvec3 = format(Numeric::Float, 64, 3);
        let double = format(Numeric::Float, 64, 1);
        let step = in_place_double_inputs(&[(2, double), (4, dvec3)]);
        let at: Vec<(u32, Vec<u32>)> = step
            .attributes
            .iter()
            .map(|a| (a.location, a.fetch_locations.clone()))
            .collect();
        // A double is one uvec2 chunk at its own Location, a dvec3 a uvec4 and a uvec2 at
        // its two (Vulkan's Location rule for 64-bit three- and four-component types).
        assert_eq!(at, [(2, vec![2]), (4, vec![4, 5])]);
    }

    #[test]
    fn locations_are_free_ones_below_the_limit() {
        let mut attributes = vec![RefetchedAttribute {
            fetch: Fetch::Chunks,
            location: 0,
            format: format(Numeric::Float, 64, 4),
            offsets_fit: true,
            fetch_locations: Vec::new(),
        }];
        assign_locations(&mut attributes, &[0, 1, 3], 16).unwrap();
        assert_eq!(attributes[0].fetch_locations, [2, 4]);
        assert_eq!(assign_locations(&mut attributes, &[0, 1, 3], 4), Err(0));
    }
}
