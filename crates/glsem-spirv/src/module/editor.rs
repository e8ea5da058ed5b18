//! The editor: [`Editor`] builds a new module from a [`Module`], copying untouched
//! instructions word for word and writing what a pass adds through [`Instruction`].

use rustc_hash::FxHashMap as HashMap;
use spirv::{Decoration, Op, StorageClass};

use super::instruction::Instruction;
use super::view::{EntryPoint, Module, Section};
use super::words::{decode_string, Inst, HEADER_WORDS};
use crate::error::{PassError, MAX_BOUND};

/// Stands for the result id in a find-or-add key: the id a type or constant gets is not
/// part of what it is.
const ID_MARKER: u32 = u32::MAX;

/// Typed emitters of two-operand instructions: `name(code, ty, a, b)` appends `Op` with
/// result type `ty` and returns its result id ([`Editor::binary`]).
macro_rules! binary_emitters {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(&mut self, code: &mut Vec<u32>, ty: u32, a: u32, b: u32) -> u32 {
                self.binary(code, Op::$op, ty, a, b)
            }
        )*
    };
}

/// Builds a new module from a [`Module`]: untouched instructions are copied word for word;
/// a pass replaces, removes or prefixes individual instructions and appends to sections.
pub struct Editor<'m, 'a> {
    pub module: &'m Module<'a>,
    bound: u32,
    /// Instruction index → words that replace it (empty: removed).
    replaced: HashMap<usize, Vec<u32>>,
    /// Instruction index → words inserted before it.
    before: HashMap<usize, Vec<u32>>,
    /// `(instruction index, word within it, new value)`: in-place patches.
    patched: Vec<(usize, usize, u32)>,
    /// Words appended at the end of each section.
    appended: [Vec<u32>; 10],
    /// Types and constants this editor added, for find-or-add, keyed by their instruction
    /// with [`ID_MARKER`] for the result id (and capabilities, with their own instruction).
    added_types: HashMap<Instruction, u32>,
}

impl<'m, 'a> Editor<'m, 'a> {
    pub fn new(module: &'m Module<'a>) -> Self {
        Editor {
            module,
            bound: module.bound,
            replaced: HashMap::default(),
            before: HashMap::default(),
            patched: Vec::new(),
            appended: Default::default(),
            added_types: HashMap::default(),
        }
    }

    pub fn new_id(&mut self) -> u32 {
        let id = self.bound;
        self.bound += 1;
        id
    }

    /// Replaces instruction `index` with `words` (any number of instructions, or none).
    pub fn replace(&mut self, index: usize, words: Vec<u32>) {
        self.replaced.insert(index, words);
    }

    pub fn remove(&mut self, index: usize) {
        self.replaced.insert(index, Vec::new());
    }

    /// Overwrites word `word` (0 is the opcode word) of instruction `index`, for edits that
    /// keep the instruction's length, such as a new result type. Cheaper than [`replace`]
    /// when a pass retypes many instructions. Ignored if the instruction is replaced.
    ///
    /// [`replace`]: Editor::replace
    pub fn patch_word(&mut self, index: usize, word: usize, value: u32) {
        assert!(word < self.module.insts.at(index).words.len());
        self.patched.push((index, word, value));
    }

    /// Inserts `words` before instruction `index` (after earlier insertions there).
    pub fn insert_before(&mut self, index: usize, words: &[u32]) {
        self.before
            .entry(index)
            .or_default()
            .extend_from_slice(words);
    }

    /// Appends an instruction at the end of `section` (for [`Section::Function`]: a new
    /// function after the module's last one).
    pub fn append(&mut self, section: Section, op: Op, operands: &[u32]) {
        self.append_instruction(section, &Instruction::new(op).operands(operands));
    }

    /// Appends `instruction` at the end of `section`.
    pub fn append_instruction(&mut self, section: Section, instruction: &Instruction) {
        instruction.append_to(&mut self.appended[section as usize]);
    }

