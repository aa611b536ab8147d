//! The 24 problems of the CEC 2006 special session on constrained real-parameter optimization
//! (Liang, Runarsson, Mezura-Montes, Clerc, Suganthan, Coello Coello, Deb: "Problem Definitions
//! and Evaluation Criteria for the CEC 2006 Special Session on Constrained Real-Parameter
//! Optimization", 2006), the benchmark of basin-CMA in specs/004.md §1.4 (thesis App. B).
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

use super::autodiff::{BlockProblem, BlockSpec, Scalar, TermSpec};

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

fn k<D: Scalar>(v: f64) -> D {
    D::from(v)
}

fn sq<D: Scalar>(v: D) -> D {
    v.clone() * v
}

fn sum<D: Scalar>(it: impl IntoIterator<Item = D>) -> D {
    it.into_iter().fold(k(0.0), |a, b| a + b)
}

fn prod<D: Scalar>(it: impl IntoIterator<Item = D>) -> D {
    it.into_iter().fold(k(1.0), |a, b| a * b)
}

// g16's intermediate quantities (the report's y₁…y₁₇ and c₁…c₁₇, here 0-indexed).
fn g16_terms<D: Scalar>(x: &[D]) -> ([D; 17], [D; 17]) {
    let (x1, x2, x3, x4, x5) = (
        x[0].clone(),
        x[1].clone(),
        x[2].clone(),
        x[3].clone(),
        x[4].clone(),
    );
    let mut y: [D; 17] = std::array::from_fn(|_| k(0.0));
    let mut c: [D; 17] = std::array::from_fn(|_| k(0.0));
    y[0] = x2.clone() + x3.clone() + 41.6;
    c[0] = x4.clone() * 0.024 - 4.62;
    y[1] = c[0].recip() * 12.5 + 12.0;
    c[1] = sq(x1.clone()) * 0.0003535 + x1.clone() * 0.5311 + y[1].clone() * x1.clone() * 0.08705;
    c[2] = x1.clone() * 0.052 + 78.0 + y[1].clone() * x1.clone() * 0.002377;
    y[2] = c[1].clone() / c[2].clone();
    y[3] = y[2].clone() * 19.0;
    c[3] = (x1.clone() - y[2].clone()) * 0.04782
        + sq(x1.clone() - y[2].clone()) * 0.1956 / x2.clone()
        + y[3].clone() * 0.6376
        + y[2].clone() * 1.594;
    c[4] = x2.clone() * 100.0;
    c[5] = x1.clone() - y[2].clone() - y[3].clone();
    c[6] = -(c[3].clone() / c[4].clone()) + 0.950;
    y[4] = c[5].clone() * c[6].clone();
    y[5] = x1.clone() - y[4].clone() - y[3].clone() - y[2].clone();
    c[7] = (y[4].clone() + y[3].clone()) * 0.995;
    y[6] = c[7].clone() / y[0].clone();
    y[7] = c[7].clone() / 3798.0;
    c[8] = y[6].clone() - y[6].clone() * 0.0663 / y[7].clone() - 0.3153;
    y[8] = c[8].recip() * 96.82 + y[0].clone() * 0.321;
    y[9] = y[4].clone() * 1.29 + y[3].clone() * 1.258 + y[2].clone() * 2.29 + y[5].clone() * 1.71;
    y[10] = x1.clone() * 1.71 - y[3].clone() * 0.452 + y[2].clone() * 0.580;
    c[9] = k(12.3 / 752.3);
    c[10] = y[1].clone() * x1.clone() * (1.75 * 0.995);
    c[11] = y[9].clone() * 0.995 + 1998.0;
    y[11] = c[9].clone() * x1.clone() + c[10].clone() / c[11].clone();
    y[12] = c[11].clone() - y[1].clone() * 1.75;
    y[13] = x2.clone() * 64.4
        + x3.clone() * 58.4
        + (y[8].clone() + x5.clone()).recip() * 146312.0
        + 3623.0;
    c[12] = y[9].clone() * 0.995 + x2.clone() * 60.8 + x4.clone() * 48.0
        - y[13].clone() * 0.1121
        - 5095.0;
    y[14] = y[12].clone() / c[12].clone();
    y[15] = -y[14].clone() * 331000.0 + y[12].clone() * 40.0 - y[14].clone() * y[12].clone() * 61.0
        + 148000.0;
    c[13] = y[9].clone() * 2324.0 - y[1].clone() * 28740000.0;
    y[16] =
        -y[9].clone() * 1328.0 - y[10].clone() * 531.0 + c[13].clone() / c[11].clone() + 14130000.0;
    c[14] = y[12].clone() / y[14].clone() - y[12].clone() / 0.52;
    c[15] = -y[14].clone() * 0.72 + 1.104;
    c[16] = y[8].clone() + x5;
    (y, c)
}

