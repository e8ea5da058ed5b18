//! The built-in outputs of a pre-rasterization stage (`gl_Position`, `gl_PointSize`,
//! `gl_ClipDistance`): where they live (a member of the `gl_PerVertex` output block, or a
//! variable of their own), how to point at them, and whether the shader writes them.

use spirv::{BuiltIn, Decoration, ExecutionModel, Op, StorageClass};

use super::error::PassError;
use super::interface::entry_point_ends;
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

/// The component type of `gl_Position`'s type `vec4`: GL's `vec4` of 32-bit floats, or the
/// pass that changes it refuses the module.
pub fn position_component(m: &Module<'_>, vec4: u32) -> Result<u32, PassError> {
    match m.type_of(vec4) {
        Some(Type::Vector {
            component,
            count: 4,
        }) if m.type_of(*component) == Some(&Type::Float { width: 32 }) => Ok(*component),
        _ => Err(PassError::BuiltinType {
            builtin: "gl_Position",
            expected: "a vec4",
        }),
    }
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
        let inst = m.insts.at(index);
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

/// Where transform feedback captures a built-in output that a pass changes: GL captures the
/// shader's value (GL 4.6 §13.3) whatever it rasterizes, so the capture moves to an output of
/// its own ([`Capture::keep_apart`]).
/// Where transform feedback captures a built-in output (`XfbBuffer`, `XfbStride` and
/// `Stream` on its variable, `Offset` on it or its block member).
pub struct Capture {
    buffer: u32,
    stride: Option<u32>,
    stream: Option<u32>,
    offset: u32,
    /// The `OpDecorate`/`OpMemberDecorate` of the offset: removed, so the built-in itself is
    /// no longer captured.
    offset_decoration: usize,
}

pub fn capture_of(m: &Module<'_>, out: &BuiltinOutput) -> Option<Capture> {
    let var = out.var();
    let (offset, offset_decoration) = match *out {
        BuiltinOutput::Member { var, member, .. } => {
            let (_, block) = m.variable(var)?;
            let offset = m.member_decoration_literal(block, member, Decoration::Offset)?;
            let index = m.insts.iter().position(|i| {
                i.op() == Some(Op::MemberDecorate)
                    && i.operand(0) == block
                    && i.operand(1) == member
                    && i.operand(2) == Decoration::Offset as u32
            })?;
            (offset, index)
        }
        BuiltinOutput::Variable { var, .. } => (
            m.decoration_literal(var, Decoration::Offset)?,
            m.decoration_indices(var, Decoration::Offset).next()?,
        ),
    };
    Some(Capture {
        buffer: m.decoration_literal(var, Decoration::XfbBuffer)?,
        stride: m.decoration_literal(var, Decoration::XfbStride),
        stream: m.decoration_literal(var, Decoration::Stream),
        offset,
        offset_decoration,
    })
}

impl Capture {
    /// Moves the capture to a new output of type `ty` named `name`, at the first Location
    /// past `ep`'s outputs (`words` is `ep`'s module); returns it. The pass then stores the
    /// shader's value there before it changes the built-in.
    pub fn keep_apart(
        &self,
        words: &[u32],
        ep: &EntryPoint,
        e: &mut Editor<'_, '_>,
        ty: u32,
        name: &str,
    ) -> u32 {
        let location = entry_point_ends(words)
            .into_iter()
            .find(|(model, name, _)| *model == ep.model && *name == ep.name)
            .map_or(0, |(_, _, ends)| ends.output);
        e.remove(self.offset_decoration);
        let var = e.add_variable(StorageClass::Output, ty);
        e.name(var, name);
        e.decorate(var, Decoration::Location, &[location]);
        e.decorate(var, Decoration::XfbBuffer, &[self.buffer]);
        if let Some(stride) = self.stride {
            e.decorate(var, Decoration::XfbStride, &[stride]);
        }
        if let Some(stream) = self.stream {
            e.decorate(var, Decoration::Stream, &[stream]);
        }
        e.decorate(var, Decoration::Offset, &[self.offset]);
        var
    }
}
