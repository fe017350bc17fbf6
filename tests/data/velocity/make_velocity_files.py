#!/usr/bin/env python3
"""Writes the velocity files of the bad-input tests (tests/bad_input/velocity_*.xml) and the
fuzzer's seeds (fuzz_snapshot), on the mesh tests/data/mesh/grid8.msh (9 nodes, tags 1 to 9 on
a 3 x 3 grid of the unit square): the velocity u = (1 + 2x - y, 0.5 + x y), good files of each
format and files with one fault each.  Run it here: python3 make_velocity_files.py.
square.msh, beside them, is cases/offline_tracer/square.geo meshed by Gmsh 4.8
(gmsh -2 -format msh41 -clmax 0.08), the mesh of run_case.py's formats check, whose
$NodeData files need the node tags of a .msh."""
import base64
import math
import struct
import zlib

NODES = [(0, 0), (0.5, 0), (1, 0), (0, 0.5), (0.5, 0.5), (1, 0.5), (0, 1), (0.5, 1), (1, 1)]
TRIANGLES = [(1, 2, 5), (1, 5, 4), (4, 5, 8), (4, 8, 7), (2, 6, 3), (2, 5, 6), (5, 8, 6), (6, 8, 9)]


def u(x, y):
    return (1 + 2 * x - y, 0.5 + x * y)


def values(comps=2, w=0.0, poison=False):
    out = []
    for x, y in NODES:
        out += list(u(x, y))[:comps] + ([w] if comps == 3 else [])
    if poison:
        out[0] = math.nan
    return out


def points(move=0.0):
    out = []
    for i, (x, y) in enumerate(NODES):
        out += [x + (move if i == 1 else 0.0), y, 0.0]
    return out


def ascii_array(name, comps, xs):
    head = f'<DataArray type="Float64"{f" Name={chr(34)}{name}{chr(34)}" if name else ""} NumberOfComponents="{comps}" format="ascii">'
    return head + "\n" + " ".join(repr(float(x)) for x in xs) + "\n</DataArray>\n"


def binary_array(name, comps, xs, compressed=False):
    raw = struct.pack("<%dd" % len(xs), *xs)
    if compressed:
        z = zlib.compress(raw)
        data = base64.b64encode(struct.pack("<4I", 1, len(raw), len(raw), len(z))) + base64.b64encode(z)
    else:
        data = base64.b64encode(struct.pack("<I", len(raw))) + base64.b64encode(raw)
    return (f'<DataArray type="Float64" Name="{name}" NumberOfComponents="{comps}" format="binary">\n'
            + data.decode() + "\n</DataArray>\n")


def vtu(path, field_array, points_array, extra=""):
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<VTKFile type="UnstructuredGrid" version="1.0" '
                f'byte_order="LittleEndian" header_type="UInt32"{extra}>\n<UnstructuredGrid>\n'
                f'<Piece NumberOfPoints="{len(points_array) // 3}" NumberOfCells="0">\n'
                "<PointData>\n" + field_array + "</PointData>\n<Points>\n"
                + ascii_array(None, 3, points_array) + "</Points>\n</Piece>\n</UnstructuredGrid>\n"
                "</VTKFile>\n")


def legacy(path, xs):
    with open(path, "w") as f:
        f.write("# vtk DataFile Version 4.2\nvelocity\nASCII\nDATASET UNSTRUCTURED_GRID\n")
        f.write("POINTS 9 double\n" + "\n".join("%r %r 0" % (float(x), float(y)) for x, y in NODES))
        f.write("\nCELLS 8 32\n" + "\n".join("3 %d %d %d" % tuple(v - 1 for v in t) for t in TRIANGLES))
        f.write("\nCELL_TYPES 8\n" + "5\n" * 8)
        f.write("POINT_DATA 9\nVECTORS velocity double\n")
        f.write("\n".join("%r %r 0" % (xs[2 * i], xs[2 * i + 1]) for i in range(9)) + "\n")


def nodedata(path, version, with_nodes, skip=None):
    with open(path, "w") as f:
        f.write(f"$MeshFormat\n{version} 0 8\n$EndMeshFormat\n")
        if with_nodes:
            f.write("$Nodes\n1 9 1 9\n2 1 0 9\n" + "".join(f"{t}\n" for t in range(1, 10)))
            f.write("".join(f"{x!r} {y!r} 0\n" for x, y in NODES) + "$EndNodes\n")
        rows = [(t, NODES[t - 1]) for t in range(1, 10) if t != skip]
        f.write(f'$NodeData\n1\n"velocity"\n1\n0\n3\n0\n3\n{len(rows)}\n')
        f.write("".join("%d %r %r 0\n" % ((t,) + u(x, y)) for t, (x, y) in rows) + "$EndNodeData\n")


vtu("grid8.vtu", ascii_array("velocity", 2, values()), points())
vtu("grid8_binary.vtu", binary_array("velocity", 2, values()), points())
vtu("grid8_zlib.vtu", binary_array("velocity", 2, values(), True), points(),
    ' compressor="vtkZLibDataCompressor"')
vtu("grid8_moved.vtu", ascii_array("velocity", 2, values()), points(move=0.05))
vtu("grid8_scalar.vtu", ascii_array("velocity", 1, [1.0] * 9), points())
vtu("grid8_w.vtu", ascii_array("velocity", 3, values(3, w=0.2)), points())
vtu("grid8_nan.vtu", ascii_array("velocity", 2, values(poison=True)), points())
# format binary with no data at all (fuzz.snapshot found it: a null pointer offset)
vtu("grid8_empty_binary.vtu",
    '<DataArray type="Float64" Name="velocity" NumberOfComponents="2" format="binary"></DataArray>\n',
    points())
vtu("grid8_lz4.vtu", binary_array("velocity", 2, values()), points(),
    ' compressor="vtkLZ4DataCompressor"')
legacy("grid8.vtk", values())
nodedata("grid8_41.msh", "4.1", True)
nodedata("grid8_22.msh", "2.2", False)
nodedata("grid8_missing.msh", "2.2", False, skip=5)
with open("grid8.vtk.series", "w") as f:
    f.write('{\n  "file-series-version": "1.0",\n  "files": [\n'
            '    { "name": "grid8.vtk", "time": 0 },\n    { "name": "grid8.vtu", "time": 0.5 },\n'
            '    { "name": "grid8_41.msh", "time": 1 }\n  ]\n}\n')
with open("grid8.pvd", "w") as f:
    f.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1">\n<Collection>\n'
            '<DataSet timestep="0" file="grid8_binary.vtu"/>\n<DataSet timestep="1" file="grid8_zlib.vtu"/>\n'
            "</Collection>\n</VTKFile>\n")
with open("bad.vtk.series", "w") as f:
    f.write('{ "files": [ { "name": "grid8.vtk", "time": 0 }, { "name": "grid8.vtu" } ] }\n')
with open("backwards.vtk.series", "w") as f:
    f.write('{ "files": [ { "name": "grid8.vtk", "time": 1 }, { "name": "grid8.vtu", "time": 0.5 } ] }\n')
