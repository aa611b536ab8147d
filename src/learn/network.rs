//! A small fully connected network (tanh hidden layers, a linear output) with its gradient by
//! back-propagation and the Adam optimizer (Kingma & Ba 2015, Algorithm 1): the policy and the
//! value function of [`super::ppo`].
//!
//! Written as plain loops in `f32` on purpose: the same weights, inputs and seed give the same
//! bits on every machine, where a matrix library picks its kernels (and so its rounding) by the
//! processor it runs on. The networks here are small (a few hundred inputs, a few hundred
//! units), so the loops cost little next to the simulation that feeds them.

use rand::Rng;
use serde::{Deserialize, Serialize};

/// Weights of a multilayer perceptron: `sizes[0]` inputs, `sizes[last]` outputs, tanh between.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Mlp {
    pub sizes: Vec<usize>,
    /// Per layer, `sizes[l + 1] × sizes[l]`, row-major (one row per output unit).
    pub weights: Vec<Vec<f32>>,
    pub biases: Vec<Vec<f32>>,
}

/// One gradient (or Adam moment) of every weight and bias of an [`Mlp`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Gradient {
    pub weights: Vec<Vec<f32>>,
    pub biases: Vec<Vec<f32>>,
}

impl Gradient {
    /// Zeros shaped like `net`.
    pub fn zeros(net: &Mlp) -> Self {
        Self {
            weights: net.weights.iter().map(|w| vec![0.0; w.len()]).collect(),
            biases: net.biases.iter().map(|b| vec![0.0; b.len()]).collect(),
        }
    }

    /// Adds `other` (in a fixed order: the sum does not depend on how the work was split).
    pub fn add(&mut self, other: &Gradient) {
        for (a, b) in self.weights.iter_mut().zip(&other.weights) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        for (a, b) in self.biases.iter_mut().zip(&other.biases) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
    }

    /// Multiplies every entry by `s`.
    pub fn scale(&mut self, s: f32) {
        self.weights
            .iter_mut()
            .chain(self.biases.iter_mut())
            .flatten()
            .for_each(|x| *x *= s);
    }

    /// The Euclidean norm over every entry.
    pub fn norm(&self) -> f32 {
        (self.weights.iter().chain(&self.biases).flatten())
            .map(|x| x * x)
            .sum::<f32>()
            .sqrt()
    }
}

impl Mlp {
    /// Glorot-uniform weights (Glorot & Bengio 2010) and zero biases; the output layer's
    /// weights scaled by `output_scale` (small: a new policy starts near zero actions).
    pub fn new(sizes: &[usize], output_scale: f32, rng: &mut impl Rng) -> Self {
        assert!(sizes.len() >= 2, "a network needs inputs and outputs");
        let layers = sizes.len() - 1;
        let mut weights = Vec::with_capacity(layers);
        let mut biases = Vec::with_capacity(layers);
        for l in 0..layers {
            let (n_in, n_out) = (sizes[l], sizes[l + 1]);
            let limit = (6.0 / (n_in + n_out) as f32).sqrt();
            let scale = if l + 1 == layers { output_scale } else { 1.0 };
            weights.push(
                (0..n_in * n_out)
                    .map(|_| rng.random_range(-limit..limit) * scale)
                    .collect(),
            );
            biases.push(vec![0.0; n_out]);
        }
        Self {
            sizes: sizes.to_vec(),
            weights,
            biases,
        }
    }

    /// Whether the weights and biases have the sizes `sizes` says (a file may not).
    pub fn check_shape(&self) -> Result<(), String> {
        let layers = self.sizes.len().saturating_sub(1);
        let fits = layers >= 1
            && self.weights.len() == layers
            && self.biases.len() == layers
            && (0..layers).all(|l| {
                self.weights[l].len() == self.sizes[l] * self.sizes[l + 1]
                    && self.biases[l].len() == self.sizes[l + 1]
            });
        match fits {
            true => Ok(()),
            false => Err(format!(
                "a network of sizes {:?} whose weights or biases have other sizes",
                self.sizes
            )),
        }
    }

    pub fn inputs(&self) -> usize {
        self.sizes[0]
    }

    pub fn outputs(&self) -> usize {
        *self.sizes.last().expect("at least two sizes")
    }

    /// The network's output for `x`.
    pub fn forward(&self, x: &[f32]) -> Vec<f32> {
        self.activations(x).pop().expect("an output layer")
    }

    /// Every layer's output for `x` (the input first, the network's output last): what
    /// [`Self::backward`] needs.
    pub fn activations(&self, x: &[f32]) -> Vec<Vec<f32>> {
        assert_eq!(x.len(), self.inputs(), "input size");
        let layers = self.weights.len();
        let mut acts = Vec::with_capacity(layers + 1);
        acts.push(x.to_vec());
        for l in 0..layers {
            let input = &acts[l];
            let (n_in, n_out) = (self.sizes[l], self.sizes[l + 1]);
            let w = &self.weights[l];
            let mut out = self.biases[l].clone();
            for (o, value) in out.iter_mut().enumerate() {
                let row = &w[o * n_in..(o + 1) * n_in];
                *value += dot(row, input);
            }
            if l + 1 < layers {
                out.iter_mut().for_each(|v| *v = v.tanh());
            }
            debug_assert_eq!(out.len(), n_out);
            acts.push(out);
        }
        acts
    }

