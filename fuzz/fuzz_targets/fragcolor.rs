//! Fuzz target `fragcolor`: see docs/fuzzing.md for the input format and the invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    glsem_fuzz::check_fragcolor(data);
});
