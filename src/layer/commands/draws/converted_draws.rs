//! Draws converted on the GPU: GL's line loops, and GL's quads, quad strips and polygons on
//! the index route, drawn by `vkCmdDrawIndexed`, `vkCmdDrawIndirect` and
//! `vkCmdDrawIndexedIndirect` (`drawCount` > 1 and primitive restart included), whose
//! primitives depend on the application's indices or parameters; and the indirect draws
//! whose `firstInstance` the layer makes 0 (`gl_InstanceID` without `shaderDrawParameters`).
//!
//! Those are read where they are, on the GPU, in the command stream, after whatever wrote
//! them earlier (never mapped on the CPU): the layer ends the render pass instance
//! (`render_targets`), makes everything written before visible (one global barrier), runs
//! its compute shader (`shaders/converted_draws.comp`: per draw, the indices GL's mode
//! draws — a line strip with every loop closed and a restart after each, or the index
//! route's pattern per complete primitive — and the indirect command that draws them),
//! puts the application's compute bindings back, begins the instance again, and draws the
//! result with `vkCmdDrawIndexedIndirect` through the application's pipeline and state. The
//! application's index buffer binding is put back afterwards.
//!
//! To bind the application's index and indirect buffers as storage buffers (and copy
//! them), the layer adds `STORAGE_BUFFER` and `TRANSFER_SRC` to the usage of every buffer
//! made for indices or indirect commands on a device with `VK_GLSEM_gl_state`. The cost per
//! converted draw is a render pass break, a dispatch of one invocation per draw and two
//! barriers; draws of pipelines the layer converts nothing of cost nothing more (an atomic
//! load in the draw hooks). Limits: a draw longer than the output holds (`MAX_OUTPUT_BYTES`)
//! is cut short; where the instance cannot be ended and begun again (`render_targets`), or
//! the buffer was made before the device had the layer, a loop is drawn open, GL's quads are
//! not drawn, and the layer says why, once per device.

use ash::vk;

use crate::layer::commands::render_targets::{outside_render_pass, restore_compute};
use crate::layer::data::layer_memory::{Chunk, ConversionMemory, LayerCompute};
use crate::layer::data::records::{BoundIndexBuffer, CommandBufferState};
use crate::layer::loader::dispatch::let_next_commands;
use crate::layer::loader::frames::{command_hook, create_hook, destroy_hook, shield};
use crate::layer::loader::host_memory::{destroy_chunk, new_host_buffer};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use glsem_spirv::semantics::IndexedPrimitive;

/// The compute shader (`shaders/converted_draws.comp`, compiled by glslang).
const CONVERTED_DRAWS_SPV: &[u8] = include_bytes!("shaders/converted_draws.spv");
/// Its five storage buffers: parameters, the application's indices and indirect
/// commands, the indices and commands it writes.
const BINDINGS: u32 = 5;
/// Descriptor sets per pool of a command buffer.
const SETS_PER_POOL: u32 = 16;
/// The most output one converted draw command takes (indices and commands).
const MAX_OUTPUT_BYTES: u64 = 64 << 20;
/// The longest loop of a non-indexed indirect draw (its vertex count is GPU data).
const MAX_INDIRECT_VERTICES: u64 = 1 << 20;
/// `VkDrawIndexedIndirectCommand`.
const COMMAND_BYTES: u64 = 20;
/// The parameter block of `converted_draws.comp`.
const PARAMS_BYTES: u64 = 128;
const PARAMS: usize = 32;

/// What the layer draws of a draw it converts on the GPU.
#[derive(Debug, Clone, Copy)]
pub enum Conversion {
    /// GL's line loops: a line strip, every loop closed.
    Loops,
    /// GL's quads, quad strips or polygons: the pattern's list.
    Primitives(IndexedPrimitive),
}

/// A draw the layer converts on the GPU.
#[derive(Debug, Clone, Copy)]
pub enum GpuDraw {
    /// `vkCmdDrawIndexed`.
    Indexed {
        count: u32,
        instances: u32,
        first: u32,
        vertex_offset: i32,
        first_instance: u32,
    },
    /// `vkCmdDrawIndirect` (`indexed` false) or `vkCmdDrawIndexedIndirect`.
    Indirect {
        indexed: bool,
        buffer: vk::Buffer,
        offset: vk::DeviceSize,
        draw_count: u32,
        stride: u32,
    },
}

