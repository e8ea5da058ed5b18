//! `vertex_formats` through the real loader, lavapipe and the validation layer: every vertex
//! format GL can name (8-, 16-, 32-bit integers normalized, scaled or integer; halves,
//! floats, doubles; 1–4 components; `GL_BGRA`, `2_10_10_10_REV`) read by a `vec4`/`ivec4`/`uvec4`/`dvec4` input with
//! `debug_force_vertex_formats` on, so that the layer reads each one itself (lavapipe has
//! all but `R64*`). The vertex shader compares the input against GL's value, computed here
//! by GL's conversion rules (GL 4.6 §2.3.5, §10.3.5; the components the format lacks are
//! (0, 0, 0, 1)), not read from the layer; every module the layer emits passes `spirv-val`.
//! Each format is read three times: from a pipeline's static vertex input, tightly packed;
//! and one byte into each vertex from `vkCmdSetVertexInputEXT` and from a vertex-input
//! library, where the layer makes the vertex shader's pipeline or library again for it
//! (`vertex_input_variants`, `library_inputs`).

mod support;

use ash::vk;
use std::fmt::Write;
use support::*;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
}

use vk::Format as F;
use Kind::*;

/// (format, kind, bits per component, components).
const FORMATS: [(vk::Format, Kind, u32, u32); 68] = [
    (F::R8_UNORM, Unorm, 8, 1),
    (F::R8G8_UNORM, Unorm, 8, 2),
    (F::R8G8B8_UNORM, Unorm, 8, 3),
    (F::R8G8B8A8_UNORM, Unorm, 8, 4),
    (F::R8_SNORM, Snorm, 8, 1),
    (F::R8G8_SNORM, Snorm, 8, 2),
    (F::R8G8B8_SNORM, Snorm, 8, 3),
    (F::R8G8B8A8_SNORM, Snorm, 8, 4),
    (F::R8_USCALED, Uscaled, 8, 1),
    (F::R8G8_USCALED, Uscaled, 8, 2),
    (F::R8G8B8_USCALED, Uscaled, 8, 3),
    (F::R8G8B8A8_USCALED, Uscaled, 8, 4),
    (F::R8_SSCALED, Sscaled, 8, 1),
    (F::R8G8_SSCALED, Sscaled, 8, 2),
    (F::R8G8B8_SSCALED, Sscaled, 8, 3),
    (F::R8G8B8A8_SSCALED, Sscaled, 8, 4),
    (F::R8_UINT, Uint, 8, 1),
    (F::R8G8_UINT, Uint, 8, 2),
    (F::R8G8B8_UINT, Uint, 8, 3),
    (F::R8G8B8A8_UINT, Uint, 8, 4),
    (F::R8_SINT, Sint, 8, 1),
    (F::R8G8_SINT, Sint, 8, 2),
    (F::R8G8B8_SINT, Sint, 8, 3),
    (F::R8G8B8A8_SINT, Sint, 8, 4),
    (F::R16_UNORM, Unorm, 16, 1),
    (F::R16G16_UNORM, Unorm, 16, 2),
    (F::R16G16B16_UNORM, Unorm, 16, 3),
    (F::R16G16B16A16_UNORM, Unorm, 16, 4),
    (F::R16_SNORM, Snorm, 16, 1),
    (F::R16G16_SNORM, Snorm, 16, 2),
    (F::R16G16B16_SNORM, Snorm, 16, 3),
    (F::R16G16B16A16_SNORM, Snorm, 16, 4),
    (F::R16_USCALED, Uscaled, 16, 1),
    (F::R16G16_USCALED, Uscaled, 16, 2),
    (F::R16G16B16_USCALED, Uscaled, 16, 3),
    (F::R16G16B16A16_USCALED, Uscaled, 16, 4),
    (F::R16_SSCALED, Sscaled, 16, 1),
    (F::R16G16_SSCALED, Sscaled, 16, 2),
    (F::R16G16B16_SSCALED, Sscaled, 16, 3),
    (F::R16G16B16A16_SSCALED, Sscaled, 16, 4),
    (F::R16_UINT, Uint, 16, 1),
    (F::R16G16_UINT, Uint, 16, 2),
    (F::R16G16B16_UINT, Uint, 16, 3),
    (F::R16G16B16A16_UINT, Uint, 16, 4),
    (F::R16_SINT, Sint, 16, 1),
    (F::R16G16_SINT, Sint, 16, 2),
    (F::R16G16B16_SINT, Sint, 16, 3),
    (F::R16G16B16A16_SINT, Sint, 16, 4),
    (F::R16_SFLOAT, Float, 16, 1),
    (F::R16G16_SFLOAT, Float, 16, 2),
    (F::R16G16B16_SFLOAT, Float, 16, 3),
    (F::R16G16B16A16_SFLOAT, Float, 16, 4),
    (F::R32_UINT, Uint, 32, 1),
    (F::R32G32_UINT, Uint, 32, 2),
    (F::R32G32B32_UINT, Uint, 32, 3),
    (F::R32G32B32A32_UINT, Uint, 32, 4),
    (F::R32_SINT, Sint, 32, 1),
    (F::R32G32_SINT, Sint, 32, 2),
    (F::R32G32B32_SINT, Sint, 32, 3),
    (F::R32G32B32A32_SINT, Sint, 32, 4),
    (F::R32_SFLOAT, Float, 32, 1),
    (F::R32G32_SFLOAT, Float, 32, 2),
    (F::R32G32B32_SFLOAT, Float, 32, 3),
    (F::R32G32B32A32_SFLOAT, Float, 32, 4),
    (F::R64_SFLOAT, Float, 64, 1),
    (F::R64G64_SFLOAT, Float, 64, 2),
    (F::R64G64B64_SFLOAT, Float, 64, 3),
    (F::R64G64B64A64_SFLOAT, Float, 64, 4),
];

