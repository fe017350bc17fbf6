#!/usr/bin/python3
"""Plot columns of fesim's .stat and .probes.csv files (or any CSV with a header and a time column) to a PNG.

Usage: statplot.py FILE [FILE ...] [-c COLUMN ...] [-x time|step] [--log] [-o OUT.png] [--list]

Like Fluidity's statplot, but to a file: one subplot per column, one line per
file, against time (or step).  With no -c: min and max, and l2_error when
every file has it.  -c takes a name or a comma-separated list and may be
repeated.  Lines are named by the file's case name (NAME of NAME.stat), with
as much of its directory as tells files of the same name apart; a single file
is named in the title instead.

A stat file of several tracers names each tracer's columns TRACER%COLUMN
(T%min, S%min): -c takes such a column, or a COLUMN (min) for one subplot with
a line per tracer, and the default view is min and max (and l2_error) so.  A
probes file (NAME.probes.csv) names its columns FIELD%PROBE (T%station_a,
velocity%x%station_a): -c takes a column, or a FIELD (T, velocity%x) for one
subplot with a line per probe; with no -c, a file of such columns plots each
of its fields so.  --log draws y on a log scale, which leaves
out values <= 0.  The PNG goes to -o, by default FILE.png beside the first
file (out/NAME.stat -> out/NAME.png); its path is printed.  --list prints the
rows and columns of each file and exits.

Exit 0 on success; 2 with one line on stderr for a missing or unreadable
file, a file that is not a CSV with a header, a row with a value that is not
a number (file, line and column named), an unknown column (the file's columns
listed) or no column to plot (argparse's usage errors also exit 2); 4 when
matplotlib is missing or the PNG cannot be written (fesim's code for a
resource failure).  Run with /usr/bin/python3 (Debian's python3-matplotlib).
"""
import argparse
import csv
import math
import os
import sys

DEFAULT_COLUMNS = ("min", "max")
OPTIONAL_DEFAULT_COLUMNS = ("l2_error",)
WIDTH_IN, ROW_HEIGHT_IN, DPI = 10.0, 3.6, 100
MARKERS_UP_TO_ROWS = 50
MAX_LEGEND = 24


class UsageError(Exception):
    """The input or the options are wrong: exit 2."""


class OutputError(Exception):
    """The plot cannot be made or written: exit 4."""


def quote(text):
    return repr(str(text))


class Table:
    """One CSV file: its path, column names and values by column."""

    def __init__(self, path, columns, values, label=None):
        self.path = path
        self.columns = columns
        self.values = values
        self.label = label

    def rows(self):
        return len(self.values[self.columns[0]])

    def fields(self):
        """The FIELDs of the columns FIELD%PROBE, in the order of the columns."""
        found = []
        for column in self.columns:
            if "%" in column and column.rsplit("%", 1)[0] not in found:
                found.append(column.rsplit("%", 1)[0])
        return found

    def field_columns(self, field):
        """The columns FIELD%PROBE of field, in order."""
        return [c for c in self.columns if "%" in c and c.rsplit("%", 1)[0] == field]

    def is_stat(self):
        """A stat file (its dt column), whose COLUMN%... are tracers' columns, not probes'."""
        return "dt" in self.values

    def tracer_columns(self, column):
        """A stat file's columns TRACER%COLUMN of column, in the tracers' order."""
        if not self.is_stat():
            return []
        return [c for c in self.columns if "%" in c and c.split("%", 1)[1] == column]

    def has(self, column):
        return column in self.values or bool(self.tracer_columns(column))

    def require(self, column):
        """The columns that plot name `column`: itself, every tracer's column (a stat file of
        several tracers), or a field's columns (a probes file)."""
        if column in self.values:
            return [column]
        if self.tracer_columns(column):
            return self.tracer_columns(column)
        if self.field_columns(column):
            return self.field_columns(column)
        if self.is_stat():
            shared = []
            for c in self.columns:
                if "%" in c and c.split("%", 1)[1] not in shared:
                    shared.append(c.split("%", 1)[1])
            hint = f" (and every tracer's: {', '.join(shared)})" if shared else ""
        else:
            fields = self.fields()
            hint = f" (and probe fields: {', '.join(fields)})" if fields else ""
        raise UsageError(f"{quote(self.path)} has no column {quote(column)}; its columns: "
                         + ", ".join(self.columns) + hint)


