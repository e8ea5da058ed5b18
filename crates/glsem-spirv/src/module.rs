//! A word-level view of a SPIR-V module and an editor that patches it.
//!
//! Passes must not pay for a full parse of an application's module (docs/performance.md), so
//! [`Module`] records only instruction boundaries, the logical-layout sections and lookups
//! over the global instructions; function bodies stay words that [`Editor`] copies through
//! unless a pass replaces or prefixes a particular instruction.
//!
//! New code is written with the editor's typed emitters: find-or-add types and constants
//! (`type_*`, `constant_*`) and instructions appended to a function-body buffer that return
//! their result ids (`load`, `store`, `access_chain`, `select`, `composite_*`, `bitcast`,
//! arithmetic). The generated TCS is built the same way, from a module head of its own.

use rustc_hash::FxHashMap as HashMap;
use spirv::{BuiltIn, Decoration, Op, StorageClass};

use super::error::PassError;
pub use super::error::{ParseError, MAX_BOUND};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Once;

pub const MAGIC: u32 = 0x0723_0203;
pub const HEADER_WORDS: usize = 5;
/// The logical-layout sections of a module (SPIR-V spec 2.4), in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Section {
    Capability,
    Extension,
    ExtInstImport,
    MemoryModel,
    EntryPoint,
    ExecutionMode,
    /// OpString, OpSource*, OpName, OpMemberName, OpModuleProcessed.
    Debug,
    Annotation,
    /// Types, constants, global variables, OpUndef, OpLine, module-scope OpExtInst.
    Global,
    Function,
}

/// Section an opcode belongs to outside function bodies. A match on the numbers: this runs
/// for every global instruction, and `Op::from_u32` is a search over every opcode.
fn section_of(op: u16) -> Section {
    const CAPABILITY: u16 = Op::Capability as u16;
    const EXTENSION: u16 = Op::Extension as u16;
    const EXT_INST_IMPORT: u16 = Op::ExtInstImport as u16;
    const MEMORY_MODEL: u16 = Op::MemoryModel as u16;
    const ENTRY_POINT: u16 = Op::EntryPoint as u16;
    const EXECUTION_MODE: u16 = Op::ExecutionMode as u16;
    const EXECUTION_MODE_ID: u16 = Op::ExecutionModeId as u16;
    const STRING: u16 = Op::String as u16;
    const SOURCE_EXTENSION: u16 = Op::SourceExtension as u16;
    const SOURCE: u16 = Op::Source as u16;
    const SOURCE_CONTINUED: u16 = Op::SourceContinued as u16;
    const NAME: u16 = Op::Name as u16;
    const MEMBER_NAME: u16 = Op::MemberName as u16;
    const MODULE_PROCESSED: u16 = Op::ModuleProcessed as u16;
    const DECORATE: u16 = Op::Decorate as u16;
    const MEMBER_DECORATE: u16 = Op::MemberDecorate as u16;
    const DECORATION_GROUP: u16 = Op::DecorationGroup as u16;
    const GROUP_DECORATE: u16 = Op::GroupDecorate as u16;
    const GROUP_MEMBER_DECORATE: u16 = Op::GroupMemberDecorate as u16;
    const DECORATE_ID: u16 = Op::DecorateId as u16;
    const DECORATE_STRING: u16 = Op::DecorateString as u16;
    const MEMBER_DECORATE_STRING: u16 = Op::MemberDecorateString as u16;
    const FUNCTION: u16 = Op::Function as u16;
    match op {
        CAPABILITY => Section::Capability,
        EXTENSION => Section::Extension,
        EXT_INST_IMPORT => Section::ExtInstImport,
        MEMORY_MODEL => Section::MemoryModel,
        ENTRY_POINT => Section::EntryPoint,
        EXECUTION_MODE | EXECUTION_MODE_ID => Section::ExecutionMode,
        STRING | SOURCE_EXTENSION | SOURCE | SOURCE_CONTINUED | NAME | MEMBER_NAME
        | MODULE_PROCESSED => Section::Debug,
        DECORATE
        | MEMBER_DECORATE
        | DECORATION_GROUP
        | GROUP_DECORATE
        | GROUP_MEMBER_DECORATE
        | DECORATE_ID
        | DECORATE_STRING
        | MEMBER_DECORATE_STRING => Section::Annotation,
        FUNCTION => Section::Function,
        _ => Section::Global,
    }
}

/// `(has result type, has result id)` for every opcode rspirv's grammar knows, filled once.
/// A static array rather than a heap table owned by a static: the loader unloads the layer
/// at vkDestroyInstance, and heap memory owned by a static would leak with every load.
static RESULT_SHAPE: [AtomicU8; 1 << 16] = [const { AtomicU8::new(0) }; 1 << 16];
static RESULT_SHAPE_INIT: Once = Once::new();

