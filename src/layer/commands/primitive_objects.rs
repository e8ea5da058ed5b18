//! GL's primitive modes with shader objects (`vkCmdSetPrimitiveModeGLSEM`): shader objects
//! have no input-assembly state, so the mode is command-buffer state. While it names quads,
//! quad strips or polygons and an unlinked vertex shader object the layer saw created is
//! bound without a geometry shader of the application's, the layer binds the geometry
//! shader object that draws the mode (generated from that vertex shader, made on first use
//! and kept with it) and sets the topology it reads; for line loops it sets a line strip
//! and closes non-indexed draws (`line_loops`). Mode, shaders and polygon mode are followed
//! when they change, not per draw. The application sets the topology before the mode: the
//! layer's topology holds until the application sets another.

use ash::vk;
use std::sync::atomic::Ordering;

use crate::layer::commands::gl_state_block::{drawn_changed, follow_drawn, push};
use crate::layer::data::dynamic_inputs::{made_once, ObjectVariant, VariantKey};
use crate::layer::data::primitives::{BoundVariants, PolygonModeVariants};
use crate::layer::data::records::{
    CommandBufferState, LinkedObject, PipelineRecord, Specialization, VertexObjectRecord,
};
use crate::layer::data::vertex_formats::vertex_format;
use crate::layer::loader::frames::{command_hook, ffi_guard, shield};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::ShaderView;
use crate::layer::objects::pipeline_info::{gl_mode_of, topology_for};
use crate::layer::rules::layer_step::{Bind, BindRule};
use crate::layer::support::error::{GenerationError, GsError, ObjectError};
use crate::layer::support::ffi::slice;
use crate::layer::support::log;
use glsem_abi::PrimitiveMode;
use glsem_spirv::module::Module;
use glsem_spirv::primitive_mode::{build_primitive_gs, PrimitiveGsKey, Rasterized};
use glsem_spirv::semantics::{GlMode, Semantic};
use glsem_spirv::vertex_formats::{
    assign_locations, occupied_input_locations, refetch_vertex_inputs, Fetch, RefetchVertexInputs,
    RefetchedAttribute,
};
use spirv::{Decoration, ExecutionModel, StorageClass};
use std::sync::Arc;

type S = vk::ShaderStageFlags;

/// Whether the device may draw GL's primitive modes with shader objects.
pub(crate) fn draws_primitive_modes(dev: &DeviceData) -> bool {
    dev.extensions.gl_state && dev.features.geometry_shader
}

/// Whether the vertex entry point `entry` of `words` has an output at `location`.
fn writes_location(words: &[u32], entry: &str, location: u32) -> bool {
    let Ok(m) = Module::parse(words) else {
        return false;
    };
    m.entry_point(entry, ExecutionModel::Vertex)
        .is_some_and(|ep| {
            ep.interface.iter().any(|&v| {
                matches!(m.variable(v), Some((StorageClass::Output, _)))
                    && m.decoration(v, Decoration::Location) == Some(&[location][..])
            })
        })
}

/// The specialization of a shader object's create info.
///
/// # Safety
/// `info` is valid (Vulkan's valid usage).
pub(crate) unsafe fn specialization_of(
    info: &vk::ShaderCreateInfoEXT<'_>,
) -> Option<Specialization> {
    // SAFETY: a valid create info's specialization, whose arrays hold their counts (this
    // function's contract).
    unsafe {
        info.p_specialization_info.as_ref().map(|spec| {
            (
                slice(spec.p_map_entries, spec.map_entry_count).to_vec(),
                slice(spec.p_data.cast::<u8>(), spec.data_size as u32).to_vec(),
            )
        })
    }
}

