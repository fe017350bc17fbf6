#!/usr/bin/python3
"""Read fesim's VTK output with VTK's own legacy reader.

Usage: check_vtk.py DIR CASE [FIELD ...]

Reads DIR/CASE.vtk.series, opens every dump it lists with
vtkUnstructuredGridReader and checks: no VTK error or warning, the same number
(> 0) of points and cells in every dump, cell types all triangles (5) or all
tetrahedra (10), each FIELD (default: the point fields of the first dump) a
point array with finite values, an integer cell array "region", the TIME field
data equal to the series time, and strictly increasing times.  Exit 0 on
success, 1 with a message per problem otherwise.  Run with /usr/bin/python3
(Debian's VTK modules).
"""
import faulthandler
import json
import math
import os
import sys

from vtkmodules.vtkCommonCore import (VTK_INT, VTK_STRING, vtkCommand, vtkOutputWindow,
                                       vtkStringOutputWindow)
from vtkmodules.vtkIOLegacy import vtkUnstructuredGridReader
from vtkmodules.util.numpy_support import vtk_to_numpy
import numpy as np


class Observer:
    """Collects the errors and warnings VTK raises instead of letting it print them."""

    def __init__(self):
        self.messages = []

        def on_event(obj, event, text):
            self.messages.append(f"{event} from {obj.GetClassName()}: {str(text).strip()}")

        on_event.CallDataType = VTK_STRING  # so that VTK passes the message text
        self.callback = on_event

    def watch(self, obj):
        for event in (vtkCommand.ErrorEvent, vtkCommand.WarningEvent):
            obj.AddObserver(event, self.callback)


def read_series(path):
    with open(path, encoding="utf-8") as f:
        series = json.load(f)
    if series.get("file-series-version") != "1.0":
        raise ValueError(f'{path}: "file-series-version" is {series.get("file-series-version")!r}, '
                         'expected "1.0"')
    files = series.get("files")
    if not isinstance(files, list) or not files:
        raise ValueError(f'{path}: "files" must be a non-empty list')
    for i, entry in enumerate(files):
        name, time = entry.get("name"), entry.get("time")
        if not isinstance(name, str) or not isinstance(time, (int, float)):
            raise ValueError(f"{path}: files[{i}] = {entry!r}, expected a name and a numeric time")
    return [(e["name"], float(e["time"])) for e in files]


def read_dump(path, observer):
    reader = vtkUnstructuredGridReader()
    observer.watch(reader)
    observer.watch(reader.GetExecutive())
    reader.SetFileName(path)
    reader.ReadAllScalarsOn()
    reader.ReadAllVectorsOn()
    reader.ReadAllFieldsOn()
    reader.Update()
    return reader, reader.GetOutput()


def check_dump(path, time, fields, observer, problems):
    """Checks one dump; returns (points, cells, cell type, point field names) or None."""
    if not os.path.isfile(path):
        problems.append(f"{path}: listed in the series but missing")
        return None
    print(f"check_vtk: reading {path}", flush=True)  # names the file if VTK crashes on it
    observer.messages.clear()
    reader, grid = read_dump(path, observer)
    for m in observer.messages:
        problems.append(f"{path}: VTK reported {m}")
    if not reader.IsFileUnstructuredGrid():
        problems.append(f"{path}: not read as an UNSTRUCTURED_GRID")
    n_points, n_cells = grid.GetNumberOfPoints(), grid.GetNumberOfCells()
    if n_points <= 0 or n_cells <= 0:
        problems.append(f"{path}: {n_points} points and {n_cells} cells, expected > 0")
        return None
    if not np.all(np.isfinite(vtk_to_numpy(grid.GetPoints().GetData()))):
        problems.append(f"{path}: non-finite point coordinates")
    types = set(vtk_to_numpy(grid.GetCellTypesArray()).tolist())
    if types not in ({5}, {10}):
        problems.append(f"{path}: cell types {sorted(types)}, expected all 5 (triangle) or all 10 "
                        "(tetrahedron)")
    pd = grid.GetPointData()
    names = [pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays())]
    for name in fields or names:
        array = pd.GetArray(name)
        if array is None:
            problems.append(f"{path}: no point field {name!r} (found {names})")
            continue
        if array.GetNumberOfTuples() != n_points:
            problems.append(f"{path}: point field {name!r} has {array.GetNumberOfTuples()} tuples "
                            f"for {n_points} points")
        values = vtk_to_numpy(array)
        if not np.all(np.isfinite(values)):
            bad = np.count_nonzero(~np.isfinite(values))
            problems.append(f"{path}: point field {name!r} has {bad} non-finite values")
    region = grid.GetCellData().GetArray("region")
    if region is None:
        problems.append(f"{path}: no cell array 'region'")
    elif region.GetDataType() != VTK_INT or region.GetNumberOfTuples() != n_cells:
        problems.append(f"{path}: cell array 'region' is {region.GetDataTypeAsString()} with "
                        f"{region.GetNumberOfTuples()} tuples, expected int with {n_cells}")
    time_array = grid.GetFieldData().GetArray("TIME")
    if time_array is None:
        problems.append(f"{path}: no TIME field data")
    elif not math.isclose(time_array.GetValue(0), time, rel_tol=1e-15, abs_tol=1e-300):
        problems.append(f"{path}: TIME field data {time_array.GetValue(0)!r}, series says {time!r}")
    return n_points, n_cells, tuple(sorted(types)), names


def check(directory, case, fields):
    series_path = os.path.join(directory, case + ".vtk.series")
    try:
        entries = read_series(series_path)
    except (OSError, ValueError) as e:
        return [str(e)]
    problems = []
    times = [t for _, t in entries]
    for a, b in zip(times, times[1:]):
        if not b > a:
            problems.append(f"{series_path}: times not strictly increasing: {a!r} then {b!r}")
    # VTK also reports some problems through its output window rather than the reader.
    window = vtkStringOutputWindow()
    vtkOutputWindow.SetInstance(window)
    observer = Observer()
    observer.watch(window)
    first = None
    for name, time in entries:
        path = os.path.join(os.path.dirname(series_path), name)
        shape = check_dump(path, time, fields, observer, problems)
        if shape is None:
            continue
        if first is None:
            first = (path, shape)
        elif shape[:3] != first[1][:3]:
            problems.append(f"{path}: {shape[0]} points, {shape[1]} cells of type {shape[2]}; "
                            f"{first[0]} has {first[1][0]}, {first[1][1]} of type {first[1][2]}")
        elif not fields and shape[3] != first[1][3]:
            problems.append(f"{path}: point fields {shape[3]}, {first[0]} has {first[1][3]}")
    text = window.GetOutput().strip()
    if text:
        problems.append(f"VTK output window: {text}")
    if not problems:
        print(f"check_vtk: {series_path}: {len(entries)} dumps, {first[1][0]} points, "
              f"{first[1][1]} cells, fields {first[1][3]}, times {times[0]!r} .. {times[-1]!r}: ok")
    return problems


def main(argv):
    faulthandler.enable()
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    problems = check(argv[1], argv[2], argv[3:])
    for p in problems:
        print(f"check_vtk: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
