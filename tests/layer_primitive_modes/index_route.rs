//! GL's quads, quad strips and polygons without a geometry shader (setting
//! `primitive_mode_route = indices`, what a device without `geometryShader` gets), through the
//! real loader, lavapipe and the validation layer: each `vkCmdDraw` becomes an indexed draw
//! of the layer's, which keeps the first vertex, the instances and the base instance, draws
//! each quad's 4th vertex's flat colour (GL 4.6 compatibility table 13.2), a quad's or a
//! polygon's edges in polygon mode `GL_LINE` (never a diagonal; 14.6.4), its corners in
//! `GL_POINT`. Indexed and indirect draws, converted on the GPU, are `converted_draws.rs`'s.

use crate::primitive_modes::{border, lit, red_of, reds, render, two_quads, QUADS};
use crate::support::*;
use ash::vk;
use glsem_abi::PrimitiveMode;

const RING: (&str, &str) = ("layer/ring.vert", "layer/plain.frag");

/// Draws `vs` + `fs` in GL's `mode` with `polygon_mode` on the index route, recording the
/// draw with `draw` (after the bind; it returns the buffers the draw reads); the image and
/// the validation layer's messages.
fn draw(
    mode: PrimitiveMode,
    polygon_mode: vk::PolygonMode,
    (vs, fs): (&str, &str),
    draw: impl FnOnce(&Device, &Instance, vk::CommandBuffer) -> Vec<HostBuffer>,
) -> Vec<u8> {
    let instance = index_route_instance();
    let core = vk::PhysicalDeviceFeatures::default().fill_mode_non_solid(true);
    let line_or_fill = (polygon_mode, vk::CullModeFlags::NONE);
    let image = render(&instance, core, mode, line_or_fill, (vs, fs), draw);
    assert_clean_but_settings(&instance);
    image
}

/// An instance with validation and the setting `primitive_mode_route = indices`.
pub(crate) fn index_route_instance() -> Instance {
    let route = [c"indices".as_ptr()];
    let mut setting = vk::LayerSettingEXT::default()
        .layer_name(GLSEM)
        .setting_name(c"primitive_mode_route")
        .ty(vk::LayerSettingTypeEXT::STRING);
    setting.p_values = route.as_ptr().cast();
    setting.value_count = 1;
    Instance::with_settings(entry(), WITH_VALIDATION, &[setting])
}

/// No validation message on [`index_route_instance`]'s instance. This validation layer
/// (header 239) predates VkLayerSettingsCreateInfoEXT, which it reports as an unknown
/// struct of the instance's chain: every other message fails.
pub(crate) fn assert_clean_but_settings(instance: &Instance) {
    let messages: Vec<String> = instance
        .messages()
        .into_iter()
        .filter(|m| !m.contains("VUID-VkInstanceCreateInfo-pNext-pNext"))
        .collect();
    assert!(
        messages.is_empty(),
        "validation messages:\n{}",
        messages.join("\n")
    );
}

/// A plain `vkCmdDraw` of `[vertex count, instance count, first vertex, first instance]`.
fn plain(
    [count, instances, first, base]: [u32; 4],
) -> impl FnOnce(&Device, &Instance, vk::CommandBuffer) -> Vec<HostBuffer> {
    move |device, _, cb| {
        unsafe { device.device.cmd_draw(cb, count, instances, first, base) };
        Vec::new()
    }
}

/// Only the left (`left`) or right half, in `red`.
fn half(left: bool, red: u8) -> Vec<u8> {
    (0..RENDER_SIZE * RENDER_SIZE)
        .map(|i| match (i % RENDER_SIZE < RENDER_SIZE / 2) == left {
            true => red,
            false => 0,
        })
        .collect()
}

/// The 4 corner pixels of the 4x4 target: `ring.vert`'s vertices.
fn corners() -> Vec<(u32, u32)> {
    let last = RENDER_SIZE - 1;
    vec![(0, 0), (last, 0), (0, last), (last, last)]
}

/// The 4 pixels inside `ring.vert`'s square (centres 1.5 and 2.5 are inside 0.6..3.4).
fn inside() -> Vec<(u32, u32)> {
    vec![(1, 1), (2, 1), (1, 2), (2, 2)]
}

