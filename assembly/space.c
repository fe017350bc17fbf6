#include "assembly/space.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/kernels.h"
#include "assembly/reference.h"
#include "core/error.h"
#include "io/shares.h"
#include "solvers/halo.h"

/* Dirichlet bits of each cell, and the owner bit for the first cell (in the
 * incidence order) of each Dirichlet node. */
static void build_dmask(const struct fe_mesh *m, const unsigned char *isd, const int *ptr,
                        const int *inc, unsigned char *dmask)
{
  memset(dmask, 0, (size_t)m->n_cells);
  if (!isd) return;
#pragma omp parallel for schedule(static)
  for (long c = 0; c < m->n_cells; c++)
    for (int v = 0; v < m->nv; v++)
      if (isd[m->cells[c * m->nv + v]]) dmask[c] |= (unsigned char)(1u << v);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < m->n_nodes; n++)
    if (isd[n] && ptr[n + 1] > ptr[n]) {
      const int k = inc[ptr[n]];
#pragma omp atomic update
      dmask[k / m->nv] |= (unsigned char)(1u << (4 + k % m->nv));
    }
}

/* The items i of 0 .. n for which keep(i), ascending, into out (NULL: counted only), on every
 * thread; how many. */
static long kept(long n, int (*keep)(const void *, long), const void *arg, int *out)
{
  struct fe_shares s;
#pragma omp parallel num_threads(fe_shares_threads())
  {
    size_t lo, hi, count = 0;
    fe_share((size_t)n, &lo, &hi);
    for (size_t i = lo; i < hi; i++) count += keep(arg, (long)i) != 0;
    size_t at = fe_share_offset(&s, count);
    for (size_t i = lo; out && i < hi; i++)
      if (keep(arg, (long)i)) out[at++] = (int)i;
  }
  return (long)s.total;
}

static int is_dirichlet_node(const void *space, long n)
{
  return ((const struct fe_space *)space)->is_dirichlet_host[n] != 0;
}

static int is_boundary_cell(const void *dmask, long c)
{
  return (((const unsigned char *)dmask)[c] & 15u) != 0;
}

/* The lifting's lists (fe_space.lift_*): the nodes of the boundary cells (cells with a Dirichlet
 * vertex) that are no Dirichlet nodes, ascending (every copy of such an unknown): the rows the
 * lifting changes; and each one's terms, the Dirichlet vertices of its boundary cells in
 * incidence order, then vertex order (fe_node_lift). */
struct lift_lists {
  long n_nodes, n_terms;
  int *nodes, *ptr, *entry, *col;
};

/* The terms of node n (incidence ptr/inc), counted (out NULL) or written from position k on;
 * their number. */
static long lift_terms(const struct fe_mesh *m, const int *ptr, const int *inc,
                       const unsigned char *dmask, const int *bindex, int n, struct lift_lists *out,
                       long k)
{
  const int nv = m->nv;
  long terms = 0;
  for (int a = ptr[n]; a < ptr[n + 1]; a++) {
    const int c = inc[a] / nv, i = inc[a] % nv;
    const unsigned dm = dmask[c];
    if (!(dm & 15u) || ((dm >> i) & 1u)) continue;
    for (int j = 0; j < nv; j++) {
      if (!((dm >> j) & 1u)) continue;
      if (out) {
        out->entry[k + terms] = (int)fe_block_index(bindex[c], i * nv + j, nv * nv, FE_LIFT_SHIFT);
        out->col[k + terms] = m->cells[(long)c * nv + j];
      }
      terms++;
    }
  }
  return terms;
}

