#!/usr/bin/python3
"""Plots of a size sweep (tools/bench/sweep.py): PNG or SVG files in OUTDIR.

    /usr/bin/python3 tools/bench/plot.py SWEEP.csv [MORE.csv ...] OUTDIR [--format svg]

  step_time.{png,svg}       time per step vs elements, each strategy and backend, 2D and 3D,
                            log-log, with the GPU strategies' bandwidth floors (Markall Fig. 4.2)
  step_breakdown.*          assembly, CG solves and the rest of a step for each strategy at the
                            largest size of each backend (Markall Fig. 4.4)
  copy_fraction.*           achieved fraction of copy bandwidth per phase vs elements, with the
                            targets (element kernels 85 %, apply 65 %, CG iteration and step
                            within 1.5x and 2x of their floors)
  cg_iteration.*            time per CG iteration vs unknowns, with CuPy's CG on the same matrix
                            and the 50 us target at 0.5M unknowns
  gpu_over_cpu.*            CPU step time over GPU step time (the 20x target)

Several CSVs are merged (a later row replaces an earlier one with the same key): e.g. the
2D and 3D halves of a sweep run as two commands.  Needs matplotlib (Debian python3-matplotlib).
"""
import argparse
import csv
import math
import sys
from pathlib import Path

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:
    sys.exit(f"plot.py: matplotlib is missing ({e}); install python3-matplotlib (apt-get install "
             "python3-matplotlib) and run with /usr/bin/python3")

STRATEGY_ORDER = ["lma", "lma-deterministic", "lma-full", "lma-full-deterministic", "addto",
                  "matfree", "matfree-deterministic", "csr"]
COLOURS = {"lma": "C0", "lma-deterministic": "C9", "lma-full": "C4", "lma-full-deterministic": "C6",
           "addto": "C1", "matfree": "C2", "matfree-deterministic": "C8", "csr": "k"}
MARKERS = {"cuda": "o", "cpu": "s", "cupy": "^"}
LINES = {"cuda": "-", "cpu": "--", "cupy": ":"}
PHASES = [("local_assembly", "local assembly (element matrices)", 0.85),
          ("global_assembly", "global assembly (addto)", None),
          ("apply", "operator apply", 0.65),
          ("cg_iteration", "CG iteration (1 = its floor)", 1 / 1.5),
          ("step", "time step (1 = its floor)", 1 / 2)]