/// The shader's `kind` and `mode`.
const KIND_INDEXED: u32 = 0;
const KIND_INDIRECT: u32 = 1;
const KIND_INDEXED_INDIRECT: u32 = 2;
const MODE_LOOPS: u32 = 0;
const MODE_PRIMITIVES: u32 = 1;

/// Whether the indirect draws of the pipeline bound in `state` go down with `firstInstance`
/// 0: its vertex shader reads the base instance from the GL-state block (a device without
/// `shaderDrawParameters`), where indirect draws push 0, and it reads no instance-rate
/// attribute, which `firstInstance` would offset (`instance_id`'s indirect route).
pub(crate) fn zeroes_first_instance(state: &CommandBufferState) -> bool {
    let instanced = state.pipeline.instances.instance_rate.unwrap_or_else(|| {
        // Dynamic vertex input: the application's last `vkCmdSetVertexInputEXT`.
        state.dynamic_inputs.app_input.as_ref().is_none_or(|input| {
            input
                .bindings
                .iter()
                .any(|&(_, _, rate, _)| rate == vk::VertexInputRate::INSTANCE)
        })
    });
    state.pipeline.instances.base_from_block && !instanced
}

/// Whether `usage` makes a buffer the layer may read indices or commands from.
fn read_by_layer(usage: vk::BufferUsageFlags) -> bool {
    usage.intersects(vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::INDIRECT_BUFFER)
}

create_hook! {
    /// `vkCreateBuffer` (devices with `VK_GLSEM_gl_state`): a buffer of indices or indirect
    /// commands is also made a storage buffer and a transfer source, for the layer's compute
    /// shader to read and its copies.
    "vkCreateBuffer",
    fn create_buffer(device, p_create_info: vk::BufferCreateInfo<'_>, p_allocator, p_buffer: vk::Buffer),
    prepare: |dev| {
        // SAFETY: the application's valid create info (Vulkan's valid usage).
        let ci = unsafe { &*p_create_info };
        // A chained `VkBufferUsageFlags2CreateInfoKHR` would replace the usage: such a
        // buffer is left as it is.
        (dev.extensions.gl_state && read_by_layer(ci.usage) && ci.p_next.is_null())
            .then_some(ci.size)
    },
    call_down: |next, readable: Option<&Option<vk::DeviceSize>>| match readable {
        Some(Some(_)) => {
            // SAFETY: the application's valid create info (Vulkan's valid usage).
            let app = unsafe { *p_create_info };
            // Two more usage bits, which any buffer may have: read by the layer's compute
            // shader, or copied.
            let ci = vk::BufferCreateInfo {
                usage: app.usage
                    | vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_SRC,
                ..app
            };
            // SAFETY: the application's create info with two usage bits added.
            unsafe { next(device, &ci, p_allocator, p_buffer) }
        }
        // SAFETY: the next layer's command with the application's arguments.
        _ => unsafe { next(device, p_create_info, p_allocator, p_buffer) },
    },
    record: |dev, readable| {
        if let Some(size) = readable {
            // SAFETY: the driver wrote the handle on success.
            let buffer = unsafe { *p_buffer };
            dev.records.readable_buffers.write().insert(buffer, size);
        }
    },
}

destroy_hook!(
    /// `vkDestroyBuffer`.
    "vkDestroyBuffer", destroy_buffer(buffer: vk::Buffer), |dev| {
        if dev.extensions.gl_state {
            dev.records.readable_buffers.write().remove(&buffer);
        }
    }
);

command_hook! {
    /// `vkCmdSetPrimitiveRestartEnable` (and its EXT alias): followed, for the loops of
    /// pipelines whose restart is dynamic state.
    "vkCmdSetPrimitiveRestartEnable",
    fn cmd_set_primitive_restart_enable(command_buffer, enable: vk::Bool32),
    read |d| d.extensions.gl_state,
    then |gl_state| {
        if gl_state {
            shield("vkCmdSetPrimitiveRestartEnable", || {
                if let Some(dev) = device_data(command_buffer) {
                    let mut cbs = dev.records.command_buffers.lock();
                    CommandBufferState::of(&mut cbs, command_buffer.handle()).restart_enable =
                        enable != 0;
                }
            });
        }
    }
}

impl ConversionMemory {
    /// Gives the memory back (the command buffer is reset or freed: nothing pending uses
    /// it).
    pub fn release(&mut self, dev: &DeviceData) {
        for chunk in self.chunks.drain(..) {
            destroy_chunk(dev, chunk);
        }
        if let Some(destroy) = dev.table.destroy_descriptor_pool {
            for pool in self.pools.drain(..) {
                // SAFETY: a pool of the layer's, its sets used by no pending work.
                unsafe { destroy(dev.handle, pool, std::ptr::null()) };
            }
        }
        self.sets_left = 0;
    }

    /// A descriptor set of the converter's layout, from this command buffer's pools.
    fn allocate_set(
        &mut self,
        dev: &DeviceData,
        layout: vk::DescriptorSetLayout,
    ) -> Option<vk::DescriptorSet> {
        let t = &dev.table;
        let (Some(create_pool), Some(allocate)) =
            (t.create_descriptor_pool, t.allocate_descriptor_sets)
        else {
            return None;
        };
        if self.sets_left == 0 {
            let sizes = [vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: SETS_PER_POOL * BINDINGS,
            }];
            let info = vk::DescriptorPoolCreateInfo {
                max_sets: SETS_PER_POOL,
                pool_size_count: 1,
                p_pool_sizes: sizes.as_ptr(),
                ..Default::default()
            };
            let mut pool = vk::DescriptorPool::null();
            // SAFETY: a valid create info on the layer's device.
            let result = unsafe { create_pool(dev.handle, &info, std::ptr::null(), &mut pool) };
            if result != vk::Result::SUCCESS {
                return None;
            }
            self.pools.push(pool);
            self.sets_left = SETS_PER_POOL;
        }
        let info = vk::DescriptorSetAllocateInfo {
            descriptor_pool: *self.pools.last()?,
            descriptor_set_count: 1,
            p_set_layouts: &layout,
            ..Default::default()
        };
        let mut set = vk::DescriptorSet::null();
        // SAFETY: a pool of the layer's with a set left, and its live layout.
        let result = unsafe { allocate(dev.handle, &info, &mut set) };
        self.sets_left -= 1;
        (result == vk::Result::SUCCESS).then_some(set)
    }
}

