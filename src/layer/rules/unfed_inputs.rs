//! GL's current vertex attributes for vertex inputs no array feeds, the layer side whole:
//! pipeline and shader-object creation, `vkCmdBindPipeline` and `vkCmdSetVertexAttribGLSEM`.
//!
//! On `VK_GLSEM_gl_state` devices a pipeline whose vertex shader reads an input its
//! vertex-input state does not feed gets a stride-0 binding at index
//! `maxVertexInputBindings - 1` and, per unfed Location `l`, an attribute at offset `16 * l`
//! of the input's numeric type (`R32G32B32A32_*`): added to a static vertex-input state at
//! creation (`rewrite/patched.rs`), to the application's `vkCmdSetVertexInputEXT` at bind
//! (`commands/followed_state.rs`), to a replaced vertex-input library at link
//! (`pipelines/library_inputs.rs`) and to shader objects' vertex input; each asks
//! [`DeviceData::feedable_inputs`] which Locations. Where the layer cannot feed them (no
//! memory, a Location past its slots), they read GL's initial (0, 0, 0, 1) from the shader.
//!
//! Each command buffer holds GL's current values ([`AttributeValues`]: 16 bytes per
//! Location, initially (0, 0, 0, 1) of the type the bound pipeline reads) and binds a
//! snapshot of them, written into host-visible memory the layer owns, when such a pipeline
//! is bound and when a value changes while one is. Snapshots are appended, never
//! overwritten (the draws recorded before a change read the old one), into 64 KiB chunks the
//! command buffer keeps until it is reset or freed; chunks then go back to the device for
//! other command buffers and are destroyed with it.

use ash::vk;

use crate::layer::data::layer_memory::{
    AttributeMemory, AttributeValues, Chunk, CHUNK_BYTES, SLOTS, SNAPSHOT_BYTES,
};
use crate::layer::data::records::{CommandBufferState, PipelineRecord};
use crate::layer::loader::frames::{ffi_guard, maybe_inject_panic};
use crate::layer::loader::host_memory::{destroy_chunk, new_host_buffer};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::rewrite::run::Run;
use crate::layer::rules::layer_step::{Bind, BindRule, LayerStep};
use crate::layer::support::error::PlanError;
use crate::layer::support::log;
use glsem_spirv::error::PassError;
use glsem_spirv::interface::InputKind;
use glsem_spirv::semantics::{Semantic, Stage, Step};
use glsem_spirv::unfed_inputs::{unfed_input_kinds, DefaultUnfedInputs, FeedCurrentAttributes};

impl LayerStep for FeedCurrentAttributes {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        let inputs = run.position(Stage::Vertex).and_then(|i| {
            let entry = run.codes[i].entry.as_deref()?;
            let words = &run.current[i].as_ref()?.words;
            run.dev
                .feedable_inputs(words, entry, &self.fed)
                .inspect_err(|why| log::warning!("unfed vertex inputs read (0, 0, 0, 1): {why}"))
                .ok()
                .flatten()
        });
        match inputs {
            Some(inputs) => {
                run.notes.push((step.semantic(), step.note(None)));
                run.out.layer_attributes = Some((self.binding, inputs));
            }
            // No memory, or inputs the layer cannot feed: GL's initial values.
            None => {
                run.apply(&Step::DefaultUnfedInputs(DefaultUnfedInputs {
                    fed: self.fed.clone(),
                }));
            }
        }
        Ok(())
    }
}

impl LayerStep for DefaultUnfedInputs {}

impl DeviceData {
    /// Whether the layer feeds unfed inputs on this device (it has the memory, and the
    /// semantic is on).
    pub(crate) fn feeds_inputs(&self) -> bool {
        self.attribute_memory.memory_type.is_some()
            && self.settings.semantics.contains(Semantic::UnfedInputs)
    }

    /// The Locations `entry` of `words` reads outside `fed`, with their types, where the
    /// layer can feed every one of them GL's current value (`Ok(None)`: it cannot, or does
    /// not on this device; `Err`: the module could not be read).
    pub(crate) fn feedable_inputs(
        &self,
        words: &[u32],
        entry: &str,
        fed: &[u32],
    ) -> Result<Option<Vec<(u32, InputKind)>>, PassError> {
        if !self.feeds_inputs() {
            return Ok(None);
        }
        let inputs = unfed_input_kinds(words, entry, fed)?;
        let slots = self.attribute_memory.slots;
        Ok(inputs.iter().all(|&(l, _)| l < slots).then_some(inputs))
    }
}

/// GL's current attributes at `vkCmdBindPipeline`: the values bound for a pipeline that
/// reads them.
pub(crate) struct CurrentValues;

impl BindRule for CurrentValues {
    /// The Locations the pipeline reads the layer's binding at, as an integer type or not
    /// ([`integer_slots`]); `None`: it reads none.
    type Taken = Option<u32>;
    type Then = ();

    fn take(record: &PipelineRecord) -> Option<u32> {
        record.layer_attributes
    }

    fn bind(at: &Bind<'_>, integer: Option<u32>, state: &mut CommandBufferState) {
        state.attributes.pipeline = integer;
        state.attributes.bind(at.dev, at.cb);
    }

