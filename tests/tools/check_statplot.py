#!/usr/bin/python3
"""Run tools/statplot.py on small CSV files written here, good and bad.

Usage: check_statplot.py STATPLOT_PY

Writes a .stat file with the exact-solution columns, one without, one of two
tracers (TRACER%COLUMN columns), two probes
CSV files (columns of any names, and FIELD%PROBE as fesim writes them) and bad
inputs into a temporary folder, runs statplot on them and checks
the exit codes, the exact error messages (one line on stderr), the printed
PNG path, the PNG (signature, size from its IHDR chunk: the number of subplot
rows) and, through statplot's own functions, the number of subplots and lines.
Exit 0 on success, 1 with a message per failed check, 77 (skipped) when
matplotlib is missing.
"""
import importlib.util
import os
import struct
import subprocess
import sys
import tempfile

HEADER_EXACT = ("step,time,dt,min,max,integral,l2_error,linf_error,advection_iterations,"
                "diffusion_iterations,wall_seconds")
HEADER_PLAIN = ("step,time,dt,min,max,integral,advection_iterations,diffusion_iterations,"
                "wall_seconds")
COLUMNS_PLAIN = HEADER_PLAIN.replace(",", ", ")
ROWS_EXACT = ["0,0,0,0,1,0.5,0,0,0,0,0",
              "1,0.25,0.25,-1e-09,0.98,0.5,1.5e-06,2.5e-05,28,10,0.03",
              "2,0.5,0.25,-2e-09,0.96,0.50000000000000011,3e-06,5e-05,28,10,0.06",
              "3,0.75,0.25,-3e-09,0.95,0.5,4.5e-06,7.5e-05,27,10,0.09"]
ROWS_PLAIN = ["0,0,0,0,1,0.5,0,0,0", "1,0.5,0.5,0,0.9,0.5,30,10,0.01",
              "2,1,0.5,0,0.85,0.5,29,10,0.02"]
PROBES_HEADER = "step,time,T%a,T%b.2,T%c,velocity%x%a,velocity%x%b.2,velocity%x%c"
PROBES_ROWS = ["0,0,1,0,0.5,1,0,-1", "5,0.5,0.9,0.1,0.5,1,0,-1", "10,1,0.8,0.2,0.5,1,0,-1"]
TRACERS_HEADER = ("step,time,dt,courant,T%min,T%max,T%integral,T%l2_error,T%linf_error,"
                  "T%advection_iterations,T%diffusion_iterations,S%min,S%max,S%integral,"
                  "S%l2_error,S%linf_error,S%advection_iterations,S%diffusion_iterations,"
                  "wall_seconds")
