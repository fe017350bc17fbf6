#!/usr/bin/env python3
"""Size sweep of fesim's benchmarks: one merged CSV of every phase, strategy and backend.

    python3 tools/bench/sweep.py [options] --out sweep.csv

For each structured mesh (2D: 2 N^2 triangles, 3D: 6 N^3 tetrahedra) it runs
  * fesim-bench-operators DIM N cuda R    phases of each strategy, element-kernel
                                           variants, the device's copy bandwidth
  * fesim-bench-case on cuda              a whole run per strategy (--strategies)
  * fesim-export-matrix + cupy_cg.py      CuPy's SpMV and CG on fesim's matrix
  * the CPU backend on all cores          fesim-bench-operators and fesim-bench-case
                                           (--cpu-strategies) up to --cpu-max-cells
and writes one row per (size, backend, strategy) with the measured times, the
compulsory bytes and flops of each phase (the model of tools/bench/README.md),
the achieved GB/s, GFLOP/s and fraction of copy bandwidth, and the bandwidth
floors of a CG iteration and of a time step.  The CSV is rewritten after every
command, so an interrupted sweep keeps what it measured.  Python 3 standard
library only (cupy_cg.py, run with --python, needs numpy and CuPy).
"""
import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

DEFAULT_2D = [125, 250, 500, 710, 1000, 1600, 2250]  # 31K ... 10.1M triangles; 710: 0.5M nodes
DEFAULT_3D = [26, 40, 60, 80, 90, 120]               # 105K ... 10.4M tetrahedra; 80: 0.53M nodes
QUICK_2D = [8, 16, 32]
QUICK_3D = [4, 6, 8]
STRATEGIES = ["lma", "lma-deterministic", "addto", "matfree"]

# ---------------------------------------------------------------- the model (README.md)

# flops per element, counted in assembly/element.h (add, multiply, divide: 1 each); "local" is
# the symmetric form M + 0.01 K, whose upper triangle is computed whatever the storage
FLOPS = {
    2: {"local": 104, "local_adv": 186, "lma": 21, "matfree": 98, "matfree_adv": 98},
    3: {"local": 308, "local_adv": 583, "lma": 36, "matfree": 212, "matfree_adv": 205},
}
CG_VECTORS = 13        # doubles per node moved by a CG iteration besides the apply (solvers/cg.c)
CG_VECTOR_FLOPS = 13   # flops per node of the same vector operations
STEP_APPLIES = 12      # applies per step outside CG iterations (app/run.c, Strang + RK4)
STEP_ADV_APPLIES = 4   # of which advection-operator applies (matfree: reads the velocity)
STEP_VECTORS = 137     # doubles per node moved per step outside CG iterations and applies
STEP_VECTOR_FLOPS = 70


def structured(d, n):
    """cells, nodes and CSR non-zeros of the structured mesh (Kuhn subdivision)."""
    if d == 2:
        edges = 2 * n * (n + 1) + n * n
        return 2 * n * n, (n + 1) ** 2, (n + 1) ** 2 + 2 * edges
    edges = 3 * n * (n + 1) ** 2 + 3 * n * n * (n + 1) + n ** 3
    return 6 * n ** 3, (n + 1) ** 3, (n + 1) ** 3 + 2 * edges


def base_strategy(s):
    return s.split("-")[0]


def stored_entries(d, strategy):
    """Entries stored per element: LMA keeps the upper triangle of the benchmark's symmetric
    form unless the strategy (or kernel variant) says "-full"; addto stores every entry."""
    nv = d + 1
    if base_strategy(strategy) == "addto" or "-full" in strategy:
        return nv * nv
    return nv * (nv + 1) // 2


