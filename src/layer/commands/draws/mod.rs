//! The application's draws and what GL's rules do around them: the trait each rule
//! implements in its own file ([`rule::DrawRule`]), and the draw hooks, which walk the
//! rules (`hooks.rs`, one list) and name none.

pub(crate) mod base_instance;
pub(crate) mod converted_draws;
pub(crate) mod gl_primitives;
pub(crate) mod hooks;
pub(crate) mod line_passes;
pub(crate) mod rule;
