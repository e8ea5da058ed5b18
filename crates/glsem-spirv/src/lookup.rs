//! Lookups over a module's types, names and decorations beside [`Module`]'s own: the
//! questions glsem-run's link passes ask of a stage (a pointer's pointee, a struct's
//! members, a member's decoration or name).

use spirv::{Decoration, Op, StorageClass};

use crate::module::{decode_string, Module, Section, Type};

impl Module<'_> {
    /// The decoded `OpName` of `id`.
    pub fn name_of(&self, id: u32) -> Option<String> {
        self.names.get(&id).map(|n| n.decode())
    }

    /// The first literal of decoration `d` on `id` (`ArrayStride 16` → 16).
    pub fn decoration_literal(&self, id: u32, d: Decoration) -> Option<u32> {
        self.decoration(id, d)?.first().copied()
    }

    /// The first literal of decoration `d` on member `member` of struct `ty`.
    pub fn member_decoration_literal(&self, ty: u32, member: u32, d: Decoration) -> Option<u32> {
        self.member_decoration(ty, member, d)?.first().copied()
    }

    /// The decoded `OpMemberName` of member `member` of struct `ty`; the debug section is
    /// scanned, as few member names are asked for.
    pub fn member_name(&self, ty: u32, member: u32) -> Option<String> {
        self.insts
            .range(self.section_range(Section::Debug))
            .find(|i| {
                i.op() == Some(Op::MemberName) && i.operand(0) == ty && i.operand(1) == member
            })
            .map(|i| decode_string(&i.operands()[2..]).0)
    }

    /// The literal operands of decoration `d` on member `member` of struct `ty`.
    pub fn member_decoration(&self, ty: u32, member: u32, d: Decoration) -> Option<&[u32]> {
        self.member_decorations_of(ty, member)
            .find(|(dec, _)| *dec == d)
            .map(|(_, lits)| lits)
    }

    /// The opcode of the global instruction (type, constant, variable) that defines `id`.
    pub fn global_op(&self, id: u32) -> Option<Op> {
        self.insts.at(*self.globals.get(&id)?).op()
    }

    /// The global `OpVariable`s in declaration order: (variable, storage class, pointee type).
    pub fn global_variables(&self) -> impl Iterator<Item = (u32, StorageClass, u32)> + '_ {
        self.insts
            .range(self.section_range(Section::Global))
            .filter(|i| i.op() == Some(Op::Variable))
            .filter_map(|i| {
                let var = i.result_id()?;
                let (storage, pointee) = self.variable(var)?;
                Some((var, storage, pointee))
            })
    }

    /// The pointee of pointer type `ptr`.
    pub fn pointee(&self, ptr: u32) -> Option<u32> {
        match self.type_of(ptr)? {
            Type::Pointer { pointee, .. } => Some(*pointee),
            _ => None,
        }
    }

    /// The member types of struct type `ty`.
    pub fn struct_members(&self, ty: u32) -> Option<&[u32]> {
        match self.type_of(ty)? {
            Type::Struct { members } => Some(members),
            _ => None,
        }
    }

    /// The element type of runtime array type `ty`.
    pub fn runtime_array_element(&self, ty: u32) -> Option<u32> {
        match self.type_of(ty)? {
            Type::RuntimeArray { element } => Some(*element),
            _ => None,
        }
    }
}
