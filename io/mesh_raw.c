#include "io/mesh_raw.h"

#include "core/error.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char magic[8] = "femesh2";

enum { MAX_GROUP_NAME = 4096, MAX_LINKS = 1 << 20 };

void fe_mesh_raw_free(struct fe_mesh_raw *r)
{
  free(r->node_tags);
  free(r->xyz);
  free(r->cells);
  free(r->cell_id);
  free(r->cell_region);
  free(r->cell_entity);
  free(r->facets);
  free(r->facet_id);
  free(r->facet_group);
  free(r->facet_entity);
  free(r->link);
  free(r->link_affine);
  free(r->pair);
  for (int i = 0; i < r->n_groups; i++) free(r->groups[i].name);
  free(r->groups);
  memset(r, 0, sizeof *r);
}

int fe_mesh_raw_arrays(struct fe_mesh_raw *r, void **where, size_t *bytes, int max)
{
  const size_t nv = (size_t)r->dim + 1, nf = (size_t)r->dim;
  const size_t nl = (size_t)r->n_links;
  void *w[] = {r->node_tags,   r->xyz,         r->cells,    r->cell_id,     r->cell_region,
               r->cell_entity, r->facets,      r->facet_id, r->facet_group, r->facet_entity,
               r->link,        r->link_affine, r->pair};
  const size_t b[] = {r->n_nodes * sizeof(size_t),    r->n_nodes * 3 * sizeof(double),
                      r->n_cells * nv * sizeof(int),  r->n_cells * sizeof(size_t),
                      r->n_cells * sizeof(int),       r->n_cells * sizeof(int),
                      r->n_facets * nf * sizeof(int), r->n_facets * sizeof(size_t),
                      r->n_facets * sizeof(int),      r->n_facets * sizeof(int),
                      nl * 4 * sizeof(int),           nl * 16 * sizeof(double),
                      r->n_pairs * 3 * sizeof(int)};
  const int n = (int)(sizeof b / sizeof *b);
  for (int i = 0; i < n && i < max; i++) {
    where[i] = w[i];
    bytes[i] = b[i];
  }
  return n;
}

static int write_all(int fd, const void *data, size_t n)
{
  const char *p = data;
  while (n > 0) {
    ssize_t k = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
    if (k < 0 && errno == EINTR) continue;
    FE_CHECK(k > 0, FE_ERR_RESOURCE, "cannot hand the mesh to fesim: %s", strerror(errno));
    p += k;
    n -= (size_t)k;
  }
  return FE_SUCCESS;
}

int fe_mesh_raw_write(int fd, const struct fe_mesh_raw *r)
{
  struct fe_mesh_raw_header h = {.dim = (uint32_t)r->dim,
                                 .n_groups = (uint32_t)r->n_groups,
                                 .n_nodes = r->n_nodes,
                                 .n_cells = r->n_cells,
                                 .n_facets = r->n_facets,
                                 .n_links = (uint32_t)r->n_links,
                                 .n_pairs = r->n_pairs};
  memcpy(h.magic, magic, sizeof magic);
  for (int i = 0; i < r->n_groups; i++)
    h.groups_bytes += 3 * sizeof(int32_t) + strlen(r->groups[i].name);
  FE_CALL(write_all(fd, &h, sizeof h));
  void *where[16];
  size_t bytes[16];
  const int n = fe_mesh_raw_arrays((struct fe_mesh_raw *)r, where, bytes, 16);
  for (int i = 0; i < n; i++) FE_CALL(write_all(fd, where[i], bytes[i]));
  for (int i = 0; i < r->n_groups; i++) {
    const int32_t len = (int32_t)strlen(r->groups[i].name);
    const int32_t v[3] = {r->groups[i].dim, r->groups[i].tag, len};
    FE_CALL(write_all(fd, v, sizeof v));
    FE_CALL(write_all(fd, r->groups[i].name, (size_t)len));
  }
  return FE_SUCCESS;
}

#define STREAM_CHECK(cond, ...)                                                                    \
  FE_CHECK(cond, FE_ERR_INPUT, "%s: the meshing process sent an invalid mesh: " __VA_ARGS__)

