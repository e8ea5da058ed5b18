//! Where each entry point's `Input` and `Output` Locations end. Vulkan bounds them by the
//! device's per-stage limits (VUID-RuntimeSpirv-Location-06272: a variable's Location plus
//! the Locations it consumes), and drivers crash rather than fail on a pipeline past them
//! (lavapipe 22.3.6 in `vkCreateGraphicsPipelines`, NVIDIA 580 at the next fence).

use spirv::{Decoration, ExecutionModel, StorageClass};

use super::layout::location_end;
use super::module::{EntryPoint, Module, Type};
use super::scan::LocationEnds;

/// The numeric type a vertex input reads (the format of the attribute that feeds it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputKind {
    Float,
    Int,
    Uint,
}

/// `(execution model, name, where its Locations end)` of every entry point of `words`;
/// empty when the module cannot be parsed (the driver's validation is then all there is).
pub fn entry_point_ends(words: &[u32]) -> Vec<(ExecutionModel, String, LocationEnds)> {
    let Ok(m) = Module::parse(words) else {
        return Vec::new();
    };
    m.entry_points
        .iter()
        .map(|ep| (ep.model, ep.name.clone(), ends_of(&m, ep)))
        .collect()
}

/// One past the highest Location a per-vertex `Input` or `Output` variable of `ep` takes.
/// Built-ins take none; per-patch variables count against limits of their own
/// (`maxTessellationControlPerPatchOutputComponents`) and are left out; the outer array of
/// an arrayed interface (one element per vertex) takes none.
fn ends_of(m: &Module<'_>, ep: &EntryPoint) -> LocationEnds {
    let mut ends = LocationEnds::default();
    for &id in &ep.interface {
        let Some((storage, pointee)) = m.variable(id) else {
            continue;
        };
        if m.has_decoration(id, Decoration::BuiltIn) || m.has_decoration(id, Decoration::Patch) {
            continue;
        }
        let arrayed = match (ep.model, storage) {
            (ExecutionModel::TessellationControl, _) => true,
            (ExecutionModel::TessellationEvaluation | ExecutionModel::Geometry, s) => {
                s == StorageClass::Input
            }
            _ => false,
        };
        let ty = match m.type_of(pointee) {
            Some(Type::Array { element, .. } | Type::RuntimeArray { element }) if arrayed => {
                *element
            }
            _ => pointee,
        };
        ends.take(storage, location_end(m, id, ty));
    }
    ends
}
