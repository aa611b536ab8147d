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
  libopenblas0-serial # optimised BLAS for IPOPT's MUMPS (Debian's reference BLAS made the
                      # velociraptor's exact-Hessian factorisations 4x slower); single-threaded
                      # so results do not depend on a BLAS thread count
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "motionlab setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
