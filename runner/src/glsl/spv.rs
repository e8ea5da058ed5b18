//! The bridge from the passes to glsem-spirv, and the lookups the passes share.
//!
//! [`edit_words`] runs glsem-spirv's `Editor` over a stage's module (kept as rspirv's
//! `dr::Module` between passes, as glslang's output is loaded): every edit, declarations
//! and function bodies alike, goes through it; [`read_words`] gives the passes that look
//! before they edit the same word view. What the body rewrites share on top of the
//! Editor: [`remove_definitions`], [`rename_uses`] (through glsem-spirv's operand walk),
//! [`row_major_strides`] and [`flat_index`]. `Types` stays for the passes' and the
//! introspection's questions about a stage (names, decorations, shapes, Location counts by
//! glsem-spirv's layout, GL's transform-feedback varyings), which the crate's view does
//! not answer in GL's terms.

use std::collections::HashMap;

use glsem_spirv::layout;
use glsem_spirv::module::{Editor, Module, Section};
use glsem_spirv::operands::for_each_id_operand_mut;
use rspirv::binary::Assemble;
use rspirv::dr::{self, Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

use super::description::Scalar;
use crate::scene::ShaderStage;

/// A decoration and its literal operands.
type Decorations = Vec<(Decoration, Vec<u32>)>;

/// Lookup tables over one module's types, names and decorations.
pub(super) struct Types {
    pub(super) defs: HashMap<u32, Instruction>,
    pub(super) names: HashMap<u32, String>,
    pub(super) member_names: HashMap<(u32, u32), String>,
    decorations: HashMap<u32, Decorations>,
    member_decorations: HashMap<(u32, u32), Decorations>,
    /// The Locations of each interface type, by glsem-spirv's layout.
    location_slots: HashMap<u32, u32>,
}

pub(super) fn literal(op: &Operand) -> Option<u32> {
    match op {
        Operand::LiteralBit32(v) => Some(*v),
        _ => None,
    }
}

pub(super) fn id(op: &Operand) -> Option<u32> {
    match op {
        Operand::IdRef(v) => Some(*v),
        _ => None,
    }
}

impl Types {
    pub(super) fn new(module: &dr::Module) -> Self {
        let mut t = Types {
            defs: HashMap::new(),
            names: HashMap::new(),
            member_names: HashMap::new(),
            decorations: HashMap::new(),
            member_decorations: HashMap::new(),
            location_slots: location_slots(module),
        };
        for inst in &module.types_global_values {
            if let Some(rid) = inst.result_id {
                t.defs.insert(rid, inst.clone());
            }
        }
        for inst in &module.debug_names {
            match (inst.class.opcode, inst.operands.as_slice()) {
                (Op::Name, [Operand::IdRef(target), Operand::LiteralString(s)]) => {
                    t.names.insert(*target, s.clone());
                }
                (
                    Op::MemberName,
                    [Operand::IdRef(target), Operand::LiteralBit32(m), Operand::LiteralString(s)],
                ) => {
                    t.member_names.insert((*target, *m), s.clone());
                }
                _ => {}
            }
        }
        for inst in &module.annotations {
            match (inst.class.opcode, inst.operands.as_slice()) {
                (Op::Decorate, [Operand::IdRef(target), Operand::Decoration(d), rest @ ..]) => {
                    t.decorations
                        .entry(*target)
                        .or_default()
                        .push((*d, rest.iter().filter_map(literal).collect()));
                }
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(target), Operand::LiteralBit32(m), Operand::Decoration(d), rest @ ..],
                ) => {
                    t.member_decorations
                        .entry((*target, *m))
                        .or_default()
                        .push((*d, rest.iter().filter_map(literal).collect()));
                }
                _ => {}
            }
        }
        t
    }

    pub(super) fn decoration(&self, target: u32, d: Decoration) -> Option<&[u32]> {
        self.decorations
            .get(&target)?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, v)| v.as_slice())
    }

    /// The first literal of a decoration (`ArrayStride 16` → 16).
    pub(super) fn decoration_value(&self, target: u32, d: Decoration) -> Option<u32> {
        self.decoration(target, d).and_then(|v| v.first().copied())
    }

    /// The literal operands of a member decoration (empty for `BuiltIn`, `RowMajor`, ...).
    pub(super) fn member_decoration(&self, ty: u32, member: u32, d: Decoration) -> Option<&[u32]> {
        self.member_decorations
            .get(&(ty, member))?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, v)| v.as_slice())
    }

    pub(super) fn member_literal(&self, ty: u32, member: u32, d: Decoration) -> Option<u32> {
        self.member_decoration(ty, member, d)
            .and_then(|v| v.first().copied())
    }

    pub(super) fn def(&self, ty: u32) -> Option<&Instruction> {
        self.defs.get(&ty)
    }

    pub(super) fn pointee(&self, ptr: u32) -> Option<u32> {
        let inst = self.def(ptr)?;
        (inst.class.opcode == Op::TypePointer).then(|| inst.operands.get(1).and_then(id))?
    }

    pub(super) fn constant(&self, cid: u32) -> Option<u32> {
        let inst = self.def(cid)?;
        (inst.class.opcode == Op::Constant).then(|| inst.operands.first().and_then(literal))?
    }

    /// (length, element type) of an array type.
    pub(super) fn array(&self, ty: u32) -> Option<(u32, u32)> {
        let inst = self.def(ty)?;
        if inst.class.opcode != Op::TypeArray {
            return None;
        }
        let elem = inst.operands.first().and_then(id)?;
        let len = self.constant(inst.operands.get(1).and_then(id)?)?;
        Some((len, elem))
    }

    /// Interface Locations a value of `ty` occupies (Vulkan "Location Assignment"), by the
    /// layer's rule (`glsem_spirv::layout`); a type that is no interface type, or an array
    /// whose length is not a plain constant, takes one Location, as a scalar does.
    pub(super) fn slots(&self, ty: u32) -> u32 {
        self.location_slots.get(&ty).copied().unwrap_or(1)
    }

    fn scalar_width(&self, ty: u32) -> u32 {
        self.def(ty)
            .and_then(|i| i.operands.first().and_then(literal))
            .unwrap_or(32)
    }

    fn scalar(&self, ty: u32) -> Option<Scalar> {
        let inst = self.def(ty)?;
        Some(match inst.class.opcode {
            Op::TypeFloat if self.scalar_width(ty) == 64 => Scalar::Double,
            Op::TypeFloat => Scalar::Float,
            Op::TypeInt if inst.operands.get(1).and_then(literal) == Some(1) => Scalar::Int,
            Op::TypeInt => Scalar::Uint,
            Op::TypeBool => Scalar::Bool,
            _ => return None,
        })
    }

    /// (scalar, columns, rows) of a scalar, vector or matrix type.
    pub(super) fn shape(&self, ty: u32) -> Option<(Scalar, u32, u32)> {
        let inst = self.def(ty)?;
        match inst.class.opcode {
            Op::TypeVector => {
                let (s, _, _) = self.shape(inst.operands.first().and_then(id)?)?;
                Some((s, 1, inst.operands.get(1).and_then(literal)?))
            }
            Op::TypeMatrix => {
                let (s, _, rows) = self.shape(inst.operands.first().and_then(id)?)?;
                Some((s, inst.operands.get(1).and_then(literal)?, rows))
            }
            _ => Some((self.scalar(ty)?, 1, 1)),
        }
    }

    fn is_builtin(&self, var: u32, ty: u32) -> bool {
        if self.decoration(var, Decoration::BuiltIn).is_some() {
            return true;
        }
        // gl_PerVertex blocks (possibly arrayed) carry BuiltIn on their members.
        let ty = self.array(ty).map(|(_, e)| e).unwrap_or(ty);
        self.member_decorations.keys().any(|(t, m)| {
            *t == ty
                && self
                    .member_decoration(ty, *m, Decoration::BuiltIn)
                    .is_some()
        })
    }

    /// Input/Output variables that are not built-ins: (var id, storage, pointee type).
    pub(super) fn interface_variables(&self, module: &dr::Module) -> Vec<(u32, StorageClass, u32)> {
        module
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(|i| {
                let storage = match i.operands.first() {
                    Some(Operand::StorageClass(
                        s @ (StorageClass::Input | StorageClass::Output),
                    )) => *s,
                    _ => return None,
                };
                let var = i.result_id?;
                let ty = self.pointee(i.result_type?)?;
                (!self.is_builtin(var, ty)).then_some((var, storage, ty))
            })
            .collect()
    }
}

