//! Writing a generated stage from scratch (the passthrough TCS, the primitive-mode geometry
//! shader): a module head taken from the stage it serves, the interface variables, types
//! copied from the application's modules, and `main`'s body.

use super::error::PassError;
use super::module::{Editor, Instruction, Module, Section, INTERFACE_LISTS_ALL_GLOBALS};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};
use std::collections::HashMap;

/// Which application module a copied type came from (type ids are per module).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    Vertex,
    TessEval,
}

/// The sections of a generated stage that come from `source`: its SPIR-V version, `Shader`,
/// `stage_capability` and `source`'s capabilities (the generated stage's types are copies of
/// `source`'s, so those suffice, and the pipeline already enabled their features), its
/// extensions and its memory model. The [`Editor`] adds everything else to this.
pub fn module_head(source: &Module<'_>, stage_capability: Capability) -> Vec<u32> {
    let mut words = vec![super::module::MAGIC, source.words[1], 0, 1, 0];
    let mut capabilities = vec![Capability::Shader as u32, stage_capability as u32];
    let mut extensions = Vec::new();
    let mut memory_model = None;
    for inst in source
        .insts
        .range(..source.section_start(Section::EntryPoint))
    {
        match inst.op() {
            Some(Op::Capability) if !capabilities.contains(&inst.operand(0)) => {
                capabilities.push(inst.operand(0))
            }
            Some(Op::Extension) => extensions.extend_from_slice(inst.words),
            Some(Op::MemoryModel) => memory_model = Some(inst.words),
            _ => {}
        }
    }
    for cap in capabilities {
        // As the source declares it: a capability this crate's spirv does not know stays.
        Instruction::new(Op::Capability)
            .operand(cap)
            .append_to(&mut words);
    }
    words.extend_from_slice(&extensions);
    match memory_model {
        Some(inst) => words.extend_from_slice(inst),
        None => {
            Instruction::memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450)
                .append_to(&mut words)
        }
    }
    words
}

/// The struct type of the output `gl_PerVertex` block of `entry` (a `model` entry point).
pub fn output_per_vertex_block(m: &Module<'_>, entry: &str, model: ExecutionModel) -> Option<u32> {
    let ep = m.entry_point(entry, model)?;
    ep.interface.iter().find_map(|&v| match m.variable(v) {
        Some((StorageClass::Output, pointee)) if m.is_builtin_block(pointee) => Some(pointee),
        _ => None,
    })
}

/// The most literal words of an array-length constant a copy takes; a wider one is taken for
/// a malformed module (a 64-bit length has two).
const MAX_LENGTH_WORDS: usize = 3;

/// Decorations that make two stages' interfaces match, copied from the application's
/// interface onto a generated stage's.
pub fn interface_decoration(d: Decoration) -> bool {
    matches!(
        d,
        Decoration::Location
            | Decoration::Component
            | Decoration::Flat
            | Decoration::NoPerspective
            | Decoration::Centroid
            | Decoration::Sample
            | Decoration::Patch
            | Decoration::BuiltIn
            | Decoration::Block
            | Decoration::RelaxedPrecision
    )
}

/// A stage being written: an [`Editor`] over its [`module_head`], the body of `main` and what
/// the entry point and the type copies need besides.
pub struct StageWriter<'m, 'a> {
    pub e: Editor<'m, 'a>,
    pub body: Vec<u32>,
    /// Input and Output variables (every global for SPIR-V ≥ 1.4).
    pub interface: Vec<u32>,
    /// Types already copied from a source module.
    copied: HashMap<(Source, u32), u32>,
}

impl<'m, 'a> StageWriter<'m, 'a> {
    pub fn new(mut e: Editor<'m, 'a>) -> Self {
        // What a stage with a handful of varyings needs; more grows as it must.
        for (section, words) in [
            (Section::Debug, 256),
            (Section::Annotation, 256),
            (Section::Global, 512),
        ] {
            e.reserve(section, words);
        }
        StageWriter {
            e,
            body: Vec::with_capacity(256),
            interface: Vec::new(),
            copied: HashMap::with_capacity(32),
        }
    }

    /// A global variable that is part of the entry point's interface.
    pub fn variable(&mut self, storage: StorageClass, pointee: u32, name: &str) -> u32 {
        let id = self.e.add_variable(storage, pointee);
        self.interface.push(id);
        if !name.is_empty() {
            self.e.name(id, name);
        }
        id
    }

    /// A `storage` variable of `ty` decorated as `builtin`.
    pub fn builtin(&mut self, storage: StorageClass, ty: u32, name: &str, builtin: BuiltIn) -> u32 {
        let var = self.variable(storage, ty, name);
        self.e.decorate(var, Decoration::BuiltIn, &[builtin as u32]);
        var
    }

    /// The value of the input built-in `builtin` (of `ty`), declared and loaded in `main`.
    pub fn load_builtin_input(&mut self, ty: u32, name: &str, builtin: BuiltIn) -> u32 {
        let var = self.builtin(StorageClass::Input, ty, name, builtin);
        self.e.load(&mut self.body, ty, var)
    }

    /// Copies type `ty` of module `m` (and the types it is built from) into the stage;
    /// struct types keep the decorations `keep` selects.
    pub fn copy_type(
        &mut self,
        m: &Module<'_>,
        src: Source,
        ty: u32,
        keep: fn(Decoration) -> bool,
    ) -> Result<u32, PassError> {
        self.copy_type_nested(m, src, ty, keep, 0)
    }

