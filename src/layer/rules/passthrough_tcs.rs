//! The passthrough TCS, layer side: a pipeline with a TES and no TCS gets a generated TCS,
//! and pushes GL's default levels (`vkCmdSetTessellationDefaultLevelsGLSEM`) from the
//! GL-state block.

use crate::layer::data::cache::{CacheKey, ModuleKey, Outcome};
use crate::layer::data::records::{BlockBinding, BlockSlot};
use crate::layer::data::words::Words;
use crate::layer::rewrite::run::{cached, Run};
use crate::layer::rules::layer_step::LayerStep;
use crate::layer::support::error::{GenerationError, PlanError, TcsError};
use glsem_spirv::passthrough_tcs::{
    build_passthrough_tcs, patch_size_location, GenerateTcs, ReadPatchSize, TcsKey,
};
use glsem_spirv::semantics::{Semantic, Stage, Step};

impl LayerStep for GenerateTcs {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        let patch_size_location = read_patch_size(run)?;
        let (words, binding, patch_size) = generate_tcs(run, patch_size_location)?;
        run.out.tcs = Some(words);
        run.out.reads_block = Some(binding);
        run.notes.push((
            step.semantic(),
            format!(
                "generated passthrough tessellation control shader ({patch_size} control \
                 points, default levels at push-constant offset {})",
                binding.offset
            ),
        ));
        Ok(())
    }
}

/// Builds the passthrough TCS for a TES-without-TCS pipeline, or says why it cannot.
fn generate_tcs(
    run: &Run<'_>,
    patch_size_location: Option<u32>,
) -> Result<(Words, BlockBinding, u32), TcsError> {
    let dev = run.dev;
    if !dev.settings.semantics.contains(Semantic::PassthroughTcs) {
        return Err(TcsError::SettingOff);
    }
    if !dev.features.tessellation_shader {
        return Err(TcsError::NoTessellationShader);
    }
    // A dynamic patch size: one TCS for every count, its output patch as large as a
    // draw may set (docs: the decision and its cost).
    let any_patch_size = run.target.dynamic_patch_control_points;
    let patch_control_points = match (any_patch_size, run.target.patch_control_points) {
        (true, _) => dev.limits.max_tessellation_patch_size,
        (false, Some(n)) => n,
        (false, None) => return Err(TcsError::NoTessellationState),
    };
    let binding = match run.target.layout_record.as_ref().map(|l| l.block.clone()) {
        Some(BlockSlot::Unavailable(why)) => return Err(TcsError::NoLayoutRoom(why)),
        None => return Err(TcsError::UnknownLayout),
        Some(BlockSlot::Reserved { .. }) => match run.block_binding(Stage::TessControl) {
            Some(b) => b,
            None => return Err(TcsError::BlockNotReadable),
        },
    };
    let code = |stage: Stage| {
        run.codes
            .iter()
            .find(|c| c.stage == stage)
            .and_then(|c| c.code())
    };
    let Some((tes_module, tes_entry)) = code(Stage::TessEval) else {
        return Err(TcsError::NoEvaluationCode);
    };
    let vs = code(Stage::Vertex);
    let key = TcsKey {
        output_vertices: patch_control_points,
        max_patch_size: dev.limits.max_tessellation_patch_size,
        push_constant_offset: binding.offset,
        any_patch_size,
        patch_size_location,
    };
    let cache_key = CacheKey::Tcs {
        tes: ModuleKey::of(tes_module),
        tes_entry: tes_entry.into(),
        vertex: vs.map(|(m, e)| (ModuleKey::of(m), e.to_owned())),
        key: key.clone(),
    };
    let outcome = cached(
        dev,
        cache_key,
        tes_module.hash(),
        Semantic::PassthroughTcs.name(),
        || match build_passthrough_tcs(
            &tes_module.words,
            tes_entry,
            vs.map(|(m, e)| (&m.words[..], e)),
            &key,
        ) {
            Ok(words) => Outcome::Module(words.into()),
            Err(e) => Outcome::Failed(e.to_string().into()),
        },
    );
    match outcome {
        Outcome::Module(words) => Ok((words, binding, patch_control_points)),
        Outcome::Failed(why) => Err(GenerationError::Pass(why).into()),
        _ => Err(GenerationError::Nothing.into()),
    }
}

/// Under a dynamic patch size the generated TCS's patch is as large as a draw may set, and
/// a TES reading `gl_PatchVerticesIn` would see that: it reads instead the draw's patch
/// size, which the TCS passes at a Location past the TES's inputs. Returns that Location
/// (`None`: a static patch size, or a TES that does not read it).
fn read_patch_size(run: &mut Run<'_>) -> Result<Option<u32>, TcsError> {
    if !run.target.dynamic_patch_control_points {
        return Ok(None);
    }
    let codes = run.codes;
    let Some((tes, entry)) = codes
        .iter()
        .find(|c| c.stage == Stage::TessEval)
        .and_then(|c| c.code())
    else {
        return Err(TcsError::NoEvaluationCode);
    };
    let location = patch_size_location(&tes.words, entry)
        .map_err(|e| GenerationError::Pass(e.to_string().into()))?;
    let Some(location) = location else {
        return Ok(None);
    };
    match run.apply(&Step::ReadPatchSize(ReadPatchSize { location })) {
        Outcome::Module(_) => Ok(Some(location)),
        Outcome::Failed(why) => Err(GenerationError::Pass(why).into()),
        _ => Err(GenerationError::Nothing.into()),
    }
}

/// A step the layer constructs itself, in [`GenerateTcs`]'s plan.
impl LayerStep for ReadPatchSize {}