/// The converter of `dev`, made on first use.
fn converter(dev: &DeviceData) -> Result<LayerCompute, &'static str> {
    *dev.draws
        .converter
        .lock()
        .get_or_insert_with(|| make_compute(dev, CONVERTED_DRAWS_SPV, BINDINGS))
}

/// A compute pipeline of `spv` (little-endian words) reading `bindings` storage buffers of
/// set 0.
pub(crate) fn make_compute(
    dev: &DeviceData,
    spv: &[u8],
    bindings: u32,
) -> Result<LayerCompute, &'static str> {
    const NO_COMMAND: &str = "the device lacks a command the layer's compute shader needs";
    let_next_commands!(dev.table => [
        create_shader_module,
        destroy_shader_module,
        create_descriptor_set_layout,
        create_pipeline_layout,
        create_compute_pipelines,
    ] else { return Err(NO_COMMAND) });
    let words: Vec<u32> = spv
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let bindings: Vec<_> = (0..bindings)
        .map(|binding| vk::DescriptorSetLayoutBinding {
            binding,
            descriptor_type: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: 1,
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            ..Default::default()
        })
        .collect();
    let mut compute = LayerCompute {
        set_layout: vk::DescriptorSetLayout::null(),
        layout: vk::PipelineLayout::null(),
        pipeline: vk::Pipeline::null(),
    };
    let mut module = vk::ShaderModule::null();
    // SAFETY: valid create infos on the layer's device, their arrays alive through each
    // call; the module is destroyed once the pipeline is made, the rest with the device
    // (or at once on failure).
    let made = unsafe {
        let module_info = vk::ShaderModuleCreateInfo {
            code_size: words.len() * 4,
            p_code: words.as_ptr(),
            ..Default::default()
        };
        let set_info = vk::DescriptorSetLayoutCreateInfo {
            binding_count: bindings.len() as u32,
            p_bindings: bindings.as_ptr(),
            ..Default::default()
        };
        let mut result = create_one(create_shader_module, dev, &module_info, &mut module);
        if result == vk::Result::SUCCESS {
            let set_layout = &mut compute.set_layout;
            result = create_one(create_descriptor_set_layout, dev, &set_info, set_layout);
        }
        if result == vk::Result::SUCCESS {
            let layout_info = vk::PipelineLayoutCreateInfo {
                set_layout_count: 1,
                p_set_layouts: &compute.set_layout,
                ..Default::default()
            };
            let layout = &mut compute.layout;
            result = create_one(create_pipeline_layout, dev, &layout_info, layout);
        }
        if result == vk::Result::SUCCESS {
            let info = vk::ComputePipelineCreateInfo {
                stage: vk::PipelineShaderStageCreateInfo {
                    stage: vk::ShaderStageFlags::COMPUTE,
                    module,
                    p_name: c"main".as_ptr(),
                    ..Default::default()
                },
                layout: compute.layout,
                ..Default::default()
            };
            result = create_compute_pipelines(
                dev.handle,
                vk::PipelineCache::null(),
                1,
                &info,
                std::ptr::null(),
                &mut compute.pipeline,
            );
        }
        destroy_shader_module(dev.handle, module, std::ptr::null());
        result == vk::Result::SUCCESS
    };
    if !made {
        destroy_compute(dev, compute);
        return Err("the driver did not make the layer's compute pipeline");
    }
    Ok(compute)
}

