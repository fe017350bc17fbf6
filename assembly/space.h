/* The P1 space on a mesh, as the kernels of a backend need it: coordinates,
 * cells, the Dirichlet mask of each cell, the boundary cells (cells with a
 * Dirichlet vertex), and the node -> cell-entry incidence.  Moved to the
 * backend once, at creation.
 *
 * Periodic meshes: the aliased nodes (io/mesh.h) are the ghosts of a halo (solvers/halo.h)
 * whose owners are the nodes they copy, and the incidence of every copy of an unknown lists
 * the cells around all its copies (fe_mesh_merge_copies): each loop over a node's cells (the
 * LMA and matrix-free gathers, diagonals, lifting, mass rows, loads, flux-corrected
 * transport's sums and bounds) then gives the periodic operator's row PᵀAP, the same at every
 * copy.  A Dirichlet node's identity row is kept by one cell entry per unknown. */
#ifndef FE_SPACE_H
#define FE_SPACE_H

#include "assembly/element.h"
#include "assembly/quadrature.h"
#include "io/mesh.h"
#include "solvers/backend.h"
#include "solvers/vec.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fe_space {
  const struct fe_backend *be;
  const struct fe_mesh *mesh; /* host copy, not owned */
  int d, nv, nk;
  int deterministic;      /* LMA and matfree scatter by a gather, not atomics (fe_backend.atomic_scatter) */
  int block_shift;        /* element storage interleaves 2^block_shift cells (fe_block_index);
                             set before operators are created */
  long n_nodes, n_cells;
  long n_owned;         /* nodes that hold an unknown: all but the aliased copies */
  struct fe_halo *halo; /* the aliased copies as ghosts of their owners, or on a part of a mesh
                           (several processes) the other processes' nodes; NULL: none */
  struct fe_reference ref;
  struct fe_quadrature cell_rule, facet_rule; /* the loads' rules (assembly/load.h) */
  /* on the backend */
  double *coords;         /* n_nodes * d */
  int *cells;             /* n_cells * nv */
  unsigned char *dmask;   /* n_cells: see fe_dirichlet_entry */
  long n_dirichlet;
  int *dirichlet;         /* the Dirichlet nodes, ascending */
  long n_bcells;
  int any_bcells;         /* the whole mesh has boundary cells, Dirichlet nodes (on several
                             processes, whether or not this part has: every process then
                             lifts and exchanges alike) */
  int any_dirichlet;
  int *bcells;            /* cells with a Dirichlet vertex, ascending */
  int *bindex;            /* n_cells: position of the cell in bcells, -1 if absent */
  long n_lift_nodes;
  int *lift_nodes;        /* the other nodes of the boundary cells, ascending: the rows
                             the lifting of Dirichlet values changes */
  int *lift_ptr;          /* n_lift_nodes + 1: each lift node's terms (fe_node_lift), */
  int *lift_entry;        /* each the entry of a boundary cell's full matrix (its offset in
                             the lift storage: fe_block_index(bindex, row * nv + column,
                             nv * nv, FE_LIFT_SHIFT)), */
  int *lift_col;          /* and the Dirichlet node it multiplies; in the node's incidence
                             order, then its cells' vertex order */
  int *inc_ptr;           /* n_nodes + 1 */
  int *inc;               /* cell * nv + local vertex, per node, ascending, of the cells
                             around every copy of the node's unknown */
  int *owner;             /* n_nodes, NULL without copies: the node holding each node's
                             unknown, where expressions are evaluated (a copy takes its
                             owner's values) */
  /* host copies of the small lists */
  int *dirichlet_host;
  int *bcells_host;
  unsigned char *is_dirichlet_host; /* n_nodes flags */
};

/* is_dirichlet: n_nodes flags (may be NULL: no Dirichlet nodes), the same at every copy of an
 * unknown (FE_ERR_USAGE otherwise). */
int fe_space_create(const struct fe_backend *be, const struct fe_mesh *mesh,
                    const unsigned char *is_dirichlet, struct fe_space **space);
void fe_space_destroy(struct fe_space *space);

/* The halo of mesh m's ghosts: a part's other processes' nodes, then a periodic mesh's copies
 * (aliased nodes); *halo NULL where m has neither on one process (on several every part has
 * one, empty or not: every process makes it).  The space's and the outputs' own. */
int fe_mesh_halo_create(const struct fe_backend *be, const struct fe_mesh *m,
                        struct fe_halo **halo);

/* A vector of the space's nodes: the owned, then the ghosts of its halo (other processes'
 * nodes, the aliased copies). */
int fe_space_vec_create(const struct fe_space *space, struct fe_vec **v);

/* y = M x, the consistent mass matrix without Dirichlet masking, matrix-free:
 * x . M x is the squared L2 norm of a P1 field. */
int fe_space_mass_apply(const struct fe_space *space, const double *x, double *y);

/* Facet loads (see fe_node_kernels.facet_load). */
int fe_space_facet_load(const struct fe_space *space, const int *ptr, const int *slots, const double *w,
                        const double *g, double *out);

struct fe_program;
/* Expressions evaluated on the backend (see fe_node_kernels.evaluate):
 * for point i < m, node idx[i] (idx NULL: node i) or, with at_cells, the
 * centroid of cell i; out[(opos ? opos[i] : i) * nprog + k] = progs[k](point, t). */
int fe_space_evaluate(const struct fe_space *space, int at_cells, const int *idx, const int *opos,
                      long m, const struct fe_program *progs, int nprog, double t, double *out);
/* *count (an int on the backend) += how many of the m tensors (FE_NSYM(d) values
 * each, on the backend) are not positive semi-definite. */
int fe_space_count_indefinite(const struct fe_space *space, long m, const double *tensors, int *count);

#ifdef __cplusplus
}
#endif

#endif
