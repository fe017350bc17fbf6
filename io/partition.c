#include "io/partition.h"

#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

enum { METIS_SEED = 20261126 }; /* any fixed value: the same parts at every run */

/* The cells' parts by METIS_PartMeshDual: cells are neighbours where they share a facet (dim
 * nodes), the cut (shared facets) minimised, the parts balanced by cell count. */
static int metis_parts(const struct fe_mesh *m, int n_parts, int *cell_part)
{
  idx_t ne = (idx_t)m->n_cells, nn = (idx_t)m->n_nodes, ncommon = (idx_t)m->dim,
        nparts = (idx_t)n_parts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = METIS_SEED;
  options[METIS_OPTION_NUMBERING] = 0;
  idx_t *eptr = NULL, *eind = NULL, *npart = NULL;
  int err = fe_malloc(((size_t)ne + 1) * sizeof *eptr, &eptr);
  if (!err) err = fe_malloc((size_t)ne * (size_t)m->nv * sizeof *eind, &eind);
  if (!err) err = fe_malloc(((size_t)nn + 1) * sizeof *npart, &npart);
  if (!err) {
    for (idx_t c = 0; c <= ne; c++) eptr[c] = c * (idx_t)m->nv;
    for (long k = 0; k < (long)ne * m->nv; k++) eind[k] = (idx_t)m->cells[k];
    /* idx_t is int (IDXTYPEWIDTH 32): epart is written into cell_part itself */
    const int rc = METIS_PartMeshDual(&ne, &nn, eptr, eind, NULL, NULL, &ncommon, &nparts, NULL,
                                      options, &objval, (idx_t *)cell_part, npart);
    if (rc != METIS_OK)
      err = fe_error_raise(rc == METIS_ERROR_MEMORY ? FE_ERR_RESOURCE : FE_ERR_INPUT, __FILE__,
                           __LINE__,
                           "METIS could not cut the mesh %s (%ld cells) into %d parts (METIS_"
                           "PartMeshDual returned %d)",
                           m->path, (long)m->n_cells, n_parts, rc);
  }
  free(eptr);
  free(eind);
  free(npart);
  return err;
}

_Static_assert(sizeof(idx_t) == sizeof(int), "METIS built with 32-bit indices");

/* Each node's owner: the lowest part among its cells'. */
static void node_owners(const struct fe_mesh *m, const int *cell_part, int *owner)
{
  for (long n = 0; n < m->n_nodes; n++) owner[n] = -1;
  for (long c = 0; c < m->n_cells; c++)
    for (int v = 0; v < m->nv; v++) {
      int *o = &owner[m->cells[c * m->nv + v]];
      if (*o < 0 || cell_part[c] < *o) *o = cell_part[c];
    }
}

/* Every part has cells: METIS may leave one empty on a small mesh. */
static int check_parts(const struct fe_mesh *m, const struct fe_partition *p)
{
  long *count;
  FE_CALLOC(p->n_parts, &count);
  for (long c = 0; c < m->n_cells; c++) count[p->cell_part[c]]++;
  int empty = -1;
  for (int r = 0; r < p->n_parts && empty < 0; r++)
    if (!count[r]) empty = r;
  free(count);
  FE_CHECK(empty < 0, FE_ERR_INPUT,
           "the mesh %s (%ld cells) cut into %d parts leaves part %d without a cell; expected "
           "fewer processes for this mesh",
           m->path, (long)m->n_cells, p->n_parts, empty);
  return FE_SUCCESS;
}

int fe_partition_create(const struct fe_mesh *m, int n_parts, struct fe_partition **out)
{
  *out = NULL;
  FE_CHECK(n_parts >= 1 && n_parts <= m->n_cells, FE_ERR_INPUT,
           "the mesh %s has %ld cells: it cannot be cut into %d parts; expected 1 to %ld "
           "processes",
           m->path, (long)m->n_cells, n_parts, (long)m->n_cells);
  struct fe_partition *p;
  FE_CALLOC(1, &p);
  *p = (struct fe_partition){.n_parts = n_parts, .n_cells = m->n_cells, .n_nodes = m->n_nodes};
  int err = fe_calloc((size_t)m->n_cells + 1, sizeof *p->cell_part, &p->cell_part);
  if (!err) err = fe_malloc(((size_t)m->n_nodes + 1) * sizeof *p->node_owner, &p->node_owner);
  if (!err && n_parts > 1) err = metis_parts(m, n_parts, p->cell_part);
  if (!err) err = check_parts(m, p);
  if (err) {
    fe_partition_destroy(p);
    return err;
  }
  node_owners(m, p->cell_part, p->node_owner);
  *out = p;
  return FE_SUCCESS;
}

void fe_partition_destroy(struct fe_partition *p)
{
  if (!p) return;
  free(p->cell_part);
  free(p->node_owner);
  free(p);
}

/* mark[n]: 1 for the nodes of part r's cells; *near: 1 for the parts with a cell on a node r
 * owns. */
