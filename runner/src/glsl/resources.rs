//! Uniform and storage blocks, atomic counters and samplers bound as GL's binding points:
//! each stage's default uniform block at its own binding, named blocks at one binding per
//! GL name, arrays of arrays of blocks made one array, and every leaf member described
//! under its GL name for the runner to set and GL's introspection to count.

use std::collections::BTreeMap;

use glsem_spirv::module::{Editor, Module, Section, Type};
use spirv::{Decoration, Dim, Op, StorageClass};

use super::description::{
    SamplerUniform, StorageBlock, UniformBlock, UniformMember, FIRST_NAMED_BLOCK_BINDING,
    FIRST_SAMPLER_BINDING, FIRST_STORAGE_BINDING,
};
use super::source::{explicit_uniforms, gl_block_binding};
use super::spv::{edit, flat_index, parse, row_major_strides, shape, strip_arrays};
use crate::scene::{SceneError, ATOMIC_COUNTER_BINDINGS};

/// Moves the stage's `gl_DefaultUniformBlock` to set 0, binding `binding` (one binding per
/// stage), and its named uniform blocks to set 0 at one binding per GL block name; returns
/// their layouts with every leaf member under its GL name.
#[allow(clippy::type_complexity)]
pub(super) fn bind_uniform_blocks(
    module: &mut Vec<u32>,
    binding: u32,
    named: &mut BTreeMap<String, u32>,
    source: &str,
    spirv: bool,
) -> Result<(Vec<UniformBlock>, Vec<SamplerUniform>, Vec<StorageBlock>), SceneError> {
    let view = parse(module);
    let mut resources = Resources {
        view: &view,
        default_block_binding: binding,
        named,
        source,
        spirv,
        blocks: Vec::new(),
        samplers: Vec::new(),
        storage_blocks: Vec::new(),
    };
    for (var, storage, pointee) in view.global_variables() {
        if !matches!(
            storage,
            StorageClass::Uniform
                | StorageClass::UniformConstant
                | StorageClass::StorageBuffer
                | StorageClass::PushConstant
        ) {
            continue;
        }
        resources.add(var, storage, pointee)?;
    }
    let Resources {
        blocks,
        samplers,
        storage_blocks,
        ..
    } = resources;
    drop(view);
    decorate_bindings(module, &blocks, &samplers, &storage_blocks);
    Ok((
        blocks.into_iter().map(|(_, b)| b).collect(),
        samplers.into_iter().map(|(_, s)| s).collect(),
        storage_blocks.into_iter().map(|(_, s)| s).collect(),
    ))
}

/// One stage's resources as `bind_uniform_blocks` finds them, each with its variable.
struct Resources<'a> {
    view: &'a Module<'a>,
    /// The binding of the stage's default uniform block.
    default_block_binding: u32,
    /// The bindings given so far, by GL block name (`sampler NAME` for samplers).
    named: &'a mut BTreeMap<String, u32>,
    source: &'a str,
    /// Whether the module is GL SPIR-V (`ARB_gl_spirv`) rather than compiled GLSL.
    spirv: bool,
    blocks: Vec<(u32, UniformBlock)>,
    samplers: Vec<(u32, SamplerUniform)>,
    storage_blocks: Vec<(u32, StorageBlock)>,
}

