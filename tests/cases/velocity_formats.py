"""The velocity of a fesim series written again in every format fesim reads, for
run_case.py's formats check: VTK XML in each of its encodings, legacy ASCII and binary
VTK (versions 4.2 and 5.1), Gmsh $NodeData (MSH 2.2 and 4.1, when the mesh is a .msh
whose node tags they need) and a .pvd collection, written here with the standard
library only; and, where Debian's VTK modules are (python3-paraview), by VTK's own
writers.  The points are written in the dump's order or reversed: fesim matches them
to its nodes by their coordinates."""
import base64
import json
import os
import struct
import xml.etree.ElementTree as ET
import zlib

from run_case import read_vtk_mesh


def read_vtk_vectors(path, name):
    """The 3-component point array `name` (VECTORS double) of a binary legacy VTK file
    written by fesim."""
    with open(path, "rb") as f:
        data = f.read()
    at = data.index(b"VECTORS " + name.encode() + b" double\n") + len(b"VECTORS  double\n") + len(name)
    count = int(data[data.index(b"POINT_DATA ") + 11:].split(b"\n", 1)[0])
    flat = struct.unpack(">%dd" % (3 * count), data[at:at + 24 * count])
    return [flat[3 * i:3 * i + 3] for i in range(count)]


def read_series(path):
    """[(time, dump)] of a .vtk.series."""
    with open(path) as f:
        files = json.load(f)["files"]
    folder = os.path.dirname(path)
    return [(float(e["time"]), os.path.join(folder, e["name"])) for e in files]


# ---------------------------------------------------------------- VTK XML


def array_bytes(values, style):
    """Header and data of a DataArray of doubles as the style stores them."""
    order = ">" if style.get("big") else "<"
    h = "Q" if style.get("uint64") else "I"
    raw = struct.pack(order + "%dd" % len(values), *values)
    if not style.get("zlib"):
        return struct.pack(order + h, len(raw)), raw
    block = 256
    parts = [zlib.compress(raw[i:i + block]) for i in range(0, len(raw), block)]
    header = struct.pack(order + h * (3 + len(parts)), len(parts), block, len(raw) % block,
                         *[len(p) for p in parts])
    return header, b"".join(parts)


def encoded(header, data, style):
    if style.get("together"):
        return base64.b64encode(header + data).decode()
    return base64.b64encode(header).decode() + base64.b64encode(data).decode()


def write_vtu(path, points, cells, velocity, style):
    order = list(range(len(points)))[::-1] if style.get("reversed") else list(range(len(points)))
    where = {p: i for i, p in enumerate(order)}
    appended = []
    offset = [0]

    def array(name, comps, values, kind="Float64"):
        attrs = f'type="{kind}"' + (f' Name="{name}"' if name else "") + f' NumberOfComponents="{comps}"'
        fmt = style["format"]
        if fmt == "ascii" or kind != "Float64":
            return f'<DataArray {attrs} format="ascii">\n' + " ".join(repr(v) for v in values) + "\n</DataArray>\n"
        header, data = array_bytes(values, style)
        if fmt == "binary":
            return f'<DataArray {attrs} format="binary">\n{encoded(header, data, style)}\n</DataArray>\n'
        chunk = encoded(header, data, style).encode() if style.get("base64_appended") else header + data
        appended.append(chunk)
        element = f'<DataArray {attrs} format="appended" offset="{offset[0]}"/>\n'
        offset[0] += len(chunk)
        return element

    pts = [c for i in order for c in points[i]]
    vel = [c for i in order for c in velocity[i]]
    conn = [where[v] for c in cells for v in c]
    offsets = [len(cells[0]) * (k + 1) for k in range(len(cells))]
    kind = 5 if len(cells[0]) == 3 else 10
    text = ('<?xml version="1.0"?>\n<VTKFile type="UnstructuredGrid" version="1.0" byte_order="%s" '
            'header_type="%s"%s>\n<UnstructuredGrid>\n<Piece NumberOfPoints="%d" NumberOfCells="%d">\n'
            % ("BigEndian" if style.get("big") else "LittleEndian", "UInt64" if style.get("uint64") else "UInt32",
               ' compressor="vtkZLibDataCompressor"' if style.get("zlib") else "", len(points), len(cells)))
    text += '<PointData Vectors="velocity">\n' + array("velocity", 3, vel) + "</PointData>\n"
    text += "<Points>\n" + array(None, 3, pts) + "</Points>\n<Cells>\n"
    text += array("connectivity", 1, conn, "Int32") + array("offsets", 1, offsets, "Int32")
    text += array("types", 1, [kind] * len(cells), "UInt8") + "</Cells>\n</Piece>\n</UnstructuredGrid>\n"
    with open(path, "wb") as f:
        f.write(text.encode())
        if appended:
            f.write(b'<AppendedData encoding="%s">\n   _' % (b"base64" if style.get("base64_appended") else b"raw"))
            f.write(b"".join(appended) + b"\n</AppendedData>\n")
        f.write(b"</VTKFile>\n")