    /// [`StageWriter::copy_type`] at nesting `depth`: a malformed module may declare a type
    /// that contains itself, which must end in an error, not a stack overflow.
    fn copy_type_nested(
        &mut self,
        m: &Module<'_>,
        src: Source,
        ty: u32,
        keep: fn(Decoration) -> bool,
        depth: u32,
    ) -> Result<u32, PassError> {
        const MAX_DEPTH: u32 = 64;
        if let Some(&id) = self.copied.get(&(src, ty)) {
            return Ok(id);
        }
        let bad = || PassError::Unsupported(format!("cannot copy type %{ty}"));
        if depth > MAX_DEPTH {
            return Err(bad());
        }
        let inst = m.insts.at(*m.globals.get(&ty).ok_or_else(bad)?);
        let ops = &inst.operands()[1..];
        let op = inst.op().ok_or_else(bad)?;
        let operand_count = match op {
            Op::TypeBool => 0,
            Op::TypeInt | Op::TypeVector | Op::TypeMatrix | Op::TypeArray => 2,
            Op::TypeFloat => ops.len().clamp(1, 2), // an optional FP encoding
            _ => ops.len(),
        };
        if op != Op::TypeStruct && ops.len() != operand_count {
            return Err(bad());
        }
        let id = match op {
            op @ (Op::TypeBool | Op::TypeInt | Op::TypeFloat) => self.e.type_with_operands(op, ops),
            op @ (Op::TypeVector | Op::TypeMatrix) => {
                let component = self.copy_type_nested(m, src, ops[0], keep, depth + 1)?;
                self.e.type_with_operands(op, &[component, ops[1]])
            }
            Op::TypeArray => {
                let element = self.copy_type_nested(m, src, ops[0], keep, depth + 1)?;
                let length_inst = m.insts.at(*m.globals.get(&ops[1]).ok_or_else(bad)?);
                if length_inst.op() != Some(Op::Constant) {
                    return Err(PassError::Unsupported(format!(
                        "array %{ty} has a specialization-constant length"
                    )));
                }
                let value = &length_inst.operands()[2..];
                if value.is_empty() || value.len() > MAX_LENGTH_WORDS {
                    return Err(bad());
                }
                let length_ty =
                    self.copy_type_nested(m, src, length_inst.operand(0), keep, depth + 1)?;
                let length = self.e.constant_words(length_ty, value);
                self.e.type_array_of_length(element, length)
            }
            Op::TypeStruct => {
                let members = ops
                    .iter()
                    .map(|&member| self.copy_type_nested(m, src, member, keep, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                let id = self.e.type_struct(&members);
                self.copy_decorations(m, ty, id, keep);
                for (member, d, lits) in m.member_decorations.get(&ty).into_iter().flatten() {
                    if keep(*d) {
                        self.e.member_decorate(id, *member, *d, lits);
                    }
                }
                if let Some(name) = m.names.get(&ty) {
                    self.e.name(id, &name.decode());
                }
                id
            }
            _ => return Err(bad()),
        };
        self.copied.insert((src, ty), id);
        Ok(id)
    }

    /// Copies the decorations `keep` selects of `from` (in `m`) onto `to`.
    pub fn copy_decorations(
        &mut self,
        m: &Module<'_>,
        from: u32,
        to: u32,
        keep: fn(Decoration) -> bool,
    ) {
        for (d, lits) in m.decorations.get(&from).into_iter().flatten() {
            if keep(*d) {
                self.e.decorate(to, *d, lits);
            }
        }
    }

    /// `*dst = *src` for a value of type `ty`: `src` and `dst` are access chains from
    /// `input` and `output` through `src_indices` and `dst_indices`.
    pub fn copy_element(
        &mut self,
        ty: u32,
        (input, src_indices): (u32, &[u32]),
        (output, dst_indices): (u32, &[u32]),
    ) {
        let (e, code) = (&mut self.e, &mut self.body);
        let src = e.access_chain_to(code, StorageClass::Input, ty, input, src_indices);
        let value = e.load(code, ty, src);
        let dst = e.access_chain_to(code, StorageClass::Output, ty, output, dst_indices);
        e.store(code, dst, value);
    }

    /// Adds the `model` entry point `main` with its execution modes (`(mode, literals)`) and
    /// its body; the interface lists every global from SPIR-V 1.4 on (`extra_globals`
    /// besides the interface variables).
    pub fn finish(
        mut self,
        source: &Module<'_>,
        model: ExecutionModel,
        modes: &[(ExecutionMode, &[u32])],
        extra_globals: &[u32],
    ) -> Result<Vec<u32>, PassError> {
        let e = &mut self.e;
        let void = e.type_void();
        let fn_ty = e.type_function(void, &[]);
        let main = e.new_id();
        let label = e.new_id();
        e.name(main, "main");
        if source.version() >= INTERFACE_LISTS_ALL_GLOBALS {
            self.interface.extend_from_slice(extra_globals);
        }
        let entry_point = Instruction::entry_point(model, main, "main", &self.interface);
        e.append_instruction(Section::EntryPoint, &entry_point);
        for &(mode, literals) in modes {
            let mode = Instruction::execution_mode(main, mode, literals);
            e.append_instruction(Section::ExecutionMode, &mode);
        }
        e.reserve(Section::Function, self.body.len() + 16);
        let function = Instruction::function(void, main, 0, fn_ty);
        e.append_instruction(Section::Function, &function);
        e.append_instruction(Section::Function, &Instruction::label(label));
        e.append_words(Section::Function, &self.body);
        e.append_instruction(Section::Function, &Instruction::return_void());
        e.append_instruction(Section::Function, &Instruction::function_end());
        self.e.finish()
    }
}
