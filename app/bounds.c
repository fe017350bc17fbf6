#include "app/bounds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/flux.h"
#include "core/error.h"

/* ---------------------------------------------------------------- inflow */

/* The outward normal of facet f scaled by its measure (|n| = |F|). */
static void outward_normal(const struct fe_mesh *m, const int *f, int opposite, double n[3])
{
  const int d = m->dim;
  double x[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int v = 0; v <= d; v++)
    for (int a = 0; a < d; a++) x[v][a] = m->coords[(long)(v < d ? f[v] : opposite) * d + a];
  fe_facet_normal(d, x, n);
}

/* The facets of group g through which the flow enters at the velocity u
 * (n_nodes * dim), on nodes not all Dirichlet; *facets: its boundary facets. */
static int inflow_facets(const struct fe_mesh *m, const struct fe_bcs *bcs, const int *ptr,
                         const int *inc, int tag, const double *u, double umax, int *facets)
{
  const int d = m->dim;
  int inflow = 0;
  *facets = 0;
  for (int k = 0; k < m->n_facets; k++) {
    if (m->facet_group[k] != tag || (m->facet_cells && m->facet_cells[k] != 1)) continue;
    if (m->facet_link && m->facet_link[k]) continue; /* periodic: the flow comes from the copy */
    const int *f = m->facets + (long)k * d;
    const int opposite = fe_mesh_facet_opposite(m, ptr, inc, f);
    if (opposite < 0) continue;
    ++*facets;
    int dirichlet = 1;
    for (int j = 0; j < d; j++) dirichlet &= bcs->is_dirichlet[f[j]] != 0;
    if (dirichlet) continue;
    double n[3], flux = 0, area = 0;
    outward_normal(m, f, opposite, n);
    for (int a = 0; a < d; a++) {
      area += n[a] * n[a];
      for (int j = 0; j < d; j++) flux += u[(long)f[j] * d + a] * n[a] / d;
    }
    inflow += flux < -1e-8 * sqrt(area) * umax;
  }
  return inflow;
}

int fe_inflow_warn(const struct fe_case *c, const char *tracer, const struct fe_mesh *m,
                   const struct fe_bcs *bcs, double t, const double *u)
{
  char of[96] = "";
  if (tracer) snprintf(of, sizeof of, " for tracer '%.64s'", tracer);
  int *ptr, *inc;
  FE_CALL(fe_mesh_facet_incidence(m, &ptr, &inc));
  char buf[FE_QUOTE_SIZE];
  const char *shown = fe_path_shown(c->path, buf, sizeof buf);
  double umax = 0;
  for (long i = 0; i < (long)m->n_nodes * m->dim; i++) umax = fmax(umax, fabs(u[i]));
  for (int g = 0; g < m->n_groups; g++) {
    const struct fe_physical *group = &m->groups[g];
    if (group->dim != m->dim - 1) continue;
    int facets;
    const int inflow = inflow_facets(m, bcs, ptr, inc, group->tag, u, umax, &facets);
    if (inflow)
      fe_warn("%s: the flow enters the domain through %d of the %d boundary facets of physical "
              "group '%s' (%d) at t = %.9g, and they have no Dirichlet value%s: Galerkin "
              "advection is unstable where nothing sets what flows in; give that boundary a "
              "<dirichlet> value",
              shown, inflow, facets, group->name[0] ? group->name : "unnamed", group->tag, t, of);
  }
  free(ptr);
  free(inc);
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- growth */

void fe_bounds_init(struct fe_bounds *b, const char *tracer, int checked, long n_nodes,
                    const double *initial, long n_dirichlet, const double *dirichlet, int absorbs)
{
  *b = (struct fe_bounds){.lo = INFINITY, .hi = -INFINITY, .min = INFINITY, .max = -INFINITY};
  if (tracer)
    snprintf(b->what, sizeof b->what, "tracer '%.64s'", tracer);
  else
    snprintf(b->what, sizeof b->what, "the tracer");
  for (long i = 0; i < n_nodes; i++)
    b->lo = fmin(b->lo, initial[i]), b->hi = fmax(b->hi, initial[i]);
  for (long i = 0; i < n_dirichlet; i++)
    b->lo = fmin(b->lo, dirichlet[i]), b->hi = fmax(b->hi, dirichlet[i]);
  if (absorbs) b->lo = fmin(b->lo, 0), b->hi = fmax(b->hi, 0);
  b->checked = checked && n_nodes > 0 && (b->lo != 0 || b->hi != 0);
}

/* The width the overshoot is measured in: the range's, or its size when it is one value. */
static double width(const struct fe_bounds *b)
{
  const double w = b->hi - b->lo;
  return w > 0 ? w : fmax(fabs(b->lo), fabs(b->hi));
}

/* How far the extrema passed the data's range, in widths of it. */
static double overshoot(const struct fe_bounds *b, double min, double max)
{
  return fmax(0, fmax(max - b->hi, b->lo - min)) / width(b);
}

int fe_bounds_check(struct fe_bounds *b, double min, double max, long step, double t)
{
  b->min = fmin(b->min, min);
  b->max = fmax(b->max, max);
  if (!b->checked) return FE_SUCCESS;
  const double e = overshoot(b, min, max);
  FE_CHECK(e <= FE_BOUNDS_STOP, FE_ERR_NUMERICAL,
           "%s spans [%.6g, %.6g] after step %ld (t = %.9g), more than %g times the width "
           "of its data's range [%.6g, %.6g] beyond it: the scheme is unstable (an inflow "
           "boundary without a Dirichlet value, or a dt past the stable limit?)",
           b->what, min, max, step, t, FE_BOUNDS_STOP, b->lo, b->hi);
  if (e > FE_BOUNDS_WARN && !b->warned) {
    b->warned = 1;
    fe_warn("%s spans [%.6g, %.6g] after step %ld (t = %.9g), more than %g times the "
            "width of its data's range [%.6g, %.6g] beyond it: the scheme may be going unstable; "
            "fesim stops at %g times",
            b->what, min, max, step, t, FE_BOUNDS_WARN, b->lo, b->hi, FE_BOUNDS_STOP);
  }
  return FE_SUCCESS;
}

void fe_bounds_summary(const struct fe_bounds *b)
{
  if (!b->checked || overshoot(b, b->min, b->max) <= 1e-12) return;
  printf("  bounds     %s left its data's range [%.6g, %.6g]: it spanned [%.6g, %.6g] "
         "(%.3g %% of the range beyond it)\n",
         b->what, b->lo, b->hi, b->min, b->max, 100 * overshoot(b, b->min, b->max));
}
