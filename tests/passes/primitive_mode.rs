//! The geometry shader that draws GL's quads, quad strips and polygons (`primitive_mode`),
//! for the vertex shaders under `tests/spirv/primitive_mode/` (compiled by glslang): every
//! generated shader passes `spirv-val`, and the vertices it emits follow GL's rules (GL 4.6
//! compatibility, table 13.2 and 14.6.4): each quad becomes two triangles with the quad's
//! winding whose provoking vertex is the quad's (its 4th under the last-vertex convention, a
//! strip's 2i+2), and polygon mode `GL_LINE` draws the quad's four edges, never a diagonal.

use crate::spirv_tools;

use glsem_spirv::module::Module;
use glsem_spirv::primitive_mode::{
    build_primitive_gs, Culling, GlPrimitive, PrimitiveGsKey, Rasterized,
};
use spirv::{Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};
use std::path::Path;

fn compile(name: &str) -> Vec<u32> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/spirv/primitive_mode")
        .join(name);
    spirv_tools::compile(&source, &["--target-env", "vulkan1.1"])
}

fn key(primitive: GlPrimitive, rasterized: Rasterized, provoking_last: bool) -> PrimitiveGsKey {
    PrimitiveGsKey {
        primitive,
        rasterized,
        provoking_last,
        point_size: true,
        culling: None,
        layer_copy: None,
        route_copy: None,
    }
}

/// The primitives a generated shader emits: per primitive, the `gl_in` index of each
/// vertex (read off the access chains into `gl_in` before each `OpEmitVertex`), for the
/// straight-line part of `main` and the part under one condition alike.
fn emitted(gs: &[u32]) -> Vec<Vec<u32>> {
    let m = Module::parse(gs).unwrap();
    let gl_in = m
        .names
        .iter()
        .find(|(_, name)| name.decode() == "gl_in")
        .map(|(&id, _)| id)
        .unwrap();
    let (mut primitives, mut current, mut vertex) = (Vec::new(), Vec::new(), None);
    for inst in &m.insts {
        match inst.op() {
            Some(Op::AccessChain) if inst.operand(2) == gl_in => {
                vertex = m.constant_u32(inst.operand(3));
            }
            Some(Op::EmitVertex) => current.push(vertex.take().unwrap()),
            Some(Op::EndPrimitive) => primitives.push(std::mem::take(&mut current)),
            _ => {}
        }
    }
    primitives
}

fn execution_modes(gs: &[u32]) -> Vec<(u32, Vec<u32>)> {
    let m = Module::parse(gs).unwrap();
    m.insts
        .iter()
        .filter(|i| i.op() == Some(Op::ExecutionMode))
        .map(|i| (i.operand(1), i.operands()[2..].to_vec()))
        .collect()
}

/// Whether `triangle` runs around `perimeter` in the same direction (a rotation of a
/// subsequence of it).
fn keeps_winding(triangle: &[u32], perimeter: &[u32; 4]) -> bool {
    let place = |v: u32| perimeter.iter().position(|&p| p == v).unwrap();
    let [a, b, c] = [place(triangle[0]), place(triangle[1]), place(triangle[2])];
    let forward = |x: usize, y: usize| (y + 4 - x) % 4;
    forward(a, b) + forward(b, c) + forward(c, a) == 4
}

#[test]
fn every_generated_shader_is_valid() {
    for source in ["varyings.vert", "position_only.vert"] {
        let vs = compile(source);
        for primitive in [
            GlPrimitive::Quads,
            GlPrimitive::QuadStrip,
            GlPrimitive::Polygon,
        ] {
            for rasterized in [Rasterized::Fill, Rasterized::Lines, Rasterized::Points] {
                for (last, culled) in [(true, false), (false, false), (true, true)] {
                    let mut key = key(primitive, rasterized, last);
                    key.culling = culled.then_some(Culling {
                        front_ccw: true,
                        cull_front: false,
                        cull_back: true,
                    });
                    match build_primitive_gs(&vs, "main", &key) {
                        Ok(gs) => spirv_tools::assert_valid(
                            &gs,
                            "vulkan1.1",
                            &format!("the geometry shader for {source}, {key:?}"),
                        ),
                        Err(e) => assert!(
                            primitive == GlPrimitive::Polygon && rasterized == Rasterized::Lines,
                            "{source}, {key:?}: {e}"
                        ),
                    }
                }
            }
        }
    }
}

