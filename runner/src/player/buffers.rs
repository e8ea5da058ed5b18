//! Shader storage buffers: piglit's `ssbo N SIZE` puts a zero-filled buffer at GL binding
//! point N, `ssbo N subdata …` writes into it, `probe ssbo …` reads it back after the
//! draws. Every shader storage block of the program is served by the buffer at its binding
//! point (`layout(binding = N)`, else 0).

use ash::vk;

use super::state::{fail, Player, StorageBuffers};
use crate::glsl::FIRST_STORAGE_BINDING;
use crate::scene::{BufferValue, Compare, SceneError, ATOMIC_COUNTER_BINDINGS};
use crate::vk::Gpu;

/// How the scene names the buffer at storage "binding point" `index`.
fn buffer_name(index: u32) -> String {
    match index.checked_sub(ATOMIC_COUNTER_BINDINGS) {
        Some(b) => format!("atomic counter buffer {b}"),
        None => format!("ssbo {index}"),
    }
}

impl StorageBuffers {
    pub(super) fn destroy(&mut self, gpu: &Gpu) {
        for b in std::mem::take(&mut self.buffers).into_values() {
            gpu.destroy_buffer(&b);
        }
    }
}

impl Player {
    pub(super) fn create_ssbo(&mut self, index: u32, size: u64) -> Result<(), SceneError> {
        let mut buffer = self
            .gpu
            .buffer(size, vk::BufferUsageFlags::STORAGE_BUFFER)
            .map_err(fail)?;
        buffer.bytes_mut().fill(0);
        if let Some(old) = self.storage.buffers.insert(index, buffer) {
            self.gpu.destroy_buffer(&old);
        }
        Ok(())
    }

    pub(super) fn ssbo_subdata(
        &mut self,
        index: u32,
        offset: u64,
        values: &[BufferValue],
    ) -> Result<(), SceneError> {
        let buffer = self
            .storage
            .buffers
            .get_mut(&index)
            .ok_or_else(|| fail(format!("no {} before its subdata", buffer_name(index))))?;
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.bytes()).collect();
        let at = offset as usize;
        let size = buffer.size;
        buffer
            .bytes_mut()
            .get_mut(at..at + bytes.len())
            .ok_or_else(|| {
                fail(format!(
                    "subdata at {offset} is beyond {} ({size} bytes)",
                    buffer_name(index)
                ))
            })?
            .copy_from_slice(&bytes);
        Ok(())
    }

    pub(super) fn probe_ssbo(
        &self,
        index: u32,
        offset: u64,
        compare: Compare,
        value: BufferValue,
    ) -> Result<(), SceneError> {
        let buffer = self
            .storage
            .buffers
            .get(&index)
            .ok_or_else(|| fail(format!("no {}", buffer_name(index))))?;
        let got = buffer
            .bytes()
            .get(offset as usize..)
            .and_then(|b| value.read(b))
            .ok_or_else(|| fail(format!("offset {offset} is beyond {}", buffer_name(index))))?;
        let ordering = match (got, value) {
            (BufferValue::Float(a), BufferValue::Float(b)) => (a as f64).partial_cmp(&(b as f64)),
            (BufferValue::Double(a), BufferValue::Double(b)) => a.partial_cmp(&b),
            (BufferValue::Int(a), BufferValue::Int(b)) => Some(a.cmp(&b)),
            (BufferValue::Uint(a), BufferValue::Uint(b)) => Some(a.cmp(&b)),
            (BufferValue::Int64(a), BufferValue::Int64(b)) => Some(a.cmp(&b)),
            (BufferValue::Uint64(a), BufferValue::Uint64(b)) => Some(a.cmp(&b)),
            _ => None,
        };
        use std::cmp::Ordering as O;
        let ok = match (compare, ordering) {
            (_, None) => false,
            (Compare::Eq, Some(o)) => o == O::Equal,
            (Compare::Ne, Some(o)) => o != O::Equal,
            (Compare::Lt, Some(o)) => o == O::Less,
            (Compare::Le, Some(o)) => o != O::Greater,
            (Compare::Gt, Some(o)) => o == O::Greater,
            (Compare::Ge, Some(o)) => o != O::Less,
        };
        if ok {
            Ok(())
        } else {
            Err(fail(format!(
                "{} at {offset}: expected {compare:?} {value:?}, observed {got:?}",
                buffer_name(index)
            )))
        }
    }

    /// Points every storage block at the buffer of its binding point (before a draw).
    pub(super) fn bind_storage(&mut self) -> Result<(), SceneError> {
        if self.storage.blocks.is_empty() {
            return Ok(());
        }
        let mut infos = Vec::new();
        for (gl_binding, (block, _)) in &self.storage.blocks {
            // Element i of an array of blocks reads binding point N + i.
            for i in 0..block.count {
                let at = gl_binding + i;
                let buffer = self.storage.buffers.get(&at).ok_or_else(|| {
                    fail(format!(
                        "buffer block `{}` reads a binding point with no buffer ({})",
                        block.name,
                        buffer_name(at)
                    ))
                })?;
                infos.push((
                    FIRST_STORAGE_BINDING + gl_binding,
                    i,
                    [vk::DescriptorBufferInfo {
                        buffer: buffer.buffer,
                        offset: 0,
                        range: vk::WHOLE_SIZE,
                    }],
                ));
            }
        }
        let writes: Vec<_> = infos
            .iter()
            .map(|(binding, element, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(self.descriptor_set)
                    .dst_binding(*binding)
                    .dst_array_element(*element)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        // SAFETY: the set is not in use: every submission was waited for.
        unsafe { self.gpu.device.update_descriptor_sets(&writes, &[]) };
        Ok(())
    }
}
