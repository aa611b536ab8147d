//! The 24 problems of the CEC 2006 special session on constrained real-parameter optimization
//! (Liang, Runarsson, Mezura-Montes, Clerc, Suganthan, Coello Coello, Deb: "Problem Definitions
//! and Evaluation Criteria for the CEC 2006 Special Session on Constrained Real-Parameter
//! Optimization", 2006), the benchmark of basin-CMA in Wampler 2012 (thesis §3.3.2, App. B).
//!
//! Every problem minimizes f(x) over a box, subject to inequalities gᵢ(x) ≤ 0 and equalities
//! hⱼ(x) = 0. The formulas, bounds, best-known points x* and values f* are those of the report
//! and of the competition's C code (with its published fixes: g15's h₂ uses 8x₁, g18's g₉ and
//! g22's h₁₂ as corrected in November 2005). Maximization problems are negated as in the report.
//! As the report prescribes, an equality counts as satisfied when |h(x)| ≤ δ = 1e-4; the best
//! known values of g03, g05, g11, g13, … depend on that tolerance (g11: f* = 0.7499, not 0.75).
//!
//! [`Cec2006`] evaluates a problem generically over [`Scalar`], so [`Cec2006Nlp`] (an
//! [`AutoDiff`]-ready [`BlockProblem`] whose equalities become −δ ≤ h(x) ≤ δ) gets exact
//! derivatives by automatic differentiation.

// The published constants are kept digit for digit (0.5236 is g17's bound, not π/6).
#![allow(
    clippy::excessive_precision,
    clippy::approx_constant,
    clippy::needless_range_loop
)]

use crate::nlp::autodiff::{BlockProblem, BlockSpec, Scalar, TermSpec};
use functions::{constraints, objective};

mod functions;

/// The equality tolerance δ of the CEC 2006 rules.
pub const EQUALITY_TOLERANCE: f64 = 1e-4;

/// One CEC 2006 problem, `g01` … `g24` (number 1 … 24).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cec2006 {
    number: usize,
}

const DIMENSIONS: [usize; 24] = [
    13, 20, 10, 5, 4, 2, 10, 2, 7, 8, 2, 3, 5, 10, 3, 5, 6, 9, 15, 24, 7, 22, 9, 2,
];
const INEQUALITIES: [usize; 24] = [
    9, 2, 0, 6, 2, 2, 8, 2, 4, 6, 0, 1, 0, 0, 0, 38, 0, 13, 5, 6, 1, 1, 2, 2,
];
const EQUALITIES: [usize; 24] = [
    0, 0, 1, 0, 3, 0, 0, 0, 0, 0, 1, 0, 3, 3, 2, 0, 4, 0, 0, 14, 5, 19, 4, 0,
];

/// Best known objective values, Table 1 of the report (g20's best known point is slightly
/// infeasible).
const BEST_KNOWN: [f64; 24] = [
    -15.0,
    -0.80361910412559,
    -1.00050010001000,
    -30665.5386717834,
    5126.4967140071,
    -6961.81387558015,
    24.3062090681,
    -0.0958250414180359,
    680.630057374402,
    7049.24802052867,
    0.7499,
    -1.0,
    0.053941514041898,
    -47.7648884594915,
    961.715022289961,
    -1.90515525853479,
    8853.53967480648,
    -0.866025403784439,
    32.6555929502463,
    0.204979400765240,
    193.724510070035,
    236.430975504001,
    -400.055099999999584,
    -5.50801327159536,
];

impl Cec2006 {
    /// Problem `number` (1 … 24).
    pub fn new(number: usize) -> Option<Self> {
        (1..=24).contains(&number).then_some(Self { number })
    }

    pub fn all() -> impl Iterator<Item = Self> {
        (1..=24).map(|number| Self { number })
    }

    pub fn number(&self) -> usize {
        self.number
    }

    /// `g01` … `g24`.
    pub fn name(&self) -> String {
        format!("g{:02}", self.number)
    }

    pub fn dimension(&self) -> usize {
        DIMENSIONS[self.number - 1]
    }

