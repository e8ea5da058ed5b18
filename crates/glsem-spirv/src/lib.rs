#![forbid(unsafe_code)]
//! Pure SPIR-V work, shared by the glsem layer and glsem-run: no Vulkan types here.
//!
//! - [`module`]: a word-level view of a module (instruction boundaries, logical-layout
//!   sections, type/decoration lookups) and an [`module::Editor`] that copies untouched
//!   instructions through and patches or inserts only what changes; [`redeclare`] adds
//!   the edits that replace a declaration (a decoration, a name) rather than add one;
//!   [`lookup`] the view's further queries (names, member decorations, pointees, struct
//!   members, global variables); [`operands`] tells an instruction's id words from its literals, to follow every use.
//! - [`scan`]: the fast path; decides from the header sections alone whether any pass can
//!   apply to a module.
//! - One file per semantic, named as the registry names it and listed here in its order,
//!   holding the semantic's steps (structs implementing [`rule::Rule`]) and, where it
//!   rewrites code, its pass (a function from module + key to a new module or `Ok(None)`,
//!   "no change"): [`passthrough_tcs`], [`xfb_split`], [`fragcolor`], [`point_size`],
//!   [`clip_enables`], [`clip_space_depth`], [`provoking_vertex`], [`unfed_inputs`],
//!   [`vertex_formats`],
//!   [`instance_id`], [`gl_layer`], [`sample_mask`], [`line_rasterization`] (with its
//!   per-driver routes [`line_endpoints`] and [`line_fragment`]), [`window_origin`],
//!   [`primitive_mode`].
//! - [`rule`]: what a step is ([`rule::Rule`]) and the words the semantics' files and the
//!   registry share ([`rule::Semantic`], [`rule::Stage`]).
//! - Shared by the passes: [`layout`] (Location slot and XFB offset math), [`exits`] (where
//!   outputs take effect), [`builtin_output`] (`gl_Position`, `gl_PointSize`,
//!   `gl_ClipDistance` of the last pre-rasterization stage), [`gl_state`] (the GL-state
//!   push-constant block), [`demote`] (an interface variable made `Private`), [`error`]
//!   ([`PassError`], [`PassResult`]; re-exported here for the layer, the passes import them
//!   from `error`).
//! - [`interface`]: where each entry point's Locations end, for the device's limits.
//! - [`semantics`]: the registry of GL semantics, the pipeline key, the list of steps and
//!   [`semantics::choose()`], stages + key → ordered steps.

pub mod builtin_output;
pub mod clip_enables;
pub mod clip_space_depth;
pub mod demote;
pub mod error;
pub mod exits;
pub mod fragcolor;
pub mod gl_layer;
pub mod gl_state;
pub mod instance_id;
pub mod interface;
pub mod layout;
pub mod line_endpoints;
pub mod line_fragment;
pub mod line_rasterization;
pub mod lookup;
pub mod module;
pub mod operands;
pub mod passthrough_tcs;
pub mod point_size;
pub mod primitive_mode;
pub mod provoking_vertex;
pub mod redeclare;
pub mod rule;
pub mod sample_mask;
pub mod scan;
pub mod semantics;
pub mod stage_writer;
pub mod stipple_counts;
pub mod unfed_inputs;
pub mod vertex_formats;
pub mod window_origin;
pub mod xfb_split;

pub use error::{PassError, PassResult};
