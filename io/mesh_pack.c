#include "io/mesh_pack.h"

#include <stdlib.h>

#include "core/error.h"

void fe_mesh_pack_write(struct fe_pack *p, const struct fe_mesh *m)
{
  const int counts[] = {m->dim, m->nv, m->n_nodes, m->n_cells, m->n_facets, m->n_groups,
                        m->n_aliased, m->n_links};
  fe_pack_put(p, counts, sizeof counts);
  fe_pack_put_text(p, m->path);
  const size_t nn = (size_t)m->n_nodes, nc = (size_t)m->n_cells, nf = (size_t)m->n_facets;
  fe_pack_put_array(p, m->coords, nn * m->dim, sizeof *m->coords);
  fe_pack_put_array(p, m->node_id, nn, sizeof *m->node_id);
  fe_pack_put_array(p, m->cells, nc * m->nv, sizeof *m->cells);
  fe_pack_put_array(p, m->cell_region, nc, sizeof *m->cell_region);
  fe_pack_put_array(p, m->cell_id, nc, sizeof *m->cell_id);
  fe_pack_put_array(p, m->facets, nf * m->dim, sizeof *m->facets);
  fe_pack_put_array(p, m->facet_group, nf, sizeof *m->facet_group);
  fe_pack_put_array(p, m->facet_id, nf, sizeof *m->facet_id);
  fe_pack_put_array(p, m->facet_cells, nf, sizeof *m->facet_cells);
  for (int g = 0; g < m->n_groups; g++) {
    const int dt[2] = {m->groups[g].dim, m->groups[g].tag};
    fe_pack_put(p, dt, sizeof dt);
    fe_pack_put_text(p, m->groups[g].name);
  }
  fe_pack_put_array(p, m->alias_of, (size_t)m->n_aliased, sizeof *m->alias_of);
  fe_pack_put_array(p, m->links, (size_t)m->n_links, sizeof *m->links);
  fe_pack_put_array(p, m->facet_link, nf, sizeof *m->facet_link);
  /* a part's (io/partition.h): NULL and 0 for a whole mesh */
  const int nb = m->n_neighbours, part[] = {m->n_ghost, nb};
  fe_pack_put(p, part, sizeof part);
  fe_pack_put_array(p, m->global_node, nn, sizeof *m->global_node);
  fe_pack_put_array(p, m->global_cell, nc, sizeof *m->global_cell);
  fe_pack_put_array(p, m->global_facet, nf, sizeof *m->global_facet);
  fe_pack_put_array(p, m->neighbours, (size_t)nb, sizeof *m->neighbours);
  fe_pack_put_array(p, m->send_ptr, (size_t)nb + 1, sizeof *m->send_ptr);
  fe_pack_put_array(p, m->send, m->send_ptr ? (size_t)m->send_ptr[nb] : 0, sizeof *m->send);
  fe_pack_put_array(p, m->recv_ptr, (size_t)nb + 1, sizeof *m->recv_ptr);
}

int fe_mesh_pack(const struct fe_mesh *m, unsigned char **bytes, size_t *size)
{
  struct fe_pack p = {0};
  fe_mesh_pack_write(&p, m); /* counted */
  FE_CALL(fe_malloc(p.at + 1, &p.out));
  *size = p.at;
  p.at = 0;
  fe_mesh_pack_write(&p, m);
  *bytes = p.out;
  return FE_SUCCESS;
}