/// `create` (a `vkCreate*` of one object) on the layer's device `dev` with `info` and no
/// allocator, into `made`.
///
/// # Safety
/// `create` is a command of `dev`, and `info` is a valid create info for it.
unsafe fn create_one<I, H>(
    create: unsafe extern "system" fn(
        vk::Device,
        *const I,
        *const vk::AllocationCallbacks<'_>,
        *mut H,
    ) -> vk::Result,
    dev: &DeviceData,
    info: &I,
    made: &mut H,
) -> vk::Result {
    // SAFETY: a valid create info for a command of the device (this function's contract).
    unsafe { create(dev.handle, info, std::ptr::null(), made) }
}

/// Destroys `compute`'s objects (the device is going, or it was not made whole).
fn destroy_compute(dev: &DeviceData, compute: LayerCompute) {
    let t = &dev.table;
    // SAFETY: objects the layer made on this device, used by no pending work; NULL handles
    // are ignored.
    unsafe {
        if let Some(destroy) = t.destroy_pipeline {
            destroy(dev.handle, compute.pipeline, std::ptr::null());
        }
        if let Some(destroy) = t.destroy_pipeline_layout {
            destroy(dev.handle, compute.layout, std::ptr::null());
        }
        if let Some(destroy) = t.destroy_descriptor_set_layout {
            destroy(dev.handle, compute.set_layout, std::ptr::null());
        }
    }
}

/// Destroys the device's compute pipelines, those it made (the device is going).
pub fn destroy(dev: &DeviceData) {
    for made in [&dev.draws.converter, &dev.draws.stipple_counter] {
        if let Some(Ok(compute)) = made.lock().take() {
            destroy_compute(dev, compute);
        }
    }
}

fn align(at: u64, to: u64) -> u64 {
    at.div_ceil(to) * to
}

/// Bytes per index of `index_type` (`None`: a type the layer does not read).
pub(crate) fn index_bytes(index_type: vk::IndexType) -> Option<u32> {
    match index_type {
        vk::IndexType::UINT16 => Some(2),
        vk::IndexType::UINT32 => Some(4),
        vk::IndexType::UINT8_EXT => Some(1),
        _ => None,
    }
}

