#!/usr/bin/env python3
"""Writes the hand-made meshes of tests/data/mesh for the mesh semantics that
fesim checks beyond single cells (issue 10, item 10):

  node tags given twice   dup_same_22.msh, dup_same_41.msh (at the same
                          coordinates: a warning), dup_diff_22.msh,
                          dup_diff_41.msh (elsewhere: an error),
                          dup_binary_22.msh (binary: cannot be compared)
  shared physical names   names_shared.msh ('wall' for curves 1 and 4),
                          names_shared_region.msh ('domain' for surfaces 10, 11)
  groups off the boundary internal.msh (curve 'cut' inside the square, curve
                          'stray' on no triangle's edge), internal_3d.msh
  separate pieces         pieces_overlap.msh, pieces_overlap_3d.msh (an
                          error), pieces_touch.msh, pieces_touch_3d.msh (a
                          warning), pieces_apart.msh, pieces_nested.msh,
                          pieces_vertex.msh (valid)

Usage: make_mesh_semantics.py [DIR]"""
import itertools
import os
import struct
import sys

GEN = "written by tests/data/mesh/make_mesh_semantics.py"

# ---- the unit square of make_fold_meshes.py: 3x3 nodes, 8 triangles ----------
SQ_NODES = {1: (0, 0), 2: (0.5, 0), 3: (1, 0), 4: (0, 0.5), 5: (0.5, 0.5), 6: (1, 0.5),
            7: (0, 1), 8: (0.5, 1), 9: (1, 1)}
SQ_TRI = [(1, 2, 5), (1, 5, 4), (4, 5, 8), (4, 8, 7), (2, 6, 3), (2, 5, 6), (5, 8, 6), (6, 8, 9)]
SQ_SIDES = {"left": [(7, 4), (4, 1)], "right": [(3, 6), (6, 9)], "bottom": [(1, 2), (2, 3)],
            "top": [(9, 8), (8, 7)]}


def num(x):
    return f"{x:.15g}"


def msh22(comment, names, nodes, elements):
    """names: [(dim, tag, name)]; nodes: [(tag, x, y, z)] as listed (repeats
    allowed); elements: [(type, phys, entity, node tags)]."""
    out = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$Comments", *comment, "$EndComments"]
    if names:
        out += ["$PhysicalNames", str(len(names))]
        out += [f'{d} {t} "{n}"' for d, t, n in names] + ["$EndPhysicalNames"]
    out += ["$Nodes", str(len(nodes))]
    out += [f"{t} {num(x)} {num(y)} {num(z)}" for t, x, y, z in nodes]
    out += ["$EndNodes", "$Elements", str(len(elements))]
    for e, (typ, phys, ent, vs) in enumerate(elements, 1):
        out.append(f"{e} {typ} 2 {phys} {ent} {' '.join(map(str, vs))}")
    out.append("$EndElements")
    return "\n".join(out) + "\n"


def square(dx=0.0, dy=0.0, first=0, surface=1, phys=10, sides=("left", "right", "bottom", "top")):
    """The square moved by (dx, dy), its node tags offset by `first`: nodes,
    triangles and side segments as elements of 2.2."""
    nodes = [(t + first, x + dx, y + dy, 0) for t, (x, y) in SQ_NODES.items()]
    lines = []
    for k, side in enumerate(("left", "right", "bottom", "top")):
        if side in sides:
            lines += [(1, k + 1, 100 * surface + k + 1, (a + first, b + first))
                      for a, b in SQ_SIDES[side]]
    tris = [(2, phys, surface, tuple(v + first for v in t)) for t in SQ_TRI]
    return nodes, lines, tris


SQ_NAMES = [(1, 1, "left"), (1, 2, "right"), (1, 3, "bottom"), (1, 4, "top"), (2, 10, "domain")]


def sq22(comment, nodes=None, names=SQ_NAMES, extra_lines=()):
    n, lines, tris = square()
    return msh22(comment, names, nodes or n, lines + list(extra_lines) + tris)


