#!/usr/bin/env bash
# Makes the README's and docs' pictures (docs/images/*.png) with the app's --screenshot option,
# under a virtual X server. Takes about 10 minutes on 2 cores after the build.
# Usage: scripts/screenshots.sh [NAME ...]   (names: steering editor gait diversity pareto)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --bin motionlab
app="${CARGO_TARGET_DIR:-target}/debug/motionlab"
mkdir -p docs/images
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
shot() {
  local name="$1"; shift
  echo "docs/images/$name.png ..." >&2
  xvfb-run -a -s "-screen 0 1600x900x24" "$app" gui "$@" --screenshot "docs/images/$name.png" >/dev/null 2>&1
}
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(steering editor gait diversity pareto)
for n in "${names[@]}"; do
  case "$n" in
    # Steered mid-turn on the shipped graph, with the trajectories, graph view and distance map.
    steering) shot steering --steer assets/graphs/human3d.ron --steer-script tests/data/steer_north_east.ron --frames 340 ;;
    # The character editor on the human, an arm selected with its joint limits drawn.
    editor) shot editor --edit characters/human3d.ron --edit-select l_upper_arm --frames 40 ;;
    # A gait discovery at work: the samples' scatter and best cost per generation.
    gait) shot gait --discover-gait characters/simple_biped.ron --gait-speed 0.7 --frames 400 ;;
    # Four diverse variants of a high jump being searched (the Diversity panel).
    diversity) shot diversity --explore scenes/jump_high2d.ron --frames 400 ;;
    # A Pareto front of jump height against effort growing (RMOO).
    pareto) shot pareto --pareto scenes/pareto_jump2d.ron --frames 400 ;;
    *) echo "unknown picture $n" >&2; exit 2 ;;
  esac
done