fn g17_aux<D: Scalar>(x: &[D]) -> [D; 4] {
    let (x3, x4, x6) = (x[2].clone(), x[3].clone(), x[5].clone());
    let (a, b): (f64, f64) = (1.48477, 1.47588);
    let p = x3.clone() * x4.clone();
    let aux1 = -((p.clone() * (-x6.clone() + a).cos() - sq(x3.clone()) * (0.90798 * b.cos()))
        / 131.078)
        + 300.0;
    let aux2 =
        -((p.clone() * (x6.clone() + a).cos() - sq(x4.clone()) * (0.90798 * b.cos())) / 131.078);
    let aux5 =
        -((p.clone() * (x6.clone() + a).sin() - sq(x4.clone()) * (0.90798 * b.sin())) / 131.078);
    let aux4 = -((p * (-x6 + a).sin() - sq(x3) * (0.90798 * b.sin())) / 131.078) + 200.0;
    [aux1, aux2, aux5, aux4]
}

const G19_A: [[f64; 5]; 10] = [
    [-16.0, 2.0, 0.0, 1.0, 0.0],
    [0.0, -2.0, 0.0, 0.4, 2.0],
    [-3.5, 0.0, 2.0, 0.0, 0.0],
    [0.0, -2.0, 0.0, -4.0, -1.0],
    [0.0, -9.0, -2.0, 1.0, -2.8],
    [2.0, 0.0, -4.0, 0.0, 0.0],
    [-1.0, -1.0, -1.0, -1.0, -1.0],
    [-1.0, -2.0, -3.0, -2.0, -1.0],
    [1.0, 2.0, 3.0, 4.0, 5.0],
    [1.0, 1.0, 1.0, 1.0, 1.0],
];
const G19_B: [f64; 10] = [-40.0, -2.0, -0.25, -4.0, -4.0, -1.0, -40.0, -60.0, 5.0, 1.0];
const G19_C: [[f64; 5]; 5] = [
    [30.0, -20.0, -10.0, 32.0, -10.0],
    [-20.0, 39.0, -6.0, -31.0, 32.0],
    [-10.0, -6.0, 10.0, -6.0, -10.0],
    [32.0, -31.0, -6.0, 39.0, -20.0],
    [-10.0, 32.0, -10.0, -20.0, 30.0],
];
const G19_D: [f64; 5] = [4.0, 8.0, 10.0, 6.0, 2.0];
const G19_E: [f64; 5] = [-15.0, -27.0, -36.0, -18.0, -12.0];

const G20_A: [f64; 12] = [
    0.0693, 0.0577, 0.05, 0.2, 0.26, 0.55, 0.06, 0.1, 0.12, 0.18, 0.1, 0.09,
];
const G20_B: [f64; 12] = [
    44.094, 58.12, 58.12, 137.4, 120.9, 170.9, 62.501, 84.94, 133.425, 82.507, 46.07, 60.097,
];
const G20_C: [f64; 12] = [
    123.7, 31.7, 45.7, 14.7, 84.7, 27.7, 49.7, 7.1, 2.1, 17.7, 0.85, 0.64,
];
const G20_D: [f64; 12] = [
    31.244, 36.12, 34.784, 92.7, 82.7, 91.6, 56.708, 82.7, 80.8, 64.517, 49.4, 49.1,
];
const G20_E: [f64; 6] = [0.1, 0.3, 0.4, 0.3, 0.6, 0.3];

