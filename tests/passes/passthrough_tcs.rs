//! The generated passthrough tessellation control shader (`passthrough_tcs`), for the TES
//! and VS sources under `tests/spirv/passthrough_tcs/` (compiled by glslang) and for every
//! TES-without-TCS scene. Every generated TCS must pass `spirv-val`, and its interfaces are
//! checked against the VS's outputs and the TES's inputs the way Vulkan matches them
//! (Location, Component, patch-ness and type, outer per-vertex array ignored).

use crate::spirv_tools;

use glsem_spirv::module::{Inst, Module, Section, Type};
use glsem_spirv::passthrough_tcs::{
    build_passthrough_tcs, patch_size_location, read_patch_size_from, TcsKey,
    LEVELS_PUSH_CONSTANT_SIZE,
};
use glsem_spirv::PassError;
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const KEY: TcsKey = TcsKey {
    output_vertices: 3,
    max_patch_size: 32,
    push_constant_offset: 104,
    any_patch_size: false,
    patch_size_location: None,
};

/// Compiles `tests/spirv/passthrough_tcs/<name>` for `target_env` (glslang's `--target-env`).
fn compile(name: &str, target_env: &str) -> Vec<u32> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/spirv/passthrough_tcs")
        .join(name);
    spirv_tools::compile(&source, &["--target-env", target_env])
}

/// Fails with spirv-val's message and the disassembly unless spirv-val accepts `tcs`.
fn validate(tcs: &[u32], target_env: &str) {
    spirv_tools::assert_valid(tcs, target_env, "the generated TCS");
}

/// Structural type equality across two modules.
fn same_type(a: &Module<'_>, ta: u32, b: &Module<'_>, tb: u32) -> bool {
    match (a.type_of(ta), b.type_of(tb)) {
        (
            Some(Type::Vector {
                component: ca,
                count: na,
            }),
            Some(Type::Vector {
                component: cb,
                count: nb,
            }),
        )
        | (
            Some(Type::Matrix {
                column: ca,
                columns: na,
            }),
            Some(Type::Matrix {
                column: cb,
                columns: nb,
            }),
        ) => na == nb && same_type(a, *ca, b, *cb),
        (
            Some(Type::Array {
                element: ea,
                length: la,
            }),
            Some(Type::Array {
                element: eb,
                length: lb,
            }),
        ) => a.constant_u32(*la) == b.constant_u32(*lb) && same_type(a, *ea, b, *eb),
        (Some(Type::Struct { members: ma }), Some(Type::Struct { members: mb })) => {
            ma.len() == mb.len() && ma.iter().zip(mb).all(|(x, y)| same_type(a, *x, b, *y))
        }
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// An interface variable as Vulkan matches it.
#[derive(Debug)]
struct Slot {
    var: u32,
    location: Option<u32>,
    component: u32,
    patch: bool,
    /// The per-vertex type (outer array stripped where the stage is arrayed).
    ty: u32,
}

/// The Input or Output variables of `entry` (built-in variables excluded).
fn slots(m: &Module<'_>, model: ExecutionModel, storage: StorageClass) -> Vec<Slot> {
    let ep = m.entry_points.iter().find(|e| e.model == model).unwrap();
    let arrayed = matches!(
        (model, storage),
        (ExecutionModel::TessellationControl, _)
            | (ExecutionModel::TessellationEvaluation, StorageClass::Input)
    );
    ep.interface
        .iter()
        .filter_map(|&var| {
            let (sc, pointee) = m.variable(var)?;
            if sc != storage || m.has_decoration(var, Decoration::BuiltIn) {
                return None;
            }
            let patch = m.has_decoration(var, Decoration::Patch);
            let ty = match (arrayed && !patch, m.type_of(pointee)) {
                (true, Some(Type::Array { element, .. })) => *element,
                (true, _) => panic!("arrayed interface %{var} is not an array"),
                (false, _) => pointee,
            };
            Some(Slot {
                var,
                location: m.decoration(var, Decoration::Location).map(|l| l[0]),
                component: m.decoration(var, Decoration::Component).map_or(0, |c| c[0]),
                patch,
                ty,
            })
        })
        .collect()
}

/// Every input of the consumer has an output of the producer with the same Location,
/// Component, patch-ness and type; built-in blocks match member for member.
fn assert_interface(
    producer: &Module<'_>,
    producer_model: ExecutionModel,
    consumer: &Module<'_>,
    consumer_model: ExecutionModel,
) {
    let outputs = slots(producer, producer_model, StorageClass::Output);
    for input in slots(consumer, consumer_model, StorageClass::Input) {
        if consumer.is_builtin_block(input.ty) {
            let output = outputs
                .iter()
                .find(|o| producer.is_builtin_block(o.ty))
                .unwrap_or_else(|| panic!("no gl_PerVertex output for %{}", input.var));
            assert!(
                same_type(producer, output.ty, consumer, input.ty),
                "gl_PerVertex blocks differ"
            );
            continue;
        }
        let output = outputs
            .iter()
            .find(|o| {
                o.location == input.location
                    && o.component == input.component
                    && !producer.is_builtin_block(o.ty)
            })
            .unwrap_or_else(|| {
                panic!(
                    "input %{} at Location {:?} component {} has no output",
                    input.var, input.location, input.component
                )
            });
        assert_eq!(output.patch, input.patch, "patch-ness of %{}", input.var);
        assert!(
            same_type(producer, output.ty, consumer, input.ty),
            "type of Location {:?} differs",
            input.location
        );
    }
}

/// VS → TCS and TCS → TES both match, as a pipeline with all three needs.
fn assert_links(vs: &Module, tcs: &Module, tes: &Module) {
    assert_interface(
        vs,
        ExecutionModel::Vertex,
        tcs,
        ExecutionModel::TessellationControl,
    );
    assert_interface(
        tcs,
        ExecutionModel::TessellationControl,
        tes,
        ExecutionModel::TessellationEvaluation,
    );
}

fn load_of_invocation_id(tcs: &Module<'_>) -> u32 {
    let invocation = tcs
        .globals
        .keys()
        .copied()
        .find(|&v| tcs.decoration(v, Decoration::BuiltIn) == Some(&[BuiltIn::InvocationId as u32]))
        .expect("gl_InvocationID declared");
    tcs.insts
        .iter()
        .find(|i| i.op() == Some(Op::Load) && i.operand(2) == invocation)
        .expect("gl_InvocationID loaded")
        .operand(1)
}

fn body<'a>(tcs: &Module<'a>) -> Vec<Inst<'a>> {
    tcs.insts
        .range(tcs.section_start(Section::Function)..)
        .collect()
}