static int lift_lists(const struct fe_mesh *m, const struct fe_space *s, const int *ptr,
                      const int *inc, const unsigned char *dmask, const int *bindex,
                      struct lift_lists *l)
{
  FE_CHECK(s->n_bcells <= INT_MAX / s->nk, FE_ERR_RESOURCE,
           "%ld cells with a Dirichlet vertex: at most %d (the lifting's lists are int)",
           s->n_bcells, INT_MAX / s->nk);
  unsigned char *mark;
  FE_CALL(fe_calloc((size_t)m->n_nodes + 1, 1, &mark));
#pragma omp parallel for schedule(static)
  for (long c = 0; c < m->n_cells; c++)
    if (dmask[c] & 15u)
      for (int v = 0; v < m->nv; v++) {
        const int n = m->cells[c * m->nv + v];
        if (!s->is_dirichlet_host[n]) {
#pragma omp atomic write
          mark[fe_mesh_owner(m, n)] = 1;
        }
      }
#pragma omp parallel for schedule(static)
  for (int n = (int)s->n_owned; n < m->n_nodes; n++) mark[n] = mark[fe_mesh_owner(m, n)];
  /* the marked nodes in order, each share's nodes and terms counted, then written after the
   * shares before it */
  struct fe_shares nodes, terms;
  int err = FE_SUCCESS;
#pragma omp parallel num_threads(fe_shares_threads())
  {
    size_t lo, hi, count = 0, t = 0;
    fe_share((size_t)m->n_nodes, &lo, &hi);
    for (size_t n = lo; n < hi; n++)
      if (mark[n]) count++, t += (size_t)lift_terms(m, ptr, inc, dmask, bindex, (int)n, NULL, 0);
    size_t i = fe_share_offset(&nodes, count), k = fe_share_offset(&terms, t);
#pragma omp single
    {
      l->n_nodes = (long)nodes.total;
      l->n_terms = (long)terms.total;
      err = l->n_terms <= INT_MAX ? FE_SUCCESS
                                  : fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__,
                                                   "%ld terms in the lifting: at most %d (int)",
                                                   l->n_terms, INT_MAX);
      if (!err) err = fe_malloc((size_t)(l->n_nodes + 1) * sizeof(int), &l->nodes);
      if (!err) err = fe_malloc((size_t)(l->n_nodes + 1) * sizeof(int), &l->ptr);
      if (!err) err = fe_malloc((size_t)(l->n_terms + 1) * sizeof(int), &l->entry);
      if (!err) err = fe_malloc((size_t)(l->n_terms + 1) * sizeof(int), &l->col);
      if (!err) l->ptr[0] = 0;
    }
    for (size_t n = lo; !err && n < hi; n++)
      if (mark[n]) {
        l->nodes[i] = (int)n;
        k += (size_t)lift_terms(m, ptr, inc, dmask, bindex, (int)n, l, (long)k);
        l->ptr[++i] = (int)k;
      }
  }
  free(mark);
  return err;
}

static int upload(const struct fe_space *s, size_t bytes, const void *host, void *dev)
{
  return fe_backend_alloc(s->be, bytes ? bytes : 1, bytes ? host : NULL, dev);
}

/* The copies of an unknown (the aliased nodes, ghosts of the space's halo): the owner of every
 * node on the backend, a Dirichlet flag alike at every copy. */
static int copies(const struct fe_mesh *m, struct fe_space *s)
{
  if (!m->n_aliased) return FE_SUCCESS;
  for (int n = (int)s->n_owned; n < m->n_nodes; n++)
    FE_CHECK(s->is_dirichlet_host[n] == s->is_dirichlet_host[fe_mesh_owner(m, n)], FE_ERR_USAGE,
             "node %d is a copy of node %d, and only one of them is a Dirichlet node", n,
             fe_mesh_owner(m, n));
  int *owner;
  FE_MALLOC(m->n_nodes, &owner);
  for (int n = 0; n < m->n_nodes; n++) owner[n] = fe_mesh_owner(m, n);
  const int err = upload(s, (size_t)m->n_nodes * sizeof(int), owner, &s->owner);
  free(owner);
  return err;
}

int fe_mesh_halo_create(const struct fe_backend *be, const struct fe_mesh *m, struct fe_halo **halo)
{
  *halo = NULL;
  const size_t copies = (size_t)m->n_aliased, remote = (size_t)m->n_ghost;
  const size_t owned = (size_t)m->n_nodes - copies - remote;
  /* on several processes every part's halo is one of other processes' ghosts, a part
   * without any too: its making may be a collective (fe_vec_ops.halo_open) */
  if (!m->n_ghost && !m->n_neighbours && be->comm->size == 1)
    return copies ? fe_halo_create(be, owned, copies, m->alias_of, halo) : FE_SUCCESS;
  static const int none[1] = {0}; /* no neighbours: their lists may be NULL */
  return fe_halo_create_remote(be, owned, remote, m->n_neighbours, m->neighbours,
                               m->send_ptr ? m->send_ptr : none, m->send,
                               m->recv_ptr ? m->recv_ptr : none, copies, m->alias_of, halo);
}