/// Formats whose components are not in GL's order, `bits` each: `GL_BGRA` sizes
/// (`B8G8R8A8`, `A2R10G10B10`) and the `2_10_10_10_REV` types (`A2B10G10R10`).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Layout {
    Plain,
    Bgra,
    Packed,
    PackedBgra,
}

const PACKED: [(vk::Format, Kind, Layout); 13] = [
    (F::B8G8R8A8_UNORM, Unorm, Layout::Bgra),
    (F::A2B10G10R10_UNORM_PACK32, Unorm, Layout::Packed),
    (F::A2B10G10R10_SNORM_PACK32, Snorm, Layout::Packed),
    (F::A2B10G10R10_USCALED_PACK32, Uscaled, Layout::Packed),
    (F::A2B10G10R10_SSCALED_PACK32, Sscaled, Layout::Packed),
    (F::A2B10G10R10_UINT_PACK32, Uint, Layout::Packed),
    (F::A2B10G10R10_SINT_PACK32, Sint, Layout::Packed),
    (F::A2R10G10B10_UNORM_PACK32, Unorm, Layout::PackedBgra),
    (F::A2R10G10B10_SNORM_PACK32, Snorm, Layout::PackedBgra),
    (F::A2R10G10B10_USCALED_PACK32, Uscaled, Layout::PackedBgra),
    (F::A2R10G10B10_SSCALED_PACK32, Sscaled, Layout::PackedBgra),
    (F::A2R10G10B10_UINT_PACK32, Uint, Layout::PackedBgra),
    (F::A2R10G10B10_SINT_PACK32, Sint, Layout::PackedBgra),
];

/// The width of component `c` of a format of `layout` and `bits`.
fn width(layout: Layout, bits: u32, c: usize) -> u32 {
    match layout {
        Layout::Packed | Layout::PackedBgra => [10, 10, 10, 2][c],
        _ => bits,
    }
}

/// The raw components (x, y, z, w) of a format, each its bit pattern in its width.
fn raw_of(kind: Kind, layout: Layout, bits: u32) -> [u64; 4] {
    match layout {
        Layout::Plain => raw(kind, bits),
        Layout::Bgra => [255, 0, 128, 3],
        _ if matches!(kind, Snorm | Sscaled | Sint) => {
            // x −512 (normalized: −1), y 511, z −1, w −2 (normalized: −1).
            [0x200, 0x1ff, 0x3ff, 0x2]
        }
        _ => [1023, 0, 512, 3],
    }
}