#[test]
fn quads_are_two_triangles_provoked_by_the_quads_own_vertex() {
    let vs = compile("varyings.vert");
    for (primitive, perimeter, last_vertex) in [
        (GlPrimitive::Quads, [0, 1, 2, 3], 3),
        // Quad i of a strip runs 2i, 2i+1, 2i+3, 2i+2; vertex 2i+2 (1-based) provokes it.
        (GlPrimitive::QuadStrip, [0, 1, 3, 2], 3),
    ] {
        for (last, provoking) in [(true, last_vertex), (false, 0)] {
            let gs =
                build_primitive_gs(&vs, "main", &key(primitive, Rasterized::Fill, last)).unwrap();
            let triangles = emitted(&gs);
            assert_eq!(triangles.len(), 2, "{primitive:?}");
            for t in &triangles {
                assert_eq!(t.len(), 3);
                let taken = if last { t[2] } else { t[0] };
                assert_eq!(taken, provoking, "{primitive:?} last={last}: {triangles:?}");
                assert!(keeps_winding(t, &perimeter), "{primitive:?}: {t:?}");
            }
            let mut covered: Vec<u32> = triangles.concat();
            covered.sort();
            covered.dedup();
            assert_eq!(covered, [0, 1, 2, 3], "{primitive:?}: {triangles:?}");
            let modes = execution_modes(&gs);
            assert!(modes.contains(&(ExecutionMode::InputLinesAdjacency as u32, vec![])));
            assert!(modes.contains(&(ExecutionMode::OutputTriangleStrip as u32, vec![])));
        }
    }
}

#[test]
fn polygon_mode_line_draws_the_quads_edges_not_its_diagonal() {
    let vs = compile("varyings.vert");
    for (primitive, perimeter) in [
        (GlPrimitive::Quads, vec![0, 1, 2, 3, 0]),
        (GlPrimitive::QuadStrip, vec![0, 1, 3, 2, 0]),
    ] {
        let gs = build_primitive_gs(&vs, "main", &key(primitive, Rasterized::Lines, true)).unwrap();
        assert_eq!(emitted(&gs), [perimeter], "{primitive:?}");
        let modes = execution_modes(&gs);
        assert!(modes.contains(&(ExecutionMode::OutputLineStrip as u32, vec![])));
    }
}

#[test]
fn a_polygon_is_provoked_by_its_first_vertex_under_either_convention() {
    let vs = compile("varyings.vert");
    // Fan triangle i arrives as (v0, v(i+1), v(i+2)) under the last-vertex convention and
    // as (v(i+1), v(i+2), v0) under the first: the polygon's vertex 1 (v0) goes last, or
    // first, and the triangle keeps the fan's winding.
    for (last, expected) in [(true, [1, 2, 0]), (false, [2, 0, 1])] {
        let gs = build_primitive_gs(
            &vs,
            "main",
            &key(GlPrimitive::Polygon, Rasterized::Fill, last),
        )
        .unwrap();
        assert_eq!(emitted(&gs), [expected.to_vec()]);
    }
}

#[test]
fn flat_outputs_of_lines_and_points_come_from_the_provoking_vertex() {
    let vs = compile("varyings.vert");
    let gs = build_primitive_gs(
        &vs,
        "main",
        &key(GlPrimitive::Quads, Rasterized::Points, true),
    )
    .unwrap();
    let m = Module::parse(&gs).unwrap();
    // Every load from the flat inputs reads vertex 3; the smooth one reads each corner.
    let inputs = |flat: bool| -> Vec<u32> {
        m.entry_points[0]
            .interface
            .iter()
            .copied()
            .filter(|&v| matches!(m.variable(v), Some((StorageClass::Input, _))))
            .filter(|&v| m.has_decoration(v, Decoration::Location))
            .filter(|&v| m.has_decoration(v, Decoration::Flat) == flat)
            .collect()
    };
    let read = |vars: Vec<u32>| -> Vec<u32> {
        m.insts
            .iter()
            .filter(|i| i.op() == Some(Op::AccessChain) && vars.contains(&i.operand(2)))
            .map(|i| m.constant_u32(i.operand(3)).unwrap())
            .collect()
    };
    let flat = read(inputs(true));
    assert!(!flat.is_empty() && flat.iter().all(|&v| v == 3), "{flat:?}");
    let mut smooth = read(inputs(false));
    smooth.dedup();
    assert_eq!(smooth, [0, 1, 2, 3]);
}

