//! Parameter spaces (McIntosh 2011, thesis §3.4, §4.2.3): an n-dimensional space of
//! animation specifications, each dimension a list of values and each value a list of
//! *specifiers* (speed, turn rate, contact timing, character, a ceiling, objective weights, a
//! gait-family tag). A point of the space takes one value per dimension; its specification is
//! the union of those values' specifiers (Eq. 3.15), solved as one gait NLP. The space is
//! sampled full-factorially (Eq. 3.12) except for the combinations the file excludes.
//!
//! Beyond the thesis, a space may list *connections*: clips joining two of its points (a start
//! from standing into a walk, a stop), solved as open clips with fixed end frames
//! ([`crate::spacetime::gait::Connection`], Wampler 2012, thesis App. C).
//!
//! A space is a RON file in `spaces/`:
//!
//! ```ron
//! (
//!     name: "human3d_locomotion",
//!     character: "../characters/human3d_walker.ron",
//!     dimensions: [
//!         (name: "gait", values: [
//!             (label: "walk1.0", specifiers: [Family("walk"), Speed(1.0),
//!                 Timing(period: 1.05, contacts: [("l_foot", 0.0, 0.6), ("r_foot", 0.5, 0.6)])]),
//!         ]),
//!         (name: "turn", values: [
//!             (label: "0", specifiers: [TurnRate(0.0)]),
//!             (label: "30", specifiers: [TurnRate(30.0)]),
//!         ]),
//!     ],
//!     exclude: [["walk1.0", "30"]],
//! )
//! ```
//!
//! Paths are relative to the space file. [`generate`] solves a space as a background job.

pub mod generate;
pub mod parts;
pub mod plan;
mod results;

use crate::spacetime::gait::{Connection, FootTiming, GaitWeights};
use crate::spacetime::job::{ConnectRequest, GaitRequest};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One specifier (McIntosh 2011, thesis §4.2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Specifier {
    /// The character file (a generic-part-named creature), relative to the space file.
    Character(PathBuf),
    /// Forward speed of the root along its path (m/s).
    Speed(f64),
    /// Turn rate (degrees per second, positive to the left).
    TurnRate(f64),
    /// AnimationTiming and ContactTiming: the cycle's period (s) and each foot's contact
    /// window `(foot, start, duration)` as fractions of the period.
    Timing {
        period: f64,
        contacts: Vec<(String, f64, f64)>,
    },
    /// The head stays under this height (m) in every frame: a crouch (Eq. 3.14).
    Ceiling(f64),
    /// The objective's weights C₁..C₄ (effort, joint velocity, head velocity, head
    /// orientation) instead of the thesis's 25, 0.1, 25, 100.
    Weights(f64, f64, f64, f64),
    /// A preferred posture: this weight on Σ (q − q_rest)² per frame over the joint
    /// coordinates of the limbs named (by parts of their names; none: every limb), or of the
    /// coordinates named by entries with a dot (`thigh.ry`) (the "preferred
    /// angles" of McIntosh 2011, thesis §3.2.3).
    Posture(f64, #[serde(default)] Vec<String>),
    /// A gait-family tag carried by the clip (`walk`, `run`, `stand`, …).
    Family(String),
    /// Feet in contact are flat (for feet with soles).
    FlatFeet,
    /// Feet in the air keep their soles' corners above the ground (for box feet).
    SoleClearance,
    /// Feet in the air keep their soles' corners above the ground, at least this high (m) half
    /// way through their time in the air (a half sine from lift-off to touch-down).
    SwingClearance(f64),
}

/// One value of a dimension: a label and its specifiers (none: the value adds nothing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Value {
    pub label: String,
    #[serde(default)]
    pub specifiers: Vec<Specifier>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dimension {
    pub name: String,
    pub values: Vec<Value>,
}

/// A connection between two points of the space (their labels joined as in
/// [`Point::name`]), from frame `from_frame` of the first into frame `to_frame` of the second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpaceConnection {
    /// The clip's name and file stem.
    pub name: String,
    pub from: String,
    pub to: String,
    /// Frame of `from` the connection leaves at; `None`: where its first foot lands.
    #[serde(default)]
    pub from_frame: Option<usize>,
    /// Frame of `to` it arrives at; `None`: where its first foot lands.
    #[serde(default)]
    pub to_frame: Option<usize>,
    /// Frames and seconds of the connecting clip.
    pub frames: usize,
    pub duration: f64,
    #[serde(default)]
    pub family: Option<String>,
    /// Where `to` stands, seen from where `from` stands: metres forward, metres to the left and
    /// degrees turned left (a step of the stepping repertoire: a side step, a turn in place).
    /// `None`: along the arc of the two gaits' speed and turn rate, a planted foot kept in place.
    #[serde(default)]
    pub offset: Option<(f64, f64, f64)>,
    /// Feet lifted over part of the connection (`(foot, lift, land)`, fractions of its duration),
    /// whatever the two gaits' contacts say there.
    #[serde(default)]
    pub swings: Vec<crate::spacetime::gait::Swing>,
    /// Feet that stay down but turn on their contact point over part of the connection
    /// (`(foot, from, to)`, fractions of its duration): pivots.
    #[serde(default)]
    pub pivots: Vec<crate::spacetime::gait::Pivot>,
}

/// Settings of every solve of the space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpaceSolver {
    /// IPOPT iteration limit of one point.
    pub max_iterations: usize,
}

