//! Location slot and XFB offset math shared by the passes.
//!
//! Both depend only on the shape of a type (component width, vector size, matrix columns,
//! array lengths, struct members), so the module's types are first resolved into a
//! [`Shape`] and the rules are pure functions over it:
//!
//! - **Locations** (Vulkan "Location Assignment", GLSL 4.40 §4.4.1): a scalar or vector
//!   takes one slot, except 64-bit vectors of three or four components, which take two; a
//!   matrix takes the slots of its column vector once per column; an array takes its
//!   element's slots times its length; a struct the sum of its members', every member
//!   starting at a new slot.
//! - **XFB offsets** (GLSL 4.40 §4.4.2.1 `xfb_offset`, and what Mesa's
//!   `nir_gather_xfb_info.c` and glslang's XFB stride computation do): members are packed
//!   tightly in declaration order, components take their width in bytes, anything that
//!   contains a 64-bit component starts at a multiple of 8, and a struct containing a
//!   64-bit component occupies a multiple of 8 bytes.

use spirv::Decoration;

use super::module::{Module, Type};

/// More Location slots than any device's interface has (Vulkan guarantees 16 vec4s per
/// stage; drivers offer 32 or so): larger types are not interface types.
const MAX_INTERFACE_SLOTS: u32 = 256;
/// More bytes than any transform-feedback stride a device allows (Vulkan requires 2048 of
/// `maxTransformFeedbackBufferDataStride`).
const MAX_XFB_BYTES: u32 = 1 << 16;

/// The shape of an interface type: everything Location and XFB layout depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// `count` components of `width` bits; `count == 1` is a scalar.
    Vector {
        width: u32,
        count: u32,
    },
    /// `columns` column vectors of `rows` components of `width` bits.
    Matrix {
        width: u32,
        rows: u32,
        columns: u32,
    },
    Array {
        element: Box<Shape>,
        length: u32,
    },
    Struct(Vec<Shape>),
}

impl Shape {
    /// Resolves type `ty` of `m`. `None` for types that cannot be interface types (bools,
    /// images, runtime arrays, pointers), arrays whose length is not a plain constant, and
    /// types larger than any interface can be (so the layout math cannot overflow).
    pub fn of(m: &Module, ty: u32) -> Option<Shape> {
        let shape = Shape::resolve(m, ty)?;
        let (slots, bytes) = shape.checked_extent()?;
        (slots <= MAX_INTERFACE_SLOTS && bytes <= MAX_XFB_BYTES).then_some(shape)
    }

    /// `(location slots, XFB bytes)` with overflow checks, for untrusted modules.
    fn checked_extent(&self) -> Option<(u32, u32)> {
        match self {
            Shape::Vector { width, count } => {
                (1..=4).contains(count).then_some(())?;
                Some((vector_slots(*width, *count), count.checked_mul(*width)? / 8))
            }
            Shape::Matrix {
                width,
                rows,
                columns,
            } => {
                let (column_slots, column_bytes) = Shape::Vector {
                    width: *width,
                    count: *rows,
                }
                .checked_extent()?;
                Some((
                    columns.checked_mul(column_slots)?,
                    columns.checked_mul(column_bytes)?,
                ))
            }
            Shape::Array { element, length } => {
                let (slots, bytes) = element.checked_extent()?;
                Some((length.checked_mul(slots)?, length.checked_mul(bytes)?))
            }
            Shape::Struct(members) => members.iter().try_fold((0u32, 0u32), |(s, b), m| {
                let (slots, bytes) = m.checked_extent()?;
                Some((s.checked_add(slots)?, b.checked_add(bytes)?.checked_add(8)?))
            }),
        }
    }