const G14_C: [f64; 10] = [
    -6.089, -17.164, -34.054, -5.914, -24.721, -14.986, -24.1, -10.708, -26.662, -22.179,
];

fn objective<D: Scalar>(number: usize, x: &[D]) -> D {
    let x = |i: usize| x[i].clone();
    match number {
        1 => sum((0..4).map(|i| x(i) * 5.0 - sq(x(i)) * 5.0)) - sum((4..13).map(x)),
        2 => {
            let n = 20;
            let s4 = sum((0..n).map(|i| x(i).cos().powi(4)));
            let p2 = prod((0..n).map(|i| sq(x(i).cos())));
            let den = sum((0..n).map(|i| sq(x(i)) * (i as f64 + 1.0))).sqrt();
            let v = (s4 - p2 * 2.0) / den;
            if v.re() < 0.0 { v } else { -v }
        }
        3 => -prod((0..10).map(x)) * 10f64.sqrt().powi(10),
        4 => sq(x(2)) * 5.3578547 + x(0) * x(4) * 0.8356891 + x(0) * 37.293239 - 40792.141,
        5 => x(0) * 3.0 + x(0).powi(3) * 0.000001 + x(1) * 2.0 + x(1).powi(3) * (0.000002 / 3.0),
        6 => (x(0) - 10.0).powi(3) + (x(1) - 20.0).powi(3),
        7 => {
            sq(x(0)) + sq(x(1)) + x(0) * x(1) - x(0) * 14.0 - x(1) * 16.0
                + sq(x(2) - 10.0)
                + sq(x(3) - 5.0) * 4.0
                + sq(x(4) - 3.0)
                + sq(x(5) - 1.0) * 2.0
                + sq(x(6)) * 5.0
                + sq(x(7) - 11.0) * 7.0
                + sq(x(8) - 10.0) * 2.0
                + sq(x(9) - 7.0)
                + 45.0
        }
        8 => {
            let tau = 2.0 * std::f64::consts::PI;
            -((x(0) * tau).sin().powi(3) * (x(1) * tau).sin() / (x(0).powi(3) * (x(0) + x(1))))
        }
        9 => {
            sq(x(0) - 10.0)
                + sq(x(1) - 12.0) * 5.0
                + x(2).powi(4)
                + sq(x(3) - 11.0) * 3.0
                + x(4).powi(6) * 10.0
                + sq(x(5)) * 7.0
                + x(6).powi(4)
                - x(5) * x(6) * 4.0
                - x(5) * 10.0
                - x(6) * 8.0
        }
        10 => x(0) + x(1) + x(2),
        11 => sq(x(0)) + sq(x(1) - 1.0),
        12 => -(-(sq(x(0) - 5.0) + sq(x(1) - 5.0) + sq(x(2) - 5.0)) + 100.0) / 100.0,
        13 => (x(0) * x(1) * x(2) * x(3) * x(4)).exp(),
        14 => {
            let total = sum((0..10).map(x));
            sum((0..10).map(|i| x(i) * ((x(i) / total.clone()).ln() + G14_C[i])))
        }
        15 => -sq(x(0)) - sq(x(1)) * 2.0 - sq(x(2)) - x(0) * x(1) - x(0) * x(2) + 1000.0,
        16 => {
            let (y, c) = g16_terms(&(0..5).map(x).collect::<Vec<_>>());
            let v = y[16].clone() * 0.0000005843
                - y[13].clone() * 0.000117
                - 0.1365
                - y[12].clone() * 0.00002358
                - y[15].clone() * 0.000001502
                - y[11].clone() * 0.0321
                - y[4].clone() * 0.004324
                - c[14].clone() / c[15].clone() * 0.0001
                - y[1].clone() / c[11].clone() * 37.48;
            -v
        }
        17 => {
            let a = g17_aux(&(0..6).map(x).collect::<Vec<_>>());
            let x1 = x(0).re();
            let x2 = x(1).re();
            let f1 = if x1 < 300.0 {
                a[0].clone() * 30.0
            } else {
                a[0].clone() * 31.0
            };
            let f2 = if x2 < 100.0 {
                a[1].clone() * 28.0
            } else if x2 < 200.0 {
                a[1].clone() * 29.0
            } else {
                a[1].clone() * 30.0
            };
            f1 + f2
        }
        18 => {
            -((x(0) * x(3) - x(1) * x(2) + x(2) * x(8) - x(4) * x(8) + x(4) * x(7) - x(5) * x(6))
                * 0.5)
        }
        19 => {
            let s1 = sum((0..10).map(|i| x(i) * G19_B[i]));
            let s2 = sum((0..5)
                .flat_map(|i| (0..5).map(move |j| (i, j)))
                .map(|(i, j)| x(10 + i) * x(10 + j) * G19_C[i][j]));
            let s3 = sum((0..5).map(|i| x(10 + i).powi(3) * G19_D[i]));
            -(s1 - s2 - s3 * 2.0)
        }
        20 => sum((0..24).map(|j| x(j) * G20_A[j % 12])),
        21 | 22 => x(0),
        23 => -x(4) * 9.0 - x(7) * 15.0 + x(0) * 6.0 + x(1) * 16.0 + (x(5) + x(6)) * 10.0,
        24 => -x(0) - x(1),
        _ => unreachable!(),
    }
}

