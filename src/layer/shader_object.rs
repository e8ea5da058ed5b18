//! Shader objects (`VK_EXT_shader_object`): `vkCreateShadersEXT` runs the same
//! [`crate::semantics::choose`] as pipelines, with a key built from the
//! `VkShaderCreateInfoEXT`s; `vkCmdBindShadersEXT` watches for a tessellation evaluation
//! shader bound without a control shader.
//!
//! Shaders created with `VK_SHADER_CREATE_LINK_STAGE_BIT_EXT` are rewritten as one group
//! (the XFB split of a vertex shader and the matching fragment inputs, as in a pipeline);
//! every other shader alone, as a library part is: a fragment shader splits every struct
//! input, and writes gl_FragColor to every Location below `maxColorAttachments` (a shader
//! object never knows its attachments). A shader object's topology and polygon mode are
//! dynamic, so vertex shaders get GL's default point size (without `maintenance5`).
//!
//! The push-constant ranges of every shader get the GL-state block's range where
//! `vkCreatePipelineLayout` adds it (a pure function of the application's ranges), so that
//! the shaders stay compatible with the layouts the application pushes and binds with.
//!
//! A tessellation evaluation shader bound without a control shader gets no generated TCS
//! yet: the bind is reported as an error (the draw would be invalid usage).

use ash::vk;
use std::ffi::CStr;
use std::sync::Arc;

use super::hooks::plan_layout;
use super::pipeline_info::{stage_of, stage_view, StageCode};
use super::records::{CommandBufferState, ModuleRecord};
use super::rewrite::{Run, Target};
use super::settings::slice;
use super::{call_with_next, device_data, ffi_guard, log, shield, DeviceData};
use crate::semantics::{choose, Attachments, PipelineKey, Topology};

type S = vk::ShaderStageFlags;

/// The key of one shader object or linked group: no pipeline state, everything dynamic.
fn shader_object_key(dev: &DeviceData) -> PipelineKey {
    PipelineKey {
        enabled: dev.settings.semantics,
        library: true,
        shader_object: true,
        attachments: Attachments::Unknown,
        max_color_attachments: dev.limits.unknown_attachment_locations(),
        topology: Topology::Dynamic,
        dynamic_points: true,
        polygon_points: true,
        transform_feedback: dev.features.transform_feedback,
        tess_geom_point_size: dev.features.tess_geom_point_size,
        maintenance5: dev.features.maintenance5,
        gl_state: dev.extensions.gl_state,
        // The GL-state block is not pushed for shader objects: GL's defaults.
        gl_state_block: None,
        depth_clip_control: dev.conventions.depth_clip_control,
        provoking_vertex_last: dev.conventions.provoking_vertex_last,
        // No pipeline state to chain into: the application sets these dynamically.
        app_provoking_vertex: true,
        app_depth_clip_control: true,
    }
}

/// The SPIR-V of a create info, when it has some.
unsafe fn spirv<'a>(ci: &vk::ShaderCreateInfoEXT<'a>) -> Option<&'a [u32]> {
    if ci.code_type != vk::ShaderCodeTypeEXT::SPIRV || ci.p_code.is_null() {
        return None;
    }
    Some(slice(ci.p_code.cast::<u32>(), (ci.code_size / 4) as u32))
}

/// The rewritten code and push-constant ranges of each create info (`None`: its own).
#[derive(Default)]
struct Patch {
    code: Vec<Option<Arc<[u32]>>>,
    ranges: Vec<Option<Vec<vk::PushConstantRange>>>,
}