VTU_STYLES = {
    "vtu_ascii_reversed": {"format": "ascii", "reversed": True},
    "vtu_base64": {"format": "binary"},
    "vtu_base64_uint64_together_big": {"format": "binary", "uint64": True, "together": True, "big": True},
    "vtu_appended_raw": {"format": "appended"},
    "vtu_appended_base64_reversed": {"format": "appended", "base64_appended": True, "reversed": True},
    "vtu_zlib": {"format": "binary", "zlib": True},
    "vtu_zlib_appended_raw_uint64": {"format": "appended", "zlib": True, "uint64": True},
    "vtu_zlib_appended_base64_big": {"format": "appended", "zlib": True, "base64_appended": True, "big": True},
}


# ---------------------------------------------------------------- legacy VTK


def write_legacy(path, points, cells, velocity, version, binary, reversed_order):
    order = list(range(len(points)))[::-1] if reversed_order else list(range(len(points)))
    where = {p: i for i, p in enumerate(order)}
    out = [b"# vtk DataFile Version %s\nsnapshot\n%s\nDATASET UNSTRUCTURED_GRID\n"
           % (version.encode(), b"BINARY" if binary else b"ASCII")]

    def values(vals, fmt):
        if binary:
            return struct.pack(">%d%s" % (len(vals), fmt), *vals) + b"\n"
        return (" ".join(repr(v) for v in vals) + "\n").encode()

    out.append(b"POINTS %d double\n" % len(points) + values([c for i in order for c in points[i]], "d"))
    conn = [where[v] for c in cells for v in c]
    if version == "5.1":
        out.append(b"CELLS %d %d\nOFFSETS vtktypeint64\n" % (len(cells) + 1, len(conn))
                   + values([len(cells[0]) * k for k in range(len(cells) + 1)], "q")
                   + b"CONNECTIVITY vtktypeint64\n" + values(conn, "q"))
    else:
        flat = [v for c in cells for v in (len(c),) + tuple(where[x] for x in c)]
        out.append(b"CELLS %d %d\n" % (len(cells), len(flat)) + values(flat, "i"))
    out.append(b"CELL_TYPES %d\n" % len(cells) + values([5 if len(cells[0]) == 3 else 10] * len(cells), "i"))
    out.append(b"POINT_DATA %d\nFIELD FieldData 1\nvelocity 3 %d double\n" % (len(points), len(points))
               + values([c for i in order for c in velocity[i]], "d"))
    with open(path, "wb") as f:
        f.write(b"".join(out))


# ---------------------------------------------------------------- Gmsh $NodeData


def msh_nodes(path):
    """{(x, y, z): tag} of an ASCII MSH 4.1 file's $Nodes."""
    with open(path) as f:
        lines = f.read().split("\n")
    i = lines.index("$Nodes") + 1
    blocks = int(lines[i].split()[0])
    i += 1
    nodes = {}
    for _ in range(blocks):
        dim, _, parametric, count = map(int, lines[i].split())
        tags = [int(t) for t in lines[i + 1:i + 1 + count]]
        for k, tag in enumerate(tags):
            xyz = tuple(float(v) for v in lines[i + 1 + count + k].split()[:3])
            nodes[xyz] = tag
        i += 1 + 2 * count
    return nodes


def write_msh(path, points, velocity, tags, version, with_nodes):
    with open(path, "w") as f:
        f.write("$MeshFormat\n%s 0 8\n$EndMeshFormat\n" % version)
        if with_nodes:
            f.write("$Nodes\n1 %d 1 %d\n2 1 0 %d\n" % (len(points), max(tags), len(points)))
            f.write("".join("%d\n" % t for t in tags))
            f.write("".join("%r %r %r\n" % tuple(p) for p in points) + "$EndNodes\n")
        f.write('$NodeData\n1\n"velocity"\n1\n0\n3\n0\n3\n%d\n' % len(points))
        f.write("".join("%d %r %r %r\n" % ((t,) + tuple(v)) for t, v in zip(tags, velocity)))
        f.write("$EndNodeData\n")


# ---------------------------------------------------------------- VTK's own writers