# ---- node tags given twice ----------------------------------------------------
def dup22(comment, copies):
    nodes = [(t, x, y, 0) for t, (x, y) in SQ_NODES.items()]
    return sq22(comment, nodes + [(t, x, y, 0) for t, x, y in copies])


def msh41_square(comment, copies):
    """The square in MSH 4.1, all nodes in a block of surface 1; each copy
    (tag, x, y) once more in a parametric block of curve 1 (x y z u)."""
    out = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", "$Comments", *comment, "$EndComments",
           "$PhysicalNames", str(len(SQ_NAMES))]
    out += [f'{d} {t} "{n}"' for d, t, n in SQ_NAMES] + ["$EndPhysicalNames"]
    out += ["$Entities", "0 4 1 0"]
    for k in range(4):
        out.append(f"{k + 1} 0 0 0 1 1 0 1 {k + 1} 0")
    out += ["1 0 0 0 1 1 0 1 10 0", "$EndEntities"]
    n = len(SQ_NODES) + len(copies)
    out += ["$Nodes", f"{2 if copies else 1} {n} 1 {len(SQ_NODES)}", f"2 1 0 {len(SQ_NODES)}"]
    out += [str(t) for t in SQ_NODES]
    out += [f"{num(x)} {num(y)} 0" for x, y in SQ_NODES.values()]
    if copies:
        out.append(f"1 1 1 {len(copies)}")
        out += [" ".join(str(t) for t, _, _ in copies)]  # tags on one line: any blank separates
        out += [f"{num(x)} {num(y)} 0 0.5" for _, x, y in copies]
    out += ["$EndNodes", "$Elements"]
    n_el = sum(len(s) for s in SQ_SIDES.values()) + len(SQ_TRI)
    out.append(f"5 {n_el} 1 {n_el}")
    e = 0
    for k, side in enumerate(("left", "right", "bottom", "top")):
        out.append(f"1 {k + 1} 1 {len(SQ_SIDES[side])}")
        for a, b in SQ_SIDES[side]:
            e += 1
            out.append(f"{e} {a} {b}")
    out.append(f"2 1 2 {len(SQ_TRI)}")
    for t in SQ_TRI:
        e += 1
        out.append(f"{e} {' '.join(map(str, t))}")
    out.append("$EndElements")
    return "\n".join(out) + "\n"


def binary22(comment, copies):
    """MSH 2.2 binary (file-type 1): the same square, copies appended."""
    def section(name, body):
        return f"${name}\n".encode() + body + f"\n$End{name}\n".encode()
    head = section("MeshFormat", b"2.2 1 8\n" + struct.pack("<i", 1))
    comments = section("Comments", "\n".join(comment).encode())
    names = section("PhysicalNames", (f"{len(SQ_NAMES)}\n" + "\n".join(
        f'{d} {t} "{n}"' for d, t, n in SQ_NAMES)).encode())
    nodes = [(t, x, y) for t, (x, y) in SQ_NODES.items()] + list(copies)
    body = f"{len(nodes)}\n".encode() + b"".join(
        struct.pack("<iddd", t, x, y, 0.0) for t, x, y in nodes)
    elements = []
    for k, side in enumerate(("left", "right", "bottom", "top")):
        elements += [(1, k + 1, k + 1, (a, b)) for a, b in SQ_SIDES[side]]
    elements += [(2, 10, 1, t) for t in SQ_TRI]
    ebody = f"{len(elements)}\n".encode()
    for e, (typ, phys, ent, vs) in enumerate(elements, 1):
        ebody += struct.pack("<iii", typ, 1, 2) + struct.pack(f"<{3 + len(vs)}i", e, phys, ent, *vs)
    return head + comments + names + section("Nodes", body) + section("Elements", ebody)


# ---- physical names --------------------------------------------------------------
def names_shared(comment):
    names = [(1, 1, "wall"), (1, 2, "right"), (1, 3, "bottom"), (1, 4, "wall"), (2, 10, "domain")]
    return sq22(comment, names=names)


