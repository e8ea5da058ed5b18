//! Runs the [`Step`]s [`glsem_spirv::semantics::choose`] picked for one pipeline: each pass
//! through the rewrite cache, on the stage's current code, keeping the code each pass
//! started from so that a pass can be undone by its semantic.

use ash::vk;
use std::sync::Arc;

use crate::layer::data::cache::{CacheKey, ModuleKey, Outcome};
use crate::layer::data::lines::RewriteLines;
use crate::layer::data::records::{content_hash, BlockBinding, BlockSlot, LayoutRecord};
use crate::layer::data::words::Words;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::pipeline_info::{flag_of, StageCode};
use crate::layer::support::log;
use crate::layer::support::shader_code::dump_module;
use glsem_spirv::interface::InputKind;
use glsem_spirv::semantics::{IndexedPrimitive, Rasterized, Semantic, Stage, Step, StepOutput};
use glsem_spirv::xfb_split::SplitInterface;

/// What the rewrite of one create info produced.
#[derive(Default)]
pub struct Rewrite {
    /// New code per index into `pStages`.
    pub stages: Vec<(usize, Words)>,
    /// A generated TCS.
    pub tcs: Option<Words>,
    /// A generated geometry shader (GL's quads, quad strips, polygons).
    pub gs: Option<Words>,
    /// Where the polygon mode is dynamic state: the geometry shaders drawing GL's mode in
    /// the other polygon modes (`gs` draws it filled), each made into a pipeline the layer
    /// binds while that mode is set.
    pub polygon_mode_gs: Vec<(Rasterized, Words)>,
    /// The input-assembly state with GL's primitive mode taken out of its chain and the
    /// topology that draws it (set by the planner).
    pub input_assembly: Option<vk::PrimitiveTopology>,
    /// The pipeline-state steps, in `choose`'s order: what they chain into the create info
    /// (`patched`), or the draws they close (GL's line loops).
    pub state: Vec<Step>,
    /// The pipeline's shaders read the GL-state block: where to push it.
    pub reads_block: Option<BlockBinding>,
    /// The vertex shader reads the base instance from the block: draws push it.
    pub reads_base_instance: bool,
    /// What it made of GL's lines beside its steps.
    pub lines: RewriteLines,
    /// The vertex binding and the unfed Locations (with their inputs' types) the layer
    /// feeds GL's current vertex attributes through.
    pub layer_attributes: Option<(u32, Vec<(u32, InputKind)>)>,
    /// What the layer fixed, for the info log.
    pub notes: Vec<String>,
    /// GL's fragment line route: the steps of the second pipeline that draws the start
    /// pixels the driver's rectangles leave out (`start_pixel_steps`).
    pub start_pixel_steps: Option<Vec<Step>>,
}

impl Rewrite {
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
            && self.tcs.is_none()
            && self.gs.is_none()
            && self.input_assembly.is_none()
            && self.state.is_empty()
            && !self.lines.change_state()
            && self.layer_attributes.is_none()
    }

    /// GL's quads, quad strips or polygons drawn without a geometry shader: the pattern
    /// whose indices the layer draws in place of each non-indexed draw.
    pub fn indexed_primitive(&self) -> Option<IndexedPrimitive> {
        self.state.iter().find_map(|s| match s {
            Step::DrawGlPrimitiveIndexed(p) => Some(*p),
            _ => None,
        })
    }
}

/// What the steps read besides the stages' code: the pipeline's (or library's, or shader
/// objects') layout and tessellation state.
#[derive(Clone, Default)]
pub struct Target {
    /// The layout the GL-state block is pushed with.
    pub layout: vk::PipelineLayout,
    /// Where that layout holds the block (`None`: a layout the layer does not know).
    pub layout_record: Option<Arc<LayoutRecord>>,
    /// `pTessellationState->patchControlPoints`, when the state is there.
    pub patch_control_points: Option<u32>,
    /// `VK_DYNAMIC_STATE_PATCH_CONTROL_POINTS_EXT` is set.
    pub dynamic_patch_control_points: bool,
    /// `VK_DYNAMIC_STATE_POLYGON_MODE_EXT` is set.
    pub dynamic_polygon_mode: bool,
}

/// One stage's code as the steps change it.
pub(crate) struct Current {
    pub words: Words,
    pub key: ModuleKey,
    pub source_hash: u64,
    /// `(semantic, code before it ran)` for every pass that changed this stage.
    history: Vec<(Semantic, Words, ModuleKey)>,
}

/// The steps' state while they run.
pub struct Run<'a> {
    pub dev: &'a DeviceData,
    pub target: Target,
    pub codes: &'a [StageCode],
    pub current: Vec<Option<Current>>,
    /// What the last pre-rasterization stage's struct split made, for the fragment inputs.
    pub split: Option<SplitInterface>,
    /// The last pre-rasterization stage here failed to write the copy of its layer that
    /// [`Step::ReadLayerFrom`] reads (a fragment shader made apart trusts the other side).
    pub layer_copy_failed: bool,
    pub out: Rewrite,
    pub notes: Vec<(Semantic, String)>,
}

