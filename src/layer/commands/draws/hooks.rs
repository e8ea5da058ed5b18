//! The draw hooks: each walks the draw-time rules ([`DrawRule`]) in the one list below,
//! naming none, around the application's draw. A device on which no rule is armed pays an
//! atomic load per rule and the draw.

use ash::vk;

use crate::layer::commands::draws::base_instance::PushedBaseInstance;
use crate::layer::commands::draws::converted_draws::{self, GpuDraw};
use crate::layer::commands::draws::gl_primitives::{ClosedLoops, IndexRoute};
use crate::layer::commands::draws::line_passes::LinePasses;
use crate::layer::commands::draws::rule::{Cb, Draw, DrawRule};
use crate::layer::data::layer_memory::DrawMemory;
use crate::layer::data::records::{BoundIndexBuffer, CommandBufferState};
use crate::layer::loader::frames::{command_hook, shield};
use crate::layer::loader::registry::device_data;
use crate::layer::loader::state::DeviceData;

/// [`Armed`] and [`draw`] from the list of draw-time rules, in the order they act.
macro_rules! draw_rules {
    ($($field:ident: $rule:ty,)*) => {
        /// Which rules may act on a device's draws: read once per draw.
        #[derive(Clone, Copy)]
        struct Armed {
            $($field: bool,)*
        }

        impl Armed {
            fn of(dev: &DeviceData) -> Armed {
                Armed {
                    $($field: <$rule as DrawRule>::armed(dev),)*
                }
            }

            /// Whether any rule may act: where none may, the draw goes down alone.
            fn any(self) -> bool {
                false $(|| self.$field)*
            }
        }

        /// The application's draw (`down` sends it down) with the armed rules' work around
        /// it ([`DrawRule`]).
        fn draw(what: &'static str, cb: Cb, draw: Draw, armed: Armed, down: &dyn Fn()) {
            struct Befores {
                $($field: <$rule as DrawRule>::Before,)*
            }
            let before = Befores {
                $($field: match armed.$field {
                    true => <$rule as DrawRule>::before(what, cb, &draw),
                    false => Default::default(),
                },)*
            };
            let draw_once = || {
                $(if armed.$field && <$rule as DrawRule>::replace(what, cb, &draw, before.$field) {
                    return;
                })*
                down();
                $(if armed.$field {
                    <$rule as DrawRule>::after(what, cb, &draw);
                })*
            };
            draw_once();
            $(if armed.$field {
                <$rule as DrawRule>::again(what, cb, before.$field, &draw_once);
            })*
        }
    };
}

draw_rules! {
    primitives: IndexRoute,
    loops: ClosedLoops,
    base_instance: PushedBaseInstance,
    line_passes: LinePasses,
}

impl DrawMemory {
    /// Destroys what the draw-time rules made on the device (it is going).
    pub fn destroy(&self, dev: &DeviceData) {
        self.loops.destroy(dev);
        self.primitives.destroy(dev);
        converted_draws::destroy(dev);
    }
}

command_hook! {
    /// `vkCmdDraw`, with the draw-time rules around it.
    "vkCmdDraw",
    fn cmd_draw(
        cb,
        vertex_count: u32,
        instance_count: u32,
        first_vertex: u32,
        first_instance: u32,
    ),
    read |d| Armed::of(d),
    calls_down |next, armed| {
        let down = || {
            // SAFETY: the next layer's `vkCmdDraw` with the arguments the application gave
            // this hook, valid for it as they were for the hook (Vulkan's valid usage).
            unsafe { next(cb.handle(), vertex_count, instance_count, first_vertex, first_instance) }
        };
        if !armed.any() {
            return down();
        }
        let direct = Draw::Direct([vertex_count, instance_count, first_vertex, first_instance]);
        draw("vkCmdDraw", cb, direct, armed, &down);
    }
}

/// A draw hook whose draws depend on the application's indices or parameters.
macro_rules! gpu_draw_hook {
    (
        $what:literal,
        $draw:literal,
        fn $hook:ident($($arg:ident: $ty:ty),*),
        draw: $gpu_draw:expr
    ) => {
        command_hook! {
            #[doc = concat!("`", $what, "`, with the draw-time rules around it.")]
            $what,
            fn $hook(cb, $($arg: $ty),*),
            read |d| Armed::of(d),
            calls_down |next, armed| {
                let down = || {
                    // SAFETY: the next layer's command with the arguments the application
                    // gave this hook, valid for it as they were for the hook (Vulkan's valid
                    // usage).
                    unsafe { next(cb.handle() $(, $arg)*) }
                };
                if !armed.any() {
                    return down();
                }
                draw(concat!($draw, " (", $what, ")"), cb, Draw::Gpu($gpu_draw), armed, &down);
            }
        }
    };
}

gpu_draw_hook!(
    "vkCmdDrawIndexed",
    "an indexed draw",
    fn cmd_draw_indexed(
        index_count: u32,
        instance_count: u32,
        first_index: u32,
        vertex_offset: i32,
        first_instance: u32
    ),
    draw: GpuDraw::Indexed {
        count: index_count,
        instances: instance_count,
        first: first_index,
        vertex_offset,
        first_instance,
    }
);
gpu_draw_hook!(
    "vkCmdDrawIndirect",
    "an indirect draw",
    fn cmd_draw_indirect(buffer: vk::Buffer, offset: vk::DeviceSize, draw_count: u32, stride: u32),
    draw: GpuDraw::Indirect {
        indexed: false,
        buffer,
        offset,
        draw_count,
        stride,
    }
);
gpu_draw_hook!(
    "vkCmdDrawIndexedIndirect",
    "an indexed indirect draw",
    fn cmd_draw_indexed_indirect(
        buffer: vk::Buffer,
        offset: vk::DeviceSize,
        draw_count: u32,
        stride: u32
    ),
    draw: GpuDraw::Indirect {
        indexed: true,
        buffer,
        offset,
        draw_count,
        stride,
    }
);

command_hook! {
    /// `vkCmdBindIndexBuffer` (devices with `VK_GLSEM_gl_state`): remembered, so that the
    /// layer's own indexed draws can put it back.
    "vkCmdBindIndexBuffer",
    fn cmd_bind_index_buffer(
        cb,
        buffer: vk::Buffer,
        offset: vk::DeviceSize,
        index_type: vk::IndexType,
    ),
    then |()| {
        shield("vkCmdBindIndexBuffer", || {
            let Some(dev) = device_data(cb) else {
                return;
            };
            let mut cbs = dev.records.command_buffers.lock();
            CommandBufferState::of(&mut cbs, cb.handle()).index_buffer = Some(BoundIndexBuffer {
                buffer,
                offset,
                index_type,
            });
        });
    }
}
