//! Dynamic state the layer follows at record time (DESIGN §4.11): the application's
//! `vkCmdSet*EXT` commands that decide GL's line rule (`dynamic_lines`), and the
//! tessellation domain origin under GL's window origin. Each goes down as the application
//! called it, then the layer sets what GL needs where the deciding state changed.

use ash::vk;

use super::dynamic_lines::LineModeState;
use super::frames::{ffi_guard, shield};
use super::records::CommandBufferState;
use super::registry::{device_data, with_device};
use super::state::DeviceData;
use glsem_spirv::semantics::WindowOrigin;

/// Gives the driver the line mode GL's rule wants (`dynamic_lines`).
pub(super) fn set_line_mode(
    dev: &DeviceData,
    cb: vk::CommandBuffer,
    mode: vk::LineRasterizationModeEXT,
) {
    if let Some(set) = dev.table.cmd_set_line_rasterization_mode_ext {
        // SAFETY: a command buffer in the recording state whose bound pipeline has the
        // line mode as dynamic state (the device enabled the feature for it).
        unsafe { set(cb, mode) }
    }
}

/// Whether `dev` may follow lines at all: `VK_GLSEM_gl_state` with Bresenham lines (else no
/// pipeline is recorded as followed, and the state is not worth a lock).
fn follows_lines(dev: &DeviceData) -> bool {
    dev.extensions.gl_state && dev.conventions.bresenham_lines
}

/// Applies `change` to the line state of `cb` and sets the mode it now wants.
fn follow(cb: vk::CommandBuffer, what: &str, change: impl FnOnce(&mut LineModeState)) {
    shield(what, || {
        let Some(dev) = device_data(cb).filter(|d| follows_lines(d)) else {
            return;
        };
        let mode = {
            let mut cbs = dev.records.command_buffers.lock();
            let state = cbs
                .entry(cb)
                .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
            change(&mut state.lines);
            state.lines.update()
        };
        if let Some(mode) = mode {
            set_line_mode(&dev, cb, mode);
        }
    });
}

/// `vkCmdSetLineRasterizationModeEXT`: the application's mode, or GL's diamond-exit rule
/// in place of `DEFAULT` where it applies.
///
/// # Safety
/// Vulkan's valid usage for `vkCmdSetLineRasterizationModeEXT`.
pub unsafe extern "system" fn cmd_set_line_rasterization_mode(
    command_buffer: vk::CommandBuffer,
    mode: vk::LineRasterizationModeEXT,
) {
    const WHAT: &str = "vkCmdSetLineRasterizationModeEXT";
    ffi_guard(WHAT, (), || {
        let Some((Some(next), follows)) = with_device(command_buffer, |d| {
            (
                d.table.cmd_set_line_rasterization_mode_ext,
                follows_lines(d),
            )
        }) else {
            return;
        };
        let down = follows
            .then(|| {
                shield(WHAT, || {
                    let dev = device_data(command_buffer)?;
                    let mut cbs = dev.records.command_buffers.lock();
                    let state = cbs
                        .entry(command_buffer)
                        .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
                    Some(state.lines.app_sets(mode))
                })
                .flatten()
            })
            .flatten();
        // SAFETY: the application's command buffer; a valid mode.
        unsafe { next(command_buffer, down.unwrap_or(mode)) };
    })
}

/// `vkCmdSetRasterizationSamplesEXT`: followed for the line mode.
///
/// # Safety
/// Vulkan's valid usage for `vkCmdSetRasterizationSamplesEXT`.
pub unsafe extern "system" fn cmd_set_rasterization_samples(
    command_buffer: vk::CommandBuffer,
    samples: vk::SampleCountFlags,
) {
    const WHAT: &str = "vkCmdSetRasterizationSamplesEXT";
    ffi_guard(WHAT, (), || {
        let Some(Some(next)) = with_device(command_buffer, |d| {
            d.table.cmd_set_rasterization_samples_ext
        }) else {
            return;
        };
        // SAFETY: the application's arguments, passed on unchanged.
        unsafe { next(command_buffer, samples) };
        follow(command_buffer, WHAT, |s| s.samples = samples);
    })
}

/// `vkCmdSetAlphaToCoverageEnableEXT`: followed for the line mode.
///
/// # Safety
/// Vulkan's valid usage for `vkCmdSetAlphaToCoverageEnableEXT`.
pub unsafe extern "system" fn cmd_set_alpha_to_coverage_enable(
    command_buffer: vk::CommandBuffer,
    enable: vk::Bool32,
) {
    const WHAT: &str = "vkCmdSetAlphaToCoverageEnableEXT";
    ffi_guard(WHAT, (), || {
        let Some(Some(next)) = with_device(command_buffer, |d| {
            d.table.cmd_set_alpha_to_coverage_enable_ext
        }) else {
            return;
        };
        // SAFETY: the application's arguments, passed on unchanged.
        unsafe { next(command_buffer, enable) };
        follow(command_buffer, WHAT, |s| {
            s.alpha_to_coverage = enable != vk::FALSE
        });
    })
}

/// `vkCmdSetAlphaToOneEnableEXT`: followed for the line mode.
///
/// # Safety
/// Vulkan's valid usage for `vkCmdSetAlphaToOneEnableEXT`.
pub unsafe extern "system" fn cmd_set_alpha_to_one_enable(
    command_buffer: vk::CommandBuffer,
    enable: vk::Bool32,
) {
    const WHAT: &str = "vkCmdSetAlphaToOneEnableEXT";
    ffi_guard(WHAT, (), || {
        let Some(Some(next)) =
            with_device(command_buffer, |d| d.table.cmd_set_alpha_to_one_enable_ext)
        else {
            return;
        };
        // SAFETY: the application's arguments, passed on unchanged.
        unsafe { next(command_buffer, enable) };
        follow(command_buffer, WHAT, |s| {
            s.alpha_to_one = enable != vk::FALSE
        });
    })
}

/// `vkCmdSetTessellationDomainOriginEXT`: under GL's window origin, Vulkan's default
/// `UPPER_LEFT` (what a GL port leaves) becomes `LOWER_LEFT`, as the layer chains it where a
/// pipeline states none (both of GL's window origins wind a TES as Vulkan's lower-left
/// origin does; DESIGN §4.7); an application's `LOWER_LEFT` stays.
///
/// # Safety
/// Vulkan's valid usage for `vkCmdSetTessellationDomainOriginEXT`.
pub unsafe extern "system" fn cmd_set_tessellation_domain_origin(
    command_buffer: vk::CommandBuffer,
    origin: vk::TessellationDomainOrigin,
) {
    ffi_guard("vkCmdSetTessellationDomainOriginEXT", (), || {
        let Some((Some(next), gl_origin)) = with_device(command_buffer, |d| {
            let gl = d.extensions.gl_state && d.settings.window_origin != WindowOrigin::Vulkan;
            (d.table.cmd_set_tessellation_domain_origin_ext, gl)
        }) else {
            return;
        };
        let origin = match gl_origin {
            true => vk::TessellationDomainOrigin::LOWER_LEFT,
            false => origin,
        };
        // SAFETY: the application's command buffer; a valid origin.
        unsafe { next(command_buffer, origin) };
    })
}
