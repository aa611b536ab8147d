//! Proximal policy optimization (Schulman, Wolski, Dhariwal, Radford & Klimov 2017, "Proximal
//! Policy Optimization Algorithms", §3, eq. 7, the clipped surrogate; §5, Algorithm 1) with
//! generalized advantage estimation (Schulman, Moritz, Levine, Jordan & Abbeel 2016, eq. 16), as
//! DeepMimic (Peng, Abbeel, Levine & van de Panne 2018, §5) trains its tracking policies:
//!
//! - a Gaussian policy whose mean is a network of the observation and whose standard deviation
//!   is fixed (DeepMimic's exploration noise), so the mean alone is the policy played;
//! - observations normalized by running means and deviations, frozen while a batch is collected;
//! - a value network fit to the GAE returns; a fall ends an episode with no value after it,
//!   an episode cut short by its length is bootstrapped from the value of its last state.
//!
//! Deterministic: the same episodes give the same weights whatever the number of threads (the
//! minibatches' gradients are summed in fixed chunks, in order).

use super::network::{Adam, Gradient, Mlp};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Running mean and deviation of each observation entry (Welford's update).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Normalizer {
    count: f64,
    mean: Vec<f64>,
    m2: Vec<f64>,
}

impl Normalizer {
    pub fn new(size: usize) -> Self {
        Self {
            count: 0.0,
            mean: vec![0.0; size],
            m2: vec![0.0; size],
        }
    }

    pub fn observe(&mut self, x: &[f32]) {
        self.count += 1.0;
        for ((m, s), &v) in self.mean.iter_mut().zip(&mut self.m2).zip(x) {
            let d = v as f64 - *m;
            *m += d / self.count;
            *s += d * (v as f64 - *m);
        }
    }

    /// (x − mean) / deviation, clipped to ±5 deviations (entries that have not varied: centred).
    pub fn normalize(&self, x: &[f32]) -> Vec<f32> {
        x.iter()
            .zip(self.mean.iter().zip(&self.m2))
            .map(|(&v, (m, s))| {
                let var = if self.count > 1.0 {
                    s / (self.count - 1.0)
                } else {
                    0.0
                };
                let sd = var.sqrt().max(1e-2);
                ((v as f64 - m) / sd).clamp(-5.0, 5.0) as f32
            })
            .collect()
    }
}

/// A Gaussian policy: mean = network(normalized observation), fixed standard deviation.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Policy {
    pub mean: Mlp,
    pub std: f32,
    pub normalizer: Normalizer,
}

impl Policy {
    /// The action played (the mean).
    pub fn act(&self, observation: &[f32]) -> Vec<f32> {
        self.mean.forward(&self.normalizer.normalize(observation))
    }

    /// An exploring action drawn around the mean, and its log-density.
    pub fn sample(&self, observation: &[f32], rng: &mut ChaCha8Rng) -> (Vec<f32>, f32) {
        let mean = self.act(observation);
        let action: Vec<f32> = mean
            .iter()
            .map(|m| {
                let z: f64 = StandardNormal.sample(rng);
                m + self.std * z as f32
            })
            .collect();
        let logp = self.log_density(&mean, &action);
        (action, logp)
    }

    fn log_density(&self, mean: &[f32], action: &[f32]) -> f32 {
        let s2 = self.std * self.std;
        let c = self.std.ln() + 0.5 * (std::f32::consts::TAU).ln();
        mean.iter()
            .zip(action)
            .map(|(m, a)| -(a - m).powi(2) / (2.0 * s2) - c)
            .sum()
    }
}

/// One decision of an episode.
#[derive(Clone, Debug)]
pub struct Step {
    /// The observation as measured (not normalized).
    pub observation: Vec<f32>,
    pub action: Vec<f32>,
    /// log π(action | observation) under the policy that drew it.
    pub log_density: f32,
    pub reward: f32,
}