fn result_shape(opcode: u16) -> u8 {
    RESULT_SHAPE_INIT.call_once(|| {
        use rspirv::grammar::{CoreInstructionTable, OperandKind};
        for inst in CoreInstructionTable::iter() {
            let kinds = || inst.operands.iter().map(|o| o.kind);
            let has_type = kinds().next() == Some(OperandKind::IdResultType);
            let has_result = kinds().take(2).any(|k| k == OperandKind::IdResult);
            let shape = (has_type as u8) | ((has_result as u8) << 1);
            RESULT_SHAPE[inst.opcode as usize].store(shape, Ordering::Relaxed);
        }
    });
    // call_once makes the stores above visible to every caller that returns from it.
    RESULT_SHAPE[opcode as usize].load(Ordering::Relaxed)
}

/// One instruction: its words (opcode word first), a slice of the module's words. Its
/// position is not stored: a module's instruction index is its largest allocation.
#[derive(Clone, Copy, Debug)]
pub struct Inst<'a> {
    pub words: &'a [u32],
}

impl<'a> Inst<'a> {
    /// Word offset of the instruction in `module`, the words it was read from.
    pub fn offset_in(&self, module: &[u32]) -> usize {
        (self.words.as_ptr() as usize - module.as_ptr() as usize) / std::mem::size_of::<u32>()
    }

    pub fn opcode(&self) -> u16 {
        (self.words[0] & 0xffff) as u16
    }

    pub fn op(&self) -> Option<Op> {
        Op::from_u32(self.opcode() as u32)
    }

    /// The operands after the opcode word (result type and id included).
    pub fn operands(&self) -> &'a [u32] {
        &self.words[1..]
    }

    /// Operand `i` (0 is the first word after the opcode word), 0 when absent.
    pub fn operand(&self, i: usize) -> u32 {
        self.words.get(i + 1).copied().unwrap_or(0)
    }

    pub fn result_type(&self) -> Option<u32> {
        let shape = result_shape(self.opcode());
        (shape & 1 != 0).then(|| self.operand(0))
    }

    pub fn result_id(&self) -> Option<u32> {
        let shape = result_shape(self.opcode());
        match shape {
            3 => Some(self.operand(1)),
            2 => Some(self.operand(0)),
            _ => None,
        }
    }
}

/// Iterates over the instructions of `words` after the header, checking only that every
/// instruction's word count is non-zero and stays inside the module.
pub fn instructions(words: &[u32]) -> impl Iterator<Item = Result<Inst<'_>, ParseError>> {
    let mut at = HEADER_WORDS.min(words.len());
    std::iter::from_fn(move || {
        if at >= words.len() {
            return None;
        }
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            let word = at;
            at = words.len();
            return Some(Err(ParseError::BadInstruction { word }));
        }
        let inst = Inst {
            words: &words[at..at + count],
        };
        at += count;
        Some(Ok(inst))
    })
}

/// How many instructions follow the header (up to the first malformed word count).
fn census(words: &[u32]) -> Census {
    let mut at = HEADER_WORDS;
    let mut census = Census::default();
    while let Some(&word) = words.get(at) {
        let len = (word >> 16) as usize;
        if len == 0 {
            break;
        }
        match (word & 0xffff) as u16 {
            op if op == Op::Name as u16 => census.names += 1,
            op if op == Op::Function as u16 => census.functions += 1,
            op if census.functions == 0 && section_of(op) == Section::Global => census.globals += 1,
            _ => {}
        }
        at += len;
        census.instructions += 1;
    }
    census
}

/// What [`census`] counts, for the sizes of [`Module::parse`]'s index and maps: each map that
/// grows from empty rehashes once per doubling (a tenth of a large module's parse).
#[derive(Default)]
struct Census {
    instructions: usize,
    names: usize,
    functions: usize,
    /// Instructions of the global section: an upper bound of the module's globals.
    globals: usize,
}

/// Why `words` is not a valid header followed by whole instructions, if it is not. Reads
/// every instruction's word count, nothing more.
pub fn structure_error(words: &[u32]) -> Option<ParseError> {
    check_header(words)
        .err()
        .or_else(|| instructions(words).find_map(Result::err))
}

/// Checks the header and returns the id bound.
pub fn check_header(words: &[u32]) -> Result<u32, ParseError> {
    if words.len() < HEADER_WORDS {
        return Err(ParseError::TooShort);
    }
    if words[0] != MAGIC {
        return Err(ParseError::BadMagic(words[0]));
    }
    let bound = words[3];
    if bound == 0 || bound > MAX_BOUND {
        return Err(ParseError::BadBound(bound));
    }
    Ok(bound)
}

/// Decodes a SPIR-V literal string (nul-terminated UTF-8 packed little-endian in words).
pub fn decode_string(words: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (i, w) in words.iter().enumerate() {
        for b in w.to_le_bytes() {
            if b == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), i + 1);
            }
            bytes.push(b);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), words.len())
}