static void mark_nodes(const struct fe_partition *p, const struct fe_mesh *m, int r,
                       unsigned char *mark, unsigned char *near)
{
  for (long c = 0; c < m->n_cells; c++)
    for (int v = 0; v < m->nv; v++) {
      const int n = m->cells[c * m->nv + v];
      if (p->cell_part[c] == r) mark[n] = 1;
      if (p->cell_part[c] != r && p->node_owner[n] == r) near[p->cell_part[c]] = 1;
    }
}

/* The part's nodes: owned ascending, then the ghosts by owner; its neighbours and their ghost
 * groups. */
static int number_nodes(const struct fe_partition *p, const struct fe_mesh *m, int r,
                        const unsigned char *mark, unsigned char *near, struct fe_part *part)
{
  long *per_owner;
  FE_CALLOC(p->n_parts + 1, &per_owner);
  long total = 0;
  for (long n = 0; n < m->n_nodes; n++)
    if (mark[n]) {
      total++;
      per_owner[p->node_owner[n] + 1]++;
      if (p->node_owner[n] != r) near[p->node_owner[n]] = 1;
    }
  part->n_owned = per_owner[r + 1];
  part->n_ghost = total - part->n_owned;
  /* start of each owner's group: r's own first, then the others in order */
  long *next;
  int err = fe_calloc((size_t)p->n_parts + 1, sizeof *next, &next);
  long at = part->n_owned;
  for (int q = 0; !err && q < p->n_parts; q++) {
    next[q] = q == r ? 0 : at;
    if (q != r) at += per_owner[q + 1];
  }
  if (!err) err = fe_malloc((size_t)total * sizeof *part->nodes + 1, &part->nodes);
  for (long n = 0; !err && n < m->n_nodes; n++)
    if (mark[n]) part->nodes[next[p->node_owner[n]]++] = (int)n;
  part->n_neighbours = 0;
  for (int q = 0; q < p->n_parts; q++) part->n_neighbours += near[q] && q != r;
  if (!err)
    err = fe_malloc((size_t)part->n_neighbours * sizeof *part->neighbours + 1, &part->neighbours);
  if (!err)
    err = fe_calloc((size_t)part->n_neighbours + 1, sizeof *part->ghost_ptr, &part->ghost_ptr);
  for (int q = 0, k = 0; !err && q < p->n_parts; q++) {
    if (!near[q] || q == r) continue;
    part->neighbours[k] = q;
    part->ghost_ptr[k + 1] = part->ghost_ptr[k] + (int)per_owner[q + 1];
    k++;
  }
  free(per_owner);
  free(next);
  return err;
}

int fe_partition_part(const struct fe_partition *p, const struct fe_mesh *m, int r,
                      struct fe_part *part)
{
  *part = (struct fe_part){.rank = r};
  FE_CHECK(r >= 0 && r < p->n_parts, FE_ERR_USAGE, "part %d of a partition into %d", r, p->n_parts);
  unsigned char *mark = NULL, *near = NULL;
  int err = fe_calloc((size_t)m->n_nodes + 1, 1, &mark);
  if (!err) err = fe_calloc((size_t)p->n_parts + 1, 1, &near);
  if (!err) {
    mark_nodes(p, m, r, mark, near);
    for (long c = 0; c < m->n_cells; c++) part->n_cells += p->cell_part[c] == r;
    err = fe_malloc((size_t)part->n_cells * sizeof *part->cells + 1, &part->cells);
  }
  for (long c = 0, k = 0; !err && c < m->n_cells; c++)
    if (p->cell_part[c] == r) part->cells[k++] = (int)c;
  if (!err) err = number_nodes(p, m, r, mark, near, part);
  free(mark);
  free(near);
  if (err) fe_part_free(part);
  return err;
}

void fe_part_free(struct fe_part *part)
{
  free(part->cells);
  free(part->nodes);
  free(part->neighbours);
  free(part->ghost_ptr);
  *part = (struct fe_part){.rank = part->rank};
}

int fe_partition_print(const struct fe_partition *p, const struct fe_mesh *m, FILE *f)
{
  long most = 0, ghosts = 0;
  for (int r = 0; r < p->n_parts; r++) {
    struct fe_part part;
    FE_CALL(fe_partition_part(p, m, r, &part));
    fprintf(f, "part      %d: %ld cells, %ld owned nodes, %ld ghost nodes, neighbours", r,
            part.n_cells, part.n_owned, part.n_ghost);
    for (int k = 0; k < part.n_neighbours; k++) fprintf(f, " %d", part.neighbours[k]);
    fprintf(f, "%s\n", part.n_neighbours ? "" : " none");
    most = part.n_cells > most ? part.n_cells : most;
    ghosts += part.n_ghost;
    fe_part_free(&part);
  }
  const double mean = (double)m->n_cells / p->n_parts;
  fprintf(f,
          "partition %d parts by METIS (dual graph of shared %s, seed %d): imbalance %.3f (most "
          "cells %ld, mean %.1f), %ld ghost nodes in all (%.2f %% of the %ld nodes)\n",
          p->n_parts, m->dim == 2 ? "edges" : "faces", METIS_SEED, most / mean, most, mean, ghosts,
          100.0 * (double)ghosts / (double)m->n_nodes, (long)m->n_nodes);
  return FE_SUCCESS;
}
