#!/usr/bin/env bash
# valgrind memcheck of fesim (CPU, one OpenMP thread) on short runs: the
# manufactured case in 2D and the 3D case with assembly "auto" (which sets up
# and applies all three strategies), a restart from a checkpoint, and two
# bad inputs (an expression and a mesh).  Any memcheck error, or memory
# definitely lost, fails; so does an exit code other than the one expected.
#   valgrind.sh VALGRIND FESIM SOURCE_DIR WORK_DIR SUPPRESSIONS   (exit 77: no valgrind)
set -u
valgrind=$1 fesim=$2 src=$3 work=$4 supp=$5
[ -x "$valgrind" ] || valgrind=$(command -v valgrind || true)
if [ -z "$valgrind" ]; then
  echo "skipped: valgrind not found"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"

# short NAME SIZE END: cases/NAME/case.xml with mesh size SIZE, ending at END,
# a dump and a checkpoint every 2 steps, its geometry named by absolute path
short() {
  local dir=$src/cases/$1
  local geo
  geo=$(sed -n 's|.*<mesh file="\([^"]*\)".*|\1|p' "$dir/case.xml")
  sed -e "s|<mesh file=\"$geo\" size=\"[^\"]*\"|<mesh file=\"$dir/$geo\" size=\"$2\"|" \
      -e "s|<time start=\"0\" end=\"[^\"]*\"|<time start=\"0\" end=\"$3\"|" \
      -e 's|<output dir="out" every="[0-9]*"/>|<output dir="out" every="2"/><checkpoint every="2"/>|' \
      "$dir/case.xml" >"$work/$1.xml"
}

status=0
# memcheck EXPECTED_EXIT ARGS...: fesim ARGS under memcheck
memcheck() {
  local expected=$1
  shift
  echo "== fesim $* (expecting exit $expected)"
  OMP_NUM_THREADS=1 "$valgrind" --quiet --error-exitcode=99 --leak-check=full \
    --show-leak-kinds=definite --errors-for-leak-kinds=definite --track-origins=yes \
    --suppressions="$supp" "$fesim" --quiet --backend cpu "$@"
  local rc=$?
  if [ $rc -eq 99 ]; then
    echo "memcheck found errors (above)"
    status=1
  elif [ $rc -ne "$expected" ]; then
    echo "fesim exited $rc, expected $expected"
    status=1
  fi
}

short manufactured 0.1 0.05
short advection_diffusion_3d 0.25 0.04
memcheck 0 --assembly auto --output "$work/out2d" "$work/manufactured.xml"
memcheck 0 --output "$work/out2d" --restart "$work/out2d/manufactured_checkpoint_000002.bin" \
  "$work/manufactured.xml"
memcheck 0 --assembly auto --output "$work/out3d" "$work/advection_diffusion_3d.xml"
memcheck 2 --check "$src/tests/bad_input/expr_syntax.xml"
memcheck 2 --check "$src/tests/bad_input/mesh_inverted.xml"
[ $status -eq 0 ] && echo "memcheck: no errors, no definite leaks"
exit $status