static int read_mesh(struct fe_pack *p, struct fe_mesh *m)
{
  int counts[8] = {0};
  fe_pack_get(p, counts, sizeof counts);
  m->dim = counts[0], m->nv = counts[1], m->n_nodes = counts[2], m->n_cells = counts[3];
  m->n_facets = counts[4], m->n_groups = counts[5], m->n_aliased = counts[6], m->n_links = counts[7];
  for (int k = 0; k < 8; k++)
    if (counts[k] < 0 || (k < 2 && counts[k] > FE_MAX_NV)) p->over = 1;
  if (p->over) return FE_SUCCESS;
  FE_CALL(fe_pack_get_text(p, &m->path));
  const size_t nn = (size_t)m->n_nodes, nc = (size_t)m->n_cells, nf = (size_t)m->n_facets;
  FE_CALL(fe_pack_get_array(p, (void **)&m->coords, nn * m->dim, sizeof *m->coords));
  FE_CALL(fe_pack_get_array(p, (void **)&m->node_id, nn, sizeof *m->node_id));
  FE_CALL(fe_pack_get_array(p, (void **)&m->cells, nc * m->nv, sizeof *m->cells));
  FE_CALL(fe_pack_get_array(p, (void **)&m->cell_region, nc, sizeof *m->cell_region));
  FE_CALL(fe_pack_get_array(p, (void **)&m->cell_id, nc, sizeof *m->cell_id));
  FE_CALL(fe_pack_get_array(p, (void **)&m->facets, nf * m->dim, sizeof *m->facets));
  FE_CALL(fe_pack_get_array(p, (void **)&m->facet_group, nf, sizeof *m->facet_group));
  FE_CALL(fe_pack_get_array(p, (void **)&m->facet_id, nf, sizeof *m->facet_id));
  FE_CALL(fe_pack_get_array(p, (void **)&m->facet_cells, nf, sizeof *m->facet_cells));
  FE_CALL(fe_calloc((size_t)m->n_groups + 1, sizeof *m->groups, &m->groups));
  const int n_groups = m->n_groups;
  m->n_groups = 0; /* those read so far, for fe_mesh_destroy */
  for (int g = 0; g < n_groups && !p->over; g++) {
    int dt[2] = {0, 0};
    fe_pack_get(p, dt, sizeof dt);
    m->groups[g].dim = dt[0];
    m->groups[g].tag = dt[1];
    m->n_groups = g + 1;
    FE_CALL(fe_pack_get_text(p, &m->groups[g].name));
  }
  FE_CALL(fe_pack_get_array(p, (void **)&m->alias_of, (size_t)m->n_aliased, sizeof *m->alias_of));
  FE_CALL(fe_pack_get_array(p, (void **)&m->links, (size_t)m->n_links, sizeof *m->links));
  FE_CALL(fe_pack_get_array(p, (void **)&m->facet_link, nf, sizeof *m->facet_link));
  int part[2] = {0, 0};
  fe_pack_get(p, part, sizeof part);
  m->n_ghost = part[0], m->n_neighbours = part[1];
  if (part[0] < 0 || part[0] > m->n_nodes || part[1] < 0) p->over = 1;
  if (p->over) return FE_SUCCESS;
  const size_t nb = (size_t)m->n_neighbours;
  FE_CALL(fe_pack_get_array(p, (void **)&m->global_node, nn, sizeof *m->global_node));
  FE_CALL(fe_pack_get_array(p, (void **)&m->global_cell, nc, sizeof *m->global_cell));
  FE_CALL(fe_pack_get_array(p, (void **)&m->global_facet, nf, sizeof *m->global_facet));
  FE_CALL(fe_pack_get_array(p, (void **)&m->neighbours, nb, sizeof *m->neighbours));
  FE_CALL(fe_pack_get_array(p, (void **)&m->send_ptr, nb + 1, sizeof *m->send_ptr));
  if (p->over) return FE_SUCCESS;
  const int sent = m->send_ptr ? m->send_ptr[nb] : 0;
  if (sent < 0) p->over = 1;
  FE_CALL(fe_pack_get_array(p, (void **)&m->send, (size_t)(sent < 0 ? 0 : sent), sizeof *m->send));
  return fe_pack_get_array(p, (void **)&m->recv_ptr, nb + 1, sizeof *m->recv_ptr);
}

int fe_mesh_pack_read(struct fe_pack *p, struct fe_mesh **out)
{
  *out = NULL;
  struct fe_mesh *m;
  FE_CALLOC(1, &m);
  const size_t start = p->at;
  int err = read_mesh(p, m);
  if (!err && (p->over || !m->coords || !m->cells || !m->cell_region || !m->path))
    err = fe_error_raise(FE_ERR_USAGE, __FILE__, __LINE__, "a packed mesh of %zu bytes %s",
                         p->size - start,
                         p->over ? "ends early" : "does not hold the fields of a mesh");
  if (err) {
    fe_mesh_destroy(m);
    return err;
  }
  *out = m;
  return FE_SUCCESS;
}

int fe_mesh_unpack(const unsigned char *bytes, size_t size, struct fe_mesh **out)
{
  struct fe_pack p = {.in = bytes, .size = size};
  FE_CALL(fe_mesh_pack_read(&p, out));
  if (p.at == size) return FE_SUCCESS;
  fe_mesh_destroy(*out);
  *out = NULL;
  FE_RAISE(FE_ERR_USAGE, "a packed mesh of %zu bytes does not hold the fields of a mesh", size);
}
