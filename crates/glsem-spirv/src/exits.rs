//! Where a stage's outputs take effect: the places a pass inserts code before.
//!
//! A vertex, tessellation evaluation or fragment shader hands its outputs on when its entry
//! point returns (returns of called functions are not exits). A geometry shader hands them
//! on at every `EmitVertex`/`EmitStreamVertex`, wherever in its call tree that is, and its
//! outputs are undefined after each emit, so code that sets an output goes before every one.

use spirv::{ExecutionModel, Op};

use super::error::PassError;
use super::module::{EntryPoint, Module};

/// One place where outputs take effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// Index into [`Module::insts`] of the `OpReturn`/`OpReturnValue` or emit.
    pub index: usize,
    /// For emits: the vertex stream (`None` when the stream is not a constant).
    pub stream: Option<u32>,
}

/// Every exit of `ep`, in module order.
pub fn exits(m: &Module<'_>, ep: &EntryPoint) -> Result<Vec<Exit>, PassError> {
    let missing = |function| move || PassError::MissingFunction { function };
    let mut found = Vec::new();
    if ep.model == ExecutionModel::Geometry {
        for function in m.call_tree(ep.function) {
            let (start, end) = m.function_range(function).ok_or_else(missing(function))?;
            for index in start..end {
                let stream = match m.insts.at(index).op() {
                    Some(Op::EmitVertex) => Some(0),
                    Some(Op::EmitStreamVertex) => m.constant_u32(m.insts.at(index).operand(0)),
                    _ => continue,
                };
                found.push(Exit { index, stream });
            }
        }
        found.sort_by_key(|e| e.index);
    } else {
        let (start, end) = m
            .function_range(ep.function)
            .ok_or_else(missing(ep.function))?;
        found.extend(
            (start..end)
                .filter(|&i| matches!(m.insts.at(i).op(), Some(Op::Return | Op::ReturnValue)))
                .map(|index| Exit {
                    index,
                    stream: None,
                }),
        );
    }
    Ok(found)
}

/// The exits whose outputs reach the rasterizer: all of them but emits to a vertex stream
/// other than 0 (a stream that is not a constant may be 0).
pub fn rasterized_exits(m: &Module<'_>, ep: &EntryPoint) -> Result<Vec<Exit>, PassError> {
    let mut all = exits(m, ep)?;
    all.retain(|exit| exit.stream.is_none_or(|s| s == 0));
    Ok(all)
}