/// Encodes a literal string as SPIR-V words (nul-terminated, zero-padded).
pub fn encode_string(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    bytes.resize(bytes.len().next_multiple_of(4), 0);
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Builds one instruction's words.
pub fn inst(op: Op, operands: &[u32]) -> Vec<u32> {
    let mut words = Vec::with_capacity(operands.len() + 1);
    push_inst(&mut words, op, operands);
    words
}

/// Appends one instruction to `out`.
pub fn push_inst(out: &mut Vec<u32>, op: Op, operands: &[u32]) {
    out.push(((operands.len() as u32 + 1) << 16) | op as u32);
    out.extend_from_slice(operands);
}

/// A type declared in the module, as far as the passes need to know it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    Void,
    Bool,
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    Vector {
        component: u32,
        count: u32,
    },
    Matrix {
        column: u32,
        columns: u32,
    },
    /// `length` is the id of the length constant.
    Array {
        element: u32,
        length: u32,
    },
    RuntimeArray {
        element: u32,
    },
    Struct {
        members: Vec<u32>,
    },
    Pointer {
        storage: StorageClass,
        pointee: u32,
    },
    Function,
    /// Images, samplers and everything the passes never look into.
    Other,
}

impl Type {
    /// The types this one is made of (a pointer's pointee is not a part: pointers may be
    /// forward-declared).
    fn parts(&self) -> impl Iterator<Item = u32> + '_ {
        let (single, members): (Option<u32>, &[u32]) = match self {
            Type::Vector { component, .. } => (Some(*component), &[]),
            Type::Matrix { column, .. } => (Some(*column), &[]),
            Type::Array { element, .. } | Type::RuntimeArray { element } => (Some(*element), &[]),
            Type::Struct { members } => (None, members),
            _ => (None, &[]),
        };
        single.into_iter().chain(members.iter().copied())
    }
}

/// The literal of an `OpName`, decoded only when asked: a module names thousands of ids, and
/// the passes look at a few.
#[derive(Debug, Clone, Copy)]
pub struct Name<'a>(&'a [u32]);

impl Name<'_> {
    pub fn decode(&self) -> String {
        decode_string(self.0).0
    }

    /// The bytes before the nul (or the end).
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.0
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take_while(|&b| b != 0)
    }
}

impl PartialEq<&str> for Name<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.bytes().eq(other.bytes())
    }
}

/// `(member, decoration, literal operands)` of an `OpMemberDecorate`.
pub type MemberDecoration<'a> = (u32, Decoration, &'a [u32]);

/// An `OpEntryPoint`.
#[derive(Debug, Clone)]
pub struct EntryPoint {
    /// Index into [`Module::insts`].
    pub index: usize,
    pub model: spirv::ExecutionModel,
    pub function: u32,
    pub name: String,
    pub interface: Vec<u32>,
}

/// A module split into instructions, with lookups over its global sections.
pub struct Module<'a> {
    pub words: &'a [u32],
    pub bound: u32,
    pub insts: Vec<Inst<'a>>,
    /// Index of the first instruction of every [`Section`] (or where it would start).
    section_starts: [usize; 10],
    pub entry_points: Vec<EntryPoint>,
    /// Result id → index of its defining global instruction (types, constants, variables).
    pub globals: HashMap<u32, usize>,
    pub types: HashMap<u32, Type>,
    pub names: HashMap<u32, Name<'a>>,
    /// Target id → decorations `(decoration, literal operands)`.
    pub decorations: HashMap<u32, Vec<(Decoration, &'a [u32])>>,
    /// Struct id → `(member, decoration, literal operands)`.
    pub member_decorations: HashMap<u32, Vec<MemberDecoration<'a>>>,
    /// Function id → index of its OpFunction.
    pub functions: HashMap<u32, usize>,
}

impl<'a> Module<'a> {
    /// Splits `words` into instructions and reads the global sections.
    pub fn parse(words: &'a [u32]) -> Result<Self, ParseError> {
        let bound = check_header(words)?;
        // Counted first: a guess that falls short doubles the largest allocation a rewrite
        // makes (and on a large module, its page faults dominate the rewrite).
        let census = census(words);
        let mut insts = Vec::with_capacity(census.instructions);
        let mut section_starts = [usize::MAX; 10];
        let mut section = Section::Capability;
        let mut in_function = false;
        let mut m = Module {
            words,
            bound,
            insts: Vec::new(),
            section_starts,
            entry_points: Vec::new(),
            globals: HashMap::with_capacity_and_hasher(census.globals, Default::default()),
            types: HashMap::default(),
            names: HashMap::with_capacity_and_hasher(census.names, Default::default()),
            decorations: HashMap::default(),
            member_decorations: HashMap::default(),
            functions: HashMap::with_capacity_and_hasher(census.functions, Default::default()),
        };
        let mut defined = vec![0u64; bound as usize / 64 + 1];
        for inst in instructions(words) {
            let inst = inst?;
            let index = insts.len();
            let op = inst.opcode();
            let in_body = in_function;
            if in_function && op == Op::FunctionEnd as u16 {
                in_function = false;
            }
            // Ids are checked first: the lookups below (and every pass) rely on each id
            // having one definition, or a type could be redefined to contain itself.
            if let Some(id) = inst.result_id() {
                if id == 0 || id >= bound {
                    return Err(ParseError::IdOutOfBound {
                        word: inst.offset_in(words),
                        id,
                    });
                }
                let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
                if defined[word] & bit != 0 {
                    return Err(ParseError::DuplicateId {
                        word: inst.offset_in(words),
                        id,
                    });
                }
                defined[word] |= bit;
            }
            if !in_body {
                let s = section_of(op);
                // OpLine/OpNoLine/OpExtInst (debug info) may appear among globals and
                // before functions; OpUndef too. Everything else must not go backwards.
                let free = [Op::Line, Op::NoLine, Op::ExtInst, Op::Undef]
                    .iter()
                    .any(|&o| op == o as u16)
                    && section >= Section::Debug;
                if !free {
                    if s < section {
                        return Err(ParseError::OutOfOrder {
                            word: inst.offset_in(words),
                            opcode: op,
                        });
                    }
                    section = s;
                }
                if s == Section::Function {
                    in_function = true;
                    m.functions.insert(inst.operand(1), index);
                }
                m.read_global(&inst, index, s)?;
            }
            if !in_function || op == Op::Function as u16 {
                let idx = section as usize;
                if section_starts[idx] == usize::MAX {
                    section_starts[idx] = index;
                }
            }
            insts.push(inst);
        }
        // Empty sections start where the next non-empty one does.
        let mut next = insts.len();
        for start in section_starts.iter_mut().rev() {
            if *start == usize::MAX {
                *start = next;
            } else {
                next = *start;
            }
        }
        m.insts = insts;
        m.section_starts = section_starts;
        Ok(m)
    }

