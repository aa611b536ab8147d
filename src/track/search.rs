//! The wide-band stochastic trajectory optimization of Borer, Guay and Sumner 2018 (§5,
//! Algorithm 1), one window per step:
//!
//! 1. Each of the k kept start states (all the simulation's start in the first window) runs its
//!    own CMA-ES over the window's offset knots (mean 0, σ 0.01, population 30, 200
//!    generations); the best so far every 10 generations is stored as a sample (n = 400 per
//!    window for k = 20). The k searches' rollouts of a generation are evaluated as one batch
//!    through the scheduler's seam ([`crate::optim::scheduler`]), in index order.
//! 2. The pooled samples are selected ([`super::select`]): k live on, each with its parent.
//! 3. Each kept sample's state after the window's first half starts the next window.
//!
//! At the end the cheapest chain (by cumulative cost; the final window's cost alone is
//! recorded too) is followed back from its last window, and the first halves of its windows
//! (the last window whole) are simulated from the start into the result. Greedy tracking is
//! k = 1. Everything is seeded: the same settings give the same bits, serially or in parallel,
//! and a search resumed from its checkpoint (windows done so far; the start states of the next
//! one are simulated again along their chains) ends where an uninterrupted one does.

use super::cost::{CostTerms, CostWeights};
use super::select::select;
use super::target::{Target, sample};
use super::window::{Layout, Simulations, rollout, run};
use crate::clip::Clip;
use crate::clip::pose;
use crate::model::Character;
use crate::optim::scheduler::{self, Evaluate, Judged, OnThreads, Verdict};
use crate::optim::{AskTell, Cmaes, CmaesOptions};
use crate::sim::{Frame, SimSettings, Simulation, Snapshot};
use serde::{Deserialize, Serialize};

/// The search's settings (the paper's by default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrackSettings {
    /// k: samples kept per window (1: greedy).
    pub keep: usize,
    /// n: samples stored per window, pooled over the k searches.
    pub samples: usize,
    /// CMA-ES generations per start state.
    pub generations: usize,
    /// CMA-ES population.
    pub population: usize,
    /// Initial CMA-ES step (rad).
    pub sigma: f64,
    /// Window length and stride (s).
    pub window: f64,
    pub stride: f64,
    /// Time between knots, and between cost instants (s).
    pub knot: f64,
    pub cost_every: f64,
    pub weights: CostWeights,
    /// A rollout stops once its cost passes this many times the best window cost its search
    /// has found (0: never stops early).
    pub abort_factor: f64,
    pub seed: u64,
}

impl Default for TrackSettings {
    fn default() -> Self {
        TrackSettings {
            keep: 20,
            samples: 400,
            generations: 200,
            population: 30,
            sigma: 0.01,
            window: 0.5,
            stride: 0.25,
            knot: 0.1,
            cost_every: 0.05,
            weights: CostWeights::default(),
            abort_factor: 3.0,
            seed: 1,
        }
    }
}

impl TrackSettings {
    /// Samples stored per start state (n/k), at least one.
    pub fn samples_per_start(&self) -> usize {
        (self.samples / self.keep.max(1)).max(1)
    }

    /// Generations between stored samples.
    pub fn store_every(&self) -> usize {
        (self.generations / self.samples_per_start()).max(1)
    }

    /// Fails unless the settings make a search.
    pub fn check(&self, dt: f64) -> Result<(), TrackError> {
        let steps = |s: f64| s / dt;
        let whole = |s: f64| (steps(s) - steps(s).round()).abs() < 1e-3 && steps(s) >= 1.0;
        let bad = |m: String| Err(TrackError::Settings(m));
        if self.keep == 0 || self.population < 2 || self.generations == 0 || self.samples == 0 {
            return bad(
                "keep, samples, generations and population must be positive (population ≥ 2)"
                    .into(),
            );
        }
        if !(self.sigma > 0.0 && self.sigma.is_finite()) {
            return bad(format!("sigma is {}, expected > 0", self.sigma));
        }
        for (name, v) in [
            ("window", self.window),
            ("stride", self.stride),
            ("knot", self.knot),
            ("cost_every", self.cost_every),
        ] {
            if !whole(v) {
                return bad(format!(
                    "{name} is {v} s, expected a whole number of simulation steps of {dt} s"
                ));
            }
        }
        if self.stride > self.window {
            return bad("the stride is longer than the window".into());
        }
        Ok(())
    }
}

