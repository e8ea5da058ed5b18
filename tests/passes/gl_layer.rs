//! `layer_output`: a layer written on a framebuffer that is not layered has no effect (GL 3.2
//! core §4.4.7), so before every emit the written `gl_Layer` is gated by the block's flag;
//! the fragment shader's `gl_Layer` still reads the layer as written (GLSL 4.30 §7.1.5),
//! through a copy at a free Location.

use crate::inspect::{builtin_var, compile, def, from_push_constant, valid};
use crate::spirv_tools;

use std::path::Path;

use glsem_spirv::gl_layer::{gate_layer, read_layer_from};
use glsem_spirv::gl_state::{BLOCK_SIZE, FLAG_LAYERED};
use glsem_spirv::module::{Module, Type};
use glsem_spirv::scan::{scan, scan_with_interface_ends};
use spirv::{BuiltIn, Decoration, Op, StorageClass};

#[test]
fn every_emit_writes_layered_then_layer_else_zero() {
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("gl_layer", "layer.geom", env);
        let out = gate_layer(&words, "main", Some(128 - BLOCK_SIZE), None)
            .unwrap()
            .expect("gl_Layer is written");
        let out = valid(out, env);
        let m = Module::parse(&out).unwrap();
        let layer = builtin_var(&m, BuiltIn::Layer, StorageClass::Output).unwrap();
        for emit in emit_vertices(&m) {
            let store = m.insts.at(emit - 1);
            assert_eq!(
                store.op(),
                Some(Op::Store),
                "the gate right before the emit"
            );
            assert_eq!(store.operand(0), layer);
            let select = def(&m, store.operand(1));
            assert_eq!(select.op(), Some(Op::Select));
            let written = def(&m, select.operand(3));
            assert_eq!((written.op(), written.operand(2)), (Some(Op::Load), layer));
            assert_eq!(
                m.constant_u32(select.operand(4)),
                Some(0),
                "layer 0 otherwise"
            );
            let condition = def(&m, select.operand(2));
            let masked = def(&m, condition.operand(2));
            assert_eq!(masked.op(), Some(Op::BitwiseAnd));
            assert!(from_push_constant(&m, masked.operand(2)));
            assert_eq!(m.constant_u32(masked.operand(3)), Some(FLAG_LAYERED));
        }
    }
}

/// The indices of the module's `OpEmitVertex` instructions, of which there is one at least.
fn emit_vertices(m: &Module<'_>) -> Vec<usize> {
    let emits: Vec<usize> = (0..m.insts.len())
        .filter(|&i| m.insts.at(i).op() == Some(Op::EmitVertex))
        .collect();
    assert!(!emits.is_empty(), "no EmitVertex");
    emits
}

/// The Location the layer's copy goes to, as `semantics::choose` picks it from the scans.
fn copy_location(last: &[u32], fragment: &[u32]) -> u32 {
    let last = scan(last).location_ends.expect("the GS declares gl_Layer");
    let fragment = scan(fragment)
        .location_ends
        .expect("the FS declares gl_Layer");
    last.output.max(fragment.input)
}

/// `(variable, pointee type)` of a `storage` variable at `location`.
fn variable_at(m: &Module<'_>, storage: StorageClass, location: u32) -> Option<(u32, u32)> {
    m.globals.keys().copied().find_map(|var| {
        let (class, pointee) = m.variable(var)?;
        let at = m.decoration(var, Decoration::Location)?.first() == Some(&location);
        (class == storage && at).then_some((var, pointee))
    })
}

#[test]
fn the_fragment_shader_reads_the_layer_as_written_at_a_free_location() {
    for env in ["vulkan1.0", "vulkan1.2"] {
        let gs = compile("gl_layer", "varyings.geom", env);
        let fs = compile("gl_layer", "reads_layer.frag", env);
        // GS outputs end at 4 (vec4, mat2, a block of an ivec2 at 3); FS inputs at 5.
        let location = copy_location(&gs, &fs);
        assert_eq!(location, 5);

        let gs_out = gate_layer(&gs, "main", Some(128 - BLOCK_SIZE), Some(location))
            .unwrap()
            .expect("gl_Layer is written");
        let gs_out = valid(gs_out, env);
        let m = Module::parse(&gs_out).unwrap();
        let layer = builtin_var(&m, BuiltIn::Layer, StorageClass::Output).unwrap();
        let (copy, copy_type) = variable_at(&m, StorageClass::Output, location)
            .expect("the copy is an output at the free Location");
        assert!(m.has_decoration(copy, Decoration::Flat));
        assert!(m.entry_points[0].interface.contains(&copy));
        for emit in emit_vertices(&m) {
            let store = m.insts.at(emit - 1);
            assert_eq!((store.op(), store.operand(0)), (Some(Op::Store), copy));
            let written = def(&m, store.operand(1));
            assert_eq!(
                (written.op(), written.operand(2)),
                (Some(Op::Load), layer),
                "the copy is the layer as written, not the gated one"
            );
        }

        let fs_out = read_layer_from(&fs, "main", location)
            .unwrap()
            .expect("gl_Layer is read");
        let fs_out = valid(fs_out, env);
        let m = Module::parse(&fs_out).unwrap();
        assert_eq!(builtin_var(&m, BuiltIn::Layer, StorageClass::Input), None);
        let (input, input_type) = variable_at(&m, StorageClass::Input, location)
            .expect("gl_Layer is an input at the copy's Location");
        assert!(m.has_decoration(input, Decoration::Flat));
        assert_eq!(
            m.type_of(input_type),
            Some(&Type::Int {
                width: 32,
                signed: true
            })
        );
        let gs_module = Module::parse(&gs_out).unwrap();
        assert_eq!(gs_module.type_of(copy_type), m.type_of(input_type));
    }
}

