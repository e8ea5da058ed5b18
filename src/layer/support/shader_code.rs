//! A shader module's words, from a create info, and the dump of what the layer sees and
//! emits (the `dump_dir` setting).

use ash::vk;

use crate::layer::support::ffi::slice;
use crate::layer::support::log;
use crate::layer::support::settings::Settings;

/// The words of a `VkShaderModuleCreateInfo` (empty when there is no whole word).
///
/// # Safety
/// `pCode` must hold `codeSize` bytes that outlive `'a` (Vulkan's valid usage).
pub unsafe fn code_words<'a>(ci: &vk::ShaderModuleCreateInfo<'_>) -> &'a [u32] {
    // SAFETY: the caller's contract; whole words only.
    unsafe { slice(ci.p_code, (ci.code_size / 4).min(u32::MAX as usize) as u32) }
}

/// Writes `words` as `<hash>.<label>.spv` into the `dump_dir` setting's directory.
pub fn dump_module(settings: &Settings, hash: u64, label: &str, words: &[u32]) {
    let Some(dir) = &settings.dump_dir else {
        return;
    };
    let path = dir.join(format!("{hash:016x}.{label}.spv"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, bytes)) {
        log::warning!("dump_dir: cannot write {}: {e}", path.display());
    }
}
