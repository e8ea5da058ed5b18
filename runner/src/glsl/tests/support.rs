//! What the tests of whole programs read of a stage's module.

use glsem_spirv::module::Module;
use spirv::Decoration;

/// The `Location` of the global variable `name` in the module `words`.
pub(super) fn location_of(words: &[u32], name: &str) -> Option<u32> {
    let m = Module::parse(words).unwrap();
    let var = m.ids_named(name).find(|&id| m.variable(id).is_some())?;
    m.decoration_literal(var, Decoration::Location)
}

/// The type the global variable `name` of `m` points to.
pub(super) fn variable_type(m: &Module, name: &str) -> u32 {
    let var = m.ids_named(name).find(|&id| m.variable(id).is_some());
    m.variable(var.unwrap()).unwrap().1
}