/// `var` is written at `[gl_InvocationID]` with a value loaded from `source` at
/// `[gl_InvocationID]`.
fn assert_copied_per_invocation(tcs: &Module<'_>, source: u32, var: u32) {
    let id = load_of_invocation_id(tcs);
    let body = body(tcs);
    let chain_of = |base: u32| -> Vec<u32> {
        body.iter()
            .filter(|i| {
                i.op() == Some(Op::AccessChain) && i.operand(2) == base && i.operand(3) == id
            })
            .map(|i| i.operand(1))
            .collect()
    };
    let src_chains = chain_of(source);
    let loaded: Vec<u32> = body
        .iter()
        .filter(|i| i.op() == Some(Op::Load) && src_chains.contains(&i.operand(2)))
        .map(|i| i.operand(1))
        .collect();
    let dst_chains = chain_of(var);
    assert!(
        body.iter().any(|i| i.op() == Some(Op::Store)
            && dst_chains.contains(&i.operand(0))
            && loaded.contains(&i.operand(1))),
        "%{var} is not copied from %{source} at gl_InvocationID"
    );
}

fn var_named(m: &Module<'_>, name: &str) -> u32 {
    m.names
        .iter()
        .find(|(id, n)| **n == name && m.variable(**id).is_some())
        .map(|(id, _)| *id)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

fn has_capability(m: &Module<'_>, cap: Capability) -> bool {
    m.declares_capability(cap)
}

#[test]
fn varyings_of_every_kind_link_vs_tcs_tes() {
    let vs = compile("varyings.vert", "vulkan1.0");
    let tes = compile("varyings.tese", "vulkan1.0");
    let tcs = build_passthrough_tcs(&tes, "main", Some((&vs, "main")), &KEY).unwrap();
    validate(&tcs, "vulkan1.0");
    let tcs_m = Module::parse(&tcs).unwrap();
    let vs_m = Module::parse(&vs).unwrap();
    let tes_m = Module::parse(&tes).unwrap();
    assert_links(&vs_m, &tcs_m, &tes_m);
    // Every user varying the TES reads is copied through (float, vec3, flat ivec2,
    // double, struct, array of vec4).
    for name in [
        "v_float", "v_vec3", "v_ivec2", "v_double", "v_struct", "v_array",
    ] {
        let out = var_named(&tcs_m, name);
        let input = var_named(&tcs_m, &format!("{name}_in"));
        assert_copied_per_invocation(&tcs_m, input, out);
        // Flat stays on both sides (TES declares it).
        let flat = matches!(name, "v_ivec2" | "v_double");
        assert_eq!(tcs_m.has_decoration(out, Decoration::Flat), flat, "{name}");
        assert_eq!(
            tcs_m.has_decoration(input, Decoration::Flat),
            flat,
            "{name}"
        );
    }
    // gl_in/gl_out are arrays of gl_PerVertex sized gl_MaxPatchVertices and the patch
    // size; the double varying needs Float64.
    let gl_out = var_named(&tcs_m, "gl_out");
    let (_, out_ty) = tcs_m.variable(gl_out).unwrap();
    let Some(Type::Array { length, .. }) = tcs_m.type_of(out_ty) else {
        panic!()
    };
    assert_eq!(tcs_m.constant_u32(*length), Some(3));
    let gl_in = var_named(&tcs_m, "gl_in");
    let (_, in_ty) = tcs_m.variable(gl_in).unwrap();
    let Some(Type::Array { length, .. }) = tcs_m.type_of(in_ty) else {
        panic!()
    };
    assert_eq!(tcs_m.constant_u32(*length), Some(32));
    assert!(has_capability(&tcs_m, Capability::Float64));
    assert!(has_capability(&tcs_m, Capability::Tessellation));
}

#[test]
fn one_tcs_serves_every_patch_size() {
    // varyings.tese reads gl_PatchVerticesIn, which would see the output patch size.
    let tes = compile("varyings.tese", "vulkan1.0");
    let key = TcsKey {
        output_vertices: 32,
        any_patch_size: true,
        patch_size_location: None,
        ..KEY
    };
    assert!(build_passthrough_tcs(&tes, "main", None, &key).is_err());
    let tes = compile("clip.tese", "vulkan1.0");
    let tcs = build_passthrough_tcs(&tes, "main", None, &key).unwrap();
    validate(&tcs, "vulkan1.0");
    let m = Module::parse(&tcs).unwrap();
    // The input vertex copied is min(gl_InvocationID, gl_PatchVerticesIn - 1).
    let patch_vertices = m
        .entry_points
        .iter()
        .flat_map(|e| e.interface.iter().copied())
        .find(|&v| {
            m.decoration(v, Decoration::BuiltIn) == Some(&[BuiltIn::PatchVertices as u32][..])
        });
    assert!(patch_vertices.is_some(), "reads gl_PatchVerticesIn");
    assert!(m.insts.iter().any(|i| i.op() == Some(Op::Select)));
    let modes: Vec<_> = m
        .insts
        .iter()
        .filter(|i| i.op() == Some(Op::ExecutionMode))
        .map(|i| (i.operand(1), i.operand(2)))
        .collect();
    assert_eq!(modes, vec![(ExecutionMode::OutputVertices as u32, 32)]);
}

/// GL: without a TCS, `gl_PatchVerticesIn` in the TES is the draw's patch size. Under a
/// dynamic patch size the generated TCS outputs the most a draw may set, so the TES reads
/// the size the TCS passes in a `patch out int` past its own inputs, written from the TCS's
/// `gl_PatchVerticesIn` (the draw's).
#[test]
fn a_tes_reading_the_patch_size_reads_the_draws_under_a_dynamic_patch_size() {
    let tes = compile("varyings.tese", "vulkan1.0");
    let location = patch_size_location(&tes, "main")
        .unwrap()
        .expect("reads it");
    let tes_m = Module::parse(&tes).unwrap();
    let ends = glsem_spirv::interface::entry_point_ends(&tes);
    assert!(location >= ends[0].2.input, "past every per-vertex input");
    let key = TcsKey {
        output_vertices: 32,
        any_patch_size: true,
        patch_size_location: Some(location),
        ..KEY
    };
    let tcs = build_passthrough_tcs(&tes, "main", None, &key).unwrap();
    validate(&tcs, "vulkan1.0");
    let new_tes = read_patch_size_from(&tes, "main", location)
        .unwrap()
        .expect("rewritten");
    spirv_tools::assert_valid(&new_tes, "vulkan1.0", "the TES reading the patch size");
    let tcs_m = Module::parse(&tcs).unwrap();
    let new_tes_m = Module::parse(&new_tes).unwrap();
    // The TES no longer reads the built-in; the TCS's patch output feeds the new input.
    let reads_builtin = |m: &Module<'_>| {
        m.entry_points[0].interface.iter().any(|&v| {
            m.decoration(v, Decoration::BuiltIn) == Some(&[BuiltIn::PatchVertices as u32][..])
                && m.variable(v).is_some_and(|(s, _)| s == StorageClass::Input)
        })
    };
    assert!(reads_builtin(&tes_m));
    assert!(!reads_builtin(&new_tes_m));
    assert_interface(
        &tcs_m,
        ExecutionModel::TessellationControl,
        &new_tes_m,
        ExecutionModel::TessellationEvaluation,
    );
    let output = var_named(&tcs_m, "glsem_PatchVerticesIn");
    assert!(tcs_m.has_decoration(output, Decoration::Patch));
    assert_eq!(
        tcs_m.decoration(output, Decoration::Location),
        Some(&[location][..])
    );
    // What it stores is the TCS's own gl_PatchVerticesIn, loaded.
    let store = tcs_m
        .insts
        .iter()
        .find(|i| i.op() == Some(Op::Store) && i.operand(0) == output)
        .expect("written");
    let load = tcs_m
        .insts
        .iter()
        .find(|i| i.op() == Some(Op::Load) && i.operand(1) == store.operand(1))
        .expect("a load");
    let source = load.operand(2);
    assert_eq!(
        tcs_m.decoration(source, Decoration::BuiltIn),
        Some(&[BuiltIn::PatchVertices as u32][..])
    );
    // A TES that does not read it needs no Location.
    let clip = compile("clip.tese", "vulkan1.0");
    assert_eq!(patch_size_location(&clip, "main").unwrap(), None);
    assert_eq!(read_patch_size_from(&clip, "main", 5).unwrap(), None);
}