/// The record of a vertex shader object created from `ci` (as the driver got it;
/// `app_code` as the application gave it), linked with `linked_set` where it is.
pub(crate) fn vertex_record(
    dev: &DeviceData,
    ci: &ShaderView<'_>,
    app_code: &[u32],
    linked_set: Vec<LinkedObject>,
) -> Option<VertexObjectRecord> {
    let linked = ci.info.flags.contains(vk::ShaderCreateFlagsEXT::LINK_STAGE);
    if ci.info.stage != S::VERTEX {
        return None;
    }
    let code = ci.code?;
    let entry = ci.entry?.to_owned();
    // The layer's copy of gl_Layer for a fragment shader made apart, where it added one.
    let apart = dev.limits.last_interface_location();
    let layer_copy = (dev.extensions.gl_state
        && writes_location(code, &entry, apart)
        && !writes_location(app_code, &entry, apart))
    .then_some(apart);
    let inputs = dev
        .feedable_inputs(code, &entry, &[])
        .ok()
        .flatten()
        .map(Into::into);
    // SAFETY: a valid create info (the view's contract).
    let specialization = unsafe { specialization_of(ci.info) };
    Some(VertexObjectRecord {
        linked,
        inputs,
        words: code.into(),
        layer_copy,
        entry,
        set_layouts: ci.set_layouts.to_vec(),
        ranges: ci.push_constant_ranges.to_vec(),
        generated: Default::default(),
        flags: ci.info.flags,
        next_stage: ci.info.next_stage,
        specialization,
        linked_set,
        refetched: Default::default(),
    })
}

/// `record`'s vertex shader object made again to read the attributes `key` refetches (its
/// doubles it reads in place already), made on first use: `None`, said, where it cannot
/// be (linked to its next stage, a double the shader cannot read in place, no free
/// Location, the driver).
pub(crate) fn refetched_vertex(
    dev: &DeviceData,
    record: &VertexObjectRecord,
    key: &VariantKey,
) -> Option<Arc<ObjectVariant>> {
    made_once(&record.refetched, key, || {
        vertex_object_again(dev, record, key)
            .inspect(|_| {
                log::info!(
                    "vkCmdSetVertexInputEXT: vertex shader object made again to read the vertex \
                     attributes {:?} (Location, format, byte by byte)",
                    key.refetched
                )
            })
            .inspect_err(|why| {
                log::error!(
                    "vkCmdSetVertexInputEXT: the vertex shader object cannot be made again to \
                     read the vertex attributes {:?} (Location, format, byte by byte): {why}; \
                     they go down as they are",
                    key.refetched
                )
            })
            .ok()
    })
}

