//! `sample_mask`: on a single-sample target GL ignores the shader's sample mask
//! (ARB_sample_shading), so the output becomes a `Private` variable no one reads.

use crate::inspect::{builtin_var, compile, valid};

use glsem_spirv::module::Module;
use glsem_spirv::sample_mask::drop_sample_mask;
use spirv::{BuiltIn, Decoration, StorageClass};

#[test]
fn the_sample_mask_output_becomes_private() {
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("sample_mask", "sample_mask.frag", env);
        let before = Module::parse(&words).unwrap();
        let mask = builtin_var(&before, BuiltIn::SampleMask, StorageClass::Output).unwrap();
        let out = drop_sample_mask(&words, "main")
            .unwrap()
            .expect("gl_SampleMask is written");
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        assert!(matches!(m.variable(mask), Some((StorageClass::Private, _))));
        assert!(m.decoration(mask, Decoration::BuiltIn).is_none());
        assert!(!m.entry_points[0].interface.contains(&mask) || env == "vulkan1.2");
    }
}
