//! Why the layer cannot give a pipeline or shader object GL's rule. A plan or a rule returns
//! one of these; the hook that meets it turns it into the one `glsem: error:` (or
//! `warning:`) line and, where the object fails, the result the application gets.

use ash::vk;
use std::sync::Arc;

use glsem_spirv::semantics::Stage;

/// A stage whose interface takes more Locations than the device allows (drivers crash on
/// it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {stage}'s {side} take Locations 0 to {}, {end} Locations where the device allows \
     {max} ({limit})",
    .end - 1
)]
pub struct LimitExceeded {
    pub stage: Stage,
    /// `"inputs"` or `"outputs"`.
    pub side: &'static str,
    pub end: u32,
    pub max: u32,
    /// The device limit's name.
    pub limit: &'static str,
}

/// An object of the layer's own (a generated TCS or geometry shader object, its layout)
/// that could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectError {
    #[error("no {0}")]
    MissingCommand(&'static str),
    #[error("the driver failed to create it: {0}")]
    Driver(vk::Result),
    #[error("creating the layout for the levels failed: {0}")]
    Layout(vk::Result),
    #[error(
        "the double at Location {0} is at an offset not even 32-bit words can be fetched from"
    )]
    UnalignedDouble(u32),
    #[error("no free Location for the attribute at Location {0} (maxVertexInputAttributes)")]
    NoRoom(u32),
    #[error("the shader reads none of them")]
    NothingRead,
    #[error("the rewrite failed: {0}")]
    Pass(Arc<str>),
}

/// Why no passthrough TCS can be generated for a TES without a TCS.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TcsError {
    #[error("the passthrough_tcs setting is off")]
    SettingOff,
    #[error("the device did not enable tessellationShader")]
    NoTessellationShader,
    #[error("pTessellationState is NULL")]
    NoTessellationState,
    #[error("its pipeline layout has no push-constant room for the levels: {0}")]
    NoLayoutRoom(String),
    #[error("its push-constant ranges have no room for the levels")]
    NoRangeRoom,
    #[error("its pipeline layout is unknown to the layer")]
    UnknownLayout,
    #[error("its pipeline layout's GL-state block is not readable by a TCS")]
    BlockNotReadable,
    #[error("the layer has no code for the tessellation evaluation shader")]
    NoEvaluationCode,
    #[error(transparent)]
    Generation(#[from] GenerationError),
}

/// Why a stage the layer generates (a TCS, a geometry shader) was not made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerationError {
    #[error("generating it failed: {0}")]
    Pass(Arc<str>),
    #[error("generating it produced nothing")]
    Nothing,
    #[error(transparent)]
    Object(#[from] ObjectError),
}

/// An object of the layer's that failed is a generation that failed.
impl From<ObjectError> for TcsError {
    fn from(e: ObjectError) -> Self {
        TcsError::Generation(e.into())
    }
}

/// Why the layer could not keep a copy of a pipeline's create info
/// (`objects/kept_pipeline.rs`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeepError {
    #[error("its create info chains a {0:?}, which the layer does not copy")]
    UnknownStruct(vk::StructureType),
    #[error("it links pipeline libraries")]
    Linked,
    #[error("the layer has no code for its stage {0}")]
    NoCode(usize),
}

