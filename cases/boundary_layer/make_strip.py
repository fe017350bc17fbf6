#!/usr/bin/env python3
"""Write strip.msh: the strip [0, 1] x [0, 0.1] as 20 x 2 squares, each cut along its
falling diagonal into two right triangles whose first vertex is the right angle.

SUPG's tau (assembly/element.h, as Fluidity's Upwind_Stabilisation.F90) measures the cell
along the edges from its first vertex, so on these cells it is the 1D tau for a flow along x
and the steady boundary layer is nodally exact; Gmsh's transfinite meshes start cells at other
vertices.  Gmsh MSH 2.2 ASCII; physical groups inlet (x = 0), outlet (x = 1), bottom, top and
strip.  Run: python3 make_strip.py > strip.msh"""

NX, NY, LX, LY = 20, 2, 1.0, 0.1


def node(i, j):
    return 1 + j * (NX + 1) + i


def main():
    groups = [(1, 1, "inlet"), (1, 2, "outlet"), (1, 3, "bottom"), (1, 4, "top"), (2, 5, "strip")]
    out = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$PhysicalNames", str(len(groups))]
    out += [f'{d} {tag} "{name}"' for d, tag, name in groups]
    out += ["$EndPhysicalNames", "$Nodes", str((NX + 1) * (NY + 1))]
    for j in range(NY + 1):
        for i in range(NX + 1):
            out.append(f"{node(i, j)} {LX * i / NX!r} {LY * j / NY!r} 0")
    out.append("$EndNodes")
    lines = [(1, node(0, j + 1), node(0, j)) for j in range(NY)]
    lines += [(2, node(NX, j), node(NX, j + 1)) for j in range(NY)]
    lines += [(3, node(i, 0), node(i + 1, 0)) for i in range(NX)]
    lines += [(4, node(i + 1, NY), node(i, NY)) for i in range(NX)]
    tris = []
    for j in range(NY):
        for i in range(NX):
            a, b, c, d = node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)
            tris += [(a, b, d), (c, d, b)]  # right angle first, counter-clockwise
    out += ["$Elements", str(len(lines) + len(tris))]
    k = 0
    for tag, p, q in lines:
        k += 1
        out.append(f"{k} 1 2 {tag} {tag} {p} {q}")
    for t in tris:
        k += 1
        out.append(f"{k} 2 2 5 5 {t[0]} {t[1]} {t[2]}")
    out.append("$EndElements")
    print("\n".join(out))


if __name__ == "__main__":
    main()
