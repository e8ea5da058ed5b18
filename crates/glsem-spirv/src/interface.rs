//! Where each entry point's `Input` and `Output` Locations end. Vulkan bounds them by the
//! device's per-stage limits (VUID-RuntimeSpirv-Location-06272: a variable's Location plus
//! the Locations it consumes), and drivers crash rather than fail on a pipeline past them
//! (lavapipe 22.3.6 in `vkCreateGraphicsPipelines`, NVIDIA 580 at the next fence).

use spirv::ExecutionModel;

use super::module::Module;
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
        .map(|ep| {
            (
                ep.model,
                ep.name.clone(),
                LocationEnds::of_entry_point(&m, ep),
            )
        })
        .collect()
}