def number(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def read(paths):
    rows = {}
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                key = (r["dim"], r["mesh_n"], r["backend"], r["strategy"], r["kind"])
                rows[key] = {k: (number(v) if k not in ("backend", "strategy", "kind") else v)
                             for k, v in r.items()}
    return list(rows.values())


def series(rows, dim, backend, strategy, y, x="elements", kind="fesim"):
    pts = sorted((r[x], r[y]) for r in rows if r["dim"] == dim and r["backend"] == backend
                 and r["strategy"] == strategy and r["kind"] == kind and r.get(y) and r.get(x))
    return [p[0] for p in pts], [p[1] for p in pts]


def keys(rows, kind="fesim", backends=("cuda", "cpu", "cupy")):
    ks = {(r["backend"], r["strategy"]) for r in rows if r["kind"] == kind and r["backend"] in backends}
    return sorted(ks, key=lambda k: (backends.index(k[0]), STRATEGY_ORDER.index(k[1])
                                     if k[1] in STRATEGY_ORDER else 99, k[1]))


def dims(rows):
    return sorted({int(r["dim"]) for r in rows})


def style(backend, strategy):
    return dict(color=COLOURS.get(strategy, "C7"), linestyle=LINES.get(backend, "-"),
                marker=MARKERS.get(backend, "x"), markersize=4)


def save(fig, outdir, name, fmt):
    path = Path(outdir) / f"{name}.{fmt}"
    fig.savefig(path, dpi=130, bbox_inches="tight")
    plt.close(fig)
    print(f"plot.py: {path}")


def step_time(rows, outdir, fmt):
    ds = dims(rows)
    fig, axes = plt.subplots(1, len(ds), figsize=(6.2 * len(ds), 4.6), squeeze=False)
    for ax, d in zip(axes[0], ds):
        for be, s in keys(rows, backends=("cuda", "cpu")):
            x, y = series(rows, d, be, s, "step_s")
            if x:
                ax.plot(x, [v * 1e3 for v in y], label=f"{be} {s}", **style(be, s))
            if be == "cuda":
                x, y = series(rows, d, be, s, "step_floor_s")
                if x:
                    ax.plot(x, [v * 1e3 for v in y], color=COLOURS.get(s, "C7"), linestyle=":", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel("time per step (ms)")
        ax.set_title(f"{d}D: time per step (dotted: bandwidth floor of each GPU strategy)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    save(fig, outdir, "step_time", fmt)


def step_breakdown(rows, outdir, fmt):
    ds = dims(rows)
    backends = [b for b in ("cuda", "cpu") if any(r["backend"] == b and r.get("step_s") for r in rows)]
    if not backends:
        return
    fig, axes = plt.subplots(len(backends), len(ds), figsize=(6.2 * len(ds), 3.8 * len(backends)),
                             squeeze=False)
    parts = [("step_assembly_s", "assembly", "C3"), ("step_solve_s", "CG solves", "C0"),
             ("step_other_s", "other (right-hand sides, vector updates, stats)", "C7")]
    for row, be in enumerate(backends):
        for col, d in enumerate(ds):
            ax = axes[row][col]
            runs = [r for r in rows if r["dim"] == d and r["backend"] == be and r["kind"] == "fesim"
                    and r.get("step_s")]
            if not runs:
                ax.set_visible(False)
                continue
            largest = max(r["elements"] for r in runs)
            runs = sorted((r for r in runs if r["elements"] == largest),
                          key=lambda r: STRATEGY_ORDER.index(r["strategy"])
                          if r["strategy"] in STRATEGY_ORDER else 99)
            names = [r["strategy"] for r in runs]
            bottom = [0.0] * len(runs)
            for key, label, colour in parts:
                h = [max(r.get(key) or 0.0, 0.0) * 1e3 for r in runs]
                ax.bar(names, h, bottom=bottom, label=label, color=colour)
                bottom = [b + v for b, v in zip(bottom, h)]
            floors = [(r.get("step_floor_s") or 0) * 1e3 for r in runs]
            if any(floors):
                ax.scatter(names, floors, marker="_", s=600, color="k", zorder=3, label="bandwidth floor")
            ax.set_ylabel("ms per step")
            ax.set_title(f"{d}D, {be}, {int(largest):,} elements", fontsize=9)
            ax.tick_params(axis="x", labelsize=8)
            ax.legend(fontsize=7)
    save(fig, outdir, "step_breakdown", fmt)


def copy_fraction(rows, outdir, fmt, backends):
    """Each backend's fractions are of its own copy bandwidth (CuPy's: of fesim's GPU copy)."""
    ds = dims(rows)
    fig, axes = plt.subplots(len(PHASES), len(ds), figsize=(6.2 * len(ds), 2.8 * len(PHASES)),
                             squeeze=False, sharex="col")
    for col, d in enumerate(ds):
        for row, (phase, title, target) in enumerate(PHASES):
            ax = axes[row][col]
            y_key = f"{phase}_fraction_of_copy"
            for be, s in keys(rows, backends=backends) + keys(rows, kind="peer", backends=("cupy",)):
                x, y = series(rows, d, be, s, y_key, kind="peer" if be == "cupy" else "fesim")
                if x:
                    ax.plot(x, y, label=f"{be} {s}", **style(be, s))
            if phase == "local_assembly":  # the element-kernel variants, thin
                for be, s in keys(rows, kind="kernel_variant", backends=("cuda",)):
                    x, y = series(rows, d, be, s, y_key, kind="kernel_variant")
                    if x:
                        ax.plot(x, y, color="0.6", linewidth=0.7, label=None)
            if target:
                ax.axhline(target, color="r", linewidth=0.8, linestyle="--", label=f"target {target:.0%}")
            ax.set_xscale("log")
            top = max([1.1] + [v for ln in ax.lines for v in ln.get_ydata()])
            ax.set_ylim(0, min(top * 1.05, 3.0))
            ax.set_ylabel("fraction of copy")
            ax.set_title(f"{d}D: {title}", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            if ax.lines:
                ax.legend(fontsize=6, ncol=2)
        axes[-1][col].set_xlabel("elements")
    save(fig, outdir, "copy_fraction", fmt)


def cg_iteration(rows, outdir, fmt):
    ds = dims(rows)
    fig, axes = plt.subplots(1, len(ds), figsize=(6.2 * len(ds), 4.6), squeeze=False)
    for ax, d in zip(axes[0], ds):
        for be, s in keys(rows, backends=("cuda", "cpu")) + keys(rows, kind="peer", backends=("cupy",)):
            x, y = series(rows, d, be, s, "cg_iteration_s", x="nodes", kind="peer" if be == "cupy" else "fesim")
            if x:
                ax.plot(x, [v * 1e6 for v in y], label=f"{be} {s}", **style(be, s))
        for s in ("addto", "lma"):
            x, y = series(rows, d, "cuda", s, "cg_iteration_floor_s", x="nodes")
            if x:
                ax.plot(x, [v * 1e6 for v in y], color=COLOURS[s], linestyle=":", linewidth=0.8,
                        label=f"floor {s}")
        ax.scatter([5e5], [50], marker="*", s=120, color="r", zorder=4, label="target: 50 us at 0.5M")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("unknowns (nodes)")
        ax.set_ylabel("time per CG iteration (us)")
        ax.set_title(f"{d}D: Jacobi CG on M + 0.01 K (50 iterations)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    save(fig, outdir, "cg_iteration", fmt)


def gpu_over_cpu(rows, outdir, fmt):
    if not any(r.get("cpu_step_over_this") for r in rows):
        return
    ds = dims(rows)
    fig, axes = plt.subplots(1, len(ds), figsize=(6.2 * len(ds), 4.0), squeeze=False)
    for ax, d in zip(axes[0], ds):
        for be, s in keys(rows, backends=("cuda",)):
            x, y = series(rows, d, be, s, "cpu_step_over_this")
            if x:
                ax.plot(x, y, label=s, **style(be, s))
        ax.axhline(20, color="r", linestyle="--", linewidth=0.8, label="target 20x")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel("CPU step / GPU step")
        ax.set_title(f"{d}D: GPU speed-up per step over the CPU backend (all cores)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    save(fig, outdir, "gpu_over_cpu", fmt)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("paths", nargs="+", metavar="CSV... OUTDIR")
    p.add_argument("--format", choices=["png", "svg"], default="png")
    p.add_argument("--backends", default="cuda,cpu", help="backends of the copy-fraction plot")
    a = p.parse_args()
    if len(a.paths) < 2:
        p.error("give at least one CSV and the output directory")
    *csvs, outdir = a.paths
    rows = read(csvs)
    if not rows:
        sys.exit("plot.py: no rows in " + ", ".join(csvs))
    Path(outdir).mkdir(parents=True, exist_ok=True)
    backends = tuple(b for b in a.backends.split(",") if b)
    step_time(rows, outdir, a.format)
    step_breakdown(rows, outdir, a.format)
    copy_fraction(rows, outdir, a.format, backends)
    cg_iteration(rows, outdir, a.format)
    gpu_over_cpu(rows, outdir, a.format)


if __name__ == "__main__":
    main()