def phase_model(d, nc, nn, nnz, strategy):
    """{phase: (bytes, flops)} of the operator benchmark's form (M + 0.01 K) for a strategy."""
    nv = d + 1
    nk = nv * nv
    ns = stored_entries(d, strategy)
    s = base_strategy(strategy)
    f = FLOPS[d]
    local = (nn * d * 8 + nc * nv * 4 + nc + nc * ns * 8, f["local"] * nc)
    apply = {
        "addto": (nnz * 12 + nn * 4 + nn * 16, 2 * nnz),
        "lma": (nc * ns * 8 + nc * nv * 4 + nn * 16, f["lma"] * nc),
        "matfree": (nn * d * 8 + nc * nv * 4 + nc + nn * 16, f["matfree"] * nc),
    }.get(s)
    m = {}
    if s in ("addto", "lma"):
        m["local_assembly"] = local
    if s == "addto":
        m["global_assembly"] = (nc * nk * 12 + nnz * 16, nc * nk)
    if apply:
        m["apply"] = apply
        m["cg_iteration"] = (apply[0] + CG_VECTORS * 8 * nn, apply[1] + CG_VECTOR_FLOPS * nn)
    return m


def step_model(d, nc, nn, nnz, strategy, iters_per_step, loop_assemblies_per_step):
    """(bytes, flops) of one step of the sweep cases: the applies and vector operations
    outside CG, the measured CG iterations, and the assemblies inside the time loop."""
    m = phase_model(d, nc, nn, nnz, strategy)
    if "apply" not in m:
        return None
    apply_b, apply_f = m["apply"]
    it_b, it_f = m["cg_iteration"]
    s = base_strategy(strategy)
    f = FLOPS[d]
    nbytes = STEP_APPLIES * apply_b + STEP_VECTORS * 8 * nn + iters_per_step * it_b
    flops = STEP_APPLIES * apply_f + STEP_VECTOR_FLOPS * nn + iters_per_step * it_f
    if s == "matfree":
        nbytes += STEP_ADV_APPLIES * nn * d * 8  # the velocity, read by each advection apply
        flops += STEP_ADV_APPLIES * (f["matfree_adv"] - f["matfree"]) * nc
    else:  # the loop's assemblies (the advection operator's reads the velocity)
        one_b = m["local_assembly"][0] + (m["global_assembly"][0] if "global_assembly" in m else 0)
        one_f = m["local_assembly"][1] + (m["global_assembly"][1] if "global_assembly" in m else 0)
        nbytes += loop_assemblies_per_step * one_b + (nn * d * 8 if loop_assemblies_per_step else 0)
        flops += loop_assemblies_per_step * one_f
    return nbytes, flops


# ---------------------------------------------------------------- the CSV

PHASES = ["local_assembly", "global_assembly", "apply", "cg_iteration"]
COLUMNS = (["dim", "mesh_n", "elements", "nodes", "nnz", "backend", "strategy", "kind", "threads",
            "copy_GB_per_s"]
           + [f"{p}_{c}" for p in PHASES
              for c in ("s", "bytes", "flops", "GB_per_s", "GFLOP_per_s", "fraction_of_copy")]
           + ["cg_iteration_sync_s", "cg_iteration_ahead_s", "cg_iteration_graph_s", "cg_iterations", "cg_iteration_floor_s", "cg_iteration_over_floor",
              "cupy_cg_over_this",
              "steps", "setup_s", "step_s", "step_assembly_s", "step_solve_s", "step_other_s",
              "cg_iterations_per_step", "run_cg_iteration_s",
              "step_bytes", "step_flops", "step_GB_per_s", "step_GFLOP_per_s", "step_fraction_of_copy",
              "step_floor_s", "step_over_floor", "cpu_step_over_this", "whole_run_s"])


def fmt(v):
    if v is None or v == "":
        return ""
    if isinstance(v, float):
        if not math.isfinite(v):
            return ""
        return f"{v:.6g}"
    return str(v)


