//! Fuzz target: arbitrary bytes as a creature file, read and run briefly ([`motionlab::untrusted::creature`]).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = motionlab::untrusted::creature(text);
    }
});