fn plan(dev: &DeviceData, infos: &[vk::ShaderCreateInfoEXT<'_>]) -> Patch {
    let mut patch = Patch {
        code: vec![None; infos.len()],
        ranges: vec![None; infos.len()],
    };
    // Linked shaders form one group; every other shader is a group of its own.
    let linked: Vec<usize> = (0..infos.len())
        .filter(|&i| {
            infos[i]
                .flags
                .contains(vk::ShaderCreateFlagsEXT::LINK_STAGE)
        })
        .collect();
    let mut groups: Vec<Vec<usize>> = (0..infos.len())
        .filter(|i| !linked.contains(i))
        .map(|i| vec![i])
        .collect();
    if !linked.is_empty() {
        groups.push(linked);
    }
    let key = shader_object_key(dev);
    for group in groups {
        let codes: Vec<StageCode> = group
            .iter()
            .filter_map(|&index| {
                let ci = &infos[index];
                let stage = stage_of(ci.stage)?;
                // SAFETY: valid code and name pointers (Vulkan's valid usage).
                let words = unsafe { spirv(ci) }?;
                let entry = unsafe { ci.p_name.as_ref() }
                    .and_then(|_| unsafe { CStr::from_ptr(ci.p_name) }.to_str().ok())
                    .map(str::to_owned);
                Some(StageCode {
                    index,
                    stage,
                    module: Some(Arc::new(ModuleRecord::inline(words))),
                    entry,
                    patchable: true,
                })
            })
            .collect();
        if codes.is_empty() {
            continue;
        }
        let view = stage_view(&codes);
        let steps = choose(&view, &key);
        if steps.is_empty() {
            continue;
        }
        let mut run = Run::new(dev, Target::default(), &codes);
        for step in steps {
            if let Err(why) = run.step(step) {
                log::warning!("vkCreateShadersEXT: {why}; the shader keeps its code");
            }
        }
        let rewrite = run.finish();
        for note in &rewrite.notes {
            log::info!("shader object: {note}");
        }
        for (index, words) in rewrite.stages {
            patch.code[index] = Some(words);
        }
    }
    for (i, ci) in infos.iter().enumerate() {
        // SAFETY: valid range array (Vulkan's valid usage).
        let app = unsafe { slice(ci.p_push_constant_ranges, ci.push_constant_range_count) };
        patch.ranges[i] = plan_layout(dev, app).0;
    }
    patch
}

pub unsafe extern "system" fn create_shaders(
    device: vk::Device,
    create_info_count: u32,
    p_create_infos: *const vk::ShaderCreateInfoEXT<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_shaders: *mut vk::ShaderEXT,
) -> vk::Result {
    call_with_next(
        "vkCreateShadersEXT",
        device,
        |t| t.create_shaders_ext,
        |dev, next| {
            let infos = slice(p_create_infos, create_info_count);
            let Some(patch) = shield("vkCreateShadersEXT", || plan(dev, infos)) else {
                return next(
                    device,
                    create_info_count,
                    p_create_infos,
                    p_allocator,
                    p_shaders,
                );
            };
            let down: Vec<vk::ShaderCreateInfoEXT<'_>> = infos
                .iter()
                .zip(patch.code.iter().zip(&patch.ranges))
                .map(|(ci, (code, ranges))| {
                    let mut ci = *ci;
                    if let Some(words) = code {
                        ci.code_size = words.len() * 4;
                        ci.p_code = words.as_ptr().cast();
                    }
                    if let Some(ranges) = ranges {
                        ci.push_constant_range_count = ranges.len() as u32;
                        ci.p_push_constant_ranges = ranges.as_ptr();
                    }
                    ci
                })
                .collect();
            next(
                device,
                down.len() as u32,
                down.as_ptr(),
                p_allocator,
                p_shaders,
            )
        },
    )
}

pub unsafe extern "system" fn cmd_bind_shaders(
    command_buffer: vk::CommandBuffer,
    stage_count: u32,
    p_stages: *const vk::ShaderStageFlags,
    p_shaders: *const vk::ShaderEXT,
) {
    ffi_guard("vkCmdBindShadersEXT", (), || {
        let Some(dev) = device_data(command_buffer) else {
            return;
        };
        let Some(next) = dev.table.cmd_bind_shaders_ext else {
            return;
        };
        next(command_buffer, stage_count, p_stages, p_shaders);
        shield("vkCmdBindShadersEXT", || {
            let stages = slice(p_stages, stage_count);
            // NULL pShaders unbinds every stage named.
            let shaders: Vec<vk::ShaderEXT> = if p_shaders.is_null() {
                vec![vk::ShaderEXT::null(); stages.len()]
            } else {
                slice(p_shaders, stage_count).to_vec()
            };
            let mut cbs = dev.records.command_buffers.lock();
            let state = cbs
                .entry(command_buffer)
                .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
            let mut binds_tes = false;
            for (&stage, &shader) in stages.iter().zip(&shaders) {
                let bound = shader != vk::ShaderEXT::null();
                if stage == S::TESSELLATION_CONTROL {
                    state.tcs_object_bound = bound;
                } else if stage == S::TESSELLATION_EVALUATION {
                    state.tes_object_bound = bound;
                    binds_tes |= bound;
                }
            }
            if binds_tes && !state.tcs_object_bound {
                log::error!(
                    "vkCmdBindShadersEXT: a tessellation evaluation shader object is bound \
                     without a tessellation control shader; the layer does not generate \
                     TCS shader objects yet, so draws with it are invalid (bind a TCS, or \
                     use a pipeline, which gets a generated one)"
                );
            }
        });
    })
}
