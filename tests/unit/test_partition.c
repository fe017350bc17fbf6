/* The partition of a mesh into parts (io/partition.h), in 2D and 3D, 1 to 5 parts: every cell
 * in one part and every part with cells; each node owned by the lowest part among its cells';
 * a part's nodes its cells' nodes, owned first and ascending, then the ghosts grouped by owner
 * in the neighbours' order; neighbours symmetric; the same parts on a second run; errors. */
#include "io/partition.h"

#include "core/error.h"
#include "io/structured.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* The invariants of part r of p on m. */
static void check_part(const struct fe_partition *p, const struct fe_mesh *m, int r,
                       const struct fe_part *part)
{
  long cells = 0;
  for (long c = 0; c < m->n_cells; c++) cells += p->cell_part[c] == r;
  CHECK(part->n_cells == cells && part->n_cells > 0);
  for (long k = 1; k < part->n_cells; k++) CHECK(part->cells[k - 1] < part->cells[k]);
  unsigned char *mine = calloc((size_t)m->n_nodes, 1);
  for (long k = 0; k < part->n_cells; k++)
    for (int v = 0; v < m->nv; v++) mine[m->cells[(long)part->cells[k] * m->nv + v]] = 1;
  long count = 0, owned = 0;
  for (long n = 0; n < m->n_nodes; n++) {
    count += mine[n];
    owned += mine[n] && p->node_owner[n] == r;
  }
  CHECK(part->n_owned + part->n_ghost == count && part->n_owned == owned);
  const long total = part->n_owned + part->n_ghost;
  for (long k = 0; k < total; k++) {
    const int n = part->nodes[k];
    CHECK(mine[n]);
    mine[n] = 0; /* each once */
    CHECK((k < part->n_owned) == (p->node_owner[n] == r));
    if (k > 0 && k != part->n_owned) {
      const int prev = part->nodes[k - 1];
      const int same = p->node_owner[prev] == p->node_owner[n];
      CHECK(same ? prev < n : p->node_owner[prev] < p->node_owner[n]);
    }
  }
  for (int j = 0; j < part->n_neighbours; j++) {
    const int q = part->neighbours[j];
    CHECK(q != r && (j == 0 || part->neighbours[j - 1] < q));
    for (int g = part->ghost_ptr[j]; g < part->ghost_ptr[j + 1]; g++)
      CHECK(p->node_owner[part->nodes[part->n_owned + g]] == q);
  }
  CHECK(part->ghost_ptr[part->n_neighbours] == part->n_ghost);
  free(mine);
}

/* Each node's owner is the lowest part among its cells'. */
static void check_owners(const struct fe_partition *p, const struct fe_mesh *m)
{
  int *lowest = malloc(sizeof(int) * (size_t)m->n_nodes);
  for (long n = 0; n < m->n_nodes; n++) lowest[n] = p->n_parts;
  for (long c = 0; c < m->n_cells; c++)
    for (int v = 0; v < m->nv; v++) {
      int *l = &lowest[m->cells[c * m->nv + v]];
      if (p->cell_part[c] < *l) *l = p->cell_part[c];
    }
  int bad = 0;
  for (long n = 0; n < m->n_nodes; n++) bad += lowest[n] != p->node_owner[n];
  CHECK(bad == 0);
  free(lowest);
}

static void check_mesh(int dim, int n)
{
  struct fe_mesh *m = NULL;
  CHECK_OK(fe_mesh_create_structured(dim, n, 0.2, 7, &m));
  if (!m) return;
  for (int parts = 1; parts <= 5; parts++) {
    struct fe_partition *p = NULL, *again = NULL;
    CHECK_OK(fe_partition_create(m, parts, &p));
    CHECK_OK(fe_partition_create(m, parts, &again));
    if (!p || !again) continue;
    CHECK(!memcmp(p->cell_part, again->cell_part, sizeof(int) * (size_t)m->n_cells));
    check_owners(p, m);
    long ghosts = 0, owned = 0;
    int *near = calloc((size_t)(parts * parts), sizeof(int));
    for (int r = 0; r < parts; r++) {
      struct fe_part part;
      CHECK_OK(fe_partition_part(p, m, r, &part));
      check_part(p, m, r, &part);
      owned += part.n_owned;
      ghosts += part.n_ghost;
      for (int j = 0; j < part.n_neighbours; j++) near[r * parts + part.neighbours[j]] = 1;
      fe_part_free(&part);
    }
    CHECK(owned == m->n_nodes); /* every node owned once */
    CHECK(parts == 1 ? ghosts == 0 : ghosts > 0);
    for (int r = 0; r < parts; r++)
      for (int q = 0; q < parts; q++) CHECK(near[r * parts + q] == near[q * parts + r]);
    free(near);
    FILE *devnull = fopen("/dev/null", "w");
    CHECK_OK(fe_partition_print(p, m, devnull));
    fclose(devnull);
    fe_partition_destroy(p);
    fe_partition_destroy(again);
  }
  fe_mesh_destroy(m);
}

static void check_errors(void)
{
  struct fe_mesh *m = NULL;
  CHECK_OK(fe_mesh_create_structured(2, 2, 0, 1, &m)); /* 8 triangles */
  if (!m) return;
  struct fe_partition *p = (struct fe_partition *)&m;
  CHECK(fe_partition_create(m, 0, &p) == FE_ERR_INPUT && p == NULL);
  CHECK(fe_partition_create(m, 9, &p) == FE_ERR_INPUT && p == NULL);
  const int err = fe_partition_create(m, 8, &p); /* a cell each, or a part left empty: said */
  CHECK(err == FE_SUCCESS || (err == FE_ERR_INPUT && p == NULL));
  fe_partition_destroy(p);
  fe_mesh_destroy(m);
}

int main(void)
{
  fe_error_set_quiet(1);
  check_mesh(2, 24);
  check_mesh(3, 6);
  check_errors();
  TEST_DONE();
}
