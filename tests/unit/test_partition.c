/* The partition of a mesh into parts (io/partition.h), in 2D and 3D, 1 to 5 parts, and of
 * periodic meshes (tests/unit/periodic.h): every cell in one part and every part with cells;
 * each node owned by the lowest part among the cells at every copy of its unknown; a part's
 * cells those at the nodes it owns, its nodes their nodes and the nodes of their unknowns,
 * owned first and ascending, then the ghosts grouped by owner in the neighbours' order, then
 * the aliased copies ascending; neighbours symmetric; every unknown owned once; the part as a
 * mesh (fe_partition_mesh): the same cells, coordinates and facets in local numbering, each
 * copy aliased to its unknown's node, and what each part sends a neighbour exactly that
 * neighbour's ghosts of it, in their order; the same parts on a second run; errors (a part
 * that owns no node among them). */
#include "io/partition.h"

#include "core/error.h"
#include "io/structured.h"
#include "periodic.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* The invariants of part r of p on m. */
static void check_part(const struct fe_partition *p, const struct fe_mesh *m, int r,
                       const struct fe_part *part)
{
  long cells = 0, own = 0;
  for (long c = 0; c < m->n_cells; c++) {
    int at_owned = 0;
    for (int v = 0; v < m->nv; v++) at_owned |= p->node_owner[m->cells[c * m->nv + v]] == r;
    cells += at_owned;
    own += p->cell_part[c] == r;
  }
  CHECK(part->n_cells == cells && part->n_own_cells == own && own > 0);
  for (long k = 1; k < part->n_cells; k++) CHECK(part->cells[k - 1] < part->cells[k]);
  unsigned char *mine = calloc((size_t)m->n_nodes, 1);
  for (long k = 0; k < part->n_cells; k++)
    for (int v = 0; v < m->nv; v++) {
      const int n = m->cells[(long)part->cells[k] * m->nv + v];
      mine[n] = mine[fe_mesh_owner(m, n)] = 1;
    }
  const long unknowns = m->n_nodes - m->n_aliased;
  long count = 0, owned = 0, copies = 0;
  for (long n = 0; n < m->n_nodes; n++) {
    count += mine[n] && n < unknowns;
    copies += mine[n] && n >= unknowns;
    owned += mine[n] && n < unknowns && p->node_owner[n] == r;
  }
  CHECK(part->n_owned + part->n_ghost == count && part->n_owned == owned);
  CHECK(part->n_aliased == copies);
  const long total = part->n_owned + part->n_ghost;
  for (long k = 0; k < total + part->n_aliased; k++) {
    const int n = part->nodes[k];
    CHECK(mine[n] && (k < total) == (n < unknowns));
    mine[n] = 0; /* each once */
    if (k >= total) {
      CHECK(k == total || part->nodes[k - 1] < n);
      continue;
    }
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

/* Each node's owner is the lowest part among the cells at every copy of its unknown. */
static void check_owners(const struct fe_partition *p, const struct fe_mesh *m)
{
  int *lowest = malloc(sizeof(int) * (size_t)m->n_nodes);
  for (long n = 0; n < m->n_nodes; n++) lowest[n] = p->n_parts;
  for (long c = 0; c < m->n_cells; c++)
    for (int v = 0; v < m->nv; v++) {
      int *l = &lowest[fe_mesh_owner(m, m->cells[c * m->nv + v])];
      if (p->cell_part[c] < *l) *l = p->cell_part[c];
    }
  int bad = 0;
  for (long n = 0; n < m->n_nodes; n++) bad += lowest[fe_mesh_owner(m, (int)n)] != p->node_owner[n];
  CHECK(bad == 0);
  free(lowest);
}

/* Part r as a mesh: nodes, cells and facets of m in its numbering; each neighbour's ghosts
 * owned by r are what r sends it (parts: every part of p, to compare). */
static void check_part_mesh(const struct fe_partition *p, const struct fe_mesh *m, int r,
                            const struct fe_part *parts)
{
  struct fe_mesh *pm = NULL;
  CHECK_OK(fe_partition_mesh(p, m, r, &pm));
  if (!pm) return;
  const struct fe_part *part = &parts[r];
  CHECK(pm->n_nodes == part->n_owned + part->n_ghost + part->n_aliased);
  CHECK(pm->n_ghost == part->n_ghost && pm->n_aliased == part->n_aliased);
  CHECK(pm->n_cells == part->n_cells && pm->n_neighbours == part->n_neighbours);
  CHECK(pm->n_links == m->n_links);
  for (int k = 0; k < pm->n_aliased; k++) { /* a copy of the node of its unknown */
    const int copy = pm->n_nodes - pm->n_aliased + k;
    CHECK(pm->global_node[pm->alias_of[k]] == fe_mesh_owner(m, pm->global_node[copy]));
    CHECK(pm->alias_of[k] < pm->n_nodes - pm->n_aliased);
  }
  for (long i = 0; i < pm->n_nodes; i++) {
    CHECK(pm->global_node[i] == part->nodes[i]);
    for (int a = 0; a < m->dim; a++)
      CHECK(pm->coords[i * m->dim + a] == m->coords[(long)part->nodes[i] * m->dim + a]);
  }
  for (long k = 0; k < pm->n_cells; k++) {
    CHECK(pm->global_cell[k] == part->cells[k]);
    for (int v = 0; v < m->nv; v++)
      CHECK(pm->global_node[pm->cells[k * m->nv + v]] == m->cells[(long)part->cells[k] * m->nv + v]);
  }
  for (int f = 0; f < pm->n_facets; f++) {
    for (int v = 0; v < m->dim; v++)
      CHECK(pm->global_node[pm->facets[f * m->dim + v]] ==
            m->facets[(long)pm->global_facet[f] * m->dim + v]);
    CHECK(!m->facet_link || pm->facet_link[f] == m->facet_link[pm->global_facet[f]]);
  }
  for (int k = 0; k < pm->n_neighbours; k++) {
    const struct fe_part *q = &parts[pm->neighbours[k]];
    int j = 0; /* r among q's neighbours */
    while (j < q->n_neighbours && q->neighbours[j] != r) j++;
    CHECK(j < q->n_neighbours);
    if (j == q->n_neighbours) continue;
    const int count = q->ghost_ptr[j + 1] - q->ghost_ptr[j];
    CHECK(pm->send_ptr[k + 1] - pm->send_ptr[k] == count && count > 0);
    for (int i = 0; i < count && pm->send_ptr[k + 1] - pm->send_ptr[k] == count; i++) {
      const int sent = pm->send[pm->send_ptr[k] + i];
      CHECK(sent >= 0 && sent < part->n_owned);
      CHECK(part->nodes[sent] == q->nodes[q->n_owned + q->ghost_ptr[j] + i]);
    }
    CHECK(pm->recv_ptr[k + 1] - pm->recv_ptr[k] == part->ghost_ptr[k + 1] - part->ghost_ptr[k]);
  }
  fe_mesh_destroy(pm);
}

/* axes: the periodic axes (tests/unit/periodic.h), 0 for none. */
static void check_mesh(int dim, int n, int axes)
{
  struct fe_mesh *m = axes ? meshgen_periodic(dim, n, 0.2, 7, axes) : NULL;
  if (!axes) CHECK_OK(fe_mesh_create_structured(dim, n, 0.2, 7, &m));
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
    struct fe_part all[5];
    for (int r = 0; r < parts; r++) {
      struct fe_part *part = &all[r];
      CHECK_OK(fe_partition_part(p, m, r, part));
      check_part(p, m, r, part);
      owned += part->n_owned;
      ghosts += part->n_ghost;
      for (int j = 0; j < part->n_neighbours; j++) near[r * parts + part->neighbours[j]] = 1;
    }
    for (int r = 0; r < parts; r++) check_part_mesh(p, m, r, all);
    for (int r = 0; r < parts; r++) fe_part_free(&all[r]);
    CHECK(owned == m->n_nodes - m->n_aliased); /* every unknown owned once */
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

/* A part that owns no node is refused, not handed on: small periodic meshes (an unknown goes to
 * the lowest part at any of its copies) on many parts; the 4 x 4 square periodic in x and y on
 * 3 parts leaves one (METIS's cut). */
static void check_unowned(void)
{
  int refused = 0;
  for (int n = 4; n <= 8; n += 2)
    for (int parts = 2; parts <= 12; parts++) {
      struct fe_mesh *m = meshgen_periodic(2, n, 0.2, 7, 3);
      struct fe_partition *p = NULL;
      const int err = fe_partition_create(m, parts, &p);
      CHECK(err == FE_SUCCESS || (err == FE_ERR_INPUT && !p));
      refused += err == FE_ERR_INPUT;
      if (n == 4 && parts == 3) CHECK(err == FE_ERR_INPUT);
      long *owned = calloc((size_t)parts, sizeof *owned);
      for (long k = 0; p && k < m->n_nodes - m->n_aliased; k++) owned[p->node_owner[k]]++;
      for (int r = 0; p && r < parts; r++) CHECK(owned[r] > 0);
      free(owned);
      fe_partition_destroy(p);
      fe_mesh_destroy(m);
    }
  CHECK(refused > 0);
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
  check_mesh(2, 24, 0);
  check_mesh(3, 6, 0);
  check_mesh(2, 24, 1); /* periodic in x */
  check_mesh(2, 24, 3); /* in x and y */
  check_mesh(3, 6, 5);  /* in x and z */
  check_errors();
  check_unowned();
  TEST_DONE();
}