    /// Makes room for `words` more words appended to `section`: a generator that writes a
    /// whole module through the editor (the TCS) knows roughly how much, and growing the
    /// buffers step by step is most of its allocations. For [`Section::Global`] it also
    /// makes room for about one find-or-add entry per 8 words.
    pub fn reserve(&mut self, section: Section, words: usize) {
        self.appended[section as usize].reserve(words);
        if section == Section::Global {
            self.added_types.reserve(words / 8);
        }
    }

    pub fn append_words(&mut self, section: Section, words: &[u32]) {
        self.appended[section as usize].extend_from_slice(words);
    }

    pub fn add_capability(&mut self, cap: spirv::Capability) {
        let present = self.module.declares_capability(cap);
        let capability = Instruction::capability(cap);
        if !present && !self.added_types.contains_key(&capability) {
            self.append_instruction(Section::Capability, &capability);
            self.added_types.insert(capability, 0);
        }
    }

    pub fn decorate(&mut self, id: u32, d: Decoration, literals: &[u32]) {
        self.append_instruction(Section::Annotation, &Instruction::decorate(id, d, literals));
    }

    pub fn member_decorate(&mut self, id: u32, member: u32, d: Decoration, literals: &[u32]) {
        let decoration = Instruction::member_decorate(id, member, d, literals);
        self.append_instruction(Section::Annotation, &decoration);
    }

    /// Adds `ids` to the interface of entry point `ep` (call once per entry point: the
    /// instruction is replaced). Before SPIR-V 1.4 an interface lists only Input and
    /// Output variables, so `non_io` ids are added only from 1.4 on.
    pub fn extend_interface(&mut self, ep: &EntryPoint, io: &[u32], non_io: &[u32]) {
        let mut interface = ep.interface.clone();
        interface.extend_from_slice(io);
        if self.module.version() >= INTERFACE_LISTS_ALL_GLOBALS {
            interface.extend_from_slice(non_io);
        }
        if interface.len() != ep.interface.len() {
            let words = entry_point_with_interface(&self.module.insts.at(ep.index), &interface);
            self.replace(ep.index, words);
        }
    }

    pub fn name(&mut self, id: u32, name: &str) {
        self.append_instruction(Section::Debug, &Instruction::name(id, name));
    }

    /// Finds a global type or constant with exactly these operands (result id excluded),
    /// or adds one at the end of the global section.
    fn find_or_add(
        &mut self,
        op: Op,
        operands_before_id: &[u32],
        operands_after_id: &[u32],
    ) -> u32 {
        let n = operands_before_id.len();
        let mut instruction = Instruction::new(op)
            .operands(operands_before_id)
            .operand(ID_MARKER)
            .operands(operands_after_id);
        if let Some(&id) = self.added_types.get(&instruction) {
            return id;
        }
        let m = self.module;
        let start = m.section_start(Section::Global);
        let end = m.section_start(Section::Function);
        let found = m.insts.range(start..end).find(|i| {
            let ops = i.operands();
            i.opcode() == op as u16
                && ops.len() == n + 1 + operands_after_id.len()
                && ops[..n] == *operands_before_id
                && ops[n + 1..] == *operands_after_id
        });
        let (key, id) = match found {
            Some(i) => (instruction, i.operands()[n]),
            None => {
                let key = instruction.clone();
                let id = self.new_id();
                instruction.set_operand(n, id);
                self.append_instruction(Section::Global, &instruction);
                (key, id)
            }
        };
        self.added_types.insert(key, id);
        id
    }

    pub fn type_void(&mut self) -> u32 {
        self.find_or_add(Op::TypeVoid, &[], &[])
    }

    pub fn type_bool(&mut self) -> u32 {
        self.find_or_add(Op::TypeBool, &[], &[])
    }

    pub fn type_int(&mut self, width: u32, signed: bool) -> u32 {
        self.find_or_add(Op::TypeInt, &[], &[width, signed as u32])
    }

    pub fn type_float(&mut self, width: u32) -> u32 {
        self.find_or_add(Op::TypeFloat, &[], &[width])
    }

