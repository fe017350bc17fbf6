#!/usr/bin/env python3
"""Run fesim on a case from cases/ with overrides and check its pass criterion.

    run_case.py FESIM CASE_DIR CHECK [options]

CHECK is one of
  error         final l2_error <= --max-l2 (and >= --min-l2, linf <= --max-linf if given), for
                each tracer of a case of several
  order         L2 convergence order under mesh refinement (--sizes, dt = --cfl * size)
                is >= --min-order (and <= --max-order if given) at every refinement; the
                resolution nodes^(-1/dim), or with --order-by size the mesh size (Fluidity's
                tests: log2 of the errors' ratio when the size halves)
  time-order    order in dt of the final field (Richardson differences between
                successive dt in --dts) within [--min-order, --max-order]
  conservation  |integral(end) - integral(0)| <= --rtol * |integral(0)|
  strategies    lma, addto and matfree give the same final field to --rtol
  restart       a run checkpointed every --every-checkpoint steps, killed later and
                continued with --restart, ends with the same stat rows and final field
                bit for bit
  signal        SIGTERM during a run: exit 143 after writing a checkpoint, from which
                --restart reaches the uninterrupted run's stat rows and final field
  bounds        for each strategy (or --assembly), every stat row's min and max within
                [--lo - --tol, --hi + --tol], the final fields of the strategies equal
                to --rtol; with --revolution (the case ends where it began), the L1
                and L2 errors of the final field against the initial one (lumped-mass
                weighted), at most --max-l1 and --max-l2 when given; with --outside, the
                range must leave those bounds instead (a scheme that is not bounded)
  cfl           a case whose <time> has cfl and dt_max (its <output> a period): every
                step no longer than dt_max and with a Courant number (the stat file's courant)
                at most cfl, both to 1e-9 relative; each step either at cfl (to 1e-9) or at
                dt_max, but for the steps shortened to land on an output time or on end (the
                landing step and the one before it); every output time and end reached
                exactly, and the dumps at those times; with --speed (the flow's speed as a
                Python expression of t, up to a constant factor) the steps at cfl are
                inversely proportional to the speed at their start (dt * speed constant to
                1e-9): they shorten as the flow speeds up; at least --min-capped steps at
                dt_max and --min-at-cfl at cfl; with --backend cuda, the GPU's steps those
                of the CPU (same count, dt to --rtol)
  backends      on the GPU, each strategy (lma, addto, matfree; atomic and deterministic
                scatter) matches the CPU's final field (of each tracer) to --rtol and meets
                --max-l2 (each tracer's); exit 77 (skip) without a GPU
  velocity-files  a case whose velocity is files (--flow's dumps): the run matches, to --rtol
                (relative to the largest value; every stat row's min, max and integral and
                the final field), the run with the flow case's <velocity> expressions
  advection-forms  the case with conservative_advection 1 and 0: the integral's largest
                relative drift of the conservative form at most --rtol (when given), of the other at
                least --min-drift (when given); with --max-diff, the two final fields within
                it of each other (a flow without divergence)
  formats       a case whose velocity is --flow's series: the flow's dumps written again as
                VTK XML (ascii, base64, appended raw and base64, zlib, UInt64 headers,
                big-endian, points in another order), legacy ASCII VTK, Gmsh $NodeData (MSH
                2.2 and 4.1; --mesh must then be a .msh) and a .pvd collection, and, where
                Debian's VTK modules are, by VTK's own writers; each run with them matches the
                series' run to --rtol (to 100 times a file's own precision where it prints
                fewer digits: VTK's legacy ASCII writer)
  tracers       a case with several <tracer>s: each tracer's stat columns (its values and solver
                iterations), its fields in the final dump and its probe columns equal, to
                --rtol (default 0: bit for bit), those of a run of the case with that tracer
                alone; with --max-l2, every tracer's final l2_error at most it
  budget        a case with <fluxes>: for each strategy (or --assembly), each tracer and each
                step, the stat file's budget closes, |I(n+1) - I(n) - dt (sum of the
                advective_flux% and diffusive_flux% columns + source - absorption + divergence)|
                at most --rtol (default 1e-12) times the scale of the terms, the run's largest
                dt times the sum of their absolute values (which the solvers' tolerance and the
                round-off of I, of order 1e-16 |I|, bound from below); with --expect
                COLUMN=VALUE (a tracer's column as named with one tracer; repeated), that
                column within --expect-rtol (default 1e-12) of VALUE, relative to |VALUE|, in
                every row after row 0
  probes        a case with <probes> and dumps every --every steps: at every dump, each
                probe's row of NAME.probes.csv holds the P1 interpolant of the dump's nodal
                tracer and velocity at the probe (located here by a search of every cell, by
                fesim's rule) to --rtol of the field's largest value; at every row, the tracer
                within --max-error of the case's <exact> at the probe's point; with --backend
                cuda, also the CPU's probes file to --cpu-rtol
  mpi           the case (its dumps as shipped, or every --every steps) run serially on the CPU
                backend, then with `mpirun -n K` for each K of --ranks (default 2,3; a thread
                each, more processes than cores allowed, as root too; each run stopped after
                --timeout seconds, default 300): each run's stat file, every dump its .vtk.series
                lists and its probes file equal the serial run's: the same header, rows, dumps,
                times and mesh, each value within --rtol (default 1e-10) relative to the larger
                of the two and the largest |value| of its column (stat, probes) or field (dumps),
                for a tracer's values (min, max, errors, T_error, probe columns) at least the
                tracer's largest |value|; wall_seconds skipped, the solvers' iteration columns
                within 1 (the processes' reductions sum in another order); exit 77 (skip)
                without mpirun; with --backend cuda a GPU per process (NCCL) against the run on
                one GPU, skipped where fewer GPUs than processes are present; --repeat: each run
                on several processes made again, equal to the first bit for bit (iterations too)
  mpi-restart   checkpoints across process counts: a run on P processes checkpointed every
                --every-checkpoint steps continued from its first checkpoint on Q processes,
                for each P:Q of --restarts (default 1:2,2:3,2:1), and a run on 2 whose
                processes get SIGTERM (exit 143, a checkpoint) continued on 3: each ends with
                the serial run's outputs, compared as by mpi
The restart and signal checks compare NAME.probes.csv byte for byte too when the case has
<probes> (a restart keeps its rows up to the checkpoint's step, as the stat file's).
Options --size, --dt, --end, --splitting, --every, --probes-every, --probe NAME=X,Y[,Z] (a
<probe> added; repeated), --tracer NAME=INITIAL (a copy of the first tracer; repeated), --param NAME=VALUE, --scheme ATTR=VALUE and --solver ATTR=VALUE (repeated), --fluxes (a <fluxes/>), --mesh FILE and
--conservative BETA (scheme@conservative_advection) override the case file; --assembly,
--stabilisation, --loads, --deterministic and --backend are passed to fesim.  --flow FILE (in the case folder) is
run first, into the work folder, and the case's velocity series is read from there: a case
driven by an earlier run's dumps (cases/offline_tracer).
Exit 0 when the criterion holds; 1 with a message otherwise.
Only the Python standard library is used.
"""
import argparse
import json
import math
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def set_attributes(root, name, attributes):
    """The attributes set on the root's child `name`, made when there is none (no attributes:
    nothing)."""
    if not attributes:
        return
    element = root.find(name)
    if element is None:
        element = ET.SubElement(root, name)
    for key, value in attributes.items():
        element.set(key, value)


