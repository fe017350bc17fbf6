/* The case's probes on its mesh: checked, located, listed (app/probes.h). */
#include "app/probes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

/* "2 coordinates (x, y)" or "3 coordinates (x, y, z)" */
static const char *coordinates(int n)
{
  return n == 2 ? "2 coordinates (x, y)" : "3 coordinates (x, y, z)";
}

/* A probe's coordinates, one per axis of the mesh. */
static int check_probe_dimension(const struct fe_case *c, const struct fe_mesh *m,
                                 const struct fe_probe *p)
{
  char where[2 * FE_QUOTE_SIZE];
  if (p->n_coords == m->dim) return FE_SUCCESS;
  const char *columns = m->dim == 2 ? "name,x,y" : "name,x,y,z";
  if (p->in_file)
    FE_RAISE(FE_ERR_INPUT, "%s: %s for the %dD mesh %s; expected the columns %s",
             fe_case_probe_where(c, p, where, sizeof where), coordinates(p->n_coords), m->dim,
             m->path, columns);
  FE_RAISE(FE_ERR_INPUT, "%s: %s for the %dD mesh %s; expected %s",
           fe_case_probe_where(c, p, where, sizeof where), coordinates(p->n_coords), m->dim,
           m->path, m->dim == 2 ? "x and y" : "x, y and z");
}

/* "(x, y) = (0.5, 2)" of a probe */
static const char *probe_point(const struct fe_probe *p, int dim, char *buf, size_t size)
{
  if (dim == 2)
    snprintf(buf, size, "(x, y) = (%.9g, %.9g)", p->x[0], p->x[1]);
  else
    snprintf(buf, size, "(x, y, z) = (%.9g, %.9g, %.9g)", p->x[0], p->x[1], p->x[2]);
  return buf;
}

/* Probe p is outside the mesh beyond the tolerance: named, with the mesh's extent. */
static int probe_outside(const struct fe_case *c, const struct fe_mesh *m, const struct fe_probe *p)
{
  char where[2 * FE_QUOTE_SIZE], point[96], extent[160];
  double lo[3], hi[3];
  for (int a = 0; a < m->dim; a++) {
    lo[a] = hi[a] = m->coords[a];
    for (long n = 1; n < m->n_nodes; n++) {
      lo[a] = fmin(lo[a], m->coords[n * m->dim + a]);
      hi[a] = fmax(hi[a], m->coords[n * m->dim + a]);
    }
  }
  size_t used = 0;
  for (int a = 0; a < m->dim; a++)
    used += (size_t)snprintf(extent + used, sizeof extent - used, "%s[%.9g, %.9g]", a ? " x " : "",
                             lo[a], hi[a]);
  FE_RAISE(FE_ERR_INPUT,
           "%s: the point %s is outside the mesh %s, which spans %s; expected a point in the mesh "
           "or on its boundary (a point outside a cell by at most %g of it, in barycentric "
           "coordinates, counts as on it)",
           fe_case_probe_where(c, p, where, sizeof where),
           probe_point(p, m->dim, point, sizeof point), m->path, extent, FE_PROBE_OUTSIDE);
}

int fe_case_probes_locate(const struct fe_case *c, const struct fe_mesh *m,
                          struct fe_probe_location **loc)
{
  double *points;
  *loc = NULL;
  if (!c->n_probes) return FE_SUCCESS;
  for (int p = 0; p < c->n_probes; p++) FE_CALL(check_probe_dimension(c, m, &c->probes[p]));
  FE_MALLOC(3 * c->n_probes, &points);
  for (int p = 0; p < c->n_probes; p++)
    for (int a = 0; a < 3; a++) points[p * 3 + a] = c->probes[p].x[a];
  int err = fe_malloc((size_t)c->n_probes * sizeof **loc, loc);
  if (!err) err = fe_probes_locate(m, c->n_probes, points, *loc);
  free(points);
  for (int p = 0; !err && p < c->n_probes; p++)
    if ((*loc)[p].cell < 0) err = probe_outside(c, m, &c->probes[p]);
  if (err) {
    free(*loc);
    *loc = NULL;
  }
  return err;
}

const char *fe_case_probes_rule(const struct fe_case *c, char *buf, size_t size)
{
  if (c->probes_every == 1)
    snprintf(buf, size, "a row every step");
  else
    snprintf(buf, size, "a row every %d steps", c->probes_every);
  return buf;
}

void fe_case_probes_print(const struct fe_case *c, const struct fe_mesh *m,
                          const struct fe_probe_location *loc, const char *path)
{
  char point[96], rule[32];
  if (!c->n_probes) return;
  printf("probes    %d, %s (and at step 0 and the last step): %s\n", c->n_probes,
         fe_case_probes_rule(c, rule, sizeof rule), path);
  for (int p = 0; p < c->n_probes; p++) {
    const struct fe_probe_location *l = &loc[p];
    printf("probe     %s %s: cell %d (element %zu), weights", c->probes[p].name,
           probe_point(&c->probes[p], m->dim, point, sizeof point), l->cell, m->cell_id[l->cell]);
    for (int i = 0; i < m->nv; i++) printf(" %.6g", l->weights[i]);
    if (l->distance > 0)
      printf("; outside the mesh by %.3g (%.3g of the cell, in barycentric coordinates)",
             l->distance, l->miss);
    printf("\n");
  }
}
