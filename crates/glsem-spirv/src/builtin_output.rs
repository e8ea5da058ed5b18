//! The built-in outputs of a pre-rasterization stage (`gl_Position`, `gl_PointSize`,
//! `gl_ClipDistance`): where they live (a member of the `gl_PerVertex` output block, or a
//! variable of their own), how to point at them, and whether the shader writes them.

use spirv::{BuiltIn, Decoration, ExecutionModel, Op, StorageClass};

use super::module::{Editor, EntryPoint, Module, Type};

/// Where a built-in output lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinOutput {
    /// Member `member` of the output block variable `var`.
    Member { var: u32, member: u32, ty: u32 },
    /// A variable of its own.
    Variable { var: u32, ty: u32 },
}

impl BuiltinOutput {
    /// The type of the built-in's value.
    pub fn ty(&self) -> u32 {
        match *self {
            BuiltinOutput::Member { ty, .. } | BuiltinOutput::Variable { ty, .. } => ty,
        }
    }

    pub fn var(&self) -> u32 {
        match *self {
            BuiltinOutput::Member { var, .. } | BuiltinOutput::Variable { var, .. } => var,
        }
    }

    /// Emits an access chain to the built-in (and to element `element` of it, for arrays)
    /// into `code`; returns the pointer's id.
    pub fn pointer(
        &self,
        e: &mut Editor<'_, '_>,
        code: &mut Vec<u32>,
        pointee: u32,
        element: Option<u32>,
    ) -> u32 {
        let ptr_type = e.type_pointer(StorageClass::Output, pointee);
        let mut indices = Vec::new();
        if let BuiltinOutput::Member { member, .. } = *self {
            indices.push(e.constant_i32(member as i32));
        }
        if let Some(element) = element {
            indices.push(e.constant_i32(element as i32));
        }
        if indices.is_empty() {
            return self.var();
        }
        e.access_chain(code, ptr_type, self.var(), &indices)
    }
}

/// The vertex, tessellation evaluation or geometry entry point `entry`: the stages whose
/// built-in outputs reach the rasterizer.
pub fn pre_rasterization_entry<'m>(m: &'m Module<'_>, entry: &str) -> Option<&'m EntryPoint> {
    m.entry_points.iter().find(|ep| {
        ep.name == entry
            && matches!(
                ep.model,
                ExecutionModel::Vertex
                    | ExecutionModel::TessellationEvaluation
                    | ExecutionModel::Geometry
            )
    })
}

/// The entry point's `builtin` output, if it declares one (outputs that are arrays per
/// vertex, as in a TCS, are not looked at).
pub fn find(m: &Module<'_>, ep: &EntryPoint, builtin: BuiltIn) -> Option<BuiltinOutput> {
    if let Some((var, ty)) = m
        .builtin_variables(ep, StorageClass::Output, builtin)
        .next()
    {
        return Some(BuiltinOutput::Variable { var, ty });
    }
    ep.interface.iter().find_map(|&var| {
        let (StorageClass::Output, pointee) = m.variable(var)? else {
            return None;
        };
        let Some(Type::Struct { members }) = m.type_of(pointee) else {
            return None;
        };
        members.iter().enumerate().find_map(|(i, &ty)| {
            m.member_decorations_of(pointee, i as u32)
                .any(|(d, lits)| {
                    d == Decoration::BuiltIn && lits.first() == Some(&(builtin as u32))
                })
                .then_some(BuiltinOutput::Member {
                    var,
                    member: i as u32,
                    ty,
                })
        })
    })
}

/// Whether any function of the entry point's call tree stores to `out` (through an access
/// chain that reaches it, a store of the whole block, or a store to its own variable).
pub fn is_written(m: &Module<'_>, ep: &EntryPoint, out: &BuiltinOutput) -> bool {
    let var = out.var();
    // Pointers that reach the built-in; the whole block counts.
    let mut reaching = vec![var];
    let mut stored = false;
    for index in m.call_tree_insts(ep.function) {
        let inst = &m.insts[index];
        match inst.op() {
            Some(Op::AccessChain | Op::InBoundsAccessChain)
                if inst.operands().len() >= 3 && inst.operand(2) == var =>
            {
                let reaches = match *out {
                    BuiltinOutput::Member { member, .. } => inst
                        .operands()
                        .get(3)
                        .and_then(|&index| m.constant_u32(index))
                        .is_none_or(|index| index == member),
                    BuiltinOutput::Variable { .. } => true,
                };
                if reaches {
                    reaching.push(inst.operand(1));
                }
            }
            Some(Op::Store) if reaching.contains(&inst.operand(0)) => stored = true,
            Some(Op::CopyMemory | Op::CopyMemorySized) if reaching.contains(&inst.operand(0)) => {
                stored = true
            }
            _ => {}
        }
    }
    stored
}

/// The number of elements of an array type (its length constant), if it is one.
pub fn array_length(m: &Module<'_>, ty: u32) -> Option<(u32, u32)> {
    m.array_length(ty)
}
