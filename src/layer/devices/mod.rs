pub(crate) mod device;
pub(crate) mod instance;