class Table:
    """Rows keyed by (dim, mesh_n, backend, strategy, kind); derived columns on write."""

    def __init__(self, path, append):
        self.path = Path(path)
        self.rows = {}
        if append and self.path.exists():
            with open(self.path, newline="") as f:
                for r in csv.DictReader(f):
                    self.rows[(int(r["dim"]), int(r["mesh_n"]), r["backend"], r["strategy"], r["kind"])] = r

    def row(self, d, n, backend, strategy, kind="fesim"):
        key = (d, n, backend, strategy, kind)
        r = self.rows.get(key)
        if r is None or "_new" not in r:  # absent, or read from the CSV being appended to
            nc, nn, nnz = structured(d, n)
            r = {"dim": d, "mesh_n": n, "elements": nc, "nodes": nn, "nnz": nnz, "backend": backend,
                 "strategy": strategy, "kind": kind, "_new": True}
            self.rows[key] = r
        return r

    def derive(self):
        new = [r for r in self.rows.values() if "_new" in r]
        for r in new:
            d, nc, nn, nnz = r["dim"], r["elements"], r["nodes"], r["nnz"]
            copy = r.get("copy_GB_per_s")
            strategy = "addto" if r["kind"] == "peer" else r["strategy"]  # CuPy: the addto CSR
            model = phase_model(d, nc, nn, nnz, strategy) if r["kind"] in ("fesim", "peer") else {}
            if r["kind"] == "kernel_variant":  # epbE_tpeT, epbE_tpeT-full
                variant = "lma-full" if r["strategy"].endswith("-full") else "lma"
                model = {"local_assembly": phase_model(d, nc, nn, nnz, variant)["local_assembly"]}
            for p in PHASES:
                t = r.get(f"{p}_s")
                if not t or p not in model:
                    continue
                b, fl = model[p]
                r[f"{p}_bytes"], r[f"{p}_flops"] = float(b), float(fl)
                r[f"{p}_GB_per_s"] = b / t / 1e9
                r[f"{p}_GFLOP_per_s"] = fl / t / 1e9
                if copy:
                    r[f"{p}_fraction_of_copy"] = b / t / 1e9 / copy
                    if p == "cg_iteration":
                        r["cg_iteration_floor_s"] = b / (copy * 1e9)
                        r["cg_iteration_over_floor"] = t / r["cg_iteration_floor_s"]
            if r.get("step_s") and r.get("cg_iterations_per_step") is not None:
                sm = step_model(d, nc, nn, nnz, r["strategy"], r["cg_iterations_per_step"],
                                r.get("_loop_assemblies_per_step", 0.0))
                if sm:
                    b, fl = sm
                    t = r["step_s"]
                    r["step_bytes"], r["step_flops"] = float(b), float(fl)
                    r["step_GB_per_s"], r["step_GFLOP_per_s"] = b / t / 1e9, fl / t / 1e9
                    if copy:
                        r["step_fraction_of_copy"] = b / t / 1e9 / copy
                        r["step_floor_s"] = b / (copy * 1e9)
                        r["step_over_floor"] = t / r["step_floor_s"]
        # peers: CuPy's CG against each cuda strategy's, the CPU step against the GPU's
        for r in new:
            if r["backend"] != "cuda" or r["kind"] != "fesim":
                continue
            peer = self.rows.get((r["dim"], r["mesh_n"], "cupy", "csr", "peer"))
            if peer and peer.get("cg_iteration_s") and r.get("cg_iteration_s"):
                r["cupy_cg_over_this"] = float(peer["cg_iteration_s"]) / r["cg_iteration_s"]
            cpu = [self.rows.get((r["dim"], r["mesh_n"], "cpu", s, "fesim")) for s in
                   (r["strategy"], base_strategy(r["strategy"]), "lma", "addto")]
            cpu = [c for c in cpu if c and c.get("step_s")]
            if cpu and r.get("step_s"):
                r["cpu_step_over_this"] = float(cpu[0]["step_s"]) / r["step_s"]

    def write(self):
        self.derive()
        order = {"fesim": 0, "peer": 1, "copy": 2, "kernel_variant": 3}
        rows = sorted(self.rows.values(), key=lambda r: (int(r["dim"]), int(r["elements"]),
                                                         order.get(r["kind"], 9), r["backend"], r["strategy"]))
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            for r in rows:
                w.writerow([fmt(r.get(c)) for c in COLUMNS])
        os.replace(tmp, self.path)


# ---------------------------------------------------------------- running commands

