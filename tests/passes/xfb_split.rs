//! The XFB struct splitting pass on glslang-compiled GLSL (`tests/spirv/xfb_split/`).
//!
//! Each test compiles a shader with `glslangValidator -V`, runs the pass, checks the result
//! with `spirv-val`, and compares the split variables' decorations with a table derived
//! from GL's rules (GLSL 4.40 §4.4.2.1 packing, Vulkan Location slots), written out by hand
//! in each test.

use std::path::{Path, PathBuf};

use crate::spirv_tools;

use glsem_spirv::module::{Module, Type};
use glsem_spirv::xfb_split::{
    split_matching_inputs, split_struct_inputs, split_struct_outputs, split_xfb_outputs,
    SplitInterface,
};
use spirv::{Decoration, ExecutionModel, Op, StorageClass};

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv/xfb_split")
}

/// Compiles `tests/spirv/xfb_split/<name>` for `env` (`vulkan1.0` gives SPIR-V 1.0).
fn compile(name: &str, env: &str) -> Vec<u32> {
    spirv_tools::compile(&source_dir().join(name), &["--target-env", env])
}

/// Assembles `tests/spirv/xfb_split/<name>` (SPIR-V 1.0) with `spirv-as`.
fn assemble(name: &str) -> Vec<u32> {
    spirv_tools::assemble(&source_dir().join(name), "vulkan1.0")
}

/// Runs `spirv-val`; on failure, panics with its message and the disassembly.
fn validate(name: &str, words: &[u32], env: &str) {
    spirv_tools::assert_valid(words, env, &format!("the split {name}"));
}

/// GLSL-like name of a type, for the expected tables.
fn describe(m: &Module, ty: u32) -> String {
    match m.type_of(ty).unwrap() {
        Type::Float { width: 32 } => "float".into(),
        Type::Float { width: 64 } => "double".into(),
        Type::Int { width: 32, signed } => (if *signed { "int" } else { "uint" }).into(),
        Type::Vector { component, count } => {
            let prefix = match describe(m, *component).as_str() {
                "float" => "",
                "double" => "d",
                "int" => "i",
                _ => "u",
            };
            format!("{prefix}vec{count}")
        }
        Type::Array { element, length } => format!(
            "{}[{}]",
            describe(m, *element),
            m.constant_u32(*length).unwrap()
        ),
        other => format!("{other:?}"),
    }
}

/// One interface variable with a Location, as the tables list it.
#[derive(Debug, PartialEq, Eq)]
struct Var {
    location: u32,
    ty: String,
    /// `(XfbBuffer, XfbStride, Offset)`.
    xfb: Option<(u32, u32, u32)>,
    stream: Option<u32>,
    flat: bool,
}

fn var(location: u32, ty: &str, xfb: Option<(u32, u32, u32)>, flat: bool) -> Var {
    Var {
        location,
        ty: ty.into(),
        xfb,
        stream: None,
        flat,
    }
}

fn lit(m: &Module, id: u32, d: Decoration) -> Option<u32> {
    m.decoration(id, d).map(|l| l[0])
}

/// The `storage` variables with a Location in the interface of the module's only entry
/// point, ordered by Location, with their ids.
fn located_vars(m: &Module, storage: StorageClass) -> Vec<(u32, Var)> {
    let mut vars: Vec<(u32, Var)> = m.entry_points[0]
        .interface
        .iter()
        .filter_map(|&id| {
            let (sc, ty) = m.variable(id)?;
            let location = lit(m, id, Decoration::Location)?;
            (sc == storage).then(|| {
                let xfb = lit(m, id, Decoration::Offset).map(|offset| {
                    (
                        lit(m, id, Decoration::XfbBuffer).unwrap(),
                        lit(m, id, Decoration::XfbStride).unwrap(),
                        offset,
                    )
                });
                let v = Var {
                    location,
                    ty: describe(m, ty),
                    xfb,
                    stream: lit(m, id, Decoration::Stream),
                    flat: m.has_decoration(id, Decoration::Flat),
                };
                (id, v)
            })
        })
        .collect();
    vars.sort_by_key(|(_, v)| v.location);
    vars
}

