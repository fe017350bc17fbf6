#include "app/velocity.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/fields.h"
#include "core/error.h"
#include "core/hash.h"
#include "io/program.h"
#include "io/snapshot.h"

struct fe_velocity {
  const struct fe_case *c;
  const struct fe_mesh *m;            /* the nodes of its values: the whole mesh, or a part */
  const struct fe_distribution *dist; /* several processes: m is this process's part; NULL */
  const struct fe_mesh *whole; /* the mesh the files are matched to: m, or dist's on process 0;
                                  NULL on the other processes, which read no file */
  const struct fe_backend *be;
  int n; /* snapshots; 0: the case's expressions */
  const struct fe_velocity_file *files;
  struct fe_snapshot_reader *reader;
  size_t len;                  /* m's n_nodes * dim */
  size_t whole_len;            /* the whole mesh's */
  uint64_t *hash;              /* of each snapshot's values, as read at the start */
  int held[2];                 /* the snapshot in each slot, -1 for none */
  double *read[2];             /* whole: its values as read, at the whole mesh's nodes */
  double *host[2];             /* its values on the host at m's nodes: read[] on one process */
  struct fe_vec *dev[2];       /* and on the backend, at m's nodes, from the first
                                  fe_velocity_at */
  struct fe_program *programs; /* expressions: their programs on the backend, from the first
                                  fe_velocity_at */
};

/* A snapshot's values at the whole mesh's nodes, a periodic unknown's copies given their
 * owner's (process 0 of several, the one process). */
static int read_snapshot(struct fe_velocity *v, const char *path, double *values)
{
  FE_CALL(fe_snapshot_read(v->reader, path, v->c->velocity_field, values));
  fe_mesh_copy_owners(v->whole, v->whole->dim, values);
  return FE_SUCCESS;
}

/* On several processes: process 0's result err is every process's (said there). */
static int agree(const struct fe_velocity *v, int err)
{
  return v->dist ? fe_comm_root_status(v->dist->comm, err) : err;
}

/* Snapshot k into slot s (host and backend), checked against what it held at the start: read
 * by process 0 of several, which hands each process its part's values. */
static int load(struct fe_velocity *v, int k, int s)
{
  const struct fe_velocity_file *f = &v->files[k];
  v->held[s] = -1;
  int err = v->whole ? read_snapshot(v, f->path, v->read[s]) : FE_SUCCESS;
  char q[FE_QUOTE_SIZE];
  if (!err && v->whole && fe_hash64(v->read[s], v->whole_len * sizeof(double), 0) != v->hash[k])
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                         "velocity file %s changed during the run: its values differ from those "
                         "read when the run started; expected the velocity files to stay as they "
                         "are until the run ends",
                         fe_quote(f->path, FE_QUOTE_MAX, q, sizeof q));
  FE_CALL(agree(v, err));
  if (v->dist) FE_CALL(fe_distribution_scatter(v->dist, v->m->dim, v->read[s], v->host[s]));
  if (v->dev[s]) FE_CALL(fe_vec_upload(v->dev[s], v->host[s]));
  v->held[s] = k;
  return FE_SUCCESS;
}

/* The slot holding snapshot k, loaded into the one that does not hold `keep` when neither
 * holds k. */
static int slot_of(struct fe_velocity *v, int k, int keep, int *s)
{
  for (*s = 0; *s < 2; ++*s)
    if (v->held[*s] == k) return FE_SUCCESS;
  *s = v->held[0] == keep ? 1 : 0;
  return load(v, k, *s);
}

/* u(t) = (1 - w) u_k0 + w u_k1: the snapshots around t, or the first or last one held. */
static void bracket(const struct fe_velocity *v, double t, int *k0, int *k1, double *w)
{
  const struct fe_velocity_file *f = v->files;
  *w = 0;
  *k0 = *k1 = 0;
  if (v->n == 1 || t <= f[0].time) return;
  *k0 = *k1 = v->n - 1;
  if (t >= f[v->n - 1].time) return;
  int lo = 0, hi = v->n - 1; /* f[lo].time <= t < f[hi].time */
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (f[mid].time <= t)
      lo = mid;
    else
      hi = mid;
  }
  *k0 = lo;
  *k1 = hi;
  *w = (t - f[lo].time) / (f[hi].time - f[lo].time);
}