#[test]
fn output_vertices_is_the_patch_size() {
    let tes = compile("varyings.tese", "vulkan1.0");
    for n in [1, 2, 3, 4, 32] {
        let key = TcsKey {
            output_vertices: n,
            ..KEY
        };
        let tcs = build_passthrough_tcs(&tes, "main", None, &key).unwrap();
        validate(&tcs, "vulkan1.0");
        let m = Module::parse(&tcs).unwrap();
        let modes: Vec<_> = m
            .insts
            .iter()
            .filter(|i| i.op() == Some(Op::ExecutionMode))
            .map(|i| (i.operand(1), i.operand(2)))
            .collect();
        assert_eq!(modes, vec![(ExecutionMode::OutputVertices as u32, n)]);
    }
}

/// The block `{ float inner[2]; float outer[4]; }` at the key's offset, and the six
/// level built-ins written from it element by element.
#[test]
fn levels_come_from_the_push_constant_block() {
    let tes = compile("varyings.tese", "vulkan1.0");
    let tcs = build_passthrough_tcs(&tes, "main", None, &KEY).unwrap();
    let m = Module::parse(&tcs).unwrap();
    let pc = var_named(&m, "glsem_tess_levels");
    let (storage, block) = m.variable(pc).unwrap();
    assert_eq!(storage, StorageClass::PushConstant);
    assert!(m.has_decoration(block, Decoration::Block));
    let Some(Type::Struct { members }) = m.type_of(block) else {
        panic!()
    };
    assert_eq!(members.len(), 2);
    for (member, offset, len) in [(0u32, 104u32, 2u32), (1, 112, 4)] {
        let offsets: Vec<_> = m
            .member_decorations_of(block, member)
            .filter(|(d, _)| *d == Decoration::Offset)
            .map(|(_, l)| l[0])
            .collect();
        assert_eq!(offsets, vec![offset]);
        let array = members[member as usize];
        assert_eq!(
            m.decoration(array, Decoration::ArrayStride),
            Some(&[4u32][..])
        );
        let Some(Type::Array { element, length }) = m.type_of(array) else {
            panic!()
        };
        assert_eq!(m.constant_u32(*length), Some(len));
        assert_eq!(m.type_of(*element), Some(&Type::Float { width: 32 }));
    }
    // The block fills exactly the reserved range.
    assert_eq!(
        112 + 4 * 4 - KEY.push_constant_offset,
        LEVELS_PUSH_CONSTANT_SIZE
    );

    let body = body(&m);
    let const_of = |id: u32| m.constant_u32(id).unwrap();
    for (builtin, member, count) in [
        (BuiltIn::TessLevelInner, 0, 2),
        (BuiltIn::TessLevelOuter, 1, 4),
    ] {
        let var = m
            .globals
            .keys()
            .copied()
            .find(|&v| m.decoration(v, Decoration::BuiltIn) == Some(&[builtin as u32]))
            .unwrap();
        assert!(m.has_decoration(var, Decoration::Patch));
        let (storage, ty) = m.variable(var).unwrap();
        assert_eq!(storage, StorageClass::Output);
        let Some(Type::Array { length, .. }) = m.type_of(ty) else {
            panic!()
        };
        assert_eq!(m.constant_u32(*length), Some(count));
        // level[k] = block.member[k], for every k.
        for k in 0..count {
            let src = body.iter().find(|i| {
                i.op() == Some(Op::AccessChain)
                    && i.operand(2) == pc
                    && const_of(i.operand(3)) == member
                    && const_of(i.operand(4)) == k
            });
            let src = src
                .unwrap_or_else(|| panic!("{builtin:?}[{k}] not read"))
                .operand(1);
            let value = body
                .iter()
                .find(|i| i.op() == Some(Op::Load) && i.operand(2) == src)
                .unwrap()
                .operand(1);
            let dst: Vec<u32> = body
                .iter()
                .filter(|i| {
                    i.op() == Some(Op::AccessChain)
                        && i.operand(2) == var
                        && const_of(i.operand(3)) == k
                })
                .map(|i| i.operand(1))
                .collect();
            assert!(
                body.iter().any(|i| i.op() == Some(Op::Store)
                    && dst.contains(&i.operand(0))
                    && i.operand(1) == value),
                "{builtin:?}[{k}] not written from the block"
            );
        }
    }
}