/// What stops a tracking search.
#[derive(Debug, thiserror::Error)]
pub enum TrackError {
    #[error("tracking settings: {0}")]
    Settings(String),
    #[error("the clip does not fit the character: {0}")]
    Clip(String),
    #[error("the character cannot be simulated: {0}")]
    Sim(#[from] crate::sim::SimError),
    #[error(
        "window {window} (from {time:.2} s): all {rollouts} rollouts made the simulation diverge \
         (a body flew off or spun away), so there is no state to continue from; check the \
         character with `motionlab simulate` and the clip's first pose"
    )]
    Diverged {
        window: usize,
        time: f64,
        rollouts: u64,
    },
    #[error("the checkpoint does not fit this search: {0}")]
    Checkpoint(String),
}

/// A sample of a window: a control and its cost, from one of the window's start states.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub x: Vec<f64>,
    pub cost: f64,
    /// The start state it was searched from (index into the previous window's kept samples).
    pub start: usize,
    /// The generation it was stored at.
    pub generation: usize,
}

/// A sample that lives on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    pub sample: Sample,
    /// Its window cost plus its parent's cumulative cost.
    pub cumulative: f64,
}

/// One window as it went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowRecord {
    /// Its start (s).
    pub start: f64,
    /// Every stored sample's cost.
    pub generated: Vec<f64>,
    /// The samples kept (indices into `generated`), and what they carry on.
    pub kept: Vec<usize>,
    pub kept_samples: Vec<Kept>,
    /// Rollouts simulated, and how many stopped early.
    pub rollouts: u64,
    pub stopped_early: u64,
    /// Simulation steps run.
    pub steps: u64,
}

impl WindowRecord {
    pub fn best(&self) -> f64 {
        self.kept_samples
            .iter()
            .map(|k| k.sample.cost)
            .fold(f64::INFINITY, f64::min)
    }
}

/// The search: its settings, its target, its windows so far and the start states of the next.
pub struct Search {
    pub settings: TrackSettings,
    pub character: Character,
    pub clip: Clip,
    target: Target,
    sims: Simulations,
    layout_dofs: usize,
    /// The simulation's state at the start of the clip.
    initial: Snapshot,
    pub windows: Vec<WindowRecord>,
    /// The start states of the next window, one per kept sample of the last (one initially).
    starts: Vec<Snapshot>,
    pub dt: f64,
    total_steps: usize,
    /// Where each generation's rollouts run (this process alone, or spread over MPI ranks).
    pub ranks: crate::cluster::Ranks,
}

/// Steps in `seconds` at time step `dt`.
fn steps_of(seconds: f64, dt: f64) -> usize {
    (seconds / dt).round() as usize
}

/// The chain of kept samples (index per window) ending in the last window's cheapest by
/// cumulative cost (ties to the lower index), followed back through the parents.
pub fn best_chain(windows: &[WindowRecord]) -> Vec<usize> {
    let Some(last) = windows.last() else {
        return Vec::new();
    };
    let mut k = (0..last.kept_samples.len())
        .min_by(|&a, &b| {
            last.kept_samples[a]
                .cumulative
                .total_cmp(&last.kept_samples[b].cumulative)
                .then(a.cmp(&b))
        })
        .unwrap_or(0);
    let mut chain = vec![0; windows.len()];
    for w in (0..windows.len()).rev() {
        chain[w] = k;
        k = windows[w].kept_samples[k].sample.start;
    }
    chain
}

/// The clip's velocities at its start (its first frame interval): the root's linear and
/// angular velocity in the world and every coordinate's rate. A captured walk starts in motion;
/// a keyed motion that starts from rest gives zeros.
fn start_velocities(clip: &Clip) -> ([f32; 3], [f32; 3], Vec<f32>) {
    let h = 1.0 / clip.rate;
    let ((r0, q0), (r1, q1)) = (sample(clip, 0.0), sample(clip, h));
    let linear = [0, 1, 2].map(|a| ((r1[a] - r0[a]) / h) as f32);
    let turn = pose::quat_of(&r1) * pose::quat_of(&r0).inverse();
    let angular = turn.scaled_axis() / h;
    let angular = [0, 1, 2].map(|a| angular[a] as f32);
    let rates = q0
        .iter()
        .zip(&q1)
        .map(|(a, b)| ((b - a) / h) as f32)
        .collect();
    (linear, angular, rates)
}

