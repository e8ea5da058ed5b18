//! `line_fragment`: GL's diamond-exit lines and stipple by the fragment shader. The last
//! pre-rasterization stage writes its window position (noperspective and flat, two new
//! Locations); the fragment shader discards at entry what GL's rule would not produce,
//! reading viewport 0 and the stipple from the GL-state block.

use crate::inspect::{builtin_var, compile, valid};
use crate::spirv_tools;

use glsem_spirv::error::PassError;
use glsem_spirv::gl_state::{
    FLAG_LINE_BANDS, FLAG_LINE_BAND_DOWN, FLAG_LINE_BAND_UP, FLAG_LINE_STIPPLE, LINE_STIPPLE,
    STIPPLE_COUNTS, VIEWPORT_OFFSET, VIEWPORT_SCALE,
};
use glsem_spirv::line_fragment::{
    discard_off_line_fragments, write_line_position, LineFragmentKey, ProvokingEnd, VertexPlace,
};
use glsem_spirv::module::{Module, Type};
use spirv::{BuiltIn, Decoration, Op, StorageClass};
use std::path::Path;

const ENVS: [&str; 3] = ["vulkan1.0", "vulkan1.2", "vulkan1.3"];

/// The variables of `storage` decorated `Location location`.
fn at_location(m: &Module<'_>, storage: StorageClass, location: u32) -> Vec<u32> {
    m.globals
        .keys()
        .copied()
        .filter(|&id| {
            matches!(m.variable(id), Some((s, _)) if s == storage)
                && m.decoration(id, Decoration::Location) == Some(&[location][..])
        })
        .collect()
}

fn key(provoking: ProvokingEnd, flipped: bool) -> LineFragmentKey {
    LineFragmentKey {
        location: 1,
        block_offset: 0,
        provoking,
        frag_coord_flipped: flipped,
        lines_gated: false,
        start_pixels: false,
        varyings_gated: false,
        subpixel_bits: 4,
    }
}

#[test]
fn the_vertex_shader_writes_its_position_noperspective_and_flat() {
    for env in ENVS {
        let words = compile("line_fragment", "line.vert", env);
        let out = write_line_position(&words, "main", 1, VertexPlace::Kept, false)
            .unwrap()
            .expect("a vertex shader gets the varyings");
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        let [point] = at_location(&m, StorageClass::Output, 1)[..] else {
            panic!("one output at Location 1")
        };
        let [end] = at_location(&m, StorageClass::Output, 2)[..] else {
            panic!("one output at Location 2")
        };
        assert!(m.has_decoration(point, Decoration::NoPerspective));
        assert!(m.has_decoration(end, Decoration::Flat));
        let ep = &m.entry_points[0];
        assert!(ep.interface.contains(&point) && ep.interface.contains(&end));
        // The parity comes from gl_VertexIndex, declared for it.
        let index = builtin_var(&m, BuiltIn::VertexIndex, StorageClass::Input).unwrap();
        assert!(ep.interface.contains(&index));
        let stores = |var| {
            m.insts
                .iter()
                .filter(|i| i.op() == Some(Op::Store) && i.operand(0) == var)
                .count()
        };
        assert_eq!((stores(point), stores(end)), (1, 1));
        assert!(m.insts.iter().any(|i| i.op() == Some(Op::FDiv)), "x / w");
    }
}

#[test]
fn a_shader_that_is_not_last_before_rasterization_is_left_alone() {
    let words = compile("line_fragment", "line.frag", "vulkan1.0");
    assert_eq!(
        write_line_position(&words, "main", 1, VertexPlace::Kept, false).unwrap(),
        None
    );
    let words = compile("line_fragment", "line.vert", "vulkan1.0");
    let k = key(ProvokingEnd::Last, false);
    assert_eq!(discard_off_line_fragments(&words, "main", k).unwrap(), None);
}

