//! The gl_FragColor broadcast pass on glslang-compiled GLSL (README, "gl_FragColor broadcast").
//!
//! GL rule under test: a shader that writes `gl_FragColor` writes that colour to every
//! enabled draw buffer, and whatever path the fragment takes to the end of `main` (partial
//! writes, read-backs, writes in functions, early returns) the final value is what each
//! draw buffer receives; a discarded fragment writes none. `gl_FragData[n]` and dual-source
//! outputs are not broadcast.
//!
//! Each rewritten module must pass `spirv-val` for the input's SPIR-V version and have the
//! structure that implements the rule: one output per attachment at Location = attachment
//! index with the attachment's numeric type, the old variable Private, and a copy of it to
//! every output right before every return of the entry-point function and nowhere else.

use std::path::Path;

use crate::spirv_tools::{self, Target, SPV_1_0, SPV_1_3, SPV_1_4, SPV_1_5, SPV_1_6};
use glsem_spirv::fragcolor::{broadcast_frag_color, AttachmentKind, FragColorKey};
use glsem_spirv::module::{instructions, Module, Type};
use glsem_spirv::PassError;
use spirv::{Decoration, Op, StorageClass};
use AttachmentKind::{Float, Sint, Uint};

const SOURCES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/spirv/fragcolor");

/// Compiles `tests/spirv/fragcolor/<file>` as GL-style GLSL (`-R`: loose uniforms go into a
/// default uniform block, as the scene runner does).
fn compile(file: &str, target: Target) -> Vec<u32> {
    compile_with(file, target, &[])
}

fn compile_with(file: &str, target: Target, extra: &[&str]) -> Vec<u32> {
    let source = Path::new(SOURCES).join(file);
    spirv_tools::compile(&source, &[&["-R", "--amb"], target.glslang, extra].concat())
}

fn assemble(file: &str) -> Vec<u32> {
    spirv_tools::assemble(&Path::new(SOURCES).join(file), "vulkan1.0")
}

fn spirv_val(words: &[u32], target: Target, what: &str) {
    spirv_tools::assert_valid(words, target.val, &format!("the rewrite of {what}"));
}

fn key(attachments: &[(u32, AttachmentKind)]) -> FragColorKey {
    FragColorKey {
        attachments: attachments.to_vec(),
    }
}

fn rewrite(words: &[u32], attachments: &[(u32, AttachmentKind)]) -> Vec<u32> {
    broadcast_frag_color(words, "main", &key(attachments))
        .expect("the pass fails")
        .expect("the pass leaves a gl_FragColor shader unchanged")
}

fn unchanged(words: &[u32], attachments: &[(u32, AttachmentKind)]) -> bool {
    broadcast_frag_color(words, "main", &key(attachments))
        .expect("the pass fails")
        .is_none()
}

/// Compiles, rewrites for `attachments`, validates and checks the broadcast structure.
/// Returns the rewritten words.
fn broadcast(
    file: &str,
    target: Target,
    attachments: &[(u32, AttachmentKind)],
    entry_returns: usize,
) -> Vec<u32> {
    let words = compile(file, target);
    let out = rewrite(&words, attachments);
    spirv_val(&out, target, file);
    check_broadcast(&out, "main", attachments, entry_returns);
    out
}

fn is_vec4_of(m: &Module<'_>, ty: u32, kind: AttachmentKind) -> bool {
    let Some(Type::Vector {
        component,
        count: 4,
    }) = m.type_of(ty)
    else {
        return false;
    };
    let want = match kind {
        Float => Type::Float { width: 32 },
        Sint => Type::Int {
            width: 32,
            signed: true,
        },
        Uint => Type::Int {
            width: 32,
            signed: false,
        },
    };
    m.type_of(*component) == Some(&want)
}

fn id_named(m: &Module<'_>, name: &str) -> u32 {
    *m.names
        .iter()
        .find(|(_, n)| **n == name)
        .unwrap_or_else(|| panic!("nothing named {name}"))
        .0
}

