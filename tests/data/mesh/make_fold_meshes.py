#!/usr/bin/env python3
"""Writes the hand-made meshes of tests/data/mesh for inverted (folded) cells:
grid8.msh (valid) and fold.msh, fold2.msh, overlap.msh (MSH 4.1, 2D), kuhn.msh
(valid) and fold_3d.msh (MSH 2.2, 3D).  Usage: make_fold_meshes.py [DIR]"""
import itertools
import os
import sys

# ---- 2D: the unit square, 3x3 nodes, 8 triangles in two surfaces ----------
# Surface 1 is the left column (x <= 0.5), its triangles counter-clockwise;
# surface 2 is the right column, its triangles clockwise, as Gmsh writes a
# surface whose curve loop is reversed.  Vertex order alone means nothing.
NODES2 = {1: (0, 0), 2: (0.5, 0), 3: (1, 0), 4: (0, 0.5), 5: (0.5, 0.5), 6: (1, 0.5),
          7: (0, 1), 8: (0.5, 1), 9: (1, 1)}
TRI = {1: [(11, (1, 2, 5)), (12, (1, 5, 4)), (13, (4, 5, 8)), (14, (4, 8, 7))],
       2: [(15, (2, 6, 3)), (16, (2, 5, 6)), (17, (5, 8, 6)), (18, (6, 8, 9))]}
# curve tag: (physical tag, name, segments as (element tag, nodes))
CURVES = {1: (3, "bottom", [(1, (1, 2)), (2, (2, 3))]),
          2: (2, "right", [(3, (3, 6)), (4, (6, 9))]),
          3: (4, "top", [(5, (9, 8)), (6, (8, 7))]),
          4: (1, "left", [(7, (7, 4)), (8, (4, 1))])}


def msh41(nodes, comment, extra=()):
    out = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", "$Comments", *comment, "$EndComments",
           "$PhysicalNames", "5"]
    for c in sorted(CURVES.values()):
        out.append(f'1 {c[0]} "{c[1]}"')
    out += ['2 10 "domain"', "$EndPhysicalNames", "$Entities", "0 4 2 0"]
    for tag, (phys, _, segs) in CURVES.items():
        xs = [nodes[n][0] for s in segs for n in s[1]]
        ys = [nodes[n][1] for s in segs for n in s[1]]
        out.append(f"{tag} {min(xs)} {min(ys)} 0 {max(xs)} {max(ys)} 0 1 {phys} 0")
    out.append("1 0 0 0 0.5 1 0 1 10 0")
    out.append("2 0.5 0 0 1 1 0 1 10 0")
    out += ["$EndEntities", "$Nodes", f"1 {len(nodes)} 1 {len(nodes)}", f"2 1 0 {len(nodes)}"]
    out += [str(n) for n in nodes]
    out += [f"{x:.15g} {y:.15g} 0" for x, y in nodes.values()]
    out += ["$EndNodes", "$Elements"]
    tri = {1: TRI[1], 2: TRI[2] + list(extra)}
    n_el = sum(len(c[2]) for c in CURVES.values()) + sum(len(t) for t in tri.values())
    out.append(f"{len(CURVES) + len(tri)} {n_el} 1 {max(e for t in tri.values() for e, _ in t)}")
    for tag, (_, _, segs) in CURVES.items():
        out.append(f"1 {tag} 1 {len(segs)}")
        out += [f"{e} {a} {b}" for e, (a, b) in segs]
    for tag, tris in tri.items():
        out.append(f"2 {tag} 2 {len(tris)}")
        out += [f"{e} {a} {b} {c}" for e, (a, b, c) in tris]
    out.append("$EndElements")
    return "\n".join(out) + "\n"


# ---- 3D: the unit cube in 6 tetrahedra (Kuhn), 12 boundary triangles ---------
def corner(i, j, k):
    return 1 + i + 2 * j + 4 * k


NODES3 = {corner(i, j, k): (i, j, k) for k in (0, 1) for j in (0, 1) for i in (0, 1)}


def kuhn():
    tets = []
    for perm in itertools.permutations(range(3)):
        p = [0, 0, 0]
        path = [corner(*p)]
        for a in perm:
            p[a] = 1
            path.append(corner(*p))
        if len(tets) % 2:  # every second one written negatively oriented
            path[2], path[3] = path[3], path[2]
        tets.append(tuple(path))
    return tets


def boundary(nodes, tets):
    """Faces of the tetrahedra on x_a = s (in the unmoved cube), by physical tag."""
    faces = []
    for t in tets:
        for f in itertools.combinations(t, 3):
            for a in range(3):
                for s in (0, 1):
                    if all(NODES3[n][a] == s for n in f):
                        faces.append((1 + 2 * a + s, f))
    return sorted(faces)


def msh22(nodes, comment):
    tets = kuhn()
    faces = boundary(nodes, tets)
    names = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"]
    out = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$Comments", *comment, "$EndComments",
           "$PhysicalNames", "7"]
    out += [f'2 {i + 1} "{n}"' for i, n in enumerate(names)] + ['3 10 "body"', "$EndPhysicalNames"]
    out += ["$Nodes", str(len(nodes))]
    out += [f"{n} {x:.15g} {y:.15g} {z:.15g}" for n, (x, y, z) in nodes.items()]
    out += ["$EndNodes", "$Elements", str(len(faces) + len(tets))]
    e = 0
    for phys, f in faces:
        e += 1
        out.append(f"{e} 2 2 {phys} {phys} {' '.join(map(str, f))}")
    for t in tets:
        e += 1
        out.append(f"{e} 4 2 10 1 {' '.join(map(str, t))}")
    out.append("$EndElements")
    return "\n".join(out) + "\n"


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    gen = "written by tests/data/mesh/make_fold_meshes.py"
    files = {
        "grid8.msh": msh41(NODES2, [f"Unit square, 8 triangles in 2 surfaces ({gen}):",
                                    "surface 2 clockwise, a valid mesh."]),
        "fold.msh": msh41({**NODES2, 9: (0.6, 0.6)},
                          [f"grid8.msh with node 9 moved from (1, 1) to (0.6, 0.6) ({gen}):",
                           "triangle 18 is inverted: it folds over triangle 17."]),
        "fold2.msh": msh41({**NODES2, 5: (1.3, 0.5)},
                           [f"grid8.msh with node 5 moved from (0.5, 0.5) to (1.3, 0.5) ({gen}):",
                            "triangles 16 and 17 are inverted."]),
        "overlap.msh": msh41(NODES2, [f"grid8.msh with triangle 18 twice, as 18 and 19 ({gen})."],
                             [(19, (6, 8, 9))]),
        "kuhn.msh": msh22(NODES3, [f"Unit cube in 6 tetrahedra, every second negatively", f"oriented ({gen}): a valid mesh."]),
        "fold_3d.msh": msh22({**NODES3, 2: (0.2, 0.5, 0)},
                             [f"kuhn.msh with node 2 moved from (1, 0, 0) to (0.2, 0.5, 0)",
                              f"({gen}): tetrahedron 13 is inverted."]),
    }
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)


main()