impl Default for SpaceSolver {
    fn default() -> Self {
        Self {
            max_iterations: 3000,
        }
    }
}

/// A parameter space file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParameterSpace {
    pub name: String,
    /// The character of every point without a `Character` specifier.
    #[serde(default)]
    pub character: Option<PathBuf>,
    pub dimensions: Vec<Dimension>,
    /// Specifiers every point has (a space-wide objective, say), besides its values'.
    #[serde(default)]
    pub common: Vec<Specifier>,
    /// Combinations not to solve: each a list of value labels; a point with all of them is
    /// left out (McIntosh Fig. 3.8: "speed ≥ 2 m/s with Crouch = On is excluded").
    #[serde(default)]
    pub exclude: Vec<Vec<String>>,
    #[serde(default)]
    pub connections: Vec<SpaceConnection>,
    #[serde(default)]
    pub solver: SpaceSolver,
}

/// One point of a space: a value index per dimension and the specification they make.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// Label of each dimension's value.
    pub labels: Vec<String>,
    pub character: PathBuf,
    pub speed: f64,
    /// rad/s.
    pub turn_rate: f64,
    pub period: Option<f64>,
    pub contacts: Option<Vec<FootTiming>>,
    pub ceiling: Option<f64>,
    pub weights: Option<GaitWeights>,
    pub posture_limbs: Vec<String>,
    pub flat_feet: bool,
    pub sole_clearance: bool,
    pub swing_clearance: f64,
    pub family: Option<String>,
}