/// One of the application's buffers bound to the shader: from an offset the device's
/// alignment allows, as far as a storage buffer may reach; and where `at` lies in it.
pub(crate) fn app_binding(
    dev: &DeviceData,
    buffer: vk::Buffer,
    at: vk::DeviceSize,
) -> Result<(vk::DescriptorBufferInfo, u32), &'static str> {
    let size = *dev
        .records
        .readable_buffers
        .read()
        .get(&buffer)
        .ok_or("its buffer was not made readable by the layer (made with a usage chain)")?;
    let alignment = dev.limits.min_storage_buffer_offset_alignment.max(4);
    let base = at / alignment * alignment;
    let range = (size - base.min(size)).min(u64::from(dev.limits.max_storage_buffer_range));
    let inside = u32::try_from(at - base).map_err(|_| "an offset past the layer's reach")?;
    if range < 4 {
        return Err("an offset past the end of its buffer");
    }
    Ok((
        vk::DescriptorBufferInfo {
            buffer,
            offset: base,
            range,
        },
        inside,
    ))
}

/// What one conversion needs: its parameters, the application's buffers, its output.
struct Plan {
    params: [u32; PARAMS],
    app_indices: Option<vk::DescriptorBufferInfo>,
    app_commands: Option<vk::DescriptorBufferInfo>,
    draw_count: u32,
    capacity: u64,
}

/// The parameters of `conversion` (the shader's `mode` onwards).
fn mode_params(params: &mut [u32; PARAMS], conversion: Conversion) {
    use glsem_spirv::semantics::{GlPrimitive, Rasterized};
    let Conversion::Primitives(p) = conversion else {
        params[13] = MODE_LOOPS;
        return;
    };
    params[13] = MODE_PRIMITIVES;
    params[14] = match p.primitive {
        GlPrimitive::Quads => 0,
        GlPrimitive::QuadStrip => 1,
        GlPrimitive::Polygon => 2,
    };
    params[15] = match p.rasterized {
        Rasterized::Fill => 0,
        Rasterized::Lines => 1,
        Rasterized::Points => 2,
    };
    let pattern = p.period();
    params[16] = pattern.len() as u32;
    params[17..17 + pattern.len()].copy_from_slice(pattern);
    params[25] = p.stride();
}

/// The conversion of `draw` by the bound state of `cb`.
fn plan(
    dev: &DeviceData,
    draw: GpuDraw,
    conversion: Conversion,
    state: &CommandBufferState,
) -> Result<Plan, &'static str> {
    let restart = state
        .pipeline
        .primitives
        .restart
        .unwrap_or(state.restart_enable);
    let mut params = [0u32; PARAMS];
    params[3] = u32::from(restart);
    mode_params(&mut params, conversion);
    let indexed = !matches!(draw, GpuDraw::Indirect { indexed: false, .. });
    let mut app_indices = None;
    let mut max_indices = MAX_INDIRECT_VERTICES;
    if indexed {
        let BoundIndexBuffer {
            buffer,
            offset,
            index_type,
        } = state.index_buffer.ok_or("no index buffer is bound")?;
        let bytes = index_bytes(index_type).ok_or("its index type is not one the layer reads")?;
        let (info, inside) = app_binding(dev, buffer, offset)?;
        params[1] = bytes;
        params[2] = inside;
        max_indices = (info.range - u64::from(inside)) / u64::from(bytes);
        app_indices = Some(info);
    }
    let (draw_count, per_draw, app_commands) = match draw {
        GpuDraw::Indexed {
            count,
            instances,
            first,
            vertex_offset,
            first_instance,
        } => {
            params[0] = KIND_INDEXED;
            params[7..12].copy_from_slice(&[
                count,
                instances,
                first,
                vertex_offset as u32,
                first_instance,
            ]);
            (1, u64::from(count), None)
        }
        GpuDraw::Indirect {
            indexed,
            buffer,
            offset,
            draw_count,
            stride,
        } => {
            params[0] = match indexed {
                true => KIND_INDEXED_INDIRECT,
                false => KIND_INDIRECT,
            };
            let (info, inside) = app_binding(dev, buffer, offset)?;
            params[4] = inside;
            params[5] = stride;
            params[26] = u32::from(zeroes_first_instance(state));
            (draw_count, max_indices, Some(info))
        }
    };
    // At most two indices a vertex for loops (a loop of n takes n + 2), four and four more
    // for GL's primitives (a quad strip drawn as lines), as the shader clamps.
    let needed = match conversion {
        Conversion::Loops => 2 * per_draw + 2,
        Conversion::Primitives(_) => 4 * per_draw + 4,
    };
    let most = (MAX_OUTPUT_BYTES / 4 / u64::from(draw_count.max(1))).saturating_sub(5);
    let capacity = needed.min(most).max(8);
    params[6] = u32::try_from(capacity).map_err(|_| "a draw longer than the layer converts")?;
    Ok(Plan {
        params,
        app_indices,
        app_commands,
        draw_count,
        capacity,
    })
}

