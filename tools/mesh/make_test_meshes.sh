#!/bin/sh
# Regenerate the meshes of tests/data/mesh from the .geo files there with the
# gmsh command (Gmsh 4.8).  Usage: tools/mesh/make_test_meshes.sh [DIR]
set -eu
dir=${1:-$(dirname "$0")/../../tests/data/mesh}
cd "$dir"
g() { gmsh "$@" >/dev/null; }

# Good meshes: every MSH format Gmsh writes that fesim reads.
for f in 22 41; do
  g -2 square.geo -format msh$f -o square_$f.msh
  g -2 square.geo -format msh$f -bin -o square_${f}b.msh
  g -3 cube.geo -format msh$f -o cube_$f.msh
  g -3 cube.geo -format msh$f -bin -o cube_${f}b.msh
done

# Bad meshes, each rejected with exit code 2.
printf 'this is not a mesh\n$Nodes\n1 2 3\n' > garbage.msh
: > empty.msh
head -c "$(($(wc -c < square_41.msh) / 2))" square_41.msh > truncated.msh
g -2 quad.geo -format msh41 -o quad.msh
g -2 square.geo -order 2 -format msh41 -o order2.msh
g -2 tilted.geo -format msh41 -o tilted.msh
g -3 mixed.geo -format msh41 -o mixed.msh
g -1 square.geo -format msh41 -o lines.msh
# A triangle whose three nodes are the first three on the edge y = 0.
awk '
  /^\$Nodes/ { sec = "n" } /^\$Elements/ { sec = "e" } /^\$End/ { sec = "" }
  sec == "n" && NF == 4 && $3 == 0 && k < 3 { col[k++] = $1 }
  sec == "e" && !done && NF >= 6 && $2 == 2 {
    $(NF - 2) = col[0]; $(NF - 1) = col[1]; $NF = col[2]; done = 1
  }
  { print }
' square_22.msh > degenerate.msh

# Every second cell with two nodes swapped: negatively oriented cells.
flip() {
  awk -v type="$1" '
    /^\$Elements/ { sec = 1 } /^\$EndElements/ { sec = 0 }
    sec && NF >= 6 && $2 == type && k++ % 2 { t = $NF; $NF = $(NF - 1); $(NF - 1) = t }
    { print }
  ' "$2" > "$3"
}
flip 2 square_22.msh square_flip.msh
flip 4 cube_22.msh cube_flip.msh

# Sparse node tags (x 100003), read through the sorted tag map.
awk '
  /^\$Nodes/ { sec = "n" } /^\$Elements/ { sec = "e" } /^\$End/ { sec = "" }
  sec == "n" && NF == 4 { $1 *= 100003 }
  sec == "e" && NF >= 6 { for (i = 4 + $3; i <= NF; i++) $i *= 100003 }
  { print }
' square_22.msh > square_sparse.msh
