//! Host-visible memory the layer owns: buffers it writes from the CPU (GL's current
//! attributes' snapshots, the index buffers of line loops and of GL's primitives, the
//! memory of draws converted on the GPU), made and destroyed through the device's table,
//! and the memory of command buffers that go away given back.

use ash::vk;

use crate::layer::data::layer_memory::Chunk;
use crate::layer::data::records::CommandBufferState;
use crate::layer::loader::dispatch::let_next_commands;
use crate::layer::loader::state::DeviceData;
use crate::layer::support::log;

/// A host-visible, host-coherent buffer of `size` bytes for `usage`, persistently mapped
/// (`None`: the device has no such memory, or it ran out; said in the log).
pub(crate) fn new_host_buffer(
    dev: &DeviceData,
    size: vk::DeviceSize,
    usage: vk::BufferUsageFlags,
) -> Option<Chunk> {
    let memory_type = dev.attribute_memory.memory_type?;
    let_next_commands!(dev.table => [
        create_buffer,
        get_buffer_memory_requirements,
        allocate_memory,
        bind_buffer_memory,
        map_memory,
    ] else { return None });
    let device = dev.handle;
    let mut chunk = Chunk {
        buffer: vk::Buffer::null(),
        memory: vk::DeviceMemory::null(),
        mapped: 0,
        used: 0,
    };
    // SAFETY: valid create and allocate infos on the layer's device; every object made is
    // destroyed on failure.
    let result = unsafe {
        let info = vk::BufferCreateInfo {
            size,
            usage,
            sharing_mode: vk::SharingMode::EXCLUSIVE,
            ..Default::default()
        };
        let mut result = create_buffer(device, &info, std::ptr::null(), &mut chunk.buffer);
        if result == vk::Result::SUCCESS {
            let mut needs = vk::MemoryRequirements::default();
            get_buffer_memory_requirements(device, chunk.buffer, &mut needs);
            // A buffer whose address shaders read needs memory allocated for it.
            let addressed = vk::MemoryAllocateFlagsInfo {
                flags: vk::MemoryAllocateFlags::DEVICE_ADDRESS,
                ..Default::default()
            };
            let info = vk::MemoryAllocateInfo {
                p_next: match usage.contains(vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS) {
                    true => (&addressed as *const vk::MemoryAllocateFlagsInfo<'_>).cast(),
                    false => std::ptr::null(),
                },
                allocation_size: needs.size,
                memory_type_index: memory_type,
                ..Default::default()
            };
            result = match needs.memory_type_bits & (1 << memory_type) {
                0 => vk::Result::ERROR_FEATURE_NOT_PRESENT,
                _ => allocate_memory(device, &info, std::ptr::null(), &mut chunk.memory),
            };
        }
        if result == vk::Result::SUCCESS {
            result = bind_buffer_memory(device, chunk.buffer, chunk.memory, 0);
        }
        if result == vk::Result::SUCCESS {
            let mut mapped = std::ptr::null_mut();
            result = map_memory(
                device,
                chunk.memory,
                0,
                vk::WHOLE_SIZE,
                vk::MemoryMapFlags::empty(),
                &mut mapped,
            );
            chunk.mapped = mapped as usize;
        }
        result
    };
    if result != vk::Result::SUCCESS {
        log::error!("no host-visible memory for a buffer of the layer's ({result})");
        destroy_chunk(dev, chunk);
        return None;
    }
    Some(chunk)
}

pub(crate) fn destroy_chunk(dev: &DeviceData, chunk: Chunk) {
    // SAFETY: objects the layer made on this device, unused by pending work (the command
    // buffers that used them were reset or freed); NULL handles are ignored.
    unsafe {
        if let Some(destroy) = dev.table.destroy_buffer {
            destroy(dev.handle, chunk.buffer, std::ptr::null());
        }
        if let Some(free) = dev.table.free_memory {
            free(dev.handle, chunk.memory, std::ptr::null());
        }
    }
}

/// The chunks of command buffers that go away go back to the device.
pub fn release(dev: &DeviceData, states: impl IntoIterator<Item = CommandBufferState>) {
    for mut state in states {
        state.attributes.reset(dev);
        state.conversions.release(dev);
    }
}