/* The slots of the snapshots u(t) needs: s1 < 0 when one of them is u(t). */
static int slots_at(struct fe_velocity *v, double t, int *s0, int *s1, double *w)
{
  int k0, k1;
  bracket(v, t, &k0, &k1, w);
  FE_CALL(slot_of(v, k0, k1, s0));
  *s1 = -1;
  if (*w != 0) FE_CALL(slot_of(v, k1, k0, s1));
  return FE_SUCCESS;
}

/* Each file read once, checked, and its values' hash kept (process 0 of several). */
static int read_all(struct fe_velocity *v)
{
  for (int k = 0; k < v->n; k++) {
    FE_CALL(read_snapshot(v, v->files[k].path, v->read[0]));
    v->hash[k] = fe_hash64(v->read[0], v->whole_len * sizeof(double), 0);
  }
  return FE_SUCCESS;
}

/* The note on the run's times beyond the snapshots', said once when the run is set up. */
static void note_span(const struct fe_velocity *v)
{
  const double first = v->files[0].time, last = v->files[v->n - 1].time;
  const double start = v->c->t_start, end = v->c->t_end;
  char before[96] = "", after[96] = "";
  if (start < first)
    snprintf(before, sizeof before, "at the first snapshot's before t = %.9g", first);
  if (end > last) snprintf(after, sizeof after, "at the last snapshot's after t = %.9g", last);
  if (v->n < 2 || (!before[0] && !after[0])) return;
  fprintf(stderr,
          "fesim: note: the velocity snapshots span t = %.9g to %.9g, the run %.9g to %.9g: the "
          "velocity is held %s%s%s\n",
          first, last, start, end, before, before[0] && after[0] ? " and " : "", after);
}

/* Process 0 of several (the one process): the reader, the whole mesh's slots, each file read. */
static int read_files(struct fe_velocity *v)
{
  v->whole_len = (size_t)v->whole->n_nodes * (size_t)v->whole->dim;
  FE_CALL(fe_snapshot_reader_create(v->whole, &v->reader));
  FE_MALLOC(v->n, &v->hash);
  for (int s = 0; s < 2; s++) FE_MALLOC(v->whole_len, &v->read[s]);
  return read_all(v);
}

static int create_files(struct fe_velocity *v)
{
  const struct fe_case *c = v->c;
  v->n = c->n_velocity_files;
  v->files = c->velocity_files;
  v->len = (size_t)v->m->n_nodes * (size_t)v->m->dim;
  v->held[0] = v->held[1] = -1;
  FE_CALL(agree(v, v->whole ? read_files(v) : FE_SUCCESS));
  for (int s = 0; s < 2; s++)
    if (v->dist)
      FE_MALLOC(v->len, &v->host[s]);
    else
      v->host[s] = v->read[s];
  return FE_SUCCESS;
}

static int create(const struct fe_case *c, const struct fe_mesh *m,
                  const struct fe_distribution *dist, const struct fe_backend *be, int verbosity,
                  struct fe_velocity **out)
{
  struct fe_velocity *v;
  FE_CALLOC(1, &v);
  *v =
      (struct fe_velocity){.c = c, .m = m, .dist = dist, .whole = dist ? dist->whole : m, .be = be};
  const int err = c->n_velocity_files ? create_files(v) : FE_SUCCESS;
  if (err) {
    fe_velocity_destroy(v);
    return err;
  }
  if (v->n && verbosity > 0) note_span(v);
  *out = v;
  return FE_SUCCESS;
}

int fe_velocity_create(const struct fe_case *c, const struct fe_mesh *m,
                       const struct fe_backend *be, int verbosity, struct fe_velocity **v)
{
  return create(c, m, NULL, be, verbosity, v);
}

int fe_velocity_create_part(const struct fe_case *c, const struct fe_distribution *dist,
                            const struct fe_backend *be, int verbosity, struct fe_velocity **v)
{
  return create(c, dist->part, dist, be, verbosity, v);
}

