/* What the data of a run allow the tracer: where the flow enters the domain
 * without a value to enter with, and the range its initial and boundary
 * values bound it to (the maximum principle of advection-diffusion without
 * sources), so that a scheme going unstable is said and stopped instead of
 * overflowing in silence. */
#ifndef FE_BOUNDS_H
#define FE_BOUNDS_H

#include "app/fields.h"

/* Past the data's range by this many widths of it: a warning; then exit 3. */
#define FE_BOUNDS_WARN 1.0
#define FE_BOUNDS_STOP 100.0

/* A warning for each boundary group through which the flow enters the domain
 * (the flux of the P1 velocity through a facet below -1e-8 |F| max|u|) on
 * facets that have no Dirichlet value, at time t: plain Galerkin advection is
 * unstable there (docs/case-format.md, warnings).  velocity: n_nodes * dim; tracer: the name
 * of the tracer whose conditions bcs are, said in the warning (NULL: the case's one tracer). */
int fe_inflow_warn(const struct fe_case *c, const char *tracer, const struct fe_mesh *m,
                   const struct fe_bcs *bcs, double t, const double *velocity);

struct fe_bounds {
  int checked;     /* the data bound the tracer: no source, no Neumann flux, Dirichlet
                      values fixed in time, data not all zero */
  double lo, hi;   /* the range of the initial and Dirichlet values */
  double min, max; /* the tracer's extrema over the run's stat rows */
  int warned;
  char what[96]; /* "the tracer", or "tracer 'NAME'" when a case has several */
};

/* The range of the initial values (n_nodes) and the Dirichlet values (n_dirichlet), and of 0
 * where an absorption decays the tracer towards it; tracer: its name in messages (NULL: the
 * case's one tracer). */
void fe_bounds_init(struct fe_bounds *b, const char *tracer, int checked, long n_nodes,
                    const double *initial, long n_dirichlet, const double *dirichlet, int absorbs);
/* The extrema of a stat row: a warning the first time they pass FE_BOUNDS_WARN widths
 * of the data's range beyond it, FE_ERR_NUMERICAL past FE_BOUNDS_STOP. */
int fe_bounds_check(struct fe_bounds *b, double min, double max, long step, double t);
/* The summary's line on how far the tracer left the data's range, if it did. */
void fe_bounds_summary(const struct fe_bounds *b);

#endif
