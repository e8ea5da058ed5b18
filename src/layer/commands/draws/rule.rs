//! What a GL rule does around the application's draws ([`DrawRule`]), apart from the hooks
//! that walk the rules (`hooks.rs`), so that the rules' files, which implement it, and the
//! hooks, which list them, do not import each other.

use ash::vk;

use crate::layer::commands::draws::converted_draws::GpuDraw;
use crate::layer::loader::registry::Dispatchable;
use crate::layer::loader::state::DeviceData;

/// The command buffer a draw is recorded into.
pub(crate) type Cb = Dispatchable<vk::CommandBuffer>;

/// A draw as the application recorded it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Draw {
    /// `vkCmdDraw`: vertex count, instance count, first vertex, first instance.
    Direct([u32; 4]),
    /// A draw whose indices or parameters the GPU reads.
    Gpu(GpuDraw),
}

impl Draw {
    /// The draw's `firstInstance` (`None`: in an indirect buffer, read by the GPU).
    pub fn first_instance(&self) -> Option<u32> {
        match *self {
            Draw::Direct([.., first_instance]) => Some(first_instance),
            Draw::Gpu(GpuDraw::Indexed { first_instance, .. }) => Some(first_instance),
            Draw::Gpu(GpuDraw::Indirect { .. }) => None,
        }
    }
}

/// What one GL rule does around the application's draws, implemented once in the rule's
/// file. Each draw asks every rule [`DrawRule::armed`] (atomic loads: every draw of every
/// device pays it) and the rest only of the rules armed on its device, in the hooks'
/// order: every `before`, then `replace` until one draws in the application's place (else
/// its draw goes down, then every `after`), then every `again`.
pub(crate) trait DrawRule {
    /// What [`DrawRule::before`] hands [`DrawRule::replace`].
    type Before: Copy + Default;

    /// Whether the device has made anything whose draws the rule changes.
    fn armed(dev: &DeviceData) -> bool;

    /// Before the draw, once however often it is drawn.
    fn before(_what: &'static str, _cb: Cb, _draw: &Draw) -> Self::Before {
        Self::Before::default()
    }

    /// Draws in the application's place: true when its draw must not go down.
    fn replace(_what: &'static str, _cb: Cb, _draw: &Draw, _before: Self::Before) -> bool {
        false
    }

    /// After the application's draw went down.
    fn after(_what: &'static str, _cb: Cb, _draw: &Draw) {}

    /// After the whole draw (`draw_once`, every rule's part included): draws it again
    /// where the rule needs a second draw (`before`: what [`DrawRule::before`] gave).
    fn again(_what: &'static str, _cb: Cb, _before: Self::Before, _draw_once: &dyn Fn()) {}
}
