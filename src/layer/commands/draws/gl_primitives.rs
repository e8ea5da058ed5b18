//! GL's primitive modes at record and draw time (the creation side is
//! `rules/primitive_mode.rs`): shader objects, whose mode is command-buffer state; GL's line
//! loops closed after each draw; GL's quads, quad strips and polygons drawn from the layer's
//! indices on the index route.
//!
//! ## Shader objects
//!
//! GL's primitive modes with shader objects (`vkCmdSetPrimitiveModeGLSEM`): shader objects
//! have no input-assembly state, so the mode is command-buffer state. While it names quads,
//! quad strips or polygons and an unlinked vertex shader object the layer saw created is
//! bound without a geometry shader of the application's, the layer binds the geometry
//! shader object that draws the mode (generated from that vertex shader, made on first use
//! and kept with it) and sets the topology it reads; for line loops it sets a line strip
//! and closes non-indexed draws (below). Mode, shaders and polygon mode are followed
//! when they change, not per draw. The application sets the topology before the mode: the
//! layer's topology holds until the application sets another.
//!
//! ## Line loops
//!
//! GL's line loops (`GL_LINE_LOOP` through `VkPipelinePrimitiveModeCreateInfoGLSEM`): the
//! pipeline draws a line strip, and after each non-indexed draw of one the layer draws the
//! closing segment from the last vertex back to the first, as an indexed draw of two
//! indices `(n - 1, 0)` offset by the draw's first vertex, from an index buffer of the
//! layer's that holds every such pair. The application's index buffer binding is put back
//! afterwards. Instancing, `gl_VertexID` and the base instance are the draw's own.
//!
//! Indexed and indirect draws of a line loop depend on the application's indices or
//! parameters: they are closed on the GPU (`converted_draws`). A closing segment of a
//! non-indexed draw is a draw of its own, so GL's line pattern starts over on it (GL
//! continues it).
//!
//! ## The index route
//!
//! GL's quads, quad strips and polygons without a geometry shader (the index route: a
//! device without `geometryShader`, or `primitive_mode_route = indices`): the pipeline
//! draws a triangle, line or point list (`rules/primitive_mode.rs`), and each `vkCmdDraw`
//! of it is replaced by an indexed draw of the mode's pattern
//! ([`IndexedPrimitive::indices`]) from an index buffer of the layer's, offset by the
//! draw's first vertex, with the draw's instances and base instance. A polygon drawn as
//! lines gets its closing edge from the line loops' pair buffer. The application's index
//! buffer binding is put back afterwards.
//!
//! Indexed and indirect draws depend on the application's indices or parameters: they are
//! converted on the GPU (`converted_draws`, primitive restart included); where the layer
//! cannot, they are not drawn (never drawn as something else), and the layer says so once
//! per device with a `glsem: error:` line.

use ash::vk;
use spirv::{Decoration, ExecutionModel, StorageClass};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::layer::commands::draws::converted_draws::{
    self, bind_index_buffer_again, draw_converted, Conversion, GpuDraw,
};
use crate::layer::commands::draws::rule::{Cb, Draw, DrawRule};
use crate::layer::commands::gl_state_block::{drawn_changed, follow_drawn, push};
use crate::layer::data::dynamic_inputs::{made_once, ObjectVariant, VariantKey};
use crate::layer::data::layer_memory::{LoopIndices, PrimitiveIndices};
use crate::layer::data::primitives::{BoundVariants, CommandBufferPrimitives, PolygonModeVariants};
use crate::layer::data::records::{
    CommandBufferState, LinkedObject, PipelineRecord, Specialization, VertexObjectRecord,
};
use crate::layer::data::vertex_formats::vertex_format;
use crate::layer::loader::frames::{command_hook, ffi_guard, shield};
use crate::layer::loader::host_memory::{destroy_chunk, new_host_buffer};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::ShaderView;
use crate::layer::rules::layer_step::{Bind, BindRule};
use crate::layer::rules::{gl_mode_of, topology_for, GsError};
use crate::layer::support::error::{GenerationError, ObjectError};
use crate::layer::support::ffi::slice;
use crate::layer::support::log;
use glsem_abi::PrimitiveMode;
use glsem_spirv::module::Module;
use glsem_spirv::primitive_mode::{
    build_primitive_gs, IndexedPrimitive, PrimitiveGsKey, Rasterized,
};
use glsem_spirv::semantics::{GlMode, Semantic};
use glsem_spirv::vertex_formats::{
    assign_locations, occupied_input_locations, refetch_vertex_inputs, Fetch, RefetchVertexInputs,
    RefetchedAttribute,
};

