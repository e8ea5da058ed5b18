//! Malformed SPIR-V reaches the driver untouched: vkCreateShaderModule returns what the
//! driver returns without the layer, and the layer records the module without crashing.
//! Each module whose header sections the layer cannot read gets one warning.
//! Only inputs plain lavapipe itself survives (module creation, no pipeline).

use crate::support::*;
use glsem_spirv::module::instructions;

/// Set in the child process of [`each_unreadable_module_gets_one_warning`]: the creation
/// test then marks on stderr where each case starts.
const MARK_CASES: &str = "GLSEM_TEST_MARK_CASES";
const CASE_MARK: &str = "glsem-test: case ";

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
    // The first instruction's opcode becomes 0xfffe; its word count stays.
    unknown_opcode[5] = (unknown_opcode[5] & 0xffff_0000) | 0xfffe;
    // Cut after the opcode word of the last instruction with operands.
    let last_with_operands = instructions(&valid)
        .map(|inst| inst.expect("a valid module"))
        .filter(|inst| inst.words.len() >= 2)
        .last()
        .expect("an instruction with operands")
        .offset_in(&valid);
    let cut_mid_instruction = valid[..last_with_operands + 1].to_vec();
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
        ("valid module", valid.clone()),
        ("bad magic", bad_magic),
        ("header only", valid[..5].to_vec()),
        ("truncated header", valid[..3].to_vec()),
        ("cut mid-instruction", cut_mid_instruction),
        (
            "last instruction missing",
            valid[..valid.len() - 1].to_vec(),
        ),
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
    let mark = std::env::var_os(MARK_CASES).is_some();
    for (name, words) in cases() {
        let info = ash::vk::ShaderModuleCreateInfo::default().code(&words);
        let expected = unsafe { plain_device.device.create_shader_module(&info, None) };
        let before = counters().shader_modules;
        if mark {
            eprintln!("{CASE_MARK}{name}");
        }
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

/// Runs the test above in a child process and counts the layer's warnings per case. At
/// creation the layer reads the header sections only (the fast path reads no function
/// body), so a module broken after its first function gets its warning from the pass that
/// needs it, when a pipeline does. Whole instructions, even an empty module or an opcode
/// the layer does not know, are readable: whether they are valid is the driver's business.
#[test]
fn each_unreadable_module_gets_one_warning() {
    let _serial = serial();
    let stderr = stderr_of_test(
        "malformed::malformed_modules_get_the_drivers_result",
        &[(MARK_CASES, "1")],
    );
    let mut warnings: Vec<(String, usize)> = Vec::new();
    for line in stderr.lines() {
        if let Some(name) = line.strip_prefix(CASE_MARK) {
            warnings.push((name.to_owned(), 0));
        } else if line.starts_with("glsem: warning: vkCreateShaderModule") {
            warnings.last_mut().expect("a warning before any case").1 += 1;
        }
    }
    let readable = [
        "valid module",
        "header only",
        "cut mid-instruction",
        "last instruction missing",
        "unknown opcode",
        "valid module then garbage",
    ];
    let expected: Vec<(String, usize)> = cases()
        .into_iter()
        .map(|(name, _)| (name.to_owned(), usize::from(!readable.contains(&name))))
        .collect();
    assert_eq!(warnings, expected, "stderr:\n{stderr}");
}