/// One episode: its steps, and how it ended.
#[derive(Clone, Debug, Default)]
pub struct Episode {
    pub steps: Vec<Step>,
    /// It ended in a failure (a fall): nothing comes after its last step.
    pub failed: bool,
    /// The observation after the last step (the value of a cut-short episode goes on from it).
    pub last_observation: Vec<f32>,
}

impl Episode {
    pub fn total_reward(&self) -> f64 {
        self.steps.iter().map(|s| s.reward as f64).sum()
    }
}

/// Settings of the learner.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PpoSettings {
    /// Hidden layer sizes of both networks.
    pub hidden: Vec<usize>,
    /// Discount (DeepMimic: 0.95) and GAE's λ (0.95).
    pub gamma: f32,
    pub lambda: f32,
    /// The surrogate's clip ε (0.2).
    pub clip: f32,
    /// Passes over a batch, and the samples of each minibatch.
    pub epochs: usize,
    pub minibatch: usize,
    pub policy_learning_rate: f32,
    pub value_learning_rate: f32,
    /// The exploration noise's standard deviation (in action units).
    pub std: f32,
    /// An update's epochs stop at the first minibatch whose policy has moved from the one that
    /// drew the batch by more than 1.5 × this KL divergence (nats, the estimator
    /// (r − 1) − ln r of the probability ratio r; Schulman et al.'s "target KL" of the PPO
    /// baselines); 0: every epoch runs. With a fixed small noise a step of the mean moves the
    /// policy by |Δμ|²/(2σ²), so the clip alone lets an update go far.
    #[serde(default)]
    pub target_kl: f32,
}

impl Default for PpoSettings {
    fn default() -> Self {
        Self {
            hidden: vec![128, 128],
            gamma: 0.95,
            lambda: 0.95,
            clip: 0.2,
            epochs: 4,
            minibatch: 256,
            policy_learning_rate: 5e-5,
            value_learning_rate: 1e-3,
            std: 0.1,
            target_kl: 0.0,
        }
    }
}

/// What one update did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateStats {
    pub samples: usize,
    pub episodes: usize,
    /// Mean total reward and length (steps) of the batch's episodes.
    pub mean_return: f64,
    pub mean_length: f64,
    /// Share of the episodes that ended in a failure.
    pub failures: f64,
    /// Mean squared error of the value network on the returns, before the update.
    pub value_error: f64,
    /// Share of the samples whose ratio the clip held, in the last epoch run.
    pub clipped: f64,
    /// The policy's KL divergence from the one that drew the batch at the last minibatch run
    /// (nats), and the epochs run (fewer than the settings' when the target KL stopped them).
    pub kl: f64,
    pub epochs: f64,
}

/// The policy, the value network and their optimizers: what a checkpoint holds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Learner {
    pub settings: PpoSettings,
    pub policy: Policy,
    pub value: Mlp,
    policy_adam: Adam,
    value_adam: Adam,
    /// Updates made, and samples learned from.
    pub iterations: u64,
    pub samples: u64,
}

/// Samples whose gradient is summed by one task (fixed: the sums do not depend on threads).
const CHUNK: usize = 64;

impl Learner {
    /// A new learner for `observations` inputs and `actions` outputs, its weights drawn with
    /// `seed`; the policy's output layer starts small (actions near zero).
    pub fn new(observations: usize, actions: usize, settings: PpoSettings, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut sizes = vec![observations];
        sizes.extend(&settings.hidden);
        let mut value_sizes = sizes.clone();
        sizes.push(actions);
        value_sizes.push(1);
        let mean = Mlp::new(&sizes, 0.01, &mut rng);
        let value = Mlp::new(&value_sizes, 1.0, &mut rng);
        Self {
            policy_adam: Adam::new(&mean, settings.policy_learning_rate),
            value_adam: Adam::new(&value, settings.value_learning_rate),
            policy: Policy {
                mean,
                std: settings.std,
                normalizer: Normalizer::new(observations),
            },
            value,
            settings,
            iterations: 0,
            samples: 0,
        }
    }

