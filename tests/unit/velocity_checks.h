/* The run's velocity from files (app/velocity.h) on a backend: three snapshots of
 * grid8.msh at t = 0, 1 and 3 (u_k = (k + 1) (1 + x, 2 - y), written by fesim's own VTK
 * writer), read at times before, between, on and after them, on the host and on the backend. */
#ifndef FE_VELOCITY_CHECKS_H
#define FE_VELOCITY_CHECKS_H

#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/velocity.h"
#include "core/error.h"
#include "io/case.h"
#include "io/vtk.h"
#include "test.h"

static const double velocity_times[3] = {0, 1, 3};

struct velocity_setup {
  char dir[200];
  struct fe_mesh *m;
  struct fe_case c;
  struct fe_velocity_file files[3];
  char path[3][260];
};

/* u_k at node n, component a */
static inline double snapshot_value(const struct fe_mesh *m, int k, int n, int a)
{
  const double x = m->coords[n * 2 + a];
  return (k + 1) * (a == 0 ? 1 + x : 2 - x);
}

/* The exact interpolant at t: held outside [0, 3]. */
static inline double expected_value(const struct fe_mesh *m, double t, int n, int a)
{
  if (t <= 0) return snapshot_value(m, 0, n, a);
  if (t >= 3) return snapshot_value(m, 2, n, a);
  const int k = t < 1 ? 0 : 1;
  const double w = (t - velocity_times[k]) / (velocity_times[k + 1] - velocity_times[k]);
  return (1 - w) * snapshot_value(m, k, n, a) + w * snapshot_value(m, k + 1, n, a);
}

static inline void write_snapshot(const struct velocity_setup *s, int k, double scale)
{
  const int n = s->m->n_nodes;
  double *u = malloc(sizeof(double) * 2 * n);
  for (int i = 0; i < n; i++)
    for (int a = 0; a < 2; a++) u[2 * i + a] = scale * snapshot_value(s->m, k, i, a);
  const struct fe_vtk_field f = {"velocity", 3, u, 2};
  CHECK_OK(fe_vtk_write(s->path[k], velocity_times[k], s->m, 1, &f));
  free(u);
}

static inline void velocity_setup(struct velocity_setup *s, int n_files)
{
  memset(s, 0, sizeof *s);
  const char *tmp = getenv("TMPDIR");
  snprintf(s->dir, sizeof s->dir, "%s/fesim_velocity_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(s->dir) != NULL);
  char mesh[4352];
  snprintf(mesh, sizeof mesh, "%s/mesh/grid8.msh", getenv("FESIM_TEST_DATA"));
  CHECK_OK(fe_mesh_read(mesh, NULL, &s->m));
  for (int k = 0; k < 3; k++) {
    snprintf(s->path[k], sizeof s->path[k], "%s/u%d.vtk", s->dir, k);
    write_snapshot(s, k, 1.0);
    s->files[k] = (struct fe_velocity_file){.path = s->path[k], .time = velocity_times[k]};
  }
  s->c.t_start = -1;
  s->c.t_end = 4;
  s->c.n_velocity_files = n_files;
  s->c.velocity_files = s->files;
  s->c.velocity_field = "velocity";
}

static inline void velocity_teardown(struct velocity_setup *s)
{
  for (int k = 0; k < 3; k++) unlink(s->path[k]);
  rmdir(s->dir);
  fe_mesh_destroy(s->m);
}

/* u(t) on the backend (downloaded) and on the host, against the interpolant, at times that
 * go forward, back and across intervals. */
static inline void velocity_at_times(const struct fe_backend *be, struct fe_velocity *v,
                                     const struct fe_mesh *m, double tol)
{
  static const double ts[] = {-1, 0, 0.25, 1, 2.5, 0.5, 3, 4, 2, 0.75};
  const int len = 2 * m->n_nodes;
  double *host = malloc(sizeof(double) * len), *dev = malloc(sizeof(double) * len);
  struct fe_vec *out;
  CHECK_OK(fe_vec_create(be, (size_t)len, &out));
  for (size_t k = 0; k < sizeof ts / sizeof *ts; k++) {
    CHECK_OK(fe_velocity_host(v, ts[k], host));
    CHECK_OK(fe_velocity_at(v, NULL, ts[k], out));
    CHECK_OK(fe_vec_download(out, dev));
    double worst = 0;
    for (int i = 0; i < len; i++) {
      const double e = expected_value(m, ts[k], i / 2, i % 2);
      worst = fmax(worst, fmax(fabs(host[i] - e), fabs(dev[i] - e)));
    }
    if (worst > tol) fprintf(stderr, "t = %g: off by %g\n", ts[k], worst);
    CHECK(worst <= tol);
  }
  fe_vec_destroy(out);
  free(host);
  free(dev);
}

#endif