fn vertex_object_again(
    dev: &DeviceData,
    record: &VertexObjectRecord,
    key: &VariantKey,
) -> Result<ObjectVariant, ObjectError> {
    let mut attributes = Vec::new();
    for &(location, format, bytes) in &key.refetched {
        let Some((_, format)) = vertex_format(format) else {
            continue;
        };
        match (format.bits == 64, bytes) {
            // Read in place by the object as the application's is.
            (true, false) => continue,
            (true, true) => return Err(ObjectError::UnalignedDouble(location)),
            _ => attributes.push(RefetchedAttribute {
                location,
                format,
                offsets_fit: true,
                fetch_locations: Vec::new(),
                fetch: match bytes {
                    true => Fetch::Pieces { bits: 8, lead: 0 },
                    false => Fetch::Chunks,
                },
            }),
        }
    }
    let rebuilt: Vec<u32> = attributes.iter().map(|a| a.location).collect();
    let mut taken =
        occupied_input_locations(&record.words, &record.entry, &rebuilt).unwrap_or_default();
    taken.extend(&key.kept);
    assign_locations(
        &mut attributes,
        &taken,
        dev.limits.max_vertex_input_attributes,
    )
    .map_err(|i| ObjectError::NoRoom(attributes[i].location))?;
    let words = match refetch_vertex_inputs(&record.words, &record.entry, &attributes) {
        Ok(Some(words)) => words,
        Ok(None) => return Err(ObjectError::NothingRead),
        Err(e) => return Err(ObjectError::Pass(e.to_string().into())),
    };
    let create = dev
        .table
        .create_shaders_ext
        .ok_or(ObjectError::MissingCommand("vkCreateShadersEXT"))?;
    // The vertex shader, then the rest of its linked set as the driver got them: made
    // together, linked as they were.
    let own = LinkedObject {
        shader: vk::ShaderEXT::null(),
        stage: S::VERTEX,
        next_stage: record.next_stage,
        flags: record.flags,
        words: words.into(),
        entry: record.entry.clone(),
        set_layouts: record.set_layouts.clone(),
        ranges: record.ranges.clone(),
        specialization: record.specialization.clone(),
    };
    let set: Vec<&LinkedObject> = std::iter::once(&own).chain(&record.linked_set).collect();
    let names = set
        .iter()
        .map(|o| std::ffi::CString::new(o.entry.as_str()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ObjectError::NothingRead)?;
    let specializations: Vec<Option<vk::SpecializationInfo<'_>>> = set
        .iter()
        .map(|o| {
            o.specialization.as_ref().map(|(entries, data)| {
                vk::SpecializationInfo::default()
                    .map_entries(entries)
                    .data(data)
            })
        })
        .collect();
    let infos: Vec<vk::ShaderCreateInfoEXT<'_>> = set
        .iter()
        .zip(&names)
        .zip(&specializations)
        .map(|((o, name), spec)| vk::ShaderCreateInfoEXT {
            flags: o.flags,
            stage: o.stage,
            next_stage: o.next_stage,
            code_type: vk::ShaderCodeTypeEXT::SPIRV,
            code_size: o.words.len() * 4,
            p_code: o.words.as_ptr().cast(),
            p_name: name.as_ptr(),
            set_layout_count: o.set_layouts.len() as u32,
            p_set_layouts: o.set_layouts.as_ptr(),
            push_constant_range_count: o.ranges.len() as u32,
            p_push_constant_ranges: o.ranges.as_ptr(),
            p_specialization_info: spec.as_ref().map_or(std::ptr::null(), |s| s as *const _),
            ..Default::default()
        })
        .collect();
    let mut shaders = vec![vk::ShaderEXT::null(); infos.len()];
    // SAFETY: the device the layer recorded; create infos whose pointers live for the call;
    // one handle per info.
    let result = unsafe {
        create(
            dev.handle,
            infos.len() as u32,
            infos.as_ptr(),
            std::ptr::null(),
            shaders.as_mut_ptr(),
        )
    };
    if result != vk::Result::SUCCESS {
        if let Some(destroy) = dev.table.destroy_shader_ext {
            for &shader in shaders.iter().filter(|s| **s != vk::ShaderEXT::null()) {
                // SAFETY: an object this call made, used by nothing.
                unsafe { destroy(dev.handle, shader, std::ptr::null()) };
            }
        }
        return Err(ObjectError::Driver(result));
    }
    Ok(ObjectVariant {
        shader: shaders[0],
        refetch: RefetchVertexInputs {
            attributes,
            kept: key.kept.clone(),
        },
        linked: set[1..]
            .iter()
            .map(|o| o.stage)
            .zip(shaders[1..].iter().copied())
            .collect(),
    })
}

/// Destroys the geometry and vertex shader objects the layer made for a vertex shader
/// object.
pub(crate) fn destroy_generated(dev: &DeviceData, record: &VertexObjectRecord) {
    if let Some(destroy) = dev.table.destroy_shader_ext {
        let refetched = record.refetched.lock().drain(..).collect::<Vec<_>>();
        let made_again = refetched.into_iter().filter_map(|(_, v)| v).flat_map(|v| {
            let linked: Vec<_> = v.linked.iter().map(|&(_, s)| s).collect();
            std::iter::once(v.shader).chain(linked)
        });
        let generated = record.generated.lock().drain().collect::<Vec<_>>();
        for shader in generated.into_iter().map(|(_, s)| s).chain(made_again) {
            // SAFETY: the layer made it on this device and hands it out to nobody; command
            // buffers that bound it are done with it when the application destroys the
            // vertex shader they bound it with.
            unsafe { destroy(dev.handle, shader, std::ptr::null()) };
        }
    }
}

/// A shader object of the layer's (a generated TCS or geometry shader) for `(stage,
/// next_stage)`, with the set layouts and push-constant ranges of the application's shader
/// it serves, so that the layouts the application binds stay compatible.
pub(crate) fn generated_object(
    dev: &DeviceData,
    (stage, next_stage): (vk::ShaderStageFlags, vk::ShaderStageFlags),
    words: &[u32],
    set_layouts: &[vk::DescriptorSetLayout],
    ranges: &[vk::PushConstantRange],
) -> Result<vk::ShaderEXT, ObjectError> {
    let create = dev
        .table
        .create_shaders_ext
        .ok_or(ObjectError::MissingCommand("vkCreateShadersEXT"))?;
    let ci = vk::ShaderCreateInfoEXT {
        stage,
        next_stage,
        code_type: vk::ShaderCodeTypeEXT::SPIRV,
        code_size: words.len() * 4,
        p_code: words.as_ptr().cast(),
        p_name: c"main".as_ptr(),
        set_layout_count: set_layouts.len() as u32,
        p_set_layouts: set_layouts.as_ptr(),
        push_constant_range_count: ranges.len() as u32,
        p_push_constant_ranges: ranges.as_ptr(),
        ..Default::default()
    };
    let mut shader = vk::ShaderEXT::null();
    // SAFETY: the device the layer recorded; a valid create info.
    match unsafe { create(dev.handle, 1, &ci, std::ptr::null(), &mut shader) } {
        vk::Result::SUCCESS => Ok(shader),
        e => Err(ObjectError::Driver(e)),
    }
}

/// The geometry shader object drawing `key` after `record`'s vertex shader.
fn generated_gs(
    dev: &DeviceData,
    record: &VertexObjectRecord,
    key: PrimitiveGsKey,
) -> Result<vk::ShaderEXT, GsError> {
    let mut generated = record.generated.lock();
    if let Some(&shader) = generated.get(&key) {
        return Ok(shader);
    }
    let words = build_primitive_gs(&record.words, &record.entry, &key)
        .map_err(|e| GenerationError::Pass(e.to_string().into()))?;
    let shader = generated_object(
        dev,
        (S::GEOMETRY, S::FRAGMENT),
        &words,
        &record.set_layouts,
        &record.ranges,
    )?;
    log::info!(
        "generated geometry shader object for GL's {:?} ({:?})",
        key.primitive,
        key.rasterized
    );
    generated.insert(key, shader);
    Ok(shader)
}

/// After the mode, the shaders or the polygon mode of `cb` changed: binds (or unbinds) the
/// layer's geometry shader and sets the topology that draws the mode.
pub(crate) fn update(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>) {
    let (Some(bind), Some(set_topology)) = (
        dev.table.cmd_bind_shaders_ext,
        dev.table.cmd_set_primitive_topology,
    ) else {
        return;
    };
    let (mode, vertex, app_gs, layer_gs, rasterized, provoking_last) = {
        let mut cbs = dev.records.command_buffers.lock();
        let s = CommandBufferState::of(&mut cbs, cb.handle());
        let mode = gl_mode_of(s.primitives.mode);
        s.pipeline.primitives.line_loop = mode == Some(GlMode::LineLoop);
        (
            mode,
            s.vertex_object,
            s.primitives.app_geometry_object,
            s.primitives.layer_geometry_object,
            s.primitives.polygon_mode,
            s.provoking_last,
        )
    };
    let unbind = || {
        let null = vk::ShaderEXT::null();
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state (the
        // application's call).
        unsafe { bind(cb.handle(), 1, &S::GEOMETRY, &null) };
        CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle())
            .primitives
            .layer_geometry_object = false;
    };
    let set = |topology: Option<vk::PrimitiveTopology>| {
        CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle())
            .primitives
            .gl_topology = topology;
        if let Some(topology) = topology {
            // SAFETY: a live command buffer (a `Dispatchable`) in the recording state (the
            // application's call) with shader objects bound, whose topology is dynamic
            // state; the topology is of the class the bound shaders draw.
            unsafe { set_topology(cb.handle(), topology) }
        }
    };
    let primitive = match mode {
        Some(GlMode::Primitive(p)) => p,
        Some(GlMode::LineLoop) => {
            dev.records.line_loop_objects.store(true, Ordering::Relaxed);
            if dev.draws.loops.index_buffer(dev).is_none() {
                log::error!("GL_LINE_LOOP: no memory for the closing index buffer");
            }
            if layer_gs {
                unbind();
            }
            set(Some(topology_for(GlMode::LineLoop)));
            return;
        }
        None => {
            if layer_gs {
                unbind();
            }
            set(None);
            return;
        }
    };
    if app_gs {
        log::error!(
            "vkCmdSetPrimitiveModeGLSEM: GL's {primitive:?} with a geometry shader object \
             bound; GL refuses it, and the layer draws the topology as it is"
        );
        return;
    }
    let record = dev.records.vertex_objects.read().get(&vertex).cloned();
    let Some(record) = record.filter(|r| !r.linked) else {
        if vertex != vk::ShaderEXT::null() {
            log::error!(
                "vkCmdSetPrimitiveModeGLSEM: GL's {primitive:?} with a vertex shader object \
                 the layer cannot draw them after (linked, or not seen created)"
            );
        }
        return;
    };
    let on = |semantic| dev.settings.semantics.contains(semantic);
    let key = PrimitiveGsKey {
        primitive,
        rasterized,
        // The mode set last in the command buffer, else the one the layer sets at bind.
        provoking_last: provoking_last.unwrap_or(
            dev.conventions.provoking_vertex.behind_the_application
                && on(Semantic::ProvokingVertex),
        ),
        point_size: dev.features.tess_geom_point_size,
        // Cull mode and front face are dynamic state: lines and points of GL's modes are
        // not culled with shader objects (docs/semantics.md).
        culling: None,
        layer_copy: record.layer_copy,
        // Shader objects keep the driver's lines.
        route_copy: None,
    };
    match generated_gs(dev, &record, key) {
        Ok(shader) => {
            // SAFETY: a live command buffer (a `Dispatchable`) in the recording state (the
            // application's call).
            unsafe { bind(cb.handle(), 1, &S::GEOMETRY, &shader) };
            CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle())
                .primitives
                .layer_geometry_object = true;
            set(Some(topology_for(GlMode::Primitive(primitive))));
        }
        Err(why) => {
            log::error!("vkCmdSetPrimitiveModeGLSEM: GL's {primitive:?} cannot be drawn: {why}")
        }
    }
}