impl Point {
    /// `dimension=label` pairs joined by `,`: the point's name in files and messages.
    pub fn name(&self, space: &ParameterSpace) -> String {
        space
            .dimensions
            .iter()
            .zip(&self.labels)
            .map(|(d, l)| format!("{}={l}", d.name))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The file stem of the point's clips: its name with only characters safe in file names.
    pub fn stem(&self, space: &ParameterSpace) -> String {
        file_stem(&self.name(space))
    }

    /// Whether two points share the timing that their warm starts need in common.
    pub fn same_timing(&self, other: &Point) -> bool {
        self.period == other.period && self.contacts == other.contacts
    }

    /// The gait request of the point (a transformed cycle), writing to `out`.
    pub fn request(&self, solver: &SpaceSolver, out: PathBuf) -> GaitRequest {
        GaitRequest {
            period: self.period,
            contacts: self.contacts.clone(),
            max_iterations: solver.max_iterations,
            out: Some(out),
            turn_rate: Some(self.turn_rate),
            ceiling: self.ceiling,
            weights: self.weights,
            posture_limbs: self.posture_limbs.clone(),
            flat_feet: self.flat_feet,
            sole_clearance: self.sole_clearance,
            swing_clearance: self.swing_clearance,
            ..GaitRequest::new(self.character.clone(), self.speed)
        }
    }
}

/// A name with only `[A-Za-z0-9._=-]` (others become `_`).
pub fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._=-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What is wrong with a space file.
#[derive(Debug, thiserror::Error)]
pub enum SpaceError {
    #[error("{path}:{line}: {message}")]
    Syntax {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{path}: {problem}")]
    Invalid { path: String, problem: SpaceProblem },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// What is wrong with a space's contents ([`ParameterSpace::check`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpaceProblem {
    #[error("expected at least one dimension")]
    NoDimensions,
    #[error("common: {0}")]
    Common(SpecifierError),
    #[error("dimension `{dimension}` has no values")]
    NoValues { dimension: String },
    #[error("value label `{label}` is used twice; labels name values across dimensions")]
    DuplicateLabel { label: String },
    #[error("dimension `{dimension}`, value `{value}`: {error}")]
    Value {
        dimension: String,
        value: String,
        error: SpecifierError,
    },
    #[error("exclude names `{label}`, which no dimension has")]
    UnknownExcluded { label: String },
    #[error("solver.max_iterations must be at least 1")]
    NoIterations,
    #[error(
        "connection `{connection}` names point `{end}`, which the space does not solve (points: {})",
        .points.join("; ")
    )]
    UnknownEnd {
        connection: String,
        end: String,
        points: Vec<String>,
    },
    #[error("connection `{connection}`: expected at least 5 frames and a positive duration")]
    Connection { connection: String },
    #[error("point ({point}) has two {setting} specifiers")]
    TwoSpecifiers {
        point: String,
        setting: &'static str,
    },
    #[error("point ({point}) has no character: give `character` or a Character specifier")]
    NoCharacter { point: String },
}

/// A specifier's value out of its range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecifierError {
    #[error("{what} must be in [{lo}, {hi}], found {found}")]
    OutOfRange {
        what: String,
        lo: f64,
        hi: f64,
        found: f64,
    },
    #[error("Timing needs a contact window per foot")]
    NoContacts,
}

