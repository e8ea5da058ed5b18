//! What the passes share on top of glsem-spirv: [`parse`] and [`edit`], a stage's module
//! (SPIR-V words between the passes) read through the crate's view and edited through its
//! `Editor`; the flattened indices of the body rewrites ([`row_major_strides`],
//! [`flat_index`]); and the questions the passes and the introspection ask of a stage in
//! GL's terms, answered from the view: a type's GL [`shape`], its Locations by
//! glsem-spirv's layout, the non-built-in interface variables and GL's count of
//! transform-feedback varyings.

use glsem_spirv::layout;
use glsem_spirv::module::{Editor, Module, Type};
use spirv::{Decoration, Op, StorageClass};

use super::description::Scalar;
use crate::scene::ShaderStage;

/// The view of a stage's module: glslang's output and the assembled `SPIRV ONLY` shaders
/// are checked when loaded, and the Editor writes well-formed modules.
pub(super) fn parse(words: &[u32]) -> Module<'_> {
    Module::parse(words).expect("a stage's module is checked when loaded")
}

/// `ty` less its array dimensions, and their lengths (outermost first).
pub(super) fn strip_arrays(m: &Module, mut ty: u32) -> (u32, Vec<u32>) {
    let mut dims = Vec::new();
    while let Some((element, length)) = m.array_length(ty) {
        dims.push(length);
        ty = element;
    }
    (ty, dims)
}

/// Runs `edit` over `words` through glsem-spirv's [`Editor`], and puts the edited module
/// in their place.
pub(super) fn edit<T>(words: &mut Vec<u32>, edit: impl FnOnce(&mut Editor) -> T) -> T {
    let view = parse(words);
    let mut editor = Editor::new(&view);
    let result = edit(&mut editor);
    let edited = editor
        .finish()
        .expect("a link pass adds a few ids, far from SPIR-V's bound");
    *words = edited;
    result
}

/// Interface Locations a value of `ty` occupies (Vulkan "Location Assignment"), by the
/// layer's rule (`glsem_spirv::layout`); a type that is no interface type, or an array
/// whose length is not a plain constant, takes one Location, as a scalar does.
pub(super) fn location_slots(m: &Module, ty: u32) -> u32 {
    layout::location_slots(m, ty).unwrap_or(1)
}

/// (scalar, columns, rows) of a scalar, vector or matrix type.
pub(super) fn shape(m: &Module, ty: u32) -> Option<(Scalar, u32, u32)> {
    Some(match m.type_of(ty)? {
        Type::Float { width: 64 } => (Scalar::Double, 1, 1),
        Type::Float { .. } => (Scalar::Float, 1, 1),
        Type::Int {
            width: 64,
            signed: true,
        } => (Scalar::Int64, 1, 1),
        Type::Int { width: 64, .. } => (Scalar::Uint64, 1, 1),
        Type::Int { signed: true, .. } => (Scalar::Int, 1, 1),
        Type::Int { .. } => (Scalar::Uint, 1, 1),
        Type::Bool => (Scalar::Bool, 1, 1),
        Type::Vector { component, count } => (shape(m, *component)?.0, 1, *count),
        Type::Matrix { column, columns } => {
            let (scalar, _, rows) = shape(m, *column)?;
            (scalar, *columns, rows)
        }
        _ => return None,
    })
}

/// Whether `var` of type `ty` is a built-in: decorated `BuiltIn`, or a `gl_PerVertex` block
/// (possibly arrayed), whose members carry it.
fn is_builtin(m: &Module, var: u32, ty: u32) -> bool {
    let block = m.array_length(ty).map_or(ty, |(element, _)| element);
    m.has_decoration(var, Decoration::BuiltIn) || m.is_builtin_block(block)
}

/// Input/Output variables that are not built-ins: (var id, storage, pointee type).
pub(super) fn non_builtin_io_variables(m: &Module) -> Vec<(u32, StorageClass, u32)> {
    m.global_variables()
        .filter(|&(var, storage, ty)| {
            matches!(storage, StorageClass::Input | StorageClass::Output) && !is_builtin(m, var, ty)
        })
        .collect()
}

