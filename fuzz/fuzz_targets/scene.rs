//! Fuzz target: arbitrary bytes as a scene file, read and run briefly ([`motionlab::untrusted::scene`]).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = motionlab::untrusted::scene(text);
    }
});