type S = vk::ShaderStageFlags;

/// Whether the device may draw GL's primitive modes with shader objects.
pub(crate) fn draws_gl_primitives(dev: &DeviceData) -> bool {
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
        let mode = s.primitives.gl_mode;
        s.pipeline.primitives.closes_loops = s.primitives.closes_loops();
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
            dev.records
                .closed_loop_objects
                .store(true, Ordering::Relaxed);
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
        if !draws_gl_primitives(&dev) {
            log::error!("{WHAT}: the device has no geometryShader; GL's mode is not drawn");
            return;
        }
        CommandBufferState::of(
            &mut dev.records.command_buffers.lock(),
            command_buffer.handle(),
        )
        .primitives
        .gl_mode = gl_mode_of(mode);
        update(&dev, command_buffer);
    })
}

impl CommandBufferPrimitives {
    /// Whether the shader objects drawn next draw GL's line loops.
    pub(crate) fn closes_loops(&self) -> bool {
        self.gl_mode == Some(GlMode::LineLoop)
    }
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
    // the provoking vertex mode too.
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
    if rebind && draws_gl_primitives(&dev) {
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

/// The longest loop closed: the index buffer holds a pair per vertex count up to it (512
/// KiB); longer loops stay open, and the layer says so.
const MAX_CLOSED_VERTICES: u32 = 1 << 16;

// `LoopIndices` is a device's data (in `data/layer_memory.rs`, beside the other memory the layer
// owns); what needs the device's table is here.

impl LoopIndices {
    /// The closing index buffer, made on first use (`None`: no memory for it).
    pub fn index_buffer(&self, dev: &DeviceData) -> Option<vk::Buffer> {
        let mut made = self.buffer.lock();
        let chunk = made.get_or_insert_with(|| {
            let bytes = u64::from(MAX_CLOSED_VERTICES) * 8;
            let chunk = new_host_buffer(dev, bytes, vk::BufferUsageFlags::INDEX_BUFFER)?;
            // Pair k holds (k, 0): the closing segment of a loop of k + 1 vertices.
            let pairs: Vec<u32> = (0..MAX_CLOSED_VERTICES).flat_map(|k| [k, 0]).collect();
            // SAFETY: the chunk's mapping is `bytes` long, host-coherent, and unused yet.
            unsafe {
                std::ptr::copy_nonoverlapping(pairs.as_ptr(), chunk.mapped as *mut u32, pairs.len())
            };
            Some(chunk)
        });
        chunk.as_ref().map(|c| c.buffer)
    }

    /// Destroys the index buffer (the device is going).
    pub fn destroy(&self, dev: &DeviceData) {
        if let Some(Some(chunk)) = self.buffer.lock().take() {
            destroy_chunk(dev, chunk);
        }
    }

    fn warn_open(&self, why: &str) {
        if !self.open_warned.swap(true, Ordering::Relaxed) {
            log::warning!(
                "GL_LINE_LOOP: {why}; the loop is drawn open (without its closing segment). \
                 Said once per device."
            );
        }
    }
}

/// GL's line loops at draw time: each draw of a line-loop pipeline closed.
pub(crate) struct ClosedLoops;

impl DrawRule for ClosedLoops {
    type Before = ();

    /// The device has made a line-loop pipeline or drawn line loops with shader objects.
    fn armed(dev: &DeviceData) -> bool {
        dev.records.closed_loop_pipelines.load(Ordering::Relaxed) != 0
            || dev.records.closed_loop_objects.load(Ordering::Relaxed)
    }

    /// An indexed or indirect draw: closed on the GPU ([`close_on_gpu`]); a `vkCmdDraw`
    /// with GL's stipple on: drawn whole as one strip ([`draw_stippled_loop`]).
    fn replace(what: &'static str, cb: Cb, draw: &Draw, (): ()) -> bool {
        match *draw {
            Draw::Gpu(gpu) => close_on_gpu(what, cb, gpu),
            Draw::Direct(direct) => shield(what, || {
                let dev = device_data(cb)?;
                let stippled = {
                    let mut cbs = dev.records.command_buffers.lock();
                    let state = CommandBufferState::of(&mut cbs, cb.handle());
                    state.pipeline.primitives.closes_loops && state.lines.stipple.enabled
                };
                Some(stippled && draw_stippled_loop(&dev, cb, direct))
            })
            .flatten()
            .unwrap_or(false),
        }
    }

    /// `vkCmdDraw`: the closing segment drawn after it ([`close`]).
    fn after(what: &'static str, cb: Cb, draw: &Draw) {
        let Draw::Direct(direct) = *draw else {
            return;
        };
        shield(what, || {
            let Some(dev) = device_data(cb) else {
                return;
            };
            if line_loop_bound(&dev, cb) {
                close(&dev, cb, direct);
            }
        });
    }
}

/// Whether a line-loop pipeline is bound to `cb`.
fn line_loop_bound(dev: &DeviceData, cb: Cb) -> bool {
    CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle())
        .pipeline
        .primitives
        .closes_loops
}

/// Draws the closing segment of the loop the application's `vkCmdDraw` just drew.
fn close(dev: &DeviceData, cb: Cb, draw: [u32; 4]) {
    let [vertex_count, instance_count, first_vertex, first_instance] = draw;
    if vertex_count < 2 || instance_count == 0 {
        return;
    }
    if vertex_count > MAX_CLOSED_VERTICES {
        dev.draws.loops.warn_open(&format!(
            "a draw of {vertex_count} vertices is longer than the {MAX_CLOSED_VERTICES} the \
             layer closes"
        ));
        return;
    }
    let Some(buffer) = dev.draws.loops.index_buffer(dev) else {
        return;
    };
    let closing = LayerIndices {
        buffer,
        count: 2,
        first: 2 * (vertex_count - 1),
        vertex_offset: first_vertex as i32,
    };
    draw_layer_indices(dev, cb, &[closing], instance_count, first_instance);
}

/// Draws the loop of the application's `vkCmdDraw` (`draw`) as one strip, its first vertex
/// again at its end, from indices of the layer's written for it: GL's stipple counts on
/// over the closing segment, which a draw of its own would start again (Vulkan's stippled
/// lines restart at each draw). False where the layer cannot (no memory): the closing
/// segment is then drawn after the application's draw.
fn draw_stippled_loop(dev: &DeviceData, cb: Cb, draw: [u32; 4]) -> bool {
    let [vertex_count, instance_count, first_vertex, first_instance] = draw;
    if !(2..=MAX_CLOSED_VERTICES).contains(&vertex_count) || instance_count == 0 {
        return false;
    }
    let indices: Vec<u32> = (0..vertex_count).chain([0]).collect();
    let bytes = indices.len() as u64 * 4;
    let Some(chunk) = new_host_buffer(dev, bytes, vk::BufferUsageFlags::INDEX_BUFFER) else {
        return false;
    };
    // SAFETY: the chunk's mapping is `bytes` long, host-coherent, and unused yet.
    unsafe {
        std::ptr::copy_nonoverlapping(indices.as_ptr(), chunk.mapped as *mut u32, indices.len())
    };
    let strip = LayerIndices {
        buffer: chunk.buffer,
        count: indices.len() as u32,
        first: 0,
        vertex_offset: first_vertex as i32,
    };
    // Kept until the command buffer is reset or freed.
    CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle())
        .conversions
        .chunks
        .push(chunk);
    draw_layer_indices(dev, cb, &[strip], instance_count, first_instance);
    true
}

