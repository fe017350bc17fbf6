#include "io/partition.h"

#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

enum { METIS_SEED = 20261126 }; /* any fixed value: the same parts at every run */

/* The cells' parts by METIS_PartMeshDual: cells are neighbours where they share a facet (dim
 * nodes: unknowns, so across a periodic boundary too), the cut (shared facets) minimised, the
 * parts balanced by cell count. */
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
    for (long k = 0; k < (long)ne * m->nv; k++) eind[k] = (idx_t)fe_mesh_owner(m, m->cells[k]);
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

/* Each node's owner: the lowest part among its cells', or on a periodic mesh among the cells
 * at every copy of its unknown (every copy the same). */
static void node_owners(const struct fe_mesh *m, const int *cell_part, int *owner)
{
  for (long n = 0; n < m->n_nodes; n++) owner[n] = -1;
  for (long c = 0; c < m->n_cells; c++)
    for (int v = 0; v < m->nv; v++) {
      int *o = &owner[m->cells[c * m->nv + v]];
      if (*o < 0 || cell_part[c] < *o) *o = cell_part[c];
    }
  const int unknowns = fe_mesh_n_unknowns(m);
  for (int n = unknowns; n < m->n_nodes; n++) {
    int *o = &owner[fe_mesh_owner(m, n)];
    if (*o < 0 || (owner[n] >= 0 && owner[n] < *o)) *o = owner[n];
  }
  for (int n = unknowns; n < m->n_nodes; n++) owner[n] = owner[fe_mesh_owner(m, n)];
}

/* The first part r < n_parts that no item's part_of[i] (i < n) names, in *none; -1 for none. */
static int first_unnamed(long n, const int *part_of, int n_parts, int *none)
{
  long *count;
  FE_CALLOC(n_parts, &count);
  for (long i = 0; i < n; i++)
    if (part_of[i] >= 0) count[part_of[i]]++;
  *none = -1;
  for (int r = 0; r < n_parts && *none < 0; r++)
    if (!count[r]) *none = r;
  free(count);
  return FE_SUCCESS;
}

/* Every part has cells (METIS may leave one empty on a small mesh) and owns a node, an unknown
 * (a part whose cells' nodes lower parts own all would hold no cell and no vector entry: a
 * small mesh on many processes, a periodic one sooner, as an unknown goes to the lowest part at
 * any of its copies). */
static int check_parts(const struct fe_mesh *m, const struct fe_partition *p)
{
  int empty, unowned;
  FE_CALL(first_unnamed(m->n_cells, p->cell_part, p->n_parts, &empty));
  FE_CHECK(empty < 0, FE_ERR_INPUT,
           "the mesh %s (%ld cells) cut into %d parts leaves part %d without a cell; expected "
           "fewer processes for this mesh",
           m->path, (long)m->n_cells, p->n_parts, empty);
  FE_CALL(first_unnamed(fe_mesh_n_unknowns(m), p->node_owner, p->n_parts, &unowned));
  FE_CHECK(unowned < 0, FE_ERR_INPUT,
           "the mesh %s (%ld cells) cut into %d parts leaves part %d without a node of its own "
           "(lower parts own every node of its cells); expected fewer processes for this mesh",
           m->path, (long)m->n_cells, p->n_parts, unowned);
  return FE_SUCCESS;
}

/* 1 when cell c has a node that part r owns. */
static int touches(const struct fe_partition *p, const struct fe_mesh *m, long c, int r)
{
  for (int v = 0; v < m->nv; v++)
    if (p->node_owner[m->cells[c * m->nv + v]] == r) return 1;
  return 0;
}

/* The parts that own a node of cell c, each once (at most nv of them), in *n. */
static void owners_of(const struct fe_partition *p, const struct fe_mesh *m, long c, int *parts,
                      int *n)
{
  *n = 0;
  for (int v = 0; v < m->nv; v++) {
    const int r = p->node_owner[m->cells[c * m->nv + v]];
    int seen = 0;
    for (int k = 0; k < *n; k++) seen |= parts[k] == r;
    if (!seen) parts[(*n)++] = r;
  }
}

