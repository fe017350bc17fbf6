#include "app/distribution.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/mesh_pack.h"
#include "solvers/halo.h"

/* Process 0: each process's owned nodes, in its order (ascending in the mesh's); no aliased
 * copy is owned. */
static int gather_order(struct fe_distribution *d)
{
  const struct fe_partition *p = d->partition;
  const int np = p->n_parts;
  FE_CALLOC(np + 1, &d->owned);
  FE_CALLOC(np + 1, &d->counts);
  FE_CALLOC(np + 1, &d->displs);
  FE_MALLOC(d->whole->n_nodes + 1, &d->order);
  FE_MALLOC((long)d->whole->n_nodes * FE_HALO_MAX_COMP + 1, &d->received);
  int *start;
  FE_CALLOC(np + 1, &start);
  const long unknowns = fe_mesh_n_unknowns(d->whole); /* the copies: their owners' */
  for (long n = 0; n < unknowns; n++) d->owned[p->node_owner[n]]++;
  for (int r = 0; r < np; r++) start[r + 1] = start[r] + d->owned[r];
  for (long n = 0; n < unknowns; n++) d->order[start[p->node_owner[n]]++] = (int)n;
  free(start);
  return FE_SUCCESS;
}

enum { SHARE_CHUNK = 1 << 30 }; /* bytes of one broadcast (its count is an int) */

/* Process 0's size bytes into every process's: broadcasts of SHARE_CHUNK bytes at most. */
static int share_bytes(const struct fe_comm *comm, void *bytes, size_t size)
{
  for (size_t at = 0; at < size; at += SHARE_CHUNK)
    FE_CALL(fe_comm_bcast(comm, (unsigned char *)bytes + at,
                          (int)(size - at < SHARE_CHUNK ? size - at : SHARE_CHUNK)));
  return FE_SUCCESS;
}

int fe_distribution_share_mesh(const struct fe_comm *comm, struct fe_mesh **m)
{
  unsigned char *bytes = NULL;
  size_t size = 0;
  if (comm->rank == 0) FE_CALL(fe_mesh_pack(*m, &bytes, &size));
  uint64_t n = size;
  int err = fe_comm_bcast(comm, &n, (int)sizeof n);
  size = (size_t)n;
  if (!err && comm->rank != 0) err = fe_malloc(size + 1, &bytes);
  if (!err) err = share_bytes(comm, bytes, size);
  if (!err && comm->rank != 0) err = fe_mesh_unpack(bytes, size, m);
  free(bytes);
  return err;
}

/* The cells cut by METIS once, on process 0, and each cell's part handed to the others: every
 * process's partition the same.  Process 0's failure (its message said there) is every
 * process's exit code. */
static int share_partition(const struct fe_comm *comm, const struct fe_mesh *whole,
                           struct fe_partition **p)
{
  int status = comm->rank == 0 ? fe_partition_create(whole, comm->size, p) : FE_SUCCESS;
  FE_CALL(fe_comm_bcast(comm, &status, (int)sizeof status));
  if (status) return status;
  int *parts = comm->rank == 0 ? (*p)->cell_part : NULL;
  if (comm->rank != 0) FE_MALLOC((size_t)whole->n_cells + 1, &parts);
  int err = share_bytes(comm, parts, (size_t)whole->n_cells * sizeof *parts);
  if (!err && comm->rank != 0) err = fe_partition_with_parts(whole, comm->size, parts, p);
  if (comm->rank != 0) free(parts);
  return err;
}

int fe_distribution_create(const struct fe_comm *comm, const struct fe_mesh *whole,
                           struct fe_distribution **out)
{
  struct fe_distribution *d;
  FE_CALLOC(1, &d);
  d->comm = comm;
  d->whole = whole;
  int err = share_partition(comm, whole, &d->partition);
  if (!err) err = fe_partition_mesh(d->partition, whole, comm->rank, &d->part);
  if (!err && comm->rank == 0) err = gather_order(d);
  if (err) {
    fe_distribution_destroy(d);
    return err;
  }
  *out = d;
  return FE_SUCCESS;
}

void fe_distribution_destroy(struct fe_distribution *d)
{
  if (!d) return;
  fe_partition_destroy(d->partition);
  fe_mesh_destroy(d->part);
  free(d->owned);
  free(d->counts);
  free(d->displs);
  free(d->order);
  free(d->received);
  free(d);
}

int fe_distribution_gather(const struct fe_distribution *d, int ncomp, const double *part,
                           double *whole)
{
  FE_CHECK(ncomp >= 1 && ncomp <= FE_HALO_MAX_COMP, FE_ERR_USAGE,
           "a gather of %d values per node", ncomp);
  const struct fe_mesh *pm = d->part;
  const long owned = (long)fe_mesh_n_owned(pm) * ncomp;
  if (d->comm->rank == 0)
    for (int r = 0; r < d->partition->n_parts; r++) {
      d->counts[r] = d->owned[r] * ncomp;
      d->displs[r] = r ? d->displs[r - 1] + d->counts[r - 1] : 0;
    }
  FE_CALL(fe_comm_gather(d->comm, part, (int)owned, d->received, d->counts, d->displs));
  if (d->comm->rank != 0) return FE_SUCCESS;
  for (long i = 0; i < fe_mesh_n_unknowns(d->whole); i++)
    for (int c = 0; c < ncomp; c++)
      whole[(long)d->order[i] * ncomp + c] = d->received[i * ncomp + c];
  fe_mesh_copy_owners(d->whole, ncomp, whole);
  return FE_SUCCESS;
}

