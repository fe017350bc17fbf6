/* Norms of P1 fields over the mesh (host): the L2 norm sqrt(e^T M e) with the
 * consistent mass matrix M, for the stat file's l2_error. */
#ifndef FE_NORMS_H
#define FE_NORMS_H

#include "io/mesh.h"

double fe_l2_norm(const struct fe_mesh *m, const double *v);
/* |det J| of each cell (measure times d!), computed once */
double fe_cell_measure(const struct fe_mesh *m, long c);

#endif