/// Constants for the row-major stride of each dimension: element `[i0][i1]…[ik]` is at
/// `i0·(d1·…·dk) + … + ik`.
pub(super) fn row_major_strides(editor: &mut Editor, dims: &[u32]) -> Vec<u32> {
    (0..dims.len())
        .map(|k| editor.constant_u32(dims[k + 1..].iter().product()))
        .collect()
}

/// Emits Σ index·stride into `code`; `None` without indices.
pub(super) fn flat_index(
    editor: &mut Editor,
    code: &mut Vec<u32>,
    indices: &[u32],
    strides: &[u32],
) -> Option<u32> {
    let uint = editor.type_int(32, false);
    let mut flat = None;
    for (&index, &stride) in indices.iter().zip(strides) {
        let term = editor.binary(code, Op::IMul, uint, index, stride);
        flat = Some(match flat {
            None => term,
            Some(sum) => editor.binary(code, Op::IAdd, uint, sum, term),
        });
    }
    flat
}

/// Whether a stage's variables of this storage class are per-vertex arrays whose outer
/// dimension does not count towards Locations.
pub(super) fn arrayed(stage: ShaderStage, storage: StorageClass) -> bool {
    matches!(
        (stage, storage),
        (ShaderStage::TessControl, _)
            | (ShaderStage::TessEval, StorageClass::Input)
            | (ShaderStage::Geometry, StorageClass::Input)
    )
}

/// GL's count of transform-feedback varyings: every captured output (with `Offset`),
/// structs and blocks expanded to their members and arrays of them to their elements;
/// a scalar, vector or matrix, or an array of them, is one varying.
pub(super) fn xfb_varyings(m: &Module) -> u32 {
    fn leaves(m: &Module, ty: u32) -> u32 {
        match m.type_of(ty) {
            Some(Type::Struct { members }) => members.iter().map(|&member| leaves(m, member)).sum(),
            Some(Type::Array { .. }) => match m.array_length(ty) {
                Some((element, length))
                    if matches!(
                        m.type_of(element),
                        Some(Type::Struct { .. } | Type::Array { .. })
                    ) =>
                {
                    length * leaves(m, element)
                }
                _ => 1,
            },
            _ => 1,
        }
    }
    let mut count = 0;
    for (var, storage, ty) in m.global_variables() {
        if storage != StorageClass::Output {
            continue;
        }
        if m.has_decoration(var, Decoration::Offset) {
            count += leaves(m, ty);
            continue;
        }
        // A block whose members carry the offsets, possibly an array of blocks.
        let mut copies = 1;
        let mut block = ty;
        while let Some((element, length)) = m.array_length(block) {
            copies *= length;
            block = element;
        }
        let Some(members) = m.struct_members(block) else {
            continue;
        };
        let captured: u32 = (0..members.len() as u32)
            .filter(|&member| {
                m.member_decoration(block, member, Decoration::Offset)
                    .is_some()
                    && m.member_decoration(block, member, Decoration::BuiltIn)
                        .is_none()
            })
            .map(|member| leaves(m, members[member as usize]))
            .sum();
        count += copies * captured;
    }
    count
}

/// Asserts that `spirv-val` (Vulkan 1.1) accepts `words`; `name` names the temporary file.
#[cfg(test)]
pub(super) fn assert_valid_vulkan_spirv(words: &[u32], name: &str) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Tests run on threads of one process: each call writes a file of its own.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let spv = std::env::temp_dir().join(format!("{name}_{}_{call}.spv", std::process::id()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&spv, bytes).unwrap();
    let val = std::process::Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1"])
        .arg(&spv)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&spv);
    assert!(
        val.status.success(),
        "{}",
        String::from_utf8_lossy(&val.stderr)
    );
}