/// gl_in mirrors the VS's gl_PerVertex (clip distances [3]), gl_out the TES's ([2]);
/// without a VS both are the TES's.
#[test]
fn per_vertex_block_follows_the_vs_sizes() {
    let vs = compile("clip.vert", "vulkan1.0");
    let tes = compile("clip.tese", "vulkan1.0");
    let key = TcsKey {
        output_vertices: 4,
        ..KEY
    };
    let clip_len = |m: &Module<'_>, var: u32| {
        let (_, arr) = m.variable(var).unwrap();
        let Some(Type::Array { element, .. }) = m.type_of(arr) else {
            panic!()
        };
        let Some(Type::Struct { members }) = m.type_of(*element) else {
            panic!()
        };
        let j = (0..members.len() as u32)
            .find(|&j| m.member_builtin(*element, j) == Some(BuiltIn::ClipDistance as u32))
            .unwrap();
        m.array_length(members[j as usize]).unwrap().1
    };
    let tcs = build_passthrough_tcs(&tes, "main", Some((&vs, "main")), &key).unwrap();
    validate(&tcs, "vulkan1.0");
    let m = Module::parse(&tcs).unwrap();
    let (vs_m, tes_m) = (Module::parse(&vs).unwrap(), Module::parse(&tes).unwrap());
    assert_links(&vs_m, &m, &tes_m);
    assert_eq!(clip_len(&m, var_named(&m, "gl_in")), 3);
    assert_eq!(clip_len(&m, var_named(&m, "gl_out")), 2);
    assert!(has_capability(&m, Capability::ClipDistance));
    // gl_Position whole, and clip distances 0 and 1 one by one: three stores into
    // gl_out, plus the six levels.
    let gl_out = var_named(&m, "gl_out");
    let chains: Vec<u32> = body(&m)
        .iter()
        .filter(|i| i.op() == Some(Op::AccessChain) && i.operand(2) == gl_out)
        .map(|i| i.operand(1))
        .collect();
    let stores = body(&m)
        .iter()
        .filter(|i| i.op() == Some(Op::Store) && chains.contains(&i.operand(0)))
        .count();
    assert_eq!(stores, 3);

    let tcs = build_passthrough_tcs(&tes, "main", None, &key).unwrap();
    validate(&tcs, "vulkan1.0");
    let m = Module::parse(&tcs).unwrap();
    assert_eq!(clip_len(&m, var_named(&m, "gl_in")), 2);
    assert_eq!(clip_len(&m, var_named(&m, "gl_out")), 2);
    assert_copied_per_invocation(&m, var_named(&m, "gl_in"), var_named(&m, "gl_out"));
}