    pub fn num_inequalities(&self) -> usize {
        INEQUALITIES[self.number - 1]
    }

    pub fn num_equalities(&self) -> usize {
        EQUALITIES[self.number - 1]
    }

    /// The published best known value f(x*).
    pub fn best_known_value(&self) -> f64 {
        BEST_KNOWN[self.number - 1]
    }

    /// Whether the report's best known point is feasible (all but g20's are).
    pub fn best_known_is_feasible(&self) -> bool {
        self.number != 20
    }

    /// Lower and upper variable bounds.
    pub fn bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let n = self.dimension();
        let uniform = |lo: f64, hi: f64| (vec![lo; n], vec![hi; n]);
        match self.number {
            1 => {
                let mut hi = vec![1.0; 13];
                hi[9] = 100.0;
                hi[10] = 100.0;
                hi[11] = 100.0;
                (vec![0.0; 13], hi)
            }
            2 => uniform(0.0, 10.0),
            3 => uniform(0.0, 1.0),
            4 => (
                vec![78.0, 33.0, 27.0, 27.0, 27.0],
                vec![102.0, 45.0, 45.0, 45.0, 45.0],
            ),
            5 => (
                vec![0.0, 0.0, -0.55, -0.55],
                vec![1200.0, 1200.0, 0.55, 0.55],
            ),
            6 => (vec![13.0, 0.0], vec![100.0, 100.0]),
            7 => uniform(-10.0, 10.0),
            8 => uniform(0.0, 10.0),
            9 => uniform(-10.0, 10.0),
            10 => (
                vec![100.0, 1000.0, 1000.0, 10.0, 10.0, 10.0, 10.0, 10.0],
                vec![
                    10000.0, 10000.0, 10000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0,
                ],
            ),
            11 => uniform(-1.0, 1.0),
            12 => uniform(0.0, 10.0),
            13 => (
                vec![-2.3, -2.3, -3.2, -3.2, -3.2],
                vec![2.3, 2.3, 3.2, 3.2, 3.2],
            ),
            14 => uniform(0.0, 10.0),
            15 => uniform(0.0, 10.0),
            16 => (
                vec![704.4148, 68.6, 0.0, 193.0, 25.0],
                vec![906.3855, 288.88, 134.75, 287.0966, 84.1988],
            ),
            17 => (
                vec![0.0, 0.0, 340.0, 340.0, -1000.0, 0.0],
                vec![400.0, 1000.0, 420.0, 420.0, 1000.0, 0.5236],
            ),
            18 => {
                let mut hi = vec![10.0; 9];
                hi[8] = 20.0;
                let mut lo = vec![-10.0; 9];
                lo[8] = 0.0;
                (lo, hi)
            }
            19 => uniform(0.0, 10.0),
            20 => uniform(0.0, 10.0),
            21 => (
                vec![0.0, 0.0, 0.0, 100.0, 6.3, 5.9, 4.5],
                vec![1000.0, 40.0, 40.0, 300.0, 6.7, 6.4, 6.25],
            ),
            22 => {
                let lo = [
                    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 100.0, 100.0, 100.01, 100.0, 100.0, 0.0,
                    0.0, 0.0, 0.01, 0.01, -4.7, -4.7, -4.7, -4.7, -4.7,
                ];
                let hi = [
                    20000.0, 1e6, 1e6, 1e6, 4e7, 4e7, 4e7, 299.99, 399.99, 300.0, 400.0, 600.0,
                    500.0, 500.0, 500.0, 300.0, 400.0, 6.25, 6.25, 6.25, 6.25, 6.25,
                ];
                (lo.to_vec(), hi.to_vec())
            }
            23 => (
                vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.01],
                vec![300.0, 300.0, 100.0, 200.0, 100.0, 300.0, 100.0, 200.0, 0.03],
            ),
            24 => (vec![0.0, 0.0], vec![3.0, 4.0]),
            _ => unreachable!(),
        }
    }

    /// The report's best known point x* (as published, to the digits given there).
    pub fn best_known_point(&self) -> Vec<f64> {
        match self.number {
            1 => vec![
                1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 3.0, 1.0,
            ],
            2 => vec![
                3.16246061572185,
                3.12833142812967,
                3.09479212988791,
                3.06145059523469,
                3.02792915885555,
                2.99382606701730,
                2.95866871765285,
                2.92184227312450,
                0.49482511456933,
                0.48835711005490,
                0.48231642711865,
                0.47664475092742,
                0.47129550835493,
                0.46623099264167,
                0.46142004984199,
                0.45683664767217,
                0.45245876903267,
                0.44826762241853,
                0.44424700958760,
                0.44038285956317,
            ],
            3 => vec![
                0.31624357647283069,
                0.316243577414338339,
                0.316243578012345927,
                0.316243575664017895,
                0.316243578205526066,
                0.31624357738855069,
                0.316243575472949512,
                0.316243577164883938,
                0.316243578155920302,
                0.316243576147374916,
            ],
            4 => vec![78.0, 33.0, 29.9952560256815985, 45.0, 36.7758129057882073],
            5 => vec![
                679.945148297028709,
                1026.06697600004691,
                0.118876369094410433,
                -0.39623348521517826,
            ],
            6 => vec![14.09500000000000064, 0.8429607892154795668],
            7 => vec![
                2.17199634142692,
                2.3636830416034,
                8.77392573913157,
                5.09598443745173,
                0.990654756560493,
                1.43057392853463,
                1.32164415364306,
                9.82872576524495,
                8.2800915887356,
                8.3759266477347,
            ],
            8 => vec![1.22797135260752599, 4.24537336612274885],
            9 => vec![
                2.33049935147405174,
                1.95137236847114592,
                -0.477541399510615805,
                4.36572624923625874,
                -0.624486959100388983,
                1.03813099410962173,
                1.5942266780671519,
            ],
            10 => vec![
                579.306685017979589,
                1359.97067807935605,
                5109.97065743133317,
                182.01769963061534,
                295.601173702746792,
                217.982300369384632,
                286.41652592786852,
                395.601173702746735,
            ],
            11 => vec![-0.707036070037170616, 0.500000004333606807],
            12 => vec![5.0, 5.0, 5.0],
            13 => vec![
                -1.71714224003,
                1.59572124049468,
                1.8272502406271,
                -0.763659881912867,
                -0.76365986736498,
            ],
            14 => vec![
                0.0406684113216282,
                0.147721240492452,
                0.783205732104114,
                0.00141433931889084,
                0.485293636780388,
                0.000693183051556082,
                0.0274052040687766,
                0.0179509660214818,
                0.0373268186859717,
                0.0968844604336845,
            ],
            15 => vec![
                3.51212812611795133,
                0.216987510429556135,
                3.55217854929179921,
            ],
            16 => vec![
                705.174537070090537,
                68.5999999999999943,
                102.899999999999991,
                282.324931593660324,
                37.5841164258054832,
            ],
            17 => vec![
                201.784467214523659,
                99.9999999999999005,
                383.071034852773266,
                420.0,
                -10.9076584514292652,
                0.0731482312084287128,
            ],
            18 => vec![
                -0.657776192427943163,
                -0.153418773482438542,
                0.323413871675240938,
                -0.946257611651304398,
                -0.657776194376798906,
                -0.753213434632691414,
                0.323413874123576972,
                -0.346462947962331735,
                0.59979466285217542,
            ],
            19 => vec![
                1.66991341326291344e-17,
                3.95378229282456509e-16,
                3.94599045143233784,
                1.06036597479721211e-16,
                3.2831773458454161,
                9.99999999999999822,
                1.12829414671605333e-17,
                1.2026194599794709e-17,
                2.50706276000769697e-15,
                2.24624122987970677e-15,
                0.370764847417013987,
                0.278456024942955571,
                0.523838487672241171,
                0.388620152510322781,
                0.298156764974678579,
            ],
            20 => vec![
                1.28582343498528086e-18,
                4.83460302526130664e-34,
                0.0,
                0.0,
                6.30459929660781851e-18,
                7.57192526201145068e-34,
                5.03350698372840437e-34,
                9.28268079616618064e-34,
                0.0,
                1.76723384525547359e-17,
                3.55686101822965701e-34,
                2.99413850083471346e-34,
                0.158143376337580827,
                2.29601774161699833e-19,
                1.06106938611042947e-18,
                1.31968344319506391e-18,
                0.530902525044209539,
                0.0,
                2.89148310257773535e-18,
                3.34892126180666159e-18,
                0.0,
                0.310999974151577319,
                5.41244666317833561e-05,
                4.84993165246959553e-16,
            ],
            21 => vec![
                193.724510070034967,
                5.56944131553368433e-27,
                17.3191887294084914,
                100.047897801386839,
                6.68445185362377892,
                5.99168428444264833,
                6.21451648886070451,
            ],
            22 => vec![
                236.430975504001054,
                135.82847151732463,
                204.818152544824585,
                6446.54654059436416,
                3007540.83940215595,
                4074188.65771341929,
                32918270.5028952882,
                130.075408394314167,
                170.817294970528621,
                299.924591605478554,
                399.258113423595205,
                330.817294971142758,
                184.51831230897065,
                248.64670239647424,
                127.658546694545862,
                269.182627528746707,
                160.000016724090955,
                5.29788288102680571,
                5.13529735903945728,
                5.59531526444068827,
                5.43444479314453499,
                5.07517453535834395,
            ],
            23 => vec![
                0.00510000000000259465,
                99.9947000000000514,
                9.01920162996045897e-18,
                99.9999000000000535,
                0.000100000000027086086,
                2.75700683389584542e-14,
                99.9999999999999574,
                200.0,
                0.0100000100000100008,
            ],
            24 => vec![2.32952019747762, 3.17849307411774],
            _ => unreachable!(),
        }
    }

    /// f(x).
    pub fn objective<D: Scalar>(&self, x: &[D]) -> D {
        objective(self.number, x)
    }

    /// The constraints as published: the inequalities g(x) (≤ 0 when satisfied), then the
    /// equalities h(x) (= 0).
    pub fn constraints<D: Scalar>(&self, x: &[D]) -> Vec<D> {
        let c = constraints(self.number, x);
        debug_assert_eq!(c.len(), self.num_inequalities() + self.num_equalities());
        c
    }

    /// The CEC 2006 violation of x: the largest of gᵢ(x), |hⱼ(x)| − δ and the distance outside
    /// the bounds, or 0 when x is feasible.
    pub fn violation(&self, x: &[f64]) -> f64 {
        let c = self.constraints(x);
        let p = self.num_inequalities();
        let (lo, hi) = self.bounds();
        let mut v: f64 = 0.0;
        for (i, ci) in c.iter().enumerate() {
            let over = if i < p {
                *ci
            } else {
                ci.abs() - EQUALITY_TOLERANCE
            };
            v = v.max(if over.is_nan() { f64::INFINITY } else { over });
        }
        for (i, xi) in x.iter().enumerate() {
            v = v.max(lo[i] - xi).max(xi - hi[i]);
        }
        v.max(0.0)
    }
}

