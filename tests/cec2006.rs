//! `motionlab bench cec2006 --quick`: basin-CMA on the 24 CEC 2006 problems (Wampler 2012,
//! thesis App. B: 21 of 24 global optima found).
#![cfg(feature = "ipopt")]

mod common;

use common::{assert_success, motionlab, stdout};

/// `key value` pairs of one `problem …` line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == key)
        .unwrap_or_else(|| panic!("no {key} in {line:?}"));
    words[at + 1]
}

#[test]
fn bench_cec2006_quick_solves_most_problems() {
    let o = motionlab(&["bench", "cec2006", "--quick", "--seed", "1"]);
    assert_success(&o, "bench cec2006 --quick");
    let out = stdout(&o);
    let problems: Vec<&str> = out.lines().filter(|l| l.starts_with("problem ")).collect();
    assert_eq!(problems.len(), 24, "{out}");
    let mut successes = 0;
    for (i, line) in problems.iter().enumerate() {
        assert_eq!(field(line, "problem"), format!("g{:02}", i + 1), "{out}");
        let n: usize = field(line, "n").parse().unwrap();
        assert!((2..=24).contains(&n), "{line}");
        let target: f64 = field(line, "target").parse().unwrap();
        let evaluations: u64 = field(line, "evaluations").parse().unwrap();
        assert!(evaluations > 0, "{line}");
        match field(line, "success") {
            "true" => {
                successes += 1;
                let best: f64 = field(line, "best").parse().unwrap();
                let error: f64 = field(line, "error").parse().unwrap();
                assert!((best - target).abs() <= 1e-4 && error <= 1e-4, "{line}");
                // The quick budget is 20 000 evaluations.
                assert!(evaluations <= 20_000, "{line}");
            }
            "false" => assert!(
                evaluations >= 20_000,
                "a failure spends the whole budget: {line}"
            ),
            other => panic!("success {other:?} in {line}"),
        }
    }
    // g01, g06 and g08 have well-known optima that basin-CMA finds within a few projections.
    for i in [0, 5, 7] {
        assert_eq!(field(problems[i], "success"), "true", "{}", problems[i]);
    }
    let last = out.lines().last().unwrap();
    assert_eq!(last, format!("solved {successes}/24"), "{out}");
    // Measured with the quick budget: 20/24 for each of seeds 1–4 (g02 needs more evaluations;
    // g17, g20 and g22, which the thesis did not solve either, fail). The full budget solves 21.
    assert!(successes >= 20, "{out}");
}