/// Asserts the structure that gives GL's broadcast: see the module comment.
fn check_broadcast(
    words: &[u32],
    entry: &str,
    attachments: &[(u32, AttachmentKind)],
    entry_returns: usize,
) {
    let m = Module::parse(words).unwrap();
    let ep = m
        .entry_point(entry, spirv::ExecutionModel::Fragment)
        .unwrap();

    // The GL colour became a Private shadow without interface decorations.
    let shadow = id_named(&m, "gl_FragColor");
    assert_eq!(m.variable(shadow).unwrap().0, StorageClass::Private);
    for d in [
        Decoration::Location,
        Decoration::Index,
        Decoration::Component,
    ] {
        assert!(!m.has_decoration(shadow, d), "shadow keeps {d:?}");
    }
    let lists_all_globals = m.version() >= (1, 4);
    assert_eq!(ep.interface.contains(&shadow), lists_all_globals);

    // Exactly one output per attachment, at its index, with its numeric type.
    let mut outputs: Vec<(u32, u32, u32)> = ep
        .interface
        .iter()
        .filter_map(|&id| match m.variable(id) {
            Some((StorageClass::Output, ty)) => {
                let location = m.decoration(id, Decoration::Location).unwrap()[0];
                Some((location, id, ty))
            }
            _ => None,
        })
        .collect();
    outputs.sort();
    let locations: Vec<u32> = outputs.iter().map(|o| o.0).collect();
    let expected: Vec<u32> = attachments.iter().map(|a| a.0).collect();
    assert_eq!(locations, expected, "output Locations");
    for (&(location, _, ty), &(_, kind)) in outputs.iter().zip(attachments) {
        assert!(
            is_vec4_of(&m, ty, kind),
            "Location {location} is not a {kind:?} vec4"
        );
    }

    // Every return of the entry function is preceded by: load the shadow, then for each
    // output a store of that value (bitcast to the output's type for integer kinds).
    let (start, end) = m.function_range(ep.function).unwrap();
    let returns: Vec<usize> = (start..end)
        .filter(|&i| matches!(m.insts.at(i).op(), Some(Op::Return | Op::ReturnValue)))
        .collect();
    assert_eq!(returns.len(), entry_returns, "returns of {entry}");
    for &ret in &returns {
        let mut i = ret;
        let mut stored = Vec::new();
        let mut bitcasts = Vec::new();
        loop {
            i -= 1;
            let inst = m.insts.at(i);
            match inst.op() {
                Some(Op::Store) => stored.push((inst.operand(0), inst.operand(1))),
                Some(Op::Bitcast) => {
                    bitcasts.push((inst.operand(1), inst.operand(0), inst.operand(2)))
                }
                Some(Op::Load) => {
                    assert_eq!(inst.operand(2), shadow, "copy does not read the shadow");
                    break;
                }
                other => panic!("unexpected {other:?} in the copy before a return"),
            }
        }
        let color = m.insts.at(i).operand(1);
        assert_eq!(stored.len(), outputs.len(), "stores before a return");
        for (&(location, out, ty), &(_, kind)) in outputs.iter().zip(attachments) {
            let value = stored
                .iter()
                .find(|s| s.0 == out)
                .unwrap_or_else(|| panic!("Location {location} not written before a return"))
                .1;
            if kind == Float {
                assert_eq!(value, color);
            } else {
                assert!(
                    bitcasts.contains(&(value, ty, color)),
                    "Location {location} is not an OpBitcast of the colour"
                );
            }
        }
    }

    // Nothing else writes the new outputs (callee returns, kills and demotes get no copy).
    let new_outputs: Vec<u32> = outputs.iter().map(|o| o.1).collect();
    let stores = m
        .insts
        .iter()
        .filter(|i| i.op() == Some(Op::Store) && new_outputs.contains(&i.operand(0)))
        .count();
    assert_eq!(
        stores,
        returns.len() * outputs.len(),
        "stores to the outputs"
    );

    // No pointer into the shadow is still typed Output.
    for inst in &m.insts {
        if matches!(
            inst.op(),
            Some(Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject)
        ) && inst.operand(2) == shadow
        {
            let Some(Type::Pointer { storage, .. }) = m.type_of(inst.operand(0)) else {
                panic!("access chain without a pointer type");
            };
            assert_eq!(*storage, StorageClass::Private);
        }
    }
}

fn count_ops(words: &[u32], op: Op) -> usize {
    instructions(words)
        .filter(|i| i.as_ref().unwrap().op() == Some(op))
        .count()
}

const THREE_RGBA8: &[(u32, AttachmentKind)] = &[(0, Float), (1, Float), (2, Float)];

