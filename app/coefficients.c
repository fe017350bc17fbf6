#include "app/coefficients.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static int upload_programs(const struct fe_backend *be, const struct fe_program *host, int n,
                           struct fe_program **dev)
{
  return fe_backend_alloc(be, (size_t)n * sizeof *host, host, dev);
}

static int upload_one(const struct fe_backend *be, const struct fe_expr *e, struct fe_program **dev)
{
  return e ? upload_programs(be, fe_expr_program(e), 1, dev) : FE_SUCCESS;
}

/* A group of m points with their output positions and one <boundary>'s expression. */
static int point_group(const struct fe_backend *be, long m, const int *node, const int *pos,
                       const struct fe_expr *e, struct fe_point_group *g)
{
  g->m = m;
  FE_CALL(fe_backend_alloc(be, (size_t)m * sizeof(int), node, &g->nodes));
  FE_CALL(fe_backend_alloc(be, (size_t)m * sizeof(int), pos, &g->pos));
  return upload_one(be, e, &g->program);
}

static void point_group_free(const struct fe_backend *be, struct fe_point_group *g)
{
  fe_backend_free(be, g->nodes);
  fe_backend_free(be, g->pos);
  fe_backend_free(be, g->program);
}

/* The diffusivity tensor, a scalar k as diag(k). */
static int tensors(const struct fe_tracer *tr, struct fe_coefficient_programs *cp)
{
  const struct fe_backend *be = cp->space->be;
  const int d = cp->space->d, ns = FE_NSYM(d);
  struct fe_program h[6];
  for (int k = 0; k < ns; k++) {
    const int diagonal = k == 0 || k == (d == 2 ? 2 : 3) || k == 5;
    if (tr->n_diffusivity == ns)
      h[k] = *fe_expr_program(tr->diffusivity[k]);
    else if (diagonal)
      h[k] = *fe_expr_program(tr->diffusivity[0]);
    else
      fe_program_constant(0.0, &h[k]);
  }
  cp->n_diffusivity = ns;
  cp->uniform_diffusivity = 1;
  for (int k = 0; k < tr->n_diffusivity; k++)
    cp->uniform_diffusivity &= !fe_expr_depends_on_space(tr->diffusivity[k]);
  return upload_programs(be, h, ns, &cp->diffusivity);
}

/* One group per Dirichlet boundary: its nodes and their positions in the list. */
static int dirichlet_groups(const struct fe_tracer *tr, const struct fe_bcs *bcs,
                            struct fe_coefficient_programs *cp)
{
  const struct fe_backend *be = cp->space->be;
  FE_CALLOC(tr->n_boundaries + 1, &cp->groups);
  int *nodes, *pos;
  FE_MALLOC(bcs->n_dirichlet + 1, &nodes);
  int err = fe_malloc(((size_t)bcs->n_dirichlet + 1) * sizeof *pos, &pos);
  for (int b = 0; !err && b < tr->n_boundaries; b++) {
    if (tr->boundaries[b].kind != FE_BC_DIRICHLET) continue;
    long m = 0;
    for (long k = 0; k < bcs->n_dirichlet; k++)
      if (bcs->dirichlet_bc[k] == b) {
        nodes[m] = bcs->dirichlet[k];
        pos[m++] = (int)k;
      }
    if (m)
      err = point_group(be, m, nodes, pos, tr->boundaries[b].value, &cp->groups[cp->n_groups++]);
  }
  free(nodes);
  free(pos);
  return err;
}

/* The Neumann facets' node -> slot incidence (slot k d + v: vertex v of facet k), slots
 * ascending within each node, and room for the slots' values. */
static int slot_incidence(const struct fe_bcs *bcs, const struct fe_mesh *m,
                          struct fe_coefficient_programs *cp)
{
  const struct fe_backend *be = cp->space->be;
  struct fe_neumann_facets *nf = &cp->neumann;
  const int d = m->dim;
  const long ns = nf->n * d;
  int *ptr, *slots = NULL, *next = NULL;
  FE_CALLOC(m->n_nodes + 1, &ptr);
  int err = fe_malloc((size_t)ns * sizeof *slots, &slots);
  if (!err) err = fe_malloc(((size_t)m->n_nodes + 1) * sizeof *next, &next);
  if (!err) {
    for (long k = 0; k < ns; k++) ptr[m->facets[(long)bcs->neumann_facet[k / d] * d + k % d] + 1]++;
    for (int i = 0; i < m->n_nodes; i++) ptr[i + 1] += ptr[i];
    memcpy(next, ptr, (size_t)m->n_nodes * sizeof *next);
    for (long k = 0; k < ns; k++)
      slots[next[m->facets[(long)bcs->neumann_facet[k / d] * d + k % d]]++] = (int)k;
    err = fe_mesh_merge_copies(m, &ptr, &slots); /* periodic: the facets at every copy */
  }
  if (!err) err = fe_backend_alloc(be, ((size_t)m->n_nodes + 1) * sizeof(int), ptr, &nf->ptr);
  if (!err) err = fe_backend_alloc(be, (size_t)ptr[m->n_nodes] * sizeof(int), slots, &nf->slots);
  if (!err) err = fe_backend_alloc(be, (size_t)ns * sizeof(double), NULL, &nf->g);
  free(ptr);
  free(slots);
  free(next);
  return err;
}