#[test]
fn refused_where_a_geometry_shader_cannot_draw_gl_s_primitive() {
    let vs = compile("varyings.vert");
    let polygon_lines = key(GlPrimitive::Polygon, Rasterized::Lines, true);
    assert!(build_primitive_gs(&vs, "main", &polygon_lines).is_err());
    // gl_Layer cannot be read back by a geometry shader.
    let layered = compile("layer.vert");
    let quads = key(GlPrimitive::Quads, Rasterized::Fill, true);
    assert!(build_primitive_gs(&layered, "main", &quads).is_err());
    let gs = build_primitive_gs(&vs, "main", &quads).unwrap();
    let model = Module::parse(&gs).unwrap().entry_points[0].model;
    assert_eq!(model, ExecutionModel::Geometry);
}

#[test]
fn a_captured_vertex_shader_is_captured_from_the_geometry_shader() {
    let vs = compile("captured.vert");
    let quads = key(GlPrimitive::Quads, Rasterized::Fill, true);
    let gs = build_primitive_gs(&vs, "main", &quads).unwrap();
    spirv_tools::assert_valid(&gs, "vulkan1.1", "the geometry shader of a captured VS");
    let m = Module::parse(&gs).unwrap();
    assert!(execution_modes(&gs).contains(&(ExecutionMode::Xfb as u32, vec![])));
    // The varying keeps its buffer, stride and offset on the output the GS writes; the
    // position its member offset in the output gl_PerVertex.
    let outputs: Vec<u32> = m.entry_points[0]
        .interface
        .iter()
        .copied()
        .filter(|&v| matches!(m.variable(v), Some((StorageClass::Output, _))))
        .collect();
    let id = outputs
        .iter()
        .find(|&&v| m.decoration(v, Decoration::Location) == Some(&[0][..]))
        .unwrap();
    assert_eq!(m.decoration(*id, Decoration::Offset), Some(&[16][..]));
    assert_eq!(m.decoration(*id, Decoration::XfbBuffer), Some(&[0][..]));
    let block = outputs
        .iter()
        .find_map(|&v| {
            m.variable(v)
                .map(|(_, t)| t)
                .filter(|&t| m.is_builtin_block(t))
        })
        .unwrap();
    let offsets: Vec<_> = m.member_decorations[&block]
        .iter()
        .filter(|(_, d, _)| *d == Decoration::Offset)
        .collect();
    assert_eq!(offsets.len(), 1, "{offsets:?}");
}

/// The Locations of `storage` variables of `words`' entry point.
fn interface_locations(words: &[u32], storage: StorageClass) -> Vec<u32> {
    let m = Module::parse(words).unwrap();
    let mut locations: Vec<u32> = m.entry_points[0]
        .interface
        .iter()
        .filter(|&&v| matches!(m.variable(v), Some((s, _)) if s == storage))
        .filter_map(|&v| m.decoration(v, Decoration::Location).map(|l| l[0]))
        .collect();
    locations.sort_unstable();
    locations
}

#[test]
fn the_line_routes_varyings_are_written_by_the_geometry_shader_not_read() {
    let vs = compile("route_varyings.vert");
    let quads = key(GlPrimitive::Quads, Rasterized::Fill, true);
    let passed = build_primitive_gs(&vs, "main", &quads).unwrap();
    assert_eq!(
        interface_locations(&passed, StorageClass::Input),
        [0, 29, 30]
    );
    let written = PrimitiveGsKey {
        route_copy: Some(29),
        ..quads
    };
    let gs = build_primitive_gs(&vs, "main", &written).unwrap();
    spirv_tools::assert_valid(&gs, "vulkan1.1", "the geometry shader writing the route's");
    // A fragment shader made apart reads 29 and 30 from the geometry shader, which reads
    // only the vertex shader's own varying.
    assert_eq!(interface_locations(&gs, StorageClass::Input), [0]);
    assert_eq!(interface_locations(&gs, StorageClass::Output), [0, 29, 30]);
}
