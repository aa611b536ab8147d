//! Fuzz target: arbitrary bytes as a BVH file (motion capture): parsed, made into a character and
//! a clip, exported and read back.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = motionlab::untrusted::bvh(text);
    }
});
