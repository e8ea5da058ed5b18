pub(crate) mod device_setup;
pub(crate) mod dispatch;
pub(crate) mod frames;
pub(crate) mod host_memory;
pub(crate) mod registry;
pub(crate) mod state;
