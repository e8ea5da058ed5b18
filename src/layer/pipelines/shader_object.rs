//! Shader objects (`VK_EXT_shader_object`): `vkCreateShadersEXT` runs the same
//! [`glsem_spirv::semantics::choose`] as pipelines, with a key built from the
//! `VkShaderCreateInfoEXT`s; `vkCmdBindShadersEXT` watches for a tessellation evaluation
//! shader bound without a control shader.
//!
//! Shaders created with `VK_SHADER_CREATE_LINK_STAGE_BIT_EXT` are rewritten as one group
//! (the XFB split of a vertex shader and the matching fragment inputs, as in a pipeline);
//! every other shader alone, as a library part is: a fragment shader splits every struct
//! input, and writes gl_FragColor to every Location below `maxColorAttachments` (a shader
//! object never knows its attachments). A shader object's topology and polygon mode are
//! dynamic, so the last pre-rasterization shader gets GL's point size: with
//! `VK_GLSEM_gl_state`, the size (and clip-distance enables) of the GL-state block, pushed
//! when the shader is bound and whenever the state changes, as for pipelines; without it,
//! GL's default size (unless the driver has `maintenance5`).
//!
//! The push-constant ranges of every shader get the GL-state block's range where
//! `vkCreatePipelineLayout` adds it (a pure function of the application's ranges), so that
//! the shaders stay compatible with the layouts the application pushes and binds with.
//!
//! A tessellation evaluation shader object bound without a control shader gets a generated
//! passthrough TCS shader object, bound by the layer: one per patch size
//! (`vkCmdSetPatchControlPointsEXT`, dynamic state every shader-object draw sets), made on
//! first use and kept with the TES until it is destroyed. The default levels reach it
//! through the GL-state block, pushed with a layout the layer makes of the TES's
//! push-constant ranges. Vertex shaders whose `nextStage` names the TES also name the TCS
//! stage, so that the generated TCS may follow them.

use ash::vk;
use std::sync::Arc;

use crate::layer::commands::draws::gl_primitives;
use crate::layer::commands::gl_state_block::push;
use crate::layer::commands::{followed_state, lines};
use crate::layer::data::lines::BoundLines;
use crate::layer::data::primitives::BoundPrimitives;
use crate::layer::data::records::{
    BlockBinding, BlockSlot, BoundRecord, CommandBufferState, LayoutRecord, LinkedObject,
    ModuleRecord, TesObjectRecord,
};
use crate::layer::data::words::Words;
use crate::layer::loader::frames::{command_hook, destroy_hook, hook, shield};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::ShaderView;
use crate::layer::objects::interface_limits::{code_over_limit, Author};
use crate::layer::objects::pipeline_info::{
    in_place_doubles, pipeline_key, stage_of, stage_view, KeySource, ObjectGroup, StageCode,
};
use crate::layer::objects::push_range::plan_layout;
use crate::layer::rewrite::run::{Run, Target};
use crate::layer::rules;
use crate::layer::support::error::{GenerationError, ObjectError, TcsError};
use crate::layer::support::ffi::slice;
use crate::layer::support::log;
use glsem_spirv::passthrough_tcs::{build_passthrough_tcs, TcsKey};
use glsem_spirv::semantics::{choose, Semantic};

type S = vk::ShaderStageFlags;

/// The rewritten code and push-constant ranges of each create info (`None`: its own).
#[derive(Default)]
struct Patch {
    code: Vec<Option<Words>>,
    ranges: Vec<Option<Vec<vk::PushConstantRange>>>,
    slots: Vec<BlockSlot>,
    /// The rewritten code reads the GL-state block.
    reads_block: Vec<bool>,
}

