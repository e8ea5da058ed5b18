//! Unfed vertex inputs and GL's current attributes, layer side of pipeline creation: the
//! pipeline gets a stride-0 binding of the layer's memory for the Locations the vertex
//! shader reads and the vertex-input state does not feed (`rewrite/patched.rs` adds it);
//! where the layer cannot feed them, they read GL's initial (0, 0, 0, 1).

use crate::layer::rewrite::run::Run;
use crate::layer::rules::layer_step::LayerStep;
use crate::layer::support::error::PlanError;
use crate::layer::support::log;
use glsem_spirv::semantics::{Stage, Step};
use glsem_spirv::unfed_inputs::{
    unfed_input_kinds, DefaultUnfedInputs, FeedCurrentAttributes, InputKind,
};

impl LayerStep for FeedCurrentAttributes {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        match feedable_inputs(run, &self.fed) {
            Some(inputs) => {
                run.notes.push((step.semantic(), step.note(None)));
                run.out.current_attributes = Some((self.binding, inputs));
            }
            // No memory, or inputs the layer cannot feed: GL's initial values.
            None => {
                run.apply(&Step::DefaultUnfedInputs(DefaultUnfedInputs {
                    fed: self.fed.clone(),
                }));
            }
        }
        Ok(())
    }
}

/// The Locations the vertex shader reads outside `fed`, with their types, when the
/// layer can feed every one of them GL's current value.
fn feedable_inputs(run: &Run<'_>, fed: &[u32]) -> Option<Vec<(u32, InputKind)>> {
    run.dev.attribute_memory.memory_type?;
    let i = run.position(Stage::Vertex)?;
    let entry = run.codes[i].entry.as_deref()?;
    let words = &run.current[i].as_ref()?.words;
    match unfed_input_kinds(words, entry, fed) {
        Ok(inputs)
            if inputs
                .iter()
                .all(|&(l, _)| l < run.dev.attribute_memory.slots) =>
        {
            Some(inputs)
        }
        Ok(_) => None,
        Err(why) => {
            log::warning!("unfed vertex inputs read (0, 0, 0, 1): {why}");
            None
        }
    }
}