impl Resources<'_> {
    /// GL's binding point: a GL SPIR-V module's `Binding`, else `layout(binding = N)` in GLSL.
    fn gl_binding_of(&self, var: u32, keyword: &str, type_name: &str) -> u32 {
        if self.spirv {
            self.view
                .decoration_literal(var, Decoration::Binding)
                .unwrap_or(0)
        } else {
            gl_block_binding(self.source, keyword, type_name)
        }
    }

    /// Adds variable `var` of type `ty` in `storage`.
    fn add(&mut self, var: u32, storage: StorageClass, ty: u32) -> Result<(), SceneError> {
        let view = self.view;
        // An array of blocks (of arrays of arrays too): one descriptor array, its elements
        // in row-major order, as GL gives them consecutive binding points.
        let (elem, mut dims) = strip_arrays(view, ty);
        let ty = if !dims.is_empty() && is_block(view, elem) {
            elem
        } else {
            dims.clear();
            ty
        };
        let is_ubo =
            storage == StorageClass::Uniform && view.decoration(ty, Decoration::Block).is_some();
        let is_ssbo = (storage == StorageClass::Uniform
            && view.decoration(ty, Decoration::BufferBlock).is_some())
            || (storage == StorageClass::StorageBuffer
                && view.decoration(ty, Decoration::Block).is_some());
        // A sampler2D, or an array of them (one descriptor array).
        let (sampler_type, sampler_count) = view.array_length(ty).unwrap_or((ty, 1));
        if is_ssbo {
            self.add_storage_block(var, ty, dims);
        } else if storage == StorageClass::UniformConstant
            && (is_sampler(view, sampler_type) || is_storage_image_2d(view, sampler_type))
        {
            let kind = SamplerKind {
                storage_image: is_storage_image_2d(view, sampler_type),
                arrayed: is_arrayed_sampler(view, sampler_type),
                two_d: is_sampler_2d(view, sampler_type),
            };
            self.add_sampler(var, sampler_count, kind);
        } else if is_ubo {
            self.add_uniform_block(var, ty, dims)?;
        } else {
            return Err(unsupported_resource(view, var, storage, ty));
        }
        Ok(())
    }

    /// A storage block (or an array of them), or an atomic counter buffer.
    fn add_storage_block(&mut self, var: u32, ty: u32, dims: Vec<u32>) {
        let view = self.view;
        let type_name = view.name_of(ty).unwrap_or_default();
        let atomic = type_name
            .strip_prefix("gl_AtomicCounterBlock_")
            .and_then(|b| b.parse::<u32>().ok());
        let atomic_counters = atomic.map(|_| {
            let member_types: Vec<u32> = view.struct_members(ty).unwrap_or_default().to_vec();
            let mut names = Vec::new();
            for (m, &mty) in member_types.iter().enumerate() {
                let name = view.member_name(ty, m as u32).unwrap_or_default();
                names.extend((0..gl_leaves(view, mty)).map(|k| format!("{name}#{k}")));
            }
            names
        });
        let block = StorageBlock {
            gl_binding: match atomic {
                Some(b) => ATOMIC_COUNTER_BINDINGS + b,
                None => self.gl_binding_of(var, "buffer", &type_name),
            },
            count: dims.iter().product(),
            dims,
            active_variables: buffer_variables(view, ty),
            data_size: explicit_size(view, ty).next_multiple_of(16),
            atomic_counters,
            name: type_name,
        };
        self.storage_blocks.push((var, block));
    }

    /// A sampler2D, or an array of `count` of them, at one binding per GL name.
    fn add_sampler(&mut self, var: u32, count: u32, kind: SamplerKind) {
        let var_name = self.view.name_of(var).unwrap_or_default();
        let key = format!("sampler {var_name}");
        let next = FIRST_SAMPLER_BINDING
            + self
                .named
                .keys()
                .filter(|k| k.starts_with("sampler "))
                .count() as u32;
        let binding = *self.named.entry(key).or_insert(next);
        let unit = explicit_uniforms(self.source)
            .into_iter()
            .find(|(_, _, n)| *n == var_name)
            .and_then(|(_, binding, _)| binding)
            .unwrap_or(0);
        let sampler = SamplerUniform {
            name: var_name,
            binding,
            unit,
            count,
            elements: Vec::new(),
            element_locations: Vec::new(),
            storage_image: kind.storage_image,
            arrayed: kind.arrayed,
            two_d: kind.storage_image || kind.two_d,
        };
        self.samplers.push((var, sampler));
    }

    /// The default uniform block or a named one (or an array of them, with dimensions
    /// `dims`), each leaf member under its GL name.
    fn add_uniform_block(&mut self, var: u32, ty: u32, dims: Vec<u32>) -> Result<(), SceneError> {
        let view = self.view;
        let type_name = view.name_of(ty).unwrap_or_default();
        let var_name = view.name_of(var).unwrap_or_default();
        let gl_binding = self.gl_binding_of(var, "uniform", &type_name);
        let (block_name, prefix, block_binding) = if type_name == "gl_DefaultUniformBlock" {
            (None, String::new(), self.default_block_binding)
        } else {
            let next = FIRST_NAMED_BLOCK_BINDING
                + self
                    .named
                    .keys()
                    .filter(|k| !k.starts_with("sampler "))
                    .count() as u32;
            // A GL SPIR-V module's blocks may have no names: its binding points tell them apart.
            let key = if self.spirv {
                format!("binding {gl_binding}")
            } else {
                type_name.clone()
            };
            let b = *self.named.entry(key).or_insert(next);
            // GL names members of a block with an instance name `Block.member`.
            let prefix = if var_name.is_empty() {
                String::new()
            } else {
                format!("{type_name}.")
            };
            (Some(type_name), prefix, b)
        };
        let mut members = Vec::new();
        flatten_struct(view, ty, &prefix, 0, &mut members)?;
        let size = block_size(&members);
        if dims.is_empty() {
            let block = UniformBlock {
                binding: block_binding,
                gl_binding,
                element: 0,
                name: block_name,
                size,
                members,
            };
            self.blocks.push((var, block));
            return Ok(());
        }
        // GL's blocks `Block[i]`, their members named `Block.member` all the same.
        let len: u32 = dims.iter().product();
        self.blocks.extend((0..len).map(|i| {
            let block = UniformBlock {
                binding: block_binding,
                gl_binding: gl_binding + i,
                element: i,
                name: block_name
                    .as_ref()
                    .map(|n| format!("{n}{}", subscripts(i, &dims))),
                size,
                members: members.clone(),
            };
            (var, block)
        }));
        Ok(())
    }
}