    pub fn type_vector(&mut self, component: u32, count: u32) -> u32 {
        self.find_or_add(Op::TypeVector, &[], &[component, count])
    }

    pub fn type_array(&mut self, element: u32, length: u32) -> u32 {
        let length_id = self.constant_u32(length);
        self.find_or_add(Op::TypeArray, &[], &[element, length_id])
    }

    pub fn type_pointer(&mut self, storage: StorageClass, pointee: u32) -> u32 {
        self.find_or_add(Op::TypePointer, &[], &[storage as u32, pointee])
    }

    pub fn type_function(&mut self, ret: u32, params: &[u32]) -> u32 {
        let mut ops = vec![ret];
        ops.extend_from_slice(params);
        self.find_or_add(Op::TypeFunction, &[], &ops)
    }

    /// A 32-bit unsigned integer constant.
    pub fn constant_u32(&mut self, value: u32) -> u32 {
        let ty = self.type_int(32, false);
        self.find_or_add(Op::Constant, &[ty], &[value])
    }

    /// A 32-bit float constant.
    pub fn constant_f32(&mut self, value: f32) -> u32 {
        let ty = self.type_float(32);
        self.find_or_add(Op::Constant, &[ty], &[value.to_bits()])
    }

    /// A 32-bit signed integer constant.
    pub fn constant_i32(&mut self, value: i32) -> u32 {
        let ty = self.type_int(32, true);
        self.find_or_add(Op::Constant, &[ty], &[value as u32])
    }

    /// A boolean constant.
    pub fn constant_bool(&mut self, value: bool) -> u32 {
        let ty = self.type_bool();
        let op = if value {
            Op::ConstantTrue
        } else {
            Op::ConstantFalse
        };
        self.find_or_add(op, &[ty], &[])
    }

    /// A constant of composite type `ty` made of the constants `parts`.
    pub fn constant_composite(&mut self, ty: u32, parts: &[u32]) -> u32 {
        self.find_or_add(Op::ConstantComposite, &[ty], parts)
    }

    /// The zero (or null) value of `ty`.
    pub fn constant_null(&mut self, ty: u32) -> u32 {
        self.find_or_add(Op::ConstantNull, &[ty], &[])
    }

    /// A constant of type `ty` with the literal words `value` (one word for types of up to
    /// 32 bits, low word first for wider ones).
    pub fn constant_words(&mut self, ty: u32, value: &[u32]) -> u32 {
        self.find_or_add(Op::Constant, &[ty], value)
    }

    /// A non-aggregate type `op` with the operands `operands` after its result id, declared
    /// once: for copying a type as another module declares it (a float with an encoding,
    /// a matrix).
    pub fn type_with_operands(&mut self, op: Op, operands: &[u32]) -> u32 {
        self.find_or_add(op, &[], operands)
    }

    /// An array of `element` whose length is the constant `length` (any integer type),
    /// declared once.
    pub fn type_array_of_length(&mut self, element: u32, length: u32) -> u32 {
        self.find_or_add(Op::TypeArray, &[], &[element, length])
    }

    /// A new struct type: SPIR-V structs are not unique (each may carry its own
    /// decorations), so every call declares one.
    pub fn type_struct(&mut self, members: &[u32]) -> u32 {
        self.add_global(|id| Instruction::type_struct(id, members))
    }

    /// A new array type, not shared with an identical one: for arrays that carry an
    /// `ArrayStride` (which the undecorated arrays of built-ins must not).
    pub fn type_array_decorated(&mut self, element: u32, length: u32) -> u32 {
        let length_id = self.constant_u32(length);
        self.add_global(|id| Instruction::type_array(id, element, length_id))
    }

    /// Appends the global `declaration` of a new id, made from the id; returns the id.
    /// A new runtime array type, not shared with an identical one (it carries an
    /// `ArrayStride` of its own).
    pub fn type_runtime_array_decorated(&mut self, element: u32) -> u32 {
        self.add_global(|id| Instruction::new(Op::TypeRuntimeArray).operands(&[id, element]))
    }

