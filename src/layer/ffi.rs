//! Helpers for reading the application's Vulkan structs: (pointer, count) pairs and
//! `pNext` chains.

use ash::vk;
use std::ffi::c_void;

/// An entry point as `vkGet*ProcAddr` returns it.
pub type VoidFn = unsafe extern "system" fn();

/// A slice from a Vulkan (pointer, count) pair; empty when the pointer is null.
///
/// # Safety
/// A non-null `ptr` must point to `count` valid elements that outlive `'a`.
pub unsafe fn slice<'a, T>(ptr: *const T, count: u32) -> &'a [T] {
    if ptr.is_null() || count == 0 {
        &[]
    } else {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(ptr, count as usize) }
    }
}

/// The structure of a `pNext` chain that `p` points to, as the `T` its `sType` names.
///
/// # Safety
/// `p` points to a valid `T` that outlives the reference.
pub unsafe fn chained<'a, T>(p: *const vk::BaseInStructure<'_>) -> &'a T {
    // SAFETY: the caller's contract.
    unsafe { &*p.cast::<T>() }
}

/// The first struct of type `s_type` in a `pNext` chain.
///
/// # Safety
/// `p_next` must be a valid `pNext` chain, and a struct of `s_type` must be a `T`.
pub unsafe fn find_in_chain<'a, T>(
    p_next: *const c_void,
    s_type: vk::StructureType,
) -> Option<&'a T> {
    let mut p = p_next as *const vk::BaseInStructure<'_>;
    // SAFETY: every struct of a valid chain starts with sType and pNext.
    while let Some(s) = unsafe { p.as_ref() } {
        if s.s_type == s_type {
            // SAFETY: the caller's contract: a struct of `s_type` is a `T`.
            return Some(unsafe { chained(p) });
        }
        p = s.p_next;
    }
    None
}
