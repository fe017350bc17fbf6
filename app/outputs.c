/* The output directory, its ownership, and every file written in it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "app/outputs.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/fields.h"
#include "assembly/measure.h"
#include "core/error.h"
#include "core/timer.h"
#include "io/vtk.h"
#include "solvers/halo.h"

/* ---------------------------------------------------------------- checked before the mesh */

/* The case file's absolute path, symbolic links resolved; where the resolved
 * path would pass PATH_MAX (a deep tree behind a link), the path made absolute
 * as written: it only names the case in NAME.run and the lock. */
static int resolve_case_path(struct fe_outputs *o)
{
  char q[FE_QUOTE_SIZE], *cwd;
  o->case_real = realpath(o->c->path, NULL);
  if (o->case_real) return FE_SUCCESS;
  FE_CHECK(errno == ENAMETOOLONG, FE_ERR_RESOURCE, "cannot resolve the path of %s: %s",
           fe_quote(o->c->path, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
  if (o->c->path[0] == '/') return fe_path_printf(&o->case_real, "%s", o->c->path);
  cwd = getcwd(NULL, 0);
  FE_CHECK(cwd, FE_ERR_RESOURCE, "cannot resolve the path of %s: the working directory: %s",
           fe_quote(o->c->path, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
  const int err = fe_path_printf(&o->case_real, "%s/%s", cwd, o->c->path);
  free(cwd);
  return err;
}

/* "--output 'DIR'" or "case.xml: <output dir="DIR">": where the output directory was named. */
static const char *outdir_source(const struct fe_outputs *o, char *buf, size_t size)
{
  char q[FE_QUOTE_SIZE], p[FE_QUOTE_SIZE];
  if (o->opt->output_dir)
    snprintf(buf, size, "--output %s", fe_quote(o->dir, FE_QUOTE_MAX, q, sizeof q));
  else
    snprintf(buf, size, "%s: <output dir=%s>", fe_path_shown(o->c->path, p, sizeof p),
             fe_quote(o->dir, FE_QUOTE_MAX, q, sizeof q));
  return buf;
}

/* The output directory, or the first of its parents that exists, must be a
 * directory: checked with the case, before anything is written. */
static int check_output_dir(const struct fe_outputs *o)
{
  char *path, from[2 * FE_QUOTE_SIZE + 64], q[FE_QUOTE_SIZE];
  struct stat st;
  if (!o->dir[0]) return FE_SUCCESS;
  FE_CALL(fe_strdup(o->dir, &path));
  int err = FE_SUCCESS;
  for (char *p = path + 1; !err; p++) {
    if (*p && *p != '/') continue;
    const char end = *p;
    *p = '\0';
    if (!stat(path, &st) && !S_ISDIR(st.st_mode))
      err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                           "%s is not a directory: %s is a file; expected a directory, or a path "
                           "where one can be created",
                           outdir_source(o, from, sizeof from),
                           end ? fe_quote(path, FE_QUOTE_MAX, q, sizeof q) : "it");
    *p = end;
    if (!end) break;
  }
  free(path);
  return err;
}

/* Every file the run may create in the output directory (the last dump and
 * checkpoint have the longest numbers) fits the file system's limits. */
static int check_output_names(const struct fe_outputs *o)
{
  const char *name = o->c->name;
  const long last_dump = fe_schedule_max_dumps(o->sched) - 1;
  char *files[7] = {0}, source[FE_QUOTE_SIZE + 64], p[FE_QUOTE_SIZE];
  long name_max, path_max;
  fe_outdir_limits(o->dir, &name_max, &path_max);
  snprintf(source, sizeof source, "<name> (%s)", fe_path_shown(o->c->path, p, sizeof p));
  /* the first three have no temporary (the probes file only with <probes>) */
  int err = fe_path_printf(&files[0], "%s.stat", name);
  if (!err) err = fe_path_printf(&files[1], FE_LOCK_FILE);
  if (!err && o->c->n_probes) err = fe_path_printf(&files[2], "%s.probes.csv", name);
  if (!err) err = fe_path_printf(&files[3], "%s.run", name);
  if (!err) err = fe_path_printf(&files[4], "%s.vtk.series", name);
  if (!err) err = fe_vtk_path(NULL, name, last_dump, &files[5]);
  if (!err)
    err = fe_path_printf(&files[6], "%s_checkpoint_%06ld.bin", name,
                         fe_schedule_max_steps(o->sched) - 1);
  for (int i = 0; !err && i < 7; i++) {
    char *tmp = NULL;
    if (!files[i]) continue;
    err = fe_outdir_check_name(o->dir, files[i], name_max, path_max, source);
    if (!err && i >= 3) err = fe_outdir_tmp_path(files[i], &tmp);
    if (!err && tmp) err = fe_outdir_check_name(o->dir, tmp, name_max, path_max, source);
    free(tmp);
  }
  for (int i = 0; i < 7; i++) free(files[i]);
  return err;
}

int fe_outputs_init(struct fe_outputs *o, const struct fe_options *opt, const struct fe_case *c,
                    const struct fe_schedule *sched)
{
  *o = (struct fe_outputs){.opt = opt,
                           .c = c,
                           .sched = sched,
                           .dir = opt->output_dir ? opt->output_dir : c->output_dir,
                           .saved_step = -1,
                           .error_step = -1,
                           .queued = {{.probes_at = -1}, {.probes_at = -1}},
                           .probe_velocity_time = NAN};
  FE_CALL(resolve_case_path(o));
  FE_CALL(check_output_dir(o));
  return check_output_names(o);
}

/* ---------------------------------------------------------------- with the mesh */

/* "step,time", then FIELD%PROBE for each tracer and each velocity component (velocity%x, ...),
 * as Fluidity names its detectors' fields (femtools/Diagnostic_variables.F90,
 * write_detectors: Phase%Field and Phase%Velocity%x), each field's columns in the probes'
 * order. */
static int probe_columns(struct fe_outputs *o)
{
  static const char *const axes[] = {"x", "y", "z"};
  const struct fe_case *c = o->c;
  const int components = fe_case_has_velocity(c) ? o->m->dim : 0;
  size_t len = 16;
  for (int p = 0; p < c->n_probes; p++) {
    len += (strlen("velocity%x%") + strlen(c->probes[p].name) + 2) * components;
    for (int k = 0; k < c->n_tracers; k++)
      len += strlen(c->tracers[k].name) + strlen(c->probes[p].name) + 2;
  }
  FE_CALL(fe_calloc(len, 1, &o->probes_columns));
  char *w = o->probes_columns;
  w += sprintf(w, "step,time");
  for (int k = 0; k < c->n_tracers; k++)
    for (int p = 0; p < c->n_probes; p++)
      w += sprintf(w, ",%s%%%s", c->tracers[k].name, c->probes[p].name);
  for (int a = 0; a < components; a++)
    for (int p = 0; p < c->n_probes; p++)
      w += sprintf(w, ",velocity%%%s%%%s", axes[a], c->probes[p].name);
  return FE_SUCCESS;
}

/* The dump's point fields: each tracer, the velocity, each tracer's exact solution and error
 * (the case reader checked they are distinct and within VTK's limits). */
static int name_fields(struct fe_outputs *o)
{
  const struct fe_case *c = o->c;
  const int n = c->n_tracers;
  FE_CALLOC(3 * n + 1, &o->field_names);
  FE_CALLOC(n, &o->exact_names);
  FE_CALLOC(n, &o->error_names);
  FE_CALLOC(n, &o->tracer_names);
  FE_CALLOC(n, &o->has_exact);
  for (int k = 0; k < n; k++) {
    o->field_names[o->n_fields++] = o->tracer_names[k] = c->tracers[k].name;
    o->has_exact[k] = c->tracers[k].exact != NULL;
  }
  if (fe_case_has_velocity(c)) o->field_names[o->n_fields++] = "velocity";
  for (int k = 0; k < n; k++) {
    if (!o->has_exact[k]) continue;
    FE_CALL(fe_path_printf(&o->exact_names[k], "%s_exact", c->tracers[k].name));
    FE_CALL(fe_path_printf(&o->error_names[k], "%s_error", c->tracers[k].name));
    o->field_names[o->n_fields++] = o->exact_names[k];
    o->field_names[o->n_fields++] = o->error_names[k];
  }
  size_t len = 0;
  for (int i = 0; i < o->n_fields; i++) len += strlen(o->field_names[i]) + 1;
  FE_CALL(fe_calloc(len + 1, 1, &o->fields_text));
  for (int i = 0; i < o->n_fields; i++) {
    if (i) strcat(o->fields_text, ",");
    strcat(o->fields_text, o->field_names[i]);
  }
  return FE_SUCCESS;
}

/* The stat file's tracers and their budgets. */
static struct fe_stat_layout stat_layout(const struct fe_outputs *o)
{
  return (struct fe_stat_layout){.n_tracers = o->n_tracers,
                                 .names = o->tracer_names,
                                 .has_exact = o->has_exact,
                                 .fluxes = o->c->fluxes,
                                 .n_flux_groups = o->n_flux_groups,
                                 .flux_labels = (const char *const *)o->flux_labels};
}

/* <fluxes>: the boundary groups of the budget columns and their labels. */
static int flux_groups(struct fe_outputs *o)
{
  if (!o->c->fluxes) return FE_SUCCESS;
  FE_CALLOC(o->m->n_groups + 1, &o->flux_groups);
  FE_CALL(fe_flux_groups_find(o->c, o->m, o->flux_groups, &o->n_flux_groups));
  return fe_budget_labels(o->m, o->n_flux_groups, o->flux_groups, &o->flux_labels);
}

/* The dump's fields, the output paths, and the run's identity. */
static int name_outputs(struct fe_outputs *o)
{
  const struct fe_case *c = o->c;
  FE_CALL(name_fields(o));
  FE_CALL(flux_groups(o));
  const struct fe_stat_layout layout = stat_layout(o);
  FE_CALL(fe_stat_columns(&layout, &o->stat_columns));
  FE_CALL(fe_outdir_path(o->dir, &o->stat_path, "%s.stat", c->name));
  FE_CALL(fe_outdir_path(o->dir, &o->series_path, "%s.vtk.series", c->name));
  if (c->n_probes) {
    FE_CALL(fe_outdir_path(o->dir, &o->probes_path, "%s.probes.csv", c->name));
    FE_CALL(probe_columns(o));
  }
  o->id = (struct fe_checkpoint){.name = c->name,
                                 .columns = o->stat_columns,
                                 .fields = o->fields_text,
                                 .n_nodes = o->m->n_nodes,
                                 .n_cells = o->m->n_cells,
                                 .n_fields = o->n_tracers};
  return FE_SUCCESS;
}

/* A vector of the nodes; on a periodic mesh its copies are ghosts, outside the reductions, and
 * so are the other processes' nodes of a part. */
static int node_vec(const struct fe_outputs *o, const struct fe_backend *be, struct fe_vec **v)
{
  if (o->halo) return fe_vec_create_ghosted(o->halo, v);
  return fe_vec_create(be, (size_t)o->part->n_nodes, v);
}

/* Whether this process writes the files: process 0 of several, or the one. */
static int writes(const struct fe_outputs *o) { return !o->dist || o->dist->comm->rank == 0; }

/* v's values, ncomp per node, for the whole mesh: on several processes gathered on process 0
 * (the others send theirs). */
static int download(const struct fe_outputs *o, const struct fe_vec *v, int ncomp, double *whole)
{
  if (!o->dist) return fe_vec_download(v, whole);
  FE_CALL(fe_vec_download(v, o->h_part));
  return fe_distribution_gather(o->dist, ncomp, o->h_part, whole);
}

/* v from values of the whole mesh (process 0's on several processes): this process's. */
static int upload(const struct fe_outputs *o, struct fe_vec *v, const double *whole)
{
  if (!o->dist) return fe_vec_upload(v, whole);
  FE_CALL(fe_distribution_scatter(o->dist, 1, whole, o->h_part));
  return fe_vec_upload(v, o->h_part);
}

/* lumped_n = int phi_n = sum over the cells at n (at every copy of a periodic unknown) of
 * |K| / (d + 1) */
static int create_lumped(struct fe_outputs *o, const struct fe_backend *be)
{
  const struct fe_mesh *m = o->part;
  double *w = NULL, *wc = NULL;
  int *ptr = NULL, *inc = NULL; /* each unknown's cell entries, ascending, at each of its copies */
  FE_CALL(node_vec(o, be, &o->lumped));
  int err = fe_malloc((size_t)m->n_nodes * sizeof *w + 1, &w);
  if (!err) err = fe_malloc((size_t)m->n_cells * sizeof *wc + 1, &wc);
  if (!err) err = fe_mesh_incidence(m, &ptr, &inc);
  if (!err) err = fe_mesh_merge_copies(m, &ptr, &inc);
  if (!err) { /* each unknown's cells' shares summed in cell order, on every core: the bits of a
                 loop over the cells */
#pragma omp parallel for schedule(static)
    for (long c = 0; c < m->n_cells; c++) wc[c] = fe_cell_measure(m, c) / m->nv;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < m->n_nodes; i++) {
      double sum = 0;
      for (int j = ptr[i]; j < ptr[i + 1]; j++) sum += wc[inc[j] / m->nv];
      w[i] = sum;
    }
    err = fe_vec_upload(o->lumped, w);
  }
  free(ptr);
  free(inc);
  free(wc);
  free(w);
  return err;
}

/* Room for n dump times: the table grows as dumps are written (a run whose steps come from a
 * Courant number does not know its number of dumps up front). */
static int reserve_dumps(struct fe_outputs *o, long n)
{
  if (n <= o->dump_capacity) return FE_SUCCESS;
  long capacity = o->dump_capacity ? o->dump_capacity : 64;
  while (capacity < n) capacity *= 2;
  double *grown = realloc(o->dump_times, (size_t)capacity * sizeof *grown);
  FE_CHECK(grown, FE_ERR_RESOURCE, "out of memory: a table of %ld dump times", capacity);
  o->dump_times = grown;
  o->dump_capacity = capacity;
  return FE_SUCCESS;
}

int fe_outputs_prepare(struct fe_outputs *o, const struct fe_mesh *m,
                       const struct fe_distribution *dist, const struct fe_backend *be)
{
  const struct fe_case *c = o->c;
  const long n = m->n_nodes, nt = c->n_tracers;
  o->m = m;
  o->dist = dist;
  o->part = dist ? dist->part : m;
  const struct fe_mesh *pm = o->part;
  if (dist) FE_MALLOC((long)pm->n_nodes * FE_HALO_MAX_COMP, &o->h_part);
  FE_CALL(fe_mesh_halo_create(be, pm, &o->halo));
  o->n_tracers = c->n_tracers;
  FE_CALL(name_outputs(o));
  FE_CALL(reserve_dumps(o, 1));
  FE_MALLOC(n * nt, &o->h_tracers);
  FE_CALLOC(nt, &o->row_tracers);
  if (fe_case_has_velocity(c)) FE_MALLOC(n * m->dim, &o->h_velocity);
  if (fe_case_any_exact(c)) {
    FE_MALLOC(n * nt, &o->h_exact);
    FE_MALLOC(n * nt, &o->h_error);
    FE_CALLOC(nt, &o->exact);
    FE_CALLOC(nt, &o->error);
    for (int k = 0; k < nt; k++)
      if (o->has_exact[k]) {
        FE_CALL(node_vec(o, be, &o->exact[k]));
        FE_CALL(node_vec(o, be, &o->error[k]));
      }
    FE_CALL(node_vec(o, be, &o->mass_error));
  }
  size_t values = 0; /* the probes' */
  if (c->n_probes) {
    const int velocity = fe_case_has_velocity(c);
    values = (size_t)c->n_probes * (nt + (velocity ? m->dim : 0));
    FE_CALL(fe_vec_create(be, values, &o->probe_values));
    FE_CALL(fe_calloc(values, sizeof *o->h_probes, &o->h_probes));
    if (velocity) FE_CALL(fe_vec_create(be, (size_t)pm->n_nodes * m->dim, &o->probe_velocity));
  }
  /* each tracer's range and integral, its error's range and L2 norm, the probes' values */
  FE_CALLOC(nt, &o->row_at);
  for (int i = 0; i < 2; i++)
    FE_CALL(fe_readout_create(be, (int)(4 * nt * FE_READOUT_REDUCTION + values),
                              &o->queued[i].readout));
  return create_lumped(o, be);
}

void fe_outputs_destroy(struct fe_outputs *o)
{
  for (int k = 0; k < o->n_tracers; k++) {
    if (o->exact) fe_vec_destroy(o->exact[k]);
    if (o->error) fe_vec_destroy(o->error[k]);
    if (o->exact_names) free(o->exact_names[k]);
    if (o->error_names) free(o->error_names[k]);
  }
  struct fe_vec *v[] = {o->lumped, o->mass_error, o->probe_values, o->probe_velocity};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) fe_vec_destroy(v[i]);
  fe_halo_destroy(o->halo);
  for (int i = 0; i < 2; i++) fe_readout_destroy(o->queued[i].readout);
  void *host[] = {o->h_tracers,
                  o->h_part,
                  o->h_velocity,
                  o->h_exact,
                  o->h_error,
                  o->dump_times,
                  o->h_probes,
                  o->row_tracers,
                  o->exact,
                  o->error,
                  o->exact_names,
                  o->error_names,
                  (void *)o->field_names,
                  (void *)o->tracer_names,
                  o->has_exact,
                  o->row_at};
  for (size_t i = 0; i < sizeof host / sizeof *host; i++) free(host[i]);
  for (int g = 0; o->flux_labels && g < o->n_flux_groups; g++) free(o->flux_labels[g]);
  free(o->flux_labels);
  free(o->flux_groups);
  fe_stat_destroy(o->stat);
  fe_csv_destroy(o->probes_file);
  fe_outdir_unlock(o->lock);
  fe_checkpoint_free(&o->restart);
  char *text[] = {o->case_real,   o->fields_text, o->stat_columns, o->stat_path,
                  o->series_path, o->saved_path,  o->probes_path,  o->probes_columns};
  for (size_t i = 0; i < sizeof text / sizeof *text; i++) free(text[i]);
}

/* ---------------------------------------------------------------- checkpoints and restarts */

/* The run's identity, the mesh's hashed when first needed (it reads the whole mesh). */
static const struct fe_checkpoint *identity(struct fe_outputs *o)
{
  if (!o->have_mesh_id) o->id.mesh_id = fe_checkpoint_mesh_id(o->m);
  o->have_mesh_id = 1;
  return &o->id;
}

int fe_outputs_write_checkpoint(struct fe_outputs *o, const struct fe_scheme *s, long step,
                                double t)
{
  for (int k = 0; k < o->n_tracers; k++)
    FE_CALL(download(o, s->tracers[k].tracer, 1, o->h_tracers + k * o->m->n_nodes));
  struct fe_checkpoint cp = writes(o) ? *identity(o) : o->id;
  cp.step = step;
  cp.time = t;
  cp.n_dumps = o->n_dumps;
  cp.dump_times = o->dump_times;
  cp.cfl = o->sched->cfl;
  cp.dt_max = o->sched->dt_max;
  cp.field = o->h_tracers;
  char *path;
  FE_CALL(fe_outdir_path(o->dir, &path, "%s_checkpoint_%06ld.bin", o->c->name, step));
  const int err = writes(o) ? fe_checkpoint_write(path, &cp) : FE_SUCCESS;
  if (err) {
    free(path);
    return err;
  }
  free(o->saved_path);
  o->saved_path = path;
  o->saved_step = step;
  return FE_SUCCESS;
}

/* The stat file and the probes file continue after the checkpoint's step. */
static int check_resume(struct fe_outputs *o)
{
  const struct fe_checkpoint *cp = &o->restart;
  const struct fe_stat_layout layout = stat_layout(o);
  FE_CALL(fe_stat_check_resume(o->stat_path, &layout, cp->step, cp->time, &o->stat_keep));
  if (!o->probes_path) return FE_SUCCESS;
  return fe_csv_check_resume(o->probes_path, "probes file", o->probes_columns, cp->step, cp->time,
                             o->c->probes_every, &o->probes_keep);
}

/* Verified against this run: case name, mesh, stat columns, dump fields, its step's time
 * and dumps. */
int fe_outputs_check_restart(struct fe_outputs *o)
{
  const char *path = o->opt->restart;
  struct fe_checkpoint largest = *identity(o);
  largest.n_dumps = fe_schedule_max_dumps(o->sched);
  FE_CALL(fe_checkpoint_read(path, fe_checkpoint_size(&largest), &o->restart));
  FE_CALL(fe_checkpoint_verify(path, &o->restart, &o->id, o->sched));
  return check_resume(o);
}

/* Several processes: the checkpoint's step, time and dump times, which process 0 read, on the
 * others too. */
static int share_restart(struct fe_outputs *o)
{
  struct fe_checkpoint *cp = &o->restart;
  if (!o->dist) return FE_SUCCESS;
  struct {
    long step, n_dumps;
    double time;
  } head = {cp->step, cp->n_dumps, cp->time};
  FE_CALL(fe_comm_bcast(o->dist->comm, &head, (int)sizeof head));
  if (!writes(o)) {
    cp->step = head.step, cp->n_dumps = head.n_dumps, cp->time = head.time;
    FE_MALLOC(cp->n_dumps + 1, &cp->dump_times);
  }
  return fe_comm_bcast(o->dist->comm, cp->dump_times, (int)(cp->n_dumps * sizeof(double)));
}

/* Tracer k's values of the whole mesh in `values` (process 0's on several processes: NULL on the
 * others). */
static const double *whole_values(const struct fe_outputs *o, const double *values, int k)
{
  return values ? values + (long)k * o->m->n_nodes : NULL;
}

/* The checkpoint's counts were bounded by fe_checkpoint_verify: n_dumps <= the dump table,
 * n_nodes = the mesh's. */
int fe_outputs_restore(struct fe_outputs *o, const double *initial, struct fe_scheme *s, long *step,
                       double *t)
{
  if (!o->opt->restart) {
    *t = o->c->t_start;
    for (int k = 0; k < o->n_tracers; k++)
      FE_CALL(upload(o, s->tracers[k].tracer, whole_values(o, initial, k)));
    return FE_SUCCESS;
  }
  struct fe_checkpoint *cp = &o->restart;
  FE_CALL(share_restart(o));
  *step = cp->step;
  *t = cp->time;
  FE_CALL(reserve_dumps(o, cp->n_dumps));
  o->n_dumps = cp->n_dumps;
  memcpy(o->dump_times, cp->dump_times, (size_t)cp->n_dumps * sizeof *o->dump_times);
  for (int k = 0; k < o->n_tracers; k++)
    FE_CALL(upload(o, s->tracers[k].tracer, whole_values(o, cp->field, k)));
  o->saved_step = cp->step;
  FE_CALL(fe_strdup(o->opt->restart, &o->saved_path));
  fe_checkpoint_free(cp);
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- the output directory */

static int make_dir(const char *path)
{
  char *buf, q[FE_QUOTE_SIZE];
  if (!path[0]) return FE_SUCCESS;
  FE_CALL(fe_strdup(path, &buf));
  int err = FE_SUCCESS;
  for (char *p = buf + 1; !err; p++) {
    if (*p && *p != '/') continue;
    const char end = *p;
    *p = '\0';
    if (mkdir(buf, 0777) && errno != EEXIST)
      err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__,
                           "cannot create the output directory %s: %s",
                           fe_quote(buf, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
    *p = end;
    if (!end) break;
  }
  free(buf);
  return err;
}

/* Outputs belong to the case file that wrote NAME.run beside them: the run of
 * another case file with the same name must not overwrite them silently. */
int fe_outputs_claim(const struct fe_outputs *o)
{
  char *path, *stat_path = o->stat_path, *owner = NULL, q[FE_QUOTE_SIZE], qo[FE_QUOTE_SIZE],
              qp[FE_QUOTE_SIZE];
  size_t cap = 0;
  FE_CALL(fe_outdir_path(o->dir, &path, "%s.run", o->c->name));
  FILE *f = fopen(path, "r");
  int mine = 0, claimed = 0;
  if (f) {
    claimed = getline(&owner, &cap, f) > 5 && !strncmp(owner, "case ", 5);
    if (claimed) owner[strcspn(owner, "\n")] = '\0';
    mine = claimed && !strcmp(owner + 5, o->case_real);
    fclose(f);
  }
  const int foreign = f ? !mine : access(stat_path, F_OK) == 0;
  int err = FE_SUCCESS;
  if (foreign && !o->opt->force && claimed)
    err = fe_error_raise(
        FE_ERR_INPUT, __FILE__, __LINE__,
        "output directory %s holds the outputs of case %s (%s): not overwritten; use "
        "--output for another directory or --force to overwrite them",
        fe_quote(o->dir, FE_QUOTE_MAX, q, sizeof q),
        fe_quote(owner + 5, FE_QUOTE_MAX, qo, sizeof qo), fe_path_shown(path, qp, sizeof qp));
  else if (foreign && !o->opt->force)
    err =
        fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                       "output directory %s holds outputs named '%s' that no fesim run claims (%s "
                       "exists, %s does not): not overwritten; use --output for another directory "
                       "or --force to overwrite them",
                       fe_quote(o->dir, FE_QUOTE_MAX, q, sizeof q), o->c->name,
                       fe_quote(stat_path, FE_QUOTE_MAX, qo, sizeof qo),
                       fe_quote(path, FE_QUOTE_MAX, qp, sizeof qp));
  free(owner);
  free(path);
  return err;
}

/* What was checked before the lock is checked again under it: another run may have ended in
 * between. */
int fe_outputs_lock(struct fe_outputs *o)
{
  if (!writes(o)) return FE_SUCCESS;
  signal(SIGXFSZ, SIG_IGN); /* a file size limit shows as EFBIG, reported like a full disk */
  FE_CALL(make_dir(o->dir));
  FE_CALL(fe_outdir_lock(o->dir, o->case_real, &o->lock));
  int err = fe_outputs_claim(o);
  if (!err && o->opt->restart) err = check_resume(o);
  long removed = 0;
  if (!err) err = fe_outdir_remove_temporaries(o->dir, &removed);
  if (err) {
    fe_outdir_unlock(o->lock);
    o->lock = NULL;
    return err;
  }
  if (removed && o->opt->verbosity > 0)
    fprintf(stderr, "fesim: note: removed %ld temporary files of an interrupted run from %s\n",
            removed, o->dir);
  return FE_SUCCESS;
}

/* NAME.run: which case file the outputs belong to. */
static int write_owner(const struct fe_outputs *o)
{
  char *path, *text;
  FE_CALL(fe_outdir_path(o->dir, &path, "%s.run", o->c->name));
  int err = fe_path_printf(&text, "case %s\nfesim %s\n", o->case_real, FESIM_VERSION);
  if (!err) err = fe_outdir_write_file(path, text, strlen(text), 0);
  if (!err) free(text);
  free(path);
  return err;
}

int fe_outputs_open(struct fe_outputs *o)
{
  if (!writes(o)) return FE_SUCCESS;
  FE_CALL(write_owner(o));
  const struct fe_stat_layout layout = stat_layout(o);
  if (o->opt->restart) {
    FE_CALL(fe_stat_resume(o->stat_path, &layout, o->stat_keep, &o->stat));
    if (o->probes_path)
      FE_CALL(fe_csv_resume(o->probes_path, "probes file", o->probes_keep, &o->probes_file));
    return FE_SUCCESS;
  }
  FE_CALL(fe_stat_create(o->stat_path, &layout, &o->stat));
  if (!o->probes_path) return FE_SUCCESS;
  return fe_csv_create(o->probes_path, "probes file", o->probes_columns, &o->probes_file);
}

/* ---------------------------------------------------------------- stat rows and dumps */

/* error = T - exact(t) of each tracer with an exact solution at the end of step (exact kept
 * beside it). */
static int compute_errors(struct fe_outputs *o, struct fe_scheme *s, long step, double t)
{
  for (int k = 0; k < o->n_tracers; k++) {
    if (!o->has_exact[k]) continue;
    FE_CALL(fe_scheme_exact(s, k, t, o->exact[k]));
    FE_CALL(fe_vec_copy(s->tracers[k].tracer, o->error[k]));
    FE_CALL(fe_vec_axpy(o->error[k], -1.0, o->exact[k]));
  }
  o->error_step = step;
  return FE_SUCCESS;
}

/* Tracer k's L2 and max norms of the error from the step's readout r. */
static int error_norms(struct fe_outputs *o, const struct fe_readout *r, struct fe_scheme *s, int k,
                       long step, double t, struct fe_stat_tracer *row)
{
  const double lo = fe_readout_values(r, o->row_at[k].error_range)[0],
               hi = fe_readout_values(r, o->row_at[k].error_range)[1],
               l2sq = fe_readout_values(r, o->row_at[k].error_l2)[0];
  const int finite = isfinite(lo) && isfinite(hi) && isfinite(l2sq);
  if (!finite) /* a NaN exact solution is no l2_error of 0 */
    FE_CALL(fe_scheme_name_non_finite(s, step));
  FE_CHECK(finite, FE_ERR_NUMERICAL,
           "the error norms%s%s%s after step %ld (t = %.9g) are not finite (e^T M e = %g, nodal "
           "errors in [%g, %g]) while the tracer and the exact solution are: they overflow",
           o->n_tracers > 1 ? " of tracer '" : "", o->n_tracers > 1 ? o->tracer_names[k] : "",
           o->n_tracers > 1 ? "'" : "", step, t, l2sq, lo, hi);
  row->l2_error = sqrt(fmax(l2sq, 0));
  row->linf_error = fmax(fabs(lo), fabs(hi));
  return FE_SUCCESS;
}

/* Tracer k's extrema and integral from the step's readout r: finite, or the non-finite value
 * named. */
static int tracer_values(struct fe_outputs *o, const struct fe_readout *r, struct fe_scheme *s,
                         int k, long step, double t, struct fe_stat_tracer *row)
{
  const struct fe_scheme_tracer *x = &s->tracers[k];
  row->min = fe_readout_values(r, o->row_at[k].range)[0];
  row->max = fe_readout_values(r, o->row_at[k].range)[1];
  const int finite = isfinite(row->min) && isfinite(row->max);
  if (!finite) FE_CALL(fe_scheme_name_non_finite(s, step));
  FE_CHECK(finite, FE_ERR_NUMERICAL,
           "the tracer%s%s%s has non-finite values after step %ld (t = %.9g); try a smaller dt",
           o->n_tracers > 1 ? " '" : "", o->n_tracers > 1 ? o->tracer_names[k] : "",
           o->n_tracers > 1 ? "'" : "", step, t);
  row->integral = fe_readout_values(r, o->row_at[k].integral)[0];
  row->advection_iterations = x->mass.iterations;
  row->diffusion_iterations = x->diffusion.iterations;
  if (!s->budget || !step) return FE_SUCCESS; /* row 0: no step, every term 0 */
  const struct fe_budget_tracer *bt = &s->budget->tracers[k];
  row->advective_flux = bt->advective;
  row->diffusive_flux = bt->diffusive;
  row->source = bt->source_rate;
  row->absorption = bt->absorption_rate;
  row->divergence = bt->divergence_rate;
  return FE_SUCCESS;
}

/* The probes' values queued into q's readout: the tracers and the velocity at the probes,
 * each the P1 interpolant of its nodal values. */
static int queue_probes(struct fe_outputs *o, struct fe_outputs_queued *q, struct fe_scheme *s,
                        const struct fe_probes *probes, double t)
{
  const long n = probes->n, nt = o->n_tracers;
  const int d = o->probe_velocity ? o->m->dim : 0;
  double *values = fe_vec_write(o->probe_values);
  for (int k = 0; k < nt; k++) { /* a probe's cell may hold ghosts */
    FE_CALL(fe_vec_update_ghosts(s->tracers[k].tracer));
    FE_CALL(fe_probes_interpolate(probes, s->tracers[k].tracer->a, 1, values + k * n));
  }
  if (d) {                             /* u(t) of the run: its expressions or its files */
    if (t != o->probe_velocity_time && /* a steady u is evaluated once */
        (fe_velocity_time_dependent(s->velocity) || isnan(o->probe_velocity_time))) {
      FE_CALL(fe_velocity_at(s->velocity, s->tracers[0].space, t, o->probe_velocity));
      o->probe_velocity_time = t;
    }
    FE_CALL(fe_probes_interpolate(probes, o->probe_velocity->a, d, values + nt * n));
  }
  /* each probe sampled by one process, 0 on the others */
  return fe_readout_sum(q->readout, values, (int)(n * (nt + d)), &q->probes_at);
}

int fe_outputs_queue(struct fe_outputs *o, struct fe_scheme *s, const struct fe_probes *probes,
                     long step, double t)
{
  struct fe_outputs_queued *q = &o->queued[step & 1];
  struct fe_readout *r = q->readout;
  fe_readout_clear(r, step);
  q->probes_at = -1;
  for (int k = 0; k < o->n_tracers; k++) {
    const struct fe_vec *tracer = s->tracers[k].tracer;
    FE_CALL(fe_readout_minmax(r, tracer, &o->row_at[k].range));
    FE_CALL(fe_readout_dot(r, o->lumped, tracer, &o->row_at[k].integral));
  }
  if (o->exact) FE_CALL(compute_errors(o, s, step, t));
  for (int k = 0; k < o->n_tracers; k++) {
    if (!o->has_exact[k]) continue;
    struct fe_vec *error = o->error[k];
    FE_CALL(fe_readout_minmax(r, error, &o->row_at[k].error_range));
    FE_CALL(fe_vec_update_ghosts(error)); /* the cells read the ghosts */
    FE_CALL(fe_space_mass_apply(s->tracers[k].space, error->a, fe_vec_write(o->mass_error)));
    FE_CALL(fe_readout_dot(r, error, o->mass_error, &o->row_at[k].error_l2));
  }
  if (probes) FE_CALL(queue_probes(o, q, s, probes, t));
  return fe_readout_post(r);
}

/* The values queued for step `step` (fe_outputs_queue), waited for. */
static int queued_values(struct fe_outputs *o, long step, const struct fe_readout **r)
{
  struct fe_outputs_queued *q = &o->queued[step & 1];
  FE_CALL(fe_readout_wait(q->readout, step));
  *r = q->readout;
  return FE_SUCCESS;
}

int fe_outputs_write_stat(struct fe_outputs *o, struct fe_scheme *s, long step, double t, double dt,
                          double courant, double loop_start, struct fe_stat_row *row)
{
  const struct fe_readout *r;
  FE_CALL(queued_values(o, step, &r));
  *row = (struct fe_stat_row){
      .step = step, .time = t, .dt = dt, .courant = courant, .tracers = o->row_tracers};
  FE_CALL(fe_scheme_check_diffusivity(s, step));
  for (int k = 0; k < o->n_tracers; k++) {
    o->row_tracers[k] = (struct fe_stat_tracer){0};
    FE_CALL(tracer_values(o, r, s, k, step, t, &o->row_tracers[k]));
  }
  for (int k = 0; k < o->n_tracers; k++)
    if (o->has_exact[k]) FE_CALL(error_norms(o, r, s, k, step, t, &o->row_tracers[k]));
  row->wall_seconds = step ? fe_wtime() - loop_start : 0;
  return writes(o) ? fe_stat_write(o->stat, row) : FE_SUCCESS;
}

/* The tracers, the velocity, and with exact solutions each exact solution and error (those of
 * the stat row of the step, else computed). */
int fe_outputs_write_dump(struct fe_outputs *o, struct fe_scheme *s, long step, double t)
{
  const double start = fe_wtime();
  const long n = o->m->n_nodes;
  FE_CALL(reserve_dumps(o, o->n_dumps + 1));
  struct fe_vtk_field *f;
  FE_CALLOC(o->n_fields, &f);
  int nf = 0, err = FE_SUCCESS;
  for (int k = 0; !err && k < o->n_tracers; k++) {
    err = download(o, s->tracers[k].tracer, 1, o->h_tracers + k * n);
    f[nf++] = (struct fe_vtk_field){o->tracer_names[k], 1, o->h_tracers + k * n, 1};
  }
  if (!err && s->velocity) { /* the velocity on this process's nodes, then the whole mesh's */
    err = fe_velocity_host(s->velocity, t, o->dist ? o->h_part : o->h_velocity);
    if (!err && o->dist)
      err = fe_distribution_gather(o->dist, o->m->dim, o->h_part, o->h_velocity);
    f[nf++] = (struct fe_vtk_field){"velocity", 3, o->h_velocity, o->m->dim};
  }
  if (!err && o->exact && o->error_step != step) err = compute_errors(o, s, step, t);
  for (int k = 0; !err && k < o->n_tracers; k++) {
    if (!o->has_exact[k]) continue;
    err = download(o, o->exact[k], 1, o->h_exact + k * n);
    if (!err) err = download(o, o->error[k], 1, o->h_error + k * n);
    f[nf++] = (struct fe_vtk_field){o->exact_names[k], 1, o->h_exact + k * n, 1};
    f[nf++] = (struct fe_vtk_field){o->error_names[k], 1, o->h_error + k * n, 1};
  }
  char *path = NULL;
  if (!err) err = fe_vtk_path(o->dir, o->c->name, o->n_dumps, &path);
  if (!err && writes(o)) err = fe_vtk_write(path, t, o->m, nf, f);
  free(path);
  free(f);
  FE_CALL(err);
  o->dump_times[o->n_dumps++] = t;
  if (writes(o))
    FE_CALL(fe_vtk_write_series(o->series_path, o->c->name, o->n_dumps, o->dump_times));
  o->t_out += fe_wtime() - start;
  return FE_SUCCESS;
}

/* The velocity at the probes, where a value is not finite: named on the host (FE_ERR_INPUT),
 * or a numerical failure when the host finds every nodal value finite. */
static int name_probe_velocity(struct fe_outputs *o, struct fe_scheme *s, double t)
{
  const struct fe_mesh *pm = o->part;
  double *own = o->dist ? o->h_part : o->h_velocity; /* this process's nodes */
  FE_CALL(fe_velocity_host(s->velocity, t, own));
  for (long i = 0; i < (long)pm->n_nodes * pm->dim; i++)
    FE_CHECK(isfinite(own[i]), FE_ERR_INPUT,
             "the velocity at node %ld is not finite at t = %.9g; expected finite values",
             pm->global_node ? pm->global_node[i / pm->dim] : i / pm->dim, t);
  FE_RAISE(FE_ERR_NUMERICAL,
           "the velocity at the probes is not finite at t = %.9g on the backend, while every "
           "nodal value is on the host",
           t);
}

int fe_outputs_write_probes(struct fe_outputs *o, struct fe_scheme *s,
                            const struct fe_probes *probes, long step, double t)
{
  const double start = fe_wtime();
  const long n = probes->n, nt = o->n_tracers;
  const int d = o->probe_velocity ? o->m->dim : 0;
  double *row = o->h_probes;
  const struct fe_readout *r;
  FE_CALL(queued_values(o, step, &r));
  const int at = o->queued[step & 1].probes_at;
  FE_CHECK(at >= 0, FE_ERR_USAGE, "the probes' row of step %ld, whose values were not queued",
           step);
  const double *host = fe_readout_values(r, at);
  for (long i = nt * n; i < n * (nt + d); i++)
    if (!isfinite(host[i])) return name_probe_velocity(o, s, t);
  for (long i = 0; i < nt * n; i++) row[i] = host[i];
  for (int a = 0; a < d; a++) /* component by component, probe by probe */
    for (long p = 0; p < n; p++) row[n * (nt + a) + p] = host[nt * n + p * d + a];
  if (writes(o)) FE_CALL(fe_csv_write(o->probes_file, step, t, n * (nt + d), row));
  o->t_out += fe_wtime() - start;
  return FE_SUCCESS;
}