/// `vkCmdSetPrimitiveModeGLSEM` (`include/vk_glsem.h`): GL's primitive mode for the shader
/// objects drawn next.
///
/// # Safety
/// A command buffer of a device with the extension enabled, in the recording state.
pub unsafe extern "system" fn cmd_set_primitive_mode(command_buffer: vk::CommandBuffer, mode: u32) {
    const WHAT: &str = "vkCmdSetPrimitiveModeGLSEM";
    // SAFETY: a live command buffer (this command's contract).
    let command_buffer = unsafe { Dispatchable::new(command_buffer) };
    ffi_guard(WHAT, (), || {
        let Some(dev) = device_data(command_buffer) else {
            return;
        };
        let mode = PrimitiveMode(mode);
        if mode != PrimitiveMode::NONE && gl_mode_of(mode).is_none() {
            log::error!(
                "{WHAT}: {:#x} is not a GL primitive mode the layer draws",
                mode.0
            );
            return;
        }
        if !draws_primitive_modes(&dev) {
            log::error!("{WHAT}: the device has no geometryShader; GL's mode is not drawn");
            return;
        }
        CommandBufferState::of(
            &mut dev.records.command_buffers.lock(),
            command_buffer.handle(),
        )
        .primitives
        .mode = mode;
        update(&dev, command_buffer);
    })
}

