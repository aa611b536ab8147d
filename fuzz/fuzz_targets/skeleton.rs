//! Fuzz target: arbitrary bytes as a skinned skeleton (glTF, GLB, or BVH text): read, made into
//! its automatic character, a few frames of its animation transferred, the character simulated
//! briefly (`motionlab::untrusted::skeleton`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = motionlab::untrusted::skeleton(data);
});