/// Blocks with member Locations and Flat members, Component-packed inputs, and a
/// `patch in` that gets a zeroed patch output at its Location.
#[test]
fn blocks_components_and_patch_inputs() {
    let tes = compile("patch_block.tese", "vulkan1.0");
    let key = TcsKey {
        output_vertices: 2,
        ..KEY
    };
    let tcs = build_passthrough_tcs(&tes, "main", None, &key).unwrap();
    validate(&tcs, "vulkan1.0");
    let m = Module::parse(&tcs).unwrap();
    let tes_m = Module::parse(&tes).unwrap();
    assert_interface(
        &m,
        ExecutionModel::TessellationControl,
        &tes_m,
        ExecutionModel::TessellationEvaluation,
    );
    let data = var_named(&m, "data_in");
    let (_, arr) = m.variable(data).unwrap();
    let Some(Type::Array { element, .. }) = m.type_of(arr) else {
        panic!()
    };
    let member_locations: Vec<_> = (0..3)
        .map(|j| {
            m.member_decorations_of(*element, j)
                .find(|(d, _)| *d == Decoration::Location)
                .map(|(_, l)| l[0])
        })
        .collect();
    assert_eq!(member_locations, vec![Some(0), Some(1), Some(3)]);
    assert!(m
        .member_decorations_of(*element, 1)
        .any(|(d, _)| d == Decoration::Flat));
    assert_copied_per_invocation(&m, var_named(&m, "data_in_in"), data);

    let packed = var_named(&m, "packed_yz");
    assert_eq!(
        m.decoration(packed, Decoration::Component),
        Some(&[1u32][..])
    );

    let p = var_named(&m, "p");
    assert!(m.has_decoration(p, Decoration::Patch));
    assert_eq!(m.decoration(p, Decoration::Location), Some(&[5u32][..]));
    let zero_store = body(&m).iter().any(|i| {
        i.op() == Some(Op::Store)
            && i.operand(0) == p
            && m.insts.at(m.globals[&i.operand(1)]).op() == Some(Op::ConstantNull)
    });
    assert!(zero_store, "patch output not zeroed");
}