    fn add_global(&mut self, declaration: impl FnOnce(u32) -> Instruction) -> u32 {
        let id = self.new_id();
        self.append_instruction(Section::Global, &declaration(id));
        id
    }

    /// Adds a global `OpVariable` and returns its id.
    pub fn add_variable(&mut self, storage: StorageClass, pointee: u32) -> u32 {
        let ptr = self.type_pointer(storage, pointee);
        self.add_global(|id| Instruction::variable(ptr, id, storage, None))
    }

    /// Declares the existing variable `id` again, at the end of the globals, in `storage`
    /// with `pointee` and `initializer`: for a variable moved to another storage class,
    /// whose old declaration the caller removes (its uses keep the id).
    pub fn redeclare_variable(
        &mut self,
        id: u32,
        storage: StorageClass,
        pointee: u32,
        initializer: Option<u32>,
    ) {
        let ptr = self.type_pointer(storage, pointee);
        let variable = Instruction::variable(ptr, id, storage, initializer);
        self.append_instruction(Section::Global, &variable);
    }

    /// A new pointer type declared just before instruction `index`, not shared: for a
    /// variable that keeps its place (module-scope debug info may refer to it) and needs
    /// its type declared before it.
    pub fn type_pointer_before(
        &mut self,
        index: usize,
        storage: StorageClass,
        pointee: u32,
    ) -> u32 {
        let id = self.new_id();
        let pointer = Instruction::type_pointer(id, storage, pointee);
        self.insert_before(index, pointer.as_words());
        id
    }

    /// Replaces the decoration at instruction `index` with `d` (and `literals`) on `id`, in
    /// its place.
    pub fn redecorate(&mut self, index: usize, id: u32, d: Decoration, literals: &[u32]) {
        self.replace(index, Instruction::decorate(id, d, literals).to_words());
    }

    // Typed emitters: each appends one instruction to the function-body words `code` and
    // returns its result id, so a pass reads as the expression it computes.

    /// Appends `op` with result type `ty` and `operands` to `code`; returns the result id.
    pub fn emit(&mut self, code: &mut Vec<u32>, op: Op, ty: u32, operands: &[u32]) -> u32 {
        let id = self.new_id();
        self.emit_as(code, op, ty, id, operands);
        id
    }

    /// Appends `op` with result type `ty`, the existing result id `result` and `operands`
    /// to `code`: the last instruction of code that replaces one keeps the replaced
    /// instruction's result id, so that its uses need no rewriting.
    pub fn emit_as(&mut self, code: &mut Vec<u32>, op: Op, ty: u32, result: u32, operands: &[u32]) {
        Instruction::with_result(op, ty, result)
            .operands(operands)
            .append_to(code);
    }

    /// `OpLoad` of a `ty` from `pointer`.
    pub fn load(&mut self, code: &mut Vec<u32>, ty: u32, pointer: u32) -> u32 {
        self.emit(code, Op::Load, ty, &[pointer])
    }

    /// `OpLoad` of a `ty` from `pointer` with the memory operands `memory_access`: for code
    /// that re-issues a load of the module as it is written.
    pub fn load_with_access(
        &mut self,
        code: &mut Vec<u32>,
        ty: u32,
        pointer: u32,
        memory_access: &[u32],
    ) -> u32 {
        let mut ops = vec![pointer];
        ops.extend_from_slice(memory_access);
        self.emit(code, Op::Load, ty, &ops)
    }

    /// `OpStore` of `value` to `pointer`.
    pub fn store(&mut self, code: &mut Vec<u32>, pointer: u32, value: u32) {
        Instruction::store(pointer, value).append_to(code);
    }

    /// `OpAccessChain` from `base` through `indices` (ids); `pointer_type` is the result's
    /// pointer type.
    pub fn access_chain(
        &mut self,
        code: &mut Vec<u32>,
        pointer_type: u32,
        base: u32,
        indices: &[u32],
    ) -> u32 {
        let id = self.new_id();
        Instruction::access_chain(pointer_type, id, base, indices).append_to(code);
        id
    }

