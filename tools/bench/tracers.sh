#!/bin/sh
# Several tracers on one flow: time per step of a run that carries 1, 2, 4 and 8 tracers with
# the same coefficients (each its own initial hill), so that they share every operator and
# their solves are made at once (fe_cg_solve_many).  The case is cases/sweep_2d.xml's (a
# Gaussian in solid-body rotation with diffusion) on the structured unit square, through
# fesim-bench-case.  One CSV row per run on stdout.
#
#   tools/bench/tracers.sh [BIN_DIR]          (default build/bin)
#     SIZES="70 224 707"     structured sizes N: 2 N^2 triangles, (N+1)^2 nodes (10K, 51K,
#                            501K nodes)
#     TRACERS="1 2 4 8"      tracers per run
#     STRATEGIES="lma addto matfree"
#     STEPS=20   BACKEND=cuda
#     BASE=DIR               the bin directory of another build (an earlier commit) run side
#                            by side, its rows marked "base"
set -eu
BIN=${1:-build/bin}
SIZES=${SIZES:-"70 224 707"}
TRACERS=${TRACERS:-"1 2 4 8"}
STRATEGIES=${STRATEGIES:-"lma addto matfree"}
STEPS=${STEPS:-20}
BACKEND=${BACKEND:-cuda}
BASE=${BASE:-}
WORK=$(mktemp -d /tmp/fesim-tracers.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cp "$(dirname "$0")/cases/unit_square.geo" "$WORK/" # named by the case (replaced by the run)

# case_with COUNT: the case file of COUNT tracers
case_with() {
  f="$WORK/tracers_$1.xml"
  {
    cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<fesim version="1">
  <name>tracers_$1</name>
  <mesh file="unit_square.geo" size="0.02"/>
  <parameters><param name="k">1e-5</param></parameters>
  <time start="0" end="0.05" dt="0.005"/>
  <velocity><x>-(y-0.5)</x><y>x-0.5</y></velocity>
EOF
    i=0
    while [ "$i" -lt "$1" ]; do
      cat <<EOF
  <tracer name="T$i">
    <initial>exp(-((x-0.7+0.02*$i)^2 + (y-0.5)^2)/0.005)</initial>
    <diffusivity>k</diffusivity>
    <boundary physical="boundary"><dirichlet>0</dirichlet></boundary>
  </tracer>
EOF
      i=$((i + 1))
    done
    echo '  <output dir="out_tracers" every="1000"/>'
    echo '</fesim>'
  } > "$f"
  echo "$f"
}

echo "build,tracers,$("$BIN/fesim-bench-case" --header)"
for n in $SIZES; do
  for t in $TRACERS; do
    c=$(case_with "$t")
    for s in $STRATEGIES; do
      for build in this ${BASE:+base}; do
        dir=$BIN
        [ "$build" = base ] && dir=$BASE
        row=$("$dir/fesim-bench-case" --backend "$BACKEND" --assembly "$s" --steps "$STEPS" \
          --output "$WORK/out" "$c" 2 "$n")
        echo "$build,$t,$row"
      done
    done
  done
done