    fn then(_: &Bind<'_>, (): ()) {}
}

impl AttributeMemory {
    /// Destroys every spare chunk (the device is going).
    pub fn destroy_spare(&self, dev: &DeviceData) {
        for chunk in self.spare.lock().drain(..) {
            destroy_chunk(dev, chunk);
        }
    }
}

impl AttributeValues {
    /// Back to GL's initial values; the chunks go back to the device.
    pub fn reset(&mut self, dev: &DeviceData) {
        dev.attribute_memory.spare.lock().extend(
            self.chunks
                .drain(..)
                .map(|chunk| Chunk { used: 0, ..chunk }),
        );
        *self = AttributeValues::default();
    }

    /// Binds the current values for the bound pipeline, unless they are bound already.
    pub fn bind(&mut self, dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>) {
        let Some(integer) = self.pipeline else {
            return;
        };
        if self.bound == Some(integer) {
            return;
        }
        let snapshot = self.snapshot(integer);
        let (Some(bind), Some((buffer, offset))) = (
            dev.table.cmd_bind_vertex_buffers,
            self.write(dev, &snapshot),
        ) else {
            return;
        };
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state; the
        // buffer lives until the command buffer is reset or freed, which Vulkan forbids
        // while it is pending.
        unsafe {
            bind(
                cb.handle(),
                dev.attribute_memory.binding,
                1,
                &buffer,
                &offset,
            )
        };
        self.bound = Some(integer);
    }

    /// Appends `snapshot` to the last chunk (a new one when it is full): its buffer and
    /// offset.
    fn write(
        &mut self,
        dev: &DeviceData,
        snapshot: &[[u32; 4]; SLOTS as usize],
    ) -> Option<(vk::Buffer, u64)> {
        if self
            .chunks
            .last()
            .is_none_or(|c| c.used + SNAPSHOT_BYTES > CHUNK_BYTES)
        {
            let spare = dev.attribute_memory.spare.lock().pop();
            self.chunks.push(spare.or_else(|| new_chunk(dev))?);
        }
        let chunk = self.chunks.last_mut()?;
        let offset = chunk.used;
        // SAFETY: the mapping covers CHUNK_BYTES, and `offset + SNAPSHOT_BYTES` fits; no
        // submitted work reads past `used` of a chunk this command buffer owns.
        unsafe {
            std::ptr::copy_nonoverlapping(
                snapshot.as_ptr().cast::<u8>(),
                (chunk.mapped as *mut u8).add(offset as usize),
                SNAPSHOT_BYTES as usize,
            );
        }
        chunk.used += SNAPSHOT_BYTES;
        Some((chunk.buffer, offset))
    }
}

/// A new chunk, or `None` (logged) when the driver refuses one.
fn new_chunk(dev: &DeviceData) -> Option<Chunk> {
    let chunk = new_host_buffer(dev, CHUNK_BYTES, vk::BufferUsageFlags::VERTEX_BUFFER);
    if chunk.is_none() {
        log::error!(
            "vkCmdSetVertexAttribGLSEM: no memory for GL's current attributes; draws read \
             stale or undefined values"
        );
    }
    chunk
}

/// `vkCmdSetVertexAttribGLSEM` (`include/vk_glsem.h`): `glVertexAttrib4f` (`format`
/// `R32G32B32A32_SFLOAT`), `glVertexAttribI4i` (`_SINT`) or `glVertexAttribI4ui` (`_UINT`)
/// of the four 32-bit values at `value`.
///
/// # Safety
/// A command buffer of a device with the extension enabled, in the recording state;
/// `value` points to 16 bytes.
pub unsafe extern "system" fn cmd_set_vertex_attrib(
    command_buffer: vk::CommandBuffer,
    location: u32,
    format: vk::Format,
    value: *const std::ffi::c_void,
) {
    const WHAT: &str = "vkCmdSetVertexAttribGLSEM";
    // SAFETY: a live command buffer (this command's contract).
    let command_buffer = unsafe { Dispatchable::new(command_buffer) };
    ffi_guard(WHAT, (), || {
        let Some(dev) = device_data(command_buffer) else {
            return;
        };
        maybe_inject_panic(&dev.settings, WHAT);
        let formats = [
            vk::Format::R32G32B32A32_SFLOAT,
            vk::Format::R32G32B32A32_SINT,
            vk::Format::R32G32B32A32_UINT,
        ];
        if value.is_null() || !formats.contains(&format) {
            log::error!("{WHAT}: value must not be NULL and format one of {formats:?}; ignored");
            return;
        }
        // GL: an index >= GL_MAX_VERTEX_ATTRIBS is GL_INVALID_VALUE.
        if location >= dev.attribute_memory.slots {
            log::error!(
                "{WHAT}: location {location} is not below the {} the layer feeds; ignored \
                 (GL_INVALID_VALUE)",
                dev.attribute_memory.slots
            );
            return;
        }
        // SAFETY: 16 bytes at `value` (the command's contract).
        let value = unsafe { std::ptr::read_unaligned(value.cast::<[u32; 4]>()) };
        let mut cbs = dev.records.command_buffers.lock();
        let state = cbs
            .entry(command_buffer.handle())
            .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
        let attributes = &mut state.attributes;
        attributes.values[location as usize] = Some(value);
        attributes.bound = None;
        attributes.bind(&dev, command_buffer);
    })
}
