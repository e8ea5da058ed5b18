//! What a pass returns, and why it could not read or rewrite a module.

use std::fmt;

/// The largest id bound this crate reads or writes (SPIR-V's universal limit on ids).
pub const MAX_BOUND: u32 = 0x0040_0000;

/// Why a word stream is not a module this crate can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    TooShort,
    /// More words than an instruction index of 32-bit offsets reaches (16 GiB).
    TooLong(usize),
    BadMagic(u32),
    BadBound(u32),
    /// An instruction with word count 0, or one that runs past the end.
    BadInstruction {
        word: usize,
    },
    /// An instruction in a section where the logical layout does not allow it.
    OutOfOrder {
        word: usize,
        opcode: u16,
    },
    /// An id at or above the header's bound.
    IdOutOfBound {
        word: usize,
        id: u32,
    },
    /// A second instruction defines an id that is already defined.
    DuplicateId {
        word: usize,
        id: u32,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::TooShort => write!(f, "shorter than a SPIR-V header"),
            ParseError::TooLong(n) => write!(f, "{n} words, more than 2^32"),
            ParseError::BadMagic(m) => write!(f, "bad magic number {m:#010x}"),
            ParseError::BadBound(b) => write!(f, "bad id bound {b}"),
            ParseError::BadInstruction { word } => {
                write!(f, "malformed instruction at word {word}")
            }
            ParseError::OutOfOrder { word, opcode } => {
                write!(f, "opcode {opcode} out of layout order at word {word}")
            }
            ParseError::IdOutOfBound { word, id } => {
                write!(f, "id {id} at word {word} is not below the bound")
            }
            ParseError::DuplicateId { word, id } => {
                write!(f, "id {id} at word {word} is already defined")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Why a pass could not produce a module. The layer logs it and passes the application's
/// module through untouched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    /// The words are not a SPIR-V module this crate can read.
    #[error("cannot parse module: {0}")]
    Parse(#[from] ParseError),
    /// The module is valid but uses something the pass does not handle.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A built-in the pass writes has a type other than the one GL gives it (a module
    /// that redeclares it, or one from a language other than GLSL).
    #[error("unsupported: {builtin} is not {expected}")]
    BuiltinType {
        builtin: &'static str,
        expected: &'static str,
    },
    /// An entry point names (or calls) a function the module does not define: the module
    /// is malformed, and no pass can find where its outputs take effect.
    #[error("unsupported: function %{function} of the entry point has no body")]
    MissingFunction { function: u32 },
    /// The rewritten module needs more ids than SPIR-V allows.
    #[error(
        "unsupported: the rewrite needs {needed} ids, more than SPIR-V's limit of {}",
        MAX_BOUND
    )]
    TooManyIds { needed: u32 },
}

/// What a pass returns: `Ok(None)` when the module needs no change.
pub type PassResult = Result<Option<Vec<u32>>, PassError>;
