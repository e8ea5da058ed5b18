//! `vertex_formats`: attributes in formats the device lacks are read in mandatory formats
//! at free Locations, and each input they fed becomes a `Private` variable rebuilt at entry
//! with GL's value (the values themselves are checked on lavapipe:
//! `tests/layer_vertex_formats.rs`).

use crate::inspect::{compile, valid};

use glsem_spirv::module::Module;
use glsem_spirv::vertex_formats::{
    assign_locations, occupied_input_locations, refetch_vertex_inputs, Fetch, Layout, Numeric,
    RefetchedAttribute, VertexFormat,
};
use glsem_spirv::PassError;
use spirv::{Decoration, ExecutionModel, StorageClass};

fn attribute(location: u32, numeric: Numeric, bits: u32, components: u32) -> RefetchedAttribute {
    RefetchedAttribute {
        location,
        format: VertexFormat {
            numeric,
            bits,
            components,
            layout: Layout::Plain,
        },
        offsets_fit: true,
        fetch_locations: Vec::new(),
        fetch: Fetch::Chunks,
    }
}

/// The Locations of the entry point's `Input` variables, sorted.
fn input_locations(words: &[u32]) -> Vec<u32> {
    let m = Module::parse(words).unwrap();
    let ep = m.entry_point("main", ExecutionModel::Vertex).unwrap();
    let mut locations: Vec<u32> = ep
        .interface
        .iter()
        .filter(|&&v| matches!(m.variable(v), Some((StorageClass::Input, _))))
        .filter_map(|&v| m.decoration(v, Decoration::Location).map(|l| l[0]))
        .collect();
    locations.sort_unstable();
    locations
}

#[test]
fn every_refetched_input_is_rebuilt_from_free_locations() {
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("vertex_formats", "inputs.vert", env);
        let mut attributes = vec![
            attribute(1, Numeric::Snorm, 16, 3),
            attribute(2, Numeric::Sint, 8, 2),
            attribute(3, Numeric::Uint, 16, 3),
            attribute(4, Numeric::Float, 64, 3),
            attribute(6, Numeric::Float, 64, 4),
            attribute(8, Numeric::Float, 64, 1),
            attribute(9, Numeric::Float, 16, 2),
        ];
        let rebuilt: Vec<u32> = attributes.iter().map(|a| a.location).collect();
        let taken = occupied_input_locations(&words, "main", &rebuilt).unwrap();
        // Only `position` keeps its Location.
        assert_eq!(taken, [0]);
        assign_locations(&mut attributes, &taken, 32).unwrap();
        let out = refetch_vertex_inputs(&words, "main", &attributes)
            .unwrap()
            .expect("the inputs are rebuilt");
        let out = valid(out, env);
        let mut expected: Vec<u32> = attributes
            .iter()
            .flat_map(|a| a.fetch_locations.clone())
            .collect();
        expected.push(0);
        expected.sort_unstable();
        assert_eq!(input_locations(&out), expected, "{env}");
        // snorm16×3: 2 + 1; sint8×2: 1; uint16×3: 2 + 1; dvec3: 4 + 2 words; dvec4: 4 + 4;
        // double: 2; half×2: 1.
        assert_eq!(expected.len(), 1 + 2 + 1 + 2 + 2 + 2 + 1 + 1);
    }
}

#[test]
fn an_input_of_another_type_than_its_format_is_refused() {
    let words = compile("vertex_formats", "inputs.vert", "vulkan1.0");
    // `normal` is a vec3: an integer format does not feed it.
    let mut attributes = vec![attribute(1, Numeric::Uint, 8, 3)];
    assign_locations(&mut attributes, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 32).unwrap();
    assert!(matches!(
        refetch_vertex_inputs(&words, "main", &attributes),
        Err(PassError::Unsupported(_))
    ));
    // A double format does not feed a float input either.
    let mut attributes = vec![attribute(9, Numeric::Float, 64, 2)];
    assign_locations(&mut attributes, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 32).unwrap();
    assert!(refetch_vertex_inputs(&words, "main", &attributes).is_err());
}

#[test]
fn no_input_at_the_attributes_location_changes_nothing() {
    let words = compile("vertex_formats", "inputs.vert", "vulkan1.0");
    let mut attributes = vec![attribute(20, Numeric::Unorm, 8, 4)];
    assign_locations(&mut attributes, &[0], 32).unwrap();
    assert_eq!(refetch_vertex_inputs(&words, "main", &attributes), Ok(None));
}

#[test]
fn double_matrices_and_arrays_are_read_in_place_column_by_column() {
    use glsem_spirv::vertex_formats::{double_inputs, in_place_double_inputs};
    for env in ["vulkan1.0", "vulkan1.2"] {
        let words = compile("vertex_formats", "double_matrices.vert", env);
        let doubles = double_inputs(&words, "main").unwrap();
        let locations: Vec<(u32, u32)> = doubles
            .iter()
            .map(|&(location, format)| (location, format.components))
            .collect();
        // One per column or element, at the Locations Vulkan gives them.
        assert_eq!(
            locations,
            [
                (0, 3),
                (2, 3),
                (4, 2),
                (5, 2),
                (6, 2),
                (7, 2),
                (8, 1),
                (9, 1),
                (10, 1)
            ]
        );
        let step = in_place_double_inputs(&doubles);
        let rewritten = refetch_vertex_inputs(&words, "main", &step.attributes)
            .unwrap()
            .expect("the doubles are rebuilt");
        let rewritten = valid(rewritten, env);
        // The columns' chunks (a dvec3: a uvec4 and a uvec2, at its two Locations), the
        // elements', and `position` as it was.
        assert_eq!(input_locations(&rewritten), (0..12).collect::<Vec<u32>>());
    }
}