/// Why a pipeline (or shader object) fails where the layer cannot give it GL's rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Limit(#[from] LimitExceeded),
    #[error("{0}, with the geometry shader the layer generates to draw GL's primitive mode (its inputs are the vertex shader's outputs)")]
    GeneratedStagePastLimits(LimitExceeded),
    #[error(
        "a tessellation evaluation shader without a control shader needs a generated TCS, but \
         {0}"
    )]
    Tcs(#[from] TcsError),
    #[error("inline code behind an unknown pNext struct")]
    HiddenInlineCode,
    #[error("the driver failed to create a rewritten shader module: {0}")]
    Module(vk::Result),
    #[error(
        "the vertex attribute at Location {location} is {format:?}, which the layer reads \
         otherwise (the device cannot read it from vertex buffers, or \
         debug_force_vertex_formats), and the vertex input interface has no free Location left \
         (maxVertexInputAttributes) for the attributes that read it in formats it can"
    )]
    VertexFormatNoRoom { location: u32, format: vk::Format },
    #[error(
        "the vertex attribute at Location {location} is {format:?}, which the device cannot \
         read from vertex buffers, in a vertex-input library: the layer reads such formats \
         otherwise only where it sees the vertex shader they feed (whole pipelines, and \
         libraries holding both)"
    )]
    VertexFormatApart { location: u32, format: vk::Format },
    #[error(
        "the vertex attribute at Location {location} is {format:?} at offset {offset} with \
         stride {stride}, which it cannot be fetched from (VUID-vkCmdDraw-None-02721), in a \
         vertex-input library: the layer reads such attributes byte by byte only where it \
         sees the vertex shader they feed (whole pipelines, and libraries holding both)"
    )]
    UnalignedApart {
        location: u32,
        format: vk::Format,
        offset: u32,
        stride: u32,
    },
    #[error(
        "the vertex attribute at Location {location} is {format:?}, which the layer reads \
         otherwise (the device cannot read it from vertex buffers, or \
         debug_force_vertex_formats), and its offset leaves no room (maxVertexInputAttributeOffset) \
         to read its components in formats it can"
    )]
    VertexFormatOffset { location: u32, format: vk::Format },
    #[error(
        "the vertex attributes from Location {location} ({format:?}) are in formats the device \
         cannot read from vertex buffers, and the vertex shader cannot be rewritten to read \
         them otherwise: {why}"
    )]
    VertexFormatShader {
        location: u32,
        format: vk::Format,
        why: Arc<str>,
    },
    #[error("its base pipeline failed")]
    BasePipelineFailed,
    #[error("the pipeline layout or render pass it was created with is destroyed")]
    KeptHandlesDestroyed,
    #[error("the driver failed to create it: {0}")]
    Driver(vk::Result),
    #[error(
        "its vertex-input library names attributes the device cannot read as given, and the \
         layer did not keep its pre-rasterization library to make it again for them"
    )]
    LibraryNotKept,
    #[error("its VkPipelineLibraryCreateInfoKHR is behind a pNext struct the layer does not copy")]
    HiddenLibraries,
    #[error("internal error in the layer while planning")]
    Internal,
    /// A reason of one rule's own, which its file defines.
    #[error(transparent)]
    Rule(#[from] RuleError),
}

/// A rule's own reason for failing a pipeline or shader object (its type is the rule's).
#[derive(Debug, Clone)]
pub struct RuleError(Arc<dyn std::error::Error + Send + Sync>);

impl RuleError {
    pub fn new(why: impl std::error::Error + Send + Sync + 'static) -> RuleError {
        RuleError(Arc::new(why))
    }
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for RuleError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// The same reason (the one value, shared).
impl PartialEq for RuleError {
    fn eq(&self, other: &RuleError) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for RuleError {}

impl PlanError {
    /// What the application gets for the object: the driver's result where the driver
    /// failed, else `VK_ERROR_UNKNOWN`.
    pub fn result(&self) -> vk::Result {
        match self {
            PlanError::Module(result) | PlanError::Driver(result) => *result,
            _ => vk::Result::ERROR_UNKNOWN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_names_the_stage_its_locations_and_the_device_limit() {
        let e = LimitExceeded {
            stage: Stage::Vertex,
            side: "outputs",
            end: 33,
            max: 32,
            limit: "maxVertexOutputComponents / 4",
        };
        assert_eq!(
            e.to_string(),
            "the vertex shader's outputs take Locations 0 to 32, 33 Locations where the device \
             allows 32 (maxVertexOutputComponents / 4)"
        );
    }

    #[test]
    fn a_failed_module_keeps_the_drivers_result() {
        let e = PlanError::Module(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        assert_eq!(e.result(), vk::Result::ERROR_OUT_OF_DEVICE_MEMORY);
        assert_eq!(PlanError::Internal.result(), vk::Result::ERROR_UNKNOWN);
    }
}
