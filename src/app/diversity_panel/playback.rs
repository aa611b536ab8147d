//! Playing the motions together aligned by phase (Agrawal et al. 2014, §7.2): each motion's phase
//! spans, the time within a motion at a shared phase-normalised clock, and the clock itself.

use super::*;

/// Start and end time of every phase the motion went through, in the order they ran.
pub(super) fn phase_spans(run: &TaskRun) -> Vec<(f32, f32)> {
    let last = run.frames.last().map(|f| f.time).unwrap_or(0.0);
    let ph = &run.evaluation.phases;
    ph.iter()
        .enumerate()
        .map(|(k, p)| {
            let end = p
                .end
                .or_else(|| ph.get(k + 1).map(|n| n.start))
                .unwrap_or(last)
                .max(p.start);
            (p.start, end)
        })
        .collect()
}

/// The motion's own time at phase clock `u` (phase ⌊u⌋, fraction u − ⌊u⌋ of it).
pub(super) fn time_at(spans: &[(f32, f32)], u: f32, last: f32) -> f32 {
    if spans.is_empty() {
        return u.min(last);
    }
    let k = u.floor().max(0.0) as usize;
    if k >= spans.len() {
        return spans.last().map(|s| s.1).unwrap_or(last);
    }
    let (a, b) = spans[k];
    a + (u - k as f32).clamp(0.0, 1.0) * (b - a)
}

pub(super) fn frame_at(run: &TaskRun, t: f32) -> Option<&crate::sim::Frame> {
    if run.frames.is_empty() {
        return None;
    }
    let i = run
        .frames
        .partition_point(|f| f.time < t)
        .min(run.frames.len() - 1);
    run.frames.get(i)
}

impl DiversityState {
    pub(super) fn run(&self, index: usize) -> Option<&Arc<TaskRun>> {
        self.entries
            .iter()
            .find(|e| e.index == index)
            .and_then(|e| self.cache.get(&e.key))
    }
    /// Number of phases of the shared clock: the most any motion went through (a motion that
    /// fell early holds its last frame for the phases it never reached).
    pub(super) fn phase_count(&self) -> usize {
        self.entries
            .iter()
            .filter_map(|e| self.cache.get(&e.key))
            .map(|r| r.evaluation.phases.len())
            .max()
            .unwrap_or(1)
            .max(1)
    }
    /// How long phase `k` lasts on screen: as in M0 when M0 reached it, else as in the first
    /// motion that did.
    pub(super) fn phase_duration(&self, k: usize) -> f32 {
        self.entries
            .iter()
            .filter_map(|e| self.cache.get(&e.key))
            .find_map(|r| phase_spans(r).get(k).map(|s| s.1 - s.0))
            .unwrap_or(0.5)
            .max(0.05)
    }
    /// Name of phase `k` (from the first motion that reached it).
    pub(super) fn phase_name(&self, k: usize) -> String {
        self.entries
            .iter()
            .filter_map(|e| self.cache.get(&e.key))
            .find_map(|r| r.evaluation.phases.get(k).map(|p| p.name.clone()))
            .unwrap_or_default()
    }
    /// The frame of motion `index` at phase clock `u`.
    pub(super) fn frame(&self, index: usize, u: f32) -> Option<(&Character, &crate::sim::Frame)> {
        let run = self.run(index)?;
        let spans = phase_spans(run);
        let last = run.frames.last()?.time;
        let t = time_at(&spans, u, last);
        Some((&run.character, frame_at(run, t)?))
    }
}

pub(super) fn advance_clock(time: Res<Time>, clock: Res<Clock>, mut state: ResMut<DiversityState>) {
    let dt = clock.dt(&time, 0.25) as f32 * if state.half_speed { 0.5 } else { 1.0 };
    let phases = state.phase_count() as f32;
    if state.hold > 0.0 {
        state.hold -= dt;
        if state.hold <= 0.0 {
            state.clock = 0.0;
        }
        return;
    }
    // The clock runs at M0's pace: one of its phases takes as long as it does in M0.
    let dur = state.phase_duration(state.clock.floor() as usize);
    state.clock += dt / dur;
    if state.clock >= phases {
        state.clock = phases;
        state.hold = 0.8;
    }
}