/// The raw components of a format of `bits` bits, as their bit patterns (low `bits` bits),
/// chosen to hit GL's edges: the extremes (signed normalized −2^(b−1) clamps to −1), signs,
/// halves and floats that are not round, doubles of 53 bits.
fn raw(kind: Kind, bits: u32) -> [u64; 4] {
    let signed = matches!(kind, Snorm | Sscaled | Sint);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    match (kind, bits) {
        (Float, 16) => [0x3e00, 0xc000, 0x3555, 0x7bff], // 1.5, -2, 0.333…, 65504
        (Float, 32) => [0.1f32, -3.5e10, 16777216.0, -0.0].map(|f| f.to_bits() as u64),
        (Float, _) => [9007199254740991.0f64, -2.5, 1.0e300, 1.0 / 3.0].map(f64::to_bits),
        _ if signed => {
            let min = -(1i64 << (bits - 1));
            [min, -min - 1, min + 1, -3].map(|v| v as u64 & mask)
        }
        _ => [mask, 0, 1 << (bits - 1), 3],
    }
}

/// Sign-extends the low `bits` bits of `v`.
fn signed(v: u64, bits: u32) -> i64 {
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

/// Half → float (normal numbers, as `raw` has).
fn half(h: u64) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = ((h >> 10) & 0x1f) as i32 - 15;
    let mantissa = 1.0 + (h & 0x3ff) as f32 / 1024.0;
    sign * mantissa * 2f32.powi(exponent)
}

/// The GLSL type the input is declared with, and the condition that it holds GL's value of
/// the format's element `raw` (GL's (0, 0, 0, 1) past its components).
fn check(kind: Kind, layout: Layout, bits: u32, components: u32) -> (&'static str, String) {
    let raw = raw_of(kind, layout, bits);
    let fill = |c: usize| if c == 3 { 1 } else { 0 };
    let mut out = String::new();
    let ty = match (kind, bits) {
        (Uint, _) => {
            let v: Vec<String> = (0..4)
                .map(|c| match c < components as usize {
                    true => format!("{}u", raw[c] as u32),
                    false => format!("{}u", fill(c)),
                })
                .collect();
            write!(out, "a == uvec4({})", v.join(", ")).unwrap();
            "uvec4"
        }
        (Sint, _) => {
            let v: Vec<String> = (0..4)
                .map(|c| match c < components as usize {
                    true => format!(
                        "int({}u)",
                        signed(raw[c], width(layout, bits, c)) as i32 as u32
                    ),
                    false => fill(c).to_string(),
                })
                .collect();
            write!(out, "a == ivec4({})", v.join(", ")).unwrap();
            "ivec4"
        }
        (Float, 64) => {
            let v: Vec<String> = (0..4)
                .map(|c| {
                    let bits = match c < components as usize {
                        true => raw[c],
                        false => (fill(c) as f64).to_bits(),
                    };
                    format!(
                        "packDouble2x32(uvec2({}u, {}u))",
                        bits as u32,
                        (bits >> 32) as u32
                    )
                })
                .collect();
            write!(out, "a == dvec4({})", v.join(", ")).unwrap();
            "dvec4"
        }
        _ => {
            // GL's float value of each component, then compared bit for bit where GL's
            // conversion is exact (halves, floats, scaled integers), within 1e-6 where it
            // divides (normalized).
            let value = |c: usize| -> f32 {
                let v = raw[c];
                let bits = width(layout, bits, c);
                match kind {
                    Unorm => (v as f64 / ((1u64 << bits) - 1) as f64) as f32,
                    Snorm => {
                        let max = ((1u64 << (bits - 1)) - 1) as f64;
                        ((signed(v, bits) as f64 / max).max(-1.0)) as f32
                    }
                    Uscaled => v as f32,
                    Sscaled => signed(v, bits) as f32,
                    Float if bits == 16 => half(v),
                    _ => f32::from_bits(v as u32),
                }
            };
            let e: Vec<String> = (0..4)
                .map(|c| {
                    let f = match c < components as usize {
                        true => value(c),
                        false => fill(c) as f32,
                    };
                    format!("uintBitsToFloat({}u)", f.to_bits())
                })
                .collect();
            let e = format!("vec4({})", e.join(", "));
            match kind {
                Unorm | Snorm => write!(
                    out,
                    "all(lessThanEqual(abs(a - {e}), vec4(1e-6) * max(vec4(1.0), abs({e}))))"
                ),
                _ => write!(out, "floatBitsToUint(a) == floatBitsToUint({e})"),
            }
            .unwrap();
            "vec4"
        }
    };
    (ty, out)
}