    /// Whether both networks are whole and take `observations` inputs (the normalizer too), and
    /// the policy puts out `actions`: what a checkpoint read from a file must be to play.
    pub fn check_shapes(&self, observations: usize, actions: usize) -> Result<(), String> {
        self.policy.mean.check_shape()?;
        self.value.check_shape()?;
        if !self.policy_adam.fits(&self.policy.mean) || !self.value_adam.fits(&self.value) {
            return Err("optimizer moments of another size than the networks".into());
        }
        let (mean, value) = (&self.policy.mean, &self.value);
        let fits = mean.inputs() == observations
            && value.inputs() == observations
            && self.policy.normalizer.mean.len() == observations
            && self.policy.normalizer.m2.len() == observations
            && mean.outputs() == actions
            && value.outputs() == 1;
        match fits {
            true => Ok(()),
            false => Err(format!(
                "expected a policy of {observations} observations and {actions} joint coordinates, found {} and {} (trained for another character?)",
                mean.inputs(),
                mean.outputs()
            )),
        }
    }

    /// Changes the exploration noise, the policy's learning rate and the target KL of a
    /// training in progress (DeepMimic anneals neither of the first two; a plateau may call for
    /// less noise, an unsteady training for a target KL).
    pub fn retune(
        &mut self,
        std: Option<f32>,
        policy_learning_rate: Option<f32>,
        target_kl: Option<f32>,
    ) {
        if let Some(kl) = target_kl {
            self.settings.target_kl = kl;
        }
        if let Some(std) = std {
            self.settings.std = std;
            self.policy.std = std;
        }
        if let Some(rate) = policy_learning_rate {
            self.settings.policy_learning_rate = rate;
            self.policy_adam.learning_rate = rate;
        }
    }

