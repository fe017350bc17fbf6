/* Loops on every OpenMP thread whose results do not depend on the threads (the mesh's
 * numbering and checks, io/mesh.c and io/mesh_checks.c; the node -> cell incidence,
 * fe_mesh_incidence).  A loop whose items find their places by
 * counting (a node's number, a cell's place) splits its range into shares, one a thread in thread
 * order, and adds the counts share by share: the places of a serial loop, whatever the threads. The
 * loop runs in #pragma omp parallel num_threads(fe_shares_threads()) and each thread takes
 * fe_share(n, ...), counts, and places from fe_share_offset(). */
#ifndef FE_SHARES_H
#define FE_SHARES_H

#include <stddef.h>

enum { FE_MAX_SHARES = 256 };

struct fe_shares {
  size_t before[FE_MAX_SHARES + 1]; /* the counts of the shares before each */
  size_t total;
};

int fe_shares_threads(void);
/* This thread's share [*lo, *hi) of 0 .. n. */
void fe_share(size_t n, size_t *lo, size_t *hi);
/* Every thread, with the count of its share: the counts of the shares before it, summed;
 * s->total, all of them (a barrier for the threads). */
size_t fe_share_offset(struct fe_shares *s, size_t count);

/* a[0 .. n) replaced by its running sums a[0] + ... + a[i]. */
void fe_running_sum(size_t *a, size_t n);

/* The items 0 .. n - 1 by bucket key[i] (< n_buckets), in CSR form: items[ptr[b] .. ptr[b + 1])
 * are bucket b's, ascending, as a serial counting sort leaves them (*ptr: n_buckets + 1). */
int fe_buckets(size_t n, const int *key, size_t n_buckets, size_t **ptr, size_t **items);

/* A thread's scratch space inside a parallel region, which reports nothing: grown to at least
 * `bytes`; 0, or the bytes it could not get (report them after the region, FE_ERR_RESOURCE). */
struct fe_scratch {
  void *p;
  size_t bytes;
};
size_t fe_scratch_reserve(struct fe_scratch *s, size_t bytes);

#endif
