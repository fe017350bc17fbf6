#!/usr/bin/env python3
"""Writes the hand-made periodic meshes of tests/data/mesh (issue 14, item 3): the unit
square of make_mesh_semantics.py (3x3 nodes, 8 triangles; curves left 1, right 2, bottom 3,
top 4, entities 101 to 104 in MSH 2.2), periodic in x (the right side a copy of the left, shifted by 1) and in y (the top a
copy of the bottom), with a $Periodic section:

  read                  periodic_22.msh (ASCII MSH 2.2, its $Periodic read by fesim),
                        periodic_41.msh (MSH 4.1, read by Gmsh), periodic_41_noaffine.msh
                        (links without an affine transform: their first pair's shift)
  refused               periodic_unmatched_41.msh (a node of curve 2 without a pair),
                        periodic_counts_22.msh (curve 1 has 4 nodes, curve 2 has 3),
                        periodic_self_22.msh (node 6 paired with itself),
                        periodic_cycle_22.msh (curves 1 and 2 each the master of the other),
                        periodic_far_41.msh (node 6 paired with node 7, 0.5 off the shift),
                        periodic_no_node_22.msh, periodic_no_node_41.msh (a pair with node
                        99, which the mesh lacks), periodic_binary_22.msh (binary MSH 2.2
                        with a $Periodic section), periodic_30.msh (MSH 3, written by Gmsh 4.8
                        from a square of its own: not by this script)

Usage: make_periodic_meshes.py [DIR]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_mesh_semantics import (SQ_NAMES, SQ_NODES, SQ_SIDES, SQ_TRI, binary22,  # noqa: E402
                                 msh22, msh41_square, num, sq22)

GEN = "written by tests/data/mesh/make_periodic_meshes.py"
SHIFT_X = [1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
SHIFT_Y = [1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1]
# (dim, slave, master, affine or None, [(slave node, master node)])
LINKS = [(1, 2, 1, SHIFT_X, [(3, 1), (6, 4), (9, 7)]),
         (1, 4, 3, SHIFT_Y, [(9, 3), (8, 2), (7, 1)])]


def periodic(links, msh2):
    """The $Periodic section: MSH 2.2 writes 'Affine' and the 16 numbers, MSH 4.1 their
    count first (0: none).  The curves of make_mesh_semantics.py's MSH 2.2 square are
    entities 101 to 104."""
    out = ["$Periodic", str(len(links))]
    for dim, slave, master, affine, pairs in links:
        out.append(f"{dim} {slave + 100 * msh2} {master + 100 * msh2}")
        if msh2 and affine:
            out.append("Affine " + " ".join(map(num, affine)))
        elif not msh2:
            out.append(f"{len(affine)} " + " ".join(map(num, affine)) if affine else "0")
        out += [str(len(pairs))] + [f"{s} {m}" for s, m in pairs]
    return "\n".join(out + ["$EndPeriodic"]) + "\n"


def with_pairs(link, pairs):
    return [(d, s, m, a, pairs if (d, s) == link else p) for d, s, m, a, p in LINKS]


def counts(comment):
    """Curve 1 (left) with a fourth node, 10 at (0, 0.25): the right side's 3 nodes all
    paired, the left side's 4."""
    nodes = [(t, x, y, 0) for t, (x, y) in SQ_NODES.items()] + [(10, 0, 0.25, 0)]
    sides = {**SQ_SIDES, "left": [(7, 4), (4, 10), (10, 1)]}
    lines = [(1, k + 1, 101 + k, seg) for k, side in enumerate(("left", "right", "bottom", "top"))
             for seg in sides[side]]
    tri = [t for t in SQ_TRI if t != (1, 5, 4)] + [(1, 5, 10), (10, 5, 4)]
    return msh22(comment, SQ_NAMES, nodes, lines + [(2, 10, 1, t) for t in tri])


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    sq = "the unit square of 3x3 nodes, periodic in x and in y"
    two = {
        "periodic_22.msh": ([sq], LINKS),
        "periodic_counts_22.msh": ([sq + "; curve 1 has 4 nodes, curve 2 (its slave) 3"], LINKS),
        "periodic_self_22.msh": ([sq + "; node 6 paired with itself"],
                                 with_pairs((1, 2), [(3, 1), (6, 6), (9, 7)])),
        "periodic_cycle_22.msh": ([sq + "; curves 1 and 2 each the master of the other"],
                                  LINKS + [(1, 1, 2, [1, 0, 0, -1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
                                            [(1, 3), (4, 6), (7, 9)])]),
        "periodic_no_node_22.msh": ([sq + "; node 6 paired with node 99"],
                                    with_pairs((1, 2), [(3, 1), (6, 99), (9, 7)])),
    }
    four = {
        "periodic_41.msh": ([sq], LINKS),
        "periodic_41_noaffine.msh": ([sq + ", links without affine transforms"],
                                     [(d_, s, m, None, p) for d_, s, m, _, p in LINKS]),
        "periodic_unmatched_41.msh": ([sq + "; node 6 of curve 2 has no pair"],
                                      with_pairs((1, 2), [(3, 1), (9, 7)])),
        "periodic_far_41.msh": ([sq + "; node 6 paired with node 7, node 9 with node 4"],
                                with_pairs((1, 2), [(3, 1), (6, 7), (9, 4)])),
        "periodic_no_node_41.msh": ([sq + "; node 6 paired with node 99"],
                                    with_pairs((1, 2), [(3, 1), (6, 99), (9, 7)])),
    }
    for name, (comment, links) in two.items():
        mesh = counts if "counts" in name else sq22
        with open(os.path.join(d, name), "w") as f:
            f.write(mesh(comment + [GEN]) + periodic(links, True))
    for name, (comment, links) in four.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(msh41_square(comment + [GEN], []) + periodic(links, False))
    with open(os.path.join(d, "periodic_binary_22.msh"), "wb") as f:
        f.write(binary22([sq + ", binary", GEN], []) + periodic(LINKS, True).encode())


if __name__ == "__main__":
    main()
