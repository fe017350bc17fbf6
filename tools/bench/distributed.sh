#!/usr/bin/env bash
# The solver's strong and weak scaling on 1, 2, 4, 8 GPUs of one machine (a process each, NCCL):
# fesim-bench-distributed (tools/bench/bench_distributed.c) on structured meshes cut by METIS as
# fesim cuts a case's mesh; per strategy the apply and the CG iteration, and apart from them the
# halo exchange and the all-reduce that a CG iteration makes.  CSV on stdout, one header.
#   tools/bench/distributed.sh [strong2d|strong3d|weak2d|weak3d]...   (default: all four)
#   strong2d: 10.0M and 40.0M triangles (N = 2236, 4472); strong3d: 10.1M and 39.9M
#   tetrahedra (N = 119, 188); weak2d, weak3d: about 5M cells per process; strong2d40,
#   strong3d40: the 40M meshes alone; strong2d10, strong3d10: the 10M meshes alone; small2d:
#   1.0M and 2.5M triangles (N = 707, 1118), where adding GPUs stops paying.
# PROCESSES: the process counts (default: 1, 2, 4, 8 up to the machine's GPUs); STRATEGIES
# (default "lma addto matfree"); BACKEND=cpu runs the same on the CPU backend
# (OMP_NUM_THREADS threads a process).  On a GPU machine, from the repository root, in
# tools/bench/device_run.sh's environment (its step `distributed`).
set -u
bench=${BENCH:-build/bin/fesim-bench-distributed}
backend=${BACKEND:-cuda}
strategies=${STRATEGIES:-lma addto matfree}
if [ -z "${PROCESSES:-}" ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  [ "$backend" = cuda ] || gpus=$(nproc)
  PROCESSES=""
  for np in 1 2 4 8; do [ "$np" -le "${gpus:-1}" ] && PROCESSES="$PROCESSES $np"; done
fi
header=1
run() { # processes dim n
  echo "== $1 process(es), ${2}D, N = $3" >&2
  # shellcheck disable=SC2086
  timeout 560 mpirun --allow-run-as-root --oversubscribe -n "$1" -x LD_LIBRARY_PATH \
    -x NCCL_NVLS_ENABLE=0 -x OMP_NUM_THREADS ${FESIM_NCCL_WINDOWS:+-x FESIM_NCCL_WINDOWS} "$bench" "$2" "$3" "$backend" 20 $strategies |
    while IFS= read -r line; do
      case $line in
      "#"*) echo "$line" >&2 ;;
      processes,*) [ $header = 1 ] && echo "$line" ;;
      *) echo "$line" ;;
      esac
    done
  header=0
}
# N of about 5M cells per process: 2 N^2 triangles, 6 N^3 tetrahedra
weak_n() { # dim processes
  python3 -c "import sys; d, p = int(sys.argv[1]), int(sys.argv[2]); \
print(round((2.5e6 * p) ** 0.5) if d == 2 else round((5e6 * p / 6) ** (1 / 3)))" "$1" "$2"
}
for what in ${*:-strong2d weak2d strong3d weak3d}; do
  case $what in
  strong2d) for n in 2236 4472; do for np in $PROCESSES; do run "$np" 2 "$n"; done; done ;;
  strong2d40) for np in $PROCESSES; do run "$np" 2 4472; done ;;
  strong2d10) for np in $PROCESSES; do run "$np" 2 2236; done ;;
  strong3d10) for np in $PROCESSES; do run "$np" 3 119; done ;;
  small2d) for n in 707 1118; do for np in $PROCESSES; do run "$np" 2 "$n"; done; done ;;
  strong3d40) for np in $PROCESSES; do run "$np" 3 188; done ;;
  strong3d) for n in 119 188; do for np in $PROCESSES; do run "$np" 3 "$n"; done; done ;;
  weak2d) for np in $PROCESSES; do run "$np" 2 "$(weak_n 2 "$np")"; done ;;
  weak3d) for np in $PROCESSES; do run "$np" 3 "$(weak_n 3 "$np")"; done ;;
  *) echo "unknown step '$what' (strong2d, strong3d, weak2d, weak3d, strong2d40, strong3d40, strong2d10, strong3d10, small2d)" >&2; exit 1 ;;
  esac
done
