//! A module's words as read: the header, the instruction boundaries ([`Inst`],
//! [`instructions`], the index [`Insts`]) and literal strings, checked no further than their
//! word counts.

use spirv::Op;
use std::slice::SliceIndex;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Once;

use crate::error::{ParseError, MAX_BOUND};

pub const MAGIC: u32 = 0x0723_0203;
pub const HEADER_WORDS: usize = 5;

/// `(has result type, has result id)` for every opcode rspirv's grammar knows, filled once.
/// A static array rather than a heap table owned by a static: the loader unloads the layer
/// at vkDestroyInstance, and heap memory owned by a static would leak with every load.
static RESULT_SHAPE: [AtomicU8; 1 << 16] = [const { AtomicU8::new(0) }; 1 << 16];
static RESULT_SHAPE_INIT: Once = Once::new();

/// The `(has result type, has result id)` table, filled on first use. A parse takes it once:
/// the `Once` check per instruction was a tenth of a large module's parse.
pub(super) fn result_shapes() -> &'static [AtomicU8; 1 << 16] {
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
    &RESULT_SHAPE
}

fn result_shape(opcode: u16) -> u8 {
    result_shapes()[opcode as usize].load(Ordering::Relaxed)
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
        self.result_id_by(result_shape(self.opcode()))
    }

    /// The result id, given the opcode's entry of [`result_shapes`].
    pub(super) fn result_id_by(&self, shape: u8) -> Option<u32> {
        match shape {
            3 => Some(self.operand(1)),
            2 => Some(self.operand(0)),
            _ => None,
        }
    }
}

/// A module's instruction index: each instruction's first word as a 32-bit offset into the
/// module, a quarter of the size of a slice per instruction. The index is a rewrite's
/// largest allocation after its output; with slices, a large module's rewrite outgrew
/// glibc's trim threshold and faulted its memory in again on every rewrite
/// (docs/performance.md, session 7). Position `i` is the `i`-th instruction after the header.
#[derive(Clone, Debug)]
pub struct Insts<'a> {
    words: &'a [u32],
    starts: Vec<u32>,
}

impl<'a> Insts<'a> {
    /// An empty index over `words`, with room for `capacity` instructions.
    pub(super) fn with_capacity(words: &'a [u32], capacity: usize) -> Self {
        Insts {
            words,
            starts: Vec::with_capacity(capacity),
        }
    }

    /// Appends the instruction whose first word is at `offset` (below 2^32:
    /// [`super::Module::parse`] checks the module's length).
    pub(super) fn push(&mut self, offset: usize) {
        self.starts.push(offset as u32);
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Instruction `index`; panics past the end, as a slice does.
    pub fn at(&self, index: usize) -> Inst<'a> {
        inst_at(self.words, self.starts[index])
    }

    /// Instruction `index`, if there is one.
    pub fn get(&self, index: usize) -> Option<Inst<'a>> {
        Some(inst_at(self.words, *self.starts.get(index)?))
    }

    /// Every instruction, in order.
    pub fn iter(&self) -> InstIter<'a, '_> {
        self.range(..)
    }

    /// The instructions at the positions of `range`; panics where a slice would.
    pub fn range(&self, range: impl SliceIndex<[u32], Output = [u32]>) -> InstIter<'a, '_> {
        InstIter {
            words: self.words,
            starts: self.starts[range].iter(),
        }
    }
}

impl<'a, 'b> IntoIterator for &'b Insts<'a> {
    type Item = Inst<'a>;
    type IntoIter = InstIter<'a, 'b>;

    fn into_iter(self) -> InstIter<'a, 'b> {
        self.iter()
    }
}

/// The instructions of a run of positions of an [`Insts`].
#[derive(Clone, Debug)]
pub struct InstIter<'a, 'b> {
    words: &'a [u32],
    starts: std::slice::Iter<'b, u32>,
}

impl<'a> Iterator for InstIter<'a, '_> {
    type Item = Inst<'a>;

    fn next(&mut self) -> Option<Inst<'a>> {
        Some(inst_at(self.words, *self.starts.next()?))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.starts.size_hint()
    }
}

impl DoubleEndedIterator for InstIter<'_, '_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        Some(inst_at(self.words, *self.starts.next_back()?))
    }
}

impl ExactSizeIterator for InstIter<'_, '_> {}

/// The instruction whose first word is `words[start]`, its length from its word count.
fn inst_at(words: &[u32], start: u32) -> Inst<'_> {
    let start = start as usize;
    let count = (words[start] >> 16) as usize;
    Inst {
        words: &words[start..start + count],
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