def make_case(case_dir, work, tag, size=None, dt=None, end=None, splitting=None, every=None,
              checkpoint=None, params=None, scheme=None, mesh_file=None, conservative=None, velocity_root=None,
              file_name="case.xml", probes_every=None, probes=(), tracers=(), solver=None,
              fluxes=False):
    """Write a copy of case.xml (or file_name) with overrides into work/tag.xml; returns (path,
    name, output folder).  Velocity files and series are resolved against the case folder, a
    series against velocity_root when given (where --flow wrote its dumps)."""
    tree = ET.parse(os.path.join(case_dir, file_name))
    root = tree.getroot()
    velocity = root.find("velocity")
    if velocity is not None and velocity.get("series"):
        velocity.set("series", os.path.abspath(os.path.join(velocity_root or case_dir, velocity.get("series"))))
    for f in (velocity.findall("file") if velocity is not None else []):
        f.text = os.path.abspath(os.path.join(case_dir, f.text.strip()))
    for name, value in (params or {}).items():
        param = root.find(f"parameters/param[@name='{name}']")
        if param is None:
            sys.exit(f"{case_dir}/case.xml has no parameter {name}")
        param.text = value
    mesh = root.find("mesh")
    mesh.set("file", os.path.abspath(mesh_file or os.path.join(case_dir, mesh.get("file"))))
    if size is not None:
        mesh.set("size", repr(size))
    time = root.find("time")
    if dt is not None:
        time.set("dt", repr(dt))
    if end is not None:
        time.set("end", repr(end))
    attributes = dict(scheme or {})
    if splitting is not None:
        attributes["splitting"] = splitting
    if conservative is not None:
        attributes["conservative_advection"] = repr(conservative)
    set_attributes(root, "scheme", attributes)
    output = root.find("output")
    if output is None:
        output = ET.SubElement(root, "output")
    output.set("dir", os.path.join(work, tag))
    if every or output.get("period") is None:  # a period (with cfl, steps land on it) is kept
        output.attrib.pop("period", None)
        output.set("every", str(every if every else 1000000))
    if checkpoint:
        ET.SubElement(root, "checkpoint").set("every", str(checkpoint))
    for spec in probes:  # NAME=X,Y[,Z]: a <probe> more
        if root.find("probes") is None:
            ET.SubElement(root, "probes")
        name, xyz = spec.split("=", 1)
        attrs = dict(zip("xyz", xyz.split(",")), name=name)
        ET.SubElement(root.find("probes"), "probe", attrs)
    set_attributes(root, "solver", solver or {})
    if fluxes and root.find("fluxes") is None:
        ET.SubElement(root, "fluxes")
    for spec in tracers:  # NAME=INITIAL: a copy of the first <tracer>, another name and start
        import copy
        name, initial = spec.split("=", 1)
        tracer = copy.deepcopy(root.find("tracer"))
        tracer.set("name", name)
        tracer.find("initial").text = initial
        for exact in tracer.findall("exact"):
            tracer.remove(exact)
        root.insert(list(root).index(root.findall("tracer")[-1]) + 1, tracer)
    probes = root.find("probes")
    if probes is not None and probes.get("file"):
        probes.set("file", os.path.abspath(os.path.join(case_dir, probes.get("file"))))
    if probes is not None and probes_every:
        probes.set("every", str(probes_every))
    path = os.path.join(work, tag + ".xml")
    tree.write(path, xml_declaration=True, encoding="UTF-8")
    return path, root.find("name").text.strip(), os.path.join(work, tag)


def mesh_info(fesim, path):
    """(dimension, nodes) from fesim --check."""
    proc = subprocess.run([fesim, "--check", path], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"fesim --check {path} exited {proc.returncode}:\n{proc.stderr}")
    for line in proc.stdout.splitlines():
        if line.startswith("mesh"):
            words = line.replace(",", " ").split()
            dim = int(next(w for w in words if w.endswith("D"))[:-1])
            nodes = int(words[words.index("nodes") - 1])
            return dim, nodes
    sys.exit(f"fesim --check {path}: no mesh line")


SKIP = 77


def run(fesim, path, extra=(), skip_without_gpu=False, launcher=(), timeout=None):
    """fesim --quiet EXTRA PATH, behind launcher (mpirun -n K ...) when given; exit 1 with its
    stderr when it fails, or after timeout seconds (the launcher's whole process group stopped)."""
    command = [*launcher, fesim, "--quiet", *extra, path]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=timeout is not None)
    try:
        stderr = proc.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        proc.terminate()  # mpirun stops its processes and waits for them
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # what is left of the group
        except ProcessLookupError:
            pass
        proc.communicate()
        sys.exit(f"{' '.join(command)} still running after {timeout:g} s: stopped")
    if proc.returncode == 4 and skip_without_gpu:
        print(f"skipped: {stderr.strip()}")
        sys.exit(SKIP)
    if proc.returncode != 0:
        sys.exit(f"{' '.join([*launcher, 'fesim', *extra])} {path} exited {proc.returncode}:\n{stderr}")


def read_stat(outdir, name):
    with open(os.path.join(outdir, name + ".stat")) as f:
        header = f.readline().strip().split(",")
        rows = [dict(zip(header, map(float, line.split(",")))) for line in f if line.strip()]
    return rows


def vtk_point_fields(path):
    """{name: values} of every point field of a binary legacy VTK file written by fesim, in its
    order: SCALARS as they are, VECTORS flattened (x0, y0, z0, x1, ...)."""
    with open(path, "rb") as f:
        data = f.read()
    pos, count, section, fields = 0, 0, None, {}

    def line():
        nonlocal pos
        end = data.index(b"\n", pos)
        text = data[pos:end].decode("ascii", "replace").split()
        pos = end + 1
        return text

    def width(typ):
        return 8 if typ == "double" else 4

    def values(n, typ):
        fmt = ">%d%s" % (n, {"double": "d", "float": "f"}.get(typ, "i"))
        return struct.unpack(fmt, data[pos:pos + struct.calcsize(fmt)])

    while pos < len(data):
        words = line()
        if not words:
            continue
        key = words[0]
        if key == "POINTS":
            pos += int(words[1]) * 3 * width(words[2])
        elif key == "CELLS":
            pos += int(words[2]) * 4
        elif key == "CELL_TYPES":
            pos += int(words[1]) * 4
        elif key == "FIELD":
            for _ in range(int(words[2])):
                _, comps, tuples, typ = line()
                pos += int(comps) * int(tuples) * width(typ)
        elif key in ("POINT_DATA", "CELL_DATA"):
            section, count = key, int(words[1])
        elif key in ("SCALARS", "VECTORS"):
            if key == "SCALARS":
                line()  # LOOKUP_TABLE
            n = count * (3 if key == "VECTORS" else 1)
            if section == "POINT_DATA":
                fields[words[1]] = values(n, words[2])
            pos += n * width(words[2])
    return fields


def read_vtk_field(path, field):
    """Point scalar `field` from a binary legacy VTK file written by fesim."""
    fields = vtk_point_fields(path)
    if field not in fields:
        sys.exit(f"{path}: no point field {field}")
    return fields[field]


def read_vtk_mesh(path):
    """(points, cells) of a binary legacy VTK file written by fesim: points as (x, y, z)
    tuples, cells as tuples of point indices."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    points = cells = None
    while pos < len(data) and (points is None or cells is None):
        end = data.index(b"\n", pos)
        words = data[pos:end].decode("ascii", "replace").split()
        pos = end + 1
        if words and words[0] == "POINTS":
            n, fmt = int(words[1]), ">%d%s" % (3 * int(words[1]), "d" if words[2] == "double" else "f")
            size = struct.calcsize(fmt)
            flat = struct.unpack(fmt, data[pos:pos + size])
            points = [flat[3 * i:3 * i + 3] for i in range(n)]
            pos += size
        elif words and words[0] == "CELLS":
            flat = struct.unpack(">%di" % int(words[2]), data[pos:pos + 4 * int(words[2])])
            cells, k = [], 0
            while k < len(flat):
                cells.append(flat[k + 1:k + 1 + flat[k]])
                k += 1 + flat[k]
            pos += 4 * int(words[2])
    return points, cells


def lumped_masses(points, cells):
    """The lumped mass of each point: the measure of its cells over their vertex count."""
    m = [0.0] * len(points)
    for c in cells:
        p = [points[i] for i in c]
        e = [[p[k][a] - p[0][a] for a in range(3)] for k in range(1, len(c))]
        if len(c) == 3:
            cx = e[0][1] * e[1][2] - e[0][2] * e[1][1]
            cy = e[0][2] * e[1][0] - e[0][0] * e[1][2]
            cz = e[0][0] * e[1][1] - e[0][1] * e[1][0]
            measure = 0.5 * math.sqrt(cx * cx + cy * cy + cz * cz)
        else:
            measure = abs(e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1])
                          - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0])
                          + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) / 6
        for i in c:
            m[i] += measure / len(c)
    return m


def same_file(full, again):
    """(whether again is byte for byte the uninterrupted run's file full, a note), (True, "")
    when the run has no such file."""
    if not os.path.exists(full):
        return True, ""
    a, b = open(full, "rb").read(), open(again, "rb").read() if os.path.exists(again) else None
    rows = a.count(b"\n") - 1
    return a == b, f"; probes file ({rows} rows) identical: {a == b}"


def dumps(outdir, name):
    return sorted(f for f in os.listdir(outdir) if f.startswith(name + "_") and f.endswith(".vtk"))


def final_field(outdir, name, tracer):
    return read_vtk_field(os.path.join(outdir, dumps(outdir, name)[-1]), tracer)


def tracer_name(case_dir):
    return ET.parse(os.path.join(case_dir, "case.xml")).getroot().find("tracer").get("name")


def tracer_names(path):
    """The names of the tracers of a case file, in its order."""
    return [t.get("name") for t in ET.parse(path).getroot().findall("tracer")]


def tracer_columns(header, tracer):
    """The stat file's columns of one tracer: {column: index}, named as with one tracer (min,
    l2_error, ...): the columns NAME%COLUMN of a file of several tracers, all but step, time,
    dt, courant and wall_seconds of a file of one."""
    prefix = tracer + "%"
    mine = {c[len(prefix):]: i for i, c in enumerate(header) if c.startswith(prefix)}
    if mine:
        return mine
    return {c: i for i, c in enumerate(header) if c not in ("step", "time", "dt", "courant", "wall_seconds")}


def budget_closure(header, rows, tracer):
    """(the largest |I(n+1) - I(n) - dt (terms)| over the steps, the scale of the terms: the
    largest dt sum |term|) of one tracer's stat columns."""
    cols = tracer_columns(header, tracer)
    fluxes = [c for c in cols if c.startswith("advective_flux%") or c.startswith("diffusive_flux%")]
    worst, scale = 0.0, 0.0
    for before, row in zip(rows, rows[1:]):
        v = {c: float(row[i]) for c, i in cols.items()}
        dt = float(row[header.index("dt")])
        terms = [v[c] for c in fluxes] + [v["source"], -v["absorption"], v["divergence"]]
        change = v["integral"] - float(before[cols["integral"]])
        worst = max(worst, abs(change - dt * sum(terms)))
        scale = max(scale, dt * sum(abs(x) for x in terms))
    return worst, scale


