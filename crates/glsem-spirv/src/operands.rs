//! Which words of an instruction are ids: the walk that lets a pass follow (and rename)
//! every use of an id, which [`Inst::operands`] alone cannot tell from a literal.
//!
//! The operand kinds come from rspirv's grammar table; what the table leaves out (the
//! words an enumerant's parameters take, the width of `OpSwitch`'s literals, the operands
//! of `OpSpecConstantOp`) is decoded here.

use rspirv::grammar::{CoreInstructionTable, LogicalOperand, OperandKind, OperandQuantifier};
use spirv::Op;

use crate::module::{Editor, Inst, Section};

/// An opcode the grammar does not know: its operands cannot be told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownOpcode(pub u16);

impl Inst<'_> {
    /// Every id the instruction refers to, in operand order: its result type and each
    /// `<id>` operand (`IdRef`, `IdScope`, `IdMemorySemantics`, ids inside pairs and
    /// enumerant parameters), not its result id.
    pub fn id_operands(&self) -> Result<Vec<u32>, UnknownOpcode> {
        let mut ids = Vec::new();
        visit_id_words(self.words, |at| ids.push(self.words[at]))?;
        Ok(ids)
    }
}

/// Calls `f` on each id word of the instruction `words` (opcode word first) that
/// [`Inst::id_operands`] lists, so that `f` can rename it.
pub fn for_each_id_operand_mut(
    words: &mut [u32],
    mut f: impl FnMut(&mut u32),
) -> Result<(), UnknownOpcode> {
    let mut at_ids = Vec::new();
    visit_id_words(words, |at| at_ids.push(at))?;
    for at in at_ids {
        f(&mut words[at]);
    }
    Ok(())
}

impl Editor<'_, '_> {
    /// Puts `renamed(id)`, where it is `Some`, in place of each id the functions'
    /// instructions use (their result ids stay).
    pub fn rename_uses(
        &mut self,
        renamed: impl Fn(u32) -> Option<u32>,
    ) -> Result<(), UnknownOpcode> {
        let view = self.module;
        for index in view.section_range(Section::Function) {
            let mut words = view.insts.at(index).words.to_vec();
            let mut changed = false;
            for_each_id_operand_mut(&mut words, |id| {
                if let Some(new) = renamed(*id) {
                    *id = new;
                    changed = true;
                }
            })?;
            if changed {
                self.replace(index, words);
            }
        }
        Ok(())
    }
}

/// Calls `visit` with the index (in `words`) of each referenced id word.
fn visit_id_words(words: &[u32], mut visit: impl FnMut(usize)) -> Result<(), UnknownOpcode> {
    // No words, no operands (an `Inst` always has its opcode word).
    let Some(&first) = words.first() else {
        return Ok(());
    };
    let opcode = (first & 0xffff) as u16;
    let grammar = CoreInstructionTable::lookup_opcode(opcode).ok_or(UnknownOpcode(opcode))?;
    let mut walk = Walk {
        words,
        at: 1,
        opcode: grammar.opcode,
        visit: &mut visit,
    };
    walk.operands(grammar.operands)
}

/// A cursor over one instruction's operand words.
struct Walk<'w, F> {
    words: &'w [u32],
    at: usize,
    opcode: Op,
    visit: &'w mut F,
}

