#!/usr/bin/env bash
# Opens the motionlab workbench (installs missing system packages first).
# Extra arguments go to motionlab, e.g. `scripts/run.sh gui --character characters/human2d.ron`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "motionlab: no display found; running under a virtual X server (xvfb-run)." >&2
  exec xvfb-run -a -s "-screen 0 1600x900x24" cargo run -- "$@"
fi
exec cargo run -- "$@"