def vtk_writers():
    """(tag, write(dump, path)[, precision]) for VTK's writers, or none without Debian's VTK
    modules."""
    try:
        from vtkmodules.vtkIOLegacy import vtkUnstructuredGridReader, vtkUnstructuredGridWriter
        from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridWriter
    except ImportError:
        return []

    def converter(make_writer):
        """write(dump, path): the dump read by VTK's legacy reader, written by make_writer()'s."""
        def write(dump, path):
            reader = vtkUnstructuredGridReader()
            reader.SetFileName(dump)
            reader.Update()
            w = make_writer()
            w.SetInputData(reader.GetOutput())
            w.SetFileName(path)
            if not w.Write():
                raise RuntimeError(f"VTK could not write {path}")
        return write

    def xml(mode, compressor, header64, encode):
        def make():
            w = vtkXMLUnstructuredGridWriter()
            getattr(w, "SetDataModeTo" + mode)()
            w.SetEncodeAppendedData(encode)
            (w.SetCompressorTypeToZLib if compressor else w.SetCompressorTypeToNone)()
            if header64:
                w.SetHeaderTypeToUInt64()
            return w
        return converter(make)

    def legacy(binary):
        def make():
            w = vtkUnstructuredGridWriter()
            (w.SetFileTypeToBinary if binary else w.SetFileTypeToASCII)()
            return w
        return converter(make)

    # (tag, write, the relative precision of the file's numbers: None for all 17 digits; VTK's
    # legacy ASCII writer prints doubles with 11 significant digits)
    return [("vtk_xml_ascii.vtu", xml("Ascii", False, False, False)),
            ("vtk_xml_binary.vtu", xml("Binary", False, False, False)),
            ("vtk_xml_binary_zlib_uint64.vtu", xml("Binary", True, True, False)),
            ("vtk_xml_appended_raw_zlib.vtu", xml("Appended", True, False, False)),
            ("vtk_xml_appended_raw.vtu", xml("Appended", False, True, False)),
            ("vtk_xml_appended_base64_zlib.vtu", xml("Appended", True, False, True)),
            ("vtk_legacy_ascii.vtk", legacy(False), 1e-10),
            ("vtk_legacy_binary.vtk", legacy(True))]


# ---------------------------------------------------------------- the variants


def write_all(series, outdir, mesh=None):
    """(tag, files, precision) for each variant: files a list of (time, path), or the path of a
    .pvd; precision the relative precision of its numbers when it is not every digit (or
    None)."""
    os.makedirs(outdir, exist_ok=True)
    dumps = read_series(series)
    data = []
    for t, dump in dumps:
        points, cells = read_vtk_mesh(dump)
        data.append((t, dump, points, cells, read_vtk_vectors(dump, "velocity")))
    variants, precision = {}, {}

    def add(tag, ext, write, digits=None):
        precision[tag] = digits
        files = []
        for k, (t, dump, points, cells, velocity) in enumerate(data):
            path = os.path.join(outdir, f"{tag}_{k:03d}{ext}")
            write(path, dump, points, cells, velocity)
            files.append((t, path))
        variants[tag] = files

    for tag, style in VTU_STYLES.items():
        add(tag, ".vtu", lambda p, d, pts, c, v, st=style: write_vtu(p, pts, c, v, st))
    for version in ("4.2", "5.1"):
        for binary in (False, True):
            tag = f"legacy_{version.replace('.', '')}_{'binary' if binary else 'ascii'}_reversed"
            add(tag, ".vtk", lambda p, d, pts, c, v, ver=version, b=binary: write_legacy(p, pts, c, v, ver, b, True))
    if mesh and mesh.endswith(".msh"):
        by_xyz = msh_nodes(mesh)
        for version, with_nodes in (("2.2", False), ("4.1", True)):
            add(f"msh{version.replace('.', '')}{'_nodes' if with_nodes else ''}", ".msh",
                lambda p, d, pts, c, v, ver=version, w=with_nodes:
                write_msh(p, pts, v, [by_xyz[tuple(x)] for x in pts], ver, w))
    for tag, write, *digits in vtk_writers():
        add(tag.rsplit(".", 1)[0], "." + tag.rsplit(".", 1)[1], lambda p, d, pts, c, v, w=write: w(d, p),
            digits[0] if digits else None)
    pvd = os.path.join(outdir, "vtu_base64.pvd")
    with open(pvd, "w") as f:
        f.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1">\n<Collection>\n')
        f.write("".join(f'<DataSet timestep="{t!r}" file="{os.path.basename(p)}"/>\n'
                        for t, p in variants["vtu_base64"]))
        f.write("</Collection>\n</VTKFile>\n")
    return [(tag, files, precision[tag]) for tag, files in variants.items()] + [("pvd_of_vtu_base64", pvd, None)]


def case_with_files(path, files, copy, outdir):
    """The case at path with its velocity read from files (a list of (time, path)) or from a
    series index (a path), its outputs in outdir; written to copy."""
    tree = ET.parse(path)
    root = tree.getroot()
    velocity = root.find("velocity")
    velocity.attrib.pop("series", None)
    if isinstance(files, str):
        velocity.set("series", files)
    else:
        for t, f in files:
            ET.SubElement(velocity, "file", time=repr(t)).text = f
    root.find("output").set("dir", outdir)
    tree.write(copy, xml_declaration=True, encoding="UTF-8")
    return copy