/* Each part's cells (p->held, p->own) in one pass over the mesh's, counted then filled. */
static int hold_cells(const struct fe_mesh *m, struct fe_partition *p)
{
  const int np = p->n_parts;
  FE_CALLOC(np + 1, &p->held_ptr);
  FE_CALLOC(np + 1, &p->own);
  int parts[FE_MAX_NV], n;
  for (long c = 0; c < m->n_cells; c++) {
    owners_of(p, m, c, parts, &n);
    for (int k = 0; k < n; k++) p->held_ptr[parts[k] + 1]++;
    p->own[p->cell_part[c]]++;
  }
  for (int r = 0; r < np; r++) p->held_ptr[r + 1] += p->held_ptr[r];
  long *next;
  FE_MALLOC(np + 1, &next);
  memcpy(next, p->held_ptr, sizeof *next * (size_t)np);
  const int err = fe_malloc(((size_t)p->held_ptr[np] + 1) * sizeof *p->held, &p->held);
  for (long c = 0; !err && c < m->n_cells; c++) {
    owners_of(p, m, c, parts, &n);
    for (int k = 0; k < n; k++) p->held[next[parts[k]]++] = (int)c;
  }
  free(next);
  return err;
}

/* A partition of m into n_parts parts, its arrays allocated, every cell in part 0. */
static int allocate(const struct fe_mesh *m, int n_parts, struct fe_partition **out)
{
  FE_CHECK(n_parts >= 1 && n_parts <= m->n_cells, FE_ERR_INPUT,
           "the mesh %s has %ld cells: it cannot be cut into %d parts; expected 1 to %ld "
           "processes",
           m->path, (long)m->n_cells, n_parts, (long)m->n_cells);
  struct fe_partition *p;
  FE_CALLOC(1, &p);
  *p = (struct fe_partition){.n_parts = n_parts, .n_cells = m->n_cells, .n_nodes = m->n_nodes};
  int err = fe_calloc((size_t)m->n_cells + 1, sizeof *p->cell_part, &p->cell_part);
  if (!err) err = fe_malloc(((size_t)m->n_nodes + 1) * sizeof *p->node_owner, &p->node_owner);
  if (err) {
    fe_partition_destroy(p);
    return err;
  }
  *out = p;
  return FE_SUCCESS;
}

int fe_partition_create(const struct fe_mesh *m, int n_parts, struct fe_partition **out)
{
  *out = NULL;
  struct fe_partition *p = NULL;
  FE_CALL(allocate(m, n_parts, &p));
  int err = n_parts > 1 ? metis_parts(m, n_parts, p->cell_part) : FE_SUCCESS;
  if (!err) node_owners(m, p->cell_part, p->node_owner);
  if (!err) err = check_parts(m, p);
  if (!err) err = hold_cells(m, p);
  if (err) {
    fe_partition_destroy(p);
    return err;
  }
  *out = p;
  return FE_SUCCESS;
}

void fe_partition_destroy(struct fe_partition *p)
{
  if (!p) return;
  free(p->cell_part);
  free(p->node_owner);
  free(p->held_ptr);
  free(p->own);
  free(p->held);
  free(p);
}

/* mark[n]: 1 for the nodes of the part's cells (those at a node it owns), and on a periodic
 * mesh for the node that holds the unknown of each (a copy's values come from it). */
static void mark_nodes(const struct fe_mesh *m, const struct fe_part *part, unsigned char *mark)
{
  for (long k = 0; k < part->n_cells; k++)
    for (int v = 0; v < m->nv; v++) {
      const int n = m->cells[(long)part->cells[k] * m->nv + v];
      mark[n] = mark[fe_mesh_owner(m, n)] = 1;
    }
}

