//! scripts/install-layer.sh installs an implicit manifest that VK_GLSEM_ENABLE=1 turns on
//! and VK_GLSEM_DISABLE=1 turns off.

mod support;

use support::*;

/// Whether glsem is in the device's call chain: it counts the devices it sees.
fn layer_active() -> bool {
    // SAFETY: loads the system Vulkan loader, which rescans manifests and environment
    // at vkCreateInstance.
    let entry = unsafe { ash::Entry::load() }.unwrap();
    let instance = Instance::with_entry(entry, NO_LAYERS);
    let device = instance.device(&[]);
    let active = counters().devices == 1;
    device.destroy();
    active
}

#[test]
fn implicit_manifest_follows_enable_and_disable_variables() {
    let home = std::env::temp_dir().join(format!("glsem-implicit-{}", std::process::id()));
    let status = std::process::Command::new(repo_dir().join("scripts/install-layer.sh"))
        .env("XDG_DATA_HOME", &home)
        .env("GLSEM_LIB", layer_library())
        .status()
        .unwrap();
    assert!(status.success());
    let implicit = home.join("vulkan/implicit_layer.d/VkLayer_glsem.json");
    let text = std::fs::read_to_string(&implicit).unwrap();
    assert!(
        text.contains(layer_library().to_str().unwrap()),
        "absolute library_path"
    );
    assert!(home
        .join("vulkan/explicit_layer.d/VkLayer_glsem.json")
        .is_file());

    // Only the installed manifests: no VK_ADD_LAYER_PATH in this process.
    std::env::set_var("XDG_DATA_HOME", &home);
    std::env::remove_var("VK_GLSEM_ENABLE");
    std::env::remove_var("VK_GLSEM_DISABLE");
    assert!(
        !layer_active(),
        "an implicit layer with enable_environment is off by default"
    );
    std::env::set_var("VK_GLSEM_ENABLE", "1");
    assert!(layer_active(), "VK_GLSEM_ENABLE=1 turns the layer on");
    std::env::set_var("VK_GLSEM_DISABLE", "1");
    assert!(!layer_active(), "VK_GLSEM_DISABLE=1 wins");
    std::fs::remove_dir_all(&home).unwrap();
}
