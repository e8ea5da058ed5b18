//! The records of pipeline layouts: where each holds the GL-state block.

use ash::vk;
use std::sync::Arc;

use super::ffi::slice;
use super::frames::create_recorded;
use super::frames::destroy_hook;
use super::push_range::plan_layout;
use super::records::LayoutRecord;

/// `vkCreatePipelineLayout`: places the GL-state block.
///
/// # Safety
/// Vulkan's valid usage for the command.
pub unsafe extern "system" fn create_pipeline_layout(
    device: vk::Device,
    p_create_info: *const vk::PipelineLayoutCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pipeline_layout: *mut vk::PipelineLayout,
) -> vk::Result {
    create_recorded(
        "vkCreatePipelineLayout",
        device,
        |t| t.create_pipeline_layout,
        |dev| {
            // SAFETY: a valid create info with its ranges (Vulkan's valid usage).
            let app = unsafe {
                let ci = &*p_create_info;
                slice(ci.p_push_constant_ranges, ci.push_constant_range_count).to_vec()
            };
            let (ranges, slot) = plan_layout(dev, &app);
            (app, ranges, slot)
        },
        |next, plan| {
            // SAFETY: a valid create info (Vulkan's valid usage).
            let mut ci = unsafe { *p_create_info };
            if let Some((_, Some(ranges), _)) = plan {
                ci.push_constant_range_count = ranges.len() as u32;
                ci.p_push_constant_ranges = ranges.as_ptr();
            }
            // SAFETY: the application's create info with ranges that live until the call
            // returns.
            unsafe { next(device, &ci, p_allocator, p_pipeline_layout) }
        },
        |dev, (app, _, slot)| {
            let record = Arc::new(LayoutRecord::new(app, slot));
            dev.records
                .layouts
                .write()
                // SAFETY: the driver wrote the handle on success.
                .insert(unsafe { *p_pipeline_layout }, record);
        },
    )
}

destroy_hook!(
    /// `vkDestroyPipelineLayout`.
    "vkDestroyPipelineLayout", destroy_pipeline_layout(layout: vk::PipelineLayout), |dev| {
        dev.records.layouts.write().remove(&layout);
    }
);