/// A seed of its own for search `start` of window `window`.
fn seed_of(seed: u64, window: usize, start: usize) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&seed.to_le_bytes());
    h.update(&(window as u64).to_le_bytes());
    h.update(&(start as u64).to_le_bytes());
    h.digest()
}

impl Search {
    /// A search that makes `character` track `clip` (its coordinates on that character).
    pub fn new(
        character: Character,
        clip: Clip,
        settings: TrackSettings,
        sim_settings: SimSettings,
    ) -> Result<Self, TrackError> {
        clip.check_character(&character)
            .map_err(|e| TrackError::Clip(e.to_string()))?;
        if clip.frames.len() < 2 {
            return Err(TrackError::Clip("a clip of at least two frames".into()));
        }
        let dt = sim_settings.dt as f64;
        settings.check(dt)?;
        let total_steps = steps_of(clip.duration() - 1.0 / clip.rate, dt).max(1);
        let cost_every = steps_of(settings.cost_every, dt);
        let target = Target::new(&clip, &character, dt, total_steps, cost_every);
        let mut sim = Simulation::new(&character, sim_settings)?;
        let (root, joints) = &target.start;
        let q: Vec<f32> = joints.iter().map(|&x| x as f32).collect();
        sim.set_configuration(root.map(|x| x as f32), &q);
        let (linear, angular, rates) = start_velocities(&clip);
        sim.set_velocities(linear, angular, &rates);
        sim.set_targets(&target.targets[0]);
        let initial = sim.snapshot();
        let layout_dofs = sim.dofs().len();
        Ok(Search {
            sims: Simulations::new(&character, sim_settings),
            settings,
            character,
            clip,
            target,
            layout_dofs,
            starts: vec![initial.clone()],
            initial,
            windows: Vec::new(),
            dt,
            total_steps,
            ranks: Default::default(),
        })
    }

    /// The layout of window `w`.
    pub fn layout(&self, w: usize) -> Layout {
        let start = w * steps_of(self.settings.stride, self.dt);
        let steps =
            steps_of(self.settings.window, self.dt).min(self.total_steps.saturating_sub(start));
        Layout {
            start,
            steps: steps.max(1),
            knot_steps: steps_of(self.settings.knot, self.dt),
            dofs: self.layout_dofs,
        }
    }

    /// Windows in all.
    pub fn window_count(&self) -> usize {
        let stride = steps_of(self.settings.stride, self.dt);
        let window = steps_of(self.settings.window, self.dt);
        if self.total_steps <= window {
            1
        } else {
            (self.total_steps - window).div_ceil(stride) + 1
        }
    }

    pub fn is_finished(&self) -> bool {
        self.windows.len() >= self.window_count()
    }

    /// Steps of window `w` that its chain commits: the first half (the stride), or all of the
    /// last window.
    fn committed(&self, w: usize) -> usize {
        let l = self.layout(w);
        if w + 1 >= self.window_count() {
            l.steps
        } else {
            steps_of(self.settings.stride, self.dt).min(l.steps)
        }
    }

