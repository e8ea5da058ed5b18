//! The layer's own shaders (`src/layer/commands/draws/shaders/`): each `.spv` the layer embeds is
//! its `.comp` as glslang compiles it today, and valid SPIR-V for Vulkan 1.0.

use std::path::Path;

use crate::spirv_tools::{compile, validate, words, Target, SPV_1_0};

fn check(name: &str, target: Target) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/layer/commands/draws/shaders");
    let source = dir.join(format!("{name}.comp"));
    let embedded = std::fs::read(dir.join(format!("{name}.spv"))).unwrap();
    let compiled = compile(&source, target.glslang);
    assert_eq!(
        words(&embedded),
        compiled,
        "{name}.spv is not {name}.comp compiled: glslangValidator -V {} -o {name}.spv \
         {name}.comp",
        target.glslang.join(" ")
    );
    validate(&compiled, target.val).unwrap();
}

#[test]
fn converted_draws_spv_is_its_source_compiled() {
    check("converted_draws", SPV_1_0);
}

#[test]
fn stipple_counts_spv_is_its_source_compiled() {
    check("stipple_counts", SPV_1_0);
}
