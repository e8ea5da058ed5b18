//! The records of shader modules: their words and the scan of what the passes look for.

use ash::vk::{self, Handle};

use crate::layer::data::records::ModuleRecord;
use crate::layer::loader::frames::{create_hook, destroy_hook};
use crate::layer::support::log;
use crate::layer::support::shader_code::{code_words, dump_module};
use glsem_spirv::module::structure_error;

create_hook! {
    /// `vkCreateShaderModule`: keeps the words and their scan, or takes back the record of
    /// a destroyed module of the same code.
    "vkCreateShaderModule",
    fn create_shader_module(
        device, p_create_info: vk::ShaderModuleCreateInfo<'_>, p_allocator, p_shader_module: vk::ShaderModule
    ),
    prepare: |dev| {
        // SAFETY: a valid create info (Vulkan's valid usage).
        let words = unsafe { code_words(&*p_create_info) };
        let revived = dev.records.retired_modules.lock().revive(words);
        let record = revived.unwrap_or_else(|| ModuleRecord::new(dev.scan(words), words));
        if !record.summary.readable {
            // Rare: the walk again, for the reason.
            let problem = structure_error(words).map_or_else(String::new, |e| e.to_string());
            log::warning!(
                "vkCreateShaderModule: the code is not SPIR-V the layer can read \
                 ({problem}); it goes to the driver untouched, and no pass will rewrite \
                 it (a pipeline that needs one, such as a TES without a TCS, fails)"
            );
        }
        if dev.settings.dump_dir.is_some() {
            dump_module(&dev.settings, record.hash(), "orig", &record.words);
        }
        record
    },
    record: |dev, record| {
        // SAFETY: the driver wrote the handle on success.
        let module = unsafe { *p_shader_module };
        log::debug!("shader module {:#x}: {:?}", module.as_raw(), record.summary);
        // A replaced record freed outside the lock.
        let replaced = dev.records.modules.write().insert(module, record);
        drop(replaced);
    },
}

destroy_hook!(
    /// `vkDestroyShaderModule`: the record retires, for the same code made again.
    "vkDestroyShaderModule", destroy_shader_module(module: vk::ShaderModule), |dev| {
        let removed = dev.records.modules.write().remove(&module);
        if let Some(record) = removed {
            // What no longer fits is freed outside the lock.
            let dropped = dev.records.retired_modules.lock().retire(record);
            drop(dropped);
        }
    }
);