/// A global memory barrier from `src` (stages, accesses) to `dst` on `cb`.
///
/// # Safety
/// `cb` is a live command buffer recording outside a render pass instance.
unsafe fn memory_barrier(
    barrier: vk::PFN_vkCmdPipelineBarrier,
    cb: Dispatchable<vk::CommandBuffer>,
    (src_stage, src_access_mask): (vk::PipelineStageFlags, vk::AccessFlags),
    (dst_stage, dst_access_mask): (vk::PipelineStageFlags, vk::AccessFlags),
) {
    let memory = vk::MemoryBarrier {
        src_access_mask,
        dst_access_mask,
        ..Default::default()
    };
    // SAFETY: this function's contract; `memory` lives through the call.
    unsafe {
        barrier(
            cb.handle(),
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            1,
            &memory,
            0,
            std::ptr::null(),
            0,
            std::ptr::null(),
        )
    };
}

/// Everything written before (the application's indices and commands, the attachments
/// of the instance just ended), made visible to what follows.
const EVERYTHING_WRITTEN: (vk::PipelineStageFlags, vk::AccessFlags) = (
    vk::PipelineStageFlags::ALL_COMMANDS,
    vk::AccessFlags::MEMORY_WRITE,
);
const ANY_ACCESS: (vk::PipelineStageFlags, vk::AccessFlags) = (
    vk::PipelineStageFlags::ALL_COMMANDS,
    vk::AccessFlags::from_raw(
        vk::AccessFlags::MEMORY_READ.as_raw() | vk::AccessFlags::MEMORY_WRITE.as_raw(),
    ),
);

/// Draws `draw` of the bound pipeline as `conversion` says, in place of the application's;
/// `Err`: why the layer cannot (the caller says so).
pub(crate) fn draw_converted(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    draw: GpuDraw,
    conversion: Conversion,
) -> Result<(), &'static str> {
    let converter = converter(dev)?;
    let (plan, restore_indices) = {
        let mut cbs = dev.records.command_buffers.lock();
        let state = CommandBufferState::of(&mut cbs, cb.handle());
        (plan(dev, draw, conversion, state)?, state.index_buffer)
    };
    if plan.draw_count == 0 {
        return Ok(());
    }
    let alignment = dev.limits.min_storage_buffer_offset_alignment.max(16);
    let commands_at = align(PARAMS_BYTES, alignment);
    let commands_bytes = u64::from(plan.draw_count) * COMMAND_BYTES;
    let indices_at = align(commands_at + commands_bytes, alignment);
    let indices_bytes = plan.capacity * u64::from(plan.draw_count) * 4;
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::INDEX_BUFFER
        | vk::BufferUsageFlags::INDIRECT_BUFFER;
    let chunk: Chunk = new_host_buffer(dev, indices_at + indices_bytes, usage)
        .ok_or("no host-visible memory for the converted draw")?;
    let mut params = plan.params;
    // The layer's indices are bound at offset 0 and drawn from their first index.
    params[12] =
        u32::try_from(indices_at / 4).map_err(|_| "a draw longer than the layer converts")?;
    // SAFETY: the chunk's mapping is at least `PARAMS_BYTES` long, host-coherent, and
    // unused by any pending work (new).
    unsafe { std::ptr::copy_nonoverlapping(params.as_ptr(), chunk.mapped as *mut u32, PARAMS) };
    let layer = |offset: u64, range: u64| vk::DescriptorBufferInfo {
        buffer: chunk.buffer,
        offset,
        range,
    };
    let params = layer(0, PARAMS_BYTES);
    let infos = [
        params,
        plan.app_indices.unwrap_or(params),
        plan.app_commands.unwrap_or(params),
        layer(indices_at, indices_bytes),
        layer(commands_at, commands_bytes),
    ];
    let buffer = chunk.buffer;
    let_next_commands!(dev.table => [
        cmd_bind_index_buffer,
        cmd_draw_indexed_indirect,
    ] else { return Err("the device lacks a command the layer's compute shader needs") });
    let written_for = (
        vk::PipelineStageFlags::DRAW_INDIRECT | vk::PipelineStageFlags::VERTEX_INPUT,
        vk::AccessFlags::INDEX_READ | vk::AccessFlags::INDIRECT_COMMAND_READ,
    );
    let dispatch = Dispatch {
        compute: converter,
        chunk,
        buffers: &infos,
        groups: plan.draw_count,
        written_for,
    };
    dispatch_outside_render_pass(dev, cb, dispatch)?;
    // SAFETY: inside the instance begun again, with the application's pipeline and state
    // bound: the layer's indices and commands (written above), then the application's
    // index buffer binding put back.
    unsafe {
        cmd_bind_index_buffer(cb.handle(), buffer, 0, vk::IndexType::UINT32);
        cmd_draw_indexed_indirect(
            cb.handle(),
            buffer,
            commands_at,
            plan.draw_count,
            COMMAND_BYTES as u32,
        );
        bind_index_buffer_again(cmd_bind_index_buffer, cb, restore_indices);
    }
    Ok(())
}