#[test]
fn quads_take_the_fourth_vertexs_flat_colour_without_a_geometry_shader() {
    let _serial = serial();
    let fill = vk::PolygonMode::FILL;
    // Two quads and an incomplete third (GL drops it: quads.vert puts it off the target).
    let image = draw(PrimitiveMode::QUADS, fill, QUADS, plain([10, 1, 0, 0]));
    assert_eq!(reds(&image), two_quads(0, 1));
    // The first vertex is the draw's: vertices 4-7 only, provoked by vertex 7.
    let image = draw(PrimitiveMode::QUADS, fill, QUADS, plain([4, 1, 4, 0]));
    assert_eq!(reds(&image), half(false, red_of(7)));
}

#[test]
fn instanced_quads_keep_their_instances_and_base_instance() {
    let _serial = serial();
    let fill = vk::PolygonMode::FILL;
    let image = draw(PrimitiveMode::QUADS, fill, QUADS, plain([4, 2, 0, 0]));
    assert_eq!(reds(&image), two_quads(0, 0));
    // quads.vert moves a quad right by its instance, which the layer gives as GL's
    // gl_InstanceID: from 0 whatever the base instance (the base instance reaching instanced
    // attributes is prim_quads_instanced's scene).
    let image = draw(PrimitiveMode::QUADS, fill, QUADS, plain([4, 1, 0, 1]));
    assert_eq!(reds(&image), half(true, red_of(3)));
}

#[test]
fn quads_and_polygons_in_polygon_mode_line_draw_their_edges_not_a_diagonal() {
    let _serial = serial();
    let line = vk::PolygonMode::LINE;
    let image = draw(PrimitiveMode::QUADS, line, RING, plain([4, 1, 0, 0]));
    assert_edges_only(lit(&image), "quads");
    // A polygon's closing edge (vertex 3 back to 0) included.
    let image = draw(PrimitiveMode::POLYGON, line, RING, plain([4, 1, 0, 0]));
    assert_edges_only(lit(&image), "polygon");
}

/// The 4×4 ring's border and nothing inside it (no diagonal). Where the driver's lines are
/// not GL's diamond-exit lines (SwiftShader leaves out the pixel each segment starts in past
/// its centre: the corners), the edges without their corners, and the corners said.
fn assert_edges_only(lit: Vec<(u32, u32)>, what: &str) {
    if lit != border() && !on_lavapipe() {
        let corner = |&(x, y): &(u32, u32)| (x == 0 || x == 3) && (y == 0 || y == 3);
        let edges: Vec<_> = border().into_iter().filter(|p| !corner(p)).collect();
        assert!(edges.iter().all(|p| lit.contains(p)), "{what}: {lit:?}");
        assert!(lit.iter().all(|p| border().contains(p)), "{what}: {lit:?}");
        return println!(
            "SKIP: index_route {what} in polygon mode line (GL's corner pixels) needs \
             diamond-exit lines: the driver's lines light {lit:?}"
        );
    }
    assert_eq!(lit, border(), "{what}");
}

#[test]
fn quads_and_polygons_fill_and_draw_their_corners_as_points() {
    let _serial = serial();
    for mode in [PrimitiveMode::QUADS, PrimitiveMode::POLYGON] {
        let image = draw(mode, vk::PolygonMode::FILL, RING, plain([4, 1, 0, 0]));
        assert_eq!(lit(&image), inside(), "{mode:?}");
        let image = draw(mode, vk::PolygonMode::POINT, RING, plain([4, 1, 0, 0]));
        let mut points = lit(&image);
        points.sort();
        let mut expected = corners();
        expected.sort();
        assert_eq!(points, expected, "{mode:?}");
    }
}

#[test]
fn quad_strips_take_vertex_2i_plus_3s_flat_colour_and_drop_the_odd_vertex() {
    let _serial = serial();
    let strip = ("layer/quad_strip.vert", "layer/flat_color.frag");
    let fill = vk::PolygonMode::FILL;
    // Quad i (0-based) is vertices 2i, 2i+1, 2i+3, 2i+2, provoked by 2i+3 (GL's 1-based
    // 2i+2 of table 13.2); the 7th vertex makes no quad.
    let image = draw(PrimitiveMode::QUAD_STRIP, fill, strip, plain([7, 1, 0, 0]));
    let expected: Vec<u8> = (0..RENDER_SIZE * RENDER_SIZE)
        .map(|i| match i % RENDER_SIZE < RENDER_SIZE / 2 {
            true => red_of(3),
            false => red_of(5),
        })
        .collect();
    assert_eq!(reds(&image), expected);
    // Three vertices are no quad: nothing is drawn.
    let image = draw(PrimitiveMode::QUAD_STRIP, fill, strip, plain([3, 1, 0, 0]));
    assert!(lit(&image).is_empty());
}
