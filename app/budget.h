/* Tracer budgets (<fluxes>; docs/numerics.md, section 10; docs/case-format.md, "Boundary
 * fluxes and budgets"): for each tracer and each step, the terms that close
 *   I(t_n+1) - I(t_n) = h (sum_b (advective_b + diffusive_b) + source - absorption + divergence)
 * to round-off, I = int T_h = lumped . T, every term a rate averaged over the step, positive
 * into the domain.  The scheme (app/scheme.c) adds each term into the vectors named below with
 * the weights its integrators use, on the backend; fe_budget_queue queues their sums at the end
 * of the step's work and fe_budget_end reads them with one wait (solvers/readout.h), per
 * boundary group, combined through the backend's communicator.  On several processes each cell and
 * boundary facet is counted by the process that owns its first vertex (its part holds every
 * cell at the nodes it owns), each node sum over the owned nodes (complete there). */
#ifndef FE_BUDGET_H
#define FE_BUDGET_H

#include "app/fields.h"
#include "assembly/space.h"
#include "solvers/op.h"
#include "solvers/readout.h"

/* One tracer's sums over the current step, on the backend (amounts: rates times lengths). */
struct fe_budget_tracer {
  struct fe_vec *facets;        /* per boundary facet of the groups: -int (u_h . n) X_h, weighted */
  struct fe_vec *divergence;    /* per cell: (1 - beta) int (div u_h) X_h, weighted */
  struct fe_vec *absorption;    /* per cell: int lambda X_h, weighted; NULL without absorption */
  struct fe_vec *source;        /* per node: the loads (by quadrature), or the nodal values
                                   (interpolated: the lumped mass weighs them), weighted */
  struct fe_vec *neumann_slots; /* per Neumann facet vertex: the current substep's theta-
                                   weighted flux slots (app/coefficients.h) */
  struct fe_vec *neumann;       /* the slots summed over the step, weighted */
  struct fe_vec *reaction_adv;  /* per node: at the Dirichlet nodes, the advection step's
                                   consistent flux; the other entries are not read */
  struct fe_vec *reaction_diff; /* the same of the diffusion substeps */
  struct fe_vec *fct_reaction;  /* FCT: a limited step's consistent flux (assembly/fct.h) */
  struct fe_vec *before;        /* the tracer at the start of the advection step */
  struct fe_vec **dirichlet;    /* per group: 1 at the Dirichlet nodes it sets (NULL: none) */
  struct fe_vec **slots;        /* per group: each of its Neumann slots' weight (NULL: none) */
  /* the step's rates, on the host: per group, then the other terms */
  double *advective, *diffusive;
  double source_rate, absorption_rate, divergence_rate;
};

struct fe_budget {
  const struct fe_backend *be;
  const struct fe_space *space; /* any of the tracers' (the kernels read only the mesh) */
  int n_groups;
  const int *groups;           /* indices in the mesh's groups, not owned */
  long n_facets;               /* the groups' boundary facets, group after group (on several
                                  processes those whose first vertex this process owns) */
  long *first_facet;           /* n_groups + 1: where each group's facets start */
  int *facet_nodes;            /* backend: each facet's d vertices, then the opposite vertex */
  int advected;                /* advective terms: a velocity that advects the tracers */
  struct fe_vec *ones;         /* ones, as many as the most of facets, cells and nodes */
  struct fe_vec *own_cells;    /* per cell: 1 where this process counts it (its first vertex
                                  owned: a part holds cells of other processes), else 0; NULL:
                                  every cell (one process) */
  const struct fe_vec *lumped; /* int phi_n (the stat file's integral), not owned */
  const struct fe_vec *source_weights; /* the sources' sum: ones (loads by quadrature), or
                                          lumped (nodal values: sum_i (M f)_i = lumped . f) */
  int n_tracers;
  struct fe_budget_tracer *tracers;
  struct fe_budget_queued { /* two steps' partial sums queued (fe_budget_queue), by parity: */
    struct fe_readout *readout; /* tagged by step */
    int n;     /* how many: partial i at at[i] in the readout, added into the step's sum into[i] */
    int *at, *into;
  } queued[2];
};

/* The budget of case c's tracers (tracer k with its boundary conditions bcs[k]) through the
 * n_groups boundary groups (fe_flux_groups_find) of space's mesh; lumped: the integral's
 * weights.  advected: the scheme advects (explicitly or in the theta step). */
int fe_budget_create(const struct fe_case *c, const struct fe_space *space, int n_groups,
                     const int *groups, const struct fe_bcs *const *bcs,
                     const struct fe_vec *lumped, int advected, struct fe_budget **budget);
void fe_budget_destroy(struct fe_budget *b);

/* Every sum zeroed: at the start of a step. */
int fe_budget_begin(struct fe_budget *b);
/* Tracer k's advective terms of the field X at the velocity u (d values per node, backend)
 * with weight w: -w int (u_h . n) X_h through each facet, w (1 - beta) int (div u_h) X_h. */
int fe_budget_flow(struct fe_budget *b, int k, const double *u, double beta, const struct fe_vec *x,
                   double w);
/* Tracer k's absorption of X with weight w, lambda per cell (one value when uniform). */
int fe_budget_absorb(struct fe_budget *b, int k, const double *lambda, int uniform,
                     const struct fe_vec *x, double w);
/* The jump of the Dirichlet values over the advection step: reaction_adv += lumped (T - before)
 * (read at the Dirichlet nodes only). */
int fe_budget_jump(struct fe_budget *b, int k, const struct fe_vec *t);
/* Step `step`'s sums queued behind its work (its partial sums, summed over the processes at its
 * end); the next step may begin before that step ends. */
int fe_budget_queue(struct fe_budget *b, long step);
/* Step `step`'s sums, queued, read into the rates (divided by the step's length h). */
int fe_budget_end(struct fe_budget *b, long step, double h);

/* The column label of each group (labels[i] for groups[i]): its name where the name has only
 * letters, digits, '_', '-', '.' and no other group of the list has it, else its number. */
int fe_budget_labels(const struct fe_mesh *m, int n, const int *groups, char ***labels);

#endif
