"""Render one time of a fesim .vtk.series to a PNG with ParaView.

Usage: xvfb-run -a pvbatch tools/render.py SERIES.vtk.series FIELD[:COMPONENT] OUT.png
                                           [--time T | --last] [--colours auto|sequential|diverging]

Opens the series with ParaView's reader (the times come from the series file),
colours by the point field FIELD (the magnitude for a vector, or its component
x, y or z) with a scalar bar, and saves a 1200x900 image at time T (default:
the last time).  The colour map follows what the field is (--colours auto): a
tracer, an exact solution or a magnitude is a quantity on a scale, shown with
a sequential map over its range at that time (an undershoot below 0 is the
low end of the map, not a change of map); an error (NAME_error) or a velocity
component is signed, shown with a diverging map centred on 0.  2D
meshes are seen from +z; 3D meshes are clipped by a plane y = const through
the field's peak and seen from an oblique camera, with the outline of the
whole domain.  Prints the
times found and the field's range at the rendered time.  Exit 1 with a message
when the series, the time or the field is missing.

tests/tools/check_paraview.py imports render() from here, so that the test
renders exactly what users get.
"""
import argparse
import math
import sys

from paraview import simple as pv

SIZE = (1200, 900)


class RenderError(Exception):
    pass


def open_series(path):
    """Reader and its time steps (a list, also for one step)."""
    reader = pv.OpenDataFile(path)
    if reader is None:
        raise RenderError(f"{path}: ParaView cannot open it (missing, or not a .vtk.series)")
    reader.UpdatePipelineInformation()
    steps = reader.TimestepValues
    if steps is None:
        steps = []
    elif not hasattr(steps, "__len__"):
        steps = [steps]
    return reader, [float(t) for t in steps]


def pick_time(times, wanted, path):
    if not times:
        raise RenderError(f"{path}: no time steps")
    if wanted is None:
        return times[-1]
    best = min(times, key=lambda t: abs(t - wanted))
    if abs(best - wanted) > 1e-9 * max(1.0, abs(wanted)):
        raise RenderError(f"{path}: no dump at time {wanted!r}; times are {times}")
    return best


def field_range(source, field, time, path, component=None):
    """(min, max) of FIELD's values (magnitude for vectors, or one component) at time, after
    checking it exists."""
    source.UpdatePipeline(time)
    arrays = source.PointData
    if field not in arrays.keys():
        raise RenderError(f"{path}: no point field {field!r} at time {time!r}; "
                          f"point fields are {list(arrays.keys())}")
    info = arrays[field]
    n = info.GetNumberOfComponents()
    if component is not None and (n == 1 or COMPONENTS[component] >= n):
        raise RenderError(f"{path}: field {field!r} has {n} component{'s' if n > 1 else ''}; "
                          f"no component {component!r}")
    lo, hi = info.GetRange(COMPONENTS[component] if component is not None else -1 if n > 1 else 0)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RenderError(f"{path}: field {field!r} has non-finite values at time {time!r}")
    return lo, hi


def make_view():
    view = pv.CreateView("RenderView")
    view.ViewSize = list(SIZE)
    if hasattr(view, "UseColorPaletteForBackground"):  # ParaView >= 5.10
        view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]
    return view


COMPONENTS = {"x": 0, "y": 1, "z": 2}


def colour_kind(field, component, wanted):
    """"diverging" for signed fields (an error, a velocity component), else "sequential"."""
    if wanted != "auto":
        return wanted
    return "diverging" if field.endswith("_error") or component is not None else "sequential"


def color_by(display, view, field, component, kind, lo, hi, title):
    pv.ColorBy(display, ("POINTS", field, "Magnitude" if component is None else component.upper()))
    lut = pv.GetColorTransferFunction(field)
    if component is not None:
        lut.VectorMode = "Component"
        lut.VectorComponent = COMPONENTS[component]
    if kind == "diverging":
        lut.ApplyPreset("Cool to Warm", True)
        a = max(-lo, hi)
        lo, hi = -a, a
    else:
        lut.ApplyPreset("Viridis (matplotlib)", True)
    if hi <= lo:
        hi = lo + max(abs(lo), 1.0) * 1e-6
    lut.RescaleTransferFunction(lo, hi)
    pv.GetOpacityTransferFunction(field).RescaleTransferFunction(lo, hi)
    lut.AutomaticRescaleRangeMode = "Never"
    display.SetScalarBarVisibility(view, True)
    bar = pv.GetScalarBar(lut, view)
    bar.Title = title
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    bar.TitleFontSize = bar.LabelFontSize = 20
    bar.ScalarBarLength = 0.6
    bar.WindowLocation = "Any Location"
    bar.Orientation = "Vertical"
    bar.Position = [0.88, 0.2]
    bar.RangeLabelFormat = "%-#.4g"


def set_camera(view, bounds, dim):
    """Fits the bounds explicitly (ResetCamera depends on what the view has updated so far)."""
    center = [(bounds[2 * i] + bounds[2 * i + 1]) / 2 for i in range(3)]
    sizes = [bounds[2 * i + 1] - bounds[2 * i] for i in range(3)]
    radius = 0.5 * math.sqrt(sum(s * s for s in sizes)) or 1.0
    if dim == 2:
        direction, up = (0.0, 0.0, 1.0), (0.0, 1.0, 0.0)
        view.InteractionMode = "2D"
    else:
        direction, up = (1.0, -1.6, 1.1), (0.0, 0.0, 1.0)
    norm = math.sqrt(sum(d * d for d in direction))
    distance = radius / math.sin(math.radians(view.CameraViewAngle) / 2)
    view.CameraFocalPoint = center
    view.CameraPosition = [c + distance * d / norm for c, d in zip(center, direction)]
    view.CameraViewUp = list(up)
    view.CameraParallelProjection = 1 if dim == 2 else 0
    # Parallel scale is half the visible height; leave room for the scalar bar on the right.
    aspect = SIZE[0] / SIZE[1]
    view.CameraParallelScale = 0.6 * max(sizes[1], sizes[0] / (0.8 * aspect)) or 1.0
    view.OrientationAxesVisibility = 0 if dim == 2 else 1


