/* A mesh handed out in parts (app/distribution.h) on however many processes mpirun starts
 * (label mpi: 1 to 4): process 0 alone holds the whole mesh and cuts it; each process's part
 * equals the part it would cut from the whole mesh itself (fe_partition_mesh: nodes, cells,
 * facets, global numbers, lists), its boundary conditions the whole mesh's at its nodes and
 * facets; values of the whole mesh scattered from process 0 reach every node of every part,
 * ghosts and periodic copies too, and gather back to the same bits; each probe is sampled by
 * exactly one process, with its weights.  2D and 3D, periodic meshes too. */
#include "solvers/comm_mpi.h"

#include <stdlib.h>
#include <string.h>

#include "app/distribution.h"
#include "core/error.h"
#include "periodic.h"
#include "test.h"

static int same(const void *a, const void *b, size_t bytes)
{
  return (!a && !b) || (a && b && !memcmp(a, b, bytes));
}

/* The whole mesh's conditions: Dirichlet nodes where x < 0.4 on the boundary, every third
 * facet a Neumann facet, the bc and group of each a function of the node or facet. */
static struct fe_bcs *whole_bcs(const struct fe_mesh *m)
{
  struct fe_bcs *b = calloc(1, sizeof *b);
  b->is_dirichlet = calloc((size_t)m->n_nodes, 1);
  for (int i = 0; i < m->n_nodes; i++)
    b->is_dirichlet[i] = meshgen_on_boundary(m, i) && m->coords[(long)i * m->dim] < 0.4;
  for (int i = 0; i < m->n_nodes; i++) b->is_dirichlet[fe_mesh_owner(m, i)] |= b->is_dirichlet[i];
  for (int i = 0; i < m->n_nodes; i++) b->is_dirichlet[i] = b->is_dirichlet[fe_mesh_owner(m, i)];
  b->dirichlet = malloc(sizeof(int) * (size_t)(m->n_nodes + 1));
  b->dirichlet_bc = malloc(sizeof(int) * (size_t)(m->n_nodes + 1));
  b->dirichlet_group = malloc(sizeof(int) * (size_t)(m->n_nodes + 1));
  for (int i = 0; i < m->n_nodes; i++)
    if (b->is_dirichlet[i]) {
      b->dirichlet[b->n_dirichlet] = i;
      b->dirichlet_bc[b->n_dirichlet] = i % 3;
      b->dirichlet_group[b->n_dirichlet++] = i % 5;
    }
  b->neumann_facet = malloc(sizeof(int) * (size_t)(m->n_facets + 1));
  b->neumann_bc = malloc(sizeof(int) * (size_t)(m->n_facets + 1));
  for (int f = 0; f < m->n_facets; f += 3) {
    b->neumann_facet[b->n_neumann_facets] = f;
    b->neumann_bc[b->n_neumann_facets++] = f % 7;
  }
  b->has_dirichlet = b->n_dirichlet > 0;
  b->has_neumann = b->n_neumann_facets > 0;
  b->time_dependent = 1;
  return b;
}

/* Part pm (handed out) against ref (cut here from the whole mesh), and its conditions. */
static void check_part(const struct fe_mesh *ref, const struct fe_mesh *pm,
                       const struct fe_bcs *whole, const struct fe_bcs *b)
{
  CHECK(pm->dim == ref->dim && pm->n_nodes == ref->n_nodes && pm->n_cells == ref->n_cells &&
        pm->n_facets == ref->n_facets && pm->n_ghost == ref->n_ghost &&
        pm->n_aliased == ref->n_aliased && pm->n_neighbours == ref->n_neighbours);
  if (pm->n_nodes != ref->n_nodes || pm->n_cells != ref->n_cells || pm->n_facets != ref->n_facets ||
      pm->n_neighbours != ref->n_neighbours)
    return;
  const size_t nn = (size_t)pm->n_nodes, nc = (size_t)pm->n_cells, nf = (size_t)pm->n_facets,
               nb = (size_t)pm->n_neighbours;
  CHECK(same(pm->coords, ref->coords, nn * pm->dim * sizeof(double)));
  CHECK(same(pm->cells, ref->cells, nc * pm->nv * sizeof(int)));
  CHECK(same(pm->facets, ref->facets, nf * pm->dim * sizeof(int)));
  CHECK(same(pm->global_node, ref->global_node, nn * sizeof(int)));
  CHECK(same(pm->global_cell, ref->global_cell, nc * sizeof(int)));
  CHECK(same(pm->global_facet, ref->global_facet, nf * sizeof(int)));
  CHECK(same(pm->alias_of, ref->alias_of, (size_t)pm->n_aliased * sizeof(int)));
  CHECK(same(pm->neighbours, ref->neighbours, nb * sizeof(int)));
  CHECK(same(pm->send_ptr, ref->send_ptr, (nb + 1) * sizeof(int)));
  CHECK(same(pm->recv_ptr, ref->recv_ptr, (nb + 1) * sizeof(int)));
  CHECK(same(pm->send, ref->send, (nb ? (size_t)ref->send_ptr[nb] : 0) * sizeof(int)));
  /* the conditions: the whole mesh's at the part's nodes and facets, in the part's order */
  CHECK(b->has_dirichlet == whole->has_dirichlet && b->has_neumann == whole->has_neumann &&
        b->time_dependent == whole->time_dependent);
  long k = 0;
  for (int i = 0; i < pm->n_nodes; i++) {
    const int g = pm->global_node[i];
    CHECK(b->is_dirichlet[i] == whole->is_dirichlet[g]);
    if (!b->is_dirichlet[i]) continue;
    CHECK(k < b->n_dirichlet && b->dirichlet[k] == i && b->dirichlet_bc[k] == g % 3 &&
          b->dirichlet_group[k] == g % 5);
    k++;
  }
  CHECK(k == b->n_dirichlet);
  int j = 0;
  for (int f = 0; f < pm->n_facets; f++) {
    const int g = pm->global_facet[f];
    if (g % 3) continue;
    CHECK(j < b->n_neumann_facets && b->neumann_facet[j] == f && b->neumann_bc[j] == g % 7);
    j++;
  }
  CHECK(j == b->n_neumann_facets);
}

