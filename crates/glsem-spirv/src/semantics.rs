//! The GL semantics glsem implements, in one registry, and the one pure function that
//! chooses what a pipeline needs: [`choose()`] takes the pipeline's stages (their scan
//! summaries) and a [`PipelineKey`] (what the Vulkan side read off the create info and the
//! device) and returns the ordered [`Step`]s. No Vulkan types here: the layer builds the
//! key, runs the steps and patches the create info; tests and fuzzers call [`choose()`]
//! directly.
//!
//! One file per job: [`registry`] (the semantics and their settings), [`key`] (the words the
//! key is made of), [`step`] (the list of steps) and [`choose()`](mod@choose) (the policy).
//! What a step is and does lives in its semantic's file ([`crate::rule::Rule`]);
//! docs/architecture.md, "Adding a semantic", lists the files a rule touches.

pub mod choose;
pub mod key;
pub mod registry;
pub mod step;

pub use crate::rule::{SplitInterface, Stage, StepOutput};
pub use choose::{choose, start_pixel_steps};
pub use key::{
    Attachments, DeviceKey, GlMode, LineKey, PipelineKey, StageInfo, Stages, Topology, WindowOrigin,
};
pub use registry::{Semantic, SemanticInfo, SemanticSet, Setting, SEMANTICS};
pub use step::Step;
// The types the key's and the steps' fields are made of, for the Vulkan side to build and
// hold them without reaching into each pass.
pub use crate::primitive_mode::{
    Culling, GlPrimitive, IndexedPrimitive, List, PrimitiveGsKey, PrimitiveRoute, Rasterized,
};
