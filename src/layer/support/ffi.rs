//! Helpers for reading the application's Vulkan structs: (pointer, count) pairs and
//! `pNext` chains.

use ash::vk;
use std::ffi::c_void;

/// An entry point as `vkGet*ProcAddr` returns it.
pub type VoidFn = unsafe extern "system" fn();

/// `f`, an entry point of any type, as `vkGet*ProcAddr` returns it.
///
/// # Safety
/// `F` is an `extern "system"` function pointer type, and whoever calls the result casts it
/// back to `F` first ([`typed_fn`]).
pub unsafe fn as_void_fn<F: Copy>(f: F) -> VoidFn {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<VoidFn>()) };
    // SAFETY: `F` is a function pointer (this function's contract) of `VoidFn`'s size
    // (asserted at compile time), and every function pointer has the same representation:
    // only the type changes, and the pointer is called only as an `F` again.
    unsafe { std::mem::transmute_copy::<F, VoidFn>(&f) }
}

/// An entry point `vkGet*ProcAddr` returned, as the type of the command it named.
///
/// # Safety
/// `F` is the function pointer type of the command `f` is.
pub unsafe fn typed_fn<F: Copy>(f: VoidFn) -> F {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<VoidFn>()) };
    // SAFETY: `f` is a command of type `F` (this function's contract), passed through
    // `VoidFn` by the loader's ABI: this gives it back its own type.
    unsafe { std::mem::transmute_copy::<VoidFn, F>(&f) }
}

/// Chains `front` between `head` and the rest of `head`'s `pNext` chain. `front` must stay
/// where it is while the chain is used (the layer boxes what it chains).
pub fn link_in_front<H: vk::TaggedStructure, F: vk::TaggedStructure>(head: &mut H, front: &mut F) {
    let head = (head as *mut H).cast::<vk::BaseOutStructure<'_>>();
    let front = (front as *mut F).cast::<vk::BaseOutStructure<'_>>();
    // SAFETY: both point to live structs that ash's `TaggedStructure` says are laid out as
    // `VkBaseOutStructure` (sType, then pNext): only their pNext fields are read and written.
    unsafe {
        (*front).p_next = (*head).p_next;
        (*head).p_next = front;
    }
}

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
