#include "app/distribution.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/space.h"
#include "backends/backends.h"
#include "core/error.h"
#include "io/mesh_pack.h"

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

/* ---------------------------------------------------------------- a tracer's conditions on a part
 */

/* Part pm's conditions (made into *out) from those of the whole mesh m. */
static int part_bcs(const struct fe_mesh *m, const struct fe_mesh *pm, const struct fe_bcs *whole,
                    struct fe_bcs **out)
{
  struct fe_bcs *b;
  FE_CALLOC(1, &b);
  *out = b;
  b->time_dependent = whole->time_dependent;
  b->has_dirichlet = whole->has_dirichlet;
  b->has_neumann = whole->has_neumann;
  FE_CALLOC(pm->n_nodes + 1, &b->is_dirichlet);
  int *slot; /* the whole mesh's Dirichlet list position of each node, -1 for none */
  FE_MALLOC(m->n_nodes + 1, &slot);
  for (long n = 0; n < m->n_nodes; n++) slot[n] = -1;
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
  FE_MALLOC(m->n_facets + 1, &neumann);
  for (long f = 0; f < m->n_facets; f++) neumann[f] = -1;
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

/* ---------------------------------------------------------------- a part as bytes */

/* A tracer's conditions on a part of n_nodes nodes, into p (io/pack.h). */
static void put_bcs(struct fe_pack *p, const struct fe_bcs *b, long n_nodes)
{
  const int64_t counts[] = {b->n_dirichlet, b->n_neumann_facets, b->time_dependent,
                            b->has_dirichlet, b->has_neumann};
  fe_pack_put(p, counts, sizeof counts);
  fe_pack_put_array(p, b->is_dirichlet, (size_t)n_nodes, 1);
  const size_t nd = (size_t)b->n_dirichlet, nn = (size_t)b->n_neumann_facets;
  fe_pack_put_array(p, b->dirichlet, nd, sizeof(int));
  fe_pack_put_array(p, b->dirichlet_bc, nd, sizeof(int));
  fe_pack_put_array(p, b->dirichlet_group, nd, sizeof(int));
  fe_pack_put_array(p, b->neumann_facet, nn, sizeof(int));
  fe_pack_put_array(p, b->neumann_bc, nn, sizeof(int));
}

/* The conditions put_bcs wrote, read from p into *out (its arrays NULL where p ends early). */
static int get_bcs(struct fe_pack *p, long n_nodes, struct fe_bcs **out)
{
  struct fe_bcs *b;
  FE_CALLOC(1, &b);
  *out = b;
  int64_t counts[5] = {0};
  fe_pack_get(p, counts, sizeof counts);
  FE_CHECK(counts[0] >= 0 && counts[0] <= n_nodes && counts[1] >= 0 && counts[1] <= INT32_MAX,
           FE_ERR_USAGE,
           "a packed part's boundary conditions hold %lld Dirichlet nodes and "
           "%lld Neumann facets",
           (long long)counts[0], (long long)counts[1]);
  b->n_dirichlet = (long)counts[0];
  b->n_neumann_facets = (int)counts[1];
  b->time_dependent = (int)counts[2];
  b->has_dirichlet = (int)counts[3];
  b->has_neumann = (int)counts[4];
  const size_t nd = (size_t)b->n_dirichlet, nn = (size_t)b->n_neumann_facets;
  FE_CALL(fe_pack_get_array(p, (void **)&b->is_dirichlet, (size_t)n_nodes, 1));
  FE_CALL(fe_pack_get_array(p, (void **)&b->dirichlet, nd, sizeof(int)));
  FE_CALL(fe_pack_get_array(p, (void **)&b->dirichlet_bc, nd, sizeof(int)));
  FE_CALL(fe_pack_get_array(p, (void **)&b->dirichlet_group, nd, sizeof(int)));
  FE_CALL(fe_pack_get_array(p, (void **)&b->neumann_facet, nn, sizeof(int)));
  return fe_pack_get_array(p, (void **)&b->neumann_bc, nn, sizeof(int));
}

/* Part pm and its tracers' conditions, into p. */
static void put_part(struct fe_pack *p, const struct fe_mesh *pm, int n_tracers,
                     struct fe_bcs *const *bcs)
{
  fe_mesh_pack_write(p, pm);
  for (int k = 0; k < n_tracers; k++) put_bcs(p, bcs[k], pm->n_nodes);
}

/* Part pm and its tracers' conditions as bytes (*bytes malloc'd, *size of them). */
static int pack_part(const struct fe_mesh *pm, int n_tracers, struct fe_bcs *const *bcs,
                     unsigned char **bytes, size_t *size)
{
  struct fe_pack p = {0};
  put_part(&p, pm, n_tracers, bcs); /* counted */
  FE_CALL(fe_malloc(p.at + 1, &p.out));
  *size = p.at;
  p.at = 0;
  put_part(&p, pm, n_tracers, bcs);
  *bytes = p.out;
  return FE_SUCCESS;
}

static int unpack_part(const unsigned char *bytes, size_t size, int n_tracers, struct fe_mesh **pm,
                       struct fe_bcs **bcs)
{
  struct fe_pack p = {.in = bytes, .size = size};
  FE_CALL(fe_mesh_pack_read(&p, pm));
  for (int k = 0; k < n_tracers; k++) FE_CALL(get_bcs(&p, (*pm)->n_nodes, &bcs[k]));
  FE_CHECK(!p.over && p.at == size, FE_ERR_USAGE, "a packed part of %zu bytes %s", size,
           p.over ? "ends early" : "holds more than a part");
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- handing out the parts */

enum { SEND_CHUNK = 1 << 30 }; /* bytes of one message (its count is an int) */

/* Process 0's size bytes into process to's, in messages of SEND_CHUNK bytes at most. */
static int send_bytes(const struct fe_comm *comm, int to, unsigned char *bytes, size_t size)
{
  for (size_t at = 0; at < size; at += SEND_CHUNK)
    FE_CALL(
        fe_comm_send(comm, to, bytes + at, (int)(size - at < SEND_CHUNK ? size - at : SEND_CHUNK)));
  return FE_SUCCESS;
}

/* Process 0: part r with its tracers' conditions made and packed. */
static int make_part(const struct fe_distribution *d, int r, int n_tracers,
                     struct fe_bcs *const *whole_bcs, unsigned char **bytes, size_t *size)
{
  struct fe_mesh *pm = NULL;
  struct fe_bcs **bcs = NULL;
  int err = fe_partition_mesh(d->partition, d->whole, r, &pm);
  if (!err) err = fe_calloc((size_t)n_tracers + 1, sizeof *bcs, &bcs);
  for (int k = 0; !err && k < n_tracers; k++) err = part_bcs(d->whole, pm, whole_bcs[k], &bcs[k]);
  if (!err) err = pack_part(pm, n_tracers, bcs, bytes, size);
  for (int k = 0; bcs && k < n_tracers; k++) fe_bcs_destroy(bcs[k]);
  free(bcs);
  fe_mesh_destroy(pm);
  return err;
}

/* Part r from process 0 to process r, every process taking part in the two sums that say how
 * it went, so that no process waits for a message that will not come: process 0's error
 * making it (*made, its message said there) is every process's; process r's receiving it
 * (out of memory) is r's own (its return), the others going on. */
static int hand_part(struct fe_distribution *d, int r, int n_tracers,
                     struct fe_bcs *const *whole_bcs, struct fe_bcs **bcs, int *made)
{
  const struct fe_comm *comm = d->comm;
  unsigned char *bytes = NULL;
  size_t size = 0;
  double head[2] = {0, 0}; /* process 0's error making the part, its size in bytes */
  if (comm->rank == 0) head[0] = make_part(d, r, n_tracers, whole_bcs, &bytes, &size);
  head[1] = (double)size;
  int err = fe_comm_allreduce(comm, head, 2, FE_REDUCE_MAX);
  *made = err ? err : (int)head[0];
  if (*made) {
    free(bytes);
    return *made;
  }
  size = (size_t)head[1];
  double received = comm->rank == r ? fe_malloc(size + 1, &bytes) : FE_SUCCESS;
  err = fe_comm_allreduce(comm, &received, 1, FE_REDUCE_MAX);
  if (!err && !received && (comm->rank == 0 || comm->rank == r))
    err = send_bytes(comm, r, bytes, size);
  if (!err && !received && comm->rank == r)
    err = unpack_part(bytes, size, n_tracers, &d->part, bcs);
  free(bytes);
  return err ? err : comm->rank == r ? (int)received : FE_SUCCESS;
}

/* The cells cut by METIS once, on process 0; its failure (its message said there) is every
 * process's exit code. */
static int cut(struct fe_distribution *d)
{
  const struct fe_comm *comm = d->comm;
  const int status =
      comm->rank == 0 ? fe_partition_create(d->whole, comm->size, &d->partition) : FE_SUCCESS;
  return fe_comm_root_status(comm, status);
}

/* Process 0 makes and sends the other processes' parts, one at a time, then makes its own.  A
 * part process 0 could not make is every process's error; one a process could not receive is
 * its own (the others go on, and the caller's agreement ends them all). */
static int hand_out(struct fe_distribution *d, int n_tracers, struct fe_bcs *const *whole_bcs,
                    struct fe_bcs **bcs)
{
  const struct fe_comm *comm = d->comm;
  int err = FE_SUCCESS;
  for (int r = 1; r < comm->size; r++) {
    int made;
    const int e = hand_part(d, r, n_tracers, whole_bcs, bcs, &made);
    if (made) return made;
    err = err ? err : e;
  }
  if (comm->rank != 0) return err;
  if (!err) err = fe_partition_mesh(d->partition, d->whole, 0, &d->part);
  for (int k = 0; !err && k < n_tracers; k++)
    err = part_bcs(d->whole, d->part, whole_bcs[k], &bcs[k]);
  if (!err) err = gather_order(d);
  return err;
}

/* The part's halo on the host: the CPU backend's exchange through comm (a scatter's ghosts
 * and copies). */
static int host_halo(struct fe_distribution *d)
{
  const struct fe_backend_options bo = {.device = -1, .comm = d->comm};
  FE_CALL(fe_backend_create(FE_BACKEND_CPU, &bo, &d->host));
  return fe_mesh_halo_create(d->host, d->part, &d->halo);
}

int fe_distribution_create(const struct fe_comm *comm, const struct fe_mesh *whole, int n_tracers,
                           struct fe_bcs *const *whole_bcs, struct fe_bcs **bcs,
                           struct fe_distribution **out)
{
  struct fe_distribution *d;
  FE_CALLOC(1, &d);
  d->comm = comm;
  d->whole = comm->rank == 0 ? whole : NULL;
  int err = cut(d);
  if (!err) err = hand_out(d, n_tracers, whole_bcs, bcs);
  if (!err) err = host_halo(d);
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
  fe_halo_destroy(d->halo);
  fe_backend_destroy(d->host);
  free(d);
}

/* ---------------------------------------------------------------- values of the whole mesh */

/* Process 0: counts and displs of ncomp values per owned node of each process. */
static void scale_counts(const struct fe_distribution *d, int ncomp)
{
  if (d->comm->rank != 0) return;
  for (int r = 0; r < d->partition->n_parts; r++) {
    d->counts[r] = d->owned[r] * ncomp;
    d->displs[r] = r ? d->displs[r - 1] + d->counts[r - 1] : 0;
  }
}

int fe_distribution_gather(const struct fe_distribution *d, int ncomp, const double *part,
                           double *whole)
{
  FE_CHECK(ncomp >= 1 && ncomp <= FE_HALO_MAX_COMP, FE_ERR_USAGE, "a gather of %d values per node",
           ncomp);
  const long owned = (long)fe_mesh_n_owned(d->part) * ncomp;
  scale_counts(d, ncomp);
  FE_CALL(fe_comm_gather(d->comm, part, (int)owned, d->received, d->counts, d->displs));
  if (d->comm->rank != 0) return FE_SUCCESS;
  for (long i = 0; i < fe_mesh_n_unknowns(d->whole); i++)
    for (int c = 0; c < ncomp; c++)
      whole[(long)d->order[i] * ncomp + c] = d->received[i * ncomp + c];
  fe_mesh_copy_owners(d->whole, ncomp, whole);
  return FE_SUCCESS;
}

int fe_distribution_scatter(const struct fe_distribution *d, int ncomp, const double *whole,
                            double *part)
{
  FE_CHECK(ncomp >= 1 && ncomp <= FE_HALO_MAX_COMP, FE_ERR_USAGE, "a scatter of %d values per node",
           ncomp);
  scale_counts(d, ncomp);
  if (d->comm->rank == 0)
    for (long i = 0; i < fe_mesh_n_unknowns(d->whole); i++)
      for (int c = 0; c < ncomp; c++)
        d->received[i * ncomp + c] = whole[(long)d->order[i] * ncomp + c];
  const int owned = fe_mesh_n_owned(d->part) * ncomp;
  FE_CALL(fe_comm_scatter(d->comm, d->received, d->counts, d->displs, part, owned));
  return fe_halo_update(d->halo, ncomp, part); /* the ghosts from their owners, then the copies */
}

/* ---------------------------------------------------------------- probes, the summary */

void fe_distribution_probes(const struct fe_distribution *d, long n,
                            const struct fe_probe_location *whole, struct fe_probe_location *part)
{
  const struct fe_mesh *pm = d->part;
  for (long p = 0; p < n; p++) {
    const int c = whole[p].cell;
    long lo = 0, hi = pm->n_cells; /* the part's cells: ascending in the mesh's */
    while (lo < hi) {
      const long mid = (lo + hi) / 2;
      if (pm->global_cell[mid] < c)
        lo = mid + 1;
      else
        hi = mid;
    }
    const int held = lo < pm->n_cells && pm->global_cell[lo] == c;
    const int sampled =
        held && fe_mesh_owner(pm, pm->cells[lo * pm->nv]) < fe_mesh_n_owned(pm); /* its owner */
    part[p] = whole[p];
    part[p].cell = sampled ? (int)lo : 0;
    if (!sampled)
      for (int v = 0; v < FE_MAX_NV; v++) part[p].weights[v] = 0;
  }
}

int fe_distribution_print(const struct fe_distribution *d, FILE *f)
{
  return d->comm->rank == 0 ? fe_partition_print(d->partition, d->whole, f) : FE_SUCCESS;
}
