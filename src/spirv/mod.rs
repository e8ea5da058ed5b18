#![forbid(unsafe_code)]
//! Pure SPIR-V work: no Vulkan types here.
//!
//! - [`module`]: a word-level view of a module (instruction boundaries, logical-layout
//!   sections, type/decoration lookups) and an [`module::Editor`] that copies untouched
//!   instructions through and patches or inserts only what changes.
//! - [`scan`]: the fast path; decides from the header sections alone whether any pass can
//!   apply to a module.
//! - One file per pass, each a function from module + key to a new module or `Ok(None)`
//!   ("no change"): [`fragcolor`], [`xfb_split`], [`passthrough_tcs`], [`point_size`],
//!   [`clip_enables`], [`clip_depth`], [`unfed_inputs`], [`instance_id`], [`layer_output`],
//!   [`sample_mask`], [`window_y`].
//! - Shared by the passes: [`layout`] (Location slot and XFB offset math), [`exits`] (where
//!   outputs take effect), [`builtin_output`] (`gl_Position`, `gl_PointSize`,
//!   `gl_ClipDistance` of the last pre-rasterization stage), [`gl_state`] (the GL-state
//!   push-constant block), [`demote`] (an interface variable made `Private`).

pub mod builtin_output;
pub mod clip_depth;
pub mod clip_enables;
pub mod demote;
pub mod exits;
pub mod fragcolor;
pub mod gl_state;
pub mod instance_id;
pub mod layer_output;
pub mod layout;
pub mod module;
pub mod passthrough_tcs;
pub mod point_size;
pub mod sample_mask;
pub mod scan;
pub mod unfed_inputs;
pub mod window_y;
pub mod xfb_split;

/// Why a pass could not produce a module. The layer logs it and passes the application's
/// module through untouched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    /// The words are not a SPIR-V module this crate can read.
    #[error("cannot parse module: {0}")]
    Parse(#[from] module::ParseError),
    /// The module is valid but uses something the pass does not handle.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A built-in the pass writes has a type other than the one GL gives it (a module
    /// that redeclares it, or one from a language other than GLSL).
    #[error("unsupported: {builtin} is not {expected}")]
    BuiltinType {
        builtin: &'static str,
        expected: &'static str,
    },
    /// An entry point names (or calls) a function the module does not define: the module
    /// is malformed, and no pass can find where its outputs take effect.
    #[error("unsupported: function %{function} of the entry point has no body")]
    MissingFunction { function: u32 },
    /// The rewritten module needs more ids than SPIR-V allows.
    #[error(
        "unsupported: the rewrite needs {needed} ids, more than SPIR-V's limit of {}",
        module::MAX_BOUND
    )]
    TooManyIds { needed: u32 },
}

/// What a pass returns: `Ok(None)` when the module needs no change.
pub type PassResult = Result<Option<Vec<u32>>, PassError>;