#[test]
fn sixteen_bit_double_and_matrix_inputs_keep_their_capabilities() {
    let tes = compile("half.tese", "vulkan1.0");
    let tcs = build_passthrough_tcs(&tes, "main", None, &KEY).unwrap();
    validate(&tcs, "vulkan1.0");
    let m = Module::parse(&tcs).unwrap();
    assert!(has_capability(&m, Capability::StorageInputOutput16));
    assert!(has_capability(&m, Capability::Float64));
    let tes_m = Module::parse(&tes).unwrap();
    assert_interface(
        &m,
        ExecutionModel::TessellationControl,
        &tes_m,
        ExecutionModel::TessellationEvaluation,
    );
}

/// SPIR-V 1.4+ lists every global in the interface, the push constant included.
#[test]
fn spirv_1_5_interface_lists_the_push_constant() {
    let vs = compile("varyings.vert", "vulkan1.2");
    let tes = compile("varyings.tese", "vulkan1.2");
    let tcs = build_passthrough_tcs(&tes, "main", Some((&vs, "main")), &KEY).unwrap();
    validate(&tcs, "vulkan1.2");
    let m = Module::parse(&tcs).unwrap();
    assert_eq!(m.version(), (1, 5));
    let pc = var_named(&m, "glsem_tess_levels");
    assert!(m.entry_points[0].interface.contains(&pc));
    let (vs_m, tes_m) = (Module::parse(&vs).unwrap(), Module::parse(&tes).unwrap());
    assert_links(&vs_m, &m, &tes_m);
    // Before 1.4 the push constant must not be listed.
    let tcs =
        build_passthrough_tcs(&compile("varyings.tese", "vulkan1.0"), "main", None, &KEY).unwrap();
    let m = Module::parse(&tcs).unwrap();
    let pc = var_named(&m, "glsem_tess_levels");
    assert!(!m.entry_points[0].interface.contains(&pc));
}

