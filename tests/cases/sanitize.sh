#!/usr/bin/env bash
# compute-sanitizer TOOL on fesim with each strategy, on a short run of CASE.
#   sanitize.sh SANITIZER TOOL FESIM CASE     (exit 77: skipped, no GPU or no sanitizer)
set -u
sanitizer=$1 tool=$2 fesim=$3 case=$4
# the path found at configure time, else the one on PATH (the GPU machine's)
[ -x "$sanitizer" ] || sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$sanitizer" ]; then echo "skipped: compute-sanitizer not found"; exit 77; fi
"$fesim" --quiet --backend cuda --check "$case" >/dev/null 2>&1
if [ $? -eq 4 ]; then echo "skipped: no usable GPU"; exit 77; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e 's|<time start="0" end="1"|<time start="0" end="0.05"|' \
    -e "s|file=\"square.geo\"|file=\"$(dirname "$case")/square.geo\"|" "$case" >"$work/case.xml"
# racecheck: cuSPARSE's SpMV kernels report shared-memory hazards (warnings) in
# the library's own code; every fesim kernel is still checked
filter=()
[ "$tool" = racecheck ] && filter=(--kernel-name-exclude kns=cusparse)
# racecheck (2025.3) ends the run with SIGSEGV in graphs with a while node (CG's solve on the
# device, solvers/cg.c): there CG's kernels are launched one by one (FESIM_CUDA_GRAPHS=0), the
# same kernels the graph holds; memcheck and initcheck check the graph itself
[ "$tool" = racecheck ] && export FESIM_CUDA_GRAPHS=0
status=0
for variant in "--assembly lma" "--assembly lma --deterministic" "--assembly addto" \
  "--assembly matfree" "--assembly matfree --deterministic"; do
  echo "== $tool: $variant"
  # shellcheck disable=SC2086
  "$sanitizer" --tool "$tool" "${filter[@]}" --error-exitcode 1 "$fesim" --quiet --backend cuda $variant \
    --output "$work/out" "$work/case.xml" || status=1
done
exit $status
