#!/usr/bin/env python3
"""Writes the hand-made periodic meshes of tests/data/mesh (issue 14, item 3): the unit
square of 3x3 nodes and 8 triangles (make_mesh_semantics.py's), periodic in x (the right
side, curve 2, a copy of the left, curve 4, shifted by 1) and in y (the top, curve 3, a copy
of the bottom, curve 1):

  read                  periodic_22.msh (ASCII MSH 2.2, its $Periodic read by fesim),
                        periodic_41.msh (MSH 4.1, read by Gmsh), periodic_41_noaffine.msh
                        (links without an affine transform: their first pair's shift)
  refused               periodic_unmatched_41.msh (a node of curve 2 without a pair),
                        periodic_counts_22.msh (curve 4 has 4 nodes, curve 2 has 3),
                        periodic_self_22.msh (node 6 paired with itself),
                        periodic_cycle_22.msh (curves 2 and 4 each the master of the other),
                        periodic_far_41.msh (node 6 paired with node 7, 0.5 off the shift),
                        periodic_no_node_22.msh, periodic_no_node_41.msh (a pair with node
                        99, which the mesh lacks), periodic_binary_22.msh (binary MSH 2.2
                        with a $Periodic section), periodic_30.msh (MSH 3, written by Gmsh 4.8
                        from the square: not by this script)

Usage: make_periodic_meshes.py [DIR]"""
import os
import struct
import sys

GEN = "written by tests/data/mesh/make_periodic_meshes.py"

NODES = {1: (0, 0), 2: (0.5, 0), 3: (1, 0), 4: (0, 0.5), 5: (0.5, 0.5), 6: (1, 0.5),
         7: (0, 1), 8: (0.5, 1), 9: (1, 1)}
TRI = [(1, 2, 5), (1, 5, 4), (4, 5, 8), (4, 8, 7), (2, 6, 3), (2, 5, 6), (5, 8, 6), (6, 8, 9)]
# curves: bottom 1 (1 -> 3), right 2 (3 -> 9), top 3 (9 -> 7), left 4 (7 -> 1)
CURVES = {1: [(1, 2), (2, 3)], 2: [(3, 6), (6, 9)], 3: [(9, 8), (8, 7)], 4: [(7, 4), (4, 1)]}
NAMES = [(1, 1, "bottom"), (1, 2, "right"), (1, 3, "top"), (1, 4, "left"), (2, 10, "domain")]
SHIFT_X = [1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
SHIFT_Y = [1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1]
# (dim, slave, master, affine or None, [(slave node, master node)])
LINKS = [(1, 2, 4, SHIFT_X, [(3, 1), (6, 4), (9, 7)]),
         (1, 3, 1, SHIFT_Y, [(9, 3), (8, 2), (7, 1)])]


def num(x):
    return f"{x:.15g}"


def periodic22(links):
    out = ["$Periodic", str(len(links))]
    for dim, slave, master, affine, pairs in links:
        out.append(f"{dim} {slave} {master}")
        if affine:
            out.append("Affine " + " ".join(map(num, affine)))
        out += [str(len(pairs))] + [f"{s} {m}" for s, m in pairs]
    return out + ["$EndPeriodic"]


def msh22(comment, links=LINKS, nodes=NODES, tri=TRI, curves=CURVES):
    out = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$Comments", comment, GEN, "$EndComments",
           "$PhysicalNames", str(len(NAMES))]
    out += [f'{d} {t} "{n}"' for d, t, n in NAMES] + ["$EndPhysicalNames"]
    out += ["$Nodes", str(len(nodes))]
    out += [f"{t} {num(x)} {num(y)} 0" for t, (x, y) in nodes.items()] + ["$EndNodes"]
    elements = [(1, c, c, seg) for c, segs in curves.items() for seg in segs]
    elements += [(2, 10, 1, t) for t in tri]
    out += ["$Elements", str(len(elements))]
    out += [f"{e} {typ} 2 {p} {ent} {' '.join(map(str, vs))}"
            for e, (typ, p, ent, vs) in enumerate(elements, 1)]
    out += ["$EndElements"] + periodic22(links)
    return "\n".join(out) + "\n"