def check_budget(a, work, over, scheme):
    """Every tracer's budget closes at every step, for each strategy; --expect columns hold."""
    ok = True
    backend = ["--backend", a.backend] if a.backend else []
    for s in [a.assembly] if a.assembly else ["lma", "addto", "matfree"]:
        path, name, out = make_case(a.case_dir, work, s, **over)
        run(a.fesim, path, [*scheme, *backend, "--assembly", s], skip_without_gpu=True)
        header, *rows = [line.split(",") for line in open(os.path.join(out, name + ".stat")).read().split()]
        for t in tracer_names(path):
            worst, scale = budget_closure(header, rows, t)
            good = scale > 0 and worst <= (a.rtol or 1e-12) * scale
            print(f"{s} {t}: {len(rows) - 1} steps, largest |dI - dt (terms)| {worst:.3e}, scale of the terms "
                  f"{scale:.3e}: relative {worst / scale if scale else math.inf:.3e}" + ("" if good else "  <- FAIL"))
            ok = ok and good
            cols = tracer_columns(header, t)
            for spec in a.expect:
                column, value = spec.split("=", 1)
                value = float(value)
                off = max(abs(float(r[cols[column]]) - value) for r in rows[1:]) / abs(value)
                good = off <= a.expect_rtol
                print(f"{s} {t}: {column} within {off:.3e} of {value:g} (relative) in every step"
                      + ("" if good else "  <- FAIL"))
                ok = ok and good
    return ok


def check_tracers(a, work, over, extra):
    """Each tracer of a several-tracer case against a run of the case with it alone."""
    path, name, out = make_case(a.case_dir, work, "all", **over)
    run(a.fesim, path, extra, skip_without_gpu=True)
    names = tracer_names(path)
    last = dumps(out, name)[-1]
    header, *rows = [line.split(",") for line in open(os.path.join(out, name + ".stat")).read().split()]
    probes = os.path.join(out, name + ".probes.csv")
    tol = a.rtol or 0.0
    ok = len(names) > 1
    for t in names:
        tree = ET.parse(path)
        root = tree.getroot()
        for other in [e for e in root.findall("tracer") if e.get("name") != t]:
            root.remove(other)
        alone_path = os.path.join(work, f"alone_{t}.xml")
        alone_out = os.path.join(work, f"alone_{t}")
        root.find("output").set("dir", alone_out)
        tree.write(alone_path, xml_declaration=True, encoding="UTF-8")
        run(a.fesim, alone_path, extra)
        header1, *rows1 = [line.split(",") for line in open(os.path.join(alone_out, name + ".stat")).read().split()]
        cols, cols1 = tracer_columns(header, t), tracer_columns(header1, t)
        same_cols = sorted(cols) == sorted(cols1)
        worst = 0.0
        for r, r1 in zip(rows, rows1):
            for c in cols:
                x, y = float(r[cols[c]]), float(r1[cols1.get(c, 0)])
                worst = max(worst, abs(x - y) / max(abs(y), 1e-300) if x != y else 0.0)
        field, field1 = read_vtk_field(os.path.join(out, last), t), read_vtk_field(os.path.join(alone_out, last), t)
        scale = max(abs(x) for x in field1)
        fdiff = max(abs(x - y) for x, y in zip(field, field1)) / scale
        pdiff = 0.0
        if os.path.exists(probes):
            ph, *prows = [line.split(",") for line in open(probes).read().split()]
            ph1, *prows1 = [line.split(",") for line in open(os.path.join(alone_out, name + ".probes.csv")).read().split()]
            for i, c in enumerate(ph):
                if c.startswith(t + "%"):
                    j = ph1.index(c)
                    pdiff = max([pdiff] + [abs(float(r[i]) - float(r1[j])) / scale for r, r1 in zip(prows, prows1)])
        l2 = float(rows[-1][cols["l2_error"]]) if "l2_error" in cols else None
        good = (same_cols and len(rows) == len(rows1) and worst <= tol and fdiff <= tol and pdiff <= tol
                and (a.max_l2 is None or l2 is None or l2 <= a.max_l2))
        print(f"tracer {t}: against its run alone, stat rows {len(rows)}/{len(rows1)} within {worst:.3e} "
              f"(relative), final field within {fdiff:.3e}, probes within {pdiff:.3e} (relative to max |{t}|); "
              f"final l2_error {l2}" + ("" if good else "  <- FAIL"))
        ok = ok and good
    return ok


def read_vtk_vectors(path, field):
    """Point vectors `field` (double, 3 components) of a binary legacy VTK file written by
    fesim, as (x, y, z) tuples."""
    with open(path, "rb") as f:
        data = f.read()
    at = data.index(b"\nVECTORS " + field.encode() + b" double\n")
    count = int(data[data.index(b"POINT_DATA ") + 11:].split(b"\n", 1)[0])
    pos = data.index(b"\n", at + 1) + 1
    flat = struct.unpack(">%dd" % (3 * count), data[pos:pos + 24 * count])
    return [flat[3 * i:3 * i + 3] for i in range(count)]


def case_probes(path):
    """[(name, (x, y, z))] of a case's <probes>: its <probe> elements, then its file's rows."""
    probes = ET.parse(path).getroot().find("probes")
    found = [(p.get("name"), tuple(float(p.get(a, "0")) for a in "xyz")) for p in probes.findall("probe")]
    if probes.get("file"):
        with open(probes.get("file")) as f:
            rows = [line.split(",") for line in f.read().lstrip("\ufeff").splitlines()[1:] if line.strip()]
        found += [(r[0].strip(), tuple([float(v) for v in r[1:]] + [0.0] * (4 - len(r)))) for r in rows]
    return found


def barycentric(points, cell, x, dim):
    """x's barycentric coordinates in cell (solved by Cramer's rule on the edges from its first
    vertex, in numbers of Python's own)."""
    v = [points[i] for i in cell]
    e = [[v[i + 1][a] - v[0][a] for a in range(dim)] for i in range(dim)]
    r = [x[a] - v[0][a] for a in range(dim)]
    if dim == 2:
        det = e[0][0] * e[1][1] - e[0][1] * e[1][0]
        lam = [(r[0] * e[1][1] - r[1] * e[1][0]) / det, (e[0][0] * r[1] - e[0][1] * r[0]) / det]
    else:
        def cross(p, q):
            return [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]]
        c = [cross(e[1], e[2]), cross(e[2], e[0]), cross(e[0], e[1])]
        det = sum(e[0][a] * c[0][a] for a in range(3))
        lam = [sum(r[a] * c[i][a] for a in range(3)) / det for i in range(3)]
    return [1 - sum(lam)] + lam


def locate(points, cells, x, dim):
    """fesim's rule (assembly/probes.h): the lowest cell holding x (barycentric coordinates
    >= -1e-10), else the one it misses least within 0.1; its weights, negatives set to 0 and
    rescaled to sum to 1.  None outside."""
    best = None
    for c, cell in enumerate(cells):
        lam = barycentric(points, cell, x, dim)
        low = min(lam)
        if low >= -1e-10:
            best = (c, lam)
            break
        if low >= -0.1 and (best is None or low > min(best[1])):
            best = (c, lam)
    if best is None:
        return None
    w = [max(v, 0.0) for v in best[1]]
    return cells[best[0]], [v / sum(w) for v in w]


def exact_at(case_path, x, t):
    """The case's <exact> at point x and time t: its expression read as Python (^ as **)."""
    root = ET.parse(case_path).getroot()
    text = root.find("tracer/exact").text
    if "if(" in text.replace(" ", ""):
        sys.exit("probes: an <exact> with if() is beyond this check's reading of expressions")
    names = {k: getattr(math, k) for k in ("sin", "cos", "tan", "exp", "log", "sqrt", "pi", "e",
                                            "sinh", "cosh", "tanh", "atan2", "erf", "floor")}
    names.update(abs=abs, min=min, max=max, x=x[0], y=x[1], z=x[2], t=t)
    for p in root.findall("parameters/param"):
        names[p.get("name")] = eval(p.text.replace("^", "**"), {}, dict(names))
    return eval(text.replace("^", "**"), {}, names)