    /// `OpAccessChain` to a `pointee` in `storage` (the pointer type found or added).
    pub fn access_chain_to(
        &mut self,
        code: &mut Vec<u32>,
        storage: StorageClass,
        pointee: u32,
        base: u32,
        indices: &[u32],
    ) -> u32 {
        let pointer_type = self.type_pointer(storage, pointee);
        self.access_chain(code, pointer_type, base, indices)
    }

    /// `OpSelect`: `if_true` where `condition` holds, else `if_false`.
    pub fn select(
        &mut self,
        code: &mut Vec<u32>,
        ty: u32,
        condition: u32,
        if_true: u32,
        if_false: u32,
    ) -> u32 {
        self.emit(code, Op::Select, ty, &[condition, if_true, if_false])
    }

    /// `OpCompositeConstruct` of `parts`.
    pub fn composite_construct(&mut self, code: &mut Vec<u32>, ty: u32, parts: &[u32]) -> u32 {
        self.emit(code, Op::CompositeConstruct, ty, parts)
    }

    /// `OpCompositeExtract` of the element at the literal `path` in `composite`.
    pub fn composite_extract(
        &mut self,
        code: &mut Vec<u32>,
        ty: u32,
        composite: u32,
        path: &[u32],
    ) -> u32 {
        let mut ops = Vec::with_capacity(path.len() + 1);
        ops.push(composite);
        ops.extend_from_slice(path);
        self.emit(code, Op::CompositeExtract, ty, &ops)
    }

    /// `OpCompositeInsert`: `composite` (of type `ty`) with `object` at the literal `path`.
    pub fn composite_insert(
        &mut self,
        code: &mut Vec<u32>,
        ty: u32,
        object: u32,
        composite: u32,
        path: &[u32],
    ) -> u32 {
        let id = self.new_id();
        self.composite_insert_as(code, ty, id, object, composite, path);
        id
    }

    binary_emitters! {
        f_add => FAdd;
        f_mul => FMul;
        i_sub => ISub;
        bitwise_and => BitwiseAnd;
        /// `a < b` as signed integers; `ty` is the bool type.
        s_less_than => SLessThan;
        /// `a != b` as integers; `ty` is the bool type.
        i_not_equal => INotEqual;
    }

    /// `OpBitcast` of `value` to `ty`.
    pub fn bitcast(&mut self, code: &mut Vec<u32>, ty: u32, value: u32) -> u32 {
        self.emit(code, Op::Bitcast, ty, &[value])
    }

    /// A two-operand instruction `op` (arithmetic, bitwise, comparison) with result `ty`.
    pub fn binary(&mut self, code: &mut Vec<u32>, op: Op, ty: u32, a: u32, b: u32) -> u32 {
        self.emit(code, op, ty, &[a, b])
    }

    /// A one-operand instruction `op` (negation, derivative, logical not) with result `ty`.
    pub fn unary(&mut self, code: &mut Vec<u32>, op: Op, ty: u32, value: u32) -> u32 {
        self.emit(code, op, ty, &[value])
    }

    // Emitters that keep a result id: the last instruction of code that replaces one takes
    // the replaced instruction's result id, so that its uses need no rewriting.

    /// [`Editor::unary`] whose result is the existing id `result`.
    pub fn unary_as(&mut self, code: &mut Vec<u32>, op: Op, ty: u32, result: u32, value: u32) {
        self.emit_as(code, op, ty, result, &[value]);
    }

    /// [`Editor::binary`] whose result is the existing id `result`.
    pub fn binary_as(&mut self, code: &mut Vec<u32>, op: Op, ty: u32, result: u32, a: u32, b: u32) {
        self.emit_as(code, op, ty, result, &[a, b]);
    }

    /// [`Editor::composite_insert`] whose result is the existing id `result`.
    pub fn composite_insert_as(
        &mut self,
        code: &mut Vec<u32>,
        ty: u32,
        result: u32,
        object: u32,
        composite: u32,
        path: &[u32],
    ) {
        Instruction::with_result(Op::CompositeInsert, ty, result)
            .operand(object)
            .operand(composite)
            .operands(path)
            .append_to(code);
    }