    /// Optimizes the next window (see the module docs). Does nothing once finished. Fails when
    /// every rollout of the window made the simulation diverge: no sample to continue from.
    pub fn step(&mut self, pool: Option<&rayon::ThreadPool>) -> Result<(), TrackError> {
        if self.is_finished() {
            return Ok(());
        }
        let w = self.windows.len();
        let layout = self.layout(w);
        let n = layout.dimension();
        let s = &self.settings;
        let mut searches: Vec<Cmaes> = (0..self.starts.len())
            .map(|i| {
                Cmaes::new(
                    &vec![0.0; n],
                    s.sigma,
                    CmaesOptions {
                        population: Some(s.population),
                        seed: seed_of(s.seed, w, i),
                        ..Default::default()
                    },
                )
            })
            .collect();
        let mut best: Vec<(Vec<f64>, f64)> = vec![(vec![0.0; n], f64::INFINITY); searches.len()];
        let mut samples: Vec<Sample> = Vec::new();
        let (mut rollouts, mut stopped) = (0u64, 0u64);
        let mut sim_steps = 0u64;
        let store_every = s.store_every();
        for g in 0..s.generations {
            let asked: Vec<Vec<Vec<f64>>> = searches.iter_mut().map(|c| c.ask()).collect();
            // One batch: every search's points, with the start and the bound they run under.
            let batch: Vec<(usize, Vec<f64>)> = asked
                .iter()
                .enumerate()
                .flat_map(|(i, xs)| xs.iter().map(move |x| (i, x.clone())))
                .collect();
            let bounds: Vec<f64> = best
                .iter()
                .map(|(_, b)| {
                    if s.abort_factor > 0.0 && b.is_finite() {
                        s.abort_factor * b
                    } else {
                        f64::INFINITY
                    }
                })
                .collect();
            let points: Vec<Vec<f64>> = batch
                .iter()
                .map(|(i, x)| {
                    let mut p = x.clone();
                    p.push(*i as f64);
                    p
                })
                .collect();
            let (starts, target, sims, weights) =
                (&self.starts, &self.target, &self.sims, &s.weights);
            let mut evaluate = crate::cluster::Spread {
                ranks: self.ranks,
                inner: OnThreads {
                    pool,
                    f: |p: &[f64]| {
                        let i = p[p.len() - 1] as usize;
                        rollout(
                            sims,
                            &starts[i],
                            target,
                            &layout,
                            &p[..p.len() - 1],
                            weights,
                            bounds[i],
                        )
                    },
                },
            };
            let outcomes = evaluate.evaluate(&points);
            let mut k = 0;
            for (i, xs) in asked.iter().enumerate() {
                let mut judged = Vec::with_capacity(xs.len());
                for x in xs {
                    let r = &outcomes[k];
                    k += 1;
                    rollouts += 1;
                    stopped += (!r.complete) as u64;
                    sim_steps += if r.complete { layout.steps as u64 } else { 0 };
                    let verdict = Verdict::of(r.cost, true);
                    if r.complete && r.cost < best[i].1 {
                        best[i] = (x.clone(), r.cost);
                    }
                    judged.push(Judged::from(verdict));
                }
                scheduler::tell(&mut searches[i], xs, &judged);
            }
            if (g + 1) % store_every == 0 {
                for (i, (x, c)) in best.iter().enumerate() {
                    if c.is_finite() {
                        samples.push(Sample {
                            x: x.clone(),
                            cost: *c,
                            start: i,
                            generation: g + 1,
                        });
                    }
                }
            }
        }
        if samples.is_empty() {
            return Err(TrackError::Diverged {
                window: w,
                time: layout.start as f64 * self.dt,
                rollouts,
            });
        }
        let costs: Vec<f64> = samples.iter().map(|x| x.cost).collect();
        let kept_index = select(&costs, s.keep);
        let parent_cumulative = |start: usize| {
            self.windows
                .last()
                .map_or(0.0, |r| r.kept_samples[start].cumulative)
        };
        let kept: Vec<Kept> = kept_index
            .iter()
            .map(|&i| Kept {
                sample: samples[i].clone(),
                cumulative: parent_cumulative(samples[i].start) + samples[i].cost,
            })
            .collect();
        // The next window starts where each kept sample's first half ends.
        let half = self.committed(w);
        let next: Vec<Snapshot> = kept
            .iter()
            .map(|k| {
                self.sims.with(|sim| {
                    sim.restore(&self.starts[k.sample.start]);
                    run(
                        sim,
                        &self.character,
                        &self.target,
                        &layout,
                        &k.sample.x,
                        half,
                        &self.settings.weights,
                        f64::INFINITY,
                        None,
                    );
                    sim.snapshot()
                })
            })
            .collect();
        self.windows.push(WindowRecord {
            start: layout.start as f64 * self.dt,
            generated: costs,
            kept: kept_index,
            kept_samples: kept,
            rollouts,
            stopped_early: stopped,
            steps: sim_steps,
        });
        if !next.is_empty() {
            self.starts = next;
        }
        Ok(())
    }