#[test]
fn the_fragment_shader_discards_at_entry() {
    for env in ENVS {
        for provoking in [ProvokingEnd::First, ProvokingEnd::Last] {
            for flipped in [false, true] {
                let words = compile("line_fragment", "line.frag", env);
                let before = Module::parse(&words).unwrap();
                let frag_coord =
                    builtin_var(&before, BuiltIn::FragCoord, StorageClass::Input).unwrap();
                let out = discard_off_line_fragments(&words, "main", key(provoking, flipped))
                    .unwrap()
                    .expect("a fragment shader gets the test");
                let out = valid(out, env);
                let m = Module::parse(&out).unwrap();
                let [point] = at_location(&m, StorageClass::Input, 1)[..] else {
                    panic!("one input at Location 1")
                };
                let [end] = at_location(&m, StorageClass::Input, 2)[..] else {
                    panic!("one input at Location 2")
                };
                assert!(m.has_decoration(point, Decoration::NoPerspective));
                assert!(m.has_decoration(end, Decoration::Flat));
                // The shader's own gl_FragCoord is read, not a second one.
                assert_eq!(
                    builtin_var(&m, BuiltIn::FragCoord, StorageClass::Input),
                    Some(frag_coord)
                );
                // The test runs first: the entry block ends in the branch to the kill.
                let body = m.function_body_start(m.entry_points[0].function).unwrap();
                let branch = m
                    .insts
                    .range(body..)
                    .position(|i| i.op() == Some(Op::BranchConditional))
                    .unwrap();
                assert!(m
                    .insts
                    .range(body..body + branch)
                    .all(|i| i.op() != Some(Op::Label)));
                assert_eq!(m.insts.at(body + branch - 1).op(), Some(Op::SelectionMerge));
                let kill = if env == "vulkan1.3" {
                    Op::TerminateInvocation
                } else {
                    Op::Kill
                };
                assert_eq!(m.insts.at(body + branch + 2).op(), Some(kill));
                // The line's direction is a derivative; the block is read.
                assert!(m.insts.iter().any(|i| i.op() == Some(Op::DPdx)));
                assert!(m.insts.iter().any(|i| i.op() == Some(Op::DPdy)));
                let block_var = m
                    .globals
                    .keys()
                    .copied()
                    .find(|&id| matches!(m.variable(id), Some((StorageClass::PushConstant, _))))
                    .expect("the GL-state block is declared");
                let (_, block) = m.variable(block_var).unwrap();
                let offsets: Vec<u32> = (0..9)
                    .map(|i| {
                        m.member_decoration_literal(block, i, Decoration::Offset)
                            .unwrap()
                    })
                    .collect();
                assert_eq!(offsets, [24, 28, 32, 36, 40, 44, 48, 52, 56]);
                let stipple_flag = m.insts.iter().any(|i| {
                    i.op() == Some(Op::Constant) && i.operands()[2..] == [FLAG_LINE_STIPPLE]
                });
                assert!(stipple_flag, "the stipple flag is tested");
            }
        }
    }
}

#[test]
fn a_fragment_shader_without_frag_coord_gets_one() {
    for env in ENVS {
        let words = compile("line_fragment", "state.frag", env);
        let before = Module::parse(&words).unwrap();
        assert_eq!(
            builtin_var(&before, BuiltIn::FragCoord, StorageClass::Input),
            None
        );
        let out = discard_off_line_fragments(&words, "main", key(ProvokingEnd::Last, false))
            .unwrap()
            .unwrap();
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        let frag_coord = builtin_var(&m, BuiltIn::FragCoord, StorageClass::Input).unwrap();
        assert!(m.entry_points[0].interface.contains(&frag_coord));
    }
}

#[test]
fn the_line_fields_join_a_gl_state_block_already_declared() {
    for env in ENVS {
        let words = compile("line_fragment", "state.frag", env);
        let before = Module::parse(&words).unwrap();
        let push = |m: &Module<'_>| {
            m.globals
                .keys()
                .copied()
                .filter(|&id| matches!(m.variable(id), Some((StorageClass::PushConstant, _))))
                .collect::<Vec<u32>>()
        };
        let [var] = push(&before)[..] else {
            panic!("one block")
        };
        let out = discard_off_line_fragments(&words, "main", key(ProvokingEnd::First, false))
            .unwrap()
            .unwrap();
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        assert_eq!(push(&m), [var], "the same block, grown");
        let (_, block) = m.variable(var).unwrap();
        let Some(Type::Struct { members }) = m.type_of(block) else {
            panic!("a struct")
        };
        assert_eq!(members.len(), 11);
        let offsets: Vec<u32> = (4..11)
            .map(|i| {
                m.member_decoration_literal(block, i, Decoration::Offset)
                    .unwrap()
            })
            .collect();
        assert_eq!(
            offsets,
            [
                VIEWPORT_SCALE,
                VIEWPORT_SCALE + 4,
                VIEWPORT_OFFSET,
                VIEWPORT_OFFSET + 4,
                LINE_STIPPLE,
                STIPPLE_COUNTS,
                STIPPLE_COUNTS + 4
            ]
        );
    }
}

