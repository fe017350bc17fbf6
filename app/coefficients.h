/* The case's coefficient expressions as programs on the backend, evaluated
 * into backend arrays where the time loop needs them: no host round trip for
 * time-dependent velocity, diffusivity, source, Dirichlet values or the exact
 * solution, Neumann fluxes. */
#ifndef FE_COEFFICIENTS_H
#define FE_COEFFICIENTS_H

#include "app/fields.h"
#include "assembly/space.h"
#include "io/program.h"

/* Points where one <boundary>'s expression is evaluated. */
struct fe_point_group {
  long m;
  int *nodes;                 /* backend: the nodes */
  int *pos;                   /* backend: where their values go */
  struct fe_program *program; /* backend */
};

/* Neumann facets: flux values at each facet's vertices ("slots" f * d + v),
 * gathered into nodal loads through the node -> slot incidence. */
struct fe_neumann_facets {
  long n;            /* facets */
  int *ptr, *slots;  /* backend: node -> slot incidence */
  double *w;         /* backend: |F| / (d (d + 1)) */
  double *g;         /* backend: flux at the slots */
  int n_groups;
  struct fe_point_group *groups; /* pos: slots */
};

struct fe_coefficient_programs {
  const struct fe_space *space;
  int n_velocity, n_diffusivity; /* programs in velocity (d) and diffusivity (FE_NSYM(d)) */
  int uniform_diffusivity;       /* no diffusivity component depends on x, y, z: one tensor */
  int uniform_absorption;        /* the absorption rate does not depend on x, y, z: one value */
  struct fe_program *velocity, *diffusivity, *source, *exact, *absorption; /* backend; NULL
                                                                              when absent */
  int n_groups;
  struct fe_point_group *groups; /* one per Dirichlet <boundary>; pos: place in the Dirichlet list */
  struct fe_neumann_facets neumann;
};

int fe_coefficient_programs_create(const struct fe_case *c, const struct fe_bcs *bcs,
                                   const struct fe_space *space, struct fe_coefficient_programs **cp);
void fe_coefficient_programs_destroy(struct fe_coefficient_programs *cp);

/* velocity: n_nodes * d values; diffusivity: n_cells * FE_NSYM(d) (only the
 * first FE_NSYM(d) when uniform_diffusivity), scalars expanded to the tensor's
 * diagonal; node fields: n_nodes; dirichlet: in the order of space->dirichlet.
 * All out arrays on the backend. */
int fe_coefficients_velocity(const struct fe_coefficient_programs *cp, double t, double *out);
/* the velocity at the nodes nodes[0..m) (backend; NULL: every node), m * d values */
int fe_coefficients_velocity_at(const struct fe_coefficient_programs *cp, const int *nodes, long m,
                                double t, double *out);
int fe_coefficients_diffusivity(const struct fe_coefficient_programs *cp, double t, double *out);
int fe_coefficients_source(const struct fe_coefficient_programs *cp, double t, double *out);
/* the absorption rate at the cells' centroids: n_cells values (one when uniform_absorption) */
int fe_coefficients_absorption(const struct fe_coefficient_programs *cp, double t, double *out);
int fe_coefficients_exact(const struct fe_coefficient_programs *cp, double t, double *out);
int fe_coefficients_dirichlet(const struct fe_coefficient_programs *cp, double t, double *out);
/* out[n] = int_boundary phi_n g over the Neumann facets (n_nodes values) */
int fe_coefficients_neumann(const struct fe_coefficient_programs *cp, double t, double *out);

#endif