    fn read_global(&mut self, inst: &Inst<'a>, index: usize, s: Section) -> Result<(), ParseError> {
        let ops = inst.operands();
        let Some(op) = inst.op() else { return Ok(()) };
        match op {
            Op::EntryPoint if ops.len() >= 3 => {
                let (name, used) = decode_string(&ops[2..]);
                self.entry_points.push(EntryPoint {
                    index,
                    model: spirv::ExecutionModel::from_u32(ops[0])
                        .unwrap_or(spirv::ExecutionModel::Kernel),
                    function: ops[1],
                    name,
                    interface: unique_ids(&ops[2 + used..]),
                });
            }
            Op::Name if !ops.is_empty() => {
                self.names.insert(ops[0], Name(&ops[1..]));
            }
            Op::Decorate if ops.len() >= 2 => {
                if let Some(d) = Decoration::from_u32(ops[1]) {
                    self.decorations
                        .entry(ops[0])
                        .or_default()
                        .push((d, &ops[2..]));
                }
            }
            Op::MemberDecorate if ops.len() >= 3 => {
                if let Some(d) = Decoration::from_u32(ops[2]) {
                    self.member_decorations
                        .entry(ops[0])
                        .or_default()
                        .push((ops[1], d, &ops[3..]));
                }
            }
            _ if s == Section::Global => {
                if let Some(id) = inst.result_id() {
                    self.globals.insert(id, index);
                    // SPIR-V declares a type after the types it is made of (only pointers
                    // may be forward-declared), so a type that names an undeclared one is
                    // not registered: no walk over the type graph can then loop.
                    if let Some(ty) = read_type(op, ops) {
                        if ty.parts().all(|part| self.types.contains_key(&part)) {
                            self.types.insert(id, ty);
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Index of the first instruction of `section` (the next section's start when empty).
    pub fn section_start(&self, section: Section) -> usize {
        self.section_starts[section as usize]
    }

    /// The SPIR-V version from the header, as `(major, minor)`.
    pub fn version(&self) -> (u32, u32) {
        ((self.words[1] >> 16) & 0xff, (self.words[1] >> 8) & 0xff)
    }

    pub fn entry_point(&self, name: &str, model: spirv::ExecutionModel) -> Option<&EntryPoint> {
        self.entry_points
            .iter()
            .find(|e| e.name == name && e.model == model)
    }

    /// The literal operands of decoration `d` on `id`, if present.
    pub fn decoration(&self, id: u32, d: Decoration) -> Option<&[u32]> {
        self.decorations
            .get(&id)?
            .iter()
            .find(|(dec, _)| *dec == d)
            .map(|(_, lits)| *lits)
    }

    pub fn has_decoration(&self, id: u32, d: Decoration) -> bool {
        self.decoration(id, d).is_some()
    }

    /// Decorations of member `member` of struct `id`.
    pub fn member_decorations_of(
        &self,
        id: u32,
        member: u32,
    ) -> impl Iterator<Item = (Decoration, &[u32])> {
        self.member_decorations
            .get(&id)
            .into_iter()
            .flatten()
            .filter(move |(m, _, _)| *m == member)
            .map(|(_, d, lits)| (*d, *lits))
    }

    pub fn type_of(&self, id: u32) -> Option<&Type> {
        self.types.get(&id)
    }

    /// The value of an integer `OpConstant` (low word).
    pub fn constant_u32(&self, id: u32) -> Option<u32> {
        let inst = &self.insts[*self.globals.get(&id)?];
        (inst.op() == Some(Op::Constant)).then(|| inst.operand(2))
    }

    /// `(element type, length)` of array type `ty`, when its length is a constant.
    pub fn array_length(&self, ty: u32) -> Option<(u32, u32)> {
        match self.type_of(ty)? {
            Type::Array { element, length } => Some((*element, self.constant_u32(*length)?)),
            _ => None,
        }
    }

    /// Whether the module declares capability `cap`.
    /// Whether `function` (an entry point's) declares the execution mode `mode`.
    pub fn has_execution_mode(&self, function: u32, mode: spirv::ExecutionMode) -> bool {
        let modes = self.section_start(Section::ExecutionMode)..self.section_start(Section::Debug);
        self.insts[modes].iter().any(|i| {
            i.op() == Some(Op::ExecutionMode)
                && i.operand(0) == function
                && i.operand(1) == mode as u32
        })
    }

    pub fn declares_capability(&self, cap: spirv::Capability) -> bool {
        self.insts[..self.section_start(Section::Extension)]
            .iter()
            .any(|i| i.operand(0) == cap as u32)
    }

    /// The `BuiltIn` of member `member` of struct `ty`.
    pub fn member_builtin(&self, ty: u32, member: u32) -> Option<u32> {
        self.member_decorations_of(ty, member)
            .find(|(d, _)| *d == Decoration::BuiltIn)
            .and_then(|(_, lits)| lits.first().copied())
    }

    /// True for a struct whose members carry `BuiltIn` (a `gl_PerVertex` block).
    pub fn is_builtin_block(&self, ty: u32) -> bool {
        matches!(self.type_of(ty), Some(Type::Struct { .. }))
            && self
                .member_decorations
                .get(&ty)
                .is_some_and(|d| d.iter().any(|(_, dec, _)| *dec == Decoration::BuiltIn))
    }

    /// `(storage class, type id of the pointee)` of a global `OpVariable`.
    pub fn variable(&self, id: u32) -> Option<(StorageClass, u32)> {
        let inst = &self.insts[*self.globals.get(&id)?];
        if inst.op() != Some(Op::Variable) {
            return None;
        }
        match self.types.get(&inst.operand(0))? {
            Type::Pointer { pointee, .. } => {
                Some((StorageClass::from_u32(inst.operand(2))?, *pointee))
            }
            _ => None,
        }
    }

    /// Indices `[start, end)` of the instructions of function `id`, OpFunctionEnd included.
    pub fn function_range(&self, id: u32) -> Option<(usize, usize)> {
        let start = *self.functions.get(&id)?;
        let end = self.insts[start..]
            .iter()
            .position(|i| i.opcode() == Op::FunctionEnd as u16)?;
        Some((start, start + end + 1))
    }

    /// Indices of the instructions in `range` with opcode `op`.
    pub fn find_in(&self, range: (usize, usize), op: Op) -> impl Iterator<Item = usize> + '_ {
        (range.0..range.1).filter(move |&i| self.insts[i].opcode() == op as u16)
    }

    /// Index of the instruction after the OpLabel and the OpVariables that open the
    /// function's first block: where code can be inserted at function entry.
    pub fn function_body_start(&self, id: u32) -> Option<usize> {
        let (start, end) = self.function_range(id)?;
        let label = (start..end).find(|&i| self.insts[i].opcode() == Op::Label as u16)?;
        let mut i = label + 1;
        while i < end
            && matches!(
                self.insts[i].op(),
                Some(Op::Variable | Op::Line | Op::NoLine)
            )
        {
            i += 1;
        }
        Some(i)
    }

    /// Every function reachable through OpFunctionCall from `root`, `root` included.
    pub fn call_tree(&self, root: u32) -> Vec<u32> {
        let mut seen = vec![root];
        let mut i = 0;
        while i < seen.len() {
            if let Some(range) = self.function_range(seen[i]) {
                for c in self.find_in(range, Op::FunctionCall) {
                    let callee = self.insts[c].operand(2);
                    if !seen.contains(&callee) {
                        seen.push(callee);
                    }
                }
            }
            i += 1;
        }
        seen
    }

    /// The index of every instruction of the functions in `root`'s call tree, function by
    /// function (a callee the module does not define is skipped).
    pub fn call_tree_insts(&self, root: u32) -> impl Iterator<Item = usize> + '_ {
        self.call_tree(root)
            .into_iter()
            .filter_map(|function| self.function_range(function))
            .flat_map(|(start, end)| start..end)
    }

    /// The variables of `ep`'s interface in `storage` decorated `BuiltIn builtin` (whole
    /// variables, not members of a built-in block), each with its pointee type.
    pub fn builtin_variables<'s>(
        &'s self,
        ep: &'s EntryPoint,
        storage: StorageClass,
        builtin: BuiltIn,
    ) -> impl Iterator<Item = (u32, u32)> + 's {
        ep.interface.iter().filter_map(move |&var| {
            let (class, pointee) = self.variable(var)?;
            let decorated = self
                .decoration(var, Decoration::BuiltIn)
                .is_some_and(|b| b.first() == Some(&(builtin as u32)));
            (class == storage && decorated).then_some((var, pointee))
        })
    }
}

/// `ids` without repeats, in order. An interface lists each variable once; passes treat it
/// as a set, so a malformed list with repeats must not make them split a variable twice.
fn unique_ids(ids: &[u32]) -> Vec<u32> {
    let mut seen = rustc_hash::FxHashSet::default();
    ids.iter().copied().filter(|&id| seen.insert(id)).collect()
}

fn read_type(op: Op, ops: &[u32]) -> Option<Type> {
    let at = |i: usize| ops.get(i).copied().unwrap_or(0);
    Some(match op {
        Op::TypeVoid => Type::Void,
        Op::TypeBool => Type::Bool,
        Op::TypeInt => Type::Int {
            width: at(1),
            signed: at(2) != 0,
        },
        Op::TypeFloat => Type::Float { width: at(1) },
        Op::TypeVector => Type::Vector {
            component: at(1),
            count: at(2),
        },
        Op::TypeMatrix => Type::Matrix {
            column: at(1),
            columns: at(2),
        },
        Op::TypeArray => Type::Array {
            element: at(1),
            length: at(2),
        },
        Op::TypeRuntimeArray => Type::RuntimeArray { element: at(1) },
        Op::TypeStruct => Type::Struct {
            members: ops.get(1..).unwrap_or(&[]).to_vec(),
        },
        Op::TypePointer => Type::Pointer {
            storage: StorageClass::from_u32(at(1))?,
            pointee: at(2),
        },
        Op::TypeFunction => Type::Function,
        Op::TypeImage
        | Op::TypeSampler
        | Op::TypeSampledImage
        | Op::TypeOpaque
        | Op::TypeEvent
        | Op::TypeDeviceEvent
        | Op::TypeReserveId
        | Op::TypeQueue
        | Op::TypePipe
        | Op::TypeForwardPointer
        | Op::TypeAccelerationStructureKHR
        | Op::TypeRayQueryKHR => Type::Other,
        _ => return None,
    })
}

/// What [`Editor`]'s find-or-add looks a type or constant up by: its opcode and operands
/// (result id excluded). Kept inline up to [`GlobalKey::INLINE`] words, since a pass (and
/// above all the generated TCS) looks up types and constants by the dozen and the common
/// ones are a few words long.
#[derive(Clone, PartialEq, Eq, Hash)]
enum GlobalKey {
    Inline {
        len: u8,
        words: [u32; GlobalKey::INLINE],
    },
    Heap(Vec<u32>),
}

impl GlobalKey {
    const INLINE: usize = 6;

    /// `op`, the operands before the result id, a marker where the id stands, the rest.
    fn new(op: Op, before_id: &[u32], after_id: &[u32]) -> Self {
        let words = std::iter::once(op as u32)
            .chain(before_id.iter().copied())
            .chain(std::iter::once(u32::MAX))
            .chain(after_id.iter().copied());
        let len = before_id.len() + after_id.len() + 2;
        if len > Self::INLINE {
            return GlobalKey::Heap(words.collect());
        }
        let mut inline = [0; Self::INLINE];
        for (slot, word) in inline.iter_mut().zip(words) {
            *slot = word;
        }
        GlobalKey::Inline {
            len: len as u8,
            words: inline,
        }
    }
}

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
    /// Types and constants this editor added, for find-or-add.
    added_types: HashMap<GlobalKey, u32>,
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
        assert!(word < self.module.insts[index].words.len());
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
        push_inst(&mut self.appended[section as usize], op, operands);
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
        let key = GlobalKey::new(Op::Capability, &[cap as u32], &[]);
        if !present && !self.added_types.contains_key(&key) {
            self.added_types.insert(key, 0);
            self.append(Section::Capability, Op::Capability, &[cap as u32]);
        }
    }

    pub fn decorate(&mut self, id: u32, d: Decoration, literals: &[u32]) {
        let mut ops = vec![id, d as u32];
        ops.extend_from_slice(literals);
        self.append(Section::Annotation, Op::Decorate, &ops);
    }

    pub fn member_decorate(&mut self, id: u32, member: u32, d: Decoration, literals: &[u32]) {
        let mut ops = vec![id, member, d as u32];
        ops.extend_from_slice(literals);
        self.append(Section::Annotation, Op::MemberDecorate, &ops);
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
            let words = entry_point_with_interface(&self.module.insts[ep.index], &interface);
            self.replace(ep.index, words);
        }
    }