TRACERS_ROWS = ["0,0,0,0,0,1,0.5,0,0,0,0,0,2,1,0,0,0,0,0",
                "1,0.5,0.5,0.3,-1e-3,0.9,0.5,1e-4,2e-3,30,10,0,1.9,1,2e-4,1e-3,31,11,0.01"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def write(name, text):
    with open(name, "w", encoding="utf-8") as f:
        f.write(text)


def write_inputs():
    write("exact.stat", "\n".join([HEADER_EXACT] + ROWS_EXACT) + "\n")
    os.mkdir("other")
    write("other/plain.stat", "\n".join([HEADER_PLAIN] + ROWS_PLAIN) + "\n")
    write("run.probes.csv", "time,p1_T,p2_T\n0,1,0\n0.5,0.9,0.1\n1,0.8,0.2\n")
    write("case.probes.csv", PROBES_HEADER + "\n" + "\n".join(PROBES_ROWS) + "\n")
    write("tracers.stat", TRACERS_HEADER + "\n" + "\n".join(TRACERS_ROWS) + "\n")
    write("empty.stat", "")
    write("numbers.csv", "0,1\n0.5,2\n")
    write("case.xml", '<?xml version="1.0"?>\n<case name="x"/>\n')
    bad_row = "1,0.5,0.5,0,abc,0.5,30,10,0.01"
    write("bad_value.stat", "\n".join([HEADER_PLAIN, ROWS_PLAIN[0], bad_row]) + "\n")
    write("short_row.stat", "\n".join([HEADER_PLAIN, ROWS_PLAIN[0], "1,0.5,0.5"]) + "\n")
    write("header_only.stat", HEADER_PLAIN + "\n")
    with open("binary.stat", "wb") as f:
        f.write(bytes(range(128, 256)))


def run(statplot, *args):
    p = subprocess.run([sys.executable, statplot, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def png_size(path):
    """(width, height) from the IHDR chunk, or None when path is not a PNG."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def check_png(path, rows, wide, what):
    """A PNG of the size statplot gives `rows` rows of subplots (one or two per row)."""
    size = png_size(path)
    check(size is not None and os.path.getsize(path) > 0, f"{what}: {path} is not a PNG")
    if size is None:
        return
    expected = (1000 if wide else 800, round(100 * (3.6 * rows + 0.6)))
    check(size == expected, f"{what}: {path} is {size[0]}x{size[1]} px, expected "
          f"{expected[0]}x{expected[1]} ({rows} rows of subplots)")


def good(statplot, args, out, rows, wide, what):
    rc, stdout, stderr = run(statplot, *args)
    check(rc == 0, f"{what}: exit {rc}, expected 0 (stderr: {stderr.strip()!r})")
    check(stdout == out + "\n", f"{what}: printed {stdout!r}, expected the PNG path {out!r}")
    check(stderr == "", f"{what}: stderr {stderr!r}, expected nothing")
    check_png(out, rows, wide, what)


def bad(statplot, args, code, message, what):
    rc, stdout, stderr = run(statplot, *args)
    check(rc == code, f"{what}: exit {rc}, expected {code}")
    check(stdout == "", f"{what}: printed {stdout!r}, expected nothing")
    check(stderr == "statplot: error: " + message + "\n",
          f"{what}: stderr {stderr!r}, expected the one line 'statplot: error: {message}'")


def check_runs(statplot):
    good(statplot, ["exact.stat"], "exact.png", 2, True, "default view with l2_error")
    good(statplot, ["other/plain.stat"], "other/plain.png", 1, True, "default view without")
    good(statplot, ["exact.stat", "-c", "min,max", "-c", "integral", "-c", "l2_error", "--log",
                    "-x", "step", "-o", "four.png"], "four.png", 2, True, "four columns, log, step")
    good(statplot, ["exact.stat", "other/plain.stat", "-c", "max"], "exact.png", 1, False,
         "two files, one column")
    good(statplot, ["run.probes.csv", "-c", "p1_T,p2_T"], "run.probes.png", 1, True, "probes")
    good(statplot, ["case.probes.csv", "-o", "fields.png"], "fields.png", 1, True,
         "a probes file's fields by default")
    good(statplot, ["case.probes.csv", "-c", "T,T%c,velocity%x", "-x", "step", "-o", "three.png"],
         "three.png", 2, True, "a field, a column and a field")
    good(statplot, ["tracers.stat"], "tracers.png", 2, True, "several tracers' min, max, l2_error")
    good(statplot, ["tracers.stat", "-c", "integral,S%max", "-o", "two.png"], "two.png", 1, True,
         "every tracer's integral, and one tracer's column")
    rc, stdout, stderr = run(statplot, "exact.stat", "other/plain.stat", "--list")
    check(rc == 0 and stdout == f"exact.stat: 4 rows; columns: {HEADER_EXACT.replace(',', ', ')}\n"
          f"other/plain.stat: 3 rows; columns: {COLUMNS_PLAIN}\n" and stderr == "",
          f"--list: exit {rc}, printed {stdout!r}, stderr {stderr!r}")
    rc, stdout, _ = run(statplot, "--help")
    check(rc == 0 and stdout.startswith("usage: statplot.py"), f"--help: exit {rc}, {stdout!r}")


def check_errors(statplot):
    bad(statplot, ["missing.stat"], 2, "cannot read 'missing.stat': No such file or directory",
        "a missing file")
    bad(statplot, ["other"], 2, "cannot read 'other': Is a directory", "a folder")
    bad(statplot, ["empty.stat"], 2, "'empty.stat' is empty, expected a CSV file whose first line "
        "names its columns (step,time,...)", "an empty file")
    bad(statplot, ["numbers.csv"], 2, "'numbers.csv' line 1: '0' is a number, expected a CSV file "
        "whose first line names its columns", "no header")
    bad(statplot, ["case.xml"], 2, "'case.xml' is not a CSV file with a header and a 'time' "
        "column: its first line is '<?xml version=\"1.0\"?>'", "not a CSV file")
    bad(statplot, ["binary.stat"], 2, "'binary.stat' is not a text file, expected a CSV file with "
        "a header", "a binary file")
    bad(statplot, ["bad_value.stat", "-c", "min"], 2, "'bad_value.stat' line 3, column 'max': "
        "'abc' is not a number", "a value that is not a number")
    bad(statplot, ["short_row.stat"], 2, "'short_row.stat' line 3: 3 values, the header has 9 "
        "columns", "a short row")
    bad(statplot, ["header_only.stat"], 2, "'header_only.stat' has a header but no rows to plot",
        "no rows")
    bad(statplot, ["exact.stat", "-c", "foo"], 2, "'exact.stat' has no column 'foo'; its columns: "
        + HEADER_EXACT.replace(",", ", "), "an unknown column")
    bad(statplot, ["exact.stat", "other/plain.stat", "-c", "l2_error"], 2, "'other/plain.stat' has "
        "no column 'l2_error'; its columns: " + COLUMNS_PLAIN, "a column one file lacks")
    bad(statplot, ["run.probes.csv", "-x", "step", "-c", "p1_T"], 2, "'run.probes.csv' has no "
        "column 'step'; its columns: time, p1_T, p2_T", "-x step without a step column")
    bad(statplot, ["case.probes.csv", "-c", "velocity%z"], 2, "'case.probes.csv' has no column "
        "'velocity%z'; its columns: " + PROBES_HEADER.replace(",", ", ") + " (and probe fields: T, "
        "velocity%x)", "a field the probes file lacks")
    bad(statplot, ["case.probes.csv", "exact.stat"], 2, "no column asked for, and "
        "'case.probes.csv' has no 'min' and 'max' to plot by default; choose with -c from: "
        + PROBES_HEADER.replace(",", ", "), "no -c for a probes file and a stat file")
    bad(statplot, ["tracers.stat", "-c", "foo"], 2, "'tracers.stat' has no column 'foo'; its "
        "columns: " + TRACERS_HEADER.replace(",", ", ") + " (and every tracer's: min, max, "
        "integral, l2_error, linf_error, advection_iterations, diffusion_iterations)",
        "a column no tracer has")
    bad(statplot, ["exact.stat", "-c", ""], 2, "no column asked for: -c needs a column name; the "
        "columns of 'exact.stat': " + HEADER_EXACT.replace(",", ", "), "-c ''")
    bad(statplot, ["run.probes.csv"], 2, "no column asked for, and 'run.probes.csv' has no 'min' "
        "and 'max' to plot by default; choose with -c from: time, p1_T, p2_T",
        "no -c for a file without min and max")
    bad(statplot, ["exact.stat", "-o", "exact.stat"], 2, "the output 'exact.stat' is one of the "
        "input files", "the output over an input")
    bad(statplot, ["exact.stat", "-o", "missing/x.png"], 4, "cannot write 'missing/x.png': No such "
        "file or directory", "an output that cannot be written")
    rc, stdout, stderr = run(statplot, "exact.stat", "-x", "dt")
    check(rc == 2 and stdout == "" and "invalid choice: 'dt'" in stderr, f"-x dt: exit {rc}, "
          f"stderr {stderr!r}")


def check_figures(statplot):
    """Subplots and lines, from statplot's own reading and plotting."""
    spec = importlib.util.spec_from_file_location("statplot", statplot)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    exact, plain = module.read_table("exact.stat"), module.read_table("other/plain.stat")
    probes = module.read_table("case.probes.csv")
    tracers = module.read_table("tracers.stat")
    views = (([tracers], None, ["min", "max", "l2_error"], 2),
             ([tracers], ["integral"], ["integral"], 2),
             ([tracers], ["T%l2_error"], ["T%l2_error"], 1),([exact], None, ["min", "max", "l2_error"], 1),
             ([plain], None, ["min", "max"], 1),
             ([exact, plain], None, ["min", "max"], 2),
             ([exact, plain], ["integral,max"], ["integral", "max"], 2),
             ([probes], None, ["T", "velocity%x"], 3),
             ([probes], ["T%b.2"], ["T%b.2"], 1))
    for tables, asked, expected, lines in views:
        columns = module.choose_columns(tables, asked, "time")
        check(columns == expected, f"columns {columns}, expected {expected}")
        module.set_labels(tables)
        fig = module.make_figure(tables, columns)
        axes = fig.get_axes()
        check(len(axes) == len(expected), f"{len(axes)} subplots for {expected}")
        check(all(len(ax.get_lines()) == lines for ax in axes), f"not {lines} lines per subplot")
        check([ax.get_ylabel() for ax in axes] == expected, "y labels are not the column names")
    check([exact.label, plain.label] == ["exact", "plain"], f"labels {exact.label}, {plain.label}")
    fig = module.make_figure([probes], ["velocity%x"])
    labels = [line.get_label() for line in fig.get_axes()[0].get_lines()]
    check(labels == ["a", "b.2", "c"], f"a field's lines are labelled {labels}, not by the probes")
    fig = module.make_figure([tracers], ["max"])
    labels = [line.get_label() for line in fig.get_axes()[0].get_lines()]
    check(labels == ["T", "S"], f"a column's lines are labelled {labels}, not by the tracers")


def main(argv):
    if len(argv) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        print(f"skipped: matplotlib is missing ({e}); install python3-matplotlib")
        return 77
    statplot = os.path.abspath(argv[0])
    with tempfile.TemporaryDirectory(prefix="check_statplot.") as tmp:
        os.chdir(tmp)
        write_inputs()
        check_runs(statplot)
        check_errors(statplot)
        check_figures(statplot)
    print(f"{len(failures)} failed checks" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