fn constraints<D: Scalar>(number: usize, xs: &[D]) -> Vec<D> {
    let x = |i: usize| xs[i].clone();
    match number {
        1 => vec![
            x(0) * 2.0 + x(1) * 2.0 + x(9) + x(10) - 10.0,
            x(0) * 2.0 + x(2) * 2.0 + x(9) + x(11) - 10.0,
            x(1) * 2.0 + x(2) * 2.0 + x(10) + x(11) - 10.0,
            -x(0) * 8.0 + x(9),
            -x(1) * 8.0 + x(10),
            -x(2) * 8.0 + x(11),
            -x(3) * 2.0 - x(4) + x(9),
            -x(5) * 2.0 - x(6) + x(10),
            -x(7) * 2.0 - x(8) + x(11),
        ],
        2 => vec![
            -prod((0..20).map(x)) + 0.75,
            sum((0..20).map(x)) - 7.5 * 20.0,
        ],
        3 => vec![sum((0..10).map(|i| sq(x(i)))) - 1.0],
        4 => {
            let u = x(1) * x(4) * 0.0056858 + x(0) * x(3) * 0.0006262 - x(2) * x(4) * 0.0022053
                + 85.334407;
            let v =
                x(1) * x(4) * 0.0071317 + x(0) * x(1) * 0.0029955 + sq(x(2)) * 0.0021813 + 80.51249;
            let w = x(2) * x(4) * 0.0047026
                + x(0) * x(2) * 0.0012547
                + x(2) * x(3) * 0.0019085
                + 9.300961;
            vec![
                u.clone() - 92.0,
                -u,
                v.clone() - 110.0,
                -v + 90.0,
                w.clone() - 25.0,
                -w + 20.0,
            ]
        }
        5 => vec![
            -x(3) + x(2) - 0.55,
            -x(2) + x(3) - 0.55,
            (-x(2) - 0.25).sin() * 1000.0 + (-x(3) - 0.25).sin() * 1000.0 + 894.8 - x(0),
            (x(2) - 0.25).sin() * 1000.0 + (x(2) - x(3) - 0.25).sin() * 1000.0 + 894.8 - x(1),
            (x(3) - 0.25).sin() * 1000.0 + (x(3) - x(2) - 0.25).sin() * 1000.0 + 1294.8,
        ],
        6 => vec![
            -sq(x(0) - 5.0) - sq(x(1) - 5.0) + 100.0,
            sq(x(0) - 6.0) + sq(x(1) - 5.0) - 82.81,
        ],
        7 => vec![
            x(0) * 4.0 + x(1) * 5.0 - x(6) * 3.0 + x(7) * 9.0 - 105.0,
            x(0) * 10.0 - x(1) * 8.0 - x(6) * 17.0 + x(7) * 2.0,
            -x(0) * 8.0 + x(1) * 2.0 + x(8) * 5.0 - x(9) * 2.0 - 12.0,
            sq(x(0) - 2.0) * 3.0 + sq(x(1) - 3.0) * 4.0 + sq(x(2)) * 2.0 - x(3) * 7.0 - 120.0,
            sq(x(0)) * 5.0 + x(1) * 8.0 + sq(x(2) - 6.0) - x(3) * 2.0 - 40.0,
            sq(x(0)) + sq(x(1) - 2.0) * 2.0 - x(0) * x(1) * 2.0 + x(4) * 14.0 - x(5) * 6.0,
            sq(x(0) - 8.0) * 0.5 + sq(x(1) - 4.0) * 2.0 + sq(x(4)) * 3.0 - x(5) - 30.0,
            -x(0) * 3.0 + x(1) * 6.0 + sq(x(8) - 8.0) * 12.0 - x(9) * 7.0,
        ],
        8 => vec![sq(x(0)) - x(1) + 1.0, -x(0) + sq(x(1) - 4.0) + 1.0],
        9 => vec![
            sq(x(0)) * 2.0 + x(1).powi(4) * 3.0 + x(2) + sq(x(3)) * 4.0 + x(4) * 5.0 - 127.0,
            x(0) * 7.0 + x(1) * 3.0 + sq(x(2)) * 10.0 + x(3) - x(4) - 282.0,
            x(0) * 23.0 + sq(x(1)) + sq(x(5)) * 6.0 - x(6) * 8.0 - 196.0,
            sq(x(0)) * 4.0 + sq(x(1)) - x(0) * x(1) * 3.0 + sq(x(2)) * 2.0 + x(5) * 5.0
                - x(6) * 11.0,
        ],
        10 => vec![
            (x(3) + x(5)) * 0.0025 - 1.0,
            (x(4) + x(6) - x(3)) * 0.0025 - 1.0,
            (x(7) - x(4)) * 0.01 - 1.0,
            -x(0) * x(5) + x(3) * 833.33252 + x(0) * 100.0 - 83333.333,
            -x(1) * x(6) + x(4) * 1250.0 + x(1) * x(3) - x(3) * 1250.0,
            -x(2) * x(7) + x(2) * x(4) - x(4) * 2500.0 + 1250000.0,
        ],
        11 => vec![x(1) - sq(x(0))],
        12 => {
            // The feasible region is the union of 9³ balls of radius 0.25: g(x) is the smallest
            // of the 729 ball constraints (non-smooth where two are equal).
            let mut best = f64::INFINITY;
            let mut at = (1.0, 1.0, 1.0);
            for i in 1..=9 {
                for j in 1..=9 {
                    for l in 1..=9 {
                        let (p, q, r) = (i as f64, j as f64, l as f64);
                        let v = (x(0).re() - p).powi(2)
                            + (x(1).re() - q).powi(2)
                            + (x(2).re() - r).powi(2);
                        if v < best {
                            best = v;
                            at = (p, q, r);
                        }
                    }
                }
            }
            vec![sq(x(0) - at.0) + sq(x(1) - at.1) + sq(x(2) - at.2) - 0.0625]
        }
        13 => vec![
            sum((0..5).map(|i| sq(x(i)))) - 10.0,
            x(1) * x(2) - x(3) * x(4) * 5.0,
            x(0).powi(3) + x(1).powi(3) + 1.0,
        ],
        14 => vec![
            x(0) + x(1) * 2.0 + x(2) * 2.0 + x(5) + x(9) - 2.0,
            x(3) + x(4) * 2.0 + x(5) + x(6) - 1.0,
            x(2) + x(6) + x(7) + x(8) * 2.0 + x(9) - 1.0,
        ],
        15 => vec![
            sq(x(0)) + sq(x(1)) + sq(x(2)) - 25.0,
            x(0) * 8.0 + x(1) * 14.0 + x(2) * 7.0 - 56.0,
        ],
        16 => {
            let (y, c) = g16_terms(&(0..5).map(x).collect::<Vec<_>>());
            // Lower and upper limits of y₄ … y₁₇ (0-indexed y[2] … y[16]).
            const LIMITS: [(f64, f64); 15] = [
                (11.275, 35.03),
                (214.228, 665.585),
                (7.458, 584.463),
                (0.961, 265.916),
                (1.612, 7.046),
                (0.146, 0.222),
                (107.99, 273.366),
                (922.693, 1286.105),
                (926.832, 1444.046),
                (18.766, 537.141),
                (1072.163, 3247.039),
                (8961.448, 26844.086),
                (0.063, 0.386),
                (71084.33, 140000.0),
                (2802713.0, 12146108.0),
            ];
            let mut g = vec![
                -y[3].clone() + y[4].clone() * (0.28 / 0.72),
                -x(1) * 1.5 + x(2),
                y[1].clone() / c[11].clone() * 3496.0 - 21.0,
                -(c[16].clone().recip() * 62212.0) + 110.6 + y[0].clone(),
                -y[0].clone() + 213.1,
                y[0].clone() - 405.23,
                -y[1].clone() + 17.505,
                y[1].clone() - 1053.6667,
            ];
            for (i, (lo, hi)) in LIMITS.iter().enumerate() {
                g.push(-y[i + 2].clone() + *lo);
                g.push(y[i + 2].clone() - *hi);
            }
            g
        }
        17 => {
            let a = g17_aux(&(0..6).map(x).collect::<Vec<_>>());
            vec![
                a[0].clone() - x(0),
                a[1].clone() - x(1),
                a[2].clone() - x(4),
                a[3].clone(),
            ]
        }
        18 => vec![
            sq(x(2)) + sq(x(3)) - 1.0,
            sq(x(8)) - 1.0,
            sq(x(4)) + sq(x(5)) - 1.0,
            sq(x(0)) + sq(x(1) - x(8)) - 1.0,
            sq(x(0) - x(4)) + sq(x(1) - x(5)) - 1.0,
            sq(x(0) - x(6)) + sq(x(1) - x(7)) - 1.0,
            sq(x(2) - x(4)) + sq(x(3) - x(5)) - 1.0,
            sq(x(2) - x(6)) + sq(x(3) - x(7)) - 1.0,
            sq(x(6)) + sq(x(7) - x(8)) - 1.0,
            -x(0) * x(3) + x(1) * x(2),
            -x(2) * x(8),
            x(4) * x(8),
            -x(4) * x(7) + x(5) * x(6),
        ],
        19 => (0..5)
            .map(|j| {
                let s1 = sum((0..5).map(|i| x(10 + i) * G19_C[i][j]));
                let s2 = sum((0..10).map(|i| x(i) * G19_A[i][j]));
                -(s1 * 2.0 + sq(x(10 + j)) * (3.0 * G19_D[j]) + G19_E[j] - s2)
            })
            .collect(),
        20 => {
            let b = |j: usize| G20_B[j % 12];
            let total = sum((0..24).map(x));
            let mut out: Vec<D> = Vec::with_capacity(20);
            for j in 0..3 {
                out.push((x(j) + x(j + 12)) / (total.clone() + G20_E[j]));
            }
            for j in 3..6 {
                out.push((x(j + 3) + x(j + 15)) / (total.clone() + G20_E[j]));
            }
            let s1 = sum((0..12).map(|j| x(j) / b(j)));
            let s2 = sum((12..24).map(|j| x(j) / b(j)));
            for i in 0..12 {
                out.push(
                    x(i + 12) / (s2.clone() * b(i + 12))
                        - x(i) * G20_C[i] / (s1.clone() * (40.0 * b(i))),
                );
            }
            out.push(total - 1.0);
            let d1 = sum((0..12).map(|j| x(j) / G20_D[j]));
            out.push(d1 + s2 * (0.7302 * 530.0 * (14.7 / 40.0)) - 1.671);
            out
        }
        21 => vec![
            -x(0) + x(1).powf(0.6) * 35.0 + x(2).powf(0.6) * 35.0,
            -x(2) * 300.0 + x(4) * 7500.0 - x(5) * 7500.0 - x(3) * x(4) * 25.0
                + x(3) * x(5) * 25.0
                + x(2) * x(3),
            x(1) * 100.0 + x(3) * 155.365 + x(6) * 2500.0
                - x(1) * x(3)
                - x(3) * x(6) * 25.0
                - 15536.5,
            -x(4) + (-x(3) + 900.0).ln(),
            -x(5) + (x(3) + 300.0).ln(),
            -x(6) + (-x(3) * 2.0 + 700.0).ln(),
        ],
        22 => vec![
            -x(0) + x(1).powf(0.6) + x(2).powf(0.6) + x(3).powf(0.6),
            x(4) - x(7) * 100000.0 + 10000000.0,
            x(5) + x(7) * 100000.0 - x(8) * 100000.0,
            x(6) + x(8) * 100000.0 - 50000000.0,
            x(4) + x(9) * 100000.0 - 33000000.0,
            x(5) + x(10) * 100000.0 - 44000000.0,
            x(6) + x(11) * 100000.0 - 66000000.0,
            x(4) - x(1) * x(12) * 120.0,
            x(5) - x(2) * x(13) * 80.0,
            x(6) - x(3) * x(14) * 40.0,
            x(7) - x(10) + x(15),
            x(8) - x(11) + x(16),
            -x(17) + (x(9) - 100.0).ln(),
            -x(18) + (-x(7) + 300.0).ln(),
            -x(19) + x(15).ln(),
            -x(20) + (-x(8) + 400.0).ln(),
            -x(21) + x(16).ln(),
            -x(7) - x(9) + x(12) * x(17) - x(12) * x(18) + 400.0,
            x(7) - x(8) - x(10) + x(13) * x(19) - x(13) * x(20) + 400.0,
            x(8) - x(11) - x(14) * 4.60517 + x(14) * x(21) + 100.0,
        ],
        23 => vec![
            x(8) * x(2) + x(5) * 0.02 - x(4) * 0.025,
            x(8) * x(3) + x(6) * 0.02 - x(7) * 0.015,
            x(0) + x(1) - x(2) - x(3),
            x(0) * 0.03 + x(1) * 0.01 - x(8) * (x(2) + x(3)),
            x(2) + x(5) - x(4),
            x(3) + x(6) - x(7),
        ],
        24 => vec![
            -x(0).powi(4) * 2.0 + x(0).powi(3) * 8.0 - sq(x(0)) * 8.0 + x(1) - 2.0,
            -x(0).powi(4) * 4.0 + x(0).powi(3) * 32.0 - sq(x(0)) * 88.0 + x(0) * 96.0 + x(1) - 36.0,
        ],
        _ => unreachable!(),
    }
}

/// A CEC 2006 problem as a [`BlockProblem`] (wrap it in [`super::AutoDiff`] for a solver):
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