def check_probes(a, work, over, extra):
    """The probes' rows against the dumps' nodal fields and the exact solution."""
    path, name, out = make_case(a.case_dir, work, "run", **dict(over, every=a.every or 10))
    run(a.fesim, path, extra, skip_without_gpu=True)
    probes = case_probes(path)
    tracer = tracer_name(a.case_dir)
    with open(os.path.join(out, name + ".probes.csv")) as f:
        header = f.readline().strip().split(",")
        rows = {float(r.split(",")[1]): dict(zip(header, map(float, r.split(",")))) for r in f if r.strip()}
    with open(os.path.join(out, name + ".vtk.series")) as f:
        series = [(d["name"], d["time"]) for d in json.load(f)["files"]]
    bad, worst, compared = [], 0.0, 0
    points, cells = read_vtk_mesh(os.path.join(out, series[0][0]))
    dim = 3 if len(cells[0]) == 4 else 2
    where = {p: locate(points, cells, x, dim) for p, x in probes}
    for file, t in series:
        if t not in rows:
            bad.append(f"no probes row at the dump's time {t!r}")
            continue
        field = read_vtk_field(os.path.join(out, file), tracer)
        velocity = read_vtk_vectors(os.path.join(out, file), "velocity") if "velocity%x%" + probes[0][0] in header else None
        scale = max(abs(v) for v in field)
        for p, _ in probes:
            cell, w = where[p]
            value = sum(wi * field[i] for wi, i in zip(w, cell))
            worst = max(worst, abs(rows[t][f"{tracer}%{p}"] - value) / scale)
            compared += 1
            for k in range(dim if velocity else 0):
                u = sum(wi * velocity[i][k] for wi, i in zip(w, cell))
                worst = max(worst, abs(rows[t][f"velocity%{'xyz'[k]}%{p}"] - u) / max(1.0, abs(u)))
    error = max(abs(r[f"{tracer}%{p}"] - exact_at(path, x, t)) for t, r in rows.items() for p, x in probes)
    print(f"{len(probes)} probes, {len(rows)} rows, {len(series)} dumps: largest difference from the dumps' "
          f"P1 interpolant {worst:.3e} (relative, {compared} values); largest |probe - exact| {error:.3e}")
    rtol = a.rtol if a.rtol is not None else 1e-12
    if worst > rtol:
        bad.append(f"the probes differ from the dumps' interpolant by {worst:.3e} > {rtol:g}")
    if a.max_error is not None and error > a.max_error:
        bad.append(f"|probe - exact| reaches {error:.3e} > {a.max_error:g}")
    if a.backend == "cuda":
        path, name, cpu_out = make_case(a.case_dir, work, "cpu", **dict(over, every=a.every or 10))
        run(a.fesim, path, [x for x in extra if x not in ("--backend", "cuda")] + ["--backend", "cpu"])
        with open(os.path.join(cpu_out, name + ".probes.csv")) as f:
            cpu = [list(map(float, r.split(","))) for r in f.read().splitlines()[1:]]
        gpu = [[row[h] for h in header] for _, row in sorted(rows.items())]
        diff = max(abs(x - y) for r, s in zip(gpu, cpu) for x, y in zip(r[2:], s[2:]))
        print(f"GPU {len(gpu)} rows, CPU {len(cpu)}; largest difference {diff:.3e}")
        if len(gpu) != len(cpu) or diff > a.cpu_rtol:
            bad.append("the GPU's probes are not the CPU's")
    for b in bad:
        print("FAIL: " + b)
    return not bad


def order(e_coarse, e_fine, ratio=2.0):
    return math.log(e_coarse / e_fine) / math.log(ratio)


def output_times(root):
    """The times a cfl run must land on: start + i period (as fesim computes them) before end,
    then end; an output time within 1e-9 period of end is end's (io/schedule.h)."""
    time, output = root.find("time"), root.find("output")
    start, end = float(time.get("start")), float(time.get("end"))
    period = float(output.get("period")) if output is not None and output.get("period") else None
    times = []
    i = 1
    while period and end - (start + i * period) > 1e-9 * period:
        times.append(start + i * period)
        i += 1
    return times + [end]


def cfl_steps(rows, cfl, dt_max, landings, tol=1e-9):
    """Failures of the steps (stat rows after row 0) against the cfl rule, and the rows at
    cfl and at dt_max that were not shortened to land."""
    bad, at_cfl, capped = [], [], []
    land = set(landings)
    for i, r in enumerate(rows[1:], 1):
        lands = r["time"] in land
        before = i + 1 < len(rows) and rows[i + 1]["time"] in land
        if r["dt"] > dt_max * (1 + tol) or r["courant"] > cfl * (1 + tol):
            bad.append(f"step {int(r['step'])}: dt {r['dt']!r} courant {r['courant']!r} beyond the rule")
        elif abs(r["courant"] / cfl - 1) <= tol and not lands and not before:
            at_cfl.append(r)
        elif r["dt"] == dt_max and not lands and not before:
            capped.append(r)
        elif not lands and not before:
            bad.append(f"step {int(r['step'])} (t = {r['time']!r}): dt {r['dt']!r}, courant {r['courant']!r}: "
                       f"neither at cfl nor at dt_max, nor next to an output time")
    missed = sorted(land - {r["time"] for r in rows})
    if missed:
        bad.append(f"output times not landed on: {missed}")
    return bad, at_cfl, capped


def check_cfl(a, work, over, extra):
    path, name, out = make_case(a.case_dir, work, "run", **over)
    root = ET.parse(path).getroot()
    time = root.find("time")
    cfl, dt_max = float(time.get("cfl")), float(time.get("dt_max"))
    landings = output_times(root)
    run(a.fesim, path, extra, skip_without_gpu=True)
    rows = read_stat(out, name)
    bad, at_cfl, capped = cfl_steps(rows, cfl, dt_max, landings)
    with open(os.path.join(out, name + ".vtk.series")) as f:
        dumped = [float(x.split('"time":')[1].split("}")[0]) for x in f.read().split("{ \"name\"")[1:]]
    if dumped != [float(time.get("start"))] + landings:
        bad.append(f"dumps at {dumped}, expected at the start and {landings}")
    print(f"{len(rows) - 1} steps: {len(capped)} at dt_max {dt_max:g}, {len(at_cfl)} at cfl {cfl:g}, "
          f"{len(rows) - 1 - len(capped) - len(at_cfl)} shortened to land on {len(landings)} output times")
    worst = max((abs(r["courant"] / cfl - 1) for r in at_cfl), default=0)
    print(f"steps at cfl: courant within {worst:.2e} of {cfl:g}; dt from {max(r['dt'] for r in at_cfl):.6g} "
          f"to {min(r['dt'] for r in at_cfl):.6g}" if at_cfl else "no step at cfl")
    if len(capped) < a.min_capped or len(at_cfl) < a.min_at_cfl:
        bad.append(f"{len(capped)} steps at dt_max, {len(at_cfl)} at cfl; expected at least "
                   f"{a.min_capped} and {a.min_at_cfl}")
    if a.speed:
        by_step = {int(r["step"]): r for r in rows}
        products = [r["dt"] * eval(a.speed, {"math": math}, {"t": by_step[int(r["step"]) - 1]["time"]})
                    for r in at_cfl]
        spread = (max(products) - min(products)) / max(products) if products else 0
        shrinking = all(x["dt"] > y["dt"] for x, y in zip(at_cfl, at_cfl[1:]))
        print(f"dt * speed(t0) over the steps at cfl: {min(products, default=0):.12g} to "
              f"{max(products, default=0):.12g} (spread {spread:.2e}); dt shortening as the flow speeds up: "
              f"{shrinking}")
        if spread > 1e-9 or not shrinking:
            bad.append("the steps at cfl are not inversely proportional to the speed")
    if a.backend == "cuda":
        path, name, cpu_out = make_case(a.case_dir, work, "cpu", **over)
        run(a.fesim, path, [x for x in extra if x not in ("--backend", "cuda")] + ["--backend", "cpu"])
        cpu = read_stat(cpu_out, name)
        diff = max((abs(x["dt"] - y["dt"]) / y["dt"] for x, y in zip(rows[1:], cpu[1:])), default=0)
        print(f"GPU {len(rows) - 1} steps, CPU {len(cpu) - 1}; largest relative difference of their dt {diff:.2e}")
        if len(rows) != len(cpu) or diff > (a.rtol if a.rtol is not None else 1e-12):
            bad.append("the GPU's steps are not the CPU's")
    for b in bad:
        print("FAIL: " + b)
    return not bad


def run_flow(a, work, over):
    """--flow: the flow case run into work/<its output dir>; returns work, where the case's
    series is then read (its path relative to the case folder names the flow's outputs)."""
    root = ET.parse(os.path.join(a.case_dir, a.flow)).getroot()
    outdir = root.find("output").get("dir")
    keep = dict(size=over.get("size"), mesh_file=over.get("mesh_file"))
    path, _, _ = make_case(a.case_dir, work, "flow_case", file_name=a.flow, **keep)
    tree = ET.parse(path)
    tree.getroot().find("output").set("dir", os.path.join(work, outdir))
    tree.write(path, xml_declaration=True, encoding="UTF-8")
    run(a.fesim, path, ["--backend", "cpu"])
    return work