    /// One update from `episodes` drawn with the current policy; `seed` shuffles the
    /// minibatches.
    pub fn update(&mut self, episodes: &[Episode], seed: u64) -> UpdateStats {
        let s = self.settings.clone();
        // Normalization moves with the data before the networks see it.
        for e in episodes {
            for step in &e.steps {
                self.policy.normalizer.observe(&step.observation);
            }
        }
        let norm = |x: &[f32]| self.policy.normalizer.normalize(x);
        let value_of = |x: &[f32]| self.value.forward(&norm(x))[0];
        // Advantages and returns by GAE, episode by episode.
        let mut samples: Vec<(Vec<f32>, &[f32], f32, f32, f32)> = Vec::new();
        let mut value_error = 0.0;
        for e in episodes {
            let values: Vec<f32> = e.steps.iter().map(|st| value_of(&st.observation)).collect();
            let mut next = match e.failed || e.steps.is_empty() {
                true => 0.0,
                false => value_of(&e.last_observation),
            };
            let mut advantage = 0.0f32;
            let mut out = Vec::with_capacity(e.steps.len());
            for (st, v) in e.steps.iter().zip(&values).rev() {
                let delta = st.reward + s.gamma * next - v;
                advantage = delta + s.gamma * s.lambda * advantage;
                next = *v;
                out.push((advantage, advantage + v));
            }
            out.reverse();
            for (st, ((a, ret), v)) in e.steps.iter().zip(out.into_iter().zip(&values)) {
                value_error += ((ret - v) as f64).powi(2);
                samples.push((norm(&st.observation), &st.action, st.log_density, a, ret));
            }
        }
        let n = samples.len();
        let stats = UpdateStats {
            samples: n,
            episodes: episodes.len(),
            mean_return: episodes.iter().map(Episode::total_reward).sum::<f64>()
                / episodes.len().max(1) as f64,
            mean_length: n as f64 / episodes.len().max(1) as f64,
            failures: episodes.iter().filter(|e| e.failed).count() as f64
                / episodes.len().max(1) as f64,
            value_error: value_error / n.max(1) as f64,
            clipped: 0.0,
            kl: 0.0,
            epochs: 0.0,
        };
        if n == 0 {
            return stats;
        }
        // Advantages normalized over the batch.
        let mean_a = samples.iter().map(|x| x.3 as f64).sum::<f64>() / n as f64;
        let sd_a = (samples
            .iter()
            .map(|x| (x.3 as f64 - mean_a).powi(2))
            .sum::<f64>()
            / n as f64)
            .sqrt()
            .max(1e-8);
        for x in &mut samples {
            x.3 = ((x.3 as f64 - mean_a) / sd_a) as f32;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut order: Vec<usize> = (0..n).collect();
        // Held by the clip, and run, in the last epoch that ran.
        let mut last_epoch = (0usize, 0usize);
        let (mut kl, mut epochs, mut stopped) = (0.0f64, 0.0f64, false);
        for _ in 0..s.epochs {
            order.shuffle(&mut rng);
            let (mut clipped, mut seen) = (0usize, 0usize);
            for batch in order.chunks(s.minibatch.max(1)) {
                let parts: Vec<(Gradient, Gradient, usize, f64)> = batch
                    .par_chunks(CHUNK)
                    .map(|chunk| {
                        let mut gp = Gradient::zeros(&self.policy.mean);
                        let mut gv = Gradient::zeros(&self.value);
                        let mut held = 0;
                        let mut divergence = 0.0f64;
                        for &i in chunk {
                            let (obs, action, old, adv, ret) = &samples[i];
                            let acts = self.policy.mean.activations(obs);
                            let mean = acts.last().expect("output");
                            let log_ratio = self.policy.log_density(mean, action) - old;
                            divergence += (log_ratio as f64).exp_m1() - log_ratio as f64;
                            let ratio = log_ratio.exp();
                            let clipped_ratio = ratio.clamp(1.0 - s.clip, 1.0 + s.clip);
                            // −min(r·A, clip(r)·A): the gradient flows through r only when
                            // the unclipped term is the smaller.
                            if ratio * adv <= clipped_ratio * adv {
                                let s2 = self.policy.std * self.policy.std;
                                let d: Vec<f32> = mean
                                    .iter()
                                    .zip(*action)
                                    .map(|(m, a)| -adv * ratio * (a - m) / s2)
                                    .collect();
                                self.policy.mean.backward(&acts, &d, &mut gp);
                            } else {
                                held += 1;
                            }
                            let vacts = self.value.activations(obs);
                            let v = vacts.last().expect("output")[0];
                            self.value.backward(&vacts, &[v - ret], &mut gv);
                        }
                        (gp, gv, held, divergence)
                    })
                    .collect();
                kl = parts.iter().map(|p| p.3).sum::<f64>() / batch.len() as f64;
                if s.target_kl > 0.0 && kl > 1.5 * s.target_kl as f64 {
                    stopped = true;
                    break;
                }
                let mut gp = Gradient::zeros(&self.policy.mean);
                let mut gv = Gradient::zeros(&self.value);
                for (p, v, h, _) in &parts {
                    gp.add(p);
                    gv.add(v);
                    clipped += h;
                }
                seen += batch.len();
                let k = 1.0 / batch.len() as f32;
                gp.scale(k);
                gv.scale(k);
                clip_norm(&mut gp, 1.0);
                clip_norm(&mut gv, 10.0);
                self.policy_adam.step(&mut self.policy.mean, &gp);
                self.value_adam.step(&mut self.value, &gv);
            }
            epochs += seen as f64 / n as f64;
            if seen > 0 {
                last_epoch = (clipped, seen);
            }
            if stopped {
                break;
            }
        }
        self.iterations += 1;
        self.samples += n as u64;
        UpdateStats {
            clipped: last_epoch.0 as f64 / last_epoch.1.max(1) as f64,
            kl,
            epochs,
            ..stats
        }
    }
}

/// Scales `g` down to norm `max` when it is longer.
fn clip_norm(g: &mut Gradient, max: f32) {
    let norm = g.norm();
    if norm > max {
        g.scale(max / norm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The point mass's learner: small networks, noise 0.3, a fast learning rate.
    fn point_mass_settings() -> PpoSettings {
        PpoSettings {
            hidden: vec![32, 32],
            std: 0.3,
            policy_learning_rate: 1e-3,
            epochs: 5,
            ..PpoSettings::default()
        }
    }

    /// An episode of the point mass of the test below (from `start`, or a seeded place).
    fn point_mass_episode(
        policy: &Policy,
        seed: u64,
        start: Option<f32>,
        explore: bool,
    ) -> (Episode, f32) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut x = start.unwrap_or_else(|| {
            let u: f64 = rand::Rng::random_range(&mut rng, -1.0..1.0);
            u as f32
        });
        let mut v = 0.0f32;
        let mut e = Episode::default();
        for _ in 0..60 {
            let obs = vec![x, v];
            let (a, lp) = match explore {
                true => policy.sample(&obs, &mut rng),
                false => (policy.act(&obs), 0.0),
            };
            let f = a[0].clamp(-5.0, 5.0);
            v += f * 0.05;
            x += v * 0.05;
            e.steps.push(Step {
                observation: obs,
                action: a,
                log_density: lp,
                reward: (-x * x).exp(),
            });
        }
        e.last_observation = vec![x, v];
        (e, x)
    }

    /// With a target KL an update stops at the first minibatch past 1.5 × the target, and its
    /// policy moves less; without, every epoch runs.
    #[test]
    fn a_target_kl_stops_the_epochs() {
        let learner = Learner::new(2, 1, point_mass_settings(), 7);
        let episodes: Vec<Episode> = (0..66)
            .map(|k| point_mass_episode(&learner.policy, k, None, true).0)
            .collect();
        let moved = |l: &Learner| -> f32 {
            l.policy
                .mean
                .weights
                .iter()
                .flatten()
                .zip(learner.policy.mean.weights.iter().flatten())
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f32>()
                .sqrt()
        };
        let mut free = learner.clone();
        let all = free.update(&episodes, 1);
        assert_eq!(all.epochs, 5.0);
        let mut held = learner.clone();
        held.retune(None, None, Some(1e-5));
        let stopped = held.update(&episodes, 1);
        assert!(stopped.epochs < 1.0, "ran {} epochs", stopped.epochs);
        assert!(stopped.kl > 1.5e-5, "stopped at KL {}", stopped.kl);
        assert!(all.kl > stopped.kl);
        assert!(moved(&held) < 0.5 * moved(&free));
    }

    /// A point mass on a line (x'' = action, 0.05 s steps, 60 steps) rewarded exp(−x²) each step,
    /// started anywhere in [−1, 1] at rest: the untrained policy (mean near 0, noise 0.3) drifts
    /// and scores about 0.7 a step; after 60 updates of 4,000 samples the played mean brings the
    /// mass from x = 1 to within 0.15 of the origin by the episode's end.
    #[test]
    fn ppo_learns_to_bring_a_point_mass_home() {
        let mut learner = Learner::new(2, 1, point_mass_settings(), 7);
        let mut first = None;
        for it in 0..60u64 {
            let episodes: Vec<Episode> = (0..66)
                .map(|k| point_mass_episode(&learner.policy, it * 1000 + k, None, true).0)
                .collect();
            let stats = learner.update(&episodes, it);
            first.get_or_insert(stats.mean_return / 60.0);
        }
        let (_, end) = point_mass_episode(&learner.policy, 0, Some(1.0), false);
        assert!(first.unwrap() < 0.8, "untrained {}", first.unwrap());
        assert!(end.abs() < 0.15, "the mass ends at {end}");
    }
}