def peak_location(source, field, bounds):
    """Point where |FIELD| is largest (the data is in this process under pvbatch), or the centre
    of the bounds when the data cannot be reached."""
    center = [(bounds[2 * i] + bounds[2 * i + 1]) / 2 for i in range(3)]
    try:
        from vtkmodules.util.numpy_support import vtk_to_numpy
        import numpy as np
        data = source.GetClientSideObject().GetOutputDataObject(0)
        values = vtk_to_numpy(data.GetPointData().GetArray(field))
        size = np.abs(values) if values.ndim == 1 else np.linalg.norm(values, axis=1)
        return list(data.GetPoint(int(np.argmax(size))))
    except Exception:  # pylint: disable=broad-except
        return center


def show_3d(reader, view, field, bounds):
    """Clip through the peak of the field, keeping the far side (y above the cut), with the
    domain's outline; returns the clip and the proxies to delete."""
    origin = peak_location(reader, field, bounds)
    extent_y = bounds[3] - bounds[2]
    origin[1] = min(max(origin[1], bounds[2]), bounds[3] - 0.1 * extent_y)
    clip = pv.Clip(Input=reader)
    clip.ClipType = "Plane"
    clip.ClipType.Origin = origin
    clip.ClipType.Normal = [0.0, 1.0, 0.0]
    clip.Invert = 0
    clip.Scalars = ["POINTS", field]
    outline = pv.Outline(Input=reader)
    shown = pv.Show(outline, view)
    shown.DiffuseColor = shown.AmbientColor = [0.2, 0.2, 0.2]
    shown.LineWidth = 2.0
    return clip, [outline, clip]


def parse_field(spec):
    """FIELD or FIELD:COMPONENT (x, y or z)."""
    field, _, component = spec.partition(":")
    if component and component not in COMPONENTS:
        raise RenderError(f"field {spec!r}: component {component!r}; expected x, y or z")
    return field, component or None


def render(series, spec, png, time=None, verbose=True, colours="auto"):
    """Render FIELD[:COMPONENT] of SERIES at `time` (None: the last) into png, with the colour
    map `colours` (auto: by what the field is).
    Returns {"times", "time", "range", "dim", "colours"}; raises RenderError."""
    field, component = parse_field(spec)
    reader, times = open_series(series)
    t = pick_time(times, time, series)
    lo, hi = field_range(reader, field, t, series, component)
    kind = colour_kind(field, component, colours)
    bounds = reader.GetDataInformation().GetBounds()
    dim = 2 if bounds[5] - bounds[4] <= 1e-12 * max(1.0, bounds[1] - bounds[0]) else 3
    if verbose:
        print(f"render: {series}: times {times}")
        print(f"render: {spec} at t = {t!r}: range [{lo!r}, {hi!r}], {kind} colours")

    view = make_view()
    made = []
    try:
        view.ViewTime = t
        surface = reader
        if dim == 3:
            surface, made = show_3d(reader, view, field, bounds)
        display = pv.Show(surface, view)
        n_cells = reader.GetDataInformation().GetNumberOfCells()
        display.SetRepresentationType("Surface With Edges" if n_cells <= 2000 else "Surface")
        display.EdgeColor = [0.3, 0.3, 0.3]
        # mostly ambient light: a face turned from the lights (the cut of a 3D domain) keeps
        # the colours of the scalar bar instead of going grey
        display.Ambient, display.Diffuse, display.Specular = 0.75, 0.25, 0.0
        color_by(display, view, field, component, kind, lo, hi, spec)

        label = pv.Text(Text=f"{spec}   t = {t:.6g}")
        made.append(label)
        text = pv.Show(label, view)
        text.WindowLocation = "Upper Left Corner"
        text.Color = [0.0, 0.0, 0.0]
        text.FontSize = 22

        pv.Render(view)  # simple.Render resets the camera on a session's first render: do it first
        set_camera(view, bounds, dim)
        pv.Render(view)
        pv.SaveScreenshot(png, view, ImageResolution=list(SIZE))
    finally:
        # A render window still alive when pvbatch exits through sys.exit() makes X fail
        # (GLXBadContext) and the exit status 1: release it here.
        pv.Delete(view)
        for proxy in reversed(made):
            pv.Delete(proxy)
    if verbose:
        print(f"render: wrote {png} ({SIZE[0]}x{SIZE[1]}, {dim}D)")
    return {"times": times, "time": t, "range": (lo, hi), "dim": dim, "colours": kind}


def main(argv):
    parser = argparse.ArgumentParser(prog="render.py", description=__doc__.split("\n")[0])
    parser.add_argument("series")
    parser.add_argument("field")
    parser.add_argument("png")
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--time", type=float, help="simulation time of the dump to render")
    when.add_argument("--last", action="store_true", help="render the last dump (the default)")
    parser.add_argument("--colours", choices=["auto", "sequential", "diverging"], default="auto",
                        help="colour map: by what the field is (auto), or as given")
    args = parser.parse_args(argv)
    try:
        render(args.series, args.field, args.png, None if args.last else args.time,
               colours=args.colours)
    except RenderError as e:
        print(f"render: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