fn plan(dev: &DeviceData, infos: &[ShaderView<'_>]) -> Patch {
    let mut patch = Patch {
        code: vec![None; infos.len()],
        ranges: Vec::with_capacity(infos.len()),
        slots: Vec::with_capacity(infos.len()),
        reads_block: vec![false; infos.len()],
    };
    // The block's place is a pure function of a shader's ranges, as in
    // `vkCreatePipelineLayout`: the layouts the application pushes with hold it there too.
    let mut app_ranges = Vec::with_capacity(infos.len());
    for ci in infos {
        let app = ci.push_constant_ranges;
        let (ranges, slot) = plan_layout(dev, app);
        patch.ranges.push(ranges);
        patch.slots.push(slot);
        app_ranges.push(app);
    }
    for group in link_groups(infos) {
        let codes = group_codes(dev, infos, &group);
        if !codes.is_empty() {
            plan_group(dev, infos, &app_ranges, &codes, &mut patch);
        }
    }
    patch
}

/// Linked shaders form one group; every other shader is a group of its own.
fn link_groups(infos: &[ShaderView<'_>]) -> Vec<Vec<usize>> {
    let linked: Vec<usize> = (0..infos.len())
        .filter(|&i| {
            infos[i]
                .info
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
    groups
}

/// The code of a group's shaders whose stage and SPIR-V the layer can read.
fn group_codes(dev: &DeviceData, infos: &[ShaderView<'_>], group: &[usize]) -> Vec<StageCode> {
    group
        .iter()
        .filter_map(|&index| {
            let ci = &infos[index];
            let stage = stage_of(ci.info.stage)?;
            let words = ci.code?;
            let entry = ci.entry.map(str::to_owned);
            Some(StageCode {
                index,
                stage,
                module: Some(Arc::new(ModuleRecord::new(dev.scan(words), words))),
                entry,
                patchable: true,
            })
        })
        .collect()
}

/// Chooses and runs the steps of one group, and notes in `patch` the code and block reads
/// of its shaders.
fn plan_group(
    dev: &DeviceData,
    infos: &[ShaderView<'_>],
    app_ranges: &[&[vk::PushConstantRange]],
    codes: &[StageCode],
    patch: &mut Patch,
) {
    let view = stage_view(codes);
    // The last pre-rasterization stage feeds a fragment shader of another group when
    // its nextStage is the fragment stage (or nothing: it feeds no other stage).
    let last = view.last_pre_rasterization();
    let last_index = codes
        .iter()
        .find(|c| Some(c.stage) == last)
        .map(|c| c.index);
    let next_stage = last_index.map(|i| infos[i].info.next_stage);
    let feeds_fragment = next_stage.is_some_and(|next| (next & !S::FRAGMENT).is_empty());
    // It may also be bound before a fragment shader object when nextStage names it among
    // others: GL's gl_Layer then goes to the Location where that shader reads it.
    let may_feed_fragment =
        next_stage.is_some_and(|next| next.is_empty() || next.contains(S::FRAGMENT));
    let fragment_index = codes
        .iter()
        .find(|c| c.stage == glsem_spirv::semantics::Stage::Fragment)
        .map(|c| c.index);
    let group = ObjectGroup {
        fragment_elsewhere: feeds_fragment && !view.has(glsem_spirv::semantics::Stage::Fragment),
        fragment_may_be_apart: may_feed_fragment
            && !view.has(glsem_spirv::semantics::Stage::Fragment),
        gl_state_block: last_index
            .filter(|_| dev.extensions.gl_state)
            .and_then(|i| patch.slots[i].offset_for(infos[i].info.stage)),
        fragment_block: fragment_index
            .filter(|_| dev.extensions.gl_state)
            .and_then(|i| patch.slots[i].offset_for(S::FRAGMENT)),
        vertex_formats: codes
            .iter()
            .find(|c| c.stage == glsem_spirv::semantics::Stage::Vertex)
            .and_then(|c| c.code())
            .and_then(|(module, entry)| in_place_doubles(dev, &module.words, entry)),
    };
    let key = pipeline_key(dev, KeySource::ShaderObjects(group));
    let steps = choose(&view, &key);
    if steps.is_empty() {
        return;
    }
    let fragment_reads_block = steps
        .iter()
        .any(|s| s.reads_block() && s.stage() == Some(glsem_spirv::semantics::Stage::Fragment));
    // The block's place as the last pre-rasterization shader's ranges hold it; pushes
    // use a layout the layer makes of those ranges (`record_block_readers`).
    let target = Target {
        layout_record: last_index.map(|i| {
            Arc::new(LayoutRecord::new(
                app_ranges[i].to_vec(),
                patch.slots[i].clone(),
            ))
        }),
        ..Target::default()
    };
    let mut run = Run::new(dev, target, codes);
    for step in steps {
        if let Err(why) = rules::plan(&step, &mut run) {
            log::warning!("vkCreateShadersEXT: {why}; the shader keeps its code");
        }
    }
    let rewrite = run.finish();
    for note in &rewrite.notes {
        log::info!("shader object: {note}");
    }
    if let (Some(_), Some(i)) = (rewrite.reads_block, last_index) {
        patch.reads_block[i] = true;
    }
    // The fragment shader reads the block at the place its own ranges hold it.
    if let Some(i) = fragment_index.filter(|_| fragment_reads_block) {
        patch.reads_block[i] = rewrite.stages.iter().any(|(index, _)| *index == i);
    }
    for (index, words) in rewrite.stages {
        patch.code[index] = Some(words);
    }
}

/// Records the shaders of `down` (as the driver made them, in `shaders`) whose code reads
/// the GL-state block, each with a layout of its ranges to push the block with.
fn record_block_readers(
    dev: &DeviceData,
    down: &[vk::ShaderCreateInfoEXT<'_>],
    patch: &Patch,
    shaders: &[vk::ShaderEXT],
) {
    let Some(create) = dev.table.create_pipeline_layout else {
        return;
    };
    for (i, ci) in down.iter().enumerate() {
        let BlockSlot::Reserved {
            offset,
            size,
            push_stages,
            ..
        } = patch.slots[i]
        else {
            continue;
        };
        if !patch.reads_block[i] {
            continue;
        }
        // Push-constant compatibility only compares ranges: the set layouts do not matter.
        let layout_info = vk::PipelineLayoutCreateInfo {
            push_constant_range_count: ci.push_constant_range_count,
            p_push_constant_ranges: ci.p_push_constant_ranges,
            ..Default::default()
        };
        let mut layout = vk::PipelineLayout::null();
        // SAFETY: the device the layer recorded; a valid create info (the ranges the driver
        // just took).
        match unsafe { create(dev.handle, &layout_info, std::ptr::null(), &mut layout) } {
            vk::Result::SUCCESS => {}
            e => {
                log::warning!(
                    "vkCreateShadersEXT: creating a layout to push GL's point and clip state \
                     failed ({e}): the shader gets GL's initial state"
                );
                continue;
            }
        }
        let binding = BlockBinding {
            layout,
            offset,
            size,
            stages: push_stages,
        };
        dev.records
            .block_objects
            .write()
            .insert(shaders[i], binding);
        dev.records
            .shader_objects_made
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Destroys the layout the layer made to push the GL-state block for a shader object.
pub(crate) fn destroy_block_layout(dev: &DeviceData, binding: &BlockBinding) {
    if let Some(destroy) = dev.table.destroy_pipeline_layout {
        // SAFETY: the layer made this layout on this device and hands it out to nobody.
        unsafe { destroy(dev.handle, binding.layout, std::ptr::null()) };
    }
}

/// The record of a TES shader object created from `ci` (as the driver got it).
fn tes_record(ci: &ShaderView<'_>, slot: &BlockSlot) -> Option<TesObjectRecord> {
    if ci.info.stage != S::TESSELLATION_EVALUATION {
        return None;
    }
    Some(TesObjectRecord {
        words: ci.code?.into(),
        entry: ci.entry?.to_owned(),
        set_layouts: ci.set_layouts.to_vec(),
        ranges: ci.push_constant_ranges.to_vec(),
        block: match *slot {
            BlockSlot::Reserved {
                offset,
                size,
                push_stages,
                reads,
            } if reads.contains(S::TESSELLATION_CONTROL) => Some((offset, size, push_stages)),
            _ => None,
        },
        generated: Default::default(),
    })
}

/// The shaders linked with `vertex` (one of `down`, made as `shaders`): the others of the
/// call created with `VK_SHADER_CREATE_LINK_STAGE_BIT_EXT`, as the driver got them; none
/// where `vertex` is not linked.
fn linked_set(
    down: &[vk::ShaderCreateInfoEXT<'_>],
    shaders: &[vk::ShaderEXT],
    vertex: &vk::ShaderCreateInfoEXT<'_>,
) -> Vec<LinkedObject> {
    let link = vk::ShaderCreateFlagsEXT::LINK_STAGE;
    if !vertex.flags.contains(link) {
        return Vec::new();
    }
    down.iter()
        .zip(shaders)
        .filter(|(ci, _)| ci.flags.contains(link) && ci.stage != S::VERTEX)
        .filter_map(|(ci, &shader)| {
            // SAFETY: a create info the driver accepted, alive for the call.
            let view = unsafe { ShaderView::new(ci) };
            Some(LinkedObject {
                shader,
                stage: ci.stage,
                next_stage: ci.next_stage,
                flags: ci.flags,
                words: view.code?.into(),
                entry: view.entry?.to_owned(),
                set_layouts: view.set_layouts.to_vec(),
                ranges: view.push_constant_ranges.to_vec(),
                // SAFETY: the same create info.
                specialization: unsafe { gl_primitives::specialization_of(ci) },
            })
        })
        .collect()
}

hook! {
    "vkCreateShadersEXT" in call_with_next,
    fn create_shaders[create_shaders_ext](
        device: vk::Device,
        create_info_count: u32,
        p_create_infos: *const vk::ShaderCreateInfoEXT<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_shaders: *mut vk::ShaderEXT
    ) -> vk::Result =>
    |dev, next| {
        // SAFETY: pCreateInfos holds createInfoCount valid infos (Vulkan's valid usage),
        // alive for the call.
        let infos: Vec<ShaderView<'_>> = unsafe { slice(p_create_infos, create_info_count) }
            .iter()
            // SAFETY: each of the createInfoCount create infos is valid (Vulkan's valid
            // usage) and outlives the call.
            .map(|ci| unsafe { ShaderView::new(ci) })
            .collect();
        if let Some(why) = shield("vkCreateShadersEXT limits", || past_limits(dev, &infos)).flatten() {
            // Drivers crash on such code: no shader of the call is made, as when a driver
            // fails one.
            log::error!("vkCreateShadersEXT: {why}");
            // SAFETY: pShaders holds one handle per create info (Vulkan's valid usage).
            unsafe { std::slice::from_raw_parts_mut(p_shaders, infos.len()) }
                .fill(vk::ShaderEXT::null());
            return vk::Result::ERROR_UNKNOWN;
        }
        let Some(patch) = shield("vkCreateShadersEXT", || plan(dev, &infos)) else {
            // SAFETY: the next layer's `vkCreateShadersEXT` with the arguments the
            // application gave this hook, which Vulkan's valid usage for the command (this
            // hook's contract) makes valid for it as they were for the hook.
            return unsafe {
                next(
                    device,
                    create_info_count,
                    p_create_infos,
                    p_allocator,
                    p_shaders,
                )
            };
        };
        let tessellation = dev.features.tessellation_shader
            && dev.settings.semantics.contains(Semantic::PassthroughTcs);
        let gl_primitives = gl_primitives::draws_gl_primitives(dev);
        let gl_state = dev.extensions.gl_state;
        let down: Vec<vk::ShaderCreateInfoEXT<'_>> = infos
            .iter()
            .zip(patch.code.iter().zip(&patch.ranges))
            .map(|(ci, (code, ranges))| {
                let mut ci = *ci.info;
                if let Some(words) = code {
                    ci.code_size = words.len() * 4;
                    ci.p_code = words.as_ptr().cast();
                }
                if let Some(ranges) = ranges {
                    ci.push_constant_range_count = ranges.len() as u32;
                    ci.p_push_constant_ranges = ranges.as_ptr();
                }
                // A generated TCS may come between the vertex shader and the TES.
                if tessellation
                    && ci.stage == S::VERTEX
                    && ci.next_stage.contains(S::TESSELLATION_EVALUATION)
                {
                    ci.next_stage |= S::TESSELLATION_CONTROL;
                }
                // And a generated geometry shader between it and the fragment shader.
                if gl_primitives
                    && ci.stage == S::VERTEX
                    && !ci.flags.contains(vk::ShaderCreateFlagsEXT::LINK_STAGE)
                {
                    ci.next_stage |= S::GEOMETRY;
                }
                ci
            })
            .collect();
        // SAFETY: the application's create infos with code and ranges from `patch`,
        // which outlive the call; pShaders holds one handle per info (Vulkan's valid
        // usage).
        let result = unsafe {
            next(
                device,
                down.len() as u32,
                down.as_ptr(),
                p_allocator,
                p_shaders,
            )
        };
        if result != vk::Result::SUCCESS {
            return result;
        }
        // SAFETY: on success the driver wrote one handle per create info.
        let shaders = unsafe { slice(p_shaders, create_info_count) };
        if patch.reads_block.contains(&true) {
            shield("vkCreateShadersEXT block readers", || {
                record_block_readers(dev, &down, &patch, shaders)
            });
        }
        // Vertex shader objects are recorded for GL's current attributes and primitive
        // modes, and to be made again for a vertex input they cannot read as given.
        if gl_state || dev.settings.semantics.contains(Semantic::VertexFormats) {
            shield("vkCreateShadersEXT vertex records", || {
                for ((ci, app), &shader) in down.iter().zip(&infos).zip(shaders) {
                    // SAFETY: a create info the driver accepted: the application's with
                    // code and ranges from `patch`, alive for the call.
                    let ci = unsafe { ShaderView::new(ci) };
                    if ci.info.stage != S::VERTEX {
                        continue;
                    }
                    let set = linked_set(&down, shaders, ci.info);
                    let record = app.code.and_then(|app_code| {
                        gl_primitives::vertex_record(dev, &ci, app_code, set)
                    });
                    if let Some(record) = record {
                        dev.records
                            .vertex_objects
                            .write()
                            .insert(shader, Arc::new(record));
                    }
                }
            });
        }
        if tessellation {
            shield("vkCreateShadersEXT records", || {
                for (i, (ci, &shader)) in down.iter().zip(shaders).enumerate() {
                    // SAFETY: a create info the driver accepted: the application's with
                    // code and ranges from `patch`, alive for the call.
                    let ci = unsafe { ShaderView::new(ci) };
                    let record = tes_record(&ci, &patch.slots[i]);
                    if let Some(record) = record {
                        dev.records
                            .tes_objects
                            .write()
                            .insert(shader, Arc::new(record));
                        dev.records
                            .shader_objects_made
                            .store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
        result
    }
}

/// Why a create info's SPIR-V takes more Locations than the device allows, if one does.
fn past_limits(dev: &DeviceData, infos: &[ShaderView<'_>]) -> Option<String> {
    infos.iter().enumerate().find_map(|(i, ci)| {
        let stage = stage_of(ci.info.stage)?;
        let code = (stage, ci.code?, ci.entry?);
        let why = code_over_limit(&dev.limits, code, Author::Application)?;
        Some(format!("pCreateInfos[{i}] fails: {why}"))
    })
}

/// Destroys what the layer made for a TES shader object.
pub(crate) fn destroy_generated(dev: &DeviceData, record: &TesObjectRecord) {
    let mut generated = record.generated.lock();
    let (tcs, layout) = &mut *generated;
    // SAFETY: the layer made these on this device and hands them out to nobody.
    unsafe {
        if let Some(destroy) = dev.table.destroy_shader_ext {
            for (_, shader) in tcs.drain() {
                destroy(dev.handle, shader, std::ptr::null());
            }
        }
        if *layout != vk::PipelineLayout::null() {
            if let Some(destroy) = dev.table.destroy_pipeline_layout {
                destroy(dev.handle, *layout, std::ptr::null());
            }
            *layout = vk::PipelineLayout::null();
        }
    }
}

destroy_hook!(
    /// `vkDestroyShaderEXT`: the TCS the layer generated for it, and the layout it made
    /// for its GL-state block, go first.
    "vkDestroyShaderEXT", destroy_shader[destroy_shader_ext](shader: vk::ShaderEXT), |dev| {
        if let Some(record) = dev.records.tes_objects.write().remove(&shader) {
            destroy_generated(dev, &record);
        }
        if let Some(record) = dev.records.vertex_objects.write().remove(&shader) {
            gl_primitives::destroy_generated(dev, &record);
        }
        if let Some(binding) = dev.records.block_objects.write().remove(&shader) {
            destroy_block_layout(dev, &binding);
        }
    }
);

/// The generated TCS for `record` and `patch_size`, made on first use, and where to push
/// the levels for it.
fn generated_tcs(
    dev: &DeviceData,
    record: &TesObjectRecord,
    patch_size: u32,
) -> Result<(vk::ShaderEXT, BlockBinding), TcsError> {
    let Some((offset, size, stages)) = record.block else {
        return Err(TcsError::NoRangeRoom);
    };
    let mut generated = record.generated.lock();
    let (tcs, layout) = &mut *generated;
    if *layout == vk::PipelineLayout::null() {
        let create = dev
            .table
            .create_pipeline_layout
            .ok_or(ObjectError::MissingCommand("vkCreatePipelineLayout"))?;
        let ci = vk::PipelineLayoutCreateInfo {
            push_constant_range_count: record.ranges.len() as u32,
            p_push_constant_ranges: record.ranges.as_ptr(),
            ..Default::default()
        };
        // SAFETY: the device the layer recorded; a valid create info.
        match unsafe { create(dev.handle, &ci, std::ptr::null(), layout) } {
            vk::Result::SUCCESS => {}
            e => return Err(ObjectError::Layout(e).into()),
        }
    }
    let binding = BlockBinding {
        layout: *layout,
        offset,
        size,
        stages,
    };
    if let Some(&shader) = tcs.get(&patch_size) {
        return Ok((shader, binding));
    }
    let key = TcsKey {
        output_vertices: patch_size,
        max_patch_size: dev.limits.max_tessellation_patch_size,
        push_constant_offset: offset,
        any_patch_size: false,
        patch_size_location: None,
    };
    let words = build_passthrough_tcs(&record.words, &record.entry, None, &key)
        .map_err(|e| GenerationError::Pass(e.to_string().into()))?;
    let shader = gl_primitives::generated_object(
        dev,
        (S::TESSELLATION_CONTROL, S::TESSELLATION_EVALUATION),
        &words,
        &record.set_layouts,
        &record.ranges,
    )?;
    log::info!(
        "generated passthrough tessellation control shader object ({patch_size} control \
         points, default levels at push-constant offset {offset})"
    );
    tcs.insert(patch_size, shader);
    Ok((shader, binding))
}

/// After the tessellation shaders or the patch size of `cb` changed: binds the generated
/// TCS where the application's TES has no TCS (or unbinds it where it no longer needs
/// one), and pushes the levels for it.
fn update_tcs(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>) {
    let Some(bind) = dev.table.cmd_bind_shaders_ext else {
        return;
    };
    let (tes, app_tcs, layer_tcs, patch_size) = {
        let cbs = dev.records.command_buffers.lock();
        let Some(state) = cbs.get(&cb.handle()) else {
            return;
        };
        (
            state.tes_object,
            state.app_tcs_object,
            state.layer_tcs_object,
            state.patch_control_points,
        )
    };
    let record = (tes != vk::ShaderEXT::null() && !app_tcs)
        .then(|| dev.records.tes_objects.read().get(&tes).cloned())
        .flatten();
    let unbind = |dev: &DeviceData| {
        let null = vk::ShaderEXT::null();
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state (the
        // application's call).
        unsafe { bind(cb.handle(), 1, &S::TESSELLATION_CONTROL, &null) };
        if let Some(state) = dev.records.command_buffers.lock().get_mut(&cb.handle()) {
            state.layer_tcs_object = false;
            state.bound = None;
        }
    };
    let Some(record) = record else {
        if layer_tcs && !app_tcs {
            unbind(dev);
        }
        if tes != vk::ShaderEXT::null() && !app_tcs {
            log::error!(
                "vkCmdBindShadersEXT: a tessellation evaluation shader object the layer \
                 did not see created is bound without a tessellation control shader; draws \
                 with it are invalid"
            );
        }
        return;
    };
    // The patch size is dynamic state every draw with a TES sets: until it is set there
    // is nothing to bind.
    let Some(patch_size) = patch_size else {
        return;
    };
    match generated_tcs(dev, &record, patch_size) {
        Ok((shader, binding)) => {
            // SAFETY: a live command buffer (a `Dispatchable`) in the recording state (the
            // application's call) with a tessellation evaluation shader object bound; the
            // generated TCS was made on this device for it and its patch size.
            unsafe { bind(cb.handle(), 1, &S::TESSELLATION_CONTROL, &shader) };
            let values = {
                let mut cbs = dev.records.command_buffers.lock();
                let Some(state) = cbs.get_mut(&cb.handle()) else {
                    return;
                };
                state.layer_tcs_object = true;
                state.bound = Some(binding);
                state.values
            };
            push(dev, cb, binding, &values);
        }
        Err(why) => {
            if layer_tcs {
                unbind(dev);
            }
            log::error!(
                "a tessellation evaluation shader object is bound without a tessellation \
                 control shader and the layer cannot generate one: {why}; draws with it are \
                 invalid"
            );
        }
    }
}

command_hook! {
    /// `vkCmdSetPatchControlPointsEXT`: a bound TES object's generated TCS follows the
    /// count.
    "vkCmdSetPatchControlPointsEXT",
    fn cmd_set_patch_control_points[cmd_set_patch_control_points_ext](
        command_buffer,
        patch_control_points: u32,
    ),
    then |()| {
        shield("vkCmdSetPatchControlPointsEXT", || {
            let Some(dev) = device_data(command_buffer) else {
                return;
            };
            let changed = {
                let mut cbs = dev.records.command_buffers.lock();
                let state = cbs
                    .entry(command_buffer.handle())
                    .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
                let changed = state.patch_control_points != Some(patch_control_points);
                state.patch_control_points = Some(patch_control_points);
                changed && state.tes_object != vk::ShaderEXT::null()
            };
            if changed {
                update_tcs(&dev, command_buffer);
            }
        });
    }
}

command_hook! {
    /// `vkCmdBindShadersEXT`: GL's conventions and line state for the shaders, the
    /// GL-state block pushed for a shader that reads it, and the stages the layer generates
    /// around them.
    "vkCmdBindShadersEXT",
    fn cmd_bind_shaders[cmd_bind_shaders_ext](
        command_buffer,
        stage_count: u32,
        p_stages: *const vk::ShaderStageFlags,
        p_shaders: *const vk::ShaderEXT,
    ),
    then |()| {
        let Some(dev) = device_data(command_buffer) else {
            return;
        };
        if !p_shaders.is_null() {
            shield("vkCmdBindShadersEXT conventions", || {
                followed_state::set_conventions(&dev, command_buffer, true);
                lines::bind_object_lines(&dev, command_buffer);
            });
        }
        shield("vkCmdBindShadersEXT", || {
            // SAFETY: pStages holds stageCount stages (Vulkan's valid usage).
            let stages = unsafe { slice(p_stages, stage_count) };
            // NULL pShaders unbinds every stage named.
            let shaders: Vec<vk::ShaderEXT> = if p_shaders.is_null() {
                vec![vk::ShaderEXT::null(); stages.len()]
            } else {
                // SAFETY: a non-NULL pShaders holds stageCount shaders (Vulkan's valid
                // usage).
                unsafe { slice(p_shaders, stage_count) }.to_vec()
            };
            // A shader that reads the GL-state block gets it pushed now and on change.
            let reader = {
                let readers = dev.records.block_objects.read();
                shaders.iter().rev().find_map(|s| readers.get(s).copied())
            };
            let (touched, primitive, vertex, values) = {
                let mut cbs = dev.records.command_buffers.lock();
                let state = cbs
                    .entry(command_buffer.handle())
                    .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
                if reader.is_some() {
                    state.bound = reader;
                }
                // Shader objects replace the bound pipeline (`bind_object_lines` sets their
                // line state).
                state.pipeline = BoundRecord::shader_objects(
                    BoundLines::of_objects(&state.lines, &dev.conventions.lines),
                    BoundPrimitives {
                        closes_loops: state.primitives.closes_loops(),
                        ..BoundPrimitives::NONE
                    },
                );
                state.primitives.variants = None;
                state.lines.start_pixels = None;
                let mut touched = false;
                let mut primitive = false;
                let mut vertex = None;
                for (&stage, &shader) in stages.iter().zip(&shaders) {
                    if stage == S::VERTEX {
                        state.vertex_object = shader;
                        primitive = true;
                        vertex = Some(shader);
                    } else if stage == S::GEOMETRY {
                        state.primitives.app_geometry_object = shader != vk::ShaderEXT::null();
                        state.primitives.layer_geometry_object = false;
                        primitive = true;
                    }
                    if stage == S::TESSELLATION_CONTROL {
                        state.app_tcs_object = shader != vk::ShaderEXT::null();
                        if state.app_tcs_object {
                            state.layer_tcs_object = false;
                        }
                        touched = true;
                    } else if stage == S::TESSELLATION_EVALUATION {
                        state.tes_object = shader;
                        touched = true;
                    }
                }
                let primitive = primitive
                    && (state.primitives.gl_mode.is_some() || state.primitives.layer_geometry_object);
                (touched, primitive, vertex, state.values)
            };
            if let Some(binding) = reader {
                push(&dev, command_buffer, binding, &values);
            }
            if touched {
                update_tcs(&dev, command_buffer);
            }
            if primitive {
                gl_primitives::update(&dev, command_buffer);
            }
            if let Some(vertex) = vertex {
                followed_state::bind_vertex(&dev, command_buffer, vertex);
            }
        });
    }
}
