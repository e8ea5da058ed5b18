//! The one encoder of instruction words: every instruction the crate writes is an
//! [`Instruction`], made by the constructor named after its opcode (`Instruction::store`,
//! `Instruction::type_pointer`, ...) or, for an opcode chosen at run time or copied from a
//! module, by [`Instruction::new`] and its operands; then written out with
//! [`Instruction::append_to`] or [`Instruction::to_words`].

use spirv::{
    AddressingModel, Capability, Decoration, ExecutionMode, ExecutionModel, MemoryModel, Op,
    StorageClass,
};

/// Words held without an allocation: an opcode word, a result type and id and five operands
/// cover nearly every instruction the passes emit and every find-or-add key of the editor,
/// which a pass (and above all the generated TCS) builds by the dozen.
const INLINE_WORDS: usize = 8;

/// One instruction's words, opcode word first; the word count in it is kept current as
/// operands are added.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    words: Words,
}

/// Inline up to [`INLINE_WORDS`] words, on the heap beyond: each length has one form (and
/// unused inline words stay 0), so the derived equality and hash compare the words alone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Words {
    Inline { len: u8, words: [u32; INLINE_WORDS] },
    Heap(Vec<u32>),
}

/// Constructors of instructions whose operands are all single words (ids, masks), written
/// in the grammar's order: `name(operand, ...) => Op;`.
macro_rules! single_word_operands {
    ($($(#[$doc:meta])* $name:ident($($operand:ident),*) => $op:ident;)*) => {
        $(
            $(#[$doc])*
            pub fn $name($($operand: u32),*) -> Self {
                Self::new(Op::$op).operands(&[$($operand),*])
            }
        )*
    };
}

impl Instruction {
    /// `op` with no operands yet.
    pub fn new(op: Op) -> Self {
        let mut words = [0; INLINE_WORDS];
        words[0] = (1 << 16) | op as u32;
        Instruction {
            words: Words::Inline { len: 1, words },
        }
    }

    /// `op` with a result type and a result id, the operands to follow.
    pub fn with_result(op: Op, result_type: u32, result: u32) -> Self {
        Self::new(op).operand(result_type).operand(result)
    }

    /// Adds one operand word.
    pub fn operand(mut self, word: u32) -> Self {
        self.push(word);
        self
    }

    /// Adds operand words.
    pub fn operands(mut self, words: &[u32]) -> Self {
        for &word in words {
            self.push(word);
        }
        self
    }

    /// Adds a literal string.
    pub fn string(self, s: &str) -> Self {
        self.operands(&encode_string(s))
    }

    /// Overwrites operand `index` (0 is the word after the opcode word).
    pub fn set_operand(&mut self, index: usize, word: u32) {
        self.words_mut()[index + 1] = word;
    }

    /// The encoded words.
    pub fn as_words(&self) -> &[u32] {
        match &self.words {
            Words::Inline { len, words } => &words[..usize::from(*len)],
            Words::Heap(words) => words,
        }
    }

    pub fn to_words(&self) -> Vec<u32> {
        self.as_words().to_vec()
    }

    /// Appends the encoded words to `out`.
    pub fn append_to(&self, out: &mut Vec<u32>) {
        out.extend_from_slice(self.as_words());
    }

    fn words_mut(&mut self) -> &mut [u32] {
        match &mut self.words {
            Words::Inline { len, words } => &mut words[..usize::from(*len)],
            Words::Heap(words) => words,
        }
    }

    fn push(&mut self, word: u32) {
        match &mut self.words {
            Words::Inline { len, words } if usize::from(*len) < INLINE_WORDS => {
                words[usize::from(*len)] = word;
                *len += 1;
            }
            Words::Inline { words, .. } => {
                let mut heap = Vec::with_capacity(2 * INLINE_WORDS);
                heap.extend_from_slice(words);
                heap.push(word);
                self.words = Words::Heap(heap);
            }
            Words::Heap(words) => words.push(word),
        }
        self.words_mut()[0] += 1 << 16;
    }

    // One constructor per opcode the crate writes with fixed operands, in the order of the
    // logical layout; those of single-word operands only are below, from the macro.

    pub fn capability(capability: Capability) -> Self {
        Self::new(Op::Capability).operand(capability as u32)
    }

    pub fn extension(name: &str) -> Self {
        Self::new(Op::Extension).string(name)
    }

    pub fn memory_model(addressing: AddressingModel, memory: MemoryModel) -> Self {
        Self::new(Op::MemoryModel).operands(&[addressing as u32, memory as u32])
    }

    pub fn entry_point(
        model: ExecutionModel,
        function: u32,
        name: &str,
        interface: &[u32],
    ) -> Self {
        let head = Self::new(Op::EntryPoint).operands(&[model as u32, function]);
        head.string(name).operands(interface)
    }

    pub fn execution_mode(function: u32, mode: ExecutionMode, literals: &[u32]) -> Self {
        let head = Self::new(Op::ExecutionMode).operands(&[function, mode as u32]);
        head.operands(literals)
    }

    pub fn name(id: u32, name: &str) -> Self {
        Self::new(Op::Name).operand(id).string(name)
    }

    pub fn member_name(ty: u32, member: u32, name: &str) -> Self {
        Self::new(Op::MemberName)
            .operands(&[ty, member])
            .string(name)
    }

    pub fn decorate(id: u32, decoration: Decoration, literals: &[u32]) -> Self {
        let head = Self::new(Op::Decorate).operands(&[id, decoration as u32]);
        head.operands(literals)
    }

    pub fn member_decorate(id: u32, member: u32, decoration: Decoration, literals: &[u32]) -> Self {
        let head = Self::new(Op::MemberDecorate).operands(&[id, member, decoration as u32]);
        head.operands(literals)
    }

    pub fn type_struct(id: u32, members: &[u32]) -> Self {
        Self::new(Op::TypeStruct).operand(id).operands(members)
    }

    pub fn type_pointer(id: u32, storage: StorageClass, pointee: u32) -> Self {
        Self::new(Op::TypePointer).operands(&[id, storage as u32, pointee])
    }

    /// `pointer_type` is the variable's type, a pointer in `storage`.
    pub fn variable(
        pointer_type: u32,
        id: u32,
        storage: StorageClass,
        initializer: Option<u32>,
    ) -> Self {
        let variable = Self::with_result(Op::Variable, pointer_type, id).operand(storage as u32);
        variable.operands(initializer.as_slice())
    }

    pub fn access_chain(pointer_type: u32, id: u32, base: u32, indices: &[u32]) -> Self {
        Self::with_result(Op::AccessChain, pointer_type, id)
            .operand(base)
            .operands(indices)
    }

    single_word_operands! {
        /// `length` is the id of the length constant.
        type_array(id, element, length) => TypeArray;
        /// `control` is the `FunctionControl` mask.
        function(result_type, id, control, function_type) => Function;
        label(id) => Label;
        store(pointer, value) => Store;
        emit_vertex() => EmitVertex;
        end_primitive() => EndPrimitive;
        /// `control` is the `SelectionControl` mask.
        selection_merge(merge, control) => SelectionMerge;
        branch(target) => Branch;
        branch_conditional(condition, if_true, if_false) => BranchConditional;
        return_void() => Return;
        function_end() => FunctionEnd;
    }
}

/// Encodes a literal string as SPIR-V words: UTF-8 packed little-endian, nul-terminated,
/// zero-padded to whole words.
pub fn encode_string(s: &str) -> Vec<u32> {
    let mut words = vec![0; s.len() / 4 + 1];
    for (i, byte) in s.bytes().enumerate() {
        words[i / 4] |= u32::from(byte) << (8 * (i % 4));
    }
    words
}

/// Builds one instruction's words, `op` and its `operands` as they are.
pub fn inst(op: Op, operands: &[u32]) -> Vec<u32> {
    Instruction::new(op).operands(operands).to_words()
}

/// Appends one instruction, `op` and its `operands` as they are, to `out`.
pub fn push_inst(out: &mut Vec<u32>, op: Op, operands: &[u32]) {
    Instruction::new(op).operands(operands).append_to(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_end_in_a_nul_and_fill_whole_words() {
        assert_eq!(encode_string(""), [0]);
        assert_eq!(encode_string("abc"), [0x0063_6261]);
        assert_eq!(encode_string("main"), [0x6e69_616d, 0]);
        assert_eq!(encode_string("mains"), [0x6e69_616d, 0x73]);
    }

    #[test]
    fn the_word_count_follows_the_operands_past_the_inline_words() {
        let operands: Vec<u32> = (10..30).collect();
        let mut chain = Instruction::access_chain(1, 2, 3, &operands);
        let words = chain.as_words();
        assert_eq!(words.len(), 24);
        assert_eq!(words[0], (24 << 16) | Op::AccessChain as u32);
        assert_eq!(words[1..4], [1, 2, 3]);
        assert_eq!(words[4..], operands);
        chain.set_operand(1, 7);
        assert_eq!(chain.as_words()[2], 7);
    }

    #[test]
    fn constructors_write_the_operands_in_the_grammars_order() {
        assert_eq!(
            Instruction::variable(4, 5, StorageClass::Private, Some(6)).to_words(),
            inst(Op::Variable, &[4, 5, StorageClass::Private as u32, 6])
        );
        assert_eq!(
            Instruction::member_decorate(1, 2, Decoration::Offset, &[16]).to_words(),
            inst(Op::MemberDecorate, &[1, 2, Decoration::Offset as u32, 16])
        );
        let mut name = vec![3];
        name.extend(encode_string("main"));
        assert_eq!(
            Instruction::name(3, "main").to_words(),
            inst(Op::Name, &name)
        );
    }
}