/// An indexed or indirect draw (`what`) of a bound line-loop pipeline: drawn by the layer
/// with its loops closed (true: the application's draw must not go down), or, where the
/// layer cannot, left to be drawn open, said once.
fn close_on_gpu(what: &str, cb: Cb, draw: GpuDraw) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        if !line_loop_bound(&dev, cb) {
            return None;
        }
        match converted_draws::draw_converted(&dev, cb, draw, Conversion::Loops) {
            Ok(()) => Some(()),
            Err(why) => {
                dev.draws
                    .loops
                    .warn_open(&format!("{what} cannot be closed: {why}"));
                None
            }
        }
    })
    .flatten()
    .is_some()
}

/// The first buffer of a pattern serves draws of up to this many vertices; a longer draw
/// makes one of the next power of two.
const FIRST_VERTICES: u32 = 1 << 12;
/// The longest draw drawn (a quad strip drawn as lines takes 4 indices a vertex: 16 MiB).
const MAX_VERTICES: u32 = 1 << 20;

impl PrimitiveIndices {
    /// An index buffer of `p`'s pattern for a draw of `vertex_count` vertices, made (or
    /// grown) on first need; `None`: no memory for it, or a draw longer than the layer
    /// draws.
    pub fn buffer(
        &self,
        dev: &DeviceData,
        p: &IndexedPrimitive,
        vertex_count: u32,
    ) -> Option<vk::Buffer> {
        let needed = p.periods(vertex_count);
        let mut buffers = self.buffers.lock();
        let made = buffers.entry(*p).or_default();
        if let Some((held, chunk)) = made.last() {
            if *held >= needed {
                return Some(chunk.buffer);
            }
        }
        if vertex_count > MAX_VERTICES {
            return None;
        }
        let vertices = vertex_count
            .max(FIRST_VERTICES)
            .next_power_of_two()
            .min(MAX_VERTICES);
        let periods = p.periods(vertices);
        let indices = p.indices(periods);
        let bytes = (indices.len().max(1) * 4) as vk::DeviceSize;
        let chunk = new_host_buffer(dev, bytes, vk::BufferUsageFlags::INDEX_BUFFER)?;
        // SAFETY: the chunk's mapping is `bytes` long, host-coherent, and unused yet.
        unsafe {
            std::ptr::copy_nonoverlapping(indices.as_ptr(), chunk.mapped as *mut u32, indices.len())
        };
        let buffer = chunk.buffer;
        // The smaller buffers stay: draws recorded with them may be pending.
        made.push((periods, chunk));
        Some(buffer)
    }

