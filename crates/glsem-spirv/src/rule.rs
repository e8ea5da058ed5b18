//! What a rule is, in the words every semantic's file and the registry share: the
//! [`Semantic`] it belongs to, the [`Stage`] it rewrites, and the [`Rule`] trait its step
//! implements. Each [`Step`](crate::semantics::Step) wraps a struct defined in its
//! semantic's file; that file says, in one `impl Rule`, everything the step is. This module
//! sits below both the semantics' files and [`semantics`](crate::semantics), so that neither
//! imports the other in a circle.

use std::fmt;

use crate::error::{PassError, PassResult};

/// One GL semantic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Semantic {
    FragColor,
    XfbSplit,
    PassthroughTcs,
    PointSize,
    ClipEnables,
    ClipSpaceDepth,
    ProvokingVertex,
    UnfedInputs,
    InstanceId,
    GlLayer,
    SampleMask,
    LineRasterization,
    WindowOrigin,
    PrimitiveMode,
    VertexFormats,
}

/// The graphics stages, in pipeline order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    Vertex,
    TessControl,
    TessEval,
    Geometry,
    Fragment,
}

/// The stage's name in log messages.
impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Vertex => "vertex shader",
            Stage::TessControl => "tessellation control shader",
            Stage::TessEval => "tessellation evaluation shader",
            Stage::Geometry => "geometry shader",
            Stage::Fragment => "fragment shader",
        })
    }
}

/// The Locations of the aggregate outputs a stage split, so that the next stage can split
/// its matching inputs the same way and the interfaces still match.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SplitInterface {
    pub locations: Vec<u32>,
}

/// What [`Rule::run`] made of a module.
#[derive(Debug)]
pub enum StepOutput {
    /// Nothing to change.
    Unchanged,
    Module(Vec<u32>),
    /// Split outputs, and the interface the next stage's inputs must be split to.
    Split(Vec<u32>, SplitInterface),
}

impl From<Option<Vec<u32>>> for StepOutput {
    fn from(words: Option<Vec<u32>>) -> Self {
        words.map_or(StepOutput::Unchanged, StepOutput::Module)
    }
}

/// What running a step gives.
pub type StepResult = Result<StepOutput, PassError>;

/// One rewrite a semantic asks for, as its step carries it: what the layer logs, which
/// module it changes, and the pass that changes it. What is the same for every step of a
/// kind is an associated const; the method that reads it is overridden only where a step's
/// fields decide. A pipeline-state rule (a struct the layer chains into the create info, or
/// a stage the layer generates) keeps the defaults: no stage, no module changed.
pub trait Rule {
    const SEMANTIC: Semantic;

    /// The stage whose module every step of this kind rewrites; `None` for a step that
    /// generates a stage or sets pipeline state, or whose stage is a field.
    const STAGE: Option<Stage> = None;

    /// What the info log says every step of this kind changed; left empty only where
    /// [`Rule::note`] is overridden, because the note depends on the step's fields (the
    /// default `note` refuses to compile with an empty one).
    const NOTE: &'static str = "";

    /// A name of the step's own in logs and dump files, where its semantic's would not tell
    /// its modules apart.
    const OWN_NAME: Option<&'static str> = None;

    /// Every step of this kind has new code that reads the GL-state block.
    const READS_BLOCK: bool = false;

    /// The stage whose module the step rewrites.
    fn stage(&self) -> Option<Stage> {
        Self::STAGE
    }

    /// What the info log says the step changed (`split`: what a split made).
    fn note(&self, _split: Option<&SplitInterface>) -> String {
        const { assert!(!Self::NOTE.is_empty(), "a step sets NOTE or overrides note") };
        Self::NOTE.into()
    }

    /// The step's new code reads the GL-state block: pipelines with it push the block.
    fn reads_block(&self) -> bool {
        Self::READS_BLOCK
    }

    /// The step's pass on the module `words` (entry point `entry`) of its stage: the new
    /// module, or `None` when nothing changes.
    fn rewrite(&self, _words: &[u32], _entry: &str) -> PassResult {
        Ok(None)
    }

    /// Runs the step on its stage's module; `split` is what the previous stage's split made.
    /// Only the splits, which also say what they split, need more than [`Rule::rewrite`].
    fn run(&self, words: &[u32], entry: &str, _: Option<&SplitInterface>) -> StepResult {
        Ok(self.rewrite(words, entry)?.into())
    }
}