class Runner:
    def __init__(self, args, log_path, raw_path):
        self.args = args
        self.t0 = time.time()
        self.log_file = open(log_path, "a")
        self.raw = open(raw_path, "a")
        self.env = dict(os.environ)
        self.durations = []

    def log(self, msg):
        line = f"[sweep {time.time() - self.t0:7.1f} s] {msg}"
        print(line, file=sys.stderr, flush=True)
        self.log_file.write(line + "\n")
        self.log_file.flush()

    def run(self, cmd, what, env_extra=None, ok=(0,), own_env=False):
        """Run cmd; its stdout when it exits with a code in ok, else None.  own_env: the
        sweep's own environment, without the libraries extracted for fesim's tools."""
        left = self.args.time_limit - (time.time() - self.t0)
        if left < 5:
            self.log(f"{what}: skipped, past --time-limit {self.args.time_limit:.0f} s")
            return None
        cmd = [str(c) for c in cmd]
        if self.args.dry_run:
            self.log(f"{what}: would run {' '.join(cmd)}")
            return ""
        env = dict(os.environ if own_env else self.env, **(env_extra or {}))
        timeout = max(5.0, min(self.args.timeout, left))
        start = time.time()
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=timeout, env=env, cwd=ROOT)
            out, err, rc = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
            rc = "timeout"
        except OSError as e:
            out, err, rc = "", str(e), "not started"
        dt = time.time() - start
        self.durations.append((dt, what))
        extra = " ".join(f"{k}={v}" for k, v in (env_extra or {}).items())
        self.raw.write(f"## {what}: {extra + ' ' if extra else ''}{' '.join(cmd)}\n"
                       f"## exit {rc} after {dt:.2f} s\n{out}")
        if err:
            self.raw.write("## stderr\n" + err)
        self.raw.flush()
        if rc == "timeout":
            self.log(f"{what}: TIMEOUT after {dt:.1f} s (limit {timeout:.0f} s): {' '.join(cmd)}")
            return None
        tail = " | ".join(err.strip().splitlines()[-2:]) if err.strip() else ""
        if rc not in ok:
            self.log(f"{what}: FAILED, exit {rc} after {dt:.1f} s: {' '.join(cmd)}" + (f": {tail}" if tail else ""))
            return None
        self.log(f"{what}: {dt:.1f} s" + (f" ({tail})" if tail and rc != 0 else ""))
        return out if rc == 0 else None


def parse_operator_rows(text):
    """fesim-bench-operators or cupy_cg.py output: (copy GB/s or None, [row dicts])."""
    copy, lines = None, []
    for line in text.splitlines():
        if line.startswith("# copy bandwidth"):
            copy = float(line.split()[3])
        elif line and not line.startswith("#"):
            lines.append(line)
    return copy, list(csv.DictReader(lines))


def record_operator_rows(table, d, n, backend, text, threads=None):
    copy, rows = parse_operator_rows(text)
    if copy:
        c = table.row(d, n, backend, "memcpy" if backend == "cupy" else "copy", "copy")
        c["copy_GB_per_s"] = copy
    for x in rows:
        phase, strategy, t = x["phase"], x["strategy"], float(x["seconds"])
        if backend == "cupy":
            if phase == "copy":
                continue
            r = table.row(d, n, "cupy", strategy, "peer")
        elif phase == "element_kernel":
            r = table.row(d, n, backend, strategy, "kernel_variant")
            phase = "local_assembly"
        else:
            r = table.row(d, n, backend, strategy)
        if copy and backend != "cupy":
            r["copy_GB_per_s"] = copy
        if threads:
            r["threads"] = threads
        if phase in ("cg_iteration_sync", "cg_iteration_ahead", "cg_iteration_graph"):
            r[f"{phase}_s"] = t
            continue
        r[f"{phase}_s"] = t
        if phase == "cg_iteration":
            r["cg_iterations"] = int(float(x["iterations"]))
        # fesim's own byte count against the model's: a difference is worth knowing
        variant = "lma-full" if strategy.endswith("-full") else "lma"  # element-kernel rows
        model = phase_model(d, int(x["cells"]), int(x["nodes"]), structured(d, n)[2],
                            variant if phase == "local_assembly" and strategy.startswith("epb")
                            else strategy).get(phase)
        if model and abs(float(x["bytes"]) - model[0]) > 1e-4 * model[0]:
            r.setdefault("_byte_notes", set()).add(
                f"{phase}: reported {float(x['bytes']):.4g} B, model {model[0]:.4g} B")
    return copy