def names_shared_region(comment):
    nodes, lines, tris = square()
    tris = [(2, 10 if k < 4 else 11, 1 if k < 4 else 2, t[3]) for k, t in enumerate(tris)]
    names = SQ_NAMES + [(2, 11, "domain")]
    return msh22(comment, names, nodes, lines + tris)


# ---- groups off the boundary --------------------------------------------------------
def internal(comment):
    names = SQ_NAMES + [(1, 5, "cut"), (1, 6, "stray")]
    cut = [(1, 5, 5, (2, 5)), (1, 5, 5, (5, 8))]  # x = 0.5: between surfaces' triangles
    stray = [(1, 6, 6, (2, 4))]  # (0.5, 0)-(0, 0.5): crosses triangle 1-2-5 / 1-5-4's diagonal
    return sq22(comment, names=names, extra_lines=cut + stray)


def corner(i, j, k):
    return 1 + i + 2 * j + 4 * k


def kuhn(first=0, shift=(0, 0, 0)):
    nodes = {corner(i, j, k) + first: (i + shift[0], j + shift[1], k + shift[2])
             for k in (0, 1) for j in (0, 1) for i in (0, 1)}
    tets = []
    for perm in itertools.permutations(range(3)):
        p = [0, 0, 0]
        path = [corner(*p) + first]
        for a in perm:
            p[a] = 1
            path.append(corner(*p) + first)
        tets.append(tuple(path))
    return nodes, tets


def internal_3d(comment):
    nodes, tets = kuhn()
    # a face shared by two tetrahedra (the diagonal 1-8 with corner 2 and 4)
    # and a triangle that no tetrahedron has (3 corners of the bottom face and 8)
    inside = (1, 2, 8)
    stray = (2, 3, 8)
    shared = sum(1 for t in tets if set(inside) <= set(t))
    assert shared == 2 and not any(set(stray) <= set(t) for t in tets)
    names = [(2, 1, "inside"), (2, 2, "stray"), (3, 10, "body")]
    elements = [(2, 1, 1, inside), (2, 2, 2, stray)] + [(4, 10, 1, t) for t in tets]
    return msh22(comment, names, [(t, *x) for t, x in nodes.items()], elements)


# ---- pieces ------------------------------------------------------------------------------
def two_squares(comment, dx, dy):
    n1, l1, t1 = square(sides=("left",))
    n2, _, t2 = square(dx, dy, first=100, surface=2)
    return msh22(comment, [(1, 1, "left"), (2, 10, "domain")], n1 + n2, l1 + t1 + t2)


def nested(comment):
    """A frame [0, 3]^2 minus [1, 2]^2 (16 triangles) and the square
    [1.25, 1.75]^2 in its hole (2 triangles)."""
    tag = lambda i, j: 1 + i + 4 * j
    nodes = [(tag(i, j), i, j, 0) for j in range(4) for i in range(4)]
    tris = []
    for j in range(3):
        for i in range(3):
            if (i, j) == (1, 1):
                continue
            a, b, c, d = tag(i, j), tag(i + 1, j), tag(i + 1, j + 1), tag(i, j + 1)
            tris += [(2, 10, 1, (a, b, c)), (2, 10, 1, (a, c, d))]
    inner = [(101, 1.25, 1.25, 0), (102, 1.75, 1.25, 0), (103, 1.75, 1.75, 0), (104, 1.25, 1.75, 0)]
    tris += [(2, 10, 2, (101, 102, 103)), (2, 10, 2, (101, 103, 104))]
    left = [(1, 1, 1, (tag(0, j + 1), tag(0, j))) for j in range(3)]
    return msh22(comment, [(1, 1, "left"), (2, 10, "domain")], nodes + inner, left + tris)


def vertex(comment):
    """Two squares that share their corner node 9 only."""
    n1, l1, t1 = square(sides=("left",))
    n2, _, t2 = square(1, 1, first=100, surface=2)
    n2 = [n for n in n2 if n[0] != 101]
    t2 = [(e[0], e[1], e[2], tuple(9 if v == 101 else v for v in e[3])) for e in t2]
    return msh22(comment, [(1, 1, "left"), (2, 10, "domain")], n1 + n2, l1 + t1 + t2)


