//! The layer's own shaders (`src/layer/commands/draws/shaders/`): each `.spv` the layer embeds is
//! its `.comp` as glslang compiles it today, and valid SPIR-V for Vulkan 1.0.

use std::path::Path;

use crate::spirv_tools::{compile, validate, words, SPV_1_0};

fn check(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/layer/commands/draws/shaders");
    let source = dir.join(format!("{name}.comp"));
    let embedded = std::fs::read(dir.join(format!("{name}.spv"))).unwrap();
    let compiled = compile(&source, SPV_1_0.glslang);
    assert_eq!(
        words(&embedded),
        compiled,
        "{name}.spv is not {name}.comp compiled: glslangValidator -V --target-env vulkan1.0 \
         -o {name}.spv {name}.comp"
    );
    validate(&compiled, SPV_1_0.val).unwrap();
}

#[test]
fn converted_draws_spv_is_its_source_compiled() {
    check("converted_draws");
}