def record_case_row(table, d, n, header, text, threads=None):
    lines = [l for l in text.splitlines() if l and not l.startswith("#")]
    if not lines:
        return
    x = dict(zip(header, lines[-1].split(",")))
    r = table.row(d, n, x["backend"], x["strategy"])
    steps = int(x["steps"])
    if threads:
        r["threads"] = threads
    assemblies = int(x["assemblies"])
    # the mass matrix is assembled at set-up, every other assembly in the loop (app/run.c)
    loop_share = (assemblies - 1) / assemblies if assemblies > 1 else 0.0
    assembly = (float(x["local_assembly_s"]) + float(x["global_assembly_s"])) * loop_share / steps
    r.update({
        "steps": steps, "setup_s": float(x["setup_s"]), "step_s": float(x["step_s"]),
        "step_assembly_s": assembly, "step_solve_s": float(x["cg_s"]) / steps,
        "cg_iterations_per_step": float(x["cg_iterations"]) / steps,
        "run_cg_iteration_s": float(x["cg_iteration_s"]), "whole_run_s": float(x["whole_run_s"]),
        "_loop_assemblies_per_step": max(assemblies - 1, 0) / steps,
    })
    # the share is an estimate (the set-up's mass assembly may cost more than the others, e.g.
    # the first OpenMP region): never more than the step leaves besides the solves
    r["step_assembly_s"] = max(0.0, min(assembly, r["step_s"] - r["step_solve_s"]))
    r["step_other_s"] = r["step_s"] - r["step_assembly_s"] - r["step_solve_s"]


def copy_for(table, d, n, backend):
    c = table.rows.get((d, n, backend, "copy", "copy"))
    return c.get("copy_GB_per_s") if c else None


