//! Multi-start gait solves: the same cycle solved from several perturbed rest poses side by side,
//! the best valid clip kept. The gait NLP has many local minima (Wampler 2012, thesis §3.3, the
//! reason for its hybrid search over timings), and IPOPT's path from a start depends on its last
//! bits: perturbations of 0.02 rad of the simple biped's rest pose end its 0.7 m/s walk at costs from
//! 0.81 to 1.35. The optimum a user gets is then the best of a few starts, and the spread of the
//! starts says how far one solve alone could have landed.

use super::StartSummary;
use crate::spacetime::OptionValue;

/// The seed of start `k` of a multi-start solve seeded `seed`: start 0 is `seed` itself (one
/// start is the single solve), the others spread over the 64-bit seeds by the golden-ratio
/// increment, so the starts of nearby seeds do not overlap.
pub fn start_seed(seed: u64, k: usize) -> u64 {
    seed.wrapping_add((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// A start's barrier strategy (one type with the character file's hints).
pub use crate::model::Barrier;

/// What start `k` of a multi-start solve seeded `seed` whose first start has the barrier `first`
/// starts from: its perturbation's seed and its barrier. With `alternate` (the request leaves
/// `mu_strategy` to the starts) the starts come in pairs, the same perturbation solved with
/// `first` and then with the other barrier, so two starts are the single solve and its other
/// path; otherwise every start has a seed of its own ([`start_seed`]) and `first` (which the
/// request's options then override).
pub fn start_plan(seed: u64, k: usize, alternate: bool, first: Barrier) -> (u64, Barrier) {
    if alternate {
        let barrier = if k % 2 == 0 { first } else { first.other() };
        (start_seed(seed, k / 2), barrier)
    } else {
        (start_seed(seed, k), first)
    }
}

/// Whether IPOPT options leave the barrier strategy to the starts (they do not name
/// `mu_strategy`).
pub fn alternates_barrier(options: &[(String, OptionValue)]) -> bool {
    !options.iter().any(|(name, _)| name == "mu_strategy")
}

/// The start kept: the lowest cost among the valid ones (the first on a tie), else none.
pub fn best_start(starts: &[StartSummary]) -> Option<&StartSummary> {
    starts
        .iter()
        .filter(|s| s.valid)
        .min_by(|a, b| a.cost.total_cmp(&b.cost).then(a.start.cmp(&b.start)))
}

/// The spread of the valid starts' costs: (lowest, median, highest, valid count).
pub fn spread(starts: &[StartSummary]) -> Option<(f64, f64, f64, usize)> {
    let mut costs: Vec<f64> = starts.iter().filter(|s| s.valid).map(|s| s.cost).collect();
    costs.sort_by(f64::total_cmp);
    let n = costs.len();
    (n > 0).then(|| {
        let median = if n % 2 == 1 {
            costs[n / 2]
        } else {
            0.5 * (costs[n / 2 - 1] + costs[n / 2])
        };
        (costs[0], median, costs[n - 1], n)
    })
}

/// One line for people: `start_solve K seed S barrier B valid true|false status … cost …
/// max_violation … iterations … solve_time_s …`.
pub fn start_line(s: &StartSummary) -> String {
    format!(
        "start_solve {} seed {} barrier {} valid {} status {} cost {:.6} max_violation {:.3e} iterations {} solve_time_s {:.2}",
        s.start,
        s.seed,
        s.barrier.name(),
        s.valid,
        s.status,
        s.cost,
        s.max_violation,
        s.iterations,
        s.solve_time_s
    )
}

/// A solve's IPOPT options: `options`, and with `alternate` (the request's own options leave
/// the barrier to it) its barrier strategy when that is not the gait solves' default.
pub fn start_options(
    options: &[(String, OptionValue)],
    alternate: bool,
    barrier: Barrier,
) -> Vec<(String, OptionValue)> {
    let mut out = options.to_vec();
    if alternate && barrier != Barrier::default() {
        out.push((
            "mu_strategy".into(),
            OptionValue::Str(barrier.name().into()),
        ));
    }
    out
}

#[cfg(feature = "ipopt")]
pub(super) use solve::solve_starts;

#[cfg(feature = "ipopt")]
mod solve {
    use super::*;
    use crate::spacetime::gait::{FootTiming, GaitClip, GaitProblem};
    use crate::spacetime::job::run::{cycle_spec, finish};
    use crate::spacetime::job::{GaitEvent, GaitOutcome, GaitRequest, SampleSolver};
    use crate::spacetime::skeleton::Skeleton;
    use anyhow::{Context, Result};

    /// A scratch folder for the starts' clips, removed when dropped.
    struct Scratch(std::path::PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Solves `request`'s cycle (with the given timing) from `request.starts` perturbed rest
    /// poses, each a one-start request solved by `samples` (worker processes side by side, or
    /// spread over MPI ranks), and keeps the best valid clip; with none valid, the one closest
    /// to feasible. Every start's end is reported, then the start kept, then the end.
    pub(in crate::spacetime::job) fn solve_starts(
        request: &GaitRequest,
        skeleton: &Skeleton,
        period: f64,
        timings: &[FootTiming],
        samples: &mut dyn SampleSolver,
        on_event: &mut dyn FnMut(GaitEvent),
    ) -> Result<GaitOutcome> {
        // A spec no start could solve (a timing that is not symmetric, with the mirrored half
        // asked for) fails here with its reason, not in every start's worker.
        cycle_spec(request, skeleton.clone(), period, timings, request.seed)?;
        let folder = Scratch(std::env::temp_dir().join(format!(
            "motionlab-starts-{}-{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        )));
        std::fs::create_dir_all(&folder.0)
            .with_context(|| format!("creating {}", folder.0.display()))?;
        let alternate = alternates_barrier(&request.ipopt);
        let plans: Vec<(u64, Barrier)> = (0..request.starts)
            .map(|k| start_plan(request.seed, k, alternate, request.barrier))
            .collect();
        let requests: Vec<GaitRequest> = plans
            .iter()
            .enumerate()
            .map(|(k, &(seed, barrier))| GaitRequest {
                seed,
                barrier,
                starts: 1,
                period: Some(period),
                contacts: Some(timings.to_vec()),
                discover: None,
                init: None,
                print_level: 0,
                out: Some(folder.0.join(format!("start-{k}.ron"))),
                ..request.clone()
            })
            .collect();
        on_event(GaitEvent::Starts {
            seeds: plans.iter().map(|p| p.0).collect(),
            barriers: plans.iter().map(|p| p.1).collect(),
        });
        samples.solve(&requests)?;
        let mut clips: Vec<Option<GaitClip>> = Vec::new();
        let mut summaries = Vec::new();
        for (k, r) in requests.iter().enumerate() {
            let path = r.out.as_ref().expect("every start names its clip");
            let clip = crate::files::read_ron::<GaitClip>(path);
            let summary = match &clip {
                Ok(c) => StartSummary {
                    start: k,
                    seed: r.seed,
                    barrier: plans[k].1,
                    status: c.status.clone(),
                    cost: c.cost,
                    max_violation: c.max_violation,
                    iterations: c.iterations,
                    solve_time_s: c.solve_time_s,
                    valid: c.is_valid(),
                },
                Err(e) => StartSummary {
                    start: k,
                    seed: r.seed,
                    barrier: plans[k].1,
                    status: format!("no clip: {e}"),
                    cost: f64::NAN,
                    max_violation: f64::INFINITY,
                    iterations: 0,
                    solve_time_s: 0.0,
                    valid: false,
                },
            };
            on_event(GaitEvent::StartEnded(summary.clone()));
            summaries.push(summary);
            clips.push(clip.ok());
        }
        let kept = best_start(&summaries)
            .or_else(|| {
                summaries
                    .iter()
                    .filter(|s| clips[s.start].is_some())
                    .min_by(|a, b| a.max_violation.total_cmp(&b.max_violation))
            })
            .cloned()
            .with_context(|| {
                format!(
                    "none of the {} starts wrote a clip; the first: {}",
                    summaries.len(),
                    summaries[0].status
                )
            })?;
        on_event(GaitEvent::BestStart {
            start: kept.start,
            seed: kept.seed,
            cost: kept.cost,
        });
        let spec = cycle_spec(request, skeleton.clone(), period, timings, kept.seed)?;
        let mut clip = clips[kept.start].take().expect("the kept start has a clip");
        clip.validate(&clip.body(&spec.skeleton)?)
            .with_context(|| format!("the clip of start {}", kept.start))?;
        let variables = GaitProblem::solved_variables(&spec)?;
        let audit_max_violation = finish(request, &spec, &mut clip, on_event)?;
        Ok(GaitOutcome {
            spec,
            clip,
            stages: Vec::new(),
            kept_start: false,
            audit_max_violation,
            variables,
            starts: summaries,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(start: usize, cost: f64, valid: bool) -> StartSummary {
        StartSummary {
            start,
            seed: start_seed(7, start),
            barrier: Barrier::Adaptive,
            status: "solved".into(),
            cost,
            max_violation: 1e-9,
            iterations: 10,
            solve_time_s: 1.0,
            valid,
        }
    }

    /// Start 0 is the single solve's seed; the others differ from it and from each other, and
    /// from the starts of the next seed.
    #[test]
    fn start_seeds_keep_the_single_solve_and_do_not_overlap() {
        assert_eq!(start_seed(0, 0), 0);
        assert_eq!(start_seed(5, 0), 5);
        let mut all: Vec<u64> = (0..10)
            .flat_map(|s| (0..10).map(move |k| start_seed(s, k)))
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 100);
    }

    /// Left to the starts, the barrier alternates over pairs of one perturbation: start 0 is the
    /// single solve, start 1 its twin with the other barrier, start 2 the next seed's first. A request
    /// that names `mu_strategy` keeps it in every start, and its starts each get a seed.
    #[test]
    fn starts_pair_one_perturbation_with_both_barriers_unless_the_options_name_one() {
        let plans: Vec<(u64, Barrier)> = (0..4)
            .map(|k| start_plan(5, k, true, Barrier::Adaptive))
            .collect();
        assert_eq!(
            plans,
            vec![
                (5, Barrier::Adaptive),
                (5, Barrier::Monotone),
                (start_seed(5, 1), Barrier::Adaptive),
                (start_seed(5, 1), Barrier::Monotone),
            ]
        );
        let mine = vec![("mu_init".to_string(), OptionValue::Num(1e-3))];
        assert!(alternates_barrier(&mine));
        assert_eq!(start_options(&mine, true, Barrier::Adaptive), mine);
        let twin = start_options(&mine, true, Barrier::Monotone);
        assert_eq!(twin[..1], mine[..]);
        assert_eq!(
            twin[1],
            (
                "mu_strategy".to_string(),
                OptionValue::Str("monotone".into())
            )
        );
        let named = vec![(
            "mu_strategy".to_string(),
            OptionValue::Str("adaptive".into()),
        )];
        assert!(!alternates_barrier(&named));
        assert_eq!(
            start_plan(5, 1, false, Barrier::Adaptive),
            (start_seed(5, 1), Barrier::Adaptive)
        );
        // A creature whose first start is monotone (the horse) pairs it with the adaptive one.
        assert_eq!(
            start_plan(5, 1, true, Barrier::Monotone),
            (5, Barrier::Adaptive)
        );
        assert_eq!(
            start_plan(5, 2, true, Barrier::Monotone),
            (start_seed(5, 1), Barrier::Monotone)
        );
        assert_eq!(start_options(&named, false, Barrier::Adaptive), named);
    }

    /// The lowest valid cost is kept, an invalid start never is, and a tie goes to the first.
    #[test]
    fn the_best_valid_start_is_kept() {
        let starts = [
            summary(0, 1.2, true),
            summary(1, 0.5, false),
            summary(2, 0.9, true),
            summary(3, 0.9, true),
        ];
        assert_eq!(best_start(&starts).map(|s| s.start), Some(2));
        assert!(best_start(&starts[1..2]).is_none());
        assert_eq!(spread(&starts), Some((0.9, 0.9, 1.2, 3)));
        assert_eq!(spread(&starts[..3]).map(|s| s.1), Some(1.05));
        assert_eq!(spread(&starts[1..2]), None);
    }
}
