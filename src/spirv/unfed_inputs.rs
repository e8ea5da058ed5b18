//! GL's current vertex attribute for a vertex input no array feeds.
//!
//! GL: an attribute whose array is disabled reads the current generic attribute
//! (`glVertexAttrib*`), initially (0, 0, 0, 1) (GL 4.6 §10.2–10.3). Vulkan: every input the
//! shader reads needs an attribute description, else the pipeline is invalid. The pass turns
//! each input that occupies a Location the vertex-input state does not feed into a `Private`
//! variable initialized to (0, 0, 0, 1) of its type (a scalar takes x, a vector its first
//! components, a matrix that value per column).

use spirv::{Decoration, ExecutionModel, StorageClass};

use super::demote::demote_to_private;
use super::module::{Editor, Module, Type};
use super::{PassError, PassResult};

/// GL's initial current attribute.
const INITIAL: [u32; 4] = [0, 0, 0, 1];

/// Gives every input of vertex entry point `entry` that reads a Location outside `fed` GL's
/// initial current value. `Ok(None)` when every input is fed.
pub fn default_unfed_inputs(words: &[u32], entry: &str, fed: &[u32]) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Vertex) else {
        return Ok(None);
    };
    let mut e = Editor::new(&m);
    let mut demoted = Vec::new();
    for &var in &ep.interface {
        let Some((StorageClass::Input, pointee)) = m.variable(var) else {
            continue;
        };
        if m.decoration(var, Decoration::BuiltIn).is_some() {
            continue;
        }
        let Some(&location) = m
            .decoration(var, Decoration::Location)
            .and_then(|l| l.first())
        else {
            continue;
        };
        let (columns, column) = match m.type_of(pointee) {
            Some(Type::Matrix { column, columns }) => (*columns, *column),
            _ => (1, pointee),
        };
        if (location..location + columns).all(|l| fed.contains(&l)) {
            continue;
        }
        let value = initial_value(&m, &mut e, column)?;
        let initializer = if columns == 1 {
            value
        } else {
            e.constant_composite(pointee, &vec![value; columns as usize])
        };
        demoted.push((var, Some(initializer)));
    }
    if demoted.is_empty() {
        return Ok(None);
    }
    demote_to_private(&m, &mut e, &demoted);
    Ok(Some(e.finish()?))
}

/// GL's initial current value as a constant of `ty` (a 32-bit scalar or vector).
fn initial_value(m: &Module<'_>, e: &mut Editor<'_, '_>, ty: u32) -> Result<u32, PassError> {
    let (component, count) = match m.type_of(ty) {
        Some(Type::Vector { component, count }) => (*component, *count),
        _ => (ty, 1),
    };
    let scalar = |e: &mut Editor<'_, '_>, bits: u32| -> Result<u32, PassError> {
        Ok(match m.type_of(component) {
            Some(Type::Float { width: 32 }) => e.constant_f32(bits as f32),
            Some(Type::Int {
                width: 32,
                signed: true,
            }) => e.constant_i32(bits as i32),
            Some(Type::Int {
                width: 32,
                signed: false,
            }) => e.constant_u32(bits),
            _ => {
                return Err(PassError::Unsupported(
                    "an unfed vertex input that is not 32-bit float or integer".into(),
                ))
            }
        })
    };
    if count == 1 {
        return scalar(e, INITIAL[0]);
    }
    let parts = INITIAL[..count.min(4) as usize]
        .iter()
        .map(|&bits| scalar(e, bits))
        .collect::<Result<Vec<u32>, PassError>>()?;
    Ok(e.constant_composite(ty, &parts))
}
