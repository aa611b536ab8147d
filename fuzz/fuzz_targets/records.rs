//! Fuzz target: arbitrary bytes as one of the records the program writes and reads back (the
//! first byte picks which): a gait clip, a robustness checkpoint, an exploration result, an
//! exploration checkpoint (its scene path resolved against the working folder), a discovery
//! sample's summary, a clip.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let _ = match kind % 6 {
        0 => motionlab::untrusted::gait_clip(text),
        1 => motionlab::untrusted::robustness_checkpoint(text),
        2 => motionlab::untrusted::explore_result(text),
        3 => motionlab::untrusted::explore_checkpoint(text),
        4 => motionlab::untrusted::discovery_summary(text),
        _ => motionlab::untrusted::clip(text),
    };
});
