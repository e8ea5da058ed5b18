//! The SPIR-V words the layer keeps (a module's, a rewrite's), shared by reference count, in
//! blocks of its own (issue 45).
//!
//! Every `vkCreateShaderModule` copies the application's words, and every
//! `vkDestroyShaderModule` frees them. Typical modules are 1–3 KB: past glibc's per-thread
//! cache (1 KB), each `malloc` and `free` takes the arena's bins, sorting whatever the driver
//! freed in between, which on a real GPU cost the layer far more than the copy itself
//! (docs/performance.md, session 7). Blocks here come in sizes 16 bytes apart, and a few
//! freed ones wait for the next module of their size, outside the driver's heap traffic.

use parking_lot::Mutex;
use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::fmt;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicUsize, Ordering};

/// Blocks are whole multiples of malloc's alignment: at most 15 bytes of one go unused.
const GRAIN: usize = 16;
/// Blocks up to this size (words and header) go back to the spares; larger ones are freed.
const POOLED_MAX: usize = 16 * 1024;
const CLASSES: usize = POOLED_MAX / GRAIN;
/// Freed blocks kept for reuse, per size and in all: what a module's creation and
/// destruction in turn reuse, bounded for an application that destroys many at once. They
/// live as long as the process (the library stays loaded: `devices/instance.rs`).
const SPARES_PER_CLASS: u8 = 4;
const SPARE_BYTES_MAX: usize = 32 * 1024;

/// The start of every block; the words follow.
#[repr(C)]
struct Header {
    refs: AtomicUsize,
    /// The number of words; in a spare block, the next spare of its class (0: none).
    len: usize,
}

const HEADER: usize = std::mem::size_of::<Header>();

/// Words shared by reference count, like `Arc<[u32]>`, in a block of the layer's own.
pub struct Words {
    block: NonNull<Header>,
}

// SAFETY: the words are immutable once made and the count is atomic, as in `Arc<[u32]>`.
unsafe impl Send for Words {}
// SAFETY: as above.
unsafe impl Sync for Words {}

impl Words {
    /// Whether `a` and `b` are the same block (not merely equal words).
    pub fn ptr_eq(a: &Words, b: &Words) -> bool {
        a.block == b.block
    }

    fn header(&self) -> &Header {
        // SAFETY: the block lives while a `Words` refers to it.
        unsafe { self.block.as_ref() }
    }
}

impl Deref for Words {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        let len = self.header().len;
        // SAFETY: `len` words follow the header, written before the block was shared.
        unsafe {
            let data = self.block.as_ptr().cast::<u8>().add(HEADER).cast::<u32>();
            std::slice::from_raw_parts(data, len)
        }
    }
}

impl From<&[u32]> for Words {
    fn from(words: &[u32]) -> Words {
        let block = take_block(words.len());
        // SAFETY: a fresh block with room for `words.len()` words after its header.
        unsafe {
            block.as_ptr().write(Header {
                refs: AtomicUsize::new(1),
                len: words.len(),
            });
            let data = block.as_ptr().cast::<u8>().add(HEADER).cast::<u32>();
            std::ptr::copy_nonoverlapping(words.as_ptr(), data, words.len());
        }
        Words { block }
    }
}

impl From<Vec<u32>> for Words {
    fn from(words: Vec<u32>) -> Words {
        Words::from(&words[..])
    }
}

impl Clone for Words {
    fn clone(&self) -> Words {
        // Relaxed, as `Arc`: a new reference comes from an existing one.
        let before = self.header().refs.fetch_add(1, Ordering::Relaxed);
        if before > isize::MAX as usize {
            std::process::abort();
        }
        Words { block: self.block }
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        if self.header().refs.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        // The other owners' reads happen before the block is reused (as `Arc`).
        fence(Ordering::Acquire);
        let len = self.header().len;
        // SAFETY: the last reference: nothing reads the block any more.
        unsafe { give_block(self.block, len) };
    }
}

impl PartialEq for Words {
    fn eq(&self, other: &Words) -> bool {
        **self == **other
    }
}

impl Eq for Words {}

impl fmt::Debug for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Words({} words)", self.len())
    }
}

/// The block size for `len` words, and its class where it is pooled.
fn block_size(len: usize) -> (usize, Option<usize>) {
    let bytes = len
        .checked_mul(4)
        .and_then(|b| b.checked_add(HEADER))
        .filter(|&b| b <= isize::MAX as usize - GRAIN)
        .unwrap_or_else(|| capacity_overflow());
    match bytes <= POOLED_MAX {
        true => {
            let class = bytes.div_ceil(GRAIN) - 1;
            ((class + 1) * GRAIN, Some(class))
        }
        false => (bytes.next_multiple_of(8), None),
    }
}

fn capacity_overflow() -> ! {
    panic!("SPIR-V words past the address space")
}

fn layout(size: usize) -> Layout {
    Layout::from_size_align(size, std::mem::align_of::<Header>())
        .unwrap_or_else(|_| capacity_overflow())
}

/// The freed blocks kept for reuse: one list per class, linked through their headers.
struct Spares {
    lists: [SpareList; CLASSES],
    bytes: usize,
}

/// A class's list: its first block's address (0: none) and its length, side by side.
#[derive(Clone, Copy)]
struct SpareList {
    head: usize,
    count: u8,
}