    /// The chain of kept samples (index per window) ending in the last window's cheapest by
    /// cumulative cost.
    pub fn best_chain(&self) -> Vec<usize> {
        best_chain(&self.windows)
    }

    /// Simulates a chain's committed steps from the start: every step's frame, the control of
    /// every step (targets plus offsets), and the cost terms of the whole.
    pub fn simulate_chain(&self, chain: &[usize]) -> (Vec<Frame>, Vec<Vec<f32>>, CostTerms, bool) {
        let mut frames = Vec::new();
        let mut controls = Vec::new();
        let mut terms = CostTerms::default();
        let mut fell = false;
        self.sims.with(|sim| {
            sim.restore(&self.initial);
            frames.push(sim.frame());
            for (w, &k) in chain.iter().enumerate() {
                let layout = self.layout(w);
                let x = &self.windows[w].kept_samples[k].sample.x;
                let steps = self.committed(w);
                let before = frames.len();
                let r = run(
                    sim,
                    &self.character,
                    &self.target,
                    &layout,
                    x,
                    steps,
                    &self.settings.weights,
                    f64::INFINITY,
                    Some(&mut frames),
                );
                for j in 0..(frames.len() - before) {
                    let goal = &self.target.targets[(layout.start + j).min(self.target.steps())];
                    controls.push(
                        goal.iter()
                            .enumerate()
                            .map(|(d, g)| g + layout.offset(x, j, d) as f32)
                            .collect(),
                    );
                }
                terms.add(&r.terms);
                fell |= r.fell;
            }
        });
        (frames, controls, terms, fell)
    }

    /// Plays open-loop controls (one PD target per degree of freedom and step, as a result's
    /// `controls.ron` holds them) from the search's start state: every step's frame (the start's
    /// first) and whether the character fell. The chain's own controls give back its trajectory
    /// bit for bit.
    pub fn play_controls(&self, controls: &[Vec<f32>]) -> Result<(Vec<Frame>, bool), TrackError> {
        if let Some((step, c)) = controls
            .iter()
            .enumerate()
            .find(|(_, c)| c.len() != self.layout_dofs)
        {
            return Err(TrackError::Clip(format!(
                "controls of step {step}: expected {} values (one per degree of freedom), \
                 found {}",
                self.layout_dofs,
                c.len()
            )));
        }
        let mut frames = Vec::with_capacity(controls.len() + 1);
        let mut fell = false;
        self.sims.with(|sim| {
            sim.restore(&self.initial);
            frames.push(sim.frame());
            for c in controls {
                sim.set_targets(c);
                sim.step();
                frames.push(sim.frame());
                fell |= sim.has_fallen() || sim.failure().is_some();
            }
        });
        Ok((frames, fell))
    }

    /// The start states of the next window, simulated again along the kept samples' chains
    /// (after a resume).
    pub(super) fn rebuild_starts(&mut self) {
        let Some(last) = self.windows.len().checked_sub(1) else {
            self.starts = vec![self.initial.clone()];
            return;
        };
        let mut starts = Vec::with_capacity(self.windows[last].kept_samples.len());
        for k in 0..self.windows[last].kept_samples.len() {
            // The chain that ends in kept sample k of the last window.
            let mut chain = vec![0; last + 1];
            let mut j = k;
            for w in (0..=last).rev() {
                chain[w] = j;
                j = self.windows[w].kept_samples[j].sample.start;
            }
            let snap = self.sims.with(|sim| {
                sim.restore(&self.initial);
                for (w, &k) in chain.iter().enumerate() {
                    let layout = self.layout(w);
                    let steps = steps_of(self.settings.stride, self.dt).min(layout.steps);
                    run(
                        sim,
                        &self.character,
                        &self.target,
                        &layout,
                        &self.windows[w].kept_samples[k].sample.x,
                        steps,
                        &self.settings.weights,
                        f64::INFINITY,
                        None,
                    );
                }
                sim.snapshot()
            });
            starts.push(snap);
        }
        self.starts = starts;
    }

    /// Simulation steps the target spans.
    pub fn total_steps(&self) -> usize {
        self.total_steps
    }

    pub fn target(&self) -> &Target {
        &self.target
    }
}