    pub fn name(&mut self, id: u32, name: &str) {
        let mut ops = vec![id];
        ops.extend(encode_string(name));
        self.append(Section::Debug, Op::Name, &ops);
    }

    /// Finds a global type or constant with exactly these operands (result id excluded),
    /// or adds one at the end of the global section.
    fn find_or_add(
        &mut self,
        op: Op,
        operands_before_id: &[u32],
        operands_after_id: &[u32],
    ) -> u32 {
        let key = GlobalKey::new(op, operands_before_id, operands_after_id);
        if let Some(&id) = self.added_types.get(&key) {
            return id;
        }
        let m = self.module;
        let start = m.section_start(Section::Global);
        let end = m.section_start(Section::Function);
        let n = operands_before_id.len();
        let found = m.insts[start..end].iter().find(|i| {
            let ops = i.operands();
            i.opcode() == op as u16
                && ops.len() == n + 1 + operands_after_id.len()
                && ops[..n] == *operands_before_id
                && ops[n + 1..] == *operands_after_id
        });
        let id = match found {
            Some(i) => i.operands()[n],
            None => {
                let id = self.new_id();
                let mut ops = operands_before_id.to_vec();
                ops.push(id);
                ops.extend_from_slice(operands_after_id);
                self.append(Section::Global, op, &ops);
                id
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
        let id = self.new_id();
        let mut ops = Vec::with_capacity(members.len() + 1);
        ops.push(id);
        ops.extend_from_slice(members);
        self.append(Section::Global, Op::TypeStruct, &ops);
        id
    }

    /// A new array type, not shared with an identical one: for arrays that carry an
    /// `ArrayStride` (which the undecorated arrays of built-ins must not).
    pub fn type_array_decorated(&mut self, element: u32, length: u32) -> u32 {
        let length_id = self.constant_u32(length);
        let id = self.new_id();
        self.append(Section::Global, Op::TypeArray, &[id, element, length_id]);
        id
    }

    /// Adds a global `OpVariable` and returns its id.
    pub fn add_variable(&mut self, storage: StorageClass, pointee: u32) -> u32 {
        let ptr = self.type_pointer(storage, pointee);
        let id = self.new_id();
        self.append(Section::Global, Op::Variable, &[ptr, id, storage as u32]);
        id
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
        let mut ops = vec![ptr, id, storage as u32];
        ops.extend(initializer);
        self.append(Section::Global, Op::Variable, &ops);
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
        self.insert_before(
            index,
            &inst(Op::TypePointer, &[id, storage as u32, pointee]),
        );
        id
    }

    /// Replaces the decoration at instruction `index` with `d` (and `literals`) on `id`, in
    /// its place.
    pub fn redecorate(&mut self, index: usize, id: u32, d: Decoration, literals: &[u32]) {
        let mut ops = vec![id, d as u32];
        ops.extend_from_slice(literals);
        self.replace(index, inst(Op::Decorate, &ops));
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
        code.push(((operands.len() as u32 + 3) << 16) | op as u32);
        code.push(ty);
        code.push(result);
        code.extend_from_slice(operands);
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
        push_inst(code, Op::Store, &[pointer, value]);
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
        code.push(((indices.len() as u32 + 4) << 16) | Op::AccessChain as u32);
        code.extend_from_slice(&[pointer_type, id, base]);
        code.extend_from_slice(indices);
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
        let mut ops = Vec::with_capacity(path.len() + 2);
        ops.extend_from_slice(&[object, composite]);
        ops.extend_from_slice(path);
        self.emit_as(code, Op::CompositeInsert, ty, result, &ops);
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
                    out.extend_from_slice(m.insts[index].words);
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
    let mut new_ops = ops[..2 + used].to_vec();
    new_ops.extend_from_slice(interface);
    inst_from_opcode(inst.opcode(), &new_ops)
}

fn inst_from_opcode(opcode: u16, operands: &[u32]) -> Vec<u32> {
    let mut words = Vec::with_capacity(operands.len() + 1);
    words.push(((operands.len() as u32 + 1) << 16) | opcode as u32);
    words.extend_from_slice(operands);
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A SPIR-V 1.0 header of id `bound`, then `OpCapability Shader` and a logical GLSL450
    /// `OpMemoryModel`.
    fn shader_header(bound: u32) -> Vec<u32> {
        let mut w = vec![MAGIC, 0x0001_0000, 0, bound, 0];
        push_inst(&mut w, Op::Capability, &[spirv::Capability::Shader as u32]);
        push_inst(&mut w, Op::MemoryModel, &[0, 1]);
        w
    }

    fn tiny_module() -> Vec<u32> {
        let mut w = shader_header(10);
        let mut ep = vec![spirv::ExecutionModel::Fragment as u32, 3];
        ep.extend(encode_string("main"));
        push_inst(&mut w, Op::EntryPoint, &ep);
        push_inst(
            &mut w,
            Op::ExecutionMode,
            &[3, spirv::ExecutionMode::OriginUpperLeft as u32],
        );
        push_inst(&mut w, Op::TypeVoid, &[1]);
        push_inst(&mut w, Op::TypeFunction, &[2, 1]);
        push_inst(&mut w, Op::Function, &[1, 3, 0, 2]);
        push_inst(&mut w, Op::Label, &[4]);
        push_inst(&mut w, Op::Return, &[]);
        push_inst(&mut w, Op::FunctionEnd, &[]);
        w
    }

    #[test]
    fn parses_sections_and_entry_points() {
        let w = tiny_module();
        let m = Module::parse(&w).unwrap();
        assert_eq!(m.entry_points.len(), 1);
        assert_eq!(m.entry_points[0].name, "main");
        assert_eq!(m.section_start(Section::Global), 4);
        assert_eq!(m.section_start(Section::Debug), 4);
        assert_eq!(m.section_start(Section::Function), 6);
        assert_eq!(m.type_of(1), Some(&Type::Void));
        assert_eq!(m.function_range(3), Some((6, 10)));
        assert_eq!(m.function_body_start(3), Some(8));
    }

    #[test]
    fn unedited_module_is_copied_word_for_word() {
        let w = tiny_module();
        let m = Module::parse(&w).unwrap();
        assert_eq!(Editor::new(&m).finish().unwrap(), w);
    }

    #[test]
    fn find_or_add_reuses_existing_types_and_appends_new_ones() {
        let w = tiny_module();
        let m = Module::parse(&w).unwrap();
        let mut e = Editor::new(&m);
        assert_eq!(e.type_void(), 1);
        let f = e.type_float(32);
        assert_eq!(f, 10);
        assert_eq!(e.type_float(32), 10);
        let out = e.finish().unwrap();
        assert_eq!(out[3], 11);
        let m2 = Module::parse(&out).unwrap();
        assert_eq!(m2.type_of(10), Some(&Type::Float { width: 32 }));
        // The new type lands before the first function.
        assert!(m2.globals[&10] < m2.section_start(Section::Function));
    }

    #[test]
    fn edits_land_in_place_and_appends_at_section_ends() {
        let w = tiny_module();
        let m = Module::parse(&w).unwrap();
        let mut e = Editor::new(&m);
        e.remove(3); // OpExecutionMode
        e.name(3, "main");
        e.decorate(1, Decoration::RelaxedPrecision, &[]);
        let f = e.type_float(32);
        e.replace(5, inst(Op::TypeFunction, &[2, 1, f]));
        e.insert_before(8, &inst(Op::Nop, &[]));
        e.append(Section::Function, Op::Nop, &[]);
        let out = e.finish().unwrap();

        let mut expected = vec![MAGIC, 0x0001_0000, 0, 11, 0];
        let at = |i: usize| m.insts[i].words;
        for i in 0..3 {
            expected.extend_from_slice(at(i));
        }
        let mut name = vec![3];
        name.extend(encode_string("main"));
        push_inst(&mut expected, Op::Name, &name);
        push_inst(
            &mut expected,
            Op::Decorate,
            &[1, Decoration::RelaxedPrecision as u32],
        );
        expected.extend_from_slice(at(4));
        push_inst(&mut expected, Op::TypeFunction, &[2, 1, f]);
        push_inst(&mut expected, Op::TypeFloat, &[f, 32]);
        for i in 6..8 {
            expected.extend_from_slice(at(i));
        }
        push_inst(&mut expected, Op::Nop, &[]);
        for i in 8..10 {
            expected.extend_from_slice(at(i));
        }
        push_inst(&mut expected, Op::Nop, &[]);
        assert_eq!(out, expected);
    }

    #[test]
    fn patched_words_change_in_place_unless_replaced() {
        let w = tiny_module();
        let m = Module::parse(&w).unwrap();
        let mut e = Editor::new(&m);
        e.patch_word(6, 1, 7); // OpFunction's result type
        e.patch_word(6, 1, 8); // the later patch of a word wins
        e.patch_word(5, 2, 9); // OpTypeFunction, but replaced below: ignored
        e.replace(5, inst(Op::TypeFunction, &[2, 1]));
        e.insert_before(6, &inst(Op::Nop, &[]));
        let out = e.finish().unwrap();
        let mut expected = w.clone();
        let f = m.insts[6].offset_in(&w);
        expected[f + 1] = 8;
        expected.insert(f, inst(Op::Nop, &[])[0]);
        assert_eq!(out, expected);
    }

    #[test]
    fn a_type_cannot_be_redefined_into_a_cycle() {
        // %1 = struct { %2 }, then %2 = struct { %1 } would make %2 contain itself if a
        // second definition of an id were accepted.
        let mut w = shader_header(3);
        push_inst(&mut w, Op::TypeFloat, &[2, 32]);
        push_inst(&mut w, Op::TypeStruct, &[1, 2]);
        push_inst(&mut w, Op::TypeStruct, &[2, 1]);
        assert_eq!(
            Module::parse(&w).err(),
            Some(ParseError::DuplicateId { word: 16, id: 2 })
        );
    }

    #[test]
    fn a_type_naming_an_undeclared_type_is_not_registered() {
        let mut w = shader_header(4);
        push_inst(&mut w, Op::TypeStruct, &[1, 3]);
        push_inst(&mut w, Op::TypeFloat, &[3, 32]);
        let m = Module::parse(&w).unwrap();
        assert_eq!(m.type_of(1), None);
        assert_eq!(m.type_of(3), Some(&Type::Float { width: 32 }));
    }

    #[test]
    fn rejects_malformed_words() {
        assert_eq!(Module::parse(&[1, 2]).err(), Some(ParseError::TooShort));
        assert!(matches!(
            Module::parse(&[0xdead, 0, 0, 5, 0]).err(),
            Some(ParseError::BadMagic(_))
        ));
        let mut w = tiny_module();
        w.push(0x0005_0001); // claims five words, has one
        assert!(matches!(
            Module::parse(&w).err(),
            Some(ParseError::BadInstruction { .. })
        ));
        let mut w = tiny_module();
        w[3] = 2; // ids up to 9 are used
        assert!(matches!(
            Module::parse(&w).err(),
            Some(ParseError::IdOutOfBound { .. })
        ));
    }
}
