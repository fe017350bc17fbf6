/* A probe as the case gives it (<probes>, docs/case-format.md): a named point where the run
 * writes the values of its fields, given as a <probe> element or in a CSV file of points. */
#ifndef FE_PROBE_H
#define FE_PROBE_H

#define FE_MAX_PROBES 100000   /* probes of a case, all sources together */
#define FE_PROBE_NAME_MAX 64   /* bytes of a probe's name */
#define FE_PROBE_LINE_MAX 4096 /* bytes of a line of a file of points */

struct fe_probe {
  char *name;
  double x[3];  /* x, y and z (0 when not given) */
  int n_coords; /* the coordinates given: 2 (x y) or 3 (x y z) */
  int line;     /* where it is given: in the case file, or in the file of points */
  int in_file;  /* given in the file of points (fe_case.probes_file) */
};

/* Letters, digits, '_', '-', '.', at most FE_PROBE_NAME_MAX bytes: a name that a column
 * name FIELD%NAME, split at its last '%', gives back. */
int fe_probe_name_valid(const char *name);

/* Append the probes of the CSV file at path (shown: the path as messages show it) to
 * probes[0..*n), growing the array: a header name,x,y or name,x,y,z (spaces around the
 * values, a UTF-8 byte order mark, CR LF line ends and blank lines allowed), then a row per
 * probe with as many values.  FE_ERR_INPUT "FILE:LINE: what was found; what was expected"
 * for a file that cannot be read, another header, a row of another count of values, an
 * invalid name, a coordinate that is not a finite number, more than FE_MAX_PROBES probes in
 * all, a line longer than FE_PROBE_LINE_MAX bytes, or no probe. */
int fe_probes_read_csv(const char *path, const char *shown, struct fe_probe **probes, int *n);

/* The first probe whose name an earlier one has: *first, *second (-1, -1 when the names are
 * all distinct); O(n log n). */
int fe_probes_find_duplicate(const struct fe_probe *probes, int n, int *first, int *second);

void fe_probes_free(struct fe_probe *probes, int n);

#endif