def two_cubes(comment, shift):
    n1, c1 = kuhn()
    n2, c2 = kuhn(100, shift)
    faces = [f for t in c1 for f in itertools.combinations(t, 3)
             if all(n1[v][0] == 0 for v in f)]
    names = [(2, 1, "xmin"), (3, 10, "body")]
    elements = [(2, 1, 1, f) for f in faces]
    elements += [(4, 10, 1, t) for t in c1] + [(4, 10, 2, t) for t in c2]
    nodes = [(t, *x) for t, x in {**n1, **n2}.items()]
    return msh22(comment, names, nodes, elements)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    sq = "The unit square in 8 triangles (as grid8.msh)"
    files = {
        "dup_same_22.msh": dup22([f"{sq} ({GEN}):", "nodes 5 and 9 listed twice, at the same coordinates."],
                                 [(5, 0.5, 0.5), (9, 1, 1)]),
        "dup_diff_22.msh": dup22([f"{sq} ({GEN}):", "node 9 listed twice at (1, 1), node 5 at",
                                  "(0.5, 0.5) and again at (0.7, 0.5)."],
                                 [(9, 1, 1), (5, 0.7, 0.5)]),
        "dup_same_41.msh": msh41_square([f"{sq} ({GEN}):", "node 5 once more, at the same",
                                         "coordinates, in a parametric block of curve 1."],
                                        [(5, 0.5, 0.5)]),
        "dup_diff_41.msh": msh41_square([f"{sq} ({GEN}):", "node 5 once more at (0.5, 0.5000001),",
                                         "in a parametric block of curve 1."],
                                        [(5, 0.5, 0.5000001)]),
        "names_shared.msh": names_shared([f"{sq} ({GEN}):", "the physical name 'wall' given to curves 1 and 4."]),
        "names_shared_region.msh": names_shared_region(
            [f"{sq} ({GEN}):", "the physical name 'domain' given to surfaces 10 and 11."]),
        "internal.msh": internal([f"{sq} ({GEN}):", "curve 'cut' (5) on x = 0.5 inside the square,",
                                  "curve 'stray' (6) from (0.5, 0) to (0, 0.5), no triangle's edge."]),
        "internal_3d.msh": internal_3d([f"The unit cube in 6 tetrahedra ({GEN}):",
                                        "surface 'inside' (1) a face shared by two tetrahedra,",
                                        "surface 'stray' (2) a triangle of no tetrahedron."]),
        "pieces_overlap.msh": two_squares([f"Two unit squares ({GEN}):", "the second moved by (0.5, 0.25): they overlap."], 0.5, 0.25),
        "pieces_touch.msh": two_squares([f"Two unit squares ({GEN}):", "the second moved by (1, 0): they touch along",
                                         "x = 1 on nodes of their own."], 1, 0),
        "pieces_apart.msh": two_squares([f"Two unit squares ({GEN}):", "the second moved by (2, 0): apart."], 2, 0),
        "pieces_nested.msh": nested([f"A square frame and a square in its hole, apart ({GEN})."]),
        "pieces_vertex.msh": vertex([f"Two unit squares sharing one corner node ({GEN})."]),
        "pieces_overlap_3d.msh": two_cubes([f"Two unit cubes in 6 tetrahedra each ({GEN}):",
                                            "the second moved by (0.5, 0.5, 0.5): they overlap."], (0.5, 0.5, 0.5)),
        "pieces_touch_3d.msh": two_cubes([f"Two unit cubes in 6 tetrahedra each ({GEN}):",
                                          "the second moved by (1, 0, 0): they touch on x = 1."], (1, 0, 0)),
    }
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    with open(os.path.join(d, "dup_binary_22.msh"), "wb") as f:
        f.write(binary22([f"{sq}, binary ({GEN}):", "node 5 listed twice, at the same coordinates."],
                         [(5, 0.5, 0.5)]))


main()