fn is_block(view: &Module, ty: u32) -> bool {
    view.decoration(ty, Decoration::Block).is_some()
        || view.decoration(ty, Decoration::BufferBlock).is_some()
}

/// Why resource `var` (of type `ty`, arrays of blocks taken off) cannot be bound.
fn unsupported_resource(view: &Module, var: u32, storage: StorageClass, ty: u32) -> SceneError {
    let mut inner = ty;
    while let Some((element, _)) = view.array_length(inner) {
        inner = element;
    }
    let in_struct = view.struct_members(inner).is_some();
    let what = match storage {
        // glslang (-R) leaves a structure holding a sampler, or the default block
        // holding one, a UniformConstant variable, which Vulkan does not take.
        StorageClass::UniformConstant if in_struct => "samplers inside structures are",
        StorageClass::UniformConstant => {
            "samplers other than sampler1D, 2D and 3D, and images other than image2D, are"
        }
        StorageClass::Uniform | StorageClass::StorageBuffer => {
            "uniform and storage resources other than blocks are"
        }
        _ => "push constants are",
    };
    let var_name = view.name_of(var).unwrap_or_default();
    let name = if var_name.is_empty() {
        view.name_of(ty).unwrap_or_default()
    } else {
        var_name
    };
    SceneError::Skip(format!(
        "resource `{name}` ({storage:?}): {what} not supported"
    ))
}

/// A uniform block's size: the end of its last member, at least 4, rounded up to 16.
fn block_size(members: &[UniformMember]) -> u32 {
    let end = members
        .iter()
        .map(|m| {
            // A matrix ends with its last column (row), not its stride.
            let elem = if m.columns > 1 {
                let (vectors, length) = if m.row_major {
                    (m.rows, m.columns)
                } else {
                    (m.columns, m.rows)
                };
                m.matrix_stride * (vectors - 1) + length * m.scalar.size()
            } else {
                m.rows * m.scalar.size()
            };
            m.offset
                + match m.array {
                    Some((len, stride)) => stride * len.saturating_sub(1) + elem,
                    None => elem,
                }
        })
        .max()
        .unwrap_or(0);
    end.max(4).next_multiple_of(16)
}

/// Decorates each resource variable with set 0 and its Vulkan binding.
fn decorate_bindings(
    module: &mut Vec<u32>,
    blocks: &[(u32, UniformBlock)],
    samplers: &[(u32, SamplerUniform)],
    storage_blocks: &[(u32, StorageBlock)],
) {
    edit(module, |editor| {
        let bind = |editor: &mut Editor, var: u32, binding: u32| {
            editor.set_decoration(var, Decoration::DescriptorSet, &[0]);
            editor.set_decoration(var, Decoration::Binding, &[binding]);
        };
        for (var, block) in blocks {
            bind(editor, *var, block.binding);
        }
        for (var, sampler) in samplers {
            // glslang keeps a GL uniform location on the sampler; Vulkan forbids Location
            // on UniformConstant (VUID-StandaloneSpirv-Location-06672). The runner keeps
            // the location (`uniform_locations`).
            editor.remove_decoration(*var, Decoration::Location);
            bind(editor, *var, sampler.binding);
        }
        for (var, block) in storage_blocks {
            bind(editor, *var, FIRST_STORAGE_BINDING + block.gl_binding);
        }
    });
}