impl ParameterSpace {
    /// Reads and checks a space file (see [`Self::check`]); paths in it become relative to the
    /// working directory.
    pub fn load(path: &Path) -> Result<ParameterSpace, SpaceError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| SpaceError::Io {
            path: shown.clone(),
            source,
        })?;
        let mut space: ParameterSpace =
            crate::files::from_ron(&text).map_err(|e| SpaceError::Syntax {
                path: shown.clone(),
                line: e.span.start.line,
                message: e.code.to_string(),
            })?;
        let base = path.parent().unwrap_or(Path::new(""));
        let resolve = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = normalized(&base.join(&*p));
            }
        };
        if let Some(c) = &mut space.character {
            resolve(c);
        }
        for d in &mut space.dimensions {
            for v in &mut d.values {
                for s in &mut v.specifiers {
                    if let Specifier::Character(c) = s {
                        resolve(c);
                    }
                }
            }
        }
        space.check().map_err(|problem| SpaceError::Invalid {
            path: shown,
            problem,
        })?;
        Ok(space)
    }

    /// Dimensions with values, unique labels, finite numbers in range, no point with two
    /// values of one setting, every point with a character, connections between points that
    /// exist.
    pub fn check(&self) -> Result<(), SpaceProblem> {
        if self.dimensions.is_empty() {
            return Err(SpaceProblem::NoDimensions);
        }
        for s in &self.common {
            check_specifier(s).map_err(SpaceProblem::Common)?;
        }
        let mut labels = std::collections::HashSet::new();
        for d in &self.dimensions {
            if d.values.is_empty() {
                return Err(SpaceProblem::NoValues {
                    dimension: d.name.clone(),
                });
            }
            for v in &d.values {
                if !labels.insert(v.label.clone()) {
                    return Err(SpaceProblem::DuplicateLabel {
                        label: v.label.clone(),
                    });
                }
                for s in &v.specifiers {
                    check_specifier(s).map_err(|error| SpaceProblem::Value {
                        dimension: d.name.clone(),
                        value: v.label.clone(),
                        error,
                    })?;
                }
            }
        }
        for combo in &self.exclude {
            for l in combo {
                if !labels.contains(l) {
                    return Err(SpaceProblem::UnknownExcluded { label: l.clone() });
                }
            }
        }
        if self.solver.max_iterations == 0 {
            return Err(SpaceProblem::NoIterations);
        }
        let points = self.points()?;
        let names: Vec<String> = points.iter().map(|p| p.name(self)).collect();
        for c in &self.connections {
            for end in [&c.from, &c.to] {
                if !names.contains(end) {
                    return Err(SpaceProblem::UnknownEnd {
                        connection: c.name.clone(),
                        end: end.clone(),
                        points: names,
                    });
                }
            }
            if c.frames < 5 || !(c.duration > 0.0 && c.duration.is_finite()) {
                return Err(SpaceProblem::Connection {
                    connection: c.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Every point of the full-factorial product, minus the excluded ones, in order (the last
    /// dimension varying fastest).
    pub fn points(&self) -> Result<Vec<Point>, SpaceProblem> {
        let mut out = Vec::new();
        let sizes: Vec<usize> = self.dimensions.iter().map(|d| d.values.len()).collect();
        let total: usize = sizes.iter().product();
        for mut k in 0..total {
            let mut picks = vec![0; sizes.len()];
            for (d, &size) in sizes.iter().enumerate().rev() {
                picks[d] = k % size;
                k /= size;
            }
            let values: Vec<&Value> = picks
                .iter()
                .enumerate()
                .map(|(d, &i)| &self.dimensions[d].values[i])
                .collect();
            let labels: Vec<String> = values.iter().map(|v| v.label.clone()).collect();
            if self
                .exclude
                .iter()
                .any(|combo| combo.iter().all(|l| labels.contains(l)))
            {
                continue;
            }
            out.push(self.point(labels, &values)?);
        }
        Ok(out)
    }

    /// The union of the values' specifiers (Eq. 3.15); a setting given twice is an error.
    fn point(&self, labels: Vec<String>, values: &[&Value]) -> Result<Point, SpaceProblem> {
        let mut p = Point {
            character: PathBuf::new(),
            labels,
            speed: 0.0,
            turn_rate: 0.0,
            period: None,
            contacts: None,
            ceiling: None,
            weights: None,
            posture_limbs: Vec::new(),
            flat_feet: false,
            sole_clearance: false,
            swing_clearance: 0.0,
            family: None,
        };
        let (mut character, mut speed, mut turn) = (None, None, None);
        let (mut weights, mut posture) = (None, None);
        let name = p.labels.join(", ");
        let twice = |setting: &'static str| SpaceProblem::TwoSpecifiers {
            point: name.clone(),
            setting,
        };
        for s in self
            .common
            .iter()
            .chain(values.iter().flat_map(|v| &v.specifiers))
        {
            match s {
                Specifier::Character(c) => {
                    if character.replace(c.clone()).is_some() {
                        return Err(twice("Character"));
                    }
                }
                Specifier::Speed(v) => {
                    if speed.replace(*v).is_some() {
                        return Err(twice("Speed"));
                    }
                }
                Specifier::TurnRate(v) => {
                    if turn.replace(v.to_radians()).is_some() {
                        return Err(twice("TurnRate"));
                    }
                }
                Specifier::Timing { period, contacts } => {
                    if p.period.replace(*period).is_some() {
                        return Err(twice("Timing"));
                    }
                    p.contacts = Some(
                        contacts
                            .iter()
                            .map(|(foot, start, duration)| FootTiming {
                                foot: foot.clone(),
                                start: *start,
                                duration: *duration,
                            })
                            .collect(),
                    );
                }
                Specifier::Ceiling(h) => {
                    if p.ceiling.replace(*h).is_some() {
                        return Err(twice("Ceiling"));
                    }
                }
                Specifier::Weights(a, b, c, d) => {
                    if weights.is_some() {
                        return Err(twice("Weights"));
                    }
                    weights = Some((*a, *b, *c, *d));
                }
                Specifier::Posture(w, limbs) => {
                    if posture.replace(*w).is_some() {
                        return Err(twice("Posture"));
                    }
                    p.posture_limbs = limbs.clone();
                }
                Specifier::Family(f) => {
                    if p.family.replace(f.clone()).is_some() {
                        return Err(twice("Family"));
                    }
                }
                Specifier::FlatFeet => p.flat_feet = true,
                Specifier::SoleClearance => p.sole_clearance = true,
                Specifier::SwingClearance(h) => p.swing_clearance = *h,
            }
        }
        p.character = character
            .or_else(|| self.character.clone())
            .ok_or_else(|| SpaceProblem::NoCharacter {
                point: name.clone(),
            })?;
        p.speed = speed.unwrap_or(0.0);
        p.turn_rate = turn.unwrap_or(0.0);
        if weights.is_some() || posture.is_some() {
            let t = GaitWeights::THESIS;
            let (a, b, c, d) = weights.unwrap_or((
                t.effort,
                t.joint_velocity,
                t.head_velocity,
                t.head_orientation,
            ));
            p.weights = Some(GaitWeights {
                effort: a,
                joint_velocity: b,
                head_velocity: c,
                head_orientation: d,
                posture: posture.unwrap_or(0.0),
            });
        }
        Ok(p)
    }

    /// The gait request of a connection between two solved points' gait clips.
    #[allow(clippy::too_many_arguments)]
    pub fn connection_request(
        &self,
        c: &SpaceConnection,
        character: PathBuf,
        from: PathBuf,
        to: PathBuf,
        from_frame: usize,
        to_frame: usize,
        placement: crate::model::planar::PlanarMotion,
        out: PathBuf,
    ) -> GaitRequest {
        GaitRequest {
            max_iterations: self.solver.max_iterations,
            out: Some(out),
            connect: Some(ConnectRequest {
                from,
                to,
                connection: Connection {
                    from_frame,
                    to_frame,
                    frames: c.frames,
                    duration: c.duration,
                    placement: Some(placement),
                    swings: c.swings.clone(),
                    pivots: c.pivots.clone(),
                },
            }),
            ..GaitRequest::new(character, 0.0)
        }
    }
}

/// `a/b/../c` as `a/c` (lexically: the files named in a space stay readable in messages).
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir
                if out
                    .components()
                    .next_back()
                    .is_some_and(|l| matches!(l, std::path::Component::Normal(_))) =>
            {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn check_specifier(s: &Specifier) -> Result<(), SpecifierError> {
    let finite_in = |v: f64, lo: f64, hi: f64, what: &str| {
        if v.is_finite() && (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(SpecifierError::OutOfRange {
                what: what.to_string(),
                lo,
                hi,
                found: v,
            })
        }
    };
    match s {
        Specifier::Character(_)
        | Specifier::Family(_)
        | Specifier::FlatFeet
        | Specifier::SoleClearance => Ok(()),
        Specifier::Speed(v) => finite_in(*v, -20.0, 20.0, "Speed (m/s)"),
        Specifier::TurnRate(v) => finite_in(*v, -720.0, 720.0, "TurnRate (°/s)"),
        Specifier::Ceiling(h) => finite_in(*h, 0.0, 10.0, "Ceiling (m)"),
        Specifier::SwingClearance(h) => finite_in(*h, 0.0, 1.0, "SwingClearance (m)"),
        Specifier::Timing { period, contacts } => {
            finite_in(*period, 1e-3, 10.0, "Timing period (s)")?;
            if contacts.is_empty() {
                return Err(SpecifierError::NoContacts);
            }
            for (foot, start, duration) in contacts {
                finite_in(*start, 0.0, 1.0, &format!("foot `{foot}` start"))?;
                finite_in(*duration, 0.0, 1.0, &format!("foot `{foot}` duration"))?;
            }
            Ok(())
        }
        Specifier::Weights(a, b, c, d) => {
            for v in [a, b, c, d] {
                finite_in(*v, 0.0, 1e6, "Weights")?;
            }
            Ok(())
        }
        Specifier::Posture(w, _) => finite_in(*w, 0.0, 1e6, "Posture"),
    }
}

#[cfg(test)]
mod tests;