/* Values of the whole mesh, ncomp per node, a periodic copy its owner's. */
static double field(const struct fe_mesh *m, int node, int c)
{
  const int o = fe_mesh_owner(m, node);
  return 1.5 * o - 0.25 * c + 1e-3 * (o % 17);
}

static void check_values(const struct fe_distribution *d, const struct fe_mesh *m, int ncomp)
{
  const struct fe_mesh *pm = d->part;
  const int root = d->comm->rank == 0;
  double *whole = calloc((size_t)m->n_nodes * ncomp, sizeof *whole);
  double *part = malloc(sizeof(double) * (size_t)pm->n_nodes * ncomp);
  double *back = calloc((size_t)m->n_nodes * ncomp, sizeof *back);
  for (int i = 0; root && i < m->n_nodes; i++)
    for (int c = 0; c < ncomp; c++) whole[(long)i * ncomp + c] = field(m, i, c);
  for (long i = 0; i < (long)pm->n_nodes * ncomp; i++) part[i] = -1e300;
  CHECK_OK(fe_distribution_scatter(d, ncomp, root ? whole : NULL, part));
  long wrong = 0;
  for (int i = 0; i < pm->n_nodes; i++)
    for (int c = 0; c < ncomp; c++)
      wrong += part[(long)i * ncomp + c] != field(m, pm->global_node[i], c);
  CHECK(wrong == 0);
  CHECK_OK(fe_distribution_gather(d, ncomp, part, root ? back : NULL));
  if (root) CHECK(!memcmp(back, whole, sizeof(double) * (size_t)m->n_nodes * ncomp));
  free(whole);
  free(part);
  free(back);
}

/* Probes at cell centroids (of every 7th cell of the whole mesh): each sampled by one process
 * (weights kept), 0 weights on the others. */
static void check_probes(const struct fe_distribution *d, const struct fe_mesh *m)
{
  const long n = (m->n_cells + 6) / 7;
  struct fe_probe_location *whole = calloc((size_t)n, sizeof *whole),
                           *part = calloc((size_t)n, sizeof *part);
  for (long p = 0; p < n; p++) {
    whole[p].cell = (int)(7 * p);
    for (int v = 0; v < m->nv; v++) whole[p].weights[v] = 1.0 / m->nv;
  }
  fe_distribution_probes(d, n, whole, part);
  double *claimed = calloc((size_t)n + 1, sizeof *claimed);
  for (long p = 0; p < n; p++) {
    const int mine = part[p].weights[0] != 0;
    claimed[p] = mine;
    if (mine)
      CHECK(d->part->global_cell[part[p].cell] == whole[p].cell &&
            !memcmp(part[p].weights, whole[p].weights, sizeof whole[p].weights));
  }
  CHECK_OK(fe_comm_allreduce(d->comm, claimed, (int)n, FE_REDUCE_SUM));
  long wrong = 0;
  for (long p = 0; p < n; p++) wrong += claimed[p] != 1;
  CHECK(wrong == 0);
  free(whole);
  free(part);
  free(claimed);
}

static void check(const struct fe_comm *comm, int dim, int n, int axes)
{
  /* every process makes the mesh for the reference; only process 0's goes in */
  struct fe_mesh *m = axes ? meshgen_periodic(dim, n, 0.3, 99u, axes) : meshgen(dim, n, 0.3, 99u);
  struct fe_bcs *whole[2] = {whole_bcs(m), whole_bcs(m)}, *bcs[2] = {NULL, NULL};
  whole[1]->time_dependent = 0;
  struct fe_distribution *d = NULL;
  CHECK_OK(fe_distribution_create(comm, comm->rank == 0 ? m : NULL, 2, whole, bcs, &d));
  if (d) {
    CHECK((d->whole != NULL) == (comm->rank == 0) && (d->partition != NULL) == (comm->rank == 0));
    struct fe_partition *p = NULL;
    struct fe_mesh *ref = NULL;
    CHECK_OK(fe_partition_create(m, comm->size, &p));
    if (p) CHECK_OK(fe_partition_mesh(p, m, comm->rank, &ref));
    for (int k = 0; ref && k < 2; k++) check_part(ref, d->part, whole[k], bcs[k]);
    CHECK(bcs[1] && bcs[1]->time_dependent == 0);
    check_values(d, m, 1);
    check_values(d, m, dim);
    check_probes(d, m);
    fe_mesh_destroy(ref);
    fe_partition_destroy(p);
  }
  fe_distribution_destroy(d);
  for (int k = 0; k < 2; k++) {
    fe_bcs_destroy(whole[k]);
    fe_bcs_destroy(bcs[k]);
  }
  fe_mesh_destroy(m);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  struct fe_comm *comm = NULL;
  CHECK_OK(fe_comm_mpi_create(MPI_COMM_WORLD, &comm));
  if (comm) {
    check(comm, 2, 16, 0);
    check(comm, 3, 5, 0);
    check(comm, 2, 16, 3); /* periodic in x and y */
    check(comm, 3, 5, 5);  /* in x and z */
  }
  fe_comm_mpi_destroy(comm);
  MPI_Finalize();
  TEST_DONE();
}
