#!/usr/bin/env bash
# ParaView itself (pvbatch under xvfb-run) opens a .vtk.series, checks its
# times and fields and renders PNGs (tests/tools/check_paraview.py).
#   paraview.sh SERIES OUT.png FIELD...     (exit 77: skipped, no ParaView here)
set -u
for tool in pvbatch xvfb-run; do
  command -v $tool >/dev/null || { echo "skipped: $tool not found (Debian: python3-paraview, xvfb)"; exit 77; }
done
exec xvfb-run -a pvbatch "$(dirname "$0")/../tools/check_paraview.py" "$@"
