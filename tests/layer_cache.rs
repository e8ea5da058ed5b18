//! The rewrite cache's budget, set as an application would through
//! `VkLayerSettingsCreateInfoEXT` (a `UINT32` value): with the default, identical pipelines
//! rewrite once and the entry stays until vkDestroyDevice; with `rewrite_cache_mb = 0`
//! every pipeline rewrites again and nothing is kept, and the pipelines are the same.

mod support;

use ash::vk;
use support::*;

type S = vk::ShaderStageFlags;

/// Creates the same gl_FragColor pipeline (3 attachments) three times, rendering with the
/// last; returns the rewrites made, the cache entries held before vkDestroyDevice and the
/// pixels of every attachment.
fn three_identical_pipelines(cache_mb: Option<u32>) -> (u64, u64, Vec<Vec<u8>>) {
    let value = cache_mb.unwrap_or_default();
    let settings: Vec<_> = cache_mb
        .map(|_| {
            let mut setting = vk::LayerSettingEXT::default()
                .layer_name(GLSEM)
                .setting_name(c"rewrite_cache_mb")
                .ty(vk::LayerSettingTypeEXT::UINT32)
                .values(u32_bytes(&value));
            // `values` counts bytes; the count is of UINT32 values.
            setting.value_count = 1;
            setting
        })
        .into_iter()
        .collect();
    // Without validation: Debian 12's 1.3.239 predates VK_EXT_layer_settings and reports the
    // struct as unknown.
    let instance = Instance::with_settings(entry(), GLSEM_ONLY, &settings);
    let device = instance.device(&[]);
    let vs = device.module(&glsl("layer/plain.vert"));
    let fs = device.module(&glsl_for_gl("layer/fragcolor.frag"));
    let pass = device.render_pass(3);
    let layout = device.layout(&[]);
    let before = counters();
    let pipelines: Vec<_> = (0..3)
        .map(|_| {
            device
                .pipeline(&[(S::VERTEX, vs), (S::FRAGMENT, fs)], layout, pass, 3)
                .expect("vkCreateGraphicsPipelines")
        })
        .collect();
    let held = counters();
    let images = device.render(&instance, pipelines[2], pass, 3, 3);
    device.destroy_objects(&pipelines, &[layout], &[pass], &[vs, fs]);
    device.destroy();
    assert_eq!(
        counters().cache_entries,
        0,
        "the cache goes with its device"
    );
    (held.rewrites - before.rewrites, held.cache_entries, images)
}

/// The bytes of one `u32`, as `VkLayerSettingEXT::pValues` takes them.
fn u32_bytes(value: &u32) -> &[u8] {
    // SAFETY: a u32 is 4 initialised bytes.
    unsafe { std::slice::from_raw_parts((value as *const u32).cast(), 4) }
}

#[test]
fn the_cache_budget_setting_bounds_what_is_kept() {
    let _serial = serial();
    // The environment and a settings file beat VkLayerSettingsCreateInfoEXT.
    std::env::remove_var("VK_GLSEM_REWRITE_CACHE_MB");
    std::env::remove_var("VK_LAYER_SETTINGS_PATH");
    let (rewrites, held, cached_images) = three_identical_pipelines(None);
    assert_eq!((rewrites, held), (1, 1), "default: one rewrite, one entry");
    let (rewrites, held, images) = three_identical_pipelines(Some(0));
    assert_eq!(
        (rewrites, held),
        (3, 0),
        "0 MiB: a rewrite per pipeline, no entry"
    );
    // GL: gl_FragColor (0.25, 0.4, 0.75, 1) in every draw buffer, cached or not.
    let expected = [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize);
    for (i, image) in images.iter().chain(&cached_images).enumerate() {
        assert_eq!(image, &expected, "attachment {}", i % 3);
    }
}
