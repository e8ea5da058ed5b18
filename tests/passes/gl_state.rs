//! The passes that write GL state into the last pre-rasterization stage (`point_size`,
//! `clip_enables`, `clip_depth`, `line_endpoints`), on glslang-compiled GLSL
//! (`tests/spirv/gl_state/`).
//!
//! Each rewritten module must pass `spirv-val`; the assertions check the GL rule each pass
//! implements: what is stored into the built-in before every exit, and from where.

use crate::spirv_tools;

use glsem_spirv::builtin_output;
use glsem_spirv::clip_enables::gate_clip_distances;
use glsem_spirv::clip_space_depth::remap_clip_depth;
use glsem_spirv::gl_state::{self, BLOCK_SIZE, FLAG_LINES, FLAG_MULTISAMPLED};
use glsem_spirv::line_endpoints::{move_endpoints_off_edges, EndpointGrid, LineEndpoints};
use glsem_spirv::module::Module;
use glsem_spirv::point_size::{write_point_size, PointSizeSource};
use glsem_spirv::rule::Stage;
use glsem_spirv::PassError;
use spirv::{BuiltIn, Capability, Decoration, ExecutionModel, Op, StorageClass};
use std::path::Path;

const ENVS: [(&str, &str); 2] = [("vulkan1.0", "vulkan1.0"), ("vulkan1.2", "vulkan1.2")];
/// Where a layout with no ranges of its own puts the block on a 128-byte device.
const BLOCK_OFFSET: u32 = 128 - BLOCK_SIZE;

fn compile(name: &str, env: &str) -> Vec<u32> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/spirv/gl_state")
        .join(name);
    spirv_tools::compile(&source, &["--target-env", env])
}

/// The rewritten module, once spirv-val accepted it.
fn valid(words: Vec<u32>, env: &str) -> Vec<u32> {
    spirv_tools::assert_valid(&words, env, "the rewritten module");
    words
}

fn model_of(m: &Module<'_>) -> ExecutionModel {
    m.entry_points[0].model
}

/// Values stored into `builtin` (or into element `element` of it), in module order.
fn stores_into(m: &Module<'_>, builtin: BuiltIn, element: Option<u32>) -> Vec<u32> {
    let ep = &m.entry_points[0];
    let out = builtin_output::find(m, ep, builtin).expect("the built-in is declared");
    let mut pointers = Vec::new();
    if element.is_none() && matches!(out, builtin_output::BuiltinOutput::Variable { .. }) {
        pointers.push(out.var());
    }
    let mut values = Vec::new();
    for inst in &m.insts {
        match inst.op() {
            Some(Op::AccessChain) if inst.operand(2) == out.var() => {
                let indices: Vec<Option<u32>> = inst.operands()[3..]
                    .iter()
                    .map(|&i| m.constant_u32(i))
                    .collect();
                let mut expected = Vec::new();
                if let builtin_output::BuiltinOutput::Member { member, .. } = out {
                    expected.push(Some(member));
                }
                if let Some(e) = element {
                    expected.push(Some(e));
                }
                if indices == expected {
                    pointers.push(inst.operand(1));
                }
            }
            Some(Op::Store) if pointers.contains(&inst.operand(0)) => values.push(inst.operand(1)),
            _ => {}
        }
    }
    values
}

fn float_constant(m: &Module<'_>, id: u32) -> Option<f32> {
    let inst = m.insts.at(*m.globals.get(&id)?);
    (inst.op() == Some(Op::Constant)).then(|| f32::from_bits(inst.operand(2)))
}

fn opcode_of(m: &Module<'_>, id: u32) -> Option<Op> {
    m.insts
        .iter()
        .find(|i| i.result_id() == Some(id))
        .and_then(|i| i.op())
}

fn count(m: &Module<'_>, op: Op) -> usize {
    m.insts.iter().filter(|i| i.op() == Some(op)).count()
}

