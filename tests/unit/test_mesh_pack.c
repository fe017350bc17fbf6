/* A mesh as bytes and back (io/mesh_pack.h), as process 0 hands it to the others: every field
 * equal, in 2D and 3D, with and without the optional arrays; bytes cut short or with one more
 * are refused. */
#include "io/mesh_pack.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
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
}

static void check_mesh(int dim, int n, int ids)
{
  struct fe_mesh *m = NULL, *back = NULL;
  CHECK_OK(fe_mesh_create_structured(dim, n, 0.2, 3, &m));
  if (!m) return;
  if (ids) { /* the Gmsh node tags of a mesh read from a file (a structured mesh has none) */
    m->node_id = malloc(sizeof *m->node_id * (size_t)m->n_nodes);
    for (int i = 0; i < m->n_nodes; i++) m->node_id[i] = 100 + (size_t)i;
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
  check_mesh(2, 12, 0);
  check_mesh(2, 12, 1);
  check_mesh(3, 4, 1);
  TEST_DONE();
}