/// After `vkCmdSetProvokingVertexModeEXT` (the mode that went down): the geometry shader of
/// a polygon follows it where shader objects draw GL's modes.
pub(crate) fn follow_provoking_mode(command_buffer: Dispatchable<vk::CommandBuffer>, last: bool) {
    follow_change(command_buffer, |s| {
        let changed = s.provoking_last != Some(last);
        s.provoking_last = Some(last);
        changed
    });
}

/// Records a change of state (`record` says whether the recorded value changed) and, where
/// one of the layer's geometry shader objects or a pipeline with polygon-mode variants is
/// bound, binds the one the new state needs.
fn follow_change(
    command_buffer: Dispatchable<vk::CommandBuffer>,
    record: impl FnOnce(&mut CommandBufferState) -> bool,
) {
    // Recorded on every device with `VK_GLSEM_gl_state`: the index route's pattern follows
    // the provoking vertex mode too (`primitive_indices`).
    let Some(dev) = device_data(command_buffer).filter(|d| d.extensions.gl_state) else {
        return;
    };
    let (rebind, variants) = {
        let mut cbs = dev.records.command_buffers.lock();
        let s = CommandBufferState::of(&mut cbs, command_buffer.handle());
        let changed = record(s);
        (
            changed && s.primitives.layer_geometry_object,
            changed && s.primitives.variants.is_some(),
        )
    };
    if rebind && draws_primitive_modes(&dev) {
        update(&dev, command_buffer);
    }
    if variants {
        bind_polygon_mode_variant(&dev, command_buffer);
    }
}

/// GL's primitive modes at `vkCmdBindPipeline`: the polygon-mode variant the mode set
/// last draws with, and the topology of a mode drawn under a dynamic one.
pub(crate) struct PrimitiveState;

impl BindRule for PrimitiveState {
    /// The pipeline's polygon-mode variants, and the topology the layer sets.
    type Taken = (Option<PolygonModeVariants>, Option<vk::PrimitiveTopology>);
    /// Whether a variant may be bound in its place, and that topology.
    type Then = (bool, Option<vk::PrimitiveTopology>);

    fn take(r: &PipelineRecord) -> Self::Taken {
        (r.primitives.polygon_variants, r.primitives.gl_topology)
    }