def is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_header(path, header):
    if header is None:
        raise UsageError(f"{quote(path)} is empty, expected a CSV file whose first line names "
                         "its columns (step,time,...)")
    for i, name in enumerate(header):
        if not name.strip():
            raise UsageError(f"{quote(path)} line 1: column {i + 1} has no name; expected a CSV "
                             "file whose first line names its columns")
        if is_number(name):
            raise UsageError(f"{quote(path)} line 1: {quote(name)} is a number, expected a CSV "
                             "file whose first line names its columns")
    seen = set()
    for name in header:
        if name in seen:
            raise UsageError(f"{quote(path)} line 1: column {quote(name)} is named twice")
        seen.add(name)
    if "time" not in seen:
        raise UsageError(f"{quote(path)} is not a CSV file with a header and a 'time' column: "
                         f"its first line is {quote(','.join(header))}")


def read_rows(path, reader, header, values):
    for row in reader:
        if not row:
            continue
        if len(row) != len(header):
            raise UsageError(f"{quote(path)} line {reader.line_num}: {len(row)} values, the header "
                             f"has {len(header)} columns")
        for name, text in zip(header, row):
            try:
                values[name].append(float(text))
            except ValueError:
                raise UsageError(f"{quote(path)} line {reader.line_num}, column {quote(name)}: "
                                 f"{quote(text)} is not a number") from None


