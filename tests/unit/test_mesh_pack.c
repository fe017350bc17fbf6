/* A mesh as bytes and back (io/mesh_pack.h), as process 0 hands each process its part: every
 * field equal, in 2D and 3D, with and without the optional arrays, a whole mesh and a part (its
 * global numbers, neighbours and lists); bytes cut short or with one more are refused. */
#include "io/mesh_pack.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/partition.h"
#include "io/structured.h"
#include "test.h"

static int same(const void *a, const void *b, size_t bytes)
{
  return (!a && !b) || (a && b && !memcmp(a, b, bytes));
}

static void check_same(const struct fe_mesh *a, const struct fe_mesh *b)
{
  CHECK(a->dim == b->dim && a->nv == b->nv && a->n_nodes == b->n_nodes &&
        a->n_cells == b->n_cells && a->n_facets == b->n_facets && a->n_groups == b->n_groups);
  CHECK(!strcmp(a->path, b->path));
  const size_t nn = (size_t)a->n_nodes, nc = (size_t)a->n_cells, nf = (size_t)a->n_facets;
  CHECK(same(a->coords, b->coords, nn * a->dim * sizeof(double)));
  CHECK(same(a->node_id, b->node_id, nn * sizeof(size_t)));
  CHECK(same(a->cells, b->cells, nc * a->nv * sizeof(int)));
  CHECK(same(a->cell_region, b->cell_region, nc * sizeof(int)));
  CHECK(same(a->cell_id, b->cell_id, nc * sizeof(size_t)));
  CHECK(same(a->facets, b->facets, nf * a->dim * sizeof(int)));
  CHECK(same(a->facet_group, b->facet_group, nf * sizeof(int)));
  CHECK(same(a->facet_id, b->facet_id, nf * sizeof(size_t)));
  CHECK(same(a->facet_cells, b->facet_cells, nf));
  for (int g = 0; g < a->n_groups; g++)
    CHECK(a->groups[g].dim == b->groups[g].dim && a->groups[g].tag == b->groups[g].tag &&
          !strcmp(a->groups[g].name, b->groups[g].name));
  CHECK(a->n_aliased == b->n_aliased && a->n_links == b->n_links);
  CHECK(same(a->alias_of, b->alias_of, (size_t)a->n_aliased * sizeof(int)));
  CHECK(same(a->links, b->links, (size_t)a->n_links * sizeof *a->links));
  CHECK(same(a->facet_link, b->facet_link, nf * sizeof(int)));
  const size_t nb = (size_t)a->n_neighbours;
  CHECK(a->n_ghost == b->n_ghost && a->n_neighbours == b->n_neighbours);
  CHECK(same(a->global_node, b->global_node, nn * sizeof(int)));
  CHECK(same(a->global_cell, b->global_cell, nc * sizeof(int)));
  CHECK(same(a->global_facet, b->global_facet, nf * sizeof(int)));
  CHECK(same(a->neighbours, b->neighbours, nb * sizeof(int)));
  CHECK(same(a->send_ptr, b->send_ptr, (nb + 1) * sizeof(int)));
  CHECK(same(a->recv_ptr, b->recv_ptr, (nb + 1) * sizeof(int)));
  CHECK(same(a->send, b->send, (a->send_ptr ? (size_t)a->send_ptr[nb] : 0) * sizeof(int)));
}

/* parts > 1: part 1 of the mesh cut into that many (its neighbours and lists) */
static void check_mesh(int dim, int n, int ids, int parts)
{
  struct fe_mesh *m = NULL, *back = NULL;
  CHECK_OK(fe_mesh_create_structured(dim, n, 0.2, 3, &m));
  if (!m) return;
  if (ids) { /* the Gmsh node tags of a mesh read from a file (a structured mesh has none) */
    m->node_id = malloc(sizeof *m->node_id * (size_t)m->n_nodes);
    for (int i = 0; i < m->n_nodes; i++) m->node_id[i] = 100 + (size_t)i;
  }
  if (parts > 1) {
    struct fe_partition *p = NULL;
    struct fe_mesh *part = NULL;
    CHECK_OK(fe_partition_create(m, parts, &p));
    if (p) CHECK_OK(fe_partition_mesh(p, m, 1, &part));
    fe_partition_destroy(p);
    fe_mesh_destroy(m);
    m = part;
    if (!m) return;
    CHECK(m->n_ghost > 0 && m->n_neighbours > 0 && m->global_node && m->send);
  }
  unsigned char *bytes = NULL;
  size_t size = 0;
  CHECK_OK(fe_mesh_pack(m, &bytes, &size));
  CHECK_OK(fe_mesh_unpack(bytes, size, &back));
  if (back) check_same(m, back);
  fe_mesh_destroy(back);
  back = NULL;
  CHECK(fe_mesh_unpack(bytes, size - 1, &back) == FE_ERR_USAGE && !back);
  CHECK(fe_mesh_unpack(bytes, size / 2, &back) == FE_ERR_USAGE && !back);
  unsigned char *longer = malloc(size + 1);
  memcpy(longer, bytes, size);
  longer[size] = 0;
  CHECK(fe_mesh_unpack(longer, size + 1, &back) == FE_ERR_USAGE && !back);
  free(longer);
  free(bytes);
  fe_mesh_destroy(m);
}

int main(void)
{
  fe_error_set_quiet(1);
  check_mesh(2, 12, 0, 1);
  check_mesh(2, 12, 1, 1);
  check_mesh(3, 4, 1, 1);
  check_mesh(2, 12, 1, 3);
  check_mesh(3, 5, 0, 3);
  TEST_DONE();
}
