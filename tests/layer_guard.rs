//! A panic inside the layer never reaches the application: the call completes as if the
//! layer were not there (`debug_inject_panic` makes the layer panic on purpose).

mod support;

use ash::vk;
use support::*;

type S = vk::ShaderStageFlags;

#[test]
fn injected_panics_pass_the_calls_through() {
    std::env::set_var(
        "VK_GLSEM_DEBUG_INJECT_PANIC",
        "vkCreateShaderModule,vkCreateRenderPass,vkCreatePipelineLayout,vkCreateGraphicsPipelines",
    );
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    let vs = device.module(&glsl("layer/plain.vert"));
    let fs = device.module(&glsl("layer/plain.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let pipeline = device
        .pipeline(&[(S::VERTEX, vs), (S::FRAGMENT, fs)], layout, pass, 1)
        .expect("the pipeline is created although the layer panicked");

    // The panics really happened: the layer recorded none of the objects.
    let live = counters();
    assert_eq!(live.devices, 1);
    assert_eq!(
        (
            live.shader_modules,
            live.render_passes,
            live.pipeline_layouts
        ),
        (0, 0, 0)
    );

    device.destroy_objects(&[pipeline], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
}
