//! What a GL rule does when a pipeline is bound ([`BindRule`]), apart from the hook that
//! walks the rules (`bind_pipeline.rs`), so that the rules' files, which implement it, and
//! the hook, which lists them, do not import each other.

use ash::vk;

use crate::layer::data::records::{CommandBufferState, PipelineRecord};
use crate::layer::loader::registry::Dispatchable;
use crate::layer::loader::state::DeviceData;

/// What one GL rule does at `vkCmdBindPipeline`, implemented once in the rule's record-time
/// file. The hook reads the pipeline's record once and asks every rule to
/// [`take`](BindRule::take) its part; under the command buffer's lock, after the state all
/// rules share (the GL-state block, the drawn primitives, [`CommandBufferState::pipeline`]),
/// each rule [`bind`](BindRule::bind)s its state; once the lock is released and the block
/// pushed, each records what it sets on the driver ([`then`](BindRule::then)), in the
/// hook's order.
pub(crate) trait BindRule {
    /// The rule's part of the pipeline's record (`Default`: a pipeline the layer did not
    /// record).
    type Taken: Default;
    /// What [`BindRule::bind`] hands [`BindRule::then`].
    type Then;

    /// Copies the rule's part of `record` (the records' lock is held: take no other).
    fn take(record: &PipelineRecord) -> Self::Taken;

    /// Under the command buffer's lock: the rule's state while the pipeline is bound.
    fn bind(at: &Bind<'_>, taken: Self::Taken, state: &mut CommandBufferState) -> Self::Then;

    /// After the lock: what the rule sets on the driver for the pipeline bound.
    fn then(at: &Bind<'_>, then: Self::Then);
}

/// A `vkCmdBindPipeline` the rules act on.
pub(crate) struct Bind<'a> {
    pub dev: &'a DeviceData,
    pub cb: Dispatchable<vk::CommandBuffer>,
    pub pipeline: vk::Pipeline,
}