/// The bytes of one element of the format.
fn element(kind: Kind, layout: Layout, bits: u32, components: u32) -> Vec<u8> {
    let raw = raw_of(kind, layout, bits);
    match layout {
        Layout::Plain => {}
        Layout::Bgra => return vec![raw[2] as u8, raw[1] as u8, raw[0] as u8, raw[3] as u8],
        Layout::Packed | Layout::PackedBgra => {
            let (x, z) = match layout {
                Layout::Packed => (raw[0], raw[2]),
                _ => (raw[2], raw[0]),
            };
            let word = x | raw[1] << 10 | z << 20 | raw[3] << 30;
            return (word as u32).to_le_bytes().to_vec();
        }
    }
    raw[..components as usize]
        .iter()
        .flat_map(|&v| v.to_le_bytes()[..(bits / 8) as usize].to_vec())
        .collect()
}

/// The vertex shader of one format: a triangle over the target, green where the input
/// holds GL's value, red elsewhere.
fn vertex_shader(kind: Kind, layout: Layout, bits: u32, components: u32) -> Vec<u32> {
    let (ty, condition) = check(kind, layout, bits, components);
    let source = format!(
        "#version 450\n\
         layout(location = 0) in {ty} a;\n\
         layout(location = 0) out vec4 c;\n\
         void main() {{\n\
         \tvec2 p = vec2((gl_VertexIndex & 1) * 4 - 1, (gl_VertexIndex >> 1) * 4 - 1);\n\
         \tgl_Position = vec4(p, 0.0, 1.0);\n\
         \tc = ({condition}) ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);\n\
         }}\n"
    );
    let path = std::env::temp_dir().join(format!(
        "glsem-vertex-format-{}-{kind:?}-{layout:?}-{bits}-{components}.vert",
        std::process::id()
    ));
    std::fs::write(&path, source).unwrap();
    let words = spirv_tools::compile(&path, &[]);
    std::fs::remove_file(&path).unwrap();
    words
}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unorm => "unorm",
            Snorm => "snorm",
            Uscaled => "uscaled",
            Sscaled => "sscaled",
            Uint => "uint",
            Sint => "sint",
            Float => "float",
        })
    }
}

/// How the vertex input reaches the pipeline.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Route {
    /// A whole pipeline's static vertex-input state.
    Static,
    /// `vkCmdSetVertexInputEXT` (the pipeline's vertex input is dynamic state).
    Dynamic,
    /// A vertex-input library linked with a pre-rasterization library holding the shader.
    Libraries,
}

