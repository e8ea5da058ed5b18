//! The view and the editor on small hand-written modules.

use spirv::{Decoration, Op};

use super::editor::Editor;
use super::instruction::{encode_string, inst, push_inst};
use super::view::{Module, Section, Type};
use super::words::{instructions, MAGIC};
use crate::error::ParseError;

/// A SPIR-V 1.0 header of id `bound`, then `OpCapability Shader` and a logical GLSL450
/// `OpMemoryModel`.
fn shader_header(bound: u32) -> Vec<u32> {
    let mut w = vec![MAGIC, 0x0001_0000, 0, bound, 0];
    push_inst(&mut w, Op::Capability, &[spirv::Capability::Shader as u32]);
    push_inst(&mut w, Op::MemoryModel, &[0, 1]);
    w
}

fn tiny_module() -> Vec<u32> {
    let mut w = shader_header(10);
    let mut ep = vec![spirv::ExecutionModel::Fragment as u32, 3];
    ep.extend(encode_string("main"));
    push_inst(&mut w, Op::EntryPoint, &ep);
    push_inst(
        &mut w,
        Op::ExecutionMode,
        &[3, spirv::ExecutionMode::OriginUpperLeft as u32],
    );
    push_inst(&mut w, Op::TypeVoid, &[1]);
    push_inst(&mut w, Op::TypeFunction, &[2, 1]);
    push_empty_function(&mut w, 3, 4);
    w
}

/// A `void()` function `%function` (of type `%2`) whose one block, `%label`, returns.
fn push_empty_function(w: &mut Vec<u32>, function: u32, label: u32) {
    push_inst(w, Op::Function, &[1, function, 0, 2]);
    push_inst(w, Op::Label, &[label]);
    push_inst(w, Op::Return, &[]);
    push_inst(w, Op::FunctionEnd, &[]);
}

#[test]
fn parses_sections_and_entry_points() {
    let w = tiny_module();
    let m = Module::parse(&w).unwrap();
    assert_eq!(m.entry_points.len(), 1);
    assert_eq!(m.entry_points[0].name, "main");
    assert_eq!(m.section_start(Section::Global), 4);
    assert_eq!(m.section_start(Section::Debug), 4);
    assert_eq!(m.section_start(Section::Function), 6);
    assert_eq!(m.type_of(1), Some(&Type::Void));
    assert_eq!(m.function_range(3), Some((6, 10)));
    assert_eq!(m.function_body_start(3), Some(8));
}

#[test]
fn unedited_module_is_copied_word_for_word() {
    let w = tiny_module();
    let m = Module::parse(&w).unwrap();
    assert_eq!(Editor::new(&m).finish().unwrap(), w);
}

#[test]
fn find_or_add_reuses_existing_types_and_appends_new_ones() {
    let w = tiny_module();
    let m = Module::parse(&w).unwrap();
    let mut e = Editor::new(&m);
    assert_eq!(e.type_void(), 1);
    let f = e.type_float(32);
    assert_eq!(f, 10);
    assert_eq!(e.type_float(32), 10);
    let out = e.finish().unwrap();
    assert_eq!(out[3], 11);
    let m2 = Module::parse(&out).unwrap();
    assert_eq!(m2.type_of(10), Some(&Type::Float { width: 32 }));
    // The new type lands before the first function.
    assert!(m2.globals[&10] < m2.section_start(Section::Function));
}

#[test]
fn edits_land_in_place_and_appends_at_section_ends() {
    let w = tiny_module();
    let m = Module::parse(&w).unwrap();
    let mut e = Editor::new(&m);
    e.remove(3); // OpExecutionMode
    e.name(3, "main");
    e.decorate(1, Decoration::RelaxedPrecision, &[]);
    let f = e.type_float(32);
    e.replace(5, inst(Op::TypeFunction, &[2, 1, f]));
    e.insert_before(8, &inst(Op::Nop, &[]));
    e.append(Section::Function, Op::Nop, &[]);
    let out = e.finish().unwrap();

    let mut expected = vec![MAGIC, 0x0001_0000, 0, 11, 0];
    let at = |i: usize| m.insts.at(i).words;
    for i in 0..3 {
        expected.extend_from_slice(at(i));
    }
    let mut name = vec![3];
    name.extend(encode_string("main"));
    push_inst(&mut expected, Op::Name, &name);
    push_inst(
        &mut expected,
        Op::Decorate,
        &[1, Decoration::RelaxedPrecision as u32],
    );
    expected.extend_from_slice(at(4));
    push_inst(&mut expected, Op::TypeFunction, &[2, 1, f]);
    push_inst(&mut expected, Op::TypeFloat, &[f, 32]);
    for i in 6..8 {
        expected.extend_from_slice(at(i));
    }
    push_inst(&mut expected, Op::Nop, &[]);
    for i in 8..10 {
        expected.extend_from_slice(at(i));
    }
    push_inst(&mut expected, Op::Nop, &[]);
    assert_eq!(out, expected);
}