/// Vulkan takes one-dimensional arrays of blocks only (VUID-StandaloneSpirv-Uniform-06807):
/// an array of arrays of blocks becomes one array of all its elements, row-major (GL's
/// order of their binding points), and each access chain into it indexes that array with
/// the flattened index.
pub(super) fn flatten_block_arrays(module: &mut Vec<u32>) -> Result<(), SceneError> {
    edit(module, |editor| {
        let view = editor.module;
        let found = arrays_of_arrays_of_blocks(view);
        // (variable, number of dimensions, stride constant per dimension)
        let mut rewrites = Vec::new();
        for (var, storage, block, dims) in found {
            let array = editor.type_array_decorated(block, dims.iter().product());
            let declaration = view.globals[&var];
            // Variable words: pointer type, result, storage class, initializer.
            let initializer = view.insts.at(declaration).operands().get(3).copied();
            editor.redeclare_variable(var, storage, array, initializer);
            editor.remove(declaration);
            rewrites.push((var, dims.len(), row_major_strides(editor, &dims)));
        }
        for index in view.section_range(Section::Function) {
            let inst = view.insts.at(index);
            if !matches!(inst.op(), Some(Op::AccessChain | Op::InBoundsAccessChain)) {
                continue;
            }
            // Chain words: result type, result, base, indices.
            let Some((_, depth, strides)) = rewrites.iter().find(|r| inst.operand(2) == r.0) else {
                continue;
            };
            let indices = &inst.operands()[3..];
            if indices.len() < *depth {
                return Err(SceneError::Skip(
                    "an access to part of an array of arrays of blocks is not supported".into(),
                ));
            }
            let mut code = Vec::new();
            let flat = flat_index(editor, &mut code, &indices[..*depth], strides);
            let mut chain = vec![inst.operand(2)];
            chain.extend(flat);
            chain.extend_from_slice(&indices[*depth..]);
            let (ty, result) = (inst.operand(0), inst.operand(1));
            editor.emit_as(&mut code, inst.op().expect("a chain"), ty, result, &chain);
            editor.replace(index, code);
        }
        Ok(())
    })
}

/// The variables that are arrays of arrays of blocks: (variable, storage class, block
/// type, dimensions).
fn arrays_of_arrays_of_blocks(view: &Module) -> Vec<(u32, StorageClass, u32, Vec<u32>)> {
    let mut found = Vec::new();
    for inst in view.insts.range(view.section_range(Section::Global)) {
        let Some((var, (storage, mut elem))) = inst
            .result_id()
            .and_then(|var| Some((var, view.variable(var)?)))
        else {
            continue;
        };
        let mut dims = Vec::new();
        while let Some((inner, len)) = view.array_length(elem) {
            dims.push(len);
            elem = inner;
        }
        let is_block = view.has_decoration(elem, Decoration::Block)
            || view.has_decoration(elem, Decoration::BufferBlock);
        if dims.len() > 1 && is_block {
            found.push((var, storage, elem, dims));
        }
    }
    found
}

/// GL's subscripts of element `flat` (row-major) of an array of dimensions `dims`:
/// `[1][0]` for 2 of `[2][2]`.
pub(super) fn subscripts(flat: u32, dims: &[u32]) -> String {
    let mut rest = flat;
    let mut out: Vec<String> = dims
        .iter()
        .rev()
        .map(|&len| {
            let i = rest % len;
            rest /= len;
            format!("[{i}]")
        })
        .collect();
    out.reverse();
    out.concat()
}

/// How many active resources GL enumerates for a value of type `ty`: one per scalar,
/// vector or matrix, or array of those (the innermost array is one resource); arrays of
/// arrays and of structures, and structures, enumerate their elements and members.
fn gl_leaves(view: &Module, ty: u32) -> u32 {
    if let Some((elem, len)) = view.array_length(ty) {
        return if shape(view, elem).is_some() {
            1
        } else {
            len * gl_leaves(view, elem)
        };
    }
    if let Some(elem) = view.runtime_array_element(ty) {
        return if shape(view, elem).is_some() {
            1
        } else {
            gl_leaves(view, elem)
        };
    }
    if shape(view, ty).is_some() {
        return 1;
    }
    view.struct_members(ty).map_or(1, |members| {
        members.iter().map(|&member| gl_leaves(view, member)).sum()
    })
}