/// A pipeline reading attribute 0 in `format` at `offset` from binding 0 (`stride`),
/// drawing triangles, its vertex input given by `route`: the pipeline, and the libraries it
/// was linked from.
fn pipeline(
    device: &Device,
    (vs, fs): (vk::ShaderModule, vk::ShaderModule),
    layout: vk::PipelineLayout,
    pass: vk::RenderPass,
    route: Route,
    (format, offset, stride): (vk::Format, u32, u32),
) -> Result<(vk::Pipeline, Vec<vk::Pipeline>), vk::Result> {
    let stages = [
        stage(vk::ShaderStageFlags::VERTEX, vs),
        stage(vk::ShaderStageFlags::FRAGMENT, fs),
    ];
    let bindings = [vk::VertexInputBindingDescription {
        binding: 0,
        stride,
        input_rate: vk::VertexInputRate::VERTEX,
    }];
    let attributes = [vk::VertexInputAttributeDescription {
        location: 0,
        binding: 0,
        format,
        offset,
    }];
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&bindings)
        .vertex_attribute_descriptions(&attributes);
    let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let viewports = [vk::Viewport {
        width: RENDER_SIZE as f32,
        height: RENDER_SIZE as f32,
        max_depth: 1.0,
        ..Default::default()
    }];
    let scissors = [vk::Rect2D {
        extent: vk::Extent2D {
            width: RENDER_SIZE,
            height: RENDER_SIZE,
        },
        ..Default::default()
    }];
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    let raster = vk::PipelineRasterizationStateCreateInfo::default().line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let blend_attachments = [vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
    let dynamic_states = match route {
        Route::Dynamic => &[vk::DynamicState::VERTEX_INPUT_EXT][..],
        _ => &[],
    };
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(dynamic_states);
    let create = |infos: &[vk::GraphicsPipelineCreateInfo<'_>]| {
        // SAFETY: valid create infos.
        unsafe {
            device
                .device
                .create_graphics_pipelines(vk::PipelineCache::null(), infos, None)
        }
        .map_err(|(_, e)| e)
    };
    if route != Route::Libraries {
        let mut info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .dynamic_state(&dynamic)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .layout(layout)
            .render_pass(pass);
        if route == Route::Static {
            info = info.vertex_input_state(&vertex_input);
        }
        return create(&[info]).map(|p| (p[0], Vec::new()));
    }
    type Part = vk::GraphicsPipelineLibraryFlagsEXT;
    let mut parts = [
        Part::VERTEX_INPUT_INTERFACE,
        Part::PRE_RASTERIZATION_SHADERS,
        Part::FRAGMENT_SHADER,
        Part::FRAGMENT_OUTPUT_INTERFACE,
    ]
    .map(|part| vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(part));
    let [input_part, shader_part, fragment_part, output_part] = &mut parts;
    let library =
        || vk::GraphicsPipelineCreateInfo::default().flags(vk::PipelineCreateFlags::LIBRARY_KHR);
    let infos = [
        library()
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .push_next(input_part),
        library()
            .stages(&stages[..1])
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .layout(layout)
            .render_pass(pass)
            .push_next(shader_part),
        library()
            .stages(&stages[1..])
            .multisample_state(&multisample)
            .layout(layout)
            .render_pass(pass)
            .push_next(fragment_part),
        library()
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .render_pass(pass)
            .push_next(output_part),
    ];
    let libraries = create(&infos)?;
    let mut link = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libraries);
    let linked = vk::GraphicsPipelineCreateInfo::default()
        .layout(layout)
        .push_next(&mut link);
    let pipeline = create(&[linked]);
    match pipeline {
        Ok(p) => Ok((p[0], libraries)),
        Err(e) => {
            device.destroy_objects(&libraries, &[], &[], &[]);
            Err(e)
        }
    }
}

