//! The dump_dir setting writes every module the layer sees, byte for byte, and a module
//! that needs no rewrite produces no rewritten file.

mod support;

use ash::vk;
use support::*;

type S = vk::ShaderStageFlags;

#[test]
fn dump_dir_holds_the_modules_as_the_application_gave_them() {
    let dir = std::env::temp_dir().join(format!("glsem-dump-{}", std::process::id()));
    std::env::set_var("VK_GLSEM_DUMP_DIR", &dir);
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    let vs_words = glsl("layer/plain.vert");
    let fs_words = glsl("layer/plain.frag");
    let vs = device.module(&vs_words);
    let fs = device.module(&fs_words);
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let pipeline = device
        .pipeline(&[(S::VERTEX, vs), (S::FRAGMENT, fs)], layout, pass, 1)
        .unwrap();

    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        2,
        "two originals, nothing rewritten: {files:?}"
    );
    assert!(files
        .iter()
        .all(|f| f.to_str().unwrap().ends_with(".orig.spv")));
    let dumped: Vec<Vec<u32>> = files
        .iter()
        .map(|f| spirv_tools::words(&std::fs::read(f).unwrap()))
        .collect();
    assert!(dumped.contains(&vs_words) && dumped.contains(&fs_words));

    device.destroy_objects(&[pipeline], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    std::fs::remove_dir_all(&dir).unwrap();
}
