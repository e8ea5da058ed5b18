pub(crate) mod base_instance;
pub(crate) mod command_state;
pub(crate) mod current_attributes;
pub(crate) mod followed_state;
pub(crate) mod line_loops;
pub(crate) mod primitive_indices;
pub(crate) mod primitive_objects;