    /// Adds to `grad` the gradient of a scalar loss whose gradient with respect to the output is
    /// `d_output`, at the activations `acts` of one input ([`Self::activations`]).
    pub fn backward(&self, acts: &[Vec<f32>], d_output: &[f32], grad: &mut Gradient) {
        let layers = self.weights.len();
        let mut delta = d_output.to_vec();
        for l in (0..layers).rev() {
            let n_in = self.sizes[l];
            let input = &acts[l];
            let gw = &mut grad.weights[l];
            for (o, d) in delta.iter().enumerate() {
                if *d == 0.0 {
                    continue;
                }
                grad.biases[l][o] += d;
                let row = &mut gw[o * n_in..(o + 1) * n_in];
                row.iter_mut().zip(input).for_each(|(g, x)| *g += d * x);
            }
            if l == 0 {
                break;
            }
            // Into the layer below, through its tanh (d tanh = 1 − tanh²).
            let w = &self.weights[l];
            let mut below = vec![0.0f32; n_in];
            for (o, d) in delta.iter().enumerate() {
                let row = &w[o * n_in..(o + 1) * n_in];
                below.iter_mut().zip(row).for_each(|(b, w)| *b += d * w);
            }
            for (b, a) in below.iter_mut().zip(input) {
                *b *= 1.0 - a * a;
            }
            delta = below;
        }
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Adam's state for one network (Kingma & Ba 2015): first and second moment estimates.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Adam {
    pub learning_rate: f32,
    m: Gradient,
    v: Gradient,
    steps: u32,
}

impl Adam {
    pub fn new(net: &Mlp, learning_rate: f32) -> Self {
        Self {
            learning_rate,
            m: Gradient::zeros(net),
            v: Gradient::zeros(net),
            steps: 0,
        }
    }

    /// Whether the moments have `net`'s shape (a file may not).
    pub fn fits(&self, net: &Mlp) -> bool {
        let same = |g: &Gradient| {
            g.weights.len() == net.weights.len()
                && g.biases.len() == net.biases.len()
                && g.weights
                    .iter()
                    .zip(&net.weights)
                    .all(|(a, b)| a.len() == b.len())
                && g.biases
                    .iter()
                    .zip(&net.biases)
                    .all(|(a, b)| a.len() == b.len())
        };
        same(&self.m) && same(&self.v)
    }

    /// One descent step of `net` along `grad` (the gradient of the loss to minimize).
    pub fn step(&mut self, net: &mut Mlp, grad: &Gradient) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        const EPS: f32 = 1e-8;
        self.steps += 1;
        let c1 = 1.0 - B1.powi(self.steps as i32);
        let c2 = 1.0 - B2.powi(self.steps as i32);
        let lr = self.learning_rate;
        let params = net.weights.iter_mut().chain(net.biases.iter_mut());
        let ms = self.m.weights.iter_mut().chain(self.m.biases.iter_mut());
        let vs = self.v.weights.iter_mut().chain(self.v.biases.iter_mut());
        let gs = grad.weights.iter().chain(grad.biases.iter());
        for (((p, m), v), g) in params.zip(ms).zip(vs).zip(gs) {
            for i in 0..p.len() {
                m[i] = B1 * m[i] + (1.0 - B1) * g[i];
                v[i] = B2 * v[i] + (1.0 - B2) * g[i] * g[i];
                p[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + EPS);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Back-propagation agrees with central finite differences on every weight of a small
    /// two-hidden-layer network (loss: half the squared output).
    #[test]
    fn the_gradient_is_the_finite_difference_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let net = Mlp::new(&[4, 5, 3, 2], 1.0, &mut rng);
        let x = [0.3f32, -0.7, 0.2, 0.9];
        let loss = |n: &Mlp| -> f64 {
            n.forward(&x)
                .iter()
                .map(|y| 0.5 * (*y as f64).powi(2))
                .sum()
        };
        let acts = net.activations(&x);
        let out = acts.last().unwrap().clone();
        let mut grad = Gradient::zeros(&net);
        net.backward(&acts, &out, &mut grad);
        let h = 1e-2f32;
        for l in 0..net.weights.len() {
            for i in 0..net.weights[l].len() {
                let (mut up, mut down) = (net.clone(), net.clone());
                up.weights[l][i] += h;
                down.weights[l][i] -= h;
                let fd = (loss(&up) - loss(&down)) / (2.0 * h as f64);
                let g = grad.weights[l][i] as f64;
                assert!(
                    (fd - g).abs() < 1e-3 * (1.0 + g.abs()),
                    "w[{l}][{i}]: {g} vs {fd}"
                );
            }
        }
    }

    /// Adam fits y = sin(x) on [−2, 2] with 16 tanh units to a mean squared error under 1e-3
    /// (the zero function's is about 0.4).
    #[test]
    fn adam_fits_a_sine() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut net = Mlp::new(&[1, 16, 1], 1.0, &mut rng);
        let mut adam = Adam::new(&net, 0.01);
        let xs: Vec<f32> = (0..64).map(|i| -2.0 + 4.0 * i as f32 / 63.0).collect();
        let mse = |n: &Mlp| {
            xs.iter()
                .map(|x| (n.forward(&[*x])[0] - x.sin()).powi(2))
                .sum::<f32>()
                / xs.len() as f32
        };
        for _ in 0..2000 {
            let mut grad = Gradient::zeros(&net);
            for x in &xs {
                let acts = net.activations(&[*x]);
                let e = acts.last().unwrap()[0] - x.sin();
                net.backward(&acts, &[e / xs.len() as f32], &mut grad);
            }
            adam.step(&mut net, &grad);
        }
        assert!(mse(&net) < 1e-3, "mse {}", mse(&net));
    }
}