def velocity_expressions(a, work, path):
    """A copy of the case at path whose velocity is the flow case's expressions."""
    flow = ET.parse(os.path.join(a.case_dir, a.flow)).getroot().find("velocity")
    tree = ET.parse(path)
    root = tree.getroot()
    old = root.find("velocity")
    index = list(root).index(old)
    root.remove(old)
    root.insert(index, flow)
    out = root.find("output").get("dir") + "_expressions"
    root.find("output").set("dir", out)
    copy = os.path.join(work, "expressions.xml")
    tree.write(copy, xml_declaration=True, encoding="UTF-8")
    return copy, out


def relative_difference(x, y, scale):
    return max(abs(p - q) for p, q in zip(x, y)) / scale


def compare_runs(out_a, out_b, name, tracer):
    """(largest difference of the stat rows' min, max and integral, of the final fields), each
    relative to the largest |value| of the first run's final field."""
    rows_a, rows_b = read_stat(out_a, name), read_stat(out_b, name)
    field_a, field_b = final_field(out_a, name, tracer), final_field(out_b, name, tracer)
    scale = max(abs(x) for x in field_a)
    if len(rows_a) != len(rows_b):
        return math.inf, math.inf
    rows = max(abs(r[k] - q[k]) for r, q in zip(rows_a, rows_b) for k in ("min", "max", "integral")) / scale
    return rows, relative_difference(field_a, field_b, scale)


def largest_difference(x, y, scale):
    """(the largest |p - q| / max(|p|, |q|, scale) over the pairs of x and y, its index; None
    where all are equal); inf where one of a pair is NaN and the other is not."""
    worst, at = 0.0, None
    for i, (p, q) in enumerate(zip(x, y)):
        if p == q or (math.isnan(p) and math.isnan(q)):
            continue
        d = abs(p - q) / max(abs(p), abs(q), scale)
        d = math.inf if math.isnan(d) else d
        if d > worst:
            worst, at = d, i
    return worst, at


def magnitude(values):
    """The largest finite |value|, 0 for none."""
    return max((abs(v) for v in values if math.isfinite(v)), default=0.0)


def read_csv(path):
    """(header, rows as lists of numbers) of a CSV file fesim writes (the stat and probes files)."""
    with open(path) as f:
        header = f.readline().strip().split(",")
        return header, [[float(v) for v in line.split(",")] for line in f if line.strip()]


def tracer_magnitudes(outdir, name, tracers):
    """{tracer: its largest |min| or |max| over the rows of the stat file}."""
    header, rows = read_csv(os.path.join(outdir, name + ".stat"))
    cols = {t: tracer_columns(header, t) for t in tracers}
    return {t: magnitude([r[c["min"]] for r in rows] + [r[c["max"]] for r in rows]) for t, c in cols.items()}


def column_scales(file, header, columns, magnitudes):
    """The scale of each column of a stat or probes file (columns: each column's values over
    both runs): its largest |value|, and for a tracer's values at least the tracer's largest
    |value| over the run (magnitudes: tracer_magnitudes): in the stat file its min, max, l2_error
    and linf_error, in the probes file its columns (and velocity's against all of velocity's),
    so that a minimum or an error of round-off size (1e-15), or a probe the tracer has not
    reached (5e-11), is measured against the tracer, not against itself."""
    scales = [magnitude(c) for c in columns]
    if file.endswith(".probes.csv"):
        field = [c.split("%")[0] for c in header]
        return [max([scales[j] for j in range(len(header)) if field[j] == f] + [magnitudes.get(f, 0.0)])
                for f in field]
    for t, floor in magnitudes.items():
        cols = tracer_columns(header, t)
        for c in ("min", "max", "l2_error", "linf_error"):
            if c in cols:
                scales[cols[c]] = max(scales[cols[c]], floor)
    return scales


def compare_tables(file, serial, parallel, ranks, rtol, failures, magnitudes, slack=1):
    """The CSV file `file` (stat, probes) of the run on `ranks` processes against the serial
    run's: the same header and rows, each value within rtol relative to the larger of the two
    and its column's scale (column_scales: a tracer's minimum of 1e-17 is measured against
    the tracer), but for the wall-clock column (skipped) and solver iteration counts (within
    slack, 1 by default: on several processes a reduction sums in another order).  Failures are
    appended to failures; returns a summary."""
    if not os.path.exists(os.path.join(parallel, file)):
        failures.append(f"{file}: the serial run wrote it, the run on {ranks} processes did not")
        return f"{file} missing"
    (header, rows), (header_k, rows_k) = read_csv(os.path.join(serial, file)), read_csv(os.path.join(parallel, file))
    if header != header_k or len(rows) != len(rows_k):
        failures.append(f"{file}: {len(rows)} rows of columns {','.join(header)} serially, {len(rows_k)} rows of "
                        f"{','.join(header_k)} on {ranks} processes")
        return f"{file} differs in shape"

    def where(i):
        return f"row {i}" + (f" (step {rows[i][0]:g})" if header[0] == "step" else "")

    scales = column_scales(file, header, [[r[j] for r in rows + rows_k] for j in range(len(header))], magnitudes)
    worst, iterations = 0.0, None
    for j, column in enumerate(header):
        x, y = [r[j] for r in rows], [r[j] for r in rows_k]
        if column.endswith("wall_seconds"):
            continue
        if column.endswith("_iterations"):
            d, i = max(((abs(p - q), i) for i, (p, q) in enumerate(zip(x, y))), default=(0.0, 0),
                       key=lambda e: math.inf if math.isnan(e[0]) else e[0])
            iterations = max(iterations or 0.0, d)
            if not d <= slack:
                failures.append(f"{file}: column {column}, {where(i)}: {x[i]:g} iterations serially, {y[i]:g} on "
                                f"{ranks} processes (more than {slack} apart)")
            continue
        d, i = largest_difference(x, y, scales[j])
        worst = max(worst, d)
        if d > rtol:
            failures.append(f"{file}: column {column}, {where(i)}: serial {x[i]!r}, on {ranks} processes {y[i]!r} "
                            f"(relative difference {d:.3e} > {rtol:g})")
    return (f"{file} {len(rows)} rows within {worst:.3e}"
            + (f" (iterations within {iterations:g})" if iterations is not None else ""))


def read_series(outdir, name):
    """[(file, time)] of the dumps NAME.vtk.series lists."""
    with open(os.path.join(outdir, name + ".vtk.series")) as f:
        return [(d["name"], d["time"]) for d in json.load(f)["files"]]


def compare_dumps(name, serial, parallel, ranks, rtol, failures):
    """Every dump of NAME.vtk.series of the run on `ranks` processes against the serial run's: the
    same files at the same times (to rtol of the last time), the first dump's mesh (points to
    rtol, cells identical), each point field within rtol, relative as in compare_tables: to the
    field's largest |value| in that dump over both runs, for T_exact and T_error at least T's
    (an error of round-off size is measured against the tracer).  Failures are appended to
    failures; returns a summary."""
    series = name + ".vtk.series"
    if not os.path.exists(os.path.join(parallel, series)):
        failures.append(f"{series}: the serial run wrote it, the run on {ranks} processes did not")
        return f"{series} missing"
    dumped, dumped_k = read_series(serial, name), read_series(parallel, name)
    files, files_k = [f for f, _ in dumped], [f for f, _ in dumped_k]
    if files != files_k:
        first = next((i for i, (f, g) in enumerate(zip(files, files_k)) if f != g), min(len(files), len(files_k)))
        failures.append(f"{series}: {len(files)} dumps serially, {len(files_k)} on {ranks} processes; the first "
                        f"that differs, number {first}: {files[first:first + 1]} serially, "
                        f"{files_k[first:first + 1]} on {ranks} processes")
        return f"{series} differs"
    times, times_k = [t for _, t in dumped], [t for _, t in dumped_k]
    worst, i = largest_difference(times, times_k, magnitude(times))
    if worst > rtol:
        failures.append(f"{series}: {files[i]} at time {times[i]!r} serially, {times_k[i]!r} on {ranks} processes "
                        f"(relative difference {worst:.3e} > {rtol:g})")
    (points, cells), (points_k, cells_k) = (read_vtk_mesh(os.path.join(out, files[0])) for out in (serial, parallel))
    flat, flat_k = [c for p in points for c in p], [c for p in points_k for c in p]
    d, i = largest_difference(flat, flat_k, magnitude(flat))
    if len(flat) != len(flat_k) or cells != cells_k:
        failures.append(f"{files[0]}: not the serial run's mesh: {len(points)} points and {len(cells)} cells serially, "
                        f"{len(points_k)} and {len(cells_k)} on {ranks} processes"
                        + ("; the cells differ" if cells != cells_k else ""))
    elif d > rtol:
        failures.append(f"{files[0]}: not the serial run's mesh: point {i // 3} at {points[i // 3]} serially, "
                        f"{points_k[i // 3]} on {ranks} processes")
    for file, t in dumped:
        fields, fields_k = (vtk_point_fields(os.path.join(out, file)) for out in (serial, parallel))
        if [(f, len(v)) for f, v in fields.items()] != [(f, len(v)) for f, v in fields_k.items()]:
            failures.append(f"{file}: point fields {list(fields)} serially, {list(fields_k)} on {ranks} processes "
                            f"(or of other lengths)")
            continue
        for field, x in fields.items():
            y = fields_k[field]
            tracer = field.rsplit("_", 1)[0] if field.endswith(("_error", "_exact")) else None
            scale = magnitude(x + y + (fields[tracer] + fields_k[tracer] if tracer in fields else ()))
            d, i = largest_difference(x, y, scale)
            worst = max(worst, d)
            if d > rtol:
                at = f"point {i // 3} component {'xyz'[i % 3]}" if len(x) == 3 * len(points) else f"point {i}"
                failures.append(f"{file} (t = {t!r}): field {field}, {at}: serial {x[i]!r}, on {ranks} processes "
                                f"{y[i]!r} (relative difference {d:.3e} > {rtol:g})")
    return f"{len(files)} dumps within {worst:.3e}"


