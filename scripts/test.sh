#!/usr/bin/env bash
# Runs every test: unit tests of the science modules, the CLI contract and the GUI screenshot
# test under Xvfb (installs missing system packages first).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec cargo test "$@"
