#!/usr/bin/env bash
# Cuts the footstep templates of assets/tasks/human3d_solved.templates.ron from the human's solved
# clips: the stop and the start of the locomotion space, and the side steps, turns in place
# and pivots of the stepping space (`motionlab space generate
# spaces/human3d_stepping.ron --from assets/spaces/human3d_locomotion --out
# assets/spaces/human3d_stepping` solves them). Every category and effort.
set -euo pipefail
cd "$(dirname "$0")/.."
# MOTIONLAB=target/release/motionlab runs a built binary instead of `cargo run`.
read -r -a M <<< "${MOTIONLAB:-cargo run --quiet --}"
L=assets/spaces/human3d_locomotion/clips
S=assets/spaces/human3d_stepping/clips
T=assets/tasks/human3d_solved.templates.ron
"${M[@]}" footsteps templates "$L/stop_walk0.6.ron" --side entry --out "$T"
"${M[@]}" footsteps templates "$L/start_walk0.6.ron" --side exit --steps 1 --out "$T" --append
# A side step enters a task beside the one before; leaving one by a side step, the footstep
# optimizer turned its feet up to 120° apart to face a task further away.
for c in side_step_left_0.3 side_step_right_0.3; do
  "${M[@]}" footsteps templates "$S/$c.ron" --side entry --steps 2 --out "$T" --append
done
for c in turn_left_45 turn_right_45 turn_left_90 turn_right_90; do
  "${M[@]}" footsteps templates "$S/$c.ron" --steps 2 --out "$T" --append
done
# A pivot leaves a task: the inside foot turns on its spot, the other steps around it. As an
# entry it would end on a pivot, not on a landing of both feet, so it is an exit only.
for c in pivot_left_45 pivot_right_45 pivot_left_90 pivot_right_90 \
  toe_pivot_left_45 toe_pivot_right_45 toe_pivot_left_90 toe_pivot_right_90; do
  "${M[@]}" footsteps templates "$S/$c.ron" --side exit --steps 2 --out "$T" --append
done