def fill_copy(table, d, n, backend):
    """bench-case rows take the copy bandwidth measured by the operator benchmark of the same size."""
    copy = copy_for(table, d, n, backend)
    if copy is None:  # any size of this backend: it is a property of the machine
        cs = [float(r["copy_GB_per_s"]) for k, r in table.rows.items()
              if k[2] == backend and k[4] == "copy" and r.get("copy_GB_per_s")]
        copy = sorted(cs)[len(cs) // 2] if cs else None
    if copy is None:
        return
    for k, r in table.rows.items():
        if k[:3] == (d, n, backend) and not r.get("copy_GB_per_s"):
            r["copy_GB_per_s"] = copy


# ---------------------------------------------------------------- the sweep

def device_libs(runner, bindir, workdir, mode):
    """Make the build's executables start: the libraries packed by ../shared/tools/device-libs."""
    probe = [str(bindir / "fesim-bench-case"), "--header"]
    def starts(env):
        try:
            return subprocess.run(probe, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  env=env, timeout=60).returncode == 0
        except OSError:
            return False
    if mode == "none" or (mode == "auto" and starts(runner.env)):
        return
    tarball = Path(mode) if mode != "auto" else ROOT / ".device-libs" / "libs.tar.xz"
    if not tarball.exists():
        runner.log(f"the executables do not start and {tarball} is missing: build here, then run "
                   "../shared/tools/device-libs build/bin/* (see tools/bench/README.md)")
        sys.exit(2)
    dl = workdir / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    try:
        with tarfile.open(tarball, "r:xz") as tf:
            try:
                tf.extractall(dl, filter="data")
            except TypeError:  # Python < 3.12
                tf.extractall(dl)
    except (tarfile.TarError, ImportError) as e:  # a Python without lzma: tar itself
        runner.log(f"tarfile cannot read {tarball} ({e}); using tar")
        subprocess.run(["tar", "-xJf", str(tarball), "-C", str(dl)], check=True)
    runner.env["LD_LIBRARY_PATH"] = f"{dl}:{runner.env.get('LD_LIBRARY_PATH', '')}".rstrip(":")
    runner.log(f"libraries from {tarball} in {dl} (LD_LIBRARY_PATH)")
    if not starts(runner.env):
        runner.log(f"{probe[0]} still does not start; its error: "
                   + subprocess.run(probe, stderr=subprocess.PIPE, text=True, env=runner.env).stderr.strip())
        sys.exit(2)


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count()


def operator_repeats(backend, cells, quick):
    if backend == "cpu":
        return 2 if quick else 3
    return 3 if quick else max(10, min(200, int(2e8 / cells)))


def sweep_size(a, runner, table, bindir, d, n, backends, header):
    nc, nn, nnz = structured(d, n)
    tag = f"{d}D N={n} ({nc:,} cells, {nn:,} nodes)"
    case = HERE / "cases" / f"sweep_{d}d.xml"
    out_dir = Path(a.workdir) / "out"
    threads = a.threads or cores()
    cpu_env = dict(kv.split("=", 1) for kv in a.cpu_env)
    cpu_env.setdefault("OMP_NUM_THREADS", str(threads))

    def bench_case(backend, strategy, steps, env=None):
        s = base_strategy(strategy)
        cmd = [bindir / "fesim-bench-case", "--backend", backend, "--assembly", s]
        cmd += ["--deterministic"] if strategy.endswith("-deterministic") else []
        cmd += ["--steps", steps, "--courant", a.courant, "--output", out_dir, case, d, n]
        text = runner.run(cmd, f"{tag} {backend} bench-case {strategy}", env)
        shutil.rmtree(out_dir, ignore_errors=True)  # the dumps of 10M cells are large
        if text:
            record_case_row(table, d, n, header, text, threads if backend == "cpu" else None)
            fill_copy(table, d, n, backend)
            table.write()

    if "cuda" in backends:
        if not a.no_operators:
            text = runner.run([bindir / "fesim-bench-operators", d, n, "cuda",
                               operator_repeats("cuda", nc, a.quick)], f"{tag} cuda bench-operators")
            if text:
                record_operator_rows(table, d, n, "cuda", text)
                table.write()
        steps = a.steps or max(10, min(100, int(3e7 / nc)))
        for s in a.strategies:
            bench_case("cuda", s, steps)
    if not a.no_cupy and (bindir / "fesim-export-matrix").exists():
        path = Path(a.workdir) / f"matrix_{d}d_{n}.bin"
        be = "cuda" if "cuda" in backends else "cpu"
        made = runner.run([bindir / "fesim-export-matrix", d, n, path, be], f"{tag} {be} export-matrix",
                          None if be == "cuda" else cpu_env)
        if made is not None:
            copy = copy_for(table, d, n, "cuda")
            cmd = [a.python, HERE / "cupy_cg.py", path, "--iterations", 50]
            cmd += ["--copy-gbs", f"{copy:.1f}"] if copy else []
            text = runner.run(cmd, f"{tag} cupy_cg.py", ok=(0, 77), own_env=True)
            if text:
                record_operator_rows(table, d, n, "cupy", text)
                if copy:
                    for k, r in table.rows.items():
                        if k[:3] == (d, n, "cupy") and k[4] == "peer":
                            r["copy_GB_per_s"] = copy
                table.write()
            if not a.keep_matrices:
                path.unlink(missing_ok=True)
    if "cpu" in backends and nc <= a.cpu_max_cells:
        if not a.no_operators and not a.no_cpu_operators:
            text = runner.run([bindir / "fesim-bench-operators", d, n, "cpu",
                               operator_repeats("cpu", nc, a.quick)], f"{tag} cpu bench-operators", cpu_env)
            if text:
                record_operator_rows(table, d, n, "cpu", text, threads)
                table.write()
        for s in a.cpu_strategies:
            bench_case("cpu", s, a.cpu_steps, cpu_env)
    table.write()


def summary(runner, table):
    main = "cuda" if any(k[2] == "cuda" for k in table.rows) else "cpu"
    runner.log(f"the targets' columns ({main} rows of this sweep):")
    for (d, n, be, s, kind), r in sorted(table.rows.items(), key=lambda kv: (kv[0][0], int(kv[1]["elements"]))):
        if "_new" not in r or kind != "fesim" or be != main:
            continue
        parts = []
        for key, label, f in (("apply_fraction_of_copy", "apply", "{:.0%} of copy"),
                              ("cg_iteration_s", "CG it", "{:.1f} us"),
                              ("cg_iteration_over_floor", "", "{:.2f}x floor"),
                              ("cupy_cg_over_this", "", "cupy/this {:.2f}"),
                              ("step_s", "step", "{:.3f} ms"),
                              ("step_over_floor", "", "{:.2f}x floor"),
                              ("cpu_step_over_this", "", "cpu/gpu {:.0f}x")):
            v = r.get(key)
            if v is not None and v != "":
                v = float(v) * (1e6 if key == "cg_iteration_s" else 1e3 if key == "step_s" else 1)
                parts.append((label + " " if label else "") + f.format(v))
        runner.log(f"  {d}D {int(r['elements']):>10,} cells {s:<18} " + ", ".join(parts))
    notes = {}
    for r in table.rows.values():
        for note in r.get("_byte_notes", ()):
            notes.setdefault(note.split(":")[0], note)
    for note in notes.values():
        runner.log(f"fesim-bench-operators counts other bytes than the model: {note} (example)")
    slow = sorted(runner.durations, reverse=True)[:5]
    runner.log(f"done in {time.time() - runner.t0:.0f} s; longest: "
               + "; ".join(f"{w} {t:.1f} s" for t, w in slow))


def parse_sizes(text):
    return [int(v) for v in text.split(",") if v.strip()]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--out", required=True, help="the merged CSV")
    p.add_argument("--build", default=str(ROOT / "build"), help="build directory (its bin/ holds the tools)")
    p.add_argument("--workdir", default="/tmp/fesim-sweep", help="matrices, dumps, log and raw outputs")
    p.add_argument("--backend", choices=["both", "cuda", "cpu"], default="both",
                   help="cuda: GPU only; cpu: the CPU backend only (no GPU needed); both: GPU and the CPU peer")
    p.add_argument("--dims", default="2,3", help="dimensions to sweep")
    p.add_argument("--sizes-2d", type=parse_sizes, default=",".join(map(str, DEFAULT_2D)),
                   help="N of the 2D meshes (2 N^2 triangles)")
    p.add_argument("--sizes-3d", type=parse_sizes, default=",".join(map(str, DEFAULT_3D)),
                   help="N of the 3D meshes (6 N^3 tetrahedra)")
    p.add_argument("--quick", action="store_true",
                   help=f"tiny meshes (2D {QUICK_2D}, 3D {QUICK_3D}), 2 steps, few repeats: a test of the tools")
    p.add_argument("--strategies", default=",".join(STRATEGIES), help="strategies of the GPU whole runs")
    p.add_argument("--cpu-strategies", default="addto,lma", help="strategies of the CPU whole runs")
    p.add_argument("--steps", type=int, default=0,
                   help="time steps of each GPU whole run (0: 3e7 / cells, within [10, 100])")
    p.add_argument("--cpu-steps", type=int, default=2, help="time steps of each CPU whole run")
    p.add_argument("--courant", type=float, default=0.25, help="dt = COURANT / N")
    p.add_argument("--cpu-max-cells", type=float, default=1.5e6, help="largest mesh run on the CPU backend")
    p.add_argument("--threads", type=int, default=0, help="OpenMP threads of the CPU runs (0: all cores)")
    p.add_argument("--cpu-env", action="append", default=[], metavar="VAR=VALUE",
                   help="environment of the CPU runs, e.g. OMP_PROC_BIND=close (repeatable)")
    p.add_argument("--no-operators", action="store_true", help="skip fesim-bench-operators")
    p.add_argument("--no-cpu-operators", action="store_true", help="skip fesim-bench-operators on the CPU")
    p.add_argument("--no-cupy", action="store_true", help="skip the matrix export and CuPy")
    p.add_argument("--python", default=sys.executable, help="python with numpy and CuPy for cupy_cg.py")
    p.add_argument("--keep-matrices", action="store_true", help="keep the exported matrices in --workdir")
    p.add_argument("--timeout", type=float, default=300, help="seconds allowed to each command")
    p.add_argument("--time-limit", type=float, default=540,
                   help="seconds for the whole sweep: later commands are skipped")
    p.add_argument("--append", action="store_true", help="keep the rows already in --out (other dims, sizes)")
    p.add_argument("--device-libs", default="auto",
                   help="auto: extract .device-libs/libs.tar.xz when the tools do not start without it; "
                        "a tarball; or none")
    p.add_argument("--order", choices=["descending", "ascending"], default="descending",
                   help="size order in each dimension: largest first keeps the >= 10M-cell results "
                        "when --time-limit cuts the sweep short")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    a = p.parse_args()

    a.dims = [int(v) for v in a.dims.split(",")]
    if a.quick:  # tiny sizes unless given
        a.sizes_2d = QUICK_2D if a.sizes_2d == DEFAULT_2D else a.sizes_2d
        a.sizes_3d = QUICK_3D if a.sizes_3d == DEFAULT_3D else a.sizes_3d
        a.steps = min(a.steps, 2) if a.steps else 2
        a.cpu_steps = min(a.cpu_steps, 2)
    a.strategies = [s for s in a.strategies.split(",") if s]
    a.cpu_strategies = [s for s in a.cpu_strategies.split(",") if s]
    for s in a.strategies + a.cpu_strategies:
        if base_strategy(s) not in ("lma", "addto", "matfree") or s.count("-") > 1 or (
                "-" in s and not s.endswith("-deterministic")):
            p.error(f"unknown strategy '{s}' (lma, addto, matfree, each optionally -deterministic)")
    for kv in a.cpu_env:
        if "=" not in kv:
            p.error(f"--cpu-env {kv}: expected VAR=VALUE")
    bindir = Path(a.build).resolve() / "bin"
    workdir = Path(a.workdir).resolve()
    a.workdir = str(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    out = Path(a.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    runner = Runner(a, workdir / "sweep.log", out.with_name(out.stem + "_raw.txt"))
    for tool in ("fesim-bench-operators", "fesim-bench-case"):
        if not (bindir / tool).exists():
            p.error(f"{bindir / tool} is missing: build first (cmake --build {a.build})")
    if not (bindir / "fesim-export-matrix").exists() and not a.no_cupy:
        runner.log(f"{bindir / 'fesim-export-matrix'} is missing: no CuPy peer")
    runner.log(f"fesim sweep: {' '.join(sys.argv[1:])}")
    runner.log(f"python {sys.version.split()[0]} ({sys.executable}), {cores()} cores, build {a.build}")
    if not a.dry_run:
        device_libs(runner, bindir, workdir, a.device_libs)
    if shutil.which("nvidia-smi") and not a.dry_run:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version",
                            "--format=csv,noheader"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        runner.log(f"nvidia-smi: {q.stdout.strip()}")

    backends = {"both": ["cuda", "cpu"], "cuda": ["cuda"], "cpu": ["cpu"]}[a.backend]
    if "cuda" in backends and not a.dry_run:
        probe = subprocess.run([str(bindir / "fesim-bench-case"), "--backend", "cuda", "--steps", "1",
                                "--output", str(workdir / "out"), str(HERE / "cases" / "sweep_2d.xml"), "2", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=runner.env)
        if probe.returncode != 0:
            runner.log(f"no GPU run possible ({probe.stderr.strip()}): the cuda runs are left out")
            backends.remove("cuda")
            if not backends:
                sys.exit(4)
    header = subprocess.run([str(bindir / "fesim-bench-case"), "--header"], stdout=subprocess.PIPE,
                            text=True, env=runner.env).stdout.strip().split(",") if not a.dry_run else []
    table = Table(out, a.append)
    for d in a.dims:
        sizes = sorted(a.sizes_2d if d == 2 else a.sizes_3d, reverse=a.order == "descending")
        for n in sizes:
            sweep_size(a, runner, table, bindir, d, n, backends, header)
    if not a.dry_run:
        table.write()
        summary(runner, table)
        runner.log(f"CSV: {out}; log: {workdir / 'sweep.log'}; raw outputs: {runner.raw.name}")


if __name__ == "__main__":
    main()