#[test]
fn a_phi_naming_the_entry_block_names_the_block_after_the_test() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv/line_fragment/phi.spvasm");
    let words = spirv_tools::assemble(&source, "vulkan1.0");
    let out = discard_off_line_fragments(&words, "main", key(ProvokingEnd::Last, false))
        .unwrap()
        .unwrap();
    let out = valid(out, "vulkan1.0");
    let m = Module::parse(&out).unwrap();
    let phi = m.insts.iter().find(|i| i.op() == Some(Op::Phi)).unwrap();
    let merge = m
        .insts
        .iter()
        .find(|i| i.op() == Some(Op::SelectionMerge))
        .unwrap()
        .operand(0);
    assert_eq!(phi.operand(3), merge);
}

#[test]
fn a_push_constant_block_of_the_shaders_own_is_unsupported() {
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv/line_fragment/own_block.frag");
    let words = spirv_tools::compile(&source, &["--target-env", "vulkan1.0"]);
    let err = discard_off_line_fragments(&words, "main", key(ProvokingEnd::Last, false));
    assert!(err.is_err());
}

#[test]
fn early_fragment_tests_are_unsupported() {
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv/line_fragment/early_tests.frag");
    let words = spirv_tools::compile(&source, &["--target-env", "vulkan1.0"]);
    let err = discard_off_line_fragments(&words, "main", key(ProvokingEnd::Last, false));
    assert!(
        matches!(err, Err(PassError::Unsupported(ref why)) if why.contains("early fragment tests")),
        "{err:?}"
    );
}

#[test]
fn a_dynamic_topology_tests_the_lines_flag_too() {
    for env in ENVS {
        let words = compile("line_fragment", "line.frag", env);
        let equalities = |gated: bool| {
            let key = LineFragmentKey {
                lines_gated: gated,
                start_pixels: false,
                varyings_gated: false,
                ..key(ProvokingEnd::Last, false)
            };
            let out = discard_off_line_fragments(&words, "main", key)
                .unwrap()
                .unwrap();
            let out = valid(out, env);
            let m = Module::parse(&out).unwrap();
            m.insts
                .iter()
                .filter(|i| i.op() == Some(Op::IEqual))
                .count()
        };
        assert_eq!(
            equalities(true),
            equalities(false) + 1,
            "FLAG_LINES == 0 is tested"
        );
    }
}

#[test]
fn the_start_pixel_pass_mirrors_the_vertices_and_tests_only_start_pixels() {
    for env in ENVS {
        // The vertex shader reads viewport 0 from the GL-state block it declares, and
        // floors its window position (x and y) to find the pixel's centre.
        let words = compile("line_fragment", "line.vert", env);
        let plain = write_line_position(&words, "main", 1, VertexPlace::Kept, false)
            .unwrap()
            .unwrap();
        let mirrored = write_line_position(
            &words,
            "main",
            1,
            VertexPlace::Mirrored { block_offset: 0 },
            false,
        )
        .unwrap()
        .expect("a vertex shader gets the varyings");
        let mirrored = valid(mirrored, env);
        let m = Module::parse(&mirrored).unwrap();
        assert!(
            m.globals
                .keys()
                .any(|&id| matches!(m.variable(id), Some((StorageClass::PushConstant, _)))),
            "the GL-state block"
        );
        let floors = |words: &[u32]| {
            Module::parse(words)
                .unwrap()
                .insts
                .iter()
                .filter(|i| i.op() == Some(Op::ExtInst) && i.words.get(4) == Some(&8))
                .count()
        };
        assert_eq!(floors(&mirrored), floors(&plain) + 2);
        // The fragment shader's test for the second draw differs from the first's.
        let words = compile("line_fragment", "line.frag", env);
        let first = discard_off_line_fragments(&words, "main", key(ProvokingEnd::Last, false))
            .unwrap()
            .unwrap();
        let start = LineFragmentKey {
            start_pixels: true,
            ..key(ProvokingEnd::Last, false)
        };
        let second = discard_off_line_fragments(&words, "main", start)
            .unwrap()
            .unwrap();
        assert_ne!(first, second);
        valid(second, env);
    }
}

/// Whether `words` holds a 32-bit integer constant of value `value`.
fn has_u32_constant(words: &[u32], value: u32) -> bool {
    Module::parse(words)
        .unwrap()
        .insts
        .iter()
        .any(|i| i.op() == Some(Op::Constant) && i.words.get(3) == Some(&value))
}