void fe_velocity_destroy(struct fe_velocity *v)
{
  if (!v) return;
  fe_snapshot_reader_destroy(v->reader);
  free(v->hash);
  for (int s = 0; s < 2; s++) {
    if (v->host[s] != v->read[s]) free(v->host[s]);
    free(v->read[s]);
    fe_vec_destroy(v->dev[s]);
  }
  fe_backend_free(v->be, v->programs);
  free(v);
}

int fe_velocity_time_dependent(const struct fe_velocity *v)
{
  return v->n ? v->n > 1 : fe_case_time_dependent_velocity(v->c);
}

/* out = u(t) at the nodes of mesh m, from the slots' values there (host or read), m or the
 * whole mesh; out NULL: the slots loaded only. */
static int host_at(struct fe_velocity *v, const struct fe_mesh *m, double *const slot[2], double t,
                   double *out)
{
  if (!v->n) return out ? fe_eval_velocity(v->c, m, t, out) : FE_SUCCESS;
  int s0, s1;
  double w;
  FE_CALL(slots_at(v, t, &s0, &s1, &w));
  if (!out) return FE_SUCCESS;
  const double *a = slot[s0], *b = s1 < 0 ? NULL : slot[s1];
  for (long i = 0; i < (long)m->n_nodes * m->dim; i++)
    out[i] = b ? w * b[i] + (1 - w) * a[i] : a[i];
  return FE_SUCCESS;
}

int fe_velocity_host(struct fe_velocity *v, double t, double *out)
{
  return host_at(v, v->m, v->host, t, out);
}

int fe_velocity_host_whole(struct fe_velocity *v, double t, double *out)
{
  return host_at(v, v->whole, v->read, t, v->whole ? out : NULL);
}

/* The expressions' programs at the nodes of space (any space of the mesh: they share its
 * coordinates). */
static int evaluate(struct fe_velocity *v, const struct fe_space *space, double t, double *out)
{
  const int d = v->m->dim;
  if (!v->programs) {
    struct fe_program h[3];
    for (int a = 0; a < d; a++) h[a] = *fe_expr_program(v->c->velocity[a]);
    FE_CALL(fe_backend_alloc(v->be, (size_t)d * sizeof *h, h, &v->programs));
  }
  return fe_space_evaluate(space, 0, NULL, NULL, space->n_nodes, v->programs, d, t, out);
}

int fe_velocity_at(struct fe_velocity *v, const struct fe_space *space, double t,
                   struct fe_vec *out)
{
  if (!v->n) return evaluate(v, space, t, fe_vec_write(out));
  for (int s = 0; s < 2; s++) { /* the backend's slots, with what the host has */
    if (v->dev[s]) continue;
    FE_CALL(fe_vec_create(v->be, v->len, &v->dev[s]));
    if (v->held[s] >= 0) FE_CALL(fe_vec_upload(v->dev[s], v->host[s]));
  }
  int s0, s1;
  double w;
  FE_CALL(slots_at(v, t, &s0, &s1, &w));
  FE_CALL(fe_vec_copy(v->dev[s0], out));
  return s1 < 0 ? FE_SUCCESS : fe_vec_axpby(out, w, v->dev[s1], 1 - w);
}

void fe_velocity_describe(const struct fe_velocity *v, char *buf, size_t size)
{
  char q[FE_QUOTE_SIZE];
  const struct fe_case *c = v->c;
  if (!v->n) {
    snprintf(buf, size, "expressions%s", fe_velocity_time_dependent(v) ? " of t" : "");
    return;
  }
  const char *from = c->velocity_series ? fe_quote(c->velocity_series, FE_QUOTE_MAX, q, sizeof q)
                                        : "<file> elements";
  if (v->n == 1)
    snprintf(buf, size, "1 snapshot (field '%s', from %s), steady", c->velocity_field, from);
  else
    snprintf(buf, size,
             "%d snapshots at t = %.9g to %.9g (field '%s', from %s), interpolated linearly "
             "between them, held outside",
             v->n, v->files[0].time, v->files[v->n - 1].time, c->velocity_field, from);
}