    fn bind(
        at: &Bind<'_>,
        (variants, topology): Self::Taken,
        state: &mut CommandBufferState,
    ) -> Self::Then {
        state.primitives.variants = variants.map(|variants| BoundVariants {
            app: at.pipeline,
            variants,
            down: at.pipeline,
        });
        state.primitives.gl_topology = topology;
        (variants.is_some(), topology)
    }

    fn then(at: &Bind<'_>, (variants, topology): Self::Then) {
        let (dev, cb) = (at.dev, at.cb);
        if variants {
            bind_polygon_mode_variant(dev, cb);
        }
        if let (Some(topology), Some(set)) = (topology, dev.table.cmd_set_primitive_topology) {
            // SAFETY: a live command buffer (a `Dispatchable`) in the recording state with a
            // pipeline bound whose topology is dynamic state.
            unsafe { set(cb.handle(), topology) };
        }
    }
}

/// Where the bound pipeline draws GL's quads under a dynamic polygon mode, binds the one of
/// its variants that draws them as the mode set last rasterizes them (the pipeline itself
/// while it fills them), when that is not the one the driver has. The variants share the
/// pipeline's layout and dynamic state, so what is bound and set stays.
fn bind_polygon_mode_variant(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>) {
    let Some(bind) = dev.table.cmd_bind_pipeline else {
        return;
    };
    let swap = {
        let mut cbs = dev.records.command_buffers.lock();
        let s = CommandBufferState::of(&mut cbs, cb.handle());
        let polygon_mode = s.primitives.polygon_mode;
        s.primitives.variants.as_mut().and_then(|bound| {
            let wanted = bound.variants.for_mode(bound.app, polygon_mode);
            (wanted != bound.down).then(|| {
                bound.down = wanted;
                wanted
            })
        })
    };
    if let Some(pipeline) = swap {
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state; a pipeline
        // the layer made from the bound one's create info, alive while that one is.
        unsafe { bind(cb.handle(), vk::PipelineBindPoint::GRAPHICS, pipeline) };
    }
}

command_hook! {
    /// `vkCmdSetPolygonModeEXT`: the geometry shader of GL's quads draws their edges or
    /// corners itself (a shader object's, or a pipeline variant's).
    "vkCmdSetPolygonModeEXT",
    fn cmd_set_polygon_mode[cmd_set_polygon_mode_ext](command_buffer, polygon_mode: vk::PolygonMode),
    then |()| {
        shield("vkCmdSetPolygonModeEXT", || {
            let rasterized = match polygon_mode {
                vk::PolygonMode::LINE => Rasterized::Lines,
                vk::PolygonMode::POINT => Rasterized::Points,
                _ => Rasterized::Fill,
            };
            follow_change(command_buffer, |s| {
                let changed = s.primitives.polygon_mode != rasterized;
                s.primitives.polygon_mode = rasterized;
                changed
            });
            follow_drawn(command_buffer, |d| d.polygon_mode = polygon_mode);
        });

    }
}

command_hook! {
    /// `vkCmdSetPrimitiveTopology` (devices with `VK_GLSEM_gl_state`): while a pipeline with a
    /// dynamic topology or shader objects draw GL's primitive mode, the topology that draws it
    /// goes down in place of the application's.
    "vkCmdSetPrimitiveTopology",
    fn cmd_set_primitive_topology(command_buffer, topology: vk::PrimitiveTopology),
    calls_down |next, ()| {
        // One lock: GL's topology, and the block's FLAG_LINES that follows what is drawn.
        let (drawn, repush) = shield("vkCmdSetPrimitiveTopology", || {
            let dev = device_data(command_buffer)?;
            let (drawn, changed) = {
                let mut cbs = dev.records.command_buffers.lock();
                let state = CommandBufferState::of(&mut cbs, command_buffer.handle());
                let drawn = state.primitives.gl_topology.unwrap_or(topology);
                (drawn, drawn_changed(&dev, state, |d| d.topology = drawn))
            };
            Some((drawn, changed.map(|c| (dev, c))))
        })
        .flatten()
        .unwrap_or((topology, None));
        // SAFETY: the application's arguments, or the topology of the same class the bound
        // pipeline or shaders were made for.
        unsafe { next(command_buffer.handle(), drawn) };
        if let Some((dev, (at, values))) = repush {
            push(&dev, command_buffer, at, &values);
        }
    }
}