/* A part of a mesh on several processes: one exchange and one device sum now, as NCCL connects
 * its peers at their first use (about 2 s on 2 GPUs), which belongs to the set-up, not to the
 * first step's solves.  The sum on every process, a part without neighbours too (its exchange
 * moves nothing): a collective that one process skipped would leave the others waiting. */
static int connect_ghosts(const struct fe_mesh *m, struct fe_space *s)
{
  if (s->be->comm->size == 1) return FE_SUCCESS;
  double *x;
  FE_CALL(fe_backend_alloc(s->be, ((size_t)m->n_nodes + 1) * sizeof(double), NULL, &x));
  int err = s->be->vec->set(s->be, (size_t)m->n_nodes + 1, 0.0, x);
  if (!err) err = fe_halo_update(s->halo, 1, x);
  if (!err) err = fe_comm_allreduce_sum_device(s->be->comm, x, 1);
  if (!err) err = fe_backend_sync(s->be);
  fe_backend_free(s->be, x);
  return err;
}

int fe_space_create(const struct fe_backend *be, const struct fe_mesh *m,
                    const unsigned char *is_dirichlet, struct fe_space **out)
{
  struct fe_space *s;
  FE_CALLOC(1, &s);
  s->be = be;
  s->mesh = m;
  s->d = m->dim;
  s->nv = m->nv;
  s->nk = m->nv * m->nv;
  s->block_shift = FE_BLOCK_SHIFT_DEFAULT;
  s->n_nodes = m->n_nodes;
  s->n_cells = m->n_cells;
  fe_reference_init(m->dim, &s->ref);
  fe_quadrature_simplex(m->dim, &s->cell_rule);
  fe_quadrature_simplex(m->dim - 1, &s->facet_rule);

  int *ptr = NULL, *inc = NULL;
  unsigned char *dmask = NULL;
  int err = fe_mesh_incidence(m, &ptr, &inc);
  if (!err) err = fe_mesh_merge_copies(m, &ptr, &inc);
  if (!err) err = fe_malloc((size_t)m->n_cells + 1, &dmask);
  if (!err) err = fe_calloc((size_t)m->n_nodes + 1, 1, &s->is_dirichlet_host);
  if (!err && is_dirichlet) memcpy(s->is_dirichlet_host, is_dirichlet, (size_t)m->n_nodes);
  s->n_owned = fe_mesh_n_owned(m);
  if (!err) err = fe_mesh_halo_create(be, m, &s->halo);
  if (!err) err = copies(m, s);
  if (!err) err = connect_ghosts(m, s);
  if (!err) {
    build_dmask(m, is_dirichlet, ptr, inc, dmask);
    s->n_dirichlet = kept(m->n_nodes, is_dirichlet_node, s, NULL);
    s->n_bcells = kept(m->n_cells, is_boundary_cell, dmask, NULL);
    err = fe_malloc((size_t)(s->n_dirichlet + 1) * sizeof(int), &s->dirichlet_host);
  }
  if (!err) err = fe_malloc((size_t)(s->n_bcells + 1) * sizeof(int), &s->bcells_host);
  if (!err) {
    kept(m->n_nodes, is_dirichlet_node, s, s->dirichlet_host);
    kept(m->n_cells, is_boundary_cell, dmask, s->bcells_host);
  }
  int *bindex = NULL;
  struct lift_lists lift = {0};
  if (!err) err = fe_malloc(((size_t)m->n_cells + 1) * sizeof(int), &bindex);
  if (!err) {
#pragma omp parallel
    {
#pragma omp for schedule(static)
      for (long c = 0; c < m->n_cells; c++) bindex[c] = -1; /* no boundary cell */
#pragma omp for schedule(static)
      for (long b = 0; b < s->n_bcells; b++) bindex[s->bcells_host[b]] = (int)b;
    }
  }
  if (!err) err = lift_lists(m, s, ptr, inc, dmask, bindex, &lift);
  s->n_lift_nodes = lift.n_nodes;
  const size_t nent = (size_t)m->n_cells * m->nv;
  const size_t ninc = err ? 0 : (size_t)ptr[m->n_nodes]; /* with copies: each, per copy */
  if (!err) err = upload(s, (size_t)m->n_nodes * m->dim * sizeof(double), m->coords, &s->coords);
  if (!err) err = upload(s, nent * sizeof(int), m->cells, &s->cells);
  if (!err) err = upload(s, (size_t)m->n_cells, dmask, &s->dmask);
  if (!err) err = upload(s, (size_t)s->n_dirichlet * sizeof(int), s->dirichlet_host, &s->dirichlet);
  if (!err) err = upload(s, (size_t)s->n_bcells * sizeof(int), s->bcells_host, &s->bcells);
  if (!err) err = upload(s, (size_t)m->n_cells * sizeof(int), bindex, &s->bindex);
  if (!err) err = upload(s, (size_t)lift.n_nodes * sizeof(int), lift.nodes, &s->lift_nodes);
  if (!err) err = upload(s, (size_t)(lift.n_nodes + 1) * sizeof(int), lift.ptr, &s->lift_ptr);
  if (!err) err = upload(s, (size_t)lift.n_terms * sizeof(int), lift.entry, &s->lift_entry);
  if (!err) err = upload(s, (size_t)lift.n_terms * sizeof(int), lift.col, &s->lift_col);
  if (!err) err = upload(s, ((size_t)m->n_nodes + 1) * sizeof(int), ptr, &s->inc_ptr);
  if (!err) err = upload(s, ninc * sizeof(int), inc, &s->inc);
  free(ptr);
  free(inc);
  free(dmask);
  free(bindex);
  free(lift.nodes);
  free(lift.ptr);
  free(lift.entry);
  free(lift.col);
  double any[2] = {(double)s->n_bcells, (double)s->n_dirichlet};
  if (!err) err = fe_comm_allreduce(be->comm, any, 2, FE_REDUCE_MAX);
  s->any_bcells = any[0] > 0;
  s->any_dirichlet = any[1] > 0;
  if (!err) err = be->assembly->element.prepare(s);
  if (err) {
    fe_space_destroy(s);
    return err;
  }
  *out = s;
  return FE_SUCCESS;
}

