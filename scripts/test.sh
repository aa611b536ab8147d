#!/usr/bin/env bash
# Runs every test: unit tests of the science modules, the CLI contract and the GUI screenshot
# test under Xvfb (installs missing system packages first), then the vendored rapier3d's own unit
# tests, which include its patches' tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test "$@"
# (With arguments, e.g. one test target, only motionlab's tests run.)
if [ $# -eq 0 ]; then cargo test -p rapier3d --lib; fi
