#!/usr/bin/env bash
# Whole runs on 1, 2, ... GPUs of one machine (a process each, NCCL; PROCESSES, default "1 2"),
# side by side: the set-up, the
# time per step (outputs excluded) and the advection solves' time per CG iteration, for each
# strategy, of the benchmark cases (tools/bench/cases/advection_{2d,3d}.xml) on meshes of the
# sizes given: transfinite squares of 2 N^2 triangles, cubes of 6 N^3 tetrahedra.
#   tools/bench/scaling.sh ["DIM N STRATEGIES"]...
#   default: "2 2236 lma addto" (10.0M triangles) "3 119 lma" (10.1M tetrahedra)
# On a GPU machine, from the repository root, with tools/bench/device_run.sh's environment (its
# step `scaling`); BACKEND=cpu runs the same on the CPU backend (a process per core group,
# OMP_NUM_THREADS threads each).  Process 0 meshes the whole mesh, cuts it and hands each
# process its part: the set-up includes it.  Weak scaling at 5M cells per GPU in 2D: "2 1581 lma" on 1 GPU,
# "2 2236 lma" on 2, "2 3162 lma" on 4, "2 4472 lma" on 8 (PROCESSES set for each).
# END: the simulated end time (default 0.01: 10 steps of the cases' dt 0.001, the first of
# which builds each solve's CUDA graph; END=0.05 runs 50, nearer a long run's steady step).
# FESIM_TIME_SOLVES=1 (the default here): each solve waits for the work before it and is read
# at once, so that the advection line holds the solves' time on one GPU too
# (docs/architecture.md); FESIM_TIME_SOLVES=0 times the steps as a user's run makes them.
set -u
fesim=${FESIM:-build/bin/fesim}
work=${WORK:-/tmp/fesim-scaling}
mkdir -p "$work"
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("2 2236 lma addto" "3 119 lma")
for spec in "${specs[@]}"; do
  read -r dim n strategies <<<"$spec"
  geo=$([ "$dim" = 2 ] && echo square_1m.geo || echo cube_1m.geo)
  sed "s/^N = [0-9]*;/N = $n;/" "tools/bench/cases/$geo" >"$work/mesh_${dim}d_$n.geo"
  sed -e "s|file=\"$geo\"|file=\"mesh_${dim}d_$n.geo\"|" -e "s|end=\"[^\"]*\"|end=\"${END:-0.01}\"|" \
    "tools/bench/cases/advection_${dim}d.xml" >"$work/case_${dim}d_$n.xml"
  cells=$([ "$dim" = 2 ] && echo $((2 * n * n)) || echo $((6 * n * n * n)))
  for strategy in $strategies; do
    for np in ${PROCESSES:-1 2}; do
      echo "== ${dim}D, $cells cells, $strategy, $np process(es), ${BACKEND:-cuda}"
      timeout 560 mpirun --allow-run-as-root --oversubscribe -n "$np" -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE=0 \
        ${FESIM_NCCL_WINDOWS:+-x FESIM_NCCL_WINDOWS} \
        -x OMP_NUM_THREADS -x FESIM_TIME_SOLVES="${FESIM_TIME_SOLVES:-1}" "$fesim" --backend "${BACKEND:-cuda}" --assembly "$strategy" --force --output "$work/out" \
        "$work/case_${dim}d_$n.xml" 2>&1 |
        grep -E "steps to|set-up|per step|advection|diffusion" |
        awk '/advection|diffusion/ {print; for (i = 1; i <= NF; i++) if ($i == "s,") {t = $(i - 1); it = $(i + 1)}
             if (it > 0) printf "             %.3f ms per iteration\n", 1e3 * t / it; next} {print}'
    done
  done
done
