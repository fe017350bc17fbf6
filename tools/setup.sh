#!/usr/bin/env bash
# Install what fesim needs from Debian (only what is missing), then configure
# and build it in build/.  Idempotent: a second run installs nothing and only
# rebuilds what changed.
#   FESIM_CMAKE_ARGS   extra arguments for cmake (CI passes -DFESIM_WERROR=ON)
#   FESIM_BUILD_DIR    build directory (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."

# libseccomp-dev: the meshing process's sandbox (io/sandbox.h); zlib1g-dev: compressed VTK XML
# velocity files (io/vtu.c);
# valgrind, clang, libclang-rt-dev (libFuzzer, clang's sanitizers) and libomp-dev
# (OpenMP for clang): the sanitize and fuzz tests (tests/sanitize.cmake);
# python3-matplotlib: the benchmark plots (tools/bench/plot.py);
# libmetis-dev: mesh partitions for several processes (io/partition.c); libopenmpi-dev and
# openmpi-bin: the MPI communicator and its tests (solvers/comm_mpi.c, label mpi)
packages=(build-essential cmake libxml2-dev zlib1g-dev libgmsh-dev gmsh libseccomp-dev
          libmetis-dev libopenmpi-dev openmpi-bin
          python3 python3-numpy python3-paraview xvfb xauth
          valgrind clang libclang-rt-dev libomp-dev python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build=${FESIM_BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${FESIM_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)"
