//! The list of steps: one line per step, naming the struct (in its semantic's file) that
//! says what the step is. `steps!` makes the [`Step`] enum of them and the match in each of
//! its methods.

use crate::clip_enables::GateClipDistances;
use crate::clip_space_depth::{NegativeOneToOneDepth, RemapClipDepth};
use crate::error::PassError;
use crate::fragcolor::FragColorKey;
use crate::gl_layer::{CopyLayer, GateLayer, ReadLayerFrom};
use crate::instance_id::InstanceIdWithoutBase;
use crate::line_rasterization::BresenhamLines;
use crate::passthrough_tcs::GenerateTcs;
use crate::point_size::WritePointSize;
use crate::primitive_mode::{CloseLineLoops, PrimitiveGsKey};
use crate::provoking_vertex::ProvokingVertexLast;
use crate::rule::{Rule, Semantic, SplitInterface, Stage, StepOutput};
use crate::sample_mask::{DropSampleMask, GateSampleMask};
use crate::unfed_inputs::{DefaultUnfedInputs, FeedCurrentAttributes};
use crate::window_origin::{InvertFrontFace, TessellationDomainLowerLeft, WindowYKey};
use crate::xfb_split::{SplitFragInputs, SplitStructInputs, SplitStructOutputs, SplitXfbOutputs};

/// Makes [`Step`], one variant per `Variant(RuleStruct)` line, and its methods, each a
/// match from a step to its [`Rule`].
macro_rules! steps {
    ($($(#[doc = $doc:literal])* $variant:ident($rule:ty),)*) => {
        /// One rewrite, in the order [`choose`](fn@super::choose) returns them. A step is also
        /// the rewrite cache's key (with the module it runs on), its name in logs and dump
        /// files ([`Step::name`]) and its dispatch ([`Step::run`]).
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum Step {
            $($(#[doc = $doc])* $variant($rule),)*
        }

        impl Step {
            pub fn semantic(&self) -> Semantic {
                match self {
                    $(Step::$variant(_) => <$rule as Rule>::SEMANTIC,)*
                }
            }

            /// The stage whose module the step rewrites; `None` for the steps that generate
            /// a stage or set pipeline state.
            pub fn stage(&self) -> Option<Stage> {
                match self {
                    $(Step::$variant(rule) => rule.stage(),)*
                }
            }

            /// What the info log says the step changed (`split`: what a split made).
            pub fn note(&self, split: Option<&SplitInterface>) -> String {
                match self {
                    $(Step::$variant(rule) => rule.note(split),)*
                }
            }

            fn own_name(&self) -> Option<&'static str> {
                match self {
                    $(Step::$variant(_) => <$rule as Rule>::OWN_NAME,)*
                }
            }

            /// The step's new code reads the GL-state block: pipelines with it push the
            /// block.
            pub fn reads_block(&self) -> bool {
                match self {
                    $(Step::$variant(rule) => rule.reads_block(),)*
                }
            }

            /// Runs the step on the module `words` (entry point `entry`) of its
            /// [`Step::stage`]: the one dispatch from steps to passes, for the layer
            /// (through its rewrite cache) and the fuzzers alike. `split` is what the
            /// previous stage's split made ([`Step::SplitFragInputs`] has nothing to match
            /// without it). Steps without a stage change no module.
            pub fn run(
                &self,
                words: &[u32],
                entry: &str,
                split: Option<&SplitInterface>,
            ) -> Result<StepOutput, PassError> {
                match self {
                    $(Step::$variant(rule) => rule.run(words, entry, split),)*
                }
            }
        }
    };
}

steps! {
    /// A TES without TCS: generate the passthrough TCS.
    GenerateTcs(GenerateTcs),
    SplitXfbOutputs(SplitXfbOutputs),
    SplitStructOutputs(SplitStructOutputs),
    /// Broadcast gl_FragColor to these attachments.
    BroadcastFragColor(FragColorKey),
    SplitFragInputs(SplitFragInputs),
    SplitStructInputs(SplitStructInputs),
    WritePointSize(WritePointSize),
    GateClipDistances(GateClipDistances),
    RemapClipDepth(RemapClipDepth),
    DefaultUnfedInputs(DefaultUnfedInputs),
    FeedCurrentAttributes(FeedCurrentAttributes),
    InstanceIdWithoutBase(InstanceIdWithoutBase),
    GateLayer(GateLayer),
    CopyLayer(CopyLayer),
    ReadLayerFrom(ReadLayerFrom),
    DropSampleMask(DropSampleMask),
    GateSampleMask(GateSampleMask),
    ProvokingVertexLast(ProvokingVertexLast),
    NegativeOneToOneDepth(NegativeOneToOneDepth),
    BresenhamLines(BresenhamLines),
    /// GL's window y in the fragment shader (`gl_FragCoord`, `dFdy`, `interpolateAtOffset`,
    /// `gl_PointCoord`).
    FragmentWindowY(WindowYKey),
    TessellationDomainLowerLeft(TessellationDomainLowerLeft),
    InvertFrontFace(InvertFrontFace),
    /// GL's quads, quad strips or polygons: a generated geometry shader after the vertex
    /// shader (as it is after every other step) and the topology it reads.
    DrawGlPrimitive(PrimitiveGsKey),
    CloseLineLoops(CloseLineLoops),
}

impl Step {
    /// The step's name in logs and dump files (`<hash>.<name>.spv`).
    pub fn name(&self) -> &'static str {
        self.own_name().unwrap_or_else(|| self.semantic().name())
    }
}
