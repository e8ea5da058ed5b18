//! GL's current vertex attribute for a vertex input no array feeds.
//!
//! GL: an attribute whose array is disabled reads the current generic attribute
//! (`glVertexAttrib*`), initially (0, 0, 0, 1) (GL 4.6 §10.2–10.3). Vulkan: every input the
//! shader reads needs an attribute description, else the pipeline is invalid. The pass turns
//! each input that occupies a Location the vertex-input state does not feed into a `Private`
//! variable initialized to (0, 0, 0, 1) of its type (a scalar takes x, a vector its first
//! components, a matrix that value per column).
//!
//! On a `VK_GLSEM_gl_state` device the layer feeds those inputs instead, from GL's current
//! values (`vkCmdSetVertexAttribGLSEM`): [`unfed_input_kinds`] says which Locations need a
//! layer-owned attribute and of which numeric type; the module stays as it is.

use spirv::{Decoration, ExecutionModel, StorageClass};

use super::demote::demote_to_private;
use super::error::{PassError, PassResult};
use super::interface::InputKind;
use super::module::{Editor, Module, Type};
use super::rule::{Rule, Semantic, SplitInterface, Stage};

/// GL's initial current attribute.
const INITIAL: [u32; 4] = [0, 0, 0, 1];

/// One unfed input of a vertex entry point.
struct Unfed {
    var: u32,
    pointee: u32,
    location: u32,
    /// Locations it occupies (a matrix: one per column) and the type of each.
    columns: u32,
    column: u32,
}

/// The inputs of vertex entry point `entry` that occupy a Location outside `fed`.
fn unfed_inputs(m: &Module<'_>, entry: &str, fed: &[u32]) -> Vec<Unfed> {
    let Some(ep) = m.entry_point(entry, ExecutionModel::Vertex) else {
        return Vec::new();
    };
    let mut unfed = Vec::new();
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
        if !(location..location + columns).all(|l| fed.contains(&l)) {
            unfed.push(Unfed {
                var,
                pointee,
                location,
                columns,
                column,
            });
        }
    }
    unfed
}

/// Gives every input of vertex entry point `entry` that reads a Location outside `fed`
/// GL's initial current value. `Ok(None)` when every input is fed.
pub fn default_unfed_inputs(words: &[u32], entry: &str, fed: &[u32]) -> PassResult {
    let m = Module::parse(words)?;
    let unfed = unfed_inputs(&m, entry, fed);
    if unfed.is_empty() {
        return Ok(None);
    }
    let mut e = Editor::new(&m);
    let mut demoted = Vec::new();
    for input in unfed {
        let value = initial_value(&m, &mut e, input.column)?;
        let initializer = if input.columns == 1 {
            value
        } else {
            e.constant_composite(input.pointee, &vec![value; input.columns as usize])
        };
        demoted.push((input.var, Some(initializer)));
    }
    demote_to_private(&m, &mut e, &demoted);
    Ok(Some(e.finish()?))
}

/// Every Location an input of vertex entry point `entry` reads outside `fed`, with the
/// numeric type it reads there, in Location order: what a layer-owned attribute must feed.
pub fn unfed_input_kinds(
    words: &[u32],
    entry: &str,
    fed: &[u32],
) -> Result<Vec<(u32, InputKind)>, PassError> {
    let m = Module::parse(words)?;
    let mut kinds = Vec::new();
    for input in unfed_inputs(&m, entry, fed) {
        let component = match m.type_of(input.column) {
            Some(Type::Vector { component, .. }) => *component,
            _ => input.column,
        };
        let kind = match m.type_of(component) {
            Some(Type::Float { width: 32 }) => InputKind::Float,
            Some(Type::Int {
                width: 32,
                signed: true,
            }) => InputKind::Int,
            Some(Type::Int {
                width: 32,
                signed: false,
            }) => InputKind::Uint,
            _ => {
                return Err(PassError::Unsupported(
                    "an unfed vertex input that is not 32-bit float or integer".into(),
                ))
            }
        };
        kinds.extend(
            (input.location..input.location + input.columns)
                .filter(|l| !fed.contains(l))
                .map(|l| (l, kind)),
        );
    }
    kinds.sort_unstable_by_key(|&(location, _)| location);
    kinds.dedup_by_key(|&mut (location, _)| location);
    Ok(kinds)
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

/// The step: vertex inputs at Locations outside `fed` read GL's (0, 0, 0, 1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DefaultUnfedInputs {
    pub fed: Vec<u32>,
}

impl Rule for DefaultUnfedInputs {
    const SEMANTIC: Semantic = Semantic::UnfedInputs;
    const STAGE: Option<Stage> = Some(Stage::Vertex);
    const NOTE: &'static str = "vertex inputs no attribute feeds read GL's (0, 0, 0, 1)";

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        default_unfed_inputs(words, entry, &self.fed)
    }
}

/// The step on `VK_GLSEM_gl_state` devices, pipeline state: vertex inputs at Locations
/// outside `fed` read GL's current values (`vkCmdSetVertexAttribGLSEM`) from a stride-0
/// attribute on the layer's `binding`. The layer reads the inputs' types and feeds them;
/// the code stays as it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FeedCurrentAttributes {
    pub fed: Vec<u32>,
    pub binding: u32,
}

impl Rule for FeedCurrentAttributes {
    const SEMANTIC: Semantic = Semantic::UnfedInputs;
    const STAGE: Option<Stage> = Some(Stage::Vertex);

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        format!(
            "vertex inputs no attribute feeds read GL's current values (binding {})",
            self.binding
        )
    }
}