impl<'a> Run<'a> {
    pub fn new(dev: &'a DeviceData, target: Target, codes: &'a [StageCode]) -> Run<'a> {
        let current = codes
            .iter()
            .map(|c| {
                c.module.as_ref().map(|m| Current {
                    words: m.words.clone(),
                    key: ModuleKey::of(m),
                    source_hash: m.hash(),
                    history: Vec::new(),
                })
            })
            .collect();
        Run {
            dev,
            target,
            codes,
            current,
            split: None,
            layer_copy_failed: false,
            out: Rewrite::default(),
            notes: Vec::new(),
        }
    }

    pub(crate) fn position(&self, stage: Stage) -> Option<usize> {
        self.codes.iter().position(|c| c.stage == stage)
    }

    /// Runs `step` on its stage's current code through the cache; on a change, the stage
    /// takes the new code and the change is noted for the pipeline. Returns the outcome.
    pub(crate) fn apply(&mut self, step: &Step) -> Outcome {
        let Some(stage) = step.stage() else {
            return Outcome::Unchanged;
        };
        let Some(i) = self.position(stage) else {
            return Outcome::Unchanged;
        };
        let (Some(entry), Some(current)) = (self.codes[i].entry.clone(), self.current[i].as_mut())
        else {
            return Outcome::Unchanged;
        };
        let split = match step {
            Step::SplitFragInputs(_) => self.split.clone(),
            _ => None,
        };
        let cache_key = CacheKey::Stage {
            module: current.key.clone(),
            entry: entry.clone(),
            step: step.clone(),
            split: split.clone(),
        };
        let words = current.words.clone();
        let outcome = cached(
            self.dev,
            cache_key,
            current.source_hash,
            step.name(),
            || match step.run(&words, &entry, split.as_ref()) {
                Ok(StepOutput::Unchanged) => Outcome::Unchanged,
                Ok(StepOutput::Module(words)) => Outcome::Module(words.into()),
                Ok(StepOutput::Split(words, split)) => Outcome::Split(words.into(), split),
                Err(e) => Outcome::Failed(e.to_string().into()),
            },
        );
        if let Outcome::Module(new) | Outcome::Split(new, _) = &outcome {
            let before = std::mem::replace(&mut current.words, new.clone());
            let before_key = std::mem::replace(
                &mut current.key,
                ModuleKey::new(content_hash(new), new.clone()),
            );
            let semantic = step.semantic();
            current.history.push((semantic, before, before_key));
            let split = match &outcome {
                Outcome::Split(_, split) => Some(split),
                _ => None,
            };
            self.notes.push((semantic, step.note(split)));
        }
        outcome
    }

    /// Undoes every change `semantic` made (and any made after it on the same stage).
    pub(crate) fn undo(&mut self, semantic: Semantic) {
        for current in self.current.iter_mut().flatten() {
            if let Some(at) = current.history.iter().position(|(s, _, _)| *s == semantic) {
                let (_, words, key) = current.history[at].clone();
                current.history.truncate(at);
                current.words = words;
                current.key = key;
            }
        }
        self.notes.retain(|(s, _)| *s != semantic);
    }

    /// Where the pipeline's layout holds the GL-state block, for a reader `stage`.
    pub(crate) fn block_binding(&self, stage: Stage) -> Option<BlockBinding> {
        match &self.target.layout_record.as_ref()?.block {
            BlockSlot::Reserved {
                offset,
                size,
                push_stages,
                reads,
            } if reads.contains(flag_of(stage)) => Some(BlockBinding {
                layout: self.target.layout,
                offset: *offset,
                size: *size,
                stages: *push_stages,
            }),
            _ => None,
        }
    }

    /// A pipeline-state step: chained into the create info by the planner (`patched`), noted
    /// for the info log.
    pub(crate) fn chain_state(&mut self, step: Step) {
        self.notes.push((step.semantic(), step.note(None)));
        self.out.state.push(step);
    }

    /// [`Run::apply`] for a step whose new code reads the GL-state block: the pipeline then
    /// pushes it.
    pub(crate) fn apply_reading_block(&mut self, step: &Step) -> Outcome {
        let outcome = self.apply(step);
        if let (Outcome::Module(_), Some(stage)) = (&outcome, step.stage()) {
            self.out.reads_block = self.out.reads_block.or(self.block_binding(stage));
        }
        outcome
    }

    /// The rewrite: every stage whose code changed, and the notes.
    pub fn finish(mut self) -> Rewrite {
        for (code, current) in self.codes.iter().zip(&self.current) {
            if let (Some(current), Some(module)) = (current, &code.module) {
                if !Words::ptr_eq(&current.words, &module.words) {
                    self.out.stages.push((code.index, current.words.clone()));
                }
            }
        }
        self.out.notes = self.notes.into_iter().map(|(_, note)| note).collect();
        self.out
    }
}

/// Runs one pass through the cache, dumping what it emits.
pub(crate) fn cached(
    dev: &DeviceData,
    key: CacheKey,
    source_hash: u64,
    label: &str,
    pass: impl FnOnce() -> Outcome,
) -> Outcome {
    let (outcome, ran) = dev.cache.get_or_run(key, pass);
    if ran {
        match &outcome {
            Outcome::Module(words) | Outcome::Split(words, _) => {
                dump_module(&dev.settings, source_hash, label, words)
            }
            Outcome::Failed(why) => {
                log::warning!("{label} pass failed: {why}")
            }
            Outcome::Unchanged => {}
        }
    }
    outcome
}