void fe_distribution_restrict(const struct fe_distribution *d, int ncomp, const double *whole,
                              double *part)
{
  for (long i = 0; i < d->part->n_nodes; i++)
    for (int c = 0; c < ncomp; c++)
      part[i * ncomp + c] = whole[(long)d->part->global_node[i] * ncomp + c];
}

int fe_distribution_bcs(const struct fe_distribution *d, const struct fe_bcs *whole,
                        struct fe_bcs **out)
{
  const struct fe_mesh *pm = d->part;
  struct fe_bcs *b;
  FE_CALLOC(1, &b);
  *out = b;
  b->time_dependent = whole->time_dependent;
  b->has_dirichlet = whole->has_dirichlet;
  b->has_neumann = whole->has_neumann;
  FE_CALLOC(pm->n_nodes + 1, &b->is_dirichlet);
  int *slot; /* the whole mesh's Dirichlet list position of each node, -1 for none */
  FE_MALLOC(d->whole->n_nodes + 1, &slot);
  for (long n = 0; n < d->whole->n_nodes; n++) slot[n] = -1;
  for (long k = 0; k < whole->n_dirichlet; k++) slot[whole->dirichlet[k]] = (int)k;
  for (long i = 0; i < pm->n_nodes; i++) {
    b->is_dirichlet[i] = whole->is_dirichlet[pm->global_node[i]];
    b->n_dirichlet += b->is_dirichlet[i] != 0;
  }
  int err = fe_malloc(((size_t)b->n_dirichlet + 1) * sizeof(int), &b->dirichlet);
  if (!err) err = fe_malloc(((size_t)b->n_dirichlet + 1) * sizeof(int), &b->dirichlet_bc);
  if (!err) err = fe_malloc(((size_t)b->n_dirichlet + 1) * sizeof(int), &b->dirichlet_group);
  for (long i = 0, k = 0; !err && i < pm->n_nodes; i++) { /* ascending: owned, then ghosts */
    if (!b->is_dirichlet[i]) continue;
    const int j = slot[pm->global_node[i]];
    b->dirichlet[k] = (int)i;
    b->dirichlet_bc[k] = whole->dirichlet_bc[j];
    b->dirichlet_group[k++] = whole->dirichlet_group[j];
  }
  free(slot);
  FE_CALL(err);
  int *neumann; /* the whole mesh's Neumann list position of each facet, -1 for none */
  FE_MALLOC(d->whole->n_facets + 1, &neumann);
  for (long f = 0; f < d->whole->n_facets; f++) neumann[f] = -1;
  for (int k = 0; k < whole->n_neumann_facets; k++) neumann[whole->neumann_facet[k]] = k;
  for (int f = 0; f < pm->n_facets; f++) b->n_neumann_facets += neumann[pm->global_facet[f]] >= 0;
  err = fe_malloc(((size_t)b->n_neumann_facets + 1) * sizeof(int), &b->neumann_facet);
  if (!err) err = fe_malloc(((size_t)b->n_neumann_facets + 1) * sizeof(int), &b->neumann_bc);
  for (int f = 0, k = 0; !err && f < pm->n_facets; f++) {
    const int j = neumann[pm->global_facet[f]];
    if (j < 0) continue;
    b->neumann_facet[k] = f;
    b->neumann_bc[k++] = whole->neumann_bc[j];
  }
  free(neumann);
  return err;
}

void fe_distribution_probes(const struct fe_distribution *d, long n,
                            const struct fe_probe_location *whole, struct fe_probe_location *part)
{
  const struct fe_mesh *m = d->whole, *pm = d->part;
  for (long p = 0; p < n; p++) {
    const int c = whole[p].cell;
    part[p] = whole[p];
    const int *at = NULL;
    if (d->partition->node_owner[m->cells[(long)c * m->nv]] == d->comm->rank) { /* ascending */
      long lo = 0, hi = pm->n_cells;
      while (lo < hi) {
        const long mid = (lo + hi) / 2;
        if (pm->global_cell[mid] < c) lo = mid + 1;
        else hi = mid;
      }
      at = lo < pm->n_cells && pm->global_cell[lo] == c ? &pm->global_cell[lo] : NULL;
    }
    part[p].cell = at ? (int)(at - pm->global_cell) : 0;
    if (!at)
      for (int v = 0; v < FE_MAX_NV; v++) part[p].weights[v] = 0;
  }
}

int fe_distribution_print(const struct fe_distribution *d, FILE *f)
{
  return fe_partition_print(d->partition, d->whole, f);
}
