//! The records of pipeline layouts: where each holds the GL-state block.

use ash::vk;
use std::sync::Arc;

use crate::layer::data::records::LayoutRecord;
use crate::layer::loader::frames::{create_hook, destroy_hook};
use crate::layer::objects::push_range::plan_layout;
use crate::layer::support::ffi::slice;

create_hook! {
    /// `vkCreatePipelineLayout`: places the GL-state block.
    "vkCreatePipelineLayout",
    fn create_pipeline_layout(
        device, p_create_info: vk::PipelineLayoutCreateInfo<'_>, p_allocator, p_pipeline_layout: vk::PipelineLayout
    ),
    prepare: |dev| {
        // SAFETY: a valid create info with its ranges (Vulkan's valid usage).
        let app = unsafe {
            let ci = &*p_create_info;
            slice(ci.p_push_constant_ranges, ci.push_constant_range_count).to_vec()
        };
        let (ranges, slot) = plan_layout(dev, &app);
        (app, ranges, slot)
    },
    call_down: |next, plan| {
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
    record: |dev, (app, _, slot)| {
        let record = Arc::new(LayoutRecord::new(app, slot));
        // SAFETY: the driver wrote the handle on success.
        let layout = unsafe { *p_pipeline_layout };
        dev.records.layouts.write().insert(layout, record);
    },
}

destroy_hook!(
    /// `vkDestroyPipelineLayout`.
    "vkDestroyPipelineLayout", destroy_pipeline_layout(layout: vk::PipelineLayout), |dev| {
        dev.records.layouts.write().remove(&layout);
    }
);