    /// Destroys the index buffers (the device is going).
    pub fn destroy(&self, dev: &DeviceData) {
        for (_, made) in self.buffers.lock().drain() {
            for (_, chunk) in made {
                destroy_chunk(dev, chunk);
            }
        }
    }

    fn say_not_drawn(&self, why: &str) {
        if !self.skipped_said.swap(true, Ordering::Relaxed) {
            log::error!(
                "GL_QUADS, GL_QUAD_STRIP or GL_POLYGON without a geometry shader: {why}; the \
                 draw is skipped. Said once per device."
            );
        }
    }
}

/// GL's quads, quad strips and polygons on the index route at draw time: each draw of such
/// a pipeline replaced.
pub(crate) struct IndexRoute;

impl DrawRule for IndexRoute {
    type Before = ();

    /// The device has made a pipeline drawing GL's primitive mode on the index route.
    fn armed(dev: &DeviceData) -> bool {
        dev.records.gl_primitive_pipelines.load(Ordering::Relaxed) != 0
    }

    fn replace(what: &'static str, cb: Cb, draw: &Draw, (): ()) -> bool {
        match *draw {
            Draw::Direct(direct) => replace_draw(what, cb, direct),
            Draw::Gpu(gpu) => convert_draw(what, cb, gpu),
        }
    }
}

/// The pattern of the pipeline bound to `cb`, if it draws GL's primitive mode on the index
/// route, with the provoking vertex mode set last where it is dynamic state.
fn bound(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>) -> Option<IndexedPrimitive> {
    let mut cbs = dev.records.command_buffers.lock();
    let state = CommandBufferState::of(&mut cbs, cb.handle());
    let mut p = state.pipeline.primitives.gl_primitive?;
    if state.pipeline.primitives.provoking_dynamic {
        p.provoking_last = state.provoking_last.unwrap_or(p.provoking_last);
    }
    Some(p)
}

/// `vkCmdDraw`: where the bound pipeline draws GL's primitive mode on the index route,
/// draws it and returns true (the application's draw must not go down).
fn replace_draw(what: &str, cb: Cb, draw: [u32; 4]) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        let p = bound(&dev, cb)?;
        draw_indices(&dev, cb, p, draw);
        Some(())
    })
    .flatten()
    .is_some()
}