#[test]
fn patched_words_change_in_place_unless_replaced() {
    let w = tiny_module();
    let m = Module::parse(&w).unwrap();
    let mut e = Editor::new(&m);
    e.patch_word(6, 1, 7); // OpFunction's result type
    e.patch_word(6, 1, 8); // the later patch of a word wins
    e.patch_word(5, 2, 9); // OpTypeFunction, but replaced below: ignored
    e.replace(5, inst(Op::TypeFunction, &[2, 1]));
    e.insert_before(6, &inst(Op::Nop, &[]));
    let out = e.finish().unwrap();
    let mut expected = w.clone();
    let f = m.insts.at(6).offset_in(&w);
    expected[f + 1] = 8;
    expected.insert(f, inst(Op::Nop, &[])[0]);
    assert_eq!(out, expected);
}

#[test]
fn a_type_cannot_be_redefined_into_a_cycle() {
    // %1 = struct { %2 }, then %2 = struct { %1 } would make %2 contain itself if a
    // second definition of an id were accepted.
    let mut w = shader_header(3);
    push_inst(&mut w, Op::TypeFloat, &[2, 32]);
    push_inst(&mut w, Op::TypeStruct, &[1, 2]);
    push_inst(&mut w, Op::TypeStruct, &[2, 1]);
    assert_eq!(
        Module::parse(&w).err(),
        Some(ParseError::DuplicateId { word: 16, id: 2 })
    );
}

#[test]
fn a_type_naming_an_undeclared_type_is_not_registered() {
    let mut w = shader_header(4);
    push_inst(&mut w, Op::TypeStruct, &[1, 3]);
    push_inst(&mut w, Op::TypeFloat, &[3, 32]);
    let m = Module::parse(&w).unwrap();
    assert_eq!(m.type_of(1), None);
    assert_eq!(m.type_of(3), Some(&Type::Float { width: 32 }));
}

#[test]
fn rejects_malformed_words() {
    assert_eq!(Module::parse(&[1, 2]).err(), Some(ParseError::TooShort));
    assert!(matches!(
        Module::parse(&[0xdead, 0, 0, 5, 0]).err(),
        Some(ParseError::BadMagic(_))
    ));
    let mut w = tiny_module();
    w.push(0x0005_0001); // claims five words, has one
    assert!(matches!(
        Module::parse(&w).err(),
        Some(ParseError::BadInstruction { .. })
    ));
    let mut w = tiny_module();
    w[3] = 2; // ids up to 9 are used
    assert!(matches!(
        Module::parse(&w).err(),
        Some(ParseError::IdOutOfBound { .. })
    ));
}

/// `tiny_module` with a second function (`%5`, label `%6`) after the first.
fn two_functions() -> Vec<u32> {
    let mut w = tiny_module();
    push_empty_function(&mut w, 5, 6);
    w
}

#[test]
fn the_index_holds_every_instruction_in_order() {
    let w = two_functions();
    let m = Module::parse(&w).unwrap();
    let walked: Vec<&[u32]> = instructions(&w).map(|i| i.unwrap().words).collect();
    let indexed: Vec<&[u32]> = m.insts.iter().map(|i| i.words).collect();
    assert_eq!(indexed, walked);
    assert_eq!(m.insts.len(), 14);
    assert_eq!(m.insts.at(10).op(), Some(Op::Function));
    assert_eq!(m.insts.get(13).and_then(|i| i.op()), Some(Op::FunctionEnd));
    assert!(m.insts.get(14).is_none());
    let second: Vec<&[u32]> = m.insts.range(10..).map(|i| i.words).collect();
    assert_eq!(second, walked[10..]);
    let backwards: Vec<&[u32]> = m.insts.iter().rev().map(|i| i.words).collect();
    assert_eq!(backwards, walked.iter().rev().copied().collect::<Vec<_>>());
    assert_eq!(m.function_range(5), Some((10, 14)));
}

#[test]
fn a_function_body_is_checked_as_the_global_sections_are() {
    // The label of the first body takes id 2, %2 being the function type.
    let mut w = tiny_module();
    let label = word_of(&w, 7);
    w[label + 1] = 2;
    assert_eq!(
        Module::parse(&w).err(),
        Some(ParseError::DuplicateId { word: label, id: 2 })
    );
    // A body instruction whose word count runs past the module's end.
    let mut w = tiny_module();
    let end = w.len() - 1;
    w[end] = (2 << 16) | Op::FunctionEnd as u32;
    assert_eq!(
        Module::parse(&w).err(),
        Some(ParseError::BadInstruction { word: end })
    );
}

/// The word offset of instruction `index` of `w`.
fn word_of(w: &[u32], index: usize) -> usize {
    instructions(w).nth(index).unwrap().unwrap().offset_in(w)
}