#[test]
fn basic_write_reaches_three_attachments() {
    broadcast("basic.frag", SPV_1_0, THREE_RGBA8, 1);
}

#[test]
fn glsl_150_is_broadcast_too() {
    broadcast("basic150.frag", SPV_1_0, &[(0, Float), (1, Float)], 1);
}

#[test]
fn partial_writes_go_through_private_access_chains() {
    let out = broadcast("partial.frag", SPV_1_0, THREE_RGBA8, 1);
    // .rgb and .a are four component stores through access chains into the shadow.
    assert!(count_ops(&out, Op::AccessChain) >= 4);
}

#[test]
fn read_back_reads_the_shadow() {
    broadcast("readback.frag", SPV_1_0, THREE_RGBA8, 1);
}

#[test]
fn write_in_called_function_is_copied_only_at_main_exit() {
    let out = broadcast("callee.frag", SPV_1_0, THREE_RGBA8, 1);
    // paint() keeps its own two returns, without copies (checked by check_broadcast).
    assert_eq!(count_ops(&out, Op::Return), 3);
}

#[test]
fn early_return_copies_at_both_exits() {
    broadcast("early_return.frag", SPV_1_0, THREE_RGBA8, 2);
}

#[test]
fn discard_path_gets_no_copy() {
    let out = broadcast("discard.frag", SPV_1_0, THREE_RGBA8, 1);
    assert_eq!(count_ops(&out, Op::Kill), 1);
}

#[test]
fn terminate_invocation_path_gets_no_copy() {
    // glslang emits OpTerminateInvocation for discard in SPIR-V 1.6.
    let out = broadcast("discard.frag", SPV_1_6, THREE_RGBA8, 1);
    assert_eq!(count_ops(&out, Op::TerminateInvocation), 1);
}

#[test]
fn demoted_invocation_still_reaches_the_return() {
    let out = broadcast("demote.frag", SPV_1_3, THREE_RGBA8, 1);
    assert_eq!(count_ops(&out, Op::DemoteToHelperInvocation), 1);
}

#[test]
fn integer_attachments_get_bitcast_ivec4_and_uvec4() {
    let attachments = [(0, Float), (1, Sint), (2, Uint), (3, Float)];
    let out = broadcast("partial.frag", SPV_1_0, &attachments, 1);
    assert_eq!(count_ops(&out, Op::Bitcast), 2);
}

#[test]
fn integer_attachment_zero_is_bitcast_too() {
    broadcast("early_return.frag", SPV_1_0, &[(0, Uint), (1, Float)], 2);
}

#[test]
fn hole_gets_no_output() {
    // Attachment 1 is VK_ATTACHMENT_UNUSED: GL's draw buffer GL_NONE keeps its contents.
    broadcast(
        "basic.frag",
        SPV_1_0,
        &[(0, Float), (2, Float), (3, Float)],
        1,
    );
}

#[test]
fn unused_attachment_zero_gets_no_output() {
    broadcast("basic.frag", SPV_1_0, &[(1, Float), (2, Float)], 1);
}

#[test]
fn eight_attachments() {
    let attachments: Vec<(u32, AttachmentKind)> = (0..8).map(|l| (l, Float)).collect();
    broadcast("early_return.frag", SPV_1_0, &attachments, 2);
}

#[test]
fn key_order_and_duplicates_do_not_matter() {
    let words = compile("basic.frag", SPV_1_0);
    let sorted = rewrite(&words, THREE_RGBA8);
    let shuffled = rewrite(&words, &[(2, Float), (0, Float), (1, Float), (2, Float)]);
    assert_eq!(sorted, shuffled);
}

#[test]
fn read_only_gl_frag_color_is_still_valid() {
    broadcast("read_only.frag", SPV_1_0, THREE_RGBA8, 1);
}

#[test]
fn private_pointer_type_declared_later_is_not_used_before_it() {
    let out = broadcast("private_after.frag", SPV_1_0, THREE_RGBA8, 1);
    // The shadow's pointer type precedes it (spirv-val checks that); `g` keeps its own.
    let m = Module::parse(&out).unwrap();
    let shadow = id_named(&m, "gl_FragColor");
    let g = id_named(&m, "g");
    assert!(m.globals[&m.insts.at(m.globals[&shadow]).operand(0)] < m.globals[&shadow]);
    assert_eq!(m.variable(g).unwrap().0, StorageClass::Private);
}