    /// `OpExtInst` on `operands` (the imported set, the instruction, its operands), whose
    /// result is the existing id `result`.
    pub fn ext_inst_as(&mut self, code: &mut Vec<u32>, ty: u32, result: u32, operands: &[u32]) {
        self.emit_as(code, Op::ExtInst, ty, result, operands);
    }

    /// Writes the new module. The header's bound is the editor's.
    ///
    /// Untouched runs of instructions between edit points are copied as whole slices, so the
    /// cost is a memcpy of the module plus the edits, not a lookup per instruction.
    /// Fails only when the edits need more ids than SPIR-V allows.
    pub fn finish(self) -> Result<Vec<u32>, PassError> {
        if self.bound > MAX_BOUND {
            return Err(PassError::TooManyIds { needed: self.bound });
        }
        let m = self.module;
        // Room for every added word (replacements counted whole): growing the output
        // would copy the module once more and double its allocation.
        let extra: usize = self.appended.iter().map(Vec::len).sum::<usize>()
            + self.before.values().map(Vec::len).sum::<usize>()
            + self.replaced.values().map(Vec::len).sum::<usize>();
        let mut out = Vec::with_capacity(m.words.len() + extra);
        out.extend_from_slice(&m.words[..HEADER_WORDS]);
        out[3] = self.bound;
        let mut patched = self.patched;
        patched.sort_by_key(|p| p.0);
        // Edit points: edited instructions and the ends of sections that have appends.
        let mut points: Vec<usize> = self
            .replaced
            .keys()
            .chain(self.before.keys())
            .copied()
            .chain(patched.iter().map(|p| p.0))
            .collect();
        points.extend(
            (0..9)
                .filter(|&s| !self.appended[s].is_empty())
                .map(|s| m.section_starts[s + 1]),
        );
        points.sort_unstable();
        points.dedup();
        let word_at = |index: usize| {
            m.insts
                .get(index)
                .map_or(m.words.len(), |i| i.offset_in(m.words))
        };
        let mut next = 0usize; // first instruction not yet written
        let mut section = 0usize;
        let mut patches = patched.iter().peekable();
        for index in points {
            out.extend_from_slice(&m.words[word_at(next)..word_at(index)]);
            // Flush appends of every section that ends before this instruction.
            while section < 9 && m.section_starts[section + 1] <= index {
                out.extend_from_slice(&self.appended[section]);
                section += 1;
            }
            if index >= m.insts.len() {
                next = index;
                break;
            }
            if let Some(words) = self.before.get(&index) {
                out.extend_from_slice(words);
            }
            let at = out.len();
            let replaced = match self.replaced.get(&index) {
                Some(words) => {
                    out.extend_from_slice(words);
                    true
                }
                None => {
                    out.extend_from_slice(m.insts.at(index).words);
                    false
                }
            };
            while let Some(&(_, word, value)) = patches.next_if(|p| p.0 == index) {
                if !replaced {
                    out[at + word] = value;
                }
            }
            next = index + 1;
        }
        out.extend_from_slice(&m.words[word_at(next)..]);
        for appended in &self.appended[section..] {
            out.extend_from_slice(appended);
        }
        Ok(out)
    }
}

/// SPIR-V 1.4 made entry-point interfaces list every global the entry point uses, Private
/// and PushConstant ones included; before it they list only Input and Output variables.
pub const INTERFACE_LISTS_ALL_GLOBALS: (u32, u32) = (1, 4);

/// Replaces the interface list of an `OpEntryPoint` instruction.
pub fn entry_point_with_interface(inst: &Inst<'_>, interface: &[u32]) -> Vec<u32> {
    let ops = inst.operands();
    let (_, used) = decode_string(&ops[2..]);
    // The model, the function and the name's words as they are: decoding the name and
    // encoding it again would change one that is not UTF-8.
    Instruction::new(Op::EntryPoint)
        .operands(&ops[..2 + used])
        .operands(interface)
        .to_words()
}
