//! The scan's Location bound (`Summary::single_location_bound`): where every `Input` and
//! `Output` variable takes one Location, one past the highest `Location` decoration, which
//! the layer checks the device's interface limits against without parsing the module; none
//! where a variable may take more (a matrix, an array, a 64-bit 3- or 4-vector, a struct).
//! Checked against the parse's interface ends (`entry_point_ends`) on these shaders and on
//! every shader of the other topics.

use crate::inspect::compile;
use crate::spirv_tools;
use glsem_spirv::interface::entry_point_ends;
use glsem_spirv::scan::{scan, scan_with_interface_ends};
use std::path::Path;
use std::process::Command;

/// `source` compiled by glslang as GL's GLSL too (`-R`, locations and bindings mapped), or
/// `None` where it does not compile alone (a topic's shader may need its test's flags).
fn compiled(source: &Path) -> Option<Vec<u32>> {
    let out = spirv_tools::scratch("location_bound.spv");
    let status = spirv_tools::output(
        Command::new("glslangValidator")
            .args(["-V", "-R", "--amb", "--aml", "--target-env", "vulkan1.0"])
            .arg(source)
            .arg("-o")
            .arg(&out),
    )
    .status;
    let words = status
        .success()
        .then(|| spirv_tools::words(&std::fs::read(&out).unwrap()));
    std::fs::remove_file(&out).ok();
    words
}

/// Asserts that `words`' bound, where there is one, holds every entry point's interface.
fn assert_bound_holds(words: &[u32], what: &str) -> Option<u32> {
    let bound = scan(words).single_location_bound;
    if let Some(bound) = bound {
        for (model, name, ends) in entry_point_ends(words) {
            assert!(
                ends.input <= bound && ends.output <= bound,
                "{what}: {model:?} {name} ends at {ends:?}, past the bound {bound}"
            );
        }
    }
    bound
}

#[test]
fn single_location_interfaces_are_bounded_by_their_highest_location() {
    let words = compile("location_bound", "single.vert", "vulkan1.0");
    assert_eq!(assert_bound_holds(&words, "single.vert"), Some(3));
}

#[test]
fn variables_that_may_take_several_locations_leave_no_bound() {
    for name in ["matrix.vert", "double.vert", "array.frag"] {
        let words = compile("location_bound", name, "vulkan1.0");
        assert_eq!(assert_bound_holds(&words, name), None, "{name}");
    }
}

/// Every shader of every topic of `tests/spirv` that compiles alone, with its
/// `topic/file` name.
pub(crate) fn every_topic_shader() -> Vec<(String, Vec<u32>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spirv");
    let stages = ["vert", "tesc", "tese", "geom", "frag"];
    let name_of = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    let mut shaders = Vec::new();
    for topic in std::fs::read_dir(&root).unwrap() {
        let topic = topic.unwrap().path();
        for file in std::fs::read_dir(&topic).unwrap() {
            let file = file.unwrap().path();
            let glsl = file
                .extension()
                .is_some_and(|e| stages.contains(&e.to_string_lossy().as_ref()));
            if let Some(words) = compiled(&file).filter(|_| glsl) {
                shaders.push((format!("{}/{}", name_of(&topic), name_of(&file)), words));
            }
        }
    }
    shaders
}

#[test]
fn the_bound_holds_every_shader_of_the_other_topics() {
    let mut bounded = 0;
    for (what, words) in every_topic_shader() {
        bounded += usize::from(assert_bound_holds(&words, &what).is_some());
    }
    assert!(
        bounded > 10,
        "only {bounded} shaders bounded: the check checks little"
    );
}

/// The interface ends the layer places its own varyings past (the fragment line route,
/// gl_Layer's copy): a tessellation evaluation or geometry shader's per-vertex input takes
/// the Locations of one element, not one per vertex (the outer array is the vertex's).
#[test]
fn per_vertex_inputs_end_at_one_elements_locations() {
    for (name, input, output) in [("per_vertex.tese", 3, 2), ("per_vertex.geom", 4, 1)] {
        let words = compile("location_bound", name, "vulkan1.0");
        let ends = scan_with_interface_ends(&words)
            .location_ends
            .expect("a pre-rasterization stage's ends");
        assert_eq!((ends.input, ends.output), (input, output), "{name}");
        let [(_, _, entry)] = entry_point_ends(&words)[..] else {
            panic!("{name}: one entry point")
        };
        assert_eq!(
            entry, ends,
            "{name}: the module's ends are its entry point's"
        );
    }
}