/// A dispatch of one of the layer's compute pipelines between two draws.
pub(crate) struct Dispatch<'a> {
    pub compute: LayerCompute,
    /// The layer's memory it uses, kept until the command buffer is reset or freed.
    pub chunk: Chunk,
    /// Its storage buffers, bindings 0, 1, ... of set 0.
    pub buffers: &'a [vk::DescriptorBufferInfo],
    /// Workgroups.
    pub groups: u32,
    /// The stages and accesses that read what it writes.
    pub written_for: (vk::PipelineStageFlags, vk::AccessFlags),
}

/// Ends `cb`'s render pass instance, makes everything written before visible, runs
/// `dispatch`, makes what it wrote visible to its readers, puts the application's compute
/// bindings back and begins the instance again; `Err`: why the layer cannot.
pub(crate) fn dispatch_outside_render_pass(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    dispatch: Dispatch<'_>,
) -> Result<(), &'static str> {
    let Dispatch {
        compute,
        chunk,
        buffers,
        groups,
        written_for,
    } = dispatch;
    let set = {
        let mut cbs = dev.records.command_buffers.lock();
        let memory = &mut CommandBufferState::of(&mut cbs, cb.handle()).conversions;
        memory.chunks.push(chunk);
        memory.allocate_set(dev, compute.set_layout)
    }
    .ok_or("no descriptor set for the layer's compute shader")?;
    let_next_commands!(dev.table => [
        update_descriptor_sets,
        cmd_pipeline_barrier,
        cmd_bind_pipeline,
        cmd_bind_descriptor_sets,
        cmd_dispatch,
    ] else { return Err("the device lacks a command the layer's compute shader needs") });
    let writes: Vec<_> = buffers
        .iter()
        .enumerate()
        .map(|(binding, info)| vk::WriteDescriptorSet {
            dst_set: set,
            dst_binding: binding as u32,
            descriptor_count: 1,
            descriptor_type: vk::DescriptorType::STORAGE_BUFFER,
            p_buffer_info: info,
            ..Default::default()
        })
        .collect();
    // SAFETY: a set of the layer's, unused yet, and live buffers in ranges of them.
    unsafe {
        update_descriptor_sets(
            dev.handle,
            writes.len() as u32,
            writes.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    outside_render_pass(dev, cb, || {
        // SAFETY: a live command buffer (a `Dispatchable`) recording outside a render pass
        // instance; the layer's pipeline, layout and set, alive until the command buffer
        // is reset or freed; the application's compute bindings are put back after.
        unsafe {
            memory_barrier(cmd_pipeline_barrier, cb, EVERYTHING_WRITTEN, ANY_ACCESS);
            cmd_bind_pipeline(
                cb.handle(),
                vk::PipelineBindPoint::COMPUTE,
                compute.pipeline,
            );
            cmd_bind_descriptor_sets(
                cb.handle(),
                vk::PipelineBindPoint::COMPUTE,
                compute.layout,
                0,
                1,
                &set,
                0,
                std::ptr::null(),
            );
            cmd_dispatch(cb.handle(), groups, 1, 1);
            let written = (
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::SHADER_WRITE,
            );
            memory_barrier(cmd_pipeline_barrier, cb, written, written_for);
        }
        restore_compute(dev, cb);
    })
}

/// An indirect draw (`draw`) of a pipeline whose indirect draws go down with `firstInstance`
/// 0 ([`zeroes_first_instance`]): drawn from a copy of its commands, each `firstInstance`
/// set to 0 (a copy and a fill per command, outside the render pass instance), in place of
/// the application's; `Err`: why the layer cannot.
pub(crate) fn draw_from_instance_zero(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    draw: GpuDraw,
) -> Result<(), &'static str> {
    let GpuDraw::Indirect {
        indexed,
        buffer,
        offset,
        draw_count,
        stride,
    } = draw
    else {
        return Err("a direct draw pushes its own base instance");
    };
    if draw_count == 0 {
        return Ok(());
    }
    if !dev.records.readable_buffers.read().contains_key(&buffer) {
        return Err("its buffer was not made readable by the layer (made with a usage chain)");
    }
    let command = match indexed {
        true => COMMAND_BYTES,
        false => 16,
    };
    let stride = match draw_count {
        1 => command,
        _ => u64::from(stride),
    };
    let bytes = u64::from(draw_count - 1) * stride + command;
    let usage = vk::BufferUsageFlags::INDIRECT_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
    let chunk = new_host_buffer(dev, bytes, usage)
        .ok_or("no host-visible memory for the converted draw")?;
    let copy = chunk.buffer;
    CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle())
        .conversions
        .chunks
        .push(chunk);
    let_next_commands!(dev.table => [
        cmd_pipeline_barrier,
        cmd_copy_buffer,
        cmd_fill_buffer,
        cmd_draw_indirect,
        cmd_draw_indexed_indirect,
    ] else { return Err("the device lacks a command the layer's copy needs") });
    outside_render_pass(dev, cb, || {
        let region = vk::BufferCopy {
            src_offset: offset,
            dst_offset: 0,
            size: bytes,
        };
        // SAFETY: a live command buffer (a `Dispatchable`) recording outside a render pass
        // instance; the application's buffer holds the draw's commands (Vulkan's valid
        // usage for the draw) and is a transfer source (the layer made it one); the copy
        // is the layer's, `bytes` long, alive until the command buffer is reset or freed.
        unsafe {
            memory_barrier(cmd_pipeline_barrier, cb, EVERYTHING_WRITTEN, ANY_ACCESS);
            cmd_copy_buffer(cb.handle(), buffer, copy, 1, &region);
            for i in 0..u64::from(draw_count) {
                cmd_fill_buffer(cb.handle(), copy, i * stride + command - 4, 4, 0);
            }
            memory_barrier(
                cmd_pipeline_barrier,
                cb,
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                ),
                (
                    vk::PipelineStageFlags::DRAW_INDIRECT,
                    vk::AccessFlags::INDIRECT_COMMAND_READ,
                ),
            );
        }
    })?;
    let stride = stride as u32;
    // SAFETY: inside the instance begun again, with the application's pipeline and state
    // bound: its own draw, from the copy of its commands.
    unsafe {
        match indexed {
            true => cmd_draw_indexed_indirect(cb.handle(), copy, 0, draw_count, stride),
            false => cmd_draw_indirect(cb.handle(), copy, 0, draw_count, stride),
        }
    }
    Ok(())
}

/// Binds the application's index buffer `binding` back after the layer's own (nothing where
/// it had none).
///
/// # Safety
/// `bind` is the device's `vkCmdBindIndexBuffer`, `cb` is recording, and `binding` is the
/// index buffer the application bound on `cb` (its buffer alive as long as its draws).
pub(crate) unsafe fn bind_index_buffer_again(
    bind: vk::PFN_vkCmdBindIndexBuffer,
    cb: Dispatchable<vk::CommandBuffer>,
    binding: Option<BoundIndexBuffer>,
) {
    if let Some(BoundIndexBuffer {
        buffer,
        offset,
        index_type,
    }) = binding
    {
        // SAFETY: the application's own binding, bound again on the command buffer it was
        // bound on (this function's contract).
        unsafe { bind(cb.handle(), buffer, offset, index_type) };
    }
}