fn table(words: &[u32], storage: StorageClass) -> Vec<Var> {
    let m = Module::parse(words).unwrap();
    located_vars(&m, storage)
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

/// Splits `name`'s outputs, validates the result and returns it.
fn split(name: &str, env: &str) -> (Vec<u32>, SplitInterface) {
    let input = compile(name, env);
    let (out, interface) = split_xfb_outputs(&input, "main")
        .unwrap()
        .unwrap_or_else(|| panic!("{name}: nothing split"));
    validate(name, &out, env);
    (out, interface)
}

/// The flush right before instruction `at`: the run of copies out of a Private shadow
/// (`OpAccessChain` into it, `OpLoad` through that pointer, `OpStore` of the value to an
/// output), as `(Location of the output, constant indices of the access chain)`, ordered
/// by Location.
fn flush_before(m: &Module, at: usize) -> Vec<(u32, Vec<u32>)> {
    let mut copies = Vec::new();
    let mut i = at;
    while i >= 3 {
        let (chain, load, store) = (&m.insts.at(i - 3), &m.insts.at(i - 2), &m.insts.at(i - 1));
        let is_copy = chain.op() == Some(Op::AccessChain)
            && m.variable(chain.operand(2)).map(|v| v.0) == Some(StorageClass::Private)
            && load.op() == Some(Op::Load)
            && load.operand(2) == chain.operand(1)
            && store.op() == Some(Op::Store)
            && store.operand(1) == load.operand(1);
        if !is_copy {
            break;
        }
        copies.push((location(m, store.operand(0)), path(m, chain)));
        i -= 3;
    }
    copies.sort();
    copies
}

/// The fill at instruction `at` and after: copies from an input into a Private shadow
/// (`OpAccessChain` into it, `OpLoad` of the input, `OpStore` through the pointer), as
/// `(Location of the input, constant indices of the access chain)`, ordered by Location.
fn fill_at(m: &Module, at: usize) -> Vec<(u32, Vec<u32>)> {
    let mut copies = Vec::new();
    let mut i = at;
    while i + 3 <= m.insts.len() {
        let (chain, load, store) = (&m.insts.at(i), &m.insts.at(i + 1), &m.insts.at(i + 2));
        let is_copy = chain.op() == Some(Op::AccessChain)
            && m.variable(chain.operand(2)).map(|v| v.0) == Some(StorageClass::Private)
            && load.op() == Some(Op::Load)
            && store.op() == Some(Op::Store)
            && store.operand(0) == chain.operand(1)
            && store.operand(1) == load.operand(1);
        if !is_copy {
            break;
        }
        copies.push((location(m, load.operand(2)), path(m, chain)));
        i += 3;
    }
    copies.sort();
    copies
}

fn location(m: &Module, var: u32) -> u32 {
    lit(m, var, Decoration::Location).expect("a copy to or from an interface variable")
}

/// The constant indices of an access chain.
fn path(m: &Module, chain: &glsem_spirv::module::Inst) -> Vec<u32> {
    chain.operands()[3..]
        .iter()
        .map(|&c| m.constant_u32(c).expect("constant index"))
        .collect()
}

/// `(Location, path)` of a flush or fill of every leaf at `locations`, in order.
fn leaf_paths(locations: &[u32], paths: &[&[u32]]) -> Vec<(u32, Vec<u32>)> {
    locations
        .iter()
        .zip(paths)
        .map(|(l, p)| (*l, p.to_vec()))
        .collect()
}

/// The struct variable is no Output any more: it is the Private shadow.
fn assert_shadowed(words: &[u32], name: &str) {
    let m = Module::parse(words).unwrap();
    let id = *m.names.iter().find(|(_, n)| **n == name).unwrap().0;
    assert_eq!(m.variable(id).unwrap().0, StorageClass::Private, "{name}");
    assert!(m.decorations.get(&id).is_none_or(|d| d.is_empty()));
}

#[test]
fn float_struct_from_vertex_shader() {
    let (out, interface) = split("basic.vert", "vulkan1.0");
    // f@0, v@4 (after the 4-byte float), f2@20 as one float[2] whose second element GL
    // puts at 24; stride 28. Every member starts a new Location.
    let xfb = |offset| Some((0, 28, offset));
    assert_eq!(
        table(&out, StorageClass::Output),
        vec![
            var(0, "float", xfb(0), false),
            var(1, "vec4", xfb(4), false),
            var(2, "float[2]", xfb(20), false),
        ]
    );
    assert_eq!(interface.locations, vec![0]);
    assert_shadowed(&out, "s");
    // Each output gets the member at its Location: f is member 0, v member 1, f2 member 2.
    let m = Module::parse(&out).unwrap();
    let main = m.entry_points[0].function;
    let range = m.function_range(main).unwrap();
    let returns: Vec<usize> = m.find_in(range, Op::Return).collect();
    assert_eq!(returns.len(), 1);
    assert_eq!(
        flush_before(&m, returns[0]),
        leaf_paths(&[0, 1, 2], &[&[0], &[1], &[2]])
    );
}

#[test]
fn spirv_1_5_lists_the_shadow_in_the_interface() {
    let (out, _) = split("basic.vert", "vulkan1.2");
    let m = Module::parse(&out).unwrap();
    let shadow = *m.names.iter().find(|(_, n)| **n == "s").unwrap().0;
    assert!(m.entry_points[0].interface.contains(&shadow));
    assert_eq!(table(&out, StorageClass::Output).len(), 3);
}

#[test]
fn nested_structs_and_array_of_structs() {
    let (out, interface) = split("nested.vert", "vulkan1.0");
    // Outer {vec3 p; Inner {float x; vec2 y;} i; float z;}: p@0 (12 bytes), i.x@12,
    // i.y@16, z@24, stride 28. Pair {float a; ivec2 b;} pairs[2] on buffer 1: 12 bytes per
    // element, so [0].a@0, [0].b@4, [1].a@12, [1].b@16, stride 24, flat from the variable.
    let o = |offset| Some((0, 28, offset));
    let p = |offset| Some((1, 24, offset));
    assert_eq!(
        table(&out, StorageClass::Output),
        vec![
            var(0, "vec3", o(0), false),
            var(1, "float", o(12), false),
            var(2, "vec2", o(16), false),
            var(3, "float", o(24), false),
            var(4, "float", p(0), true),
            var(5, "ivec2", p(4), true),
            var(6, "float", p(12), true),
            var(7, "ivec2", p(16), true),
        ]
    );
    assert_eq!(interface.locations, vec![0, 4]);
    assert_shadowed(&out, "o");
    assert_shadowed(&out, "pairs");
    // main returns early and at its end: both flush every leaf.
    let m = Module::parse(&out).unwrap();
    let range = m.function_range(m.entry_points[0].function).unwrap();
    let returns: Vec<usize> = m.find_in(range, Op::Return).collect();
    assert_eq!(returns.len(), 2);
    // Locations 0..3 from o (p, i.x, i.y, z), 4..7 from pairs ([0].a, [0].b, [1].a, [1].b).
    let expected = leaf_paths(
        &[0, 1, 2, 3, 4, 5, 6, 7],
        &[
            &[0],
            &[1, 0],
            &[1, 1],
            &[2],
            &[0, 0],
            &[0, 1],
            &[1, 0],
            &[1, 1],
        ],
    );
    for r in returns {
        assert_eq!(flush_before(&m, r), expected);
    }
    // The helper's return is not the end of the shader: no flush there.
    let helper = m
        .functions
        .keys()
        .copied()
        .find(|&f| f != m.entry_points[0].function)
        .unwrap();
    let range = m.function_range(helper).unwrap();
    for r in m.find_in(range, Op::Return) {
        assert!(flush_before(&m, r).is_empty());
    }
}

#[test]
fn design_double_struct_from_tes() {
    let (out, _) = split("double.tese", "vulkan1.0");
    // GL (Mesa llvmpipe): a@0 as three dvec4 columns of 32 bytes and two Locations each, b@96,
    // c@104, d@112 (aligned to 8 after the float), 128 bytes per vertex.
    let xfb = |offset| Some((0, 128, offset));
    assert_eq!(
        table(&out, StorageClass::Output),
        vec![
            var(0, "dvec4", xfb(0), false),
            var(2, "dvec4", xfb(32), false),
            var(4, "dvec4", xfb(64), false),
            var(6, "double", xfb(96), false),
            var(7, "float", xfb(104), false),
            var(8, "dvec2", xfb(112), false),
        ]
    );
    // The columns are copied as `s.a[c]`, then b, c, d.
    let m = Module::parse(&out).unwrap();
    let range = m.function_range(m.entry_points[0].function).unwrap();
    let ret = m.find_in(range, Op::Return).next().unwrap();
    assert_eq!(
        flush_before(&m, ret),
        leaf_paths(
            &[0, 2, 4, 6, 7, 8],
            &[&[0, 0], &[0, 1], &[0, 2], &[1], &[2], &[3]]
        )
    );
}

#[test]
fn geometry_shader_flushes_at_every_emit() {
    let (out, _) = split("multi.geom", "vulkan1.0");
    // V {float id; vec2 pos;}: id@0, pos@4, stride 12.
    let xfb = |offset| Some((0, 12, offset));
    assert_eq!(
        table(&out, StorageClass::Output),
        vec![
            var(0, "float", xfb(0), false),
            var(1, "vec2", xfb(4), false)
        ]
    );
    let m = Module::parse(&out).unwrap();
    let emits: Vec<usize> = (0..m.insts.len())
        .filter(|&i| m.insts.at(i).op() == Some(Op::EmitVertex))
        .collect();
    // One in the helper (called twice), one in main.
    assert_eq!(emits.len(), 2);
    for e in emits {
        assert_eq!(flush_before(&m, e), leaf_paths(&[0, 1], &[&[0], &[1]]));
    }
    // Outputs after the last emission are discarded: no flush at the return.
    let range = m.function_range(m.entry_points[0].function).unwrap();
    for r in m.find_in(range, Op::Return) {
        assert!(flush_before(&m, r).is_empty());
    }
}

#[test]
fn geometry_streams_flush_only_their_outputs() {
    let (out, _) = split("streams.geom", "vulkan1.0");
    let m = Module::parse(&out).unwrap();
    let vars = located_vars(&m, StorageClass::Output);
    // A {float a; vec3 b;}: a@0, b@4, stride 16, on buffer 0/stream 0 and buffer 1/stream 1.
    let expected = |location, ty: &str, buffer, offset, stream| Var {
        location,
        ty: ty.into(),
        xfb: Some((buffer, 16, offset)),
        stream: Some(stream),
        flat: false,
    };
    assert_eq!(
        vars.iter().map(|(_, v)| v).collect::<Vec<_>>(),
        vec![
            &expected(0, "float", 0, 0, 0),
            &expected(1, "vec3", 0, 4, 0),
            &expected(2, "float", 1, 0, 1),
            &expected(3, "vec3", 1, 4, 1),
        ]
    );
    let emits: Vec<(usize, u32)> = (0..m.insts.len())
        .filter(|&i| m.insts.at(i).op() == Some(Op::EmitStreamVertex))
        .map(|i| (i, m.constant_u32(m.insts.at(i).operand(0)).unwrap()))
        .collect();
    // Stream 0's emission copies s0 to Locations 0, 1; stream 1's copies s1 to 2, 3.
    assert_eq!(emits.len(), 2);
    for (at, stream) in emits {
        let first = 2 * stream;
        assert_eq!(
            flush_before(&m, at),
            leaf_paths(&[first, first + 1], &[&[0], &[1]]),
            "stream {stream}"
        );
    }
}

#[test]
fn fragment_shader_reading_the_struct_is_split_alike() {
    let (vs, interface) = split("varying.vert", "vulkan1.0");
    // Varying {vec4 color; float scale; int tag;}: color@0, scale@16, tag@20, stride 24;
    // `flat` on the variable goes to every leaf.
    let xfb = |offset| Some((0, 24, offset));
    assert_eq!(
        table(&vs, StorageClass::Output),
        vec![
            var(0, "vec4", xfb(0), true),
            var(1, "float", xfb(16), true),
            var(2, "int", xfb(20), true),
        ]
    );
    let fs = compile("varying.frag", "vulkan1.0");
    let fs = split_matching_inputs(&fs, "main", &interface)
        .unwrap()
        .expect("the fragment shader's struct input is split");
    validate("varying.frag", &fs, "vulkan1.0");
    // The same Locations and types as the vertex shader's leaves, no XFB decorations.
    assert_eq!(
        table(&fs, StorageClass::Input),
        vec![
            var(0, "vec4", None, true),
            var(1, "float", None, true),
            var(2, "int", None, true),
        ]
    );
    assert_shadowed(&fs, "var_out");
    // The shadow is filled from the inputs before main's first instruction reads it.
    let m = Module::parse(&fs).unwrap();
    let main = m.entry_points[0].function;
    let start = m.function_body_start(main).unwrap();
    assert_eq!(
        fill_at(&m, start),
        leaf_paths(&[0, 1, 2], &[&[0], &[1], &[2]])
    );
}

#[test]
fn inputs_at_other_locations_are_left_alone() {
    let fs = compile("varying.frag", "vulkan1.0");
    let other = SplitInterface { locations: vec![5] };
    assert_eq!(split_matching_inputs(&fs, "main", &other).unwrap(), None);
    assert_eq!(
        split_matching_inputs(&fs, "main", &SplitInterface::default()).unwrap(),
        None
    );
}

#[test]
fn uncaptured_struct_and_non_xfb_modules_are_unchanged() {
    let vs = compile("uncaptured.vert", "vulkan1.0");
    assert!(split_xfb_outputs(&vs, "main").unwrap().is_none());
    let fs = compile("varying.frag", "vulkan1.0");
    assert!(split_xfb_outputs(&fs, "main").unwrap().is_none());
    let m = Module::parse(&fs).unwrap();
    assert_eq!(m.entry_points[0].model, ExecutionModel::Fragment);
}

#[test]
fn interpolate_at_reads_the_split_input() {
    let fs = compile("interpolate_at.frag", "vulkan1.0");
    let split = SplitInterface { locations: vec![0] };
    let out = split_matching_inputs(&fs, "main", &split).unwrap().unwrap();
    validate("interpolate_at.frag", &out, "vulkan1.0");
    // Varying {vec4 color; vec2 offset;}: color at Location 0, offset at 1.
    let m = Module::parse(&out).unwrap();
    let interpolants: Vec<(u32, Vec<u32>)> = m
        .insts
        .iter()
        .filter(|i| i.op() == Some(Op::ExtInst))
        .map(|i| {
            let pointer = i.operand(4);
            match m.variable(pointer) {
                Some(_) => (location(&m, pointer), vec![]),
                None => {
                    let chain = m
                        .insts
                        .iter()
                        .find(|d| d.result_id() == Some(pointer))
                        .unwrap();
                    (location(&m, chain.operand(2)), path(&m, &chain))
                }
            }
        })
        .collect();
    // interpolateAtOffset(var_out.color): the Location 0 input itself;
    // interpolateAtCentroid(var_out.offset.y): component 1 of the Location 1 input.
    assert_eq!(interpolants, vec![(0, vec![]), (1, vec![1])]);
}

#[test]
fn matrix_output_splits_into_columns() {
    let (out, interface) = split("matrix.vert", "vulkan1.0");
    // head@0 is no aggregate and stays as it is; m's columns at 8 and 32, Locations 1, 3.
    let xfb = |offset| Some((0, 56, offset));
    assert_eq!(
        table(&out, StorageClass::Output),
        vec![
            var(0, "float", xfb(0), false),
            var(1, "dvec3", xfb(8), false),
            var(3, "dvec3", xfb(32), false),
        ]
    );
    assert_eq!(interface.locations, vec![1]);
}

#[test]
fn copy_memory_in_both_directions_goes_through_the_shadow() {
    let input = assemble("copy_memory.spvasm");
    let (out, _) = split_xfb_outputs(&input, "main").unwrap().unwrap();
    validate("copy_memory.spvasm", &out, "vulkan1.0");
    // S {float a; vec2 b;}: a@0, b@4, stride 12.
    let xfb = |offset| Some((0, 12, offset));
    assert_eq!(
        table(&out, StorageClass::Output),
        vec![
            var(0, "float", xfb(0), false),
            var(1, "vec2", xfb(4), false)
        ]
    );
    // The copies now read and write the Private shadow, which the return flushes.
    let m = Module::parse(&out).unwrap();
    let shadow = *m.names.iter().find(|(_, n)| **n == "s").unwrap().0;
    let copies: Vec<usize> = (0..m.insts.len())
        .filter(|&i| m.insts.at(i).op() == Some(Op::CopyMemory))
        .collect();
    assert_eq!(copies.len(), 3);
    assert_eq!(m.insts.at(copies[0]).operand(0), shadow);
    assert_eq!(m.insts.at(copies[1]).operand(1), shadow);
    let member = m.insts.at(copies[2]).operand(0);
    let chain = m
        .insts
        .iter()
        .find(|i| i.result_id() == Some(member))
        .unwrap();
    assert_eq!(chain.operand(2), shadow);
    let Some(Type::Pointer { storage, .. }) = m.type_of(chain.operand(0)) else {
        panic!("access chain without a pointer type");
    };
    assert_eq!(*storage, StorageClass::Private);
    let ret = m.find_in(
        m.function_range(m.entry_points[0].function).unwrap(),
        Op::Return,
    );
    for r in ret {
        assert_eq!(flush_before(&m, r), leaf_paths(&[0, 1], &[&[0], &[1]]));
    }
}

#[test]
fn interpolate_at_through_a_dynamic_index_is_refused() {
    let fs = compile("interpolate_dynamic.frag", "vulkan1.0");
    let split = SplitInterface { locations: vec![0] };
    let result = split_matching_inputs(&fs, "main", &split);
    assert!(
        matches!(result, Err(glsem_spirv::PassError::Unsupported(_))),
        "{result:?}"
    );
}

#[test]
fn each_side_alone_splits_every_struct_varying_to_the_same_interface() {
    // A vertex library without its fragment shader splits captured and uncaptured structs
    // alike; a fragment library without its vertex shader splits every struct input; the
    // two meet Location by Location, type by type.
    let vs = compile("uncaptured.vert", "vulkan1.0");
    let (vs, interface) = split_struct_outputs(&vs, "main")
        .unwrap()
        .expect("the uncaptured struct is split");
    validate("uncaptured.vert", &vs, "vulkan1.0");
    assert!(!interface.locations.is_empty());
    let captured = compile("varying.vert", "vulkan1.0");
    let (captured, _) = split_struct_outputs(&captured, "main").unwrap().unwrap();
    let fs = compile("varying.frag", "vulkan1.0");
    let fs = split_struct_inputs(&fs, "main")
        .unwrap()
        .expect("the struct input is split");
    validate("varying.frag", &fs, "vulkan1.0");
    let strip = |vars: Vec<Var>| -> Vec<(u32, String, bool)> {
        vars.into_iter()
            .map(|v| (v.location, v.ty, v.flat))
            .collect()
    };
    assert_eq!(
        strip(table(&captured, StorageClass::Output)),
        strip(table(&fs, StorageClass::Input))
    );
    // The same as the split that matches the vertex shader's.
    let (_, interface) = split("varying.vert", "vulkan1.0");
    let matching = split_matching_inputs(&compile("varying.frag", "vulkan1.0"), "main", &interface)
        .unwrap()
        .unwrap();
    assert_eq!(
        table(&matching, StorageClass::Input),
        table(&fs, StorageClass::Input)
    );
    // A fragment module has no outputs to split this way.
    assert!(
        split_struct_outputs(&compile("varying.frag", "vulkan1.0"), "main")
            .unwrap()
            .is_none()
    );
}