/// The push-constant variables and the Offsets of their block's members.
fn push_blocks(m: &Module<'_>) -> Vec<Vec<u32>> {
    let mut blocks: Vec<Vec<u32>> = m
        .globals
        .keys()
        .filter_map(|&id| match m.variable(id)? {
            (StorageClass::PushConstant, block) => Some(
                m.member_decorations
                    .get(&block)
                    .into_iter()
                    .flatten()
                    .filter(|(_, d, _)| *d == Decoration::Offset)
                    .map(|(_, _, lits)| lits[0])
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    blocks.sort();
    blocks
}

fn has_capability(m: &Module<'_>, cap: Capability) -> bool {
    m.insts
        .iter()
        .any(|i| i.op() == Some(Op::Capability) && i.operand(0) == cap as u32)
}

#[test]
fn a_vertex_shader_without_point_size_writes_gl_default_before_every_return() {
    for (glslang, val) in ENVS {
        let words = compile("early_return.vert", glslang);
        let out = write_point_size(&words, "main", PointSizeSource::Default)
            .unwrap()
            .expect("a shader that never writes gl_PointSize gets GL's 1.0");
        let out = valid(out, val);
        let m = Module::parse(&out).unwrap();
        let values = stores_into(&m, BuiltIn::PointSize, None);
        assert_eq!(values.len(), count(&m, Op::Return), "one write per return");
        assert!(values.len() >= 2, "the early return gets its write too");
        assert!(values.iter().all(|&v| float_constant(&m, v) == Some(1.0)));
        assert!(
            push_blocks(&m).is_empty(),
            "no GL state without the extension"
        );
    }
}

#[test]
fn a_shader_that_writes_point_size_keeps_it_without_gl_state() {
    let words = compile("point_size.vert", "vulkan1.0");
    assert_eq!(
        write_point_size(&words, "main", PointSizeSource::Default),
        Ok(None)
    );
}

#[test]
fn gl_state_selects_the_shader_size_only_with_program_point_size() {
    for (glslang, val) in ENVS {
        let words = compile("point_size.vert", glslang);
        let source = PointSizeSource::GlState {
            block_offset: BLOCK_OFFSET,
        };
        let out = valid(
            write_point_size(&words, "main", source).unwrap().unwrap(),
            val,
        );
        let m = Module::parse(&out).unwrap();
        let values = stores_into(&m, BuiltIn::PointSize, None);
        // The shader's own store of 5.0, then the layer's choice before the return.
        assert_eq!(values.len(), 2);
        assert_eq!(float_constant(&m, values[0]), Some(5.0));
        assert_eq!(opcode_of(&m, values[1]), Some(Op::Select));
        assert_eq!(
            push_blocks(&m),
            [vec![
                BLOCK_OFFSET + gl_state::POINT_SIZE,
                BLOCK_OFFSET + gl_state::FLAGS,
                BLOCK_OFFSET + gl_state::WINDOW_HEIGHT,
                BLOCK_OFFSET + gl_state::BASE_INSTANCE,
                BLOCK_OFFSET + gl_state::VIEWPORT_SCALE,
                BLOCK_OFFSET + gl_state::VIEWPORT_SCALE + 4,
                BLOCK_OFFSET + gl_state::VIEWPORT_OFFSET,
                BLOCK_OFFSET + gl_state::VIEWPORT_OFFSET + 4,
                BLOCK_OFFSET + gl_state::LINE_STIPPLE,
                BLOCK_OFFSET + gl_state::STIPPLE_COUNTS,
                BLOCK_OFFSET + gl_state::STIPPLE_COUNTS + 4,
            ]]
        );
    }
}

#[test]
fn gl_state_gives_shaders_without_point_size_the_state_size() {
    let words = compile("no_point_size.vert", "vulkan1.0");
    let source = PointSizeSource::GlState {
        block_offset: BLOCK_OFFSET,
    };
    let out = valid(
        write_point_size(&words, "main", source).unwrap().unwrap(),
        "vulkan1.0",
    );
    let m = Module::parse(&out).unwrap();
    let values = stores_into(&m, BuiltIn::PointSize, None);
    assert_eq!(values.len(), 1);
    assert_eq!(
        opcode_of(&m, values[0]),
        Some(Op::Load),
        "the block's point_size"
    );
}

#[test]
fn a_geometry_shader_writes_the_size_before_every_emit() {
    for (glslang, val) in ENVS {
        let words = compile("points.geom", glslang);
        let out = write_point_size(&words, "main", PointSizeSource::Default)
            .unwrap()
            .unwrap();
        let out = valid(out, val);
        let m = Module::parse(&out).unwrap();
        assert_eq!(model_of(&m), ExecutionModel::Geometry);
        assert_eq!(stores_into(&m, BuiltIn::PointSize, None).len(), 2);
        assert!(has_capability(&m, Capability::GeometryPointSize));
    }
}

#[test]
fn a_point_mode_tessellation_shader_declares_the_point_size_capability() {
    let words = compile("point_mode.tese", "vulkan1.0");
    let out = write_point_size(&words, "main", PointSizeSource::Default)
        .unwrap()
        .unwrap();
    let out = valid(out, "vulkan1.0");
    let m = Module::parse(&out).unwrap();
    assert_eq!(stores_into(&m, BuiltIn::PointSize, None).len(), 1);
    assert!(has_capability(&m, Capability::TessellationPointSize));
}

#[test]
fn disabled_clip_planes_get_a_distance_that_clips_nothing() {
    for (glslang, val) in ENVS {
        let words = compile("clip_distances.vert", glslang);
        let out = gate_clip_distances(&words, "main", BLOCK_OFFSET)
            .unwrap()
            .unwrap();
        let out = valid(out, val);
        let m = Module::parse(&out).unwrap();
        for plane in 0..2 {
            let values = stores_into(&m, BuiltIn::ClipDistance, Some(plane));
            // The shader's store, then the gated one: the written value or 1.0.
            assert_eq!(values.len(), 2, "plane {plane}");
            let gated = m
                .insts
                .iter()
                .find(|i| i.result_id() == Some(values[1]))
                .unwrap();
            assert_eq!(gated.op(), Some(Op::Select));
            assert_eq!(float_constant(&m, gated.operand(4)), Some(1.0));
        }
    }
}

#[test]
fn a_shader_without_clip_distances_is_left_alone() {
    let words = compile("no_point_size.vert", "vulkan1.0");
    assert_eq!(gate_clip_distances(&words, "main", BLOCK_OFFSET), Ok(None));
}

#[test]
fn point_size_and_clip_enables_share_one_block() {
    let words = compile("clip_distances.vert", "vulkan1.2");
    let source = PointSizeSource::GlState {
        block_offset: BLOCK_OFFSET,
    };
    let sized = write_point_size(&words, "main", source).unwrap().unwrap();
    let both = gate_clip_distances(&sized, "main", BLOCK_OFFSET)
        .unwrap()
        .unwrap();
    let both = valid(both, "vulkan1.2");
    let m = Module::parse(&both).unwrap();
    assert_eq!(push_blocks(&m).len(), 1);
}

/// Transform feedback captures the shader's `gl_PointSize` and `gl_ClipDistance` (GL 4.6
/// §13.3), while GL's point size and plane enables decide what is rasterized and clipped:
/// the capture moves to outputs of their own, at the buffer, stride and offsets the shader
/// gave the built-ins, holding the values the shader wrote; the built-ins are no longer
/// captured.
#[test]
fn a_captured_point_size_and_clip_distances_keep_the_shaders_values() {
    let words = compile("captured_point_size_clip.vert", "vulkan1.0");
    let source = PointSizeSource::GlState {
        block_offset: BLOCK_OFFSET,
    };
    let sized = write_point_size(&words, "main", source).unwrap().unwrap();
    let both = gate_clip_distances(&sized, "main", BLOCK_OFFSET)
        .unwrap()
        .unwrap();
    let both = valid(both, "vulkan1.0");
    let m = Module::parse(&both).unwrap();
    let ep = &m.entry_points[0];
    let named = |name: &str| {
        *m.names
            .iter()
            .find(|(_, n)| n.decode() == name)
            .map(|(id, _)| id)
            .unwrap_or_else(|| panic!("{name}"))
    };
    // The color output takes Location 0: the copies go past it, one Location per float.
    for (name, offset, location) in [
        ("glsem_captured_point_size", 0, 1),
        ("glsem_captured_clip_distance", 4, 2),
    ] {
        let var = named(name);
        assert!(ep.interface.contains(&var), "{name} in the interface");
        assert_eq!(m.decoration_literal(var, Decoration::XfbBuffer), Some(0));
        assert_eq!(m.decoration_literal(var, Decoration::XfbStride), Some(12));
        assert_eq!(m.decoration_literal(var, Decoration::Offset), Some(offset));
        assert_eq!(
            m.decoration_literal(var, Decoration::Location),
            Some(location)
        );
        // What is stored there is a load of the built-in, before GL's value replaces it.
        let store = m
            .insts
            .iter()
            .find(|i| i.op() == Some(Op::Store) && i.operand(0) == var)
            .unwrap_or_else(|| panic!("{name} written"));
        assert_eq!(opcode_of(&m, store.operand(1)), Some(Op::Load), "{name}");
    }
    // The gl_PerVertex members keep no capture offset.
    let out = builtin_output::find(&m, ep, BuiltIn::PointSize).unwrap();
    let (_, block) = m.variable(out.var()).unwrap();
    for member in 0..3 {
        assert_eq!(
            m.member_decoration_literal(block, member, Decoration::Offset),
            None,
            "member {member}"
        );
    }
    // Without a capture nothing moves.
    let plain = compile("clip_distances.vert", "vulkan1.0");
    let gated = gate_clip_distances(&plain, "main", BLOCK_OFFSET)
        .unwrap()
        .unwrap();
    let m = Module::parse(&gated).unwrap();
    assert!(!m
        .names
        .values()
        .any(|n| n.decode().starts_with("glsem_captured")));
}

#[test]
fn a_stage_with_push_constants_of_its_own_is_refused_for_gl_state() {
    let words = compile("own_push_constants.vert", "vulkan1.0");
    let source = PointSizeSource::GlState {
        block_offset: BLOCK_OFFSET,
    };
    assert!(matches!(
        write_point_size(&words, "main", source),
        Err(PassError::Unsupported(_))
    ));
    // GL's default needs no block.
    assert!(write_point_size(&words, "main", PointSizeSource::Default)
        .unwrap()
        .is_some());
}

#[test]
fn clip_depth_maps_z_to_half_of_z_plus_w() {
    for (glslang, val) in ENVS {
        let words = compile("early_return.vert", glslang);
        let out = remap_clip_depth(&words, "main").unwrap().unwrap();
        let out = valid(out, val);
        let m = Module::parse(&out).unwrap();
        let values = stores_into(&m, BuiltIn::Position, None);
        let remapped: Vec<&u32> = values
            .iter()
            .filter(|&&v| opcode_of(&m, v) == Some(Op::CompositeInsert))
            .collect();
        assert_eq!(remapped.len(), count(&m, Op::Return));
        assert_eq!(
            count(&m, Op::FAdd),
            remapped.len() + 1,
            "z + w, and the shader's y += 1"
        );
    }
}

#[test]
fn clip_depth_refuses_a_captured_position() {
    let words = compile("captured_position.vert", "vulkan1.0");
    assert!(matches!(
        remap_clip_depth(&words, "main"),
        Err(PassError::Unsupported(_))
    ));
}

/// The step of a last pre-rasterization stage on a rasterizer with 8 subpixel bits.
fn endpoints(stage: Stage, lines_gated: bool, samples_gated: bool) -> LineEndpoints {
    LineEndpoints {
        stage,
        block_offset: BLOCK_OFFSET,
        grid: EndpointGrid {
            subpixel_bits: 8,
            toward_centre: false,
        },
        lines_gated,
        samples_gated,
    }
}

/// `name` (glslang's `env`) with its line endpoints moved by `step`, once spirv-val accepted it.
fn moved(name: &str, env: &str, step: &LineEndpoints) -> Vec<u32> {
    let words = compile(name, env);
    let out = move_endpoints_off_edges(&words, "main", step).unwrap();
    valid(out.expect("gl_Position is written"), env)
}

/// The flags bits an `OpBitwiseAnd` of a value loaded from the block tests (not the mask of
/// a subpixel within its pixel).
fn tested_flags(m: &Module<'_>) -> Vec<u32> {
    m.insts
        .iter()
        .filter(|i| i.op() == Some(Op::BitwiseAnd))
        .filter(|i| opcode_of(m, i.operand(2)) == Some(Op::Load))
        .filter_map(|i| m.constant_u32(i.operand(3)))
        .collect()
}

#[test]
fn line_endpoints_are_moved_before_every_exit_from_the_viewport_in_the_block() {
    for (env, _) in ENVS {
        let out = moved(
            "early_return.vert",
            env,
            &endpoints(Stage::Vertex, false, false),
        );
        let m = Module::parse(&out).unwrap();
        // The shader's store of the whole position (its `.y +=` stores one component),
        // then before each of its two returns the position with its y chosen between the
        // shader's and the moved one.
        let values = stores_into(&m, BuiltIn::Position, None);
        assert_eq!(values.len(), 3, "{env}");
        for &value in &values[1..] {
            assert_eq!(opcode_of(&m, value), Some(Op::CompositeInsert));
            let inserted = m
                .insts
                .iter()
                .find(|i| i.result_id() == Some(value))
                .unwrap();
            assert_eq!(inserted.operands()[4..], [1], "y is what changes");
            assert_eq!(opcode_of(&m, inserted.operand(2)), Some(Op::Select));
        }
        // The viewport's transform comes from the block, four floats after the base instance.
        let block = push_blocks(&m);
        let viewport: Vec<u32> = (0..4)
            .map(|i| BLOCK_OFFSET + gl_state::VIEWPORT_SCALE + 4 * i)
            .collect();
        assert!(viewport.iter().all(|o| block[0].contains(o)), "{block:?}");
        // Snapped as the rasterizer snaps: to 1/256 pixel, through integers.
        assert!(m.insts.iter().any(|i| i.op() == Some(Op::ConvertFToS)));
        assert!(m
            .globals
            .keys()
            .any(|&id| float_constant(&m, id) == Some(256.0)));
        // Ungated: no flag is read.
        assert!(tested_flags(&m).is_empty());
    }
}

#[test]
fn gated_line_endpoints_read_the_lines_and_sample_flags() {
    let out = moved(
        "early_return.vert",
        "vulkan1.0",
        &endpoints(Stage::Vertex, true, true),
    );
    let m = Module::parse(&out).unwrap();
    let mut flags = tested_flags(&m);
    flags.sort();
    flags.dedup();
    assert_eq!(flags, [FLAG_MULTISAMPLED, FLAG_LINES]);
}

#[test]
fn a_geometry_shader_moves_line_endpoints_before_every_emit() {
    let out = moved(
        "lines.geom",
        "vulkan1.0",
        &endpoints(Stage::Geometry, false, false),
    );
    let m = Module::parse(&out).unwrap();
    assert_eq!(model_of(&m), ExecutionModel::Geometry);
    // The shader's store in the loop, and the layer's before the one emit in it.
    let values = stores_into(&m, BuiltIn::Position, None);
    assert_eq!(values.len(), 2);
    assert_eq!(opcode_of(&m, values[1]), Some(Op::CompositeInsert));
    assert_eq!(count(&m, Op::EmitVertex), 1);
}

#[test]
fn a_captured_position_keeps_the_shaders_value_where_line_endpoints_move() {
    let out = moved(
        "captured_position.vert",
        "vulkan1.0",
        &endpoints(Stage::Vertex, false, false),
    );
    let m = Module::parse(&out).unwrap();
    let ep = &m.entry_points[0];
    let (&captured, _) = m
        .names
        .iter()
        .find(|(_, n)| n.decode() == "glsem_captured_position")
        .expect("the capture moves to an output of its own");
    assert!(ep.interface.contains(&captured));
    assert_eq!(
        m.decoration_literal(captured, Decoration::XfbBuffer),
        Some(0)
    );
    assert_eq!(m.decoration_literal(captured, Decoration::Offset), Some(0));
    let store = m
        .insts
        .iter()
        .find(|i| i.op() == Some(Op::Store) && i.operand(0) == captured)
        .expect("the shader's position is stored there");
    assert_eq!(opcode_of(&m, store.operand(1)), Some(Op::Load));
    let out = builtin_output::find(&m, ep, BuiltIn::Position).unwrap();
    let (_, block) = m.variable(out.var()).unwrap();
    assert_eq!(
        m.member_decoration_literal(block, 0, Decoration::Offset),
        None
    );
}