impl Spares {
    const EMPTY: Spares = Spares {
        lists: [SpareList { head: 0, count: 0 }; CLASSES],
        bytes: 0,
    };

    /// A spare block of `class` (`size` bytes), taken off its list.
    fn pop(&mut self, class: usize, size: usize) -> Option<NonNull<Header>> {
        let list = &mut self.lists[class];
        let block = NonNull::new(list.head as *mut Header)?;
        // SAFETY: a spare block is owned by the list; its `len` links the next.
        list.head = unsafe { block.as_ref().len };
        list.count -= 1;
        self.bytes -= size;
        Some(block)
    }

    /// Keeps `block` of `class` (`size` bytes) where the bounds allow.
    ///
    /// # Safety
    /// Nothing else refers to `block`.
    unsafe fn push(&mut self, block: NonNull<Header>, class: usize, size: usize) -> bool {
        let list = &mut self.lists[class];
        if list.count >= SPARES_PER_CLASS || self.bytes + size > SPARE_BYTES_MAX {
            return false;
        }
        // SAFETY: the block is the list's now (the caller's contract).
        unsafe { (*block.as_ptr()).len = list.head };
        list.head = block.as_ptr() as usize;
        list.count += 1;
        self.bytes += size;
        true
    }
}

static SPARES: Mutex<Spares> = Mutex::new(Spares::EMPTY);

/// A block for `len` words: a spare of its class, or a new one.
fn take_block(len: usize) -> NonNull<Header> {
    let (size, class) = block_size(len);
    if let Some(block) = class.and_then(|class| SPARES.lock().pop(class, size)) {
        return block;
    }
    new_block(size)
}

fn new_block(size: usize) -> NonNull<Header> {
    let layout = layout(size);
    // SAFETY: the layout is never zero-sized (it holds the header).
    let block = unsafe { alloc(layout) };
    NonNull::new(block.cast::<Header>()).unwrap_or_else(|| handle_alloc_error(layout))
}

/// Gives back the block of `len` words that no `Words` refers to any more.
///
/// # Safety
/// `block` came from [`take_block`] for `len` words and nothing refers to it.
unsafe fn give_block(block: NonNull<Header>, len: usize) {
    let (size, class) = block_size(len);
    // SAFETY: nothing refers to the block (the caller's contract).
    let kept = class.is_some_and(|class| unsafe { SPARES.lock().push(block, class, size) });
    if !kept {
        // SAFETY: allocated with this layout by `take_block`.
        unsafe { dealloc(block.as_ptr().cast(), layout(size)) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_back_what_they_were_made_of() {
        for len in [0, 1, 12, 300, 4090, 5000] {
            let source: Vec<u32> = (0..len as u32)
                .map(|w| w.wrapping_mul(2_654_435_761))
                .collect();
            let words = Words::from(&source[..]);
            assert_eq!(&*words, &source[..]);
            let shared = words.clone();
            assert!(Words::ptr_eq(&words, &shared));
            drop(words);
            assert_eq!(&*shared, &source[..]);
        }
    }

    #[test]
    fn threads_making_and_dropping_words_of_one_size_read_only_their_own() {
        let threads: Vec<_> = (0..4u32)
            .map(|t| {
                std::thread::spawn(move || {
                    for round in 0..2000u32 {
                        let fill = t << 16 | round;
                        let words = Words::from(vec![fill; 500]);
                        let shared = words.clone();
                        drop(words);
                        assert!(shared.iter().all(|&w| w == fill));
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
    }

    #[test]
    fn blocks_are_sized_in_steps_of_16_bytes_until_the_pooled_limit() {
        assert_eq!(block_size(0), (16, Some(0)));
        assert_eq!(block_size(12), (64, Some(3)));
        assert_eq!(block_size(13), (80, Some(4)));
        assert_eq!(
            block_size((POOLED_MAX - HEADER) / 4),
            (POOLED_MAX, Some(CLASSES - 1))
        );
        assert_eq!(
            block_size((POOLED_MAX - HEADER) / 4 + 1),
            (POOLED_MAX + 8, None)
        );
    }

    #[test]
    fn a_freed_block_serves_the_next_of_its_class_within_the_bounds() {
        // A list of the test's own: the layer's is shared by every test thread.
        let mut spares = Spares::EMPTY;
        let (size, class) = block_size(3001);
        let class = class.unwrap();
        let blocks: Vec<_> = (0..8).map(|_| new_block(size)).collect();
        let kept: Vec<bool> = blocks
            .iter()
            // SAFETY: fresh blocks, referred to by nothing else.
            .map(|&b| unsafe { spares.push(b, class, size) })
            .collect();
        // 12,032-byte blocks: two fit in the bytes' bound.
        assert_eq!(kept, [true, true, false, false, false, false, false, false]);
        assert_eq!(spares.bytes, 2 * size);
        assert_eq!(
            spares.pop(class, size),
            Some(blocks[1]),
            "the last freed first"
        );
        assert_eq!(spares.pop(class, size), Some(blocks[0]));
        assert_eq!(spares.pop(class, size), None);
        assert_eq!(spares.bytes, 0);
        for (block, _) in blocks.iter().zip(kept) {
            // SAFETY: allocated by `new_block` with this size.
            unsafe { dealloc(block.as_ptr().cast(), layout(size)) };
        }
    }
}