/// GL_NUM_ACTIVE_VARIABLES of a shader storage block: its buffer variables, where a
/// top-level array of structures or arrays enumerates only its first element (GL 4.6
/// section 7.3.1.1).
fn buffer_variables(view: &Module, block: u32) -> u32 {
    let Some(members) = view.struct_members(block) else {
        return 0;
    };
    members
        .iter()
        .map(|&m| {
            let elem = view
                .array_length(m)
                .map(|(e, _)| e)
                .or_else(|| view.runtime_array_element(m));
            match elem {
                Some(e) if shape(view, e).is_none() => gl_leaves(view, e),
                _ => gl_leaves(view, m),
            }
        })
        .sum()
}

/// The bytes a value of type `ty` spans from its offset, by its explicit layout
/// decorations (an unsized array counted with one element).
fn explicit_size(view: &Module, ty: u32) -> u32 {
    let stride = |t: u32| {
        view.decoration_literal(t, Decoration::ArrayStride)
            .unwrap_or(0)
    };
    if let Some((_, len)) = view.array_length(ty) {
        return stride(ty) * len;
    }
    if view.runtime_array_element(ty).is_some() {
        return stride(ty);
    }
    if let Some(members) = view.struct_members(ty) {
        return members
            .iter()
            .enumerate()
            .map(|(m, &mty)| {
                let m = m as u32;
                let offset = view
                    .member_decoration_literal(ty, m, Decoration::Offset)
                    .unwrap_or(0);
                let size = match shape(view, mty) {
                    Some((scalar, columns, rows)) if columns > 1 => {
                        let stride = view
                            .member_decoration_literal(ty, m, Decoration::MatrixStride)
                            .unwrap_or(16);
                        let row_major = view
                            .member_decoration(ty, m, Decoration::RowMajor)
                            .is_some();
                        let (vectors, length) = if row_major {
                            (rows, columns)
                        } else {
                            (columns, rows)
                        };
                        stride * (vectors - 1) + length * scalar.size()
                    }
                    Some((scalar, _, rows)) => rows * scalar.size(),
                    None => explicit_size(view, mty),
                };
                offset + size
            })
            .max()
            .unwrap_or(0);
    }
    shape(view, ty).map_or(0, |(s, c, r)| s.size() * c * r)
}

/// A float 2D sampler, not multisampled: `sampler2D`, `sampler2DArray`, `sampler2DShadow`
/// (the texture on its unit has the matching view and compare state), not an array.
fn is_sampler_2d(view: &Module, ty: u32) -> bool {
    is_sampler(view, ty)
        && sampled_image(view, ty).and_then(|image| image.get(1)) == Some(&(Dim::Dim2D as u32))
}

/// The operands of the `OpTypeImage` sampled image type `ty` samples: sampled type, Dim,
/// Depth, Arrayed, MS, Sampled, Format.
fn sampled_image<'m>(view: &Module<'m>, ty: u32) -> Option<&'m [u32]> {
    let sampled = view.insts.at(*view.globals.get(&ty)?);
    (sampled.op() == Some(Op::TypeSampledImage))
        .then(|| image_operands(view, sampled.operand(1)))?
}

/// The operands of `OpTypeImage` `ty` after its result id: sampled type, Dim, Depth,
/// Arrayed, MS, Sampled, Format.
fn image_operands<'m>(view: &Module<'m>, ty: u32) -> Option<&'m [u32]> {
    let image = view.insts.at(*view.globals.get(&ty)?);
    (image.op() == Some(Op::TypeImage)).then(|| &image.operands()[1..])
}

/// A float 1D, 2D or 3D sampler, not multisampled, not an array (1D and 3D ones: their
/// textures are `texture shadow1D` and `texture rgbw 3D`).
fn is_sampler(view: &Module, ty: u32) -> bool {
    let one_d_to_3d = [Dim::Dim1D, Dim::Dim2D, Dim::Dim3D].map(|d| d as u32);
    sampled_image(view, ty).is_some_and(|image| match image {
        [texel, dim, depth, arrayed, multisampled, ..] => {
            is_float(view, *texel)
                && one_d_to_3d.contains(dim)
                && *depth <= 1
                && *arrayed <= 1
                && *multisampled == 0
        }
        _ => false,
    })
}

