//! The device's interface limits: a stage whose outputs, or a fragment shader whose inputs,
//! take more Locations than the device has (VUID-RuntimeSpirv-Location-06272) crashes
//! drivers (`vkCreateGraphicsPipelines` on lavapipe 22.3.6, `VK_ERROR_DEVICE_LOST` on
//! NVIDIA 580), and the validation layer does not see it: the layer fails such a pipeline
//! or shader object with a message instead. The inputs of the other stages are left to the
//! driver, and so are the outputs that a geometry shader reads: zink's geometry shaders read
//! past lavapipe's `maxGeometryInputComponents / 4` and draw right, as does piglit's
//! `glsl-1.50/execution/geometry/max-input-components` (64 Locations from its vertex
//! shader), and an application that worked without the layer must work with it. The
//! layer's own additions (a rewritten stage, a generated TCS or geometry shader) are held to
//! every limit.

use spirv::ExecutionModel;

use crate::layer::data::records::ModuleRecord;
use crate::layer::loader::state::Limits;
use crate::layer::support::error::LimitExceeded;
use glsem_spirv::interface::entry_point_ends;
use glsem_spirv::scan::LocationEnds;
use glsem_spirv::semantics::Stage;

/// The limits behind [`Limits::stage_inputs`] and [`Limits::stage_outputs`], by [`Stage`].
const INPUT_LIMITS: [&str; 5] = [
    "maxVertexInputAttributes",
    "maxTessellationControlPerVertexInputComponents / 4",
    "maxTessellationEvaluationInputComponents / 4",
    "maxGeometryInputComponents / 4",
    "maxFragmentInputComponents / 4",
];
const OUTPUT_LIMITS: [&str; 5] = [
    "maxVertexOutputComponents / 4",
    "maxTessellationControlPerVertexOutputComponents / 4",
    "maxTessellationEvaluationOutputComponents / 4",
    "maxGeometryOutputComponents / 4",
    "maxFragmentOutputAttachments",
];

fn model_of(stage: Stage) -> ExecutionModel {
    match stage {
        Stage::Vertex => ExecutionModel::Vertex,
        Stage::TessControl => ExecutionModel::TessellationControl,
        Stage::TessEval => ExecutionModel::TessellationEvaluation,
        Stage::Geometry => ExecutionModel::Geometry,
        Stage::Fragment => ExecutionModel::Fragment,
    }
}

/// The stages of a pipeline, one bit each (`1 << stage`): [`over_limit`]'s context.
#[derive(Clone, Copy)]
pub(crate) struct StageSet(u8);

impl StageSet {
    pub(crate) fn of(stages: impl Iterator<Item = Stage>) -> Self {
        Self(stages.fold(0, |set, s| set | 1 << s as u8))
    }

    fn has(self, stage: Stage) -> bool {
        self.0 & 1 << stage as u8 != 0
    }

    /// Whether `stage`'s outputs are a geometry shader's inputs.
    fn feeds_geometry(self, stage: Stage) -> bool {
        self.has(Stage::Geometry)
            && match stage {
                Stage::TessEval => true,
                Stage::Vertex => !self.has(Stage::TessEval),
                _ => false,
            }
    }
}

/// Why entry point `entry` of `module` in `stage` does not fit the device, if it does not;
/// `stages`: the pipeline's.
pub(crate) fn over_limit(
    limits: &Limits,
    stage: Stage,
    module: &ModuleRecord,
    entry: &str,
    stages: StageSet,
) -> Option<LimitExceeded> {
    if fits_by_bound(limits, stage, module) {
        return None;
    }
    app_exceeds(
        limits,
        stage,
        module.interface_ends(model_of(stage), entry)?,
        stages.feeds_geometry(stage),
    )
}

/// Whether `module` fits `stage`'s limits by its scan's bound alone. Most modules' interface
/// variables take one Location each: the bound then says they fit without the parse (a
/// pass-through pipeline of new modules would pay it), and without the entry point's name.
pub(crate) fn fits_by_bound(limits: &Limits, stage: Stage, module: &ModuleRecord) -> bool {
    let bound = module.summary.single_location_bound;
    bound.is_some_and(|end| fits_everywhere(limits, stage, end))
}

/// Where the interfaces of `entry` of `words` (a `stage` entry point) end.
fn code_ends(stage: Stage, words: &[u32], entry: &str) -> Option<LocationEnds> {
    let model = model_of(stage);
    entry_point_ends(words)
        .into_iter()
        .find(|(m, n, _)| *m == model && n == entry)
        .map(|(_, _, ends)| ends)
}

/// The limits an application's stage is held to: its outputs where no geometry shader reads
/// them, and a fragment shader's inputs (the module's comment says why not the others).
fn app_exceeds(
    limits: &Limits,
    stage: Stage,
    mut ends: LocationEnds,
    feeds_geometry: bool,
) -> Option<LimitExceeded> {
    if stage != Stage::Fragment {
        ends.input = 0;
    }
    if feeds_geometry {
        ends.output = 0;
    }
    exceeds(limits, stage, ends)
}

/// Whose SPIR-V [`code_over_limit`] checks: an application's stage is held to fewer limits
/// than the layer's own code ([`app_exceeds`]).
pub(crate) enum Author {
    /// The application's code that no module holds (shader objects).
    Application,
    /// Code the layer made (a rewritten stage, a generated TCS).
    Layer,
}

/// [`over_limit`] for SPIR-V words that no module record holds.
pub(crate) fn code_over_limit(
    limits: &Limits,
    (stage, words, entry): (Stage, &[u32], &str),
    author: Author,
) -> Option<LimitExceeded> {
    let ends = code_ends(stage, words, entry)?;
    match author {
        // A shader object's next stage is bound at draw time: held to every output limit.
        Author::Application => app_exceeds(limits, stage, ends, false),
        Author::Layer => exceeds(limits, stage, ends),
    }
}

/// Whether interfaces ending at `end` fit both of `stage`'s limits (0: no such stage).
fn fits_everywhere(limits: &Limits, stage: Stage, end: u32) -> bool {
    let i = stage as usize;
    [limits.stage_inputs[i], limits.stage_outputs[i]]
        .into_iter()
        .all(|max| max == 0 || end <= max)
}

fn exceeds(limits: &Limits, stage: Stage, ends: LocationEnds) -> Option<LimitExceeded> {
    let i = stage as usize;
    let sides = [
        (
            "inputs",
            ends.input,
            limits.stage_inputs[i],
            INPUT_LIMITS[i],
        ),
        (
            "outputs",
            ends.output,
            limits.stage_outputs[i],
            OUTPUT_LIMITS[i],
        ),
    ];
    // A limit of 0: the device has no such stage, and Vulkan's validation says so.
    let (side, end, max, name) = sides
        .into_iter()
        .find(|&(_, end, max, _)| max > 0 && end > max)?;
    Some(LimitExceeded {
        stage,
        side,
        end,
        max,
        limit: name,
    })
}
