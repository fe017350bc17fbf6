/* Case expressions evaluated on the mesh (on the host): nodal fields, cell
 * coefficients, Dirichlet values and Neumann loads. */
#ifndef FE_FIELDS_H
#define FE_FIELDS_H

#include "io/case.h"
#include "io/mesh.h"

/* Boundary conditions resolved against the mesh. */
struct fe_bcs {
  unsigned char *is_dirichlet; /* n_nodes flags */
  long n_dirichlet;
  int *dirichlet;       /* ascending node indices */
  int *dirichlet_bc;    /* index in the tracer's boundaries setting each Dirichlet node */
  int *dirichlet_group; /* the physical group (index in the mesh's groups) that sets it: of
                           that <boundary>'s groups with a facet at the node, the one listed
                           last in its physical attribute */
  int n_neumann_facets;
  int *neumann_facet; /* facet indices */
  int *neumann_bc;    /* their boundary */
  int time_dependent; /* a Dirichlet or Neumann value depends on t */
  int has_dirichlet, has_neumann; /* the whole mesh has Dirichlet nodes, Neumann facets (on
                                     several processes, whether or not this part has) */
};

/* Resolve every <boundary> of tracer tr against the mesh's physical groups.  FE_ERR_INPUT
 * for names or numbers absent from the mesh, a name that the mesh gives to
 * several boundary groups, a group in two <boundary>, a group with facets
 * that are no facet of a cell, and a Neumann condition on facets inside the
 * domain (m->facet_cells 2); a Dirichlet condition there is a warning. */
int fe_bcs_create(const struct fe_case *c, const struct fe_tracer *tr, const struct fe_mesh *m,
                  struct fe_bcs **bcs);
void fe_bcs_destroy(struct fe_bcs *bcs);

/* <fluxes>: the boundary groups whose fluxes the stat file has, as indices in m->groups
 * (room for m->n_groups), *n of them: those of fluxes@boundaries in its order, or every
 * boundary group of the mesh in the mesh's order.  FE_ERR_INPUT naming the case file's line
 * for a name or number that is no boundary group of the mesh (listing those it has), a name
 * several of them have, and a group listed twice (by name and by number). */
int fe_flux_groups_find(const struct fe_case *c, const struct fe_mesh *m, int *groups, int *n);

/* out[n] = expr(x_n, t) at every node; FE_ERR_INPUT naming the expression and
 * the point where a value is not finite. */
int fe_eval_nodes(const struct fe_expr *e, const struct fe_mesh *m, double t, double *out);
/* Velocity at nodes: n_nodes * dim values. */
int fe_eval_velocity(const struct fe_case *c, const struct fe_mesh *m, double t, double *out);
/* Diffusivity per cell at the centroid as FE_NSYM(dim) components; checks it
 * is symmetric positive semi-definite (a scalar must be >= 0). */
int fe_eval_diffusivity(const struct fe_case *c, const struct fe_tracer *tr,
                        const struct fe_mesh *m, double t, double *out);
/* Absorption rate per cell at the centroid (n_cells values); FE_ERR_INPUT for a value that is
 * not finite or below 0. */
int fe_eval_absorption(const struct fe_case *c, const struct fe_tracer *tr, const struct fe_mesh *m,
                       double t, double *out);
/* Dirichlet values at the Dirichlet nodes, in bcs->dirichlet order. */
int fe_eval_dirichlet(const struct fe_tracer *tr, const struct fe_mesh *m, const struct fe_bcs *bcs,
                      double t, double *out);
/* Neumann load: out[n] = sum over Neumann facets of int_F phi_n g (g P1 on
 * the facet), n_nodes values. */
int fe_eval_neumann(const struct fe_tracer *tr, const struct fe_mesh *m, const struct fe_bcs *bcs,
                    double t, double *out);

/* The source and the Neumann fluxes where the loads evaluate them (scheme@loads): at the
 * quadrature points of the cells and of the Neumann facets (assembly/load.h; nothing kept,
 * work unused), or at the nodes (interpolated: fe_eval_nodes, fe_eval_neumann into work).
 * FE_ERR_INPUT naming the expression, the point (the node, or the quadrature point and its
 * element) and the time where a value is not finite. */
int fe_eval_source(const struct fe_case *c, const struct fe_tracer *tr, const struct fe_mesh *m,
                   double t, double *work);
int fe_eval_neumann_flux(const struct fe_case *c, const struct fe_tracer *tr,
                         const struct fe_mesh *m, const struct fe_bcs *bcs, double t, double *work);

/* The most values one of the fe_eval_* functions writes on m: room for any of them. */
long fe_eval_max_values(const struct fe_mesh *m, const struct fe_bcs *bcs);

/* Measure of boundary facet f (its dim node indices): a length or an area. */
double fe_facet_measure(const struct fe_mesh *m, const int *f);

int fe_case_time_dependent_velocity(const struct fe_case *c);
int fe_tracer_time_dependent_diffusivity(const struct fe_tracer *tr);

#endif