/// A CEC 2006 problem as a [`BlockProblem`] (wrap it in [`crate::nlp::AutoDiff`] for a solver):
/// one dense objective term and one dense constraint block whose inequality rows are bounded
/// above by 0 and whose equality rows lie in [−δ, δ] (the report's feasibility rule). The
/// starting point is the centre of the box unless set.
#[derive(Debug, Clone)]
pub struct Cec2006Nlp {
    pub problem: Cec2006,
    pub start: Vec<f64>,
}

impl Cec2006Nlp {
    pub fn new(problem: Cec2006) -> Self {
        let (lo, hi) = problem.bounds();
        let start = lo.iter().zip(&hi).map(|(l, h)| 0.5 * (l + h)).collect();
        Self { problem, start }
    }
}

impl BlockProblem for Cec2006Nlp {
    fn num_variables(&self) -> usize {
        self.problem.dimension()
    }
    fn variable_bounds(&self, lower: &mut [f64], upper: &mut [f64]) {
        let (lo, hi) = self.problem.bounds();
        lower.copy_from_slice(&lo);
        upper.copy_from_slice(&hi);
    }
    fn initial_point(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.start);
    }
    fn objective_terms(&self) -> Vec<TermSpec> {
        vec![TermSpec {
            variables: (0..self.num_variables()).collect(),
        }]
    }
    fn objective_term<D: Scalar>(&self, _: usize, x: &[D]) -> D {
        self.problem.objective(x)
    }
    fn constraint_blocks(&self) -> Vec<BlockSpec> {
        let (p, q) = (
            self.problem.num_inequalities(),
            self.problem.num_equalities(),
        );
        let mut lower = vec![f64::NEG_INFINITY; p];
        lower.extend(std::iter::repeat_n(-EQUALITY_TOLERANCE, q));
        let mut upper = vec![0.0; p];
        upper.extend(std::iter::repeat_n(EQUALITY_TOLERANCE, q));
        vec![BlockSpec {
            variables: (0..self.num_variables()).collect(),
            lower,
            upper,
            linear: false,
            flat: Vec::new(),
            linear_in: Vec::new(),
        }]
    }
    fn constraint_block<D: Scalar>(&self, _: usize, x: &[D]) -> Vec<D> {
        self.problem.constraints(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_report() {
        assert_eq!(Cec2006::all().count(), 24);
        for p in Cec2006::all() {
            let (lo, hi) = p.bounds();
            assert_eq!(lo.len(), p.dimension(), "{}", p.name());
            assert_eq!(hi.len(), p.dimension(), "{}", p.name());
            assert!(lo.iter().zip(&hi).all(|(l, h)| l < h), "{}", p.name());
            assert_eq!(p.best_known_point().len(), p.dimension(), "{}", p.name());
            assert_eq!(
                p.constraints(&p.best_known_point()).len(),
                p.num_inequalities() + p.num_equalities()
            );
        }
        assert!(Cec2006::new(0).is_none() && Cec2006::new(25).is_none());
    }

    /// Each published x* gives the published f* (1e-6 relative, or 1e-9 absolute near 0) and is
    /// feasible under the report's rules (g ≤ 0, |h| ≤ 1e-4), within the rounding of the
    /// published digits; g20's best known point is the report's one infeasible exception.
    #[test]
    fn best_known_points_give_the_published_values() {
        for p in Cec2006::all() {
            let x = p.best_known_point();
            let f: f64 = p.objective(&x);
            let want = p.best_known_value();
            assert!(
                (f - want).abs() <= 1e-6 * want.abs().max(1e-3),
                "{}: f(x*) = {f}, published {want}",
                p.name()
            );
            let v = p.violation(&x);
            if p.best_known_is_feasible() {
                assert!(v <= 1e-7, "{}: violation {v} at x*", p.name());
            } else {
                assert!(
                    v > 1e-4,
                    "{}: the published point was expected infeasible",
                    p.name()
                );
            }
        }
    }

    #[test]
    fn well_known_optima() {
        let g01 = Cec2006::new(1).unwrap();
        assert_eq!(
            g01.objective::<f64>(&[1., 1., 1., 1., 1., 1., 1., 1., 1., 3., 3., 3., 1.]),
            -15.0
        );
        let g06 = Cec2006::new(6).unwrap();
        assert!((g06.objective::<f64>(&[14.095, 0.84296]) + 6961.81).abs() < 0.1);
        let g08 = Cec2006::new(8).unwrap();
        assert!((g08.objective::<f64>(&[1.2279713, 4.2453733]) + 0.0958250414).abs() < 1e-8);
        let g11 = Cec2006::new(11).unwrap();
        for s in [-1.0, 1.0] {
            let x = [s * 0.70711, 0.5];
            assert!((g11.objective::<f64>(&x) - 0.75).abs() < 1e-4);
            assert!(g11.violation(&x) == 0.0);
        }
    }
}
