//! The list of steps: one line per step, naming the struct (in its semantic's file) that
//! says what the step is. `steps!` makes the [`Step`] enum of them and the match in each of
//! its methods.

use crate::error::PassError;
use crate::rule::{Rule, Semantic, SplitInterface, Stage, StepOutput};

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

/// The one list of steps, `Variant(RuleStruct)` a line, handed to the macro `$m`: this crate
/// makes [`Step`] of it (`steps!`), and the layer its exhaustive dispatch of each step's
/// layer side, so that a step added here without a layer side does not compile.
#[macro_export]
macro_rules! step_list {
    ($m:ident) => {
        $m! {
            /// A TES without TCS: generate the passthrough TCS.
            GenerateTcs($crate::passthrough_tcs::GenerateTcs),
            /// Under a dynamic patch size, the TES reads the patch size the generated TCS passes.
            ReadPatchSize($crate::passthrough_tcs::ReadPatchSize),
            SplitXfbOutputs($crate::xfb_split::SplitXfbOutputs),
            SplitStructOutputs($crate::xfb_split::SplitStructOutputs),
            /// Broadcast gl_FragColor to these attachments.
            BroadcastFragColor($crate::fragcolor::FragColorKey),
            SplitFragInputs($crate::xfb_split::SplitFragInputs),
            SplitStructInputs($crate::xfb_split::SplitStructInputs),
            WritePointSize($crate::point_size::WritePointSize),
            GateClipDistances($crate::clip_enables::GateClipDistances),
            RemapClipDepth($crate::clip_space_depth::RemapClipDepth),
            DefaultUnfedInputs($crate::unfed_inputs::DefaultUnfedInputs),
            FeedCurrentAttributes($crate::unfed_inputs::FeedCurrentAttributes),
            /// Attributes in formats the device lacks for vertex buffers: read in formats it
            /// has, the vertex shader's inputs rebuilt with GL's value.
            RefetchVertexInputs($crate::vertex_formats::RefetchVertexInputs),
            InstanceIdWithoutBase($crate::instance_id::InstanceIdWithoutBase),
            GateLayer($crate::gl_layer::GateLayer),
            CopyLayer($crate::gl_layer::CopyLayer),
            ReadLayerFrom($crate::gl_layer::ReadLayerFrom),
            DropSampleMask($crate::sample_mask::DropSampleMask),
            GateSampleMask($crate::sample_mask::GateSampleMask),
            ProvokingVertexLast($crate::provoking_vertex::ProvokingVertexLast),
            NegativeOneToOneDepth($crate::clip_space_depth::NegativeOneToOneDepth),
            BresenhamLines($crate::line_rasterization::BresenhamLines),
            /// Line endpoints the rasterizer would snap onto a diamond's edge moved off it,
            /// where the driver's lines decide that tie otherwise than GL.
            LineEndpoints($crate::line_endpoints::LineEndpoints),
            /// GL's lines by the fragment route: the last pre-rasterization stage writes its
            /// window position for the fragment shader's test.
            LinePosition($crate::line_fragment::WriteLinePosition),
            /// GL's lines by the fragment route: the fragment shader discards what GL's
            /// diamond-exit rule and stipple would not produce.
            LineFragments($crate::line_fragment::LineFragmentKey),
            /// GL's window y in the fragment shader (`gl_FragCoord`, `dFdy`, `interpolateAtOffset`,
            /// `gl_PointCoord`).
            FragmentWindowY($crate::window_origin::WindowYKey),
            TessellationDomainLowerLeft($crate::window_origin::TessellationDomainLowerLeft),
            InvertFrontFace($crate::window_origin::InvertFrontFace),
            /// GL's quads, quad strips or polygons: a generated geometry shader after the vertex
            /// shader (as it is after every other step) and the topology it reads.
            DrawGlPrimitive($crate::primitive_mode::PrimitiveGsKey),
            CloseLineLoops($crate::primitive_mode::CloseLineLoops),
            /// GL's quads, quad strips or polygons without a geometry shader: a list
            /// topology, and non-indexed draws replaced by the layer's indexed ones.
            DrawGlPrimitiveIndexed($crate::primitive_mode::IndexedPrimitive),
            /// `gl_PrimitiveID` in the fragment shader counts GL's primitives (index route).
            CountGlPrimitives($crate::primitive_mode::GlPrimitiveId),
        }
    };
}

step_list!(steps);

impl Step {
    /// The step's name in logs and dump files (`<hash>.<name>.spv`).
    pub fn name(&self) -> &'static str {
        self.own_name().unwrap_or_else(|| self.semantic().name())
    }
}