#[test]
fn the_band_passes_move_the_vertices_and_split_the_fragments() {
    for env in ENVS {
        // The vertex shader reads the block's flags and viewport, and moves its vertex by
        // one subpixel (1/16: the constant) only in the band passes.
        let words = compile("line_fragment", "line.vert", env);
        let kept = write_line_position(&words, "main", 1, VertexPlace::Kept, false)
            .unwrap()
            .unwrap();
        let place = VertexPlace::Banded {
            block_offset: 0,
            subpixel_bits: 4,
        };
        let banded = write_line_position(&words, "main", 1, place, false)
            .unwrap()
            .unwrap();
        let banded = valid(banded, env);
        for bit in [FLAG_LINE_BAND_UP, FLAG_LINE_BAND_DOWN] {
            assert!(has_u32_constant(&banded, bit) && !has_u32_constant(&kept, bit));
        }
        let step =
            |words: &[u32], value: f32| {
                Module::parse(words).unwrap().insts.iter().any(|i| {
                    i.op() == Some(Op::Constant) && i.words.get(3) == Some(&value.to_bits())
                })
            };
        assert!(step(&banded, 1.0 / 16.0) && step(&banded, -1.0 / 16.0));
        assert!(!step(&kept, 1.0 / 16.0));
        // The fragment test reads the three flags: the first draw gives the bands away, the
        // moved draws keep them, two subpixels wide (0.5 - 2/16).
        let words = compile("line_fragment", "line.frag", env);
        let test = discard_off_line_fragments(&words, "main", key(ProvokingEnd::Last, false))
            .unwrap()
            .unwrap();
        let test = valid(test, env);
        for bit in [FLAG_LINE_BANDS, FLAG_LINE_BAND_UP, FLAG_LINE_BAND_DOWN] {
            assert!(has_u32_constant(&test, bit), "flag {bit:#x} tested");
        }
        assert!(step(&test, 0.5 - 2.0 / 16.0), "the band's inner edge");
        // The start-pixel pass's test is not split.
        let start = LineFragmentKey {
            start_pixels: true,
            ..key(ProvokingEnd::Last, false)
        };
        let start = discard_off_line_fragments(&words, "main", start)
            .unwrap()
            .unwrap();
        assert!(!has_u32_constant(&start, FLAG_LINE_BANDS));
    }
}

#[test]
fn a_vertex_shader_that_counts_captures_and_reads_a_strips_stipple() {
    use glsem_spirv::gl_state::{FLAG_STIPPLE_CAPTURE, FLAG_STIPPLE_COUNTED};
    use spirv::{AddressingModel, Capability};
    let addressing = |words: &[u32]| {
        let m = Module::parse(words).unwrap();
        let model = m.insts.iter().find(|i| i.op() == Some(Op::MemoryModel));
        (
            model.unwrap().operand(0),
            m.declares_capability(Capability::PhysicalStorageBufferAddresses),
        )
    };
    for env in ENVS {
        let words = compile("line_fragment", "line.vert", env);
        let place = VertexPlace::Banded {
            block_offset: 0,
            subpixel_bits: 4,
        };
        // Counting: physical addresses, both flags read, gl_InstanceIndex declared.
        let counting = write_line_position(&words, "main", 1, place, true)
            .unwrap()
            .unwrap();
        let counting = valid(counting, env);
        assert_eq!(
            addressing(&counting),
            (AddressingModel::PhysicalStorageBuffer64 as u32, true)
        );
        assert!(has_u32_constant(
            &counting,
            FLAG_STIPPLE_CAPTURE | FLAG_STIPPLE_COUNTED
        ));
        assert!(has_u32_constant(&counting, FLAG_STIPPLE_CAPTURE));
        let instance_index = Module::parse(&counting).unwrap().insts.iter().any(|i| {
            i.op() == Some(Op::Decorate)
                && i.operand(1) == spirv::Decoration::BuiltIn as u32
                && i.operand(2) == spirv::BuiltIn::InstanceIndex as u32
        });
        assert!(instance_index, "gl_InstanceIndex declared for the slot");
        // Not counting, or a stage that does not read the block: the module keeps its
        // logical addressing.
        let banded = write_line_position(&words, "main", 1, place, false)
            .unwrap()
            .unwrap();
        assert_eq!(
            addressing(&banded),
            (AddressingModel::Logical as u32, false)
        );
        let kept = write_line_position(&words, "main", 1, VertexPlace::Kept, true)
            .unwrap()
            .unwrap();
        assert_eq!(addressing(&kept), (AddressingModel::Logical as u32, false));
    }
}