#[test]
fn an_unwritten_layer_copies_zero() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv/gl_layer");
    let gs = spirv_tools::assemble(&source.join("declares_layer.spvasm"), "vulkan1.0");
    assert_eq!(
        gate_layer(&gs, "main", Some(128 - BLOCK_SIZE), None).unwrap(),
        None
    );
    let out = gate_layer(&gs, "main", Some(128 - BLOCK_SIZE), Some(0))
        .unwrap()
        .expect("the copy is written");
    let out = valid(out, "vulkan1.0");
    let m = Module::parse(&out).unwrap();
    let (copy, _) = variable_at(&m, StorageClass::Output, 0).unwrap();
    let emit = emit_vertices(&m)[0];
    let store = m.insts.at(emit - 1);
    assert_eq!((store.op(), store.operand(0)), (Some(Op::Store), copy));
    assert_eq!(m.constant_u32(store.operand(1)), Some(0));
    assert!(
        !m.insts.iter().any(|i| i.op() == Some(Op::Select)),
        "an unwritten layer is not gated"
    );
}

#[test]
fn apart_from_the_fragment_shader_a_stage_without_a_layer_passes_zero() {
    let vs = compile("gl_layer", "no_layer.vert", "vulkan1.0");
    assert_eq!(
        scan(&vs).location_ends,
        None,
        "the fast scan leaves a module without a layer unparsed"
    );
    let ends = scan_with_interface_ends(&vs)
        .location_ends
        .expect("a pre-rasterization stage's interface is scanned");
    assert_eq!(ends.output, 1);
    assert_eq!(
        gate_layer(&vs, "main", Some(128 - BLOCK_SIZE), None).unwrap(),
        None
    );
    let out = gate_layer(&vs, "main", Some(128 - BLOCK_SIZE), Some(31))
        .unwrap()
        .expect("the copy is written");
    let out = valid(out, "vulkan1.0");
    let m = Module::parse(&out).unwrap();
    let (copy, ty) = variable_at(&m, StorageClass::Output, 31).unwrap();
    assert!(m.has_decoration(copy, Decoration::Flat));
    assert_eq!(
        m.type_of(ty),
        Some(&Type::Int {
            width: 32,
            signed: true
        })
    );
    let ret = (0..m.insts.len())
        .find(|&i| m.insts.at(i).op() == Some(Op::Return))
        .unwrap();
    let store = m.insts.at(ret - 1);
    assert_eq!((store.op(), store.operand(0)), (Some(Op::Store), copy));
    assert_eq!(m.constant_u32(store.operand(1)), Some(0));
}

#[test]
fn without_the_block_the_layer_is_copied_ungated() {
    let gs = compile("gl_layer", "layer.geom", "vulkan1.0");
    let out = gate_layer(&gs, "main", None, Some(31))
        .unwrap()
        .expect("the copy is written");
    let out = valid(out, "vulkan1.0");
    let m = Module::parse(&out).unwrap();
    let layer = builtin_var(&m, BuiltIn::Layer, StorageClass::Output).unwrap();
    let (copy, _) = variable_at(&m, StorageClass::Output, 31).unwrap();
    assert!(
        !m.insts.iter().any(|i| i.op() == Some(Op::Select)),
        "no gate without the block"
    );
    for emit in (0..m.insts.len()).filter(|&i| m.insts.at(i).op() == Some(Op::EmitVertex)) {
        let store = m.insts.at(emit - 1);
        assert_eq!((store.op(), store.operand(0)), (Some(Op::Store), copy));
        let written = def(&m, store.operand(1));
        assert_eq!((written.op(), written.operand(2)), (Some(Op::Load), layer));
    }
}