#[test]
fn every_gl_vertex_format_reads_gls_value_through_the_layer() {
    let dump = std::env::temp_dir().join(format!("glsem-vertex-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dump).unwrap();
    // The environment, not VkLayerSettingsCreateInfoEXT: the validation layer installed
    // here rejects that struct in vkCreateInstance. This binary has this one test.
    std::env::set_var("VK_GLSEM_DEBUG_FORCE_VERTEX_FORMATS", "on");
    std::env::set_var("VK_GLSEM_DUMP_DIR", &dump);
    let instance = Instance::new(WITH_VALIDATION);
    // Doubles need shaderFloat64 (SwiftShader has none): the other formats run without it.
    let doubles = part_needs("the double formats", &[Feature::ShaderFloat64]);
    let core = vk::PhysicalDeviceFeatures::default().shader_float64(doubles);
    // The routes apart from the shader where the device has them: dynamic vertex input
    // (formats known only at vkCmdSetVertexInputEXT) and graphics pipeline libraries.
    let mut routes = vec![Route::Static];
    let mut extensions = Vec::new();
    let mut dynamic_feature = vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT::default()
        .vertex_input_dynamic_state(true);
    let mut library_feature = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
        .graphics_pipeline_library(true);
    let mut features: Vec<&mut dyn vk::ExtendsDeviceCreateInfo> = Vec::new();
    let dynamic = ash::ext::vertex_input_dynamic_state::NAME;
    let library = ash::ext::graphics_pipeline_library::NAME;
    for (route, names) in [
        (Route::Dynamic, vec![dynamic]),
        (
            Route::Libraries,
            vec![ash::khr::pipeline_library::NAME, library],
        ),
    ] {
        let name = names[names.len() - 1];
        if !has_device_extension(&instance, name) {
            assert!(!on_lavapipe(), "lavapipe has {name:?}");
            println!("SKIP: {} ({route:?}) needs {name:?}", module_path!());
            continue;
        }
        routes.push(route);
        extensions.extend(names);
    }
    if routes.contains(&Route::Dynamic) {
        features.push(&mut dynamic_feature);
    }
    if routes.contains(&Route::Libraries) {
        features.push(&mut library_feature);
    }
    let device = instance.device_with_core(&extensions, core, &mut features);
    let set_input =
        ash::ext::vertex_input_dynamic_state::Device::new(&instance.instance, &device.device);
    let fs = device.module(&glsl("layer/vertex_color.frag"));
    let pass = device.render_pass(1);
    let pipeline_layout = device.layout(&[]);
    let mut failed = Vec::new();
    let plain = FORMATS
        .iter()
        .map(|&(f, k, b, n)| (f, k, Layout::Plain, b, n));
    let packed = PACKED.iter().map(|&(f, k, l)| (f, k, l, 8, 4));
    for (format, kind, layout, bits, components) in plain.chain(packed) {
        if bits == 64 && !doubles {
            continue;
        }
        let vs = device.module(&vertex_shader(kind, layout, bits, components));
        let bytes = element(kind, layout, bits, components);
        // Through static vertex input the element is tightly packed; through the routes
        // that give it apart from the shader, one byte into a vertex a byte longer (GL
        // reads any offset and stride), where the layer makes the shader's side again for
        // it. Halves are read only aligned (docs/semantics.md, "vertex_formats").
        let half = kind == Float && bits == 16;
        for route in routes.iter().copied() {
            let offset = u32::from(route != Route::Static && !half);
            let stride = bytes.len() as u32 + offset;
            let mut vertex = vec![0u8; offset as usize];
            vertex.extend(&bytes);
            let buffer = device.host_buffer(
                &instance,
                3 * stride as u64,
                vk::BufferUsageFlags::VERTEX_BUFFER,
            );
            device.write(&buffer, &vertex.repeat(3));
            let (made, libraries) = pipeline(
                &device,
                (vs, fs),
                pipeline_layout,
                pass,
                route,
                (format, offset, stride),
            )
            .unwrap_or_else(|e| panic!("{format:?} ({route:?}): {e}"));
            let binding = vk::VertexInputBindingDescription2EXT::default()
                .binding(0)
                .stride(stride)
                .input_rate(vk::VertexInputRate::VERTEX)
                .divisor(1);
            let attribute = vk::VertexInputAttributeDescription2EXT::default()
                .location(0)
                .binding(0)
                .format(format)
                .offset(offset);
            // Half the formats set the dynamic state before binding the pipeline again,
            // half after.
            let bind_again = format.as_raw() % 2 == 0;
            let images = device.render_with(&instance, made, pass, 1, 3, |cb| unsafe {
                if route == Route::Dynamic {
                    set_input.cmd_set_vertex_input(cb, &[binding], &[attribute]);
                    if bind_again {
                        device
                            .device
                            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, made);
                    }
                }
                device
                    .device
                    .cmd_bind_vertex_buffers(cb, 0, &[buffer.buffer], &[0]);
            });
            if !images[0].chunks(4).all(|p| p == [0, 255, 0, 255]) {
                failed.push((format, route));
            }
            let all: Vec<_> = libraries.iter().chain([&made]).copied().collect();
            device.destroy_objects(&all, &[], &[], &[]);
            device.destroy_buffer(buffer);
        }
        device.destroy_objects(&[], &[], &[], &[vs]);
    }
    device.destroy_objects(&[], &[pipeline_layout], &[pass], &[fs]);
    device.destroy();
    instance.assert_clean();
    assert_eq!(failed, [], "formats whose input is not GL's value");

    let emitted: Vec<_> = std::fs::read_dir(&dump)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".vertex_formats.spv"))
        .collect();
    // Dumps are named by the module they rewrite: formats whose shaders are the same module
    // (the same GL values) share a name.
    assert!(
        emitted.len() > (FORMATS.len() + PACKED.len()) / 2,
        "{emitted:?}"
    );
    for module in &emitted {
        let val = std::process::Command::new("spirv-val")
            .args(["--target-env", "vulkan1.3"])
            .arg(module)
            .output()
            .expect("spirv-val (spirv-tools) is installed");
        assert!(
            val.status.success(),
            "spirv-val rejects {}: {}",
            module.display(),
            String::from_utf8_lossy(&val.stderr)
        );
    }
    std::fs::remove_dir_all(&dump).unwrap();
}
