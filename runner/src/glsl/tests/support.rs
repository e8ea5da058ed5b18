//! What the tests of whole programs read of a stage's module.

use rspirv::dr;
use spirv::Decoration;

use crate::glsl::spv::Types;

/// The `Location` of the global variable `name` in the module `words`.
pub(super) fn location_of(words: &[u32], name: &str) -> Option<u32> {
    let module = dr::load_words(words).unwrap();
    let types = Types::new(&module);
    let var = types.names.iter().find(|(_, n)| n.as_str() == name)?.0;
    types
        .decoration(*var, Decoration::Location)
        .and_then(|v| v.first().copied())
}

/// The type the global variable `name` of `module` points to.
pub(super) fn variable_type(module: &dr::Module, types: &Types, name: &str) -> u32 {
    let var = types
        .names
        .iter()
        .find(|(_, n)| n.as_str() == name)
        .unwrap()
        .0;
    let ptr = module
        .types_global_values
        .iter()
        .find(|i| i.result_id == Some(*var))
        .and_then(|i| i.result_type)
        .unwrap();
    types.pointee(ptr).unwrap()
}
