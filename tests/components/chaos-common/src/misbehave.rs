//! The misbehaviours that end in a trap: `trap`, `panic`, `loop`, `oom` and `recurse`;
//! and `chatty`'s flood of log calls, which returns.
//!
//! Each is written so the optimiser cannot remove it: loops and allocations go through
//! `black_box`, memory is touched page by page, recursion is not a tail call. None of
//! them returns.

use std::hint::black_box;

use crate::Mode;

/// Does what `mode` says if it is one of the trapping misbehaviours; returns otherwise.
pub fn misbehave(mode: Mode) {
    match mode {
        Mode::Trap => trap(),
        Mode::Panic => panic!("chaos panic"),
        Mode::Loop => spin(),
        Mode::Oom => exhaust_memory(),
        Mode::Recurse => {
            recurse(0, 1, 2, 3);
        }
        _ => {}
    }
}

/// A wasm `unreachable` instruction (natively: an abort).
fn trap() -> ! {
    #[cfg(target_arch = "wasm32")]
    core::arch::wasm32::unreachable();
    #[cfg(not(target_arch = "wasm32"))]
    std::process::abort();
}

/// Spins forever; `black_box` keeps the loop body.
fn spin() -> ! {
    let mut n: u64 = 0;
    loop {
        n = black_box(n.wrapping_add(1));
    }
}

/// Allocates 1 MiB blocks and writes every page, keeping them all, until allocation
/// fails and the allocation-error handler aborts.
fn exhaust_memory() -> ! {
    const BLOCK: usize = 1 << 20;
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut block = Vec::with_capacity(BLOCK);
        block.resize(BLOCK, 1u8);
        for page in block.chunks_mut(4096) {
            page[0] = black_box(page[0].wrapping_add(1));
        }
        hoard.push(black_box(block));
    }
}

/// Recurses without end. Every value lives in wasm locals (no shadow-stack frame), so
/// the engine's wasm stack overflows, not the guest's linear-memory stack; the result is
/// combined after the call so the recursion cannot become a loop.
#[inline(never)]
fn recurse(a: u64, b: u64, c: u64, d: u64) -> u64 {
    if a == u64::MAX {
        return b;
    }
    let x = recurse(a + 1, b ^ a, c.wrapping_mul(3), d.rotate_left(1));
    x.wrapping_mul(a) ^ b ^ c ^ d
}

/// Logs about `bytes` bytes through the host's log calls, in lines of 1 KiB each.
pub fn chatter(bytes: usize) {
    const LINE: usize = 1024;
    let line = "c".repeat(LINE);
    for _ in 0..bytes.div_ceil(LINE) {
        wasm_connect_sdk::log(wasm_connect_sdk::Level::Info, &line, &[]);
    }
}