/* Interpolated loads: the facet mass weights and, per Neumann <boundary>, the facets'
 * vertices where its flux is evaluated. */
static int neumann_vertices(const struct fe_tracer *tr, const struct fe_bcs *bcs,
                            const struct fe_mesh *m, struct fe_coefficient_programs *cp)
{
  const struct fe_backend *be = cp->space->be;
  struct fe_neumann_facets *nf = &cp->neumann;
  const int d = m->dim;
  const long n = nf->n, ns = n * d;
  int *node, *pos = NULL;
  double *w = NULL;
  FE_MALLOC(ns, &node);
  int err = fe_malloc((size_t)ns * sizeof *pos, &pos);
  if (!err) err = fe_malloc((size_t)n * sizeof *w, &w);
  for (long k = 0; !err && k < n; k++)
    w[k] = fe_facet_measure(m, m->facets + (long)bcs->neumann_facet[k] * d) / (d * (d + 1));
  if (!err) err = fe_backend_alloc(be, (size_t)n * sizeof(double), w, &nf->w);
  if (!err) err = fe_calloc((size_t)tr->n_boundaries + 1, sizeof *nf->groups, &nf->groups);
  for (int b = 0; !err && b < tr->n_boundaries; b++) {
    long count = 0;
    for (long k = 0; k < ns; k++)
      if (bcs->neumann_bc[k / d] == b) {
        node[count] = m->facets[(long)bcs->neumann_facet[k / d] * d + k % d];
        pos[count++] = (int)k;
      }
    if (count)
      err = point_group(be, count, node, pos, tr->boundaries[b].value, &nf->groups[nf->n_groups++]);
  }
  free(node);
  free(pos);
  free(w);
  return err;
}

/* Loads by quadrature: the facets' nodes and, per Neumann <boundary>, its facets. */
static int neumann_lists(const struct fe_tracer *tr, const struct fe_bcs *bcs,
                         const struct fe_mesh *m, struct fe_coefficient_programs *cp)
{
  const struct fe_backend *be = cp->space->be;
  struct fe_neumann_facets *nf = &cp->neumann;
  const int d = m->dim;
  const long n = nf->n;
  int *vertices, *list = NULL;
  FE_MALLOC(n * d, &vertices);
  int err = fe_malloc((size_t)n * sizeof *list, &list);
  for (long k = 0; !err && k < n * d; k++)
    vertices[k] = m->facets[(long)bcs->neumann_facet[k / d] * d + k % d];
  if (!err) err = fe_backend_alloc(be, (size_t)n * d * sizeof(int), vertices, &nf->vertices);
  if (!err) err = fe_calloc((size_t)tr->n_boundaries + 1, sizeof *nf->lists, &nf->lists);
  for (int b = 0; !err && b < tr->n_boundaries; b++) {
    struct fe_facet_group *g = &nf->lists[nf->n_lists];
    for (long k = 0; k < n; k++)
      if (bcs->neumann_bc[k] == b) list[g->m++] = (int)k;
    if (!g->m) continue;
    nf->n_lists++;
    err = fe_backend_alloc(be, (size_t)g->m * sizeof(int), list, &g->facets);
    if (!err) err = upload_one(be, tr->boundaries[b].value, &g->program);
  }
  free(vertices);
  free(list);
  return err;
}

static int neumann_facets(const struct fe_tracer *tr, const struct fe_bcs *bcs,
                          const struct fe_mesh *m, struct fe_coefficient_programs *cp)
{
  cp->neumann.n = bcs->n_neumann_facets;
  if (!bcs->has_neumann) return FE_SUCCESS; /* a part may have none of the whole's: its loads 0 */
  FE_CALL(slot_incidence(bcs, m, cp));
  return cp->quadrature ? neumann_lists(tr, bcs, m, cp) : neumann_vertices(tr, bcs, m, cp);
}

static int create(const struct fe_case *cs, const struct fe_tracer *tr, const struct fe_bcs *bcs,
                  struct fe_coefficient_programs *cp)
{
  FE_CALL(tensors(tr, cp));
  FE_CALL(upload_one(cp->space->be, tr->source, &cp->source));
  FE_CALL(upload_one(cp->space->be, tr->exact, &cp->exact));
  FE_CALL(upload_one(cp->space->be, tr->absorption, &cp->absorption));
  cp->uniform_absorption = tr->absorption && !fe_expr_depends_on_space(tr->absorption);
  cp->quadrature = cs->loads == FE_LOADS_QUADRATURE;
  if (cp->quadrature && !fe_expr_is_zero(tr->source)) {
    const struct fe_space *s = cp->space;
    FE_CALL(
        fe_backend_alloc(s->be, (size_t)s->n_cells * s->nv * sizeof(double), NULL, &cp->cell_load));
  }
  FE_CALL(dirichlet_groups(tr, bcs, cp));
  return neumann_facets(tr, bcs, cp->space->mesh, cp);
}

