//! `sample_mask`: on a single-sample target GL ignores the shader's sample mask
//! (ARB_sample_shading), so the output becomes a `Private` variable no one reads.

use crate::inspect::{builtin_var, compile, valid};

use glsem_spirv::module::Module;
use glsem_spirv::sample_mask::{drop_sample_mask, gate_sample_mask};
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

#[test]
fn under_a_dynamic_sample_count_the_mask_is_kept_only_while_multisampled() {
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("sample_mask", "sample_mask.frag", env);
        let before = Module::parse(&words).unwrap();
        let mask = builtin_var(&before, BuiltIn::SampleMask, StorageClass::Output).unwrap();
        let out = gate_sample_mask(&words, "main", 92)
            .unwrap()
            .expect("gl_SampleMask is written");
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        // The shader's mask goes to a Private copy; a new output takes it, or all ones
        // (no effect: GL's single-sample rule), by the GL-state block's multisampled flag.
        assert!(matches!(m.variable(mask), Some((StorageClass::Private, _))));
        let output = builtin_var(&m, BuiltIn::SampleMask, StorageClass::Output).unwrap();
        assert_ne!(output, mask);
        assert!(m.entry_points[0].interface.contains(&output));
        let selects = m
            .insts
            .iter()
            .filter(|i| i.op() == Some(spirv::Op::Select))
            .count();
        assert!(selects >= 1, "the mask is chosen by the flag");
        let flag_bit = m.insts.iter().any(|i| {
            i.op() == Some(spirv::Op::Constant)
                && i.operands()[2..] == [glsem_spirv::gl_state::FLAG_MULTISAMPLED]
        });
        assert!(flag_bit, "the multisampled flag is tested");
    }
}