/// The Locations of each interface type of `module`.
fn location_slots(module: &dr::Module) -> HashMap<u32, u32> {
    let words = module.assemble();
    let Ok(view) = Module::parse(&words) else {
        return HashMap::new();
    };
    view.types
        .keys()
        .filter_map(|&ty| Some((ty, layout::location_slots(&view, ty)?)))
        .collect()
}

/// Runs `edit` over `module` through glsem-spirv's view and [`Editor`], then puts the
/// edited module back, for passes that edit words between passes that still work on
/// rspirv's `dr::Module`.
pub(super) fn edit_words<T>(module: &mut dr::Module, edit: impl FnOnce(&mut Editor) -> T) -> T {
    let words = module.assemble();
    // rspirv assembles its sections in order and with unique ids: what the view checks.
    let view = Module::parse(&words).expect("an assembled module is well-formed");
    let mut editor = Editor::new(&view);
    let result = edit(&mut editor);
    let edited = editor
        .finish()
        .expect("a link pass adds a few ids, far from SPIR-V's bound");
    *module = dr::load_words(&edited).expect("the editor writes a loadable module");
    result
}

/// Runs `read` over glsem-spirv's view of `module`, for passes that look before they edit.
pub(super) fn read_words<T>(module: &dr::Module, read: impl FnOnce(&Module) -> T) -> T {
    let words = module.assemble();
    read(&Module::parse(&words).expect("an assembled module is well-formed"))
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

/// Removes the global instructions that define the ids `gone` says go, and the names and
/// decorations of those ids.
pub(super) fn remove_definitions(editor: &mut Editor, gone: impl Fn(u32) -> bool) {
    let view = editor.module;
    let described = view.section_start(Section::Debug)..view.section_start(Section::Global);
    for index in described.chain(view.section_range(Section::Global)) {
        let inst = &view.insts[index];
        let target = match inst.op() {
            Some(Op::Name | Op::MemberName | Op::Decorate | Op::MemberDecorate) => {
                Some(inst.operand(0))
            }
            _ => inst.result_id(),
        };
        if target.is_some_and(&gone) {
            editor.remove(index);
        }
    }
}

/// Puts `renamed(id)`, where it is `Some`, in place of each id the functions' instructions
/// use (their result ids stay).
pub(super) fn rename_uses(editor: &mut Editor, renamed: impl Fn(u32) -> Option<u32>) {
    let view = editor.module;
    for index in view.section_range(Section::Function) {
        let mut words = view.insts[index].words.to_vec();
        let mut changed = false;
        for_each_id_operand_mut(&mut words, |id| {
            if let Some(new) = renamed(*id) {
                *id = new;
                changed = true;
            }
        })
        .expect("glslang emits only opcodes of the grammar");
        if changed {
            editor.replace(index, words);
        }
    }
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

/// The element type of an unsized array type.
pub(super) fn runtime_array(types: &Types, ty: u32) -> Option<u32> {
    let inst = types.def(ty)?;
    (inst.class.opcode == Op::TypeRuntimeArray).then(|| inst.operands.first().and_then(id))?
}

impl Types {
    /// GL's count of transform-feedback varyings: every captured output (with `Offset`),
    /// structs and blocks expanded to their members and arrays of them to their elements;
    /// a scalar, vector or matrix, or an array of them, is one varying.
    pub(super) fn xfb_varyings(&self, module: &dr::Module) -> u32 {
        fn leaves(t: &Types, ty: u32) -> u32 {
            match t.def(ty).map(|i| i.class.opcode) {
                Some(Op::TypeStruct) => {
                    let members: Vec<u32> = t
                        .def(ty)
                        .map(|i| i.operands.iter().filter_map(id).collect())
                        .unwrap_or_default();
                    members.iter().map(|&m| leaves(t, m)).sum()
                }
                Some(Op::TypeArray) => match t.array(ty) {
                    Some((len, elem))
                        if matches!(
                            t.def(elem).map(|i| i.class.opcode),
                            Some(Op::TypeStruct | Op::TypeArray)
                        ) =>
                    {
                        len * leaves(t, elem)
                    }
                    _ => 1,
                },
                _ => 1,
            }
        }
        let mut count = 0;
        for inst in module
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
        {
            if inst.operands.first() != Some(&Operand::StorageClass(StorageClass::Output)) {
                continue;
            }
            let (Some(var), Some(ptr)) = (inst.result_id, inst.result_type) else {
                continue;
            };
            let ty = self.pointee(ptr).unwrap_or(0);
            if self.decoration(var, Decoration::Offset).is_some() {
                count += leaves(self, ty);
                continue;
            }
            // A block whose members carry the offsets, possibly an array of blocks.
            let mut copies = 1;
            let mut block = ty;
            while let Some((len, elem)) = self.array(block) {
                copies *= len;
                block = elem;
            }
            let members: Vec<u32> = match self.def(block) {
                Some(i) if i.class.opcode == Op::TypeStruct => {
                    i.operands.iter().filter_map(id).collect()
                }
                _ => continue,
            };
            let captured: u32 = members
                .iter()
                .enumerate()
                .filter(|(m, _)| {
                    self.member_decoration(block, *m as u32, Decoration::Offset)
                        .is_some()
                        && self
                            .member_decoration(block, *m as u32, Decoration::BuiltIn)
                            .is_none()
                })
                .map(|(_, &mty)| leaves(self, mty))
                .sum();
            count += copies * captured;
        }
        count
    }
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