/// An indexed or indirect draw (`what`): where the bound pipeline draws GL's primitive mode
/// on the index route, draws its primitives converted on the GPU (`converted_draws`) and
/// returns true (the application's draw must not go down); where the layer cannot, the
/// draw is skipped, never drawn as something else, and the layer says why once.
fn convert_draw(what: &str, cb: Cb, draw: GpuDraw) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        let p = bound(&dev, cb)?;
        if let Err(why) = draw_converted(&dev, cb, draw, Conversion::Primitives(p)) {
            dev.draws
                .primitives
                .say_not_drawn(&format!("{what} cannot be converted: {why}"));
        }
        Some(())
    })
    .flatten()
    .is_some()
}

/// One indexed draw from an index buffer of the layer's (`UINT32` indices).
pub(crate) struct LayerIndices {
    pub buffer: vk::Buffer,
    pub count: u32,
    pub first: u32,
    pub vertex_offset: i32,
}

/// Draws `draws` with the application's instances, then binds the application's index
/// buffer back: the draws that close line loops and replace GL's quads.
pub(crate) fn draw_layer_indices(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    draws: &[LayerIndices],
    instance_count: u32,
    first_instance: u32,
) {
    let t = &dev.table;
    let (Some(bind), Some(draw_indexed)) = (t.cmd_bind_index_buffer, t.cmd_draw_indexed) else {
        return;
    };
    let restore =
        CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle()).index_buffer;
    // SAFETY: a live command buffer (a `Dispatchable`) recording a draw of a pipeline that
    // draws GL's primitive mode (the application's vkCmdDraw just went down, or is drawn in
    // its place); each buffer is the layer's, holding `count` indices from `first`; the
    // application's binding is put back after.
    unsafe {
        for d in draws {
            bind(cb.handle(), d.buffer, 0, vk::IndexType::UINT32);
            draw_indexed(
                cb.handle(),
                d.count,
                instance_count,
                d.first,
                d.vertex_offset,
                first_instance,
            );
        }
        bind_index_buffer_again(bind, cb, restore);
    }
}

/// Draws GL's primitives of the application's `vkCmdDraw` (`draw`: vertex count, instance
/// count, first vertex, first instance) as the layer's indexed draw.
fn draw_indices(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    p: IndexedPrimitive,
    draw: [u32; 4],
) {
    let [vertex_count, instance_count, first_vertex, first_instance] = draw;
    let count = p.index_count(vertex_count);
    if count == 0 || instance_count == 0 {
        return;
    }
    let (Some(buffer), Ok(count), Ok(vertex_offset)) = (
        dev.draws.primitives.buffer(dev, &p, vertex_count),
        u32::try_from(count),
        i32::try_from(first_vertex),
    ) else {
        dev.draws.primitives.say_not_drawn(&format!(
            "a draw of {vertex_count} vertices from vertex {first_vertex} is past what the \
             layer draws ({MAX_VERTICES} vertices, or no memory for its indices)"
        ));
        return;
    };
    let closing = match p.closing_edge() {
        true if vertex_count <= MAX_CLOSED_VERTICES => dev.draws.loops.index_buffer(dev),
        true => {
            dev.draws.primitives.say_not_drawn(&format!(
                "a polygon of {vertex_count} vertices drawn as lines is longer than the \
                 {MAX_CLOSED_VERTICES} the layer closes"
            ));
            return;
        }
        false => None,
    };
    let pattern = LayerIndices {
        buffer,
        count,
        first: 0,
        vertex_offset,
    };
    // A polygon drawn as lines: its closing edge from the line loops' pair buffer, pair
    // `vertex_count - 1` at index 2 * (vertex_count - 1).
    let closing = closing.map(|pairs| LayerIndices {
        buffer: pairs,
        count: 2,
        first: 2 * (vertex_count - 1),
        vertex_offset,
    });
    match closing {
        Some(closing) => {
            draw_layer_indices(dev, cb, &[pattern, closing], instance_count, first_instance)
        }
        None => draw_layer_indices(dev, cb, &[pattern], instance_count, first_instance),
    }
}
