//! Fuzz target: arbitrary bytes as a character file, read and run briefly ([`motionlab::untrusted::character`]).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = motionlab::untrusted::character(text);
    }
});
