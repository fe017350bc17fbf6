/* An operator of the CPU backend applied on one thread and on several gives the same bits:
 * LMA's and matrix-free's sums at the nodes are added as the products come on one thread and
 * gathered per node from a work array on several (backends/cpu/nodes.c, fe_scatter_*), in the
 * same order. */
#ifndef FE_THREADS_CHECKS_H
#define FE_THREADS_CHECKS_H

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/op.h"
#include "solvers/vec.h"
#include "test.h"

/* y = op x and its apply with lifting, on 1 and on 3 threads; x: a vector like op's (its
 * ghosts, if any, are exchanged by the operator) */
static inline void threads_same_bits(struct fe_op *op, struct fe_vec *vx, struct fe_vec *vy)
{
  const size_t n = vy->n;
  double *y[2] = {malloc(sizeof(double) * n), malloc(sizeof(double) * n)};
  const int before = omp_get_max_threads();
  for (int full = 0; full < 2; full++) {
    for (int k = 0; k < 2; k++) {
      omp_set_num_threads(k ? 3 : 1);
      CHECK_OK(fe_vec_set(vy, 7.0));
      CHECK_OK(full ? fe_op_apply_full(op, vx, vy) : fe_op_apply(op, vx, vy));
      CHECK_OK(fe_vec_download(vy, y[k]));
    }
    CHECK(memcmp(y[0], y[1], sizeof(double) * n) == 0);
  }
  omp_set_num_threads(before);
  free(y[0]);
  free(y[1]);
}

#endif
