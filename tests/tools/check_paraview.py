"""Open a fesim .vtk.series in ParaView and render it as users will.

Usage: xvfb-run -a pvbatch tests/tools/check_paraview.py SERIES OUT.png FIELD [FIELD ...]
       python3 tests/tools/check_paraview.py --launch SERIES OUT.png FIELD [FIELD ...]

Checks that ParaView's time steps equal the times in the series file (to
1e-12), that every FIELD is a point field with finite values at every time,
then renders the first FIELD with tools/render.py's render() at the last time
into OUT.png and at the first time into OUT_first.png, and checks each image is
1200x900 and not blank: many colours, and the mesh (non-background pixels)
covering a good part of it.  Exit 0 on success, 1 with messages otherwise.

--launch (what CTest runs) starts the first form itself: exit 77 (skipped)
when pvbatch or xvfb-run is missing, and a second and third try when pvbatch
aborted because it could not connect to Xvfb (XOpenDisplay fails now and then
with EAGAIN on loaded or sandboxed machines: "bad X server connection").
"""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TRIES = 3
X_FAILURE = "bad X server connection"

MIN_COLOURS = 32
MIN_COVERAGE = 0.10  # fraction of pixels that are not the white background


def launch(args):
    """Runs this script under xvfb-run -a pvbatch, again when pvbatch could not reach X."""
    tools = [shutil.which("xvfb-run"), shutil.which("pvbatch")]
    if not all(tools):
        print("skipped: pvbatch (ParaView, Debian: python3-paraview) or xvfb-run (xvfb) not found")
        return 77
    command = [tools[0], "-a", tools[1], os.path.abspath(__file__)] + args
    for attempt in range(1, TRIES + 1):
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace", check=False)
        sys.stdout.write(run.stdout)
        if run.returncode == 0 or X_FAILURE not in run.stdout or attempt == TRIES:
            return 1 if run.returncode < 0 else run.returncode
        print(f"check_paraview: pvbatch could not connect to Xvfb (try {attempt} of {TRIES}); "
              "again", flush=True)
        time.sleep(2 * attempt)
    return 1


if __name__ == "__main__" and sys.argv[1:2] == ["--launch"]:
    sys.exit(launch(sys.argv[2:]) if len(sys.argv) >= 5 else 2)

# Under pvbatch from here on.
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import render  # noqa: E402  (tools/render.py: the same code path as the user's command)
from vtkmodules.vtkIOImage import vtkPNGReader  # noqa: E402
from vtkmodules.util.numpy_support import vtk_to_numpy  # noqa: E402
import numpy as np  # noqa: E402


def series_times(path):
    with open(path, encoding="utf-8") as f:
        return [float(entry["time"]) for entry in json.load(f)["files"]]


def check_times(series, reader_times, problems):
    want = series_times(series)
    if len(want) != len(reader_times):
        problems.append(f"{series}: ParaView found {len(reader_times)} time steps "
                        f"{reader_times}, the series file lists {len(want)} {want}")
        return
    for a, b in zip(reader_times, want):
        if abs(a - b) > 1e-12 * max(1.0, abs(b)):
            problems.append(f"{series}: ParaView time {a!r} where the series file says {b!r}")


def check_png(path, problems):
    reader = vtkPNGReader()
    if not os.path.isfile(path) or not reader.CanReadFile(path):
        problems.append(f"{path}: no PNG written")
        return
    reader.SetFileName(path)
    reader.Update()
    image = reader.GetOutput()
    width, height, _ = image.GetDimensions()
    if (width, height) != render.SIZE:
        problems.append(f"{path}: {width}x{height}, expected {render.SIZE[0]}x{render.SIZE[1]}")
    pixels = vtk_to_numpy(image.GetPointData().GetScalars())[:, :3]
    colours = len(np.unique(pixels, axis=0))
    coverage = np.mean(np.any(pixels < 250, axis=1))
    print(f"check_paraview: {path}: {width}x{height}, {colours} colours, "
          f"{100 * coverage:.1f}% non-background")
    if colours < MIN_COLOURS:
        problems.append(f"{path}: {colours} distinct colours, expected >= {MIN_COLOURS} "
                        "(a blank image?)")
    if coverage < MIN_COVERAGE:
        problems.append(f"{path}: {100 * coverage:.1f}% of the pixels are not background, "
                        f"expected >= {100 * MIN_COVERAGE:.0f}% (the mesh is not in view?)")


def check(series, png, fields):
    problems = []
    try:
        reader, times = render.open_series(series)
        check_times(series, times, problems)
        for t in times:
            for field in fields:
                render.field_range(reader, field, t, series)
        render.render(series, fields[0], png)
        first = os.path.splitext(png)[0] + "_first.png"
        result = render.render(series, fields[0], first, time=times[0])
        if result["time"] != times[0]:
            problems.append(f"{first}: rendered time {result['time']!r}, asked for {times[0]!r}")
        # the colour map follows what the field is, not the signs of its values
        expected = "diverging" if fields[0].endswith("_error") else "sequential"
        if result["colours"] != expected:
            problems.append(f"{first}: {result['colours']} colours for {fields[0]!r}, expected {expected}")
        for name, component, kind in (("T", None, "sequential"), ("T_error", None, "diverging"),
                                      ("velocity", None, "sequential"), ("velocity", "x", "diverging")):
            if render.colour_kind(name, component, "auto") != kind:
                problems.append(f"colour map of {name}{':' + component if component else ''}: "
                                f"{render.colour_kind(name, component, 'auto')}, expected {kind}")
    except (render.RenderError, OSError, ValueError, KeyError) as e:
        problems.append(str(e))
        return problems
    check_png(png, problems)
    check_png(first, problems)
    return problems


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    problems = check(argv[1], argv[2], argv[3:])
    for p in problems:
        print(f"check_paraview: {p}", file=sys.stderr)
    if not problems:
        print(f"check_paraview: {argv[1]}: ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