void fe_space_destroy(struct fe_space *s)
{
  if (!s) return;
  void *dev[] = {s->coords,     s->cells,    s->dmask, s->dirichlet,  s->bcells,
                 s->bindex,     s->inc_ptr,  s->inc,   s->lift_nodes, s->lift_ptr,
                 s->lift_entry, s->lift_col, s->owner};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) fe_backend_free(s->be, dev[i]);
  fe_halo_destroy(s->halo);
  free(s->dirichlet_host);
  free(s->bcells_host);
  free(s->is_dirichlet_host);
  free(s);
}

int fe_space_evaluate(const struct fe_space *s, int at_cells, const int *idx, const int *opos,
                      long m, const struct fe_program *progs, int nprog, double t, double *out)
{
  return s->be->assembly->node.evaluate(s, at_cells, idx, opos, m, progs, nprog, t, out);
}

int fe_space_count_indefinite(const struct fe_space *s, long m, const double *tensors, int *count)
{
  return s->be->assembly->node.count_indefinite(s, m, tensors, count);
}

int fe_space_mass_apply(const struct fe_space *s, const double *x, double *y)
{
  FE_CALL(s->be->assembly->node.mass_apply(s, x, y));
  return fe_halo_complete(s->halo, 1, y);
}

int fe_space_facet_load(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                        const double *g, double *out)
{
  FE_CALL(s->be->assembly->node.facet_load(s, ptr, slots, w, g, out));
  return fe_halo_complete(s->halo, 1, out);
}

int fe_space_vec_create(const struct fe_space *s, struct fe_vec **v)
{
  if (s->halo) return fe_vec_create_ghosted(s->halo, v);
  return fe_vec_create(s->be, (size_t)s->n_nodes, v);
}