#[test]
fn private_pointer_type_declared_earlier_is_reused() {
    let words = compile("private_before.frag", SPV_1_0);
    let out = broadcast("private_before.frag", SPV_1_0, THREE_RGBA8, 1);
    let m = Module::parse(&out).unwrap();
    let shadow = m
        .insts
        .at(m.globals[&id_named(&m, "gl_FragColor")])
        .operand(0);
    let g = m.insts.at(m.globals[&id_named(&m, "g")]).operand(0);
    assert_eq!(shadow, g);
    assert_eq!(
        count_ops(&out, Op::TypePointer),
        count_ops(&words, Op::TypePointer)
    );
}

#[test]
fn single_attachment_is_left_alone() {
    let words = compile("basic.frag", SPV_1_0);
    assert!(unchanged(&words, &[(0, Float)]));
    assert!(unchanged(&words, &[]));
}

#[test]
fn dual_source_is_left_alone() {
    let words = assemble("dual_source.spvasm");
    assert!(unchanged(&words, THREE_RGBA8));
}

#[test]
fn gl_frag_data_is_not_broadcast() {
    let words = compile("fragdata.frag", SPV_1_0);
    assert!(unchanged(&words, THREE_RGBA8));
}

#[test]
fn stripped_names_are_left_alone() {
    let words = compile("basic.frag", SPV_1_0);
    let mut stripped = words[..5].to_vec();
    for inst in instructions(&words) {
        let inst = inst.unwrap();
        if inst.op() != Some(Op::Name) {
            stripped.extend_from_slice(inst.words);
        }
    }
    assert!(unchanged(&stripped, THREE_RGBA8));
}

#[test]
fn other_entry_point_name_is_left_alone() {
    let words = compile("basic.frag", SPV_1_0);
    assert!(broadcast_frag_color(&words, "not_main", &key(THREE_RGBA8))
        .unwrap()
        .is_none());
}

#[test]
fn located_user_output_is_refused() {
    let words = assemble("located_output.spvasm");
    let result = broadcast_frag_color(&words, "main", &key(THREE_RGBA8));
    assert!(
        matches!(result, Err(PassError::Unsupported(_))),
        "{result:?}"
    );
}

#[test]
fn second_entry_point_sharing_the_variable_stays_valid() {
    let words = assemble("two_entry_points.spvasm");
    let out = rewrite(&words, THREE_RGBA8);
    spirv_val(&out, SPV_1_0, "two_entry_points.spvasm");
    check_broadcast(&out, "main", THREE_RGBA8, 1);
    let m = Module::parse(&out).unwrap();
    let other = m
        .entry_point("other", spirv::ExecutionModel::Fragment)
        .unwrap();
    assert!(other.interface.is_empty(), "{:?}", other.interface);
}

#[test]
fn spirv_1_3_interface_drops_the_shadow() {
    broadcast("callee.frag", SPV_1_3, THREE_RGBA8, 1);
}

#[test]
fn spirv_1_4_interface_keeps_the_shadow() {
    // check_broadcast asserts the shadow stays listed from 1.4 on.
    broadcast("callee.frag", SPV_1_4, THREE_RGBA8, 1);
}

#[test]
fn spirv_1_5_and_1_6() {
    broadcast("early_return.frag", SPV_1_5, &[(0, Float), (1, Sint)], 2);
    broadcast(
        "partial.frag",
        SPV_1_6,
        &[(0, Float), (1, Uint), (2, Float)],
        1,
    );
}

#[test]
fn debug_info_modules_stay_valid() {
    // -gVS adds NonSemantic.Shader.DebugInfo.100, whose DebugGlobalVariable refers to the
    // gl_FragColor variable from the global section; -g adds OpLine everywhere.
    for flag in ["-g", "-gVS"] {
        let words = compile_with("callee.frag", SPV_1_0, &[flag]);
        let out = rewrite(&words, THREE_RGBA8);
        spirv_val(&out, SPV_1_0, &format!("callee.frag {flag}"));
        check_broadcast(&out, "main", THREE_RGBA8, 1);
    }
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    let result = broadcast_frag_color(&[0x0723_0203, 0x10000, 0, 4], "main", &key(THREE_RGBA8));
    assert!(matches!(result, Err(PassError::Parse(_))));
}
