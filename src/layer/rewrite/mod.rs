pub(crate) mod patched;
pub(crate) mod run;