def check_mpi(a, work, over, extra):
    """The case run serially, then under mpirun on each of --ranks processes (the CPU backend, a
    thread each): every run's stat file, every dump of its series and its probes file equal the
    serial run's to --rtol (default 1e-10)."""
    if a.backend == "cuda":  # a GPU per process: the serial run on one GPU is the reference
        gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU ") \
            if shutil.which("nvidia-smi") else 0
        if os.environ.get("CUDA_VISIBLE_DEVICES") is not None:  # those this process may use
            gpus = min(gpus, len([d for d in os.environ["CUDA_VISIBLE_DEVICES"].split(",") if d.strip()]))
        if gpus < max(a.ranks):
            print(f"skipped: {gpus} GPUs here, {max(a.ranks)} needed")
            sys.exit(SKIP)
    os.environ["OMP_NUM_THREADS"] = "1"
    rtol = a.rtol if a.rtol is not None else 1e-10
    output = ET.parse(os.path.join(a.case_dir, "case.xml")).getroot().find("output")
    shipped = output.get("every") if output is not None else None  # its dumps as shipped
    path, name, serial = make_case(a.case_dir, work, "serial", **dict(over, every=a.every or shipped))
    cpu = extra if a.backend else [*extra, "--backend", "cpu"]
    run(a.fesim, path, [*cpu, "--output", serial], timeout=a.timeout)
    magnitudes = tracer_magnitudes(serial, name, tracer_names(path))
    ok = True
    for k in a.ranks:
        parallel = os.path.join(work, f"ranks{k}")
        run(a.fesim, path, [*cpu, "--output", parallel], launcher=mpi_launcher(k), timeout=a.timeout)
        ok = compare_mpi(name, serial, parallel, k, rtol, magnitudes, f"{k} processes") and ok
        if a.repeat:  # the same run again: the same bits (--deterministic on the GPU)
            again = os.path.join(work, f"ranks{k}_again")
            run(a.fesim, path, [*cpu, "--output", again], launcher=mpi_launcher(k), timeout=a.timeout)
            ok = compare_mpi(name, parallel, again, k, 0.0, magnitudes, f"{k} processes again", slack=0,
                             against="the first run") and ok
    return ok


def mpi_launcher(k):
    """mpirun of k processes, a thread each, NVLink multicast off in NCCL, the library path passed on."""
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    return [shutil.which("mpirun"), "-n", str(k), "--oversubscribe", "--allow-run-as-root", "-x", "OMP_NUM_THREADS=1",
            "-x", "NCCL_NVLS_ENABLE=0", *(["-x", "LD_LIBRARY_PATH"] if "LD_LIBRARY_PATH" in os.environ else [])]


def compare_mpi(name, serial, parallel, k, rtol, magnitudes, what, slack=1, against="the serial run"):
    """The outputs in parallel (of a run on k processes) against those in serial (the serial
    run's, or `against`; iteration counts within slack); prints a line."""
    failures = []
    summary = [compare_tables(name + ".stat", serial, parallel, k, rtol, failures, magnitudes, slack),
               compare_dumps(name, serial, parallel, k, rtol, failures)]
    if os.path.exists(os.path.join(serial, name + ".probes.csv")):
        summary.append(compare_tables(name + ".probes.csv", serial, parallel, k, rtol, failures, magnitudes, slack))
    print(f"{what} against {against}: " + "; ".join(summary) + ("" if not failures else "  <- FAIL"))
    for f in failures[:20]:
        print("FAIL: " + f)
    return not failures