int fe_coefficient_programs_create(const struct fe_case *c, const struct fe_tracer *tr,
                                   const struct fe_bcs *bcs, const struct fe_space *space,
                                   struct fe_coefficient_programs **out)
{
  struct fe_coefficient_programs *cp;
  FE_CALLOC(1, &cp);
  cp->space = space;
  int err = create(c, tr, bcs, cp);
  if (err) {
    fe_coefficient_programs_destroy(cp);
    return err;
  }
  *out = cp;
  return FE_SUCCESS;
}

void fe_coefficient_programs_destroy(struct fe_coefficient_programs *cp)
{
  if (!cp) return;
  const struct fe_backend *be = cp->space->be;
  fe_backend_free(be, cp->diffusivity);
  fe_backend_free(be, cp->source);
  fe_backend_free(be, cp->exact);
  fe_backend_free(be, cp->absorption);
  fe_backend_free(be, cp->cell_load);
  for (int g = 0; g < cp->n_groups; g++) point_group_free(be, &cp->groups[g]);
  free(cp->groups);
  const struct fe_neumann_facets *nf = &cp->neumann;
  fe_backend_free(be, nf->ptr);
  fe_backend_free(be, nf->slots);
  fe_backend_free(be, nf->w);
  fe_backend_free(be, nf->g);
  fe_backend_free(be, nf->vertices);
  for (int g = 0; g < nf->n_lists; g++) {
    fe_backend_free(be, nf->lists[g].facets);
    fe_backend_free(be, nf->lists[g].program);
  }
  free(nf->lists);
  for (int g = 0; g < nf->n_groups; g++) point_group_free(be, &nf->groups[g]);
  free(nf->groups);
  free(cp);
}

int fe_coefficients_diffusivity(const struct fe_coefficient_programs *cp, double t, double *out)
{
  return fe_space_evaluate(cp->space, 1, NULL, NULL,
                           cp->uniform_diffusivity ? 1 : cp->space->n_cells, cp->diffusivity,
                           cp->n_diffusivity, t, out);
}

int fe_coefficients_absorption(const struct fe_coefficient_programs *cp, double t, double *out)
{
  return fe_space_evaluate(cp->space, 1, NULL, NULL,
                           cp->uniform_absorption ? 1 : cp->space->n_cells, cp->absorption, 1, t,
                           out);
}

int fe_coefficients_source(const struct fe_coefficient_programs *cp, double t, double *out)
{
  return fe_space_evaluate(cp->space, 0, NULL, NULL, cp->space->n_nodes, cp->source, 1, t, out);
}

int fe_coefficients_exact(const struct fe_coefficient_programs *cp, double t, double *out)
{
  return fe_space_evaluate(cp->space, 0, NULL, NULL, cp->space->n_nodes, cp->exact, 1, t, out);
}

int fe_coefficients_dirichlet(const struct fe_coefficient_programs *cp, double t, double *out)
{
  for (int g = 0; g < cp->n_groups; g++) {
    const struct fe_point_group *gr = &cp->groups[g];
    FE_CALL(fe_space_evaluate(cp->space, 0, gr->nodes, gr->pos, gr->m, gr->program, 1, t, out));
  }
  return FE_SUCCESS;
}

int fe_coefficients_source_load(const struct fe_coefficient_programs *cp, double t,
                                const struct fe_form *form, const double *diffusivity,
                                const double *velocity, double *out)
{
  const struct fe_space *s = cp->space;
  FE_CHECK(cp->cell_load, FE_ERR_USAGE, "no source load by quadrature in this case");
  FE_CALL(fe_load_cells(s, form, diffusivity, velocity, cp->source, t, cp->cell_load));
  return fe_load_gather(s, s->inc_ptr, s->inc, cp->cell_load, out);
}

int fe_coefficients_neumann(const struct fe_coefficient_programs *cp, double t, double *out)
{
  const struct fe_neumann_facets *nf = &cp->neumann;
  if (cp->quadrature) {
    for (int g = 0; g < nf->n_lists; g++) {
      const struct fe_facet_group *l = &nf->lists[g];
      FE_CALL(fe_load_facets(cp->space, l->m, l->facets, nf->vertices, l->program, t, nf->g));
    }
    return fe_load_gather(cp->space, nf->ptr, nf->slots, nf->g, out);
  }
  for (int g = 0; g < nf->n_groups; g++) {
    const struct fe_point_group *gr = &nf->groups[g];
    FE_CALL(fe_space_evaluate(cp->space, 0, gr->nodes, gr->pos, gr->m, gr->program, 1, t, nf->g));
  }
  return fe_space_facet_load(cp->space, nf->ptr, nf->slots, nf->w, nf->g, out);
}