#[test]
fn refuses_what_it_cannot_build() {
    let tes = compile("varyings.tese", "vulkan1.0");
    let vs = compile("varyings.vert", "vulkan1.0");
    let err = |r: Result<Vec<u32>, PassError>| matches!(r, Err(PassError::Unsupported(_)));
    assert!(err(build_passthrough_tcs(&tes, "other", None, &KEY)));
    assert!(err(build_passthrough_tcs(&vs, "main", None, &KEY)));
    assert!(err(build_passthrough_tcs(
        &tes,
        "main",
        Some((&tes, "main")),
        &KEY
    )));
    let key = TcsKey {
        output_vertices: 0,
        ..KEY
    };
    assert!(err(build_passthrough_tcs(&tes, "main", None, &key)));
    let key = TcsKey {
        output_vertices: 33,
        ..KEY
    };
    assert!(err(build_passthrough_tcs(&tes, "main", None, &key)));
    let key = TcsKey {
        push_constant_offset: 2,
        ..KEY
    };
    assert!(err(build_passthrough_tcs(&tes, "main", None, &key)));
    assert!(matches!(
        build_passthrough_tcs(&tes[..3], "main", None, &KEY),
        Err(PassError::Parse(_))
    ));
}

/// The `[name]` sections of a scene file.
fn scene_sections(text: &str) -> HashMap<String, String> {
    let mut sections = HashMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = Some(name.to_string());
            sections.insert(name.to_string(), String::new());
        } else if let Some(name) = &current {
            let body = sections.get_mut(name).unwrap();
            body.push_str(line);
            body.push('\n');
        }
    }
    sections
}

/// Compiles GLSL as the runner does for GL sources (relaxed rules, automatic
/// Locations; both stages declare their varyings in the same order).
fn compile_glsl(source: &str, stage: &str) -> Vec<u32> {
    let input = spirv_tools::scratch(&format!("scene.{stage}"));
    std::fs::write(&input, source).unwrap();
    let words = spirv_tools::compile(&input, &["-R", "--aml"]);
    std::fs::remove_file(input).ok();
    words
}

/// Every TES-without-TCS scene gets a TCS that validates and links between its VS and
/// TES, for the patch sizes the scene draws with.
#[test]
fn every_tess_scene_gets_a_linking_tcs() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenes");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("tess_") && name.ends_with(".shader_test")) {
            continue;
        }
        let sections = scene_sections(&std::fs::read_to_string(&path).unwrap());
        assert!(
            !sections.contains_key("tessellation control shader"),
            "{name}"
        );
        let vs = compile_glsl(&sections["vertex shader"], "vert");
        let tes = compile_glsl(&sections["tessellation evaluation shader"], "tese");
        let sizes: Vec<u32> = std::iter::once(3)
            .chain(sections["test"].lines().filter_map(|l| {
                l.strip_prefix("patch parameter vertices ")?
                    .trim()
                    .parse()
                    .ok()
            }))
            .collect();
        for n in sizes {
            let key = TcsKey {
                output_vertices: n,
                ..KEY
            };
            let tcs = build_passthrough_tcs(&tes, "main", Some((&vs, "main")), &key)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            validate(&tcs, "vulkan1.0");
            let m = Module::parse(&tcs).unwrap();
            let (vs_m, tes_m) = (Module::parse(&vs).unwrap(), Module::parse(&tes).unwrap());
            assert_links(&vs_m, &m, &tes_m);
        }
        seen += 1;
    }
    assert!(seen >= 10, "only {seen} tess scenes found");
}

/// The layer feeds application modules to the generator: a malformed TES (here every
/// word of valid ones overwritten in turn) must give an error or a module, never a
/// panic or a stack overflow (a type made to contain itself).
#[test]
fn corrupted_modules_never_panic() {
    let vs = compile("clip.vert", "vulkan1.0");
    for name in [
        "varyings.tese",
        "clip.tese",
        "patch_block.tese",
        "half.tese",
    ] {
        let tes = compile(name, "vulkan1.0");
        for i in 5..tes.len() {
            for value in [0, 1, 0x10000, tes[i] & 0xffff, tes[i] ^ 1, u32::MAX] {
                let mut corrupted = tes.clone();
                corrupted[i] = value;
                let result = std::panic::catch_unwind(|| {
                    build_passthrough_tcs(&corrupted, "main", Some((&vs, "main")), &KEY)
                });
                assert!(result.is_ok(), "{name}: word {i} = {value:#x} panics");
            }
        }
    }
}
