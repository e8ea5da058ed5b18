//! Malformed SPIR-V reaches the driver untouched: vkCreateShaderModule returns what the
//! driver returns without the layer, and the layer records the module without crashing.
//! Only inputs plain lavapipe itself survives (module creation, no pipeline).

mod common;

use common::*;

fn valid_module() -> Vec<u32> {
    glsl("layer/plain.frag")
}

fn cases() -> Vec<(&'static str, Vec<u32>)> {
    let valid = valid_module();
    let mut bad_magic = valid.clone();
    bad_magic[0] = 0x0302_2307;
    let mut bound_zero = valid.clone();
    bound_zero[3] = 0;
    let mut unknown_opcode = valid.clone();
    // Instruction right after the header: word count 1, opcode 0xfffe.
    unknown_opcode[5] = (1 << 16) | 0xfffe;
    let mut zero_word_count = valid.clone();
    zero_word_count[5] = 0;
    let mut valid_then_garbage = valid.clone();
    valid_then_garbage.extend([0xdead_beef, 0x0000_ffff, 0x1234_5678]);
    let mut random = Vec::new();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        random.push(x as u32);
    }
    let mut random_after_header = valid[..5].to_vec();
    random_after_header.extend(&random);
    vec![
        ("bad magic", bad_magic),
        ("header only", valid[..5].to_vec()),
        ("truncated header", valid[..3].to_vec()),
        ("cut mid-instruction", valid[..valid.len() - 1].to_vec()),
        ("bound 0", bound_zero),
        ("unknown opcode", unknown_opcode),
        ("word count 0", zero_word_count),
        ("valid module then garbage", valid_then_garbage),
        ("random words", random),
        ("header then random words", random_after_header),
    ]
}

#[test]
fn malformed_modules_get_the_drivers_result() {
    let _serial = serial();
    let plain = Instance::new(NO_LAYERS);
    let plain_device = plain.device(&[]);
    let layered = Instance::new(GLSEM_ONLY);
    let layered_device = layered.device(&[]);
    for (name, words) in cases() {
        let info = ash::vk::ShaderModuleCreateInfo::default().code(&words);
        let expected = unsafe { plain_device.device.create_shader_module(&info, None) };
        let before = counters().shader_modules;
        let got = unsafe { layered_device.device.create_shader_module(&info, None) };
        assert_eq!(
            got.is_ok(),
            expected.is_ok(),
            "{name}: {got:?} vs {expected:?}"
        );
        if let (Err(g), Err(e)) = (got, expected) {
            assert_eq!(g, e, "{name}");
        }
        if let Ok(m) = got {
            assert_eq!(
                counters().shader_modules,
                before + 1,
                "{name}: module not recorded"
            );
            unsafe { layered_device.device.destroy_shader_module(m, None) };
        }
        if let Ok(m) = expected {
            unsafe { plain_device.device.destroy_shader_module(m, None) };
        }
    }
    plain_device.destroy();
    layered_device.destroy();
}