impl<F: FnMut(usize)> Walk<'_, F> {
    fn operands(&mut self, operands: &[LogicalOperand]) -> Result<(), UnknownOpcode> {
        for operand in operands {
            match operand.quantifier {
                OperandQuantifier::One | OperandQuantifier::ZeroOrOne => {
                    if self.left() > 0 {
                        self.operand(operand.kind)?;
                    }
                }
                OperandQuantifier::ZeroOrMore => {
                    while self.left() > 0 {
                        self.operand(operand.kind)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn left(&self) -> usize {
        self.words.len().saturating_sub(self.at)
    }

    fn id(&mut self) {
        if self.left() > 0 {
            (self.visit)(self.at);
            self.at += 1;
        }
    }

    fn skip(&mut self, count: usize) {
        self.at += count.min(self.left());
    }

    fn ids_to_end(&mut self) {
        while self.left() > 0 {
            self.id();
        }
    }

    fn operand(&mut self, kind: OperandKind) -> Result<(), UnknownOpcode> {
        match kind {
            OperandKind::IdResult => self.skip(1),
            OperandKind::IdResultType
            | OperandKind::IdRef
            | OperandKind::IdScope
            | OperandKind::IdMemorySemantics => self.id(),
            OperandKind::LiteralString => self.skip(string_words(&self.words[self.at..])),
            // The value of OpConstant/OpSpecConstant: as many words as its type is wide.
            OperandKind::LiteralContextDependentNumber => self.skip(self.left()),
            OperandKind::PairLiteralIntegerIdRef => {
                self.skip(self.switch_literal_words());
                self.id();
            }
            OperandKind::PairIdRefLiteralInteger => {
                self.id();
                self.skip(1);
            }
            OperandKind::PairIdRefIdRef => {
                self.id();
                self.id();
            }
            OperandKind::LiteralSpecConstantOpInteger => self.spec_constant_op()?,
            OperandKind::ImageOperands => {
                // Every parameter of every image operand is an id.
                self.skip(1);
                self.ids_to_end();
            }
            OperandKind::MemoryAccess => self.memory_access(),
            // Last operands whose parameters follow them: ids for the *Id instructions,
            // literals (or strings) otherwise.
            OperandKind::Decoration | OperandKind::ExecutionMode => {
                self.skip(1);
                if matches!(self.opcode, Op::DecorateId | Op::ExecutionModeId) {
                    self.ids_to_end();
                } else {
                    self.skip(self.left());
                }
            }
            // OpLoopMerge's last operand; its parameters are literals.
            OperandKind::LoopControl => self.skip(self.left()),
            // Every other kind is one literal or enumerant word without id parameters.
            _ => self.skip(1),
        }
        Ok(())
    }

    /// Words of each `OpSwitch` literal: one for a 32-bit selector (GLSL's), two for a
    /// 64-bit one, told by the pairs' word count when only the wide form fits it.
    fn switch_literal_words(&self) -> usize {
        let pair_words = self.words.len() - 3;
        if !pair_words.is_multiple_of(2) && pair_words.is_multiple_of(3) {
            2
        } else {
            1
        }
    }

    /// `OpSpecConstantOp`: its opcode, then that opcode's operands after result type and id.
    fn spec_constant_op(&mut self) -> Result<(), UnknownOpcode> {
        let opcode = self.words[self.at] as u16;
        self.skip(1);
        let inner = CoreInstructionTable::lookup_opcode(opcode).ok_or(UnknownOpcode(opcode))?;
        let results = inner
            .operands
            .iter()
            .take_while(|o| matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult))
            .count();
        let outer = std::mem::replace(&mut self.opcode, inner.opcode);
        self.operands(&inner.operands[results..])?;
        self.opcode = outer;
        Ok(())
    }

    /// A memory-access mask and its parameters, in bit order: `Aligned` a literal,
    /// `MakePointerAvailable`/`MakePointerVisible` a scope id, the INTEL alias masks an id.
    fn memory_access(&mut self) {
        let mask = self.words[self.at];
        self.skip(1);
        for bit in 0..32 {
            match mask & (1 << bit) {
                0 => {}
                0x2 => self.skip(1),
                0x8 | 0x10 | 0x1_0000 | 0x2_0000 => self.id(),
                _ => {}
            }
        }
    }
}

/// Words a literal string takes: up to and including the word holding its NUL byte.
fn string_words(words: &[u32]) -> usize {
    words
        .iter()
        .position(|w| w >> 24 == 0)
        .map_or(words.len(), |last| last + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::{encode_string, inst};

    fn ids(words: &[u32]) -> Vec<u32> {
        Inst { words }.id_operands().unwrap()
    }

    #[test]
    fn renamed_uses_keep_the_result_ids() {
        use crate::module::{push_inst, Module, MAGIC};
        let mut words = vec![MAGIC, 0x0001_0000, 0, 9, 0];
        push_inst(
            &mut words,
            Op::Capability,
            &[spirv::Capability::Shader as u32],
        );
        push_inst(&mut words, Op::MemoryModel, &[0, 1]);
        push_inst(&mut words, Op::TypeVoid, &[1]);
        push_inst(&mut words, Op::TypeFunction, &[2, 1]);
        push_inst(&mut words, Op::TypeFloat, &[5, 32]);
        push_inst(&mut words, Op::Constant, &[5, 6, 1.0f32.to_bits()]);
        push_inst(&mut words, Op::Constant, &[5, 7, 2.0f32.to_bits()]);
        push_inst(&mut words, Op::Function, &[1, 3, 0, 2]);
        push_inst(&mut words, Op::Label, &[4]);
        push_inst(&mut words, Op::FAdd, &[5, 8, 6, 6]);
        push_inst(&mut words, Op::Return, &[]);
        push_inst(&mut words, Op::FunctionEnd, &[]);
        let m = Module::parse(&words).unwrap();
        let mut editor = Editor::new(&m);
        editor
            .rename_uses(|id| (id == 6 || id == 8).then_some(7))
            .unwrap();
        let edited = editor.finish().unwrap();
        let m = Module::parse(&edited).unwrap();
        let add = m.insts.iter().find(|i| i.op() == Some(Op::FAdd)).unwrap();
        assert_eq!(add.operands(), [5, 8, 7, 7]);
        assert!(m.constant_u32(6).is_some(), "definitions stay");
    }

    #[test]
    fn result_type_and_id_refs_not_the_result_id() {
        // %3 = OpIAdd %1 %4 %5
        assert_eq!(ids(&inst(Op::IAdd, &[1, 3, 4, 5])), [1, 4, 5]);
        // %7 = OpAccessChain %2 %6 %8 %9 %10
        assert_eq!(
            ids(&inst(Op::AccessChain, &[2, 7, 6, 8, 9, 10])),
            [2, 6, 8, 9, 10]
        );
    }

    #[test]
    fn literals_are_skipped() {
        // %5 = OpCompositeExtract %1 %4 0 2
        assert_eq!(ids(&inst(Op::CompositeExtract, &[1, 5, 4, 0, 2])), [1, 4]);
        // %5 = OpVectorShuffle %1 %3 %4 0 1 4
        assert_eq!(
            ids(&inst(Op::VectorShuffle, &[1, 5, 3, 4, 0, 1, 4])),
            [1, 3, 4]
        );
        // %9 = OpConstant %1 0x4000_0000_0000_0000 (a double: two words)
        assert_eq!(ids(&inst(Op::Constant, &[1, 9, 0, 0x4000_0000])), [1]);
        // OpDecorate %4 Location 3
        assert_eq!(ids(&inst(Op::Decorate, &[4, 30, 3])), [4]);
        // OpMemberDecorate %4 1 Offset 16
        assert_eq!(ids(&inst(Op::MemberDecorate, &[4, 1, 35, 16])), [4]);
    }

    #[test]
    fn strings_take_their_words() {
        // OpName %4 "position"; OpEntryPoint Vertex %2 "main" %5 %6
        let mut name = vec![4];
        name.extend(encode_string("position"));
        assert_eq!(ids(&inst(Op::Name, &name)), [4]);
        let mut entry = vec![0, 2];
        entry.extend(encode_string("main"));
        entry.extend([5, 6]);
        assert_eq!(ids(&inst(Op::EntryPoint, &entry)), [2, 5, 6]);
    }

    #[test]
    fn pairs_and_scopes() {
        // %9 = OpPhi %1 %3 %4 %5 %6
        assert_eq!(ids(&inst(Op::Phi, &[1, 9, 3, 4, 5, 6])), [1, 3, 4, 5, 6]);
        // OpSwitch %3 %4 1 %5 2 %6
        assert_eq!(ids(&inst(Op::Switch, &[3, 4, 1, 5, 2, 6])), [3, 4, 5, 6]);
        // OpSwitch on a 64-bit selector: OpSwitch %3 %4 (1, 0) %5
        assert_eq!(ids(&inst(Op::Switch, &[3, 4, 1, 0, 5])), [3, 4, 5]);
        // OpGroupMemberDecorate %2 %3 0 %4 1
        assert_eq!(
            ids(&inst(Op::GroupMemberDecorate, &[2, 3, 0, 4, 1])),
            [2, 3, 4]
        );
        // OpControlBarrier %2 %3 %4: scope, scope, semantics
        assert_eq!(ids(&inst(Op::ControlBarrier, &[2, 3, 4])), [2, 3, 4]);
    }

    #[test]
    fn enumerant_parameters() {
        // %9 = OpImageSampleExplicitLod %1 %2 %3 Lod|ConstOffset %4 %5
        assert_eq!(
            ids(&inst(
                Op::ImageSampleExplicitLod,
                &[1, 9, 2, 3, 0x2 | 0x8, 4, 5]
            )),
            [1, 2, 3, 4, 5]
        );
        // %9 = OpLoad %1 %2 Aligned|MakePointerVisible 16 %3
        assert_eq!(
            ids(&inst(Op::Load, &[1, 9, 2, 0x2 | 0x10, 16, 3])),
            [1, 2, 3]
        );
        // OpCopyMemory %2 %3 Aligned 4 Aligned 8
        assert_eq!(ids(&inst(Op::CopyMemory, &[2, 3, 0x2, 4, 0x2, 8])), [2, 3]);
        // OpLoopMerge %2 %3 DependencyLength 4
        assert_eq!(ids(&inst(Op::LoopMerge, &[2, 3, 0x8, 4])), [2, 3]);
        // OpExecutionModeId %2 LocalSizeId %3 %4 %5; OpExecutionMode %2 LocalSize 8 1 1
        assert_eq!(
            ids(&inst(Op::ExecutionModeId, &[2, 38, 3, 4, 5])),
            [2, 3, 4, 5]
        );
        assert_eq!(ids(&inst(Op::ExecutionMode, &[2, 17, 8, 1, 1])), [2]);
    }

    #[test]
    fn ext_inst_and_spec_constant_op() {
        // %9 = OpExtInst %1 %2 FMax %3 %4
        assert_eq!(ids(&inst(Op::ExtInst, &[1, 9, 2, 40, 3, 4])), [1, 2, 3, 4]);
        // %9 = OpSpecConstantOp %1 CompositeExtract %3 1
        let extract = Op::CompositeExtract as u32;
        assert_eq!(
            ids(&inst(Op::SpecConstantOp, &[1, 9, extract, 3, 1])),
            [1, 3]
        );
        // %9 = OpSpecConstantOp %1 IAdd %3 %4
        let add = Op::IAdd as u32;
        assert_eq!(
            ids(&inst(Op::SpecConstantOp, &[1, 9, add, 3, 4])),
            [1, 3, 4]
        );
    }

    #[test]
    fn renames_in_place() {
        // %7 = OpAccessChain %2 %6 %8, its base renamed
        let mut chain = inst(Op::AccessChain, &[2, 7, 6, 8]);
        for_each_id_operand_mut(&mut chain, |id| {
            if *id == 6 {
                *id = 60;
            }
        })
        .unwrap();
        assert_eq!(chain, inst(Op::AccessChain, &[2, 7, 60, 8]));
    }

    #[test]
    fn no_words_no_ids() {
        assert_eq!(for_each_id_operand_mut(&mut [], |_| unreachable!()), Ok(()));
    }

    #[test]
    fn unknown_opcode() {
        assert_eq!(
            Inst {
                words: &[(1 << 16) | 0xfffe]
            }
            .id_operands(),
            Err(UnknownOpcode(0xfffe))
        );
    }
}