fn is_float(view: &Module, ty: u32) -> bool {
    matches!(view.type_of(ty), Some(Type::Float { .. }))
}

/// What a sampler-like uniform's descriptor holds.
struct SamplerKind {
    /// An `image2D` (storage image).
    storage_image: bool,
    /// A `sampler2DArray` (its textures have array views).
    arrayed: bool,
    /// A 2D sampler (else 1D or 3D).
    two_d: bool,
}

/// Whether sampler type `ty`'s image is arrayed.
fn is_arrayed_sampler(view: &Module, ty: u32) -> bool {
    sampled_image(view, ty).and_then(|image| image.get(3)) == Some(&1)
}

/// A float `image2D` (storage image: not arrayed or multisampled), not an array.
fn is_storage_image_2d(view: &Module, ty: u32) -> bool {
    // Sampled 2: a storage image.
    matches!(
        image_operands(view, ty),
        Some([texel, dim, _, 0, 0, 2, ..]) if is_float(view, *texel) && *dim == Dim::Dim2D as u32
    )
}

/// The leaf members of struct `ty` at `base`, named `prefix` + member name.
fn flatten_struct(
    view: &Module,
    ty: u32,
    prefix: &str,
    base: u32,
    out: &mut Vec<UniformMember>,
) -> Result<(), SceneError> {
    let member_types: Vec<u32> = view.struct_members(ty).unwrap_or_default().to_vec();
    for (m, &mty) in member_types.iter().enumerate() {
        let m = m as u32;
        let name = view.member_name(ty, m).unwrap_or_default();
        let offset = base
            + view
                .member_decoration_literal(ty, m, Decoration::Offset)
                .unwrap_or(0);
        let layout = MatrixLayout {
            stride: view
                .member_decoration_literal(ty, m, Decoration::MatrixStride)
                .unwrap_or(0),
            row_major: view
                .member_decoration(ty, m, Decoration::RowMajor)
                .is_some(),
        };
        flatten_value(view, mty, &format!("{prefix}{name}"), offset, layout, out)?;
    }
    Ok(())
}

#[derive(Clone, Copy)]
struct MatrixLayout {
    stride: u32,
    row_major: bool,
}

/// The leaves of a value of type `ty` named `name` at `offset`: itself when it is a scalar,
/// vector or matrix (or an array of those), else its elements or members.
fn flatten_value(
    view: &Module,
    ty: u32,
    name: &str,
    offset: u32,
    layout: MatrixLayout,
    out: &mut Vec<UniformMember>,
) -> Result<(), SceneError> {
    let stride_of = |t: u32| {
        view.decoration_literal(t, Decoration::ArrayStride)
            .unwrap_or(16)
    };
    let array = view.array_length(ty);
    // A scalar, vector or matrix, or an array of them, is one member.
    let leaf = match array {
        Some((elem, len)) => shape(view, elem).map(|s| (s, Some((len, stride_of(ty))))),
        None => shape(view, ty).map(|s| (s, None)),
    };
    if let Some(((scalar, columns, rows), array)) = leaf {
        out.push(UniformMember {
            name: name.to_string(),
            offset,
            scalar,
            columns,
            rows,
            matrix_stride: layout.stride,
            array,
            row_major: layout.row_major && columns > 1,
        });
        return Ok(());
    }
    if let Some((elem, len)) = array {
        let stride = stride_of(ty);
        for i in 0..len {
            flatten_value(
                view,
                elem,
                &format!("{name}[{i}]"),
                offset + i * stride,
                layout,
                out,
            )?;
        }
        return Ok(());
    }
    match view.global_op(ty) {
        Some(Op::TypeStruct) => flatten_struct(view, ty, &format!("{name}."), offset, out),
        _ => Err(SceneError::Skip(format!(
            "uniform `{name}`: its type is not supported"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_of_arrays_of_arrays_are_row_major() {
        assert_eq!(subscripts(2, &[2, 2]), "[1][0]");
        assert_eq!(subscripts(5, &[2, 3]), "[1][2]");
        assert_eq!(subscripts(3, &[4]), "[3]");
    }
}