int fe_mesh_raw_begin(const char *path, const struct fe_mesh_raw_header *h, size_t max_cells,
                      struct fe_mesh_raw *r)
{
  memset(r, 0, sizeof *r);
  STREAM_CHECK(!memcmp(h->magic, magic, sizeof magic), "bad header", path);
  STREAM_CHECK(h->dim == 2 || h->dim == 3, "dimension %u", path, h->dim);
  STREAM_CHECK(h->n_nodes > 0 && h->n_nodes < INT_MAX, "%llu nodes", path,
               (unsigned long long)h->n_nodes);
  STREAM_CHECK(h->n_cells > 0 && h->n_cells <= max_cells && h->n_cells < INT_MAX, "%llu cells",
               path, (unsigned long long)h->n_cells);
  STREAM_CHECK(h->n_facets < INT_MAX / 4, "%llu facets", path, (unsigned long long)h->n_facets);
  STREAM_CHECK(
      h->n_groups <= 1u << 20 && h->groups_bytes <= (uint64_t)h->n_groups * (12 + MAX_GROUP_NAME),
      "%u physical groups in %llu bytes", path, h->n_groups, (unsigned long long)h->groups_bytes);
  STREAM_CHECK(h->n_links <= MAX_LINKS && h->n_pairs <= 16 * h->n_nodes && h->n_pairs < INT_MAX / 4,
               "%u periodic links with %llu node pairs", path, h->n_links,
               (unsigned long long)h->n_pairs);
  r->dim = (int)h->dim;
  r->n_nodes = h->n_nodes;
  r->n_links = (int)h->n_links;
  r->n_pairs = h->n_pairs;
  r->n_cells = h->n_cells;
  r->n_facets = h->n_facets;
  const size_t nv = (size_t)r->dim + 1;
  int err = fe_malloc(r->n_nodes * sizeof *r->node_tags, &r->node_tags);
  if (!err) err = fe_malloc(r->n_nodes * 3 * sizeof *r->xyz, &r->xyz);
  if (!err) err = fe_malloc(r->n_cells * nv * sizeof *r->cells, &r->cells);
  if (!err) err = fe_malloc(r->n_cells * sizeof *r->cell_id, &r->cell_id);
  if (!err) err = fe_malloc(r->n_cells * sizeof *r->cell_region, &r->cell_region);
  if (!err) err = fe_malloc(r->n_cells * sizeof *r->cell_entity, &r->cell_entity);
  if (!err) err = fe_malloc(r->n_facets * (size_t)r->dim * sizeof *r->facets, &r->facets);
  if (!err) err = fe_malloc(r->n_facets * sizeof *r->facet_id, &r->facet_id);
  if (!err) err = fe_malloc(r->n_facets * sizeof *r->facet_group, &r->facet_group);
  if (!err) err = fe_malloc(r->n_facets * sizeof *r->facet_entity, &r->facet_entity);
  if (!err) err = fe_malloc((size_t)r->n_links * 4 * sizeof *r->link, &r->link);
  if (!err) err = fe_malloc((size_t)r->n_links * 16 * sizeof *r->link_affine, &r->link_affine);
  if (!err) err = fe_malloc(r->n_pairs * 3 * sizeof *r->pair, &r->pair);
  if (!err && h->n_groups) err = fe_calloc(h->n_groups, sizeof *r->groups, &r->groups);
  return err;
}

static int check_indices(const char *path, const char *what, const int *v, size_t n, size_t limit)
{
  for (size_t k = 0; k < n; k++)
    STREAM_CHECK(v[k] >= 0 && (size_t)v[k] < limit, "%s refer to node position %d of %zu", path,
                 what, v[k], limit);
  return FE_SUCCESS;
}

/* Links of entities of a lower dimension than the cells', pairs of nodes of the list and of a
 * link. */
static int check_periodic(const char *path, const struct fe_mesh_raw *r)
{
  for (int l = 0; l < r->n_links; l++)
    STREAM_CHECK(r->link[4 * l] >= 0 && r->link[4 * l] < r->dim, "periodic link %d of dimension %d",
                 path, l, r->link[4 * l]);
  for (size_t k = 0; k < r->n_pairs; k++) {
    const int *p = r->pair + 3 * k;
    STREAM_CHECK(p[0] >= 0 && (size_t)p[0] < r->n_nodes && p[1] >= 0 && (size_t)p[1] < r->n_nodes &&
                     p[2] >= 0 && p[2] < r->n_links,
                 "periodic pair %zu refers to nodes %d and %d of %zu, link %d of %d", path, k, p[0],
                 p[1], r->n_nodes, p[2], r->n_links);
  }
  return FE_SUCCESS;
}

static int read_groups(const char *path, const char *blob, size_t bytes, int n,
                       struct fe_mesh_raw *r)
{
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    int32_t v[3];
    STREAM_CHECK(bytes - at >= sizeof v, "the physical groups end early", path);
    memcpy(v, blob + at, sizeof v);
    at += sizeof v;
    STREAM_CHECK((v[0] == r->dim || v[0] == r->dim - 1) && v[2] >= 0 && v[2] <= MAX_GROUP_NAME &&
                     (size_t)v[2] <= bytes - at,
                 "physical group %d of dimension %d with a name of %d bytes", path, v[1], v[0],
                 v[2]);
    struct fe_physical *g = &r->groups[i];
    FE_CALL(fe_malloc((size_t)v[2] + 1, &g->name));
    r->n_groups = i + 1;
    memcpy(g->name, blob + at, (size_t)v[2]);
    g->name[v[2]] = '\0';
    STREAM_CHECK(strlen(g->name) == (size_t)v[2], "a physical name holds a NUL byte", path);
    g->dim = v[0];
    g->tag = v[1];
    at += (size_t)v[2];
  }
  STREAM_CHECK(at == bytes, "%zu bytes after the physical groups", path, bytes - at);
  return FE_SUCCESS;
}

int fe_mesh_raw_finish(const char *path, const struct fe_mesh_raw_header *h, const char *groups,
                       struct fe_mesh_raw *r)
{
  FE_CALL(check_indices(path, "cells", r->cells, r->n_cells * (size_t)(r->dim + 1), r->n_nodes));
  FE_CALL(check_indices(path, "facets", r->facets, r->n_facets * (size_t)r->dim, r->n_nodes));
  FE_CALL(check_periodic(path, r));
  return read_groups(path, groups, (size_t)h->groups_bytes, (int)h->n_groups, r);
}
