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
//!
//! One file per job, each re-exported here so that `module::Editor` and the rest keep their
//! paths: [`words`] (the header, instruction boundaries, [`Inst`], the index [`Insts`],
//! literal strings read), [`view`] ([`Module`]: sections, types, names, decorations, entry
//! points), [`instruction`] ([`Instruction`], the one place instruction words are encoded)
//! and [`editor`] ([`Editor`]).

pub mod editor;
pub mod instruction;
pub mod view;
pub mod words;

#[cfg(test)]
mod tests;

pub use crate::error::{ParseError, MAX_BOUND};
pub use editor::{entry_point_with_interface, Editor, INTERFACE_LISTS_ALL_GLOBALS};
pub use instruction::{encode_string, inst, push_inst, Instruction};
pub use view::{EntryPoint, MemberDecoration, Module, Name, Section, Type};
pub use words::{
    check_header, decode_string, instructions, structure_error, Inst, InstIter, Insts,
    HEADER_WORDS, MAGIC,
};
