#!/usr/bin/env bash
# On the GPU machine, from the repository root with build/ and .device-libs/
# carried: the gpu CTest label, the operator benchmark, and whole runs of the
# 1M-cell benchmark cases with each strategy on the GPU and on all CPU cores.
#   tools/bench/device_run.sh [labels|bench|runs|profile|profile-lma|mpi|scaling|distributed]...
#   (default: labels bench runs).  mpi: the mpi-gpu CTest label (2 GPUs); scaling: whole runs on
#   1 and 2 GPUs (tools/bench/scaling.sh); distributed: the solver's strong and weak scaling
#   on every GPU count the machine has (tools/bench/distributed.sh).  The packed libraries leave MPI and NCCL out: the
#   machine's own OpenMPI and the NCCL of its Python environment are used.
set -u
out=${OUT:-/tmp/fesim-device}
mkdir -p "$out" /tmp/dl
tar -xJf .device-libs/libs.tar.xz -C /tmp/dl && export LD_LIBRARY_PATH=/tmp/dl:${LD_LIBRARY_PATH:-}
nccl=$(python3 -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))" 2>/dev/null) &&
  export LD_LIBRARY_PATH=$nccl:$LD_LIBRARY_PATH
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x /usr/bin/python3 ] || ln -s "$(command -v python3)" /usr/bin/python3
[ -x /usr/bin/cmake ] || ln -s "$(command -v cmake)" /usr/bin/cmake   # the -P scripts of some tests
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv
steps=${*:-labels bench runs}
for step in $steps; do
  case $step in
  labels) (cd build && ctest -L '^gpu$' --output-on-failure -j3) 2>&1 | tee "$out/gpu.log" ;;
  mpi) (cd build && ctest -L mpi-gpu --output-on-failure) 2>&1 | tee "$out/mpi_gpu.log" ;;
  scaling) tools/bench/scaling.sh 2>&1 | tee "$out/scaling.log" ;;
  distributed) tools/bench/distributed.sh 2>"$out/distributed.log" | tee "$out/distributed.csv" ;;
  bench)
    for size in "2 3000" "3 160" "2 500" "3 40"; do
      # shellcheck disable=SC2086
      build/bin/fesim-bench-operators $size cuda 20
    done 2>&1 | tee "$out/bench_operators.csv" ;;
  runs)
    for c in 2d 3d; do
      for s in "lma" "lma --deterministic" "addto"; do
        echo "== cuda $s $c"
        # shellcheck disable=SC2086
        build/bin/fesim --backend cuda --assembly $s --output /tmp/fesim-runs tools/bench/cases/advection_$c.xml
      done
      echo "== cpu lma $c ($(nproc) cores)"
      build/bin/fesim --backend cpu --assembly lma --output /tmp/fesim-runs tools/bench/cases/advection_$c.xml
    done 2>&1 | tee "$out/runs.log"
    for backend in cuda cpu; do
      echo "== $backend lma, time-dependent coefficients 3d"
      build/bin/fesim --backend $backend --output /tmp/fesim-runs tools/bench/cases/timedep_3d.xml
      tail -1 /tmp/fesim-runs/bench_timedep_3d.stat
    done 2>&1 | tee -a "$out/runs.log" ;;
  profile)
    # Nsight Compute on the 3D matrix-free apply (24.6M tetrahedra)
    for k in matfree_kernel; do
      ncu --kernel-name "regex:$k" --launch-skip 2 --launch-count 1 --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
        build/bin/fesim-bench-operators 3 160 cuda 2
    done 2>&1 | grep -v "^dim,\|^3,\|^# " | tee "$out/profile.log" ;;
  profile-lma)
    # Nsight Compute on the 3D LMA element kernel and apply in symmetric storage (24.6M
    # tetrahedra, REPEATS 2): element_kernel's 3rd launch is a timed assembly of variant
    # epb0_tpe0 (after its warm-up); lma_kernel's 56th the lma row's first timed apply (after
    # 9 widths x 2 storages x 3 applies of the lma-block rows, and the row's warm-up)
    for k in "element_kernel 2" "lma_kernel 55"; do
      read -r kernel skip <<<"$k"
      ncu --kernel-name "regex:^$kernel\$" --launch-skip "$skip" --launch-count 1 --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
        build/bin/fesim-bench-operators 3 160 cuda 2
    done 2>&1 | grep -v "^dim,\|^3,\|^# " | tee "$out/profile_lma.log" ;;
  esac
done