    fn resolve(m: &Module, ty: u32) -> Option<Shape> {
        Some(match m.type_of(ty)? {
            Type::Int { width, .. } | Type::Float { width } => Shape::Vector {
                width: *width,
                count: 1,
            },
            Type::Vector { component, count } => Shape::Vector {
                width: scalar_width(m, *component)?,
                count: *count,
            },
            Type::Matrix { column, columns } => match Shape::resolve(m, *column)? {
                Shape::Vector { width, count } => Shape::Matrix {
                    width,
                    rows: count,
                    columns: *columns,
                },
                _ => return None,
            },
            // Only OpConstant lengths: a spec-constant length makes the layout depend on
            // specialization.
            Type::Array { element, length } => Shape::Array {
                element: Box::new(Shape::resolve(m, *element)?),
                length: m.constant_u32(*length)?,
            },
            Type::Struct { members } => Shape::Struct(
                members
                    .iter()
                    .map(|&t| Shape::resolve(m, t))
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    /// Whether some component of the type is 64 bits wide.
    pub fn contains_64bit(&self) -> bool {
        match self {
            Shape::Vector { width, .. } | Shape::Matrix { width, .. } => *width == 64,
            Shape::Array { element, .. } => element.contains_64bit(),
            Shape::Struct(members) => members.iter().any(Shape::contains_64bit),
        }
    }

    /// The widths of all components, for passes that support only some.
    pub fn widths(&self) -> Vec<u32> {
        let mut out = Vec::new();
        self.collect_widths(&mut out);
        out
    }

    fn collect_widths(&self, out: &mut Vec<u32>) {
        match self {
            Shape::Vector { width, .. } | Shape::Matrix { width, .. } => {
                if !out.contains(width) {
                    out.push(*width)
                }
            }
            Shape::Array { element, .. } => element.collect_widths(out),
            Shape::Struct(members) => members.iter().for_each(|s| s.collect_widths(out)),
        }
    }

    /// Location slots the type occupies.
    pub fn location_slots(&self) -> u32 {
        match self {
            Shape::Vector { width, count } => vector_slots(*width, *count),
            Shape::Matrix {
                width,
                rows,
                columns,
            } => columns * vector_slots(*width, *rows),
            Shape::Array { element, length } => length * element.location_slots(),
            Shape::Struct(members) => members.iter().map(Shape::location_slots).sum(),
        }
    }

    /// Alignment of the type's start in a transform-feedback buffer.
    pub fn xfb_alignment(&self) -> u32 {
        if self.contains_64bit() {
            8
        } else {
            4
        }
    }

    /// Bytes the type occupies in a transform-feedback buffer (trailing padding of a
    /// struct containing 64-bit components included).
    pub fn xfb_size(&self) -> u32 {
        match self {
            Shape::Vector { width, count } => count * width / 8,
            Shape::Matrix {
                width,
                rows,
                columns,
            } => columns * rows * width / 8,
            Shape::Array { element, length } => length * element.xfb_size(),
            Shape::Struct(members) => {
                let mut size = 0;
                for member in members {
                    size = align(size, member.xfb_alignment()) + member.xfb_size();
                }
                align(size, self.xfb_alignment())
            }
        }
    }

    /// Whether splitting goes into the type: structs, matrices (captured per column), and
    /// arrays of those. Arrays of scalars and vectors stay whole.
    fn splits(&self) -> bool {
        match self {
            Shape::Vector { .. } => false,
            Shape::Matrix { .. } | Shape::Struct(_) => true,
            Shape::Array { element, .. } => element.splits(),
        }
    }
}

/// Slots of a `count`-component vector of `width`-bit components.
fn vector_slots(width: u32, count: u32) -> u32 {
    if width == 64 && count > 2 {
        2
    } else {
        1
    }
}

fn scalar_width(m: &Module, ty: u32) -> Option<u32> {
    match m.type_of(ty)? {
        Type::Int { width, .. } | Type::Float { width } => Some(*width),
        _ => None,
    }
}

fn align(value: u32, to: u32) -> u32 {
    value.div_ceil(to) * to
}

/// One past the last Location interface variable `var` of type `ty` takes: its Location
/// plus the slots of its type, or for a block whose members carry the Locations, the
/// farthest member's (0 for a block without: a built-in block).
pub fn location_end(m: &Module, var: u32, ty: u32) -> u32 {
    if let Some(&[location, ..]) = m.decoration(var, Decoration::Location) {
        return location + location_slots(m, ty).unwrap_or(1);
    }
    let Some(Type::Struct { members }) = m.type_of(ty) else {
        return 0;
    };
    let located = members.iter().enumerate().filter_map(|(i, &member)| {
        let (_, lits) = m
            .member_decorations_of(ty, i as u32)
            .find(|(d, _)| *d == Decoration::Location)?;
        Some(lits.first()? + location_slots(m, member).unwrap_or(1))
    });
    located.max().unwrap_or(0)
}

/// Location slots of type `ty` of `m`, `None` when it is not an interface type.
pub fn location_slots(m: &Module, ty: u32) -> Option<u32> {
    Some(Shape::of(m, ty)?.location_slots())
}

/// One variable of a split: a scalar, vector, matrix column, or array of scalars or
/// vectors inside an aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    /// Indices from the aggregate to the leaf (struct member, array element or matrix
    /// column), as an access chain walks them.
    pub path: Vec<u32>,
    pub location: u32,
    /// Byte offset in the transform-feedback buffer.
    pub offset: u32,
    pub shape: Shape,
}

/// Splits `shape`, placed at `location` and XFB `offset`, into its leaves in declaration
/// order: one per scalar, vector or array of those, one per matrix column, recursing into
/// structs and into arrays of structs or matrices element by element.
pub fn split_leaves(shape: &Shape, location: u32, offset: u32) -> Vec<Leaf> {
    let mut cursor = (location, offset);
    let mut leaves = Vec::new();
    walk(shape, &mut Vec::new(), &mut cursor, &mut leaves);
    leaves
}

fn walk(shape: &Shape, path: &mut Vec<u32>, cursor: &mut (u32, u32), out: &mut Vec<Leaf>) {
    cursor.1 = align(cursor.1, shape.xfb_alignment());
    if !shape.splits() {
        out.push(Leaf {
            path: path.clone(),
            location: cursor.0,
            offset: cursor.1,
            shape: shape.clone(),
        });
        cursor.0 += shape.location_slots();
        cursor.1 += shape.xfb_size();
        return;
    }
    let mut child = |index: u32, child: &Shape, cursor: &mut (u32, u32)| {
        path.push(index);
        walk(child, path, cursor, out);
        path.pop();
    };
    match shape {
        Shape::Struct(members) => {
            for (i, member) in members.iter().enumerate() {
                child(i as u32, member, cursor);
            }
        }
        Shape::Array { element, length } => {
            for i in 0..*length {
                child(i, element, cursor);
            }
        }
        Shape::Matrix {
            width,
            rows,
            columns,
        } => {
            let column = Shape::Vector {
                width: *width,
                count: *rows,
            };
            for i in 0..*columns {
                child(i, &column, cursor);
            }
        }
        Shape::Vector { .. } => unreachable!("vectors do not split"),
    }
    // A struct containing 64-bit components occupies a multiple of 8 bytes.
    cursor.1 = align(cursor.1, shape.xfb_alignment());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vec(n: u32) -> Shape {
        Shape::Vector {
            width: 32,
            count: n,
        }
    }
    fn dvec(n: u32) -> Shape {
        Shape::Vector {
            width: 64,
            count: n,
        }
    }
    fn float() -> Shape {
        vec(1)
    }
    fn double() -> Shape {
        dvec(1)
    }
    fn dmat3x4() -> Shape {
        Shape::Matrix {
            width: 64,
            rows: 4,
            columns: 3,
        }
    }
    fn array(element: Shape, length: u32) -> Shape {
        Shape::Array {
            element: Box::new(element),
            length,
        }
    }

    /// `(path, location, offset)` of every leaf.
    fn table(shape: &Shape, location: u32, offset: u32) -> Vec<(Vec<u32>, u32, u32)> {
        split_leaves(shape, location, offset)
            .into_iter()
            .map(|l| (l.path, l.location, l.offset))
            .collect()
    }

    #[test]
    fn location_slots_follow_the_vulkan_table() {
        assert_eq!(float().location_slots(), 1);
        assert_eq!(vec(4).location_slots(), 1);
        assert_eq!(double().location_slots(), 1);
        assert_eq!(dvec(2).location_slots(), 1);
        assert_eq!(dvec(3).location_slots(), 2);
        assert_eq!(dvec(4).location_slots(), 2);
        // mat3: three vec3 columns; dmat3x4: three dvec4 columns of two slots each.
        let mat3 = Shape::Matrix {
            width: 32,
            rows: 3,
            columns: 3,
        };
        assert_eq!(mat3.location_slots(), 3);
        assert_eq!(dmat3x4().location_slots(), 6);
        assert_eq!(
            Shape::Struct(vec![dmat3x4(), double(), float(), dvec(2)]).location_slots(),
            9
        );
        assert_eq!(array(float(), 2).location_slots(), 2);
        assert_eq!(array(dvec(3), 2).location_slots(), 4);
        assert_eq!(
            Shape::Struct(vec![float(), vec(4), array(float(), 2)]).location_slots(),
            4
        );
    }

    /// `struct { float f; vec4 v; float f2[2]; }` at xfb_offset 0: f is 4 bytes at 0, v 16
    /// bytes at 4, f2 two floats at 20 and 24 (one variable, tightly packed); 28 bytes.
    #[test]
    fn float_struct_packs_tightly() {
        let s = Shape::Struct(vec![float(), vec(4), array(float(), 2)]);
        assert_eq!(s.xfb_size(), 28);
        assert_eq!(
            table(&s, 0, 0),
            vec![(vec![0], 0, 0), (vec![1], 1, 4), (vec![2], 2, 20)]
        );
        let f2 = &split_leaves(&s, 0, 0)[2];
        assert_eq!(f2.shape, array(float(), 2));
        assert_eq!(f2.shape.xfb_size(), 8); // f2[1] at 20 + 4 = 24
    }

    /// Each case: a GL (Mesa llvmpipe) layout, its shape, where it starts (Location, XFB
    /// offset), its XFB size and its leaves' `(path, Location, offset)`.
    #[test]
    fn structs_and_arrays_split_into_leaves_as_gl_lays_them_out() {
        type Leaves = Vec<(Vec<u32>, u32, u32)>;
        let cases: Vec<(&str, Shape, u32, u32, u32, Leaves)> = vec![
            (
                // The matrix splits into dvec4 columns of two Locations each; d is aligned
                // up from 108.
                "{dmat3x4 a; double b; float c; dvec2 d;}",
                Shape::Struct(vec![dmat3x4(), double(), float(), dvec(2)]),
                0,
                0,
                128,
                vec![
                    (vec![0, 0], 0, 0),
                    (vec![0, 1], 2, 32),
                    (vec![0, 2], 4, 64),
                    (vec![1], 6, 96),
                    (vec![2], 7, 104),
                    (vec![3], 8, 112),
                ],
            ),
            (
                // b is 24 bytes and two Locations; stride 48.
                "{float a; dvec3 b; float c; double d;}",
                Shape::Struct(vec![float(), dvec(3), float(), double()]),
                3,
                0,
                48,
                vec![
                    (vec![0], 3, 0),
                    (vec![1], 4, 8),
                    (vec![2], 6, 32),
                    (vec![3], 7, 40),
                ],
            ),
            (
                // Nested members continue the running offset and Location.
                "{vec3 p; struct {float x; vec2 y;} i; float z;}",
                Shape::Struct(vec![vec(3), Shape::Struct(vec![float(), vec(2)]), float()]),
                0,
                0,
                28,
                vec![
                    (vec![0], 0, 0),
                    (vec![1, 0], 1, 12),
                    (vec![1, 1], 2, 16),
                    (vec![2], 3, 24),
                ],
            ),
            (
                // A nested struct holding a double is a multiple of 8 bytes: z at 24, not 20.
                "{float a; struct {double d; float f;} i; float z;}",
                Shape::Struct(vec![
                    float(),
                    Shape::Struct(vec![double(), float()]),
                    float(),
                ]),
                0,
                0,
                32,
                vec![
                    (vec![0], 0, 0),
                    (vec![1, 0], 1, 8),
                    (vec![1, 1], 2, 16),
                    (vec![2], 3, 24),
                ],
            ),
            (
                // Element 1 starts where element 0 ends (20 bytes, two Locations).
                "struct {float f; vec4 v;} s[2]",
                array(Shape::Struct(vec![float(), vec(4)]), 2),
                1,
                8,
                40,
                vec![
                    (vec![0, 0], 1, 8),
                    (vec![0, 1], 2, 12),
                    (vec![1, 0], 3, 28),
                    (vec![1, 1], 4, 32),
                ],
            ),
            (
                // Each element takes 16 bytes, so s[1].d is at 16.
                "struct {double d; float f;} s[2]",
                array(Shape::Struct(vec![double(), float()]), 2),
                0,
                0,
                32,
                vec![
                    (vec![0, 0], 0, 0),
                    (vec![0, 1], 1, 8),
                    (vec![1, 0], 2, 16),
                    (vec![1, 1], 3, 24),
                ],
            ),
            (
                // A float matrix splits into its vec3 columns, 12 bytes and a Location each.
                "{float f; mat2x3 m;}",
                Shape::Struct(vec![
                    float(),
                    Shape::Matrix {
                        width: 32,
                        rows: 3,
                        columns: 2,
                    },
                ]),
                0,
                0,
                28,
                vec![(vec![0], 0, 0), (vec![1, 0], 1, 4), (vec![1, 1], 2, 16)],
            ),
        ];
        for (what, shape, location, offset, size, leaves) in cases {
            assert_eq!(shape.xfb_size(), size, "{what}");
            assert_eq!(table(&shape, location, offset), leaves, "{what}");
        }
    }
}
