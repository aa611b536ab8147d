#!/usr/bin/env bash
# Installs the Debian packages motionlab needs to build and run, if any are missing.
# Idempotent and quick when everything is present. Run as root (or with sudo available).
set -euo pipefail

packages=(
  pkg-config          # -sys crates find system libraries
  libudev-dev         # gamepad input (gilrs)
  libwayland-dev      # winit
  libxkbcommon-dev    # winit keyboard handling
  libxkbcommon-x11-0  # winit on X11 at run time
  libx11-xcb1 libxcursor1 libxi6 libxrandr2  # X11 client libraries loaded at run time
  libvulkan1 mesa-vulkan-drivers             # Vulkan loader and Mesa's software (llvmpipe) driver
  xvfb xauth          # headless X server for the GUI test and screenshots
  coinor-libipopt-dev # IPOPT, the NLP solver of spacetime control (cargo feature `ipopt`)
  openmpi-bin libopenmpi-dev  # MPI for searches spread over ranks (cargo feature `mpi`)
  libclang-dev        # rsmpi generates its MPI bindings with libclang at build time
  libopenblas0-serial # optimised BLAS for IPOPT's MUMPS (Debian's reference BLAS made the
                      # velociraptor's exact-Hessian factorisations 4x slower); single-threaded
                      # so results do not depend on a BLAS thread count
)
# Node.js runs the Khronos glTF-Validator that checks the glTF exports in the tests.
if ! command -v node >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "motionlab setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# IPOPT loads whichever BLAS and LAPACK Debian's alternatives name. Another provider installed
# later (the reference BLAS, OpenBLAS's threaded build, ATLAS) can outrank the serial OpenBLAS
# and change solve times and results, so the serial one is selected explicitly.
serial=/usr/lib/x86_64-linux-gnu/openblas-serial
for lib in libblas.so.3 liblapack.so.3 libopenblas.so.0; do
  name="$lib-x86_64-linux-gnu"
  if [ -e "$serial/$lib" ] && [ "$(readlink -f "/etc/alternatives/$name")" != "$(readlink -f "$serial/$lib")" ]; then
    echo "motionlab setup: selecting $serial/$lib for $name" >&2
    $SUDO update-alternatives --quiet --set "$name" "$serial/$lib"
  fi
done

# The Khronos glTF-Validator (npm, Apache-2.0): an independent reader of the glTF files
# `clip export` writes (tests/clip.rs runs scripts/gltf-validate.js with it).
TOOLS="${MOTIONLAB_TOOLS:-/var/tmp/motionlab-tools}"
VALIDATOR_VERSION="2.0.0-dev.3.10"
if [ ! -f "$TOOLS/node_modules/gltf-validator/package.json" ] \
  || ! grep -q "\"version\": \"$VALIDATOR_VERSION\"" "$TOOLS/node_modules/gltf-validator/package.json"; then
  echo "motionlab setup: installing gltf-validator@$VALIDATOR_VERSION into $TOOLS" >&2
  mkdir -p "$TOOLS"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS" "gltf-validator@$VALIDATOR_VERSION" >/dev/null
fi