/* The part's nodes: owned ascending, then the ghosts by owner, then the aliased copies of a
 * periodic mesh ascending; its neighbours (near: the owners of its ghosts, which are the parts
 * that hold one of its nodes as a ghost: a cell at a node of each, or at a copy of its unknown,
 * holds both) and their ghost groups. */
static int number_nodes(const struct fe_partition *p, const struct fe_mesh *m, int r,
                        const unsigned char *mark, unsigned char *near, struct fe_part *part)
{
  long *per_owner;
  FE_CALLOC(p->n_parts + 1, &per_owner);
  const long unknowns = fe_mesh_n_unknowns(m);
  long total = 0;
  part->n_aliased = 0;
  for (long n = 0; n < m->n_nodes; n++)
    if (mark[n] && n >= unknowns) {
      part->n_aliased++;
    } else if (mark[n]) {
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
  if (!err)
    err = fe_malloc((size_t)(total + part->n_aliased) * sizeof *part->nodes + 1, &part->nodes);
  for (long n = 0, copy = total; !err && n < m->n_nodes; n++)
    if (mark[n]) part->nodes[n >= unknowns ? copy++ : next[p->node_owner[n]]++] = (int)n;
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
  part->n_cells = p->held_ptr[r + 1] - p->held_ptr[r];
  part->n_own_cells = p->own[r];
  int err = fe_calloc((size_t)m->n_nodes + 1, 1, &mark);
  if (!err) err = fe_calloc((size_t)p->n_parts + 1, 1, &near);
  if (!err) err = fe_malloc((size_t)part->n_cells * sizeof *part->cells + 1, &part->cells);
  if (!err) {
    memcpy(part->cells, p->held + p->held_ptr[r], (size_t)part->n_cells * sizeof *part->cells);
    mark_nodes(m, part, mark);
    err = number_nodes(p, m, r, mark, near, part);
  }
  free(mark);
  free(near);
  if (err) fe_part_free(part);
  return err;
}

/* The sends of part r: to neighbour k the nodes r owns in the cells at a node k owns, or that
 * hold the unknown of a copy there (k's ghosts owned by r), ascending, as local indices of r
 * (its owned nodes are ascending).  Such a cell has a node of r's, so it is one of r's cells:
 * only those are looked at, and only r's owned nodes marked (and cleared after each
 * neighbour), so that a part costs its own cells, not the mesh's. */
static int sends(const struct fe_partition *p, const struct fe_mesh *m, const struct fe_part *part,
                 int **send_ptr, int **send)
{
  const int nb = part->n_neighbours;
  unsigned char *mark = NULL;
  int err = fe_calloc((size_t)m->n_nodes + 1, 1, &mark);
  if (!err) err = fe_calloc((size_t)nb + 1, sizeof **send_ptr, send_ptr);
  for (int pass = 0; pass < 2 && !err; pass++) { /* count, then fill */
    for (int k = 0; k < nb; k++) {
      const int q = part->neighbours[k];
      for (long j = 0; j < part->n_cells; j++) {
        const long c = part->cells[j];
        if (touches(p, m, c, q))
          for (int v = 0; v < m->nv; v++) {
            const int n = fe_mesh_owner(m, m->cells[c * m->nv + v]);
            if (p->node_owner[n] == part->rank) mark[n] = 1;
          }
      }
      long at = pass ? (*send_ptr)[k] : 0;
      for (long i = 0; i < part->n_owned; i++) /* owned: ascending in mesh order */
        if (mark[part->nodes[i]]) {
          mark[part->nodes[i]] = 0;
          if (pass) (*send)[at] = (int)i;
          at++;
        }
      if (!pass) (*send_ptr)[k + 1] = (*send_ptr)[k] + (int)at;
    }
    if (!pass) err = fe_malloc(((size_t)(*send_ptr)[nb] + 1) * sizeof **send, send);
  }
  free(mark);
  return err;
}

/* The mesh's facets with every node in part r, as local indices (global: n_nodes entries of
 * the local index of each mesh node, -1 where absent). */
static int part_facets(const struct fe_mesh *m, const int *local, struct fe_mesh *pm)
{
  const int fv = m->dim;
  int n = 0;
  for (int f = 0; f < m->n_facets; f++) {
    int in = 1;
    for (int v = 0; v < fv; v++) in &= local[m->facets[(long)f * fv + v]] >= 0;
    n += in;
  }
  pm->n_facets = n;
  FE_MALLOC((long)n * fv + 1, &pm->facets);
  FE_MALLOC(n + 1, &pm->facet_group);
  FE_MALLOC(n + 1, &pm->global_facet);
  if (m->facet_id) FE_MALLOC(n + 1, &pm->facet_id);
  if (m->facet_cells) FE_MALLOC(n + 1, &pm->facet_cells);
  if (m->facet_link) FE_MALLOC(n + 1, &pm->facet_link);
  for (int f = 0, k = 0; f < m->n_facets; f++) {
    int in = 1;
    for (int v = 0; v < fv; v++) in &= local[m->facets[(long)f * fv + v]] >= 0;
    if (!in) continue;
    for (int v = 0; v < fv; v++) pm->facets[(long)k * fv + v] = local[m->facets[(long)f * fv + v]];
    pm->facet_group[k] = m->facet_group[f];
    pm->global_facet[k] = f;
    if (m->facet_id) pm->facet_id[k] = m->facet_id[f];
    if (m->facet_cells) pm->facet_cells[k] = m->facet_cells[f];
    if (m->facet_link) pm->facet_link[k] = m->facet_link[f];
    k++;
  }
  return FE_SUCCESS;
}

/* The periodic links of m, which the part's facets name (facet_link). */
static int part_links(const struct fe_mesh *m, struct fe_mesh *pm)
{
  if (!m->n_links) return FE_SUCCESS;
  FE_MALLOC(m->n_links, &pm->links);
  memcpy(pm->links, m->links, sizeof *m->links * (size_t)m->n_links);
  pm->n_links = m->n_links;
  return FE_SUCCESS;
}

/* The nodes, cells and physical groups of part r as a mesh. */
static int part_entities(const struct fe_mesh *m, const struct fe_part *part, const int *local,
                         struct fe_mesh *pm)
{
  const long n = part->n_owned + part->n_ghost + part->n_aliased;
  *pm = (struct fe_mesh){.dim = m->dim, .nv = m->nv, .n_nodes = (int)n,
                         .n_cells = (int)part->n_cells, .n_ghost = (int)part->n_ghost,
                         .n_aliased = (int)part->n_aliased};
  FE_CALL(fe_strdup(m->path, &pm->path));
  FE_MALLOC(n * m->dim + 1, &pm->coords);
  FE_MALLOC(n + 1, &pm->global_node);
  if (m->node_id) FE_MALLOC(n + 1, &pm->node_id);
  for (long i = 0; i < n; i++) {
    const int g = part->nodes[i];
    memcpy(pm->coords + i * m->dim, m->coords + (long)g * m->dim, sizeof(double) * (size_t)m->dim);
    pm->global_node[i] = g;
    if (m->node_id) pm->node_id[i] = m->node_id[g];
  }
  if (part->n_aliased) FE_MALLOC(part->n_aliased, &pm->alias_of); /* 0 and NULL: none */
  for (long k = 0; k < part->n_aliased; k++)
    pm->alias_of[k] = local[fe_mesh_owner(m, part->nodes[n - part->n_aliased + k])];
  FE_MALLOC(part->n_cells * m->nv + 1, &pm->cells);
  FE_MALLOC(part->n_cells + 1, &pm->cell_region);
  FE_MALLOC(part->n_cells + 1, &pm->global_cell);
  if (m->cell_id) FE_MALLOC(part->n_cells + 1, &pm->cell_id);
  for (long k = 0; k < part->n_cells; k++) {
    const long c = part->cells[k];
    for (int v = 0; v < m->nv; v++) pm->cells[k * m->nv + v] = local[m->cells[c * m->nv + v]];
    pm->cell_region[k] = m->cell_region[c];
    pm->global_cell[k] = (int)c;
    if (m->cell_id) pm->cell_id[k] = m->cell_id[c];
  }
  FE_CALLOC(m->n_groups + 1, &pm->groups);
  for (int g = 0; g < m->n_groups; g++) {
    pm->groups[g] = m->groups[g];
    pm->groups[g].name = NULL;
    pm->n_groups = g + 1;
    FE_CALL(fe_strdup(m->groups[g].name, &pm->groups[g].name));
  }
  FE_CALL(part_links(m, pm));
  return part_facets(m, local, pm);
}

int fe_partition_mesh(const struct fe_partition *p, const struct fe_mesh *m, int r,
                      struct fe_mesh **out)
{
  *out = NULL;
  struct fe_part part;
  FE_CALL(fe_partition_part(p, m, r, &part));
  struct fe_mesh *pm = NULL;
  int *local = NULL;
  int err = fe_calloc(1, sizeof *pm, &pm);
  if (!err) err = fe_malloc(((size_t)m->n_nodes + 1) * sizeof *local, &local);
  if (!err) {
    for (long i = 0; i < m->n_nodes; i++) local[i] = -1;
    for (long i = 0; i < part.n_owned + part.n_ghost + part.n_aliased; i++)
      local[part.nodes[i]] = (int)i;
    err = part_entities(m, &part, local, pm);
  }
  if (!err) {
    pm->n_neighbours = part.n_neighbours;
    err = fe_malloc(((size_t)part.n_neighbours + 1) * sizeof(int), &pm->neighbours);
  }
  if (!err) {
    memcpy(pm->neighbours, part.neighbours, sizeof(int) * (size_t)part.n_neighbours);
    err = fe_malloc(((size_t)part.n_neighbours + 1) * sizeof(int), &pm->recv_ptr);
  }
  if (!err) {
    memcpy(pm->recv_ptr, part.ghost_ptr, sizeof(int) * ((size_t)part.n_neighbours + 1));
    err = sends(p, m, &part, &pm->send_ptr, &pm->send);
  }
  free(local);
  fe_part_free(&part);
  if (err) {
    fe_mesh_destroy(pm);
    return err;
  }
  *out = pm;
  return FE_SUCCESS;
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
    fprintf(f,
            "part      %d: %ld cells, %ld at its owned nodes, %ld owned nodes, %ld ghost nodes, ",
            r, part.n_own_cells, part.n_cells, part.n_owned, part.n_ghost);
    if (m->n_aliased) fprintf(f, "%ld periodic copies, ", part.n_aliased);
    fprintf(f, "neighbours");
    for (int k = 0; k < part.n_neighbours; k++) fprintf(f, " %d", part.neighbours[k]);
    fprintf(f, "%s\n", part.n_neighbours ? "" : " none");
    most = part.n_own_cells > most ? part.n_own_cells : most;
    ghosts += part.n_ghost;
    fe_part_free(&part);
  }
  const double mean = (double)m->n_cells / p->n_parts;
  fprintf(f,
          "partition %d parts by METIS (dual graph of shared %s, seed %d): imbalance %.3f (most "
          "cells %ld, mean %.1f), %ld ghost nodes in all (%.2f %% of the %ld %s)\n",
          p->n_parts, m->dim == 2 ? "edges" : "faces", METIS_SEED, most / mean, most, mean, ghosts,
          100.0 * (double)ghosts / (double)fe_mesh_n_unknowns(m),
          (long)fe_mesh_n_unknowns(m), m->n_aliased ? "unknowns" : "nodes");
  return FE_SUCCESS;
}