def msh41(comment, links=LINKS):
    """MSH 4.1: the corners on points 1 to 4, the side midpoints on the curves, node 5 on the
    surface; a $Periodic of curve links, each with its affine transform or none."""
    corners = {1: 1, 2: 3, 3: 9, 4: 7}  # point -> node
    bounds = {1: (1, 2), 2: (2, 3), 3: (3, 4), 4: (4, 1)}  # curve -> its points
    mids = {1: 2, 2: 6, 3: 8, 4: 4}
    out = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", "$Comments", comment, GEN, "$EndComments",
           "$PhysicalNames", str(len(NAMES))]
    out += [f'{d} {t} "{n}"' for d, t, n in NAMES] + ["$EndPhysicalNames", "$Entities", "4 4 1 0"]
    for p, n in corners.items():
        x, y = NODES[n]
        out.append(f"{p} {num(x)} {num(y)} 0 0")
    for c, (a, b) in bounds.items():
        xs = [NODES[corners[a]], NODES[corners[b]]]
        lo = [min(v[k] for v in xs) for k in (0, 1)]
        hi = [max(v[k] for v in xs) for k in (0, 1)]
        out.append(f"{c} {num(lo[0])} {num(lo[1])} 0 {num(hi[0])} {num(hi[1])} 0 1 {c} 2 {a} -{b}")
    out += ["1 0 0 0 1 1 0 1 10 4 1 2 3 4", "$EndEntities"]
    blocks = [(0, p, [n]) for p, n in corners.items()] + [(1, c, [n]) for c, n in mids.items()]
    blocks.append((2, 1, [5]))
    out += ["$Nodes", f"{len(blocks)} 9 1 9"]
    for dim, tag, nodes in blocks:
        out += [f"{dim} {tag} 0 {len(nodes)}"] + [str(n) for n in nodes]
        out += [f"{num(NODES[n][0])} {num(NODES[n][1])} 0" for n in nodes]
    out += ["$EndNodes", "$Elements", f"5 {8 + 8} 1 {8 + 8}"]
    e = 0
    for c, segs in CURVES.items():
        out.append(f"1 {c} 1 {len(segs)}")
        for a, b in segs:
            e += 1
            out.append(f"{e} {a} {b}")
    out.append(f"2 1 2 {len(TRI)}")
    for t in TRI:
        e += 1
        out.append(f"{e} {' '.join(map(str, t))}")
    out += ["$EndElements", "$Periodic", str(len(links))]
    for dim, slave, master, affine, pairs in links:
        out += [f"{dim} {slave} {master}", f"{len(affine)} " + " ".join(map(num, affine))
                if affine else "0", str(len(pairs))] + [f"{s} {m}" for s, m in pairs]
    out.append("$EndPeriodic")
    return "\n".join(out) + "\n"


def binary22(comment):
    """MSH 2.2 binary (file-type 1) of the square with its $Periodic section (ASCII, as Gmsh
    writes it in binary files)."""
    def section(name, body):
        return f"${name}\n".encode() + body + f"\n$End{name}\n".encode()
    head = section("MeshFormat", b"2.2 1 8\n" + struct.pack("<i", 1))
    comments = section("Comments", f"{comment}\n{GEN}".encode())
    body = f"{len(NODES)}\n".encode() + b"".join(
        struct.pack("<iddd", t, x, y, 0.0) for t, (x, y) in NODES.items())
    elements = [(1, c, c, seg) for c, segs in CURVES.items() for seg in segs]
    elements += [(2, 10, 1, t) for t in TRI]
    ebody = f"{len(elements)}\n".encode()
    for e, (typ, phys, ent, vs) in enumerate(elements, 1):
        ebody += struct.pack("<iii", typ, 1, 2) + struct.pack(f"<{3 + len(vs)}i", e, phys, ent, *vs)
    periodic = ("\n".join(periodic22(LINKS)) + "\n").encode()
    return head + comments + section("Nodes", body) + section("Elements", ebody) + periodic


def with_pairs(link, pairs):
    return [(d, s, m, a, pairs if (d, s) == link else p) for d, s, m, a, p in LINKS]


def counts():
    """Curve 4 (left) with a fourth node, 10 at (0, 0.25): the right side's 3 nodes all
    paired, the left side's 4."""
    nodes = {**NODES, 10: (0, 0.25)}
    tri = [t for t in TRI if t != (1, 5, 4)] + [(1, 5, 10), (10, 5, 4)]
    curves = {**CURVES, 4: [(7, 4), (4, 10), (10, 1)]}
    return msh22("curve 4 has 4 nodes, curve 2 (its slave) 3", nodes=nodes, tri=tri, curves=curves)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    sq = "the unit square of 3x3 nodes, periodic in x and in y"
    files = {
        "periodic_22.msh": msh22(sq),
        "periodic_41.msh": msh41(sq),
        "periodic_41_noaffine.msh": msh41(sq + ", links without affine transforms",
                                          [(d_, s, m, None, p) for d_, s, m, _, p in LINKS]),
        "periodic_unmatched_41.msh": msh41(sq + "; node 6 of curve 2 has no pair",
                                           with_pairs((1, 2), [(3, 1), (9, 7)])),
        "periodic_counts_22.msh": counts(),
        "periodic_self_22.msh": msh22(sq + "; node 6 paired with itself",
                                      with_pairs((1, 2), [(3, 1), (6, 6), (9, 7)])),
        "periodic_cycle_22.msh": msh22(sq + "; curves 2 and 4 each the master of the other",
                                       LINKS + [(1, 4, 2, [1, 0, 0, -1, 0, 1, 0, 0, 0, 0, 1, 0,
                                                           0, 0, 0, 1], [(1, 3), (4, 6), (7, 9)])]),
        "periodic_far_41.msh": msh41(sq + "; node 6 paired with node 7, node 9 with node 4",
                                     with_pairs((1, 2), [(3, 1), (6, 7), (9, 4)])),
        "periodic_no_node_22.msh": msh22(sq + "; node 6 paired with node 99",
                                         with_pairs((1, 2), [(3, 1), (6, 99), (9, 7)])),
        "periodic_no_node_41.msh": msh41(sq + "; node 6 paired with node 99",
                                         with_pairs((1, 2), [(3, 1), (6, 99), (9, 7)])),
    }
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    with open(os.path.join(d, "periodic_binary_22.msh"), "wb") as f:
        f.write(binary22(sq + ", binary"))


if __name__ == "__main__":
    main()