def read_table(path):
    """The CSV file at path, checked: a header of distinct names with 'time', numbers below."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            check_header(path, header)
            values = {name: [] for name in header}
            read_rows(path, reader, header, values)
    except OSError as e:
        raise UsageError(f"cannot read {quote(path)}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{quote(path)} is not a text file, expected a CSV file with a header") \
            from None
    except csv.Error as e:
        raise UsageError(f"{quote(path)} is not a CSV file with a header: {e}") from None
    return Table(path, header, values)


def case_name(path):
    """NAME of NAME.stat, NAME.probes of NAME.probes.csv."""
    base = os.path.basename(path)
    stem, ext = os.path.splitext(base)
    return stem if ext else base


def set_labels(tables):
    """The case name, with as many parent folders as tell files of the same name apart."""
    parts = [os.path.abspath(t.path).split(os.sep)[:-1] + [case_name(t.path)] for t in tables]
    depth = 1
    while True:
        labels = ["/".join(p[-depth:]) for p in parts]
        if len(set(labels)) == len(labels) or depth >= max(len(p) for p in parts):
            break
        depth += 1
    for table, label in zip(tables, labels):
        table.label = label


def expand(columns):
    """-c values: names or comma-separated lists, in order, each once."""
    names = []
    for item in columns:
        for name in item.split(","):
            name = name.strip()
            if name and name not in names:
                names.append(name)
    return names


def default_columns(tables):
    missing = [t for t in tables if not all(t.has(c) for c in DEFAULT_COLUMNS)]
    if all(t.fields() and not t.is_stat() for t in tables) and missing:  # probes: each field
        return [f for f in tables[0].fields() if all(t.field_columns(f) for t in tables)]
    if missing:
        t = missing[0]
        raise UsageError(f"no column asked for, and {quote(t.path)} has no 'min' and 'max' to plot "
                         "by default; choose with -c from: " + ", ".join(t.columns))
    extra = [c for c in OPTIONAL_DEFAULT_COLUMNS if all(t.has(c) for t in tables)]
    return list(DEFAULT_COLUMNS) + extra


def choose_columns(tables, asked, x):
    if asked is None:
        columns = default_columns(tables)
    else:
        columns = expand(asked)
        if not columns:
            raise UsageError("no column asked for: -c needs a column name; the columns of "
                             f"{quote(tables[0].path)}: " + ", ".join(tables[0].columns))
    for table in tables:
        table.require(x)
        for column in columns:
            table.require(column)
    return columns


def empty_tables(tables):
    for table in tables:
        if table.rows() == 0:
            raise UsageError(f"{quote(table.path)} has a header but no rows to plot")


def default_output(path):
    stem, ext = os.path.splitext(path)
    return (stem if ext else path) + ".png"


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError as e:
        raise OutputError(f"matplotlib is missing ({e}); install python3-matplotlib "
                          "(apt-get install python3-matplotlib) and run with /usr/bin/python3") \
            from None
    return pyplot


def grid(n):
    """(rows, columns) of subplots: one wide plot for one column, else two per row."""
    cols = 1 if n == 1 else 2
    return (n + cols - 1) // cols, cols


def line_part(column, name):
    """What tells the lines of one subplot apart: the tracer of TRACER%COLUMN, the probe of
    FIELD%PROBE, None for the column itself."""
    if name == column:
        return None
    if name.endswith("%" + column):
        return name[: -len(column) - 1]
    return name.rsplit("%", 1)[1]


def draw_column(ax, tables, column, x, log):
    lines = 0
    for table in tables:
        rows = table.rows()
        for name in table.require(column):
            part = line_part(column, name)
            label = table.label if part is None else part if len(tables) == 1 else f"{table.label}: {part}"
            ax.plot(table.values[x], table.values[name], label=label, linewidth=1.4,
                    marker="." if rows <= MARKERS_UP_TO_ROWS else None)
            lines += 1
    ax.set_title(column)
    ax.set_xlabel(x)
    ax.set_ylabel(column)
    ax.grid(True, alpha=0.3)
    if log:
        if any(v > 0 for t in tables for name in t.require(column) for v in t.values[name]
               if math.isfinite(v)):
            ax.set_yscale("log", nonpositive="mask")
        else:
            ax.set_title(f"{column} (linear: no value > 0)")
    if 1 < lines <= MAX_LEGEND:
        ax.legend(fontsize="small")


def title(tables):
    if len(tables) == 1:
        return tables[0].path
    return ", ".join(t.label for t in tables)


def make_figure(tables, columns, x="time", log=False):
    """The figure: one subplot per column, one line per table."""
    pyplot = import_pyplot()
    rows, cols = grid(len(columns))
    width = WIDTH_IN if cols > 1 else WIDTH_IN * 0.8
    fig, axes = pyplot.subplots(rows, cols, figsize=(width, ROW_HEIGHT_IN * rows + 0.6),
                                dpi=DPI, squeeze=False, layout="constrained")
    flat = [ax for row in axes for ax in row]
    for ax, column in zip(flat, columns):
        draw_column(ax, tables, column, x, log)
    for ax in flat[len(columns):]:
        fig.delaxes(ax)
    fig.suptitle(title(tables))
    return fig


def save(fig, out):
    try:
        fig.savefig(out, format="png")
    except (OSError, ValueError) as e:
        raise OutputError(f"cannot write {quote(out)}: {getattr(e, 'strerror', None) or e}") \
            from None


def list_columns(tables):
    for table in tables:
        print(f"{table.path}: {table.rows()} rows; columns: " + ", ".join(table.columns))


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="statplot.py", description=__doc__.split("\n\n")[0],
        epilog="example: tools/statplot.py out/rotating_gaussian.stat -c min,max,integral,l2_error")
    p.add_argument("files", nargs="+", metavar="FILE", help="NAME.stat files, or CSV files with "
                   "a header and a 'time' column (NAME.probes.csv)")
    p.add_argument("-c", "--column", action="append", dest="columns", metavar="COLUMN",
                   help="a column to plot (or a comma-separated list); repeat for more; "
                   "default: min, max and l2_error when present")
    p.add_argument("-x", choices=("time", "step"), default="time",
                   help="the column along x (default: time)")
    p.add_argument("--log", action="store_true", help="log scale in y (values <= 0 left out)")
    p.add_argument("-o", "--output", metavar="OUT.png",
                   help="the PNG to write (default: FILE.png beside the first file)")
    p.add_argument("--list", action="store_true", help="print each file's columns and exit")
    return p.parse_args(argv)


def run(args):
    tables = [read_table(path) for path in args.files]
    if args.list:
        list_columns(tables)
        return
    columns = choose_columns(tables, args.columns, args.x)
    empty_tables(tables)
    out = args.output or default_output(args.files[0])
    if any(os.path.realpath(out) == os.path.realpath(p) for p in args.files):
        raise UsageError(f"the output {quote(out)} is one of the input files")
    set_labels(tables)
    save(make_figure(tables, columns, args.x, args.log), out)
    print(out)


def main(argv):
    args = parse_args(argv)
    try:
        run(args)
    except UsageError as e:
        print(f"statplot: error: {e}", file=sys.stderr)
        return 2
    except OutputError as e:
        print(f"statplot: error: {e}", file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
