//! The read view: [`Module`] splits a module into instructions once and records its
//! logical-layout sections and the lookups the passes make over its global instructions
//! (types, names, decorations, entry points, functions).

use rustc_hash::FxHashMap as HashMap;
use spirv::{BuiltIn, Decoration, Op, StorageClass};
use std::sync::atomic::{AtomicU8, Ordering};

use super::words::{check_header, decode_string, result_shapes, Inst, Insts, HEADER_WORDS};
use crate::error::ParseError;

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

/// How many instructions follow the header (up to the first malformed word count), and the
/// sizes of the maps the global sections fill.
fn census(words: &[u32]) -> Census {
    let mut at = HEADER_WORDS;
    let mut census = Census::default();
    // The global sections, up to the first function: every opcode looked at.
    while let Some(&word) = words.get(at) {
        let len = (word >> 16) as usize;
        let op = word as u16;
        if len == 0 || op == Op::Function as u16 {
            break;
        }
        match section_of(op) {
            Section::Debug if op == Op::Name as u16 => census.names += 1,
            Section::Global => census.globals += 1,
            _ => {}
        }
        at += len;
        census.instructions += 1;
    }
    // Function bodies, most of a large module: only the word counts and OpFunction.
    while let Some(&word) = words.get(at) {
        let len = (word >> 16) as usize;
        if len == 0 {
            break;
        }
        census.functions += usize::from(word as u16 == Op::Function as u16);
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

/// The instruction at word `at`, if its word count is non-zero and stays inside `words`.
fn instruction_at(words: &[u32], at: usize) -> Result<Inst<'_>, ParseError> {
    let count = (words[at] >> 16) as usize;
    if count == 0 || count > words.len() - at {
        return Err(ParseError::BadInstruction { word: at });
    }
    Ok(Inst {
        words: &words[at..at + count],
    })
}

/// The result ids seen so far. Ids are checked as they are defined: the lookups (and every
/// pass) rely on each id having one definition, or a type could be redefined to contain
/// itself.
struct Definitions {
    shapes: &'static [AtomicU8; 1 << 16],
    defined: Vec<u64>,
    bound: u32,
}

impl Definitions {
    /// Records the result id, if any, of `inst`, the instruction at word `word`.
    fn define(&mut self, inst: &Inst, word: usize) -> Result<(), ParseError> {
        let shape = self.shapes[inst.opcode() as usize].load(Ordering::Relaxed);
        let Some(id) = inst.result_id_by(shape) else {
            return Ok(());
        };
        if id == 0 || id >= self.bound {
            return Err(ParseError::IdOutOfBound { word, id });
        }
        let (slot, bit) = (id as usize / 64, 1u64 << (id % 64));
        if self.defined[slot] & bit != 0 {
            return Err(ParseError::DuplicateId { word, id });
        }
        self.defined[slot] |= bit;
        Ok(())
    }
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
    pub insts: Insts<'a>,
    /// Index of the first instruction of every [`Section`] (or where it would start).
    pub(super) section_starts: [usize; 10],
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
        if u32::try_from(words.len()).is_err() {
            return Err(ParseError::TooLong(words.len()));
        }
        // Counted first: a guess that falls short doubles the largest allocation a rewrite
        // makes (and on a large module, its page faults dominate the rewrite).
        let census = census(words);
        let mut m = Module {
            words,
            bound,
            insts: Insts::with_capacity(words, census.instructions),
            section_starts: [usize::MAX; 10],
            entry_points: Vec::new(),
            globals: HashMap::with_capacity_and_hasher(census.globals, Default::default()),
            types: HashMap::default(),
            names: HashMap::with_capacity_and_hasher(census.names, Default::default()),
            decorations: HashMap::default(),
            member_decorations: HashMap::default(),
            functions: HashMap::with_capacity_and_hasher(census.functions, Default::default()),
        };
        let mut ids = Definitions {
            shapes: result_shapes(),
            defined: vec![0u64; bound as usize / 64 + 1],
            bound,
        };
        let mut section = Section::Capability;
        let mut at = HEADER_WORDS;
        while at < words.len() {
            let inst = instruction_at(words, at)?;
            let op = inst.opcode();
            let index = m.insts.len();
            ids.define(&inst, at)?;
            let s = section_of(op);
            // OpLine/OpNoLine/OpExtInst (debug info) may appear among globals and before
            // functions; OpUndef too. Everything else must not go backwards.
            let free = [Op::Line, Op::NoLine, Op::ExtInst, Op::Undef]
                .iter()
                .any(|&o| op == o as u16)
                && section >= Section::Debug;
            if !free {
                if s < section {
                    return Err(ParseError::OutOfOrder {
                        word: at,
                        opcode: op,
                    });
                }
                section = s;
            }
            if s == Section::Function {
                m.functions.insert(inst.operand(1), index);
            }
            m.read_global(&inst, index, s)?;
            if m.section_starts[section as usize] == usize::MAX {
                m.section_starts[section as usize] = index;
            }
            m.insts.push(at);
            at += inst.words.len();
            if s == Section::Function {
                at = m.read_body(at, &mut ids)?;
            }
        }
        // Empty sections start where the next non-empty one does.
        let mut next = m.insts.len();
        for start in m.section_starts.iter_mut().rev() {
            if *start == usize::MAX {
                *start = next;
            } else {
                next = *start;
            }
        }
        Ok(m)
    }

    /// Indexes a function body from word `at` (after its OpFunction) through its
    /// OpFunctionEnd and returns the word after it: most of a large module, so only the
    /// boundaries and result ids are read.
    fn read_body(&mut self, mut at: usize, ids: &mut Definitions) -> Result<usize, ParseError> {
        let words = self.words;
        while at < words.len() {
            let inst = instruction_at(words, at)?;
            ids.define(&inst, at)?;
            self.insts.push(at);
            at += inst.words.len();
            if inst.opcode() == Op::FunctionEnd as u16 {
                break;
            }
        }
        Ok(at)
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
        let inst = self.insts.at(*self.globals.get(&id)?);
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
        self.insts.range(modes).any(|i| {
            i.op() == Some(Op::ExecutionMode)
                && i.operand(0) == function
                && i.operand(1) == mode as u32
        })
    }

    pub fn declares_capability(&self, cap: spirv::Capability) -> bool {
        self.insts
            .range(..self.section_start(Section::Extension))
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
        let inst = self.insts.at(*self.globals.get(&id)?);
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
        let end = self
            .insts
            .range(start..)
            .position(|i| i.opcode() == Op::FunctionEnd as u16)?;
        Some((start, start + end + 1))
    }

    /// Indices of the instructions in `range` with opcode `op`.
    pub fn find_in(&self, range: (usize, usize), op: Op) -> impl Iterator<Item = usize> + '_ {
        (range.0..range.1).filter(move |&i| self.insts.at(i).opcode() == op as u16)
    }

    /// Index of the instruction after the OpLabel and the OpVariables that open the
    /// function's first block: where code can be inserted at function entry.
    pub fn function_body_start(&self, id: u32) -> Option<usize> {
        let (start, end) = self.function_range(id)?;
        let label = (start..end).find(|&i| self.insts.at(i).opcode() == Op::Label as u16)?;
        let mut i = label + 1;
        while i < end
            && matches!(
                self.insts.at(i).op(),
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
                    let callee = self.insts.at(c).operand(2);
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