def check_mpi_restart(a, work, over, extra):
    """Checkpoints across process counts: a run on P processes checkpointed every
    --every-checkpoint steps, continued from its first checkpoint on Q processes, for each P:Q of
    --restarts (default 1:2,2:3,2:1), ends with the serial run's outputs (to --rtol); then SIGTERM
    to the processes of a run on 2 (what a batch system sends): every process stops after the
    same step with exit 143, process 0 writes the checkpoint it names, and a run on 3 continues
    it to the serial run's outputs."""
    import time
    os.environ["OMP_NUM_THREADS"] = "1"
    rtol = a.rtol if a.rtol is not None else 1e-10
    k = a.every_checkpoint
    cpu = extra if a.backend else [*extra, "--backend", "cpu"]
    path, name, serial = make_case(a.case_dir, work, "serial", checkpoint=k, **over)
    run(a.fesim, path, [*cpu, "--output", serial], timeout=a.timeout)
    magnitudes = tracer_magnitudes(serial, name, tracer_names(path))
    ok = True
    for pair in a.restarts.split(","):
        p, q = (int(x) for x in pair.split(":"))
        out = os.path.join(work, f"from{p}to{q}")
        run(a.fesim, path, [*cpu, "--output", out], launcher=mpi_launcher(p), timeout=a.timeout)
        ckpt = os.path.join(out, f"{name}_checkpoint_{k:06d}.bin")
        run(a.fesim, path, [*cpu, "--output", out, "--restart", ckpt], launcher=mpi_launcher(q),
            timeout=a.timeout)
        ok = compare_mpi(name, serial, out, q, rtol, magnitudes,
                         f"checkpoint of step {k} on {p} processes continued on {q}") and ok
    part = os.path.join(work, "signal")
    proc = subprocess.Popen([*mpi_launcher(2), "--quiet", a.fesim, "--quiet", *cpu, "--output", part, path],
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    stat = os.path.join(part, name + ".stat")
    deadline = time.time() + a.timeout
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(stat) and len(open(stat).read().splitlines()) > 3:
            break
        time.sleep(0.01)
    children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    for child in children:  # the fesim processes, not mpirun (which would end the job itself)
        os.kill(int(child), signal.SIGTERM)
    err = proc.communicate(timeout=a.timeout)[1]
    ckpts = sorted(f for f in os.listdir(part) if "_checkpoint_" in f and f.endswith(".bin"))
    print(f"SIGTERM to the {len(children)} processes of a run on 2: exit {proc.returncode}; {err.strip()}")
    if proc.returncode != 143 or not ckpts or len(children) != 2:
        return False
    run(a.fesim, path, [*cpu, "--output", part, "--restart", os.path.join(part, ckpts[-1])],
        launcher=mpi_launcher(3), timeout=a.timeout)
    return compare_mpi(name, serial, part, 3, rtol, magnitudes, f"{ckpts[-1]} continued on 3 processes") and ok


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("fesim")
    p.add_argument("case_dir")
    p.add_argument("check", choices=["error", "order", "time-order", "conservation", "strategies", "backends",
                                     "velocity-files", "advection-forms", "formats",
                                      "restart", "signal", "bounds", "cfl", "probes", "tracers", "budget", "mpi",
                                     "mpi-restart"])
    p.add_argument("--every-checkpoint", type=int, default=10)
    p.add_argument("--size", type=float)
    p.add_argument("--dt", type=float)
    p.add_argument("--end", type=float)
    p.add_argument("--splitting")
    p.add_argument("--every", type=int, help="probes: dumps every N steps (default 10); mpi: (default the case's)")
    p.add_argument("--probes-every", type=int, help="<probes every>: a probes row every N steps")
    p.add_argument("--probe", action="append", default=[], help="NAME=X,Y[,Z]: a <probe> added to the case")
    p.add_argument("--tracer", action="append", default=[],
                   help="NAME=INITIAL: a copy of the first <tracer> added to the case, with this "
                   "name and initial value (and no exact solution)")
    p.add_argument("--max-error", type=float, help="probes: the largest |probe - exact|")
    p.add_argument("--cpu-rtol", type=float, default=1e-9, help="probes with --backend cuda: GPU against CPU")
    p.add_argument("--param", action="append", default=[], help="NAME=VALUE: a <param> of the case")
    p.add_argument("--scheme", action="append", default=[], help="ATTR=VALUE: an attribute of <scheme>")
    p.add_argument("--solver", action="append", default=[], help="ATTR=VALUE: an attribute of <solver>")
    p.add_argument("--fluxes", action="store_true", help="a <fluxes/> added to the case")
    p.add_argument("--sizes", type=lambda s: [float(x) for x in s.split(",")])
    p.add_argument("--dts", type=lambda s: [float(x) for x in s.split(",")])
    p.add_argument("--cfl", type=float, help="dt = cfl * size in order checks")
    p.add_argument("--max-l2", type=float)
    p.add_argument("--min-l2", type=float)
    p.add_argument("--max-linf", type=float)
    p.add_argument("--min-order", type=float)
    p.add_argument("--max-order", type=float)
    p.add_argument("--order-by", choices=["nodes", "size"], default="nodes")
    p.add_argument("--rtol", type=float)
    p.add_argument("--lo", type=float, default=0.0)
    p.add_argument("--hi", type=float, default=1.0)
    p.add_argument("--tol", type=float, default=1e-12)
    p.add_argument("--revolution", action="store_true")
    p.add_argument("--outside", action="store_true")
    p.add_argument("--max-l1", type=float)
    p.add_argument("--speed", help="cfl: the flow's speed as a Python expression of t")
    p.add_argument("--min-capped", type=int, default=1)
    p.add_argument("--min-at-cfl", type=int, default=1)
    p.add_argument("--stabilisation", default=None)
    p.add_argument("--assembly", default=None)
    p.add_argument("--loads", default=None, help="quadrature or interpolated")
    p.add_argument("--backend", default=None, help="cpu or cuda; with cuda, exit 77 (skip) without a GPU")
    p.add_argument("--deterministic", action="store_true", help="passed to fesim")
    p.add_argument("--flow", help="a case in the case folder run first: its dumps are the case's velocity")
    p.add_argument("--mesh", help="the mesh file of the case (and of --flow)")
    p.add_argument("--conservative", type=float, help="scheme@conservative_advection")
    p.add_argument("--min-drift", type=float)
    p.add_argument("--max-diff", type=float)
    p.add_argument("--expect", action="append", default=[], help="budget: COLUMN=VALUE in every step")
    p.add_argument("--expect-rtol", type=float, default=1e-12)
    p.add_argument("--ranks", type=lambda s: [int(x) for x in s.split(",")], default=[2, 3],
                   help="mpi: the numbers of processes to compare with the serial run (default 2,3)")
    p.add_argument("--repeat", action="store_true",
                   help="mpi: each run on several processes made twice, the second the same bits as the first")
    p.add_argument("--timeout", type=float, default=300, help="mpi: seconds each run may take (default 300)")
    p.add_argument("--restarts", default="1:2,2:3,2:1", help="mpi-restart: P:Q,... processes before and after")
    a = p.parse_args()
    scheme = (["--stabilisation", a.stabilisation] if a.stabilisation else []) + (["--loads", a.loads] if a.loads else [])
    extra = (["--assembly", a.assembly] if a.assembly else []) + scheme
    extra += ["--deterministic"] if a.deterministic else []
    if a.backend:
        extra += ["--backend", a.backend]
        probe = subprocess.run([a.fesim, "--quiet", *extra, "--check", os.path.join(a.case_dir, "case.xml")],
                               capture_output=True, text=True)
        if probe.returncode == 4:
            print(f"skipped: {probe.stderr.strip()}")
            return SKIP
    over = dict(size=a.size, dt=a.dt, end=a.end, splitting=a.splitting, probes_every=a.probes_every,
                probes=a.probe, tracers=a.tracer, params=dict(kv.split("=", 1) for kv in a.param),
                scheme=dict(kv.split("=", 1) for kv in a.scheme),
                solver=dict(kv.split("=", 1) for kv in a.solver), fluxes=a.fluxes,
                mesh_file=os.path.abspath(a.mesh) if a.mesh else None, conservative=a.conservative)

    with tempfile.TemporaryDirectory() as work:
        if a.flow:
            over["velocity_root"] = run_flow(a, work, over)
        if a.check == "error":
            path, name, out = make_case(a.case_dir, work, "run", **over)
            run(a.fesim, path, extra)
            header, *rows = [line.split(",") for line in open(os.path.join(out, name + ".stat")).read().split()]
            ok = True
            for t in tracer_names(path):
                cols = tracer_columns(header, t)
                l2, linf = float(rows[-1][cols["l2_error"]]), float(rows[-1][cols["linf_error"]])
                print(f"{t}: final l2_error {l2:.6e}, linf_error {linf:.6e}")
                ok = ok and (l2 <= a.max_l2 and (a.min_l2 is None or l2 >= a.min_l2)
                             and (a.max_linf is None or linf <= a.max_linf))
        elif a.check == "order":
            errors, hs = [], []
            for i, h in enumerate(a.sizes):
                o = dict(over, size=h, dt=a.cfl * h if a.cfl else a.dt)
                path, name, out = make_case(a.case_dir, work, f"h{i}", **o)
                dim, nodes = mesh_info(a.fesim, path)
                run(a.fesim, path, extra)
                errors.append(read_stat(out, name)[-1]["l2_error"])
                hs.append(h if a.order_by == "size" else nodes ** (-1.0 / dim))  # effective resolution
                print(f"size {h:<8g} {nodes:8d} nodes  l2_error {errors[-1]:.6e}")
            orders = [order(errors[i], errors[i + 1], hs[i] / hs[i + 1]) for i in range(len(errors) - 1)]
            print("orders " + " ".join(f"{q:.3f}" for q in orders))
            ok = min(orders) >= a.min_order and (a.max_order is None or max(orders) <= a.max_order)
        elif a.check == "time-order":
            fields = []
            for i, dt in enumerate(a.dts):
                path, name, out = make_case(a.case_dir, work, f"dt{i}", **dict(over, dt=dt))
                run(a.fesim, path, extra)
                fields.append(final_field(out, name, tracer_name(a.case_dir)))
            diffs = [max(abs(x - y) for x, y in zip(fields[i], fields[i + 1])) for i in range(len(fields) - 1)]
            orders = [order(diffs[i], diffs[i + 1], a.dts[i] / a.dts[i + 1]) for i in range(len(diffs) - 1)]
            print("dt " + " ".join(f"{d:g}" for d in a.dts))
            print("max |T(dt) - T(dt/2)| " + " ".join(f"{d:.3e}" for d in diffs))
            print("orders " + " ".join(f"{q:.3f}" for q in orders))
            ok = all(a.min_order <= q <= (a.max_order or 99) for q in orders)
        elif a.check == "conservation":
            path, name, out = make_case(a.case_dir, work, "run", **over)
            run(a.fesim, path, extra)
            rows = read_stat(out, name)
            i0, i1 = rows[0]["integral"], rows[-1]["integral"]
            drift = max(abs(r["integral"] - i0) for r in rows) / abs(i0)
            print(f"integral {i0:.17g} -> {i1:.17g}, largest relative drift {drift:.3e}")
            ok = drift <= a.rtol
        elif a.check == "restart":
            k = a.every_checkpoint
            by_time = ET.parse(os.path.join(a.case_dir, "case.xml")).getroot().find("output[@period]") is not None
            path, name, out = make_case(a.case_dir, work, "full", every=None if by_time else k, checkpoint=k,
                                        **over)
            run(a.fesim, path, extra)
            # the killed run: its outputs up to step k + k/2, restarted from checkpoint k
            part = os.path.join(work, "part")
            os.makedirs(part)
            rows = open(os.path.join(out, name + ".stat")).read().splitlines(True)
            open(os.path.join(part, name + ".stat"), "w").writelines(rows[: k + k // 2 + 2])
            probes = os.path.join(out, name + ".probes.csv")
            if os.path.exists(probes):
                lines = open(probes).read().splitlines(True)
                open(os.path.join(part, name + ".probes.csv"), "w").writelines(
                    lines[:1] + [r for r in lines[1:] if int(r.split(",")[0]) <= k + k // 2])
            ckpt = os.path.join(part, f"{name}_checkpoint_{k:06d}.bin")
            shutil.copy(os.path.join(out, f"{name}_checkpoint_{k:06d}.bin"), ckpt)
            shutil.copy(os.path.join(out, name + ".run"), part)  # whose outputs these are
            run(a.fesim, path, [*extra, "--output", part, "--restart", ckpt])
            full = [r.rsplit(",", 1)[0] for r in rows]  # all columns but wall_seconds
            again = [r.rsplit(",", 1)[0] for r in open(os.path.join(part, name + ".stat")).read().splitlines(True)]
            last = sorted(f for f in os.listdir(out) if f.endswith(".vtk"))[-1]
            same_vtk = open(os.path.join(out, last), "rb").read() == open(os.path.join(part, last), "rb").read()
            same_probes = same_file(probes, os.path.join(part, name + ".probes.csv"))
            print(f"{len(full)} stat rows, restarted run: {len(again)}; identical rows: {full == again}; "
                  f"final dump {last} identical: {same_vtk}{same_probes[1]}")
            ok = full == again and same_vtk and same_probes[0]
        elif a.check == "signal":
            import time
            path, name, out = make_case(a.case_dir, work, "full", **over)
            run(a.fesim, path, extra)
            rows = open(os.path.join(out, name + ".stat")).read().splitlines(True)
            part = os.path.join(work, "part")
            proc = subprocess.Popen([a.fesim, "--quiet", *extra, "--output", part, path],
                                    stderr=subprocess.PIPE, text=True)
            stat = os.path.join(part, name + ".stat")
            deadline = time.time() + 60
            while time.time() < deadline and proc.poll() is None:
                if os.path.exists(stat) and len(open(stat).read().splitlines()) > 5:
                    break
                time.sleep(0.01)
            proc.send_signal(signal.SIGTERM)
            err = proc.communicate()[1]
            ckpts = sorted(f for f in os.listdir(part) if "_checkpoint_" in f)
            print(f"exit {proc.returncode}; {err.strip()}")
            ok = proc.returncode == 143 and len(ckpts) == 1
            if ok:
                run(a.fesim, path, [*extra, "--output", part, "--restart", os.path.join(part, ckpts[0])])
                again = open(stat).read().splitlines(True)
                last = sorted(f for f in os.listdir(out) if f.endswith(".vtk"))[-1]
                same = [r.rsplit(",", 1)[0] for r in rows] == [r.rsplit(",", 1)[0] for r in again]
                same_vtk = open(os.path.join(out, last), "rb").read() == open(os.path.join(part, last), "rb").read()
                same_probes = same_file(os.path.join(out, name + ".probes.csv"),
                                        os.path.join(part, name + ".probes.csv"))
                print(f"restarted from {ckpts[0]}: identical stat rows {same}, final dump identical {same_vtk}"
                      f"{same_probes[1]}")
                ok = same and same_vtk and same_probes[0]
        elif a.check == "bounds":
            ok = True
            strategies = [a.assembly] if a.assembly else ["lma", "addto", "matfree"]
            plain = [*scheme, *(["--backend", a.backend] if a.backend else [])]
            fields = {}
            for s in strategies:
                path, name, out = make_case(a.case_dir, work, s, **over)
                run(a.fesim, path, [*plain, "--assembly", s], skip_without_gpu=True)
                rows = read_stat(out, name)
                lo, hi = min(r["min"] for r in rows), max(r["max"] for r in rows)
                good = (lo >= a.lo - a.tol and hi <= a.hi + a.tol) != a.outside
                files = dumps(out, name)
                fields[s] = read_vtk_field(os.path.join(out, files[-1]), tracer_name(a.case_dir))
                report = f"{s}: range over the run [{lo:.17g}, {hi:.17g}]"
                if a.revolution:
                    start = read_vtk_field(os.path.join(out, files[0]), tracer_name(a.case_dir))
                    m = lumped_masses(*read_vtk_mesh(os.path.join(out, files[-1])))
                    l1 = sum(w * abs(x - y) for w, x, y in zip(m, fields[s], start))
                    l2 = math.sqrt(sum(w * (x - y) ** 2 for w, x, y in zip(m, fields[s], start)))
                    report += f", after one revolution L1 {l1:.4e} L2 {l2:.4e}"
                    good = good and (a.max_l1 is None or l1 <= a.max_l1) and (a.max_l2 is None or l2 <= a.max_l2)
                print(report + ("" if good else "  <- FAIL"))
                ok = ok and good
            for s in strategies[1:]:
                diff = max(abs(x - y) for x, y in zip(fields[strategies[0]], fields[s]))
                print(f"max |T_{strategies[0]} - T_{s}| = {diff:.3e}")
                ok = ok and (a.rtol is None or diff <= a.rtol)
        elif a.check == "cfl":
            ok = check_cfl(a, work, over, extra)
        elif a.check == "velocity-files":
            path, name, out = make_case(a.case_dir, work, "files", **over)
            run(a.fesim, path, extra, skip_without_gpu=True)
            copy, out_expr = velocity_expressions(a, work, path)
            run(a.fesim, copy, extra)
            rows, field = compare_runs(out, out_expr, name, tracer_name(a.case_dir))
            print(f"velocity from files against the expressions: stat rows (min, max, integral) within "
                  f"{rows:.3e}, final field within {field:.3e} (relative to max |T|)")
            ok = rows <= a.rtol and field <= a.rtol
        elif a.check == "advection-forms":
            fields, drifts = {}, {}
            for beta in (1.0, 0.0):
                path, name, out = make_case(a.case_dir, work, f"beta{beta:g}", **dict(over, conservative=beta))
                run(a.fesim, path, extra, skip_without_gpu=True)
                rows = read_stat(out, name)
                i0 = rows[0]["integral"]
                drifts[beta] = max(abs(r["integral"] - i0) for r in rows) / abs(i0)
                fields[beta] = final_field(out, name, tracer_name(a.case_dir))
                print(f"conservative_advection {beta:g}: integral {i0:.17g} -> {rows[-1]['integral']:.17g}, "
                      f"largest relative drift {drifts[beta]:.3e}")
            diff = relative_difference(fields[1.0], fields[0.0], max(abs(x) for x in fields[1.0]))
            print(f"max |T_conservative - T_nonconservative| / max |T| = {diff:.3e}")
            ok = a.rtol is None or drifts[1.0] <= a.rtol
            ok = ok and (a.min_drift is None or drifts[0.0] >= a.min_drift)
            ok = ok and (a.max_diff is None or diff <= a.max_diff)
        elif a.check == "formats":
            import velocity_formats
            path, name, out = make_case(a.case_dir, work, "series", **over)
            run(a.fesim, path, extra)
            series = ET.parse(path).getroot().find("velocity").get("series")
            ok = True
            for tag, files, digits in velocity_formats.write_all(series, os.path.join(work, "formats"), a.mesh):
                copy = velocity_formats.case_with_files(path, files, os.path.join(work, tag + ".xml"),
                                                        os.path.join(work, tag))
                run(a.fesim, copy, extra)
                rows, field = compare_runs(out, os.path.join(work, tag), name, tracer_name(a.case_dir))
                tol = max(a.rtol, 100 * digits) if digits else a.rtol  # the file's own precision
                good = rows <= tol and field <= tol
                print(f"{tag:34s} stat rows within {rows:.3e}, final field within {field:.3e}"
                      + (f" (numbers of {digits:g} precision in the file)" if digits else "")
                      + ("" if good else "  <- FAIL"))
                ok = ok and good
        elif a.check == "probes":
            ok = check_probes(a, work, over, extra)
        elif a.check == "tracers":
            ok = check_tracers(a, work, over, extra)
        elif a.check in ("mpi", "mpi-restart"):
            if shutil.which("mpirun") is None:
                print("skipped: no mpirun on PATH")
                return SKIP
            ok = (check_mpi if a.check == "mpi" else check_mpi_restart)(a, work, over, extra)
        elif a.check == "budget":
            ok = check_budget(a, work, over, [*scheme, *(["--deterministic"] if a.deterministic else [])])
        elif a.check == "backends":
            ok = True
            probe = subprocess.run([a.fesim, "--quiet", "--backend", "cuda", "--check",
                                    os.path.join(a.case_dir, "case.xml")], capture_output=True, text=True)
            if probe.returncode == 4:
                print(f"skipped: {probe.stderr.strip()}")
                return SKIP
            # the CPU reference once (its strategies agree to round-off: the strategies checks)
            path, name, out = make_case(a.case_dir, work, "cpu", **over)
            run(a.fesim, path, ["--backend", "cpu", *scheme])
            names = tracer_names(path)
            reference = {t: final_field(out, name, t) for t in names}
            for variant in (["--assembly", "lma"], ["--assembly", "lma", "--deterministic"], ["--assembly", "addto"],
                            ["--assembly", "matfree"], ["--assembly", "matfree", "--deterministic"]):
                tag = "_".join(v.strip("-") for v in variant)
                path, name, out = make_case(a.case_dir, work, f"cuda_{tag}", **over)
                run(a.fesim, path, ["--backend", "cuda", *variant, *scheme], skip_without_gpu=True)
                header, *rows = [line.split(",") for line in open(os.path.join(out, name + ".stat")).read().split()]
                for t in names:
                    field = final_field(out, name, t)
                    cols = tracer_columns(header, t)
                    l2 = float(rows[-1][cols["l2_error"]]) if "l2_error" in cols else None
                    diff = max(abs(x - y) for x, y in zip(field, reference[t])) / max(abs(x) for x in reference[t])
                    good = diff <= a.rtol and (a.max_l2 is None or l2 <= a.max_l2)
                    print(f"{' '.join(variant)}: max |{t}_cuda - {t}_cpu| / max |{t}| = {diff:.3e}, cuda l2_error {l2}"
                          + ("" if good else "  <- FAIL"))
                    ok = ok and good
        else:
            fields = {}
            for s in ("lma", "addto", "matfree"):
                path, name, out = make_case(a.case_dir, work, s, **over)
                run(a.fesim, path, ["--assembly", s, *scheme])
                fields[s] = final_field(out, name, tracer_name(a.case_dir))
            scale = max(abs(x) for x in fields["lma"])
            ok = True
            for s in ("addto", "matfree"):
                diff = max(abs(x - y) for x, y in zip(fields["lma"], fields[s])) / scale
                print(f"max |T_lma - T_{s}| / max |T| = {diff:.3e}")
                ok = ok and diff <= a.rtol
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
