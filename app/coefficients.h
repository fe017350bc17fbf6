/* A tracer's coefficient expressions as programs on the backend, evaluated
 * into backend arrays where the time loop needs them: no host round trip for
 * time-dependent diffusivity, source, Dirichlet values or the exact
 * solution, Neumann fluxes (the velocity's: app/velocity.c). */
#ifndef FE_COEFFICIENTS_H
#define FE_COEFFICIENTS_H

#include "app/fields.h"
#include "assembly/load.h"
#include "assembly/space.h"
#include "io/program.h"

/* Points where one <boundary>'s expression is evaluated. */
struct fe_point_group {
  long m;
  int *nodes;                 /* backend: the nodes */
  int *pos;                   /* backend: where their values go */
  struct fe_program *program; /* backend */
};

/* Facets where one Neumann <boundary>'s flux is integrated (loads by quadrature). */
struct fe_facet_group {
  long m;
  int *facets;                /* backend: their numbers k in the Neumann facet list */
  struct fe_program *program; /* backend */
};

/* Neumann facets: a value per facet vertex ("slot" k d + v, vertex v of facet k), gathered
 * into nodal loads through the node -> slot incidence.  Loads by quadrature: the slot holds
 * int_F N_v g (assembly/load.h); interpolated: the flux at the vertex, loaded through the
 * facet mass matrix. */
struct fe_neumann_facets {
  long n;           /* facets */
  int *ptr, *slots; /* backend: node -> slot incidence, slots ascending */
  double *g;        /* backend: the slots' values */
  int *vertices;    /* quadrature: the facets' nodes, d per facet (backend) */
  int n_lists;
  struct fe_facet_group *lists; /* quadrature: one per Neumann <boundary> */
  double *w;                    /* interpolated: |F| / (d (d + 1)) (backend) */
  int n_groups;
  struct fe_point_group *groups; /* interpolated: the facets' vertices; pos: slots */
};

struct fe_coefficient_programs {
  const struct fe_space *space;
  int n_diffusivity;       /* programs in diffusivity (FE_NSYM(d)) */
  int uniform_diffusivity; /* no diffusivity component depends on x, y, z: one tensor */
  int uniform_absorption;  /* the absorption rate does not depend on x, y, z: one value */
  int quadrature;          /* loads by quadrature (scheme@loads) */
  double *cell_load; /* backend, quadrature with a source: n_cells * nv cell loads, gathered */
  struct fe_program *diffusivity, *source, *exact, *absorption; /* backend; NULL when absent */
  int n_groups;
  struct fe_point_group
      *groups; /* one per Dirichlet <boundary>; pos: place in the Dirichlet list */
  struct fe_neumann_facets neumann;
};

/* The programs of tracer tr of case c (whose scheme@loads they follow), on space. */
int fe_coefficient_programs_create(const struct fe_case *c, const struct fe_tracer *tr,
                                   const struct fe_bcs *bcs, const struct fe_space *space,
                                   struct fe_coefficient_programs **cp);
void fe_coefficient_programs_destroy(struct fe_coefficient_programs *cp);

/* diffusivity: n_cells * FE_NSYM(d) (only the
 * first FE_NSYM(d) when uniform_diffusivity), scalars expanded to the tensor's
 * diagonal; node fields: n_nodes; dirichlet: in the order of space->dirichlet.
 * All out arrays on the backend. */
int fe_coefficients_diffusivity(const struct fe_coefficient_programs *cp, double t, double *out);
/* the source at the nodes (interpolated loads: the scheme applies the mass matrix) */
int fe_coefficients_source(const struct fe_coefficient_programs *cp, double t, double *out);
/* Loads by quadrature: out[n] = int (N_n + tau u_h . grad N_n) f(t) (assembly/load.h, n_nodes
 * values); form: SUPG's supg, nu_bar and uniform_diffusivity, with the diffusivity and velocity
 * it reads (unread without SUPG). */
int fe_coefficients_source_load(const struct fe_coefficient_programs *cp, double t,
                                const struct fe_form *form, const double *diffusivity,
                                const double *velocity, double *out);
/* the absorption rate at the cells' centroids: n_cells values (one when uniform_absorption) */
int fe_coefficients_absorption(const struct fe_coefficient_programs *cp, double t, double *out);
int fe_coefficients_exact(const struct fe_coefficient_programs *cp, double t, double *out);
int fe_coefficients_dirichlet(const struct fe_coefficient_programs *cp, double t, double *out);
/* out[n] = int_boundary phi_n g over the Neumann facets (n_nodes values): g at the quadrature
 * points, or its P1 interpolant on the facets (interpolated loads) */
int fe_coefficients_neumann(const struct fe_coefficient_programs *cp, double t, double *out);

#endif
