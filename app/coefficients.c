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

/* velocity: the d components; diffusivity: the tensor, a scalar k as diag(k) */
static int tensors(const struct fe_case *c, struct fe_coefficient_programs *cp)
{
  const struct fe_backend *be = cp->space->be;
  const int d = cp->space->d, ns = FE_NSYM(d);
  struct fe_program h[6];
  if (c->n_velocity) {
    for (int a = 0; a < d; a++) h[a] = *fe_expr_program(c->velocity[a]);
    cp->n_velocity = d;
    FE_CALL(upload_programs(be, h, d, &cp->velocity));
  }
  for (int k = 0; k < ns; k++) {
    const int diagonal = k == 0 || k == (d == 2 ? 2 : 3) || k == 5;
    if (c->n_diffusivity == ns)
      h[k] = *fe_expr_program(c->diffusivity[k]);
    else if (diagonal)
      h[k] = *fe_expr_program(c->diffusivity[0]);
    else
      fe_program_constant(0.0, &h[k]);
  }
  cp->n_diffusivity = ns;
  cp->uniform_diffusivity = 1;
  for (int k = 0; k < c->n_diffusivity; k++)
    cp->uniform_diffusivity &= !fe_expr_depends_on_space(c->diffusivity[k]);
  return upload_programs(be, h, ns, &cp->diffusivity);
}

/* One group per Dirichlet boundary: its nodes and their positions in the list. */
static int dirichlet_groups(const struct fe_case *c, const struct fe_bcs *bcs,
                            struct fe_coefficient_programs *cp)
{
  const struct fe_backend *be = cp->space->be;
  FE_CALLOC(c->n_boundaries + 1, &cp->groups);
  int *nodes, *pos;
  FE_MALLOC(bcs->n_dirichlet + 1, &nodes);
  int err = fe_malloc(((size_t)bcs->n_dirichlet + 1) * sizeof *pos, &pos);
  for (int b = 0; !err && b < c->n_boundaries; b++) {
    if (c->boundaries[b].kind != FE_BC_DIRICHLET) continue;
    long m = 0;
    for (long k = 0; k < bcs->n_dirichlet; k++)
      if (bcs->dirichlet_bc[k] == b) {
        nodes[m] = bcs->dirichlet[k];
        pos[m++] = (int)k;
      }
    if (m) err = point_group(be, m, nodes, pos, c->boundaries[b].value, &cp->groups[cp->n_groups++]);
  }
  free(nodes);
  free(pos);
  return err;
}

/* Neumann facets: slots, weights, incidence, and one point group per boundary */
static int neumann_facets(const struct fe_case *c, const struct fe_bcs *bcs, const struct fe_mesh *m,
                          struct fe_coefficient_programs *cp)
{
  const struct fe_backend *be = cp->space->be;
  struct fe_neumann_facets *nf = &cp->neumann;
  const int d = m->dim;
  const long n = bcs->n_neumann_facets, ns = n * d;
  nf->n = n;
  if (!n) return FE_SUCCESS;
  int *ptr, *slots, *node, *pos;
  double *w;
  FE_CALLOC(m->n_nodes + 1, &ptr);
  FE_MALLOC(ns, &slots);
  FE_MALLOC(ns, &node);
  FE_MALLOC(ns, &pos);
  FE_MALLOC(n, &w);
  for (long k = 0; k < n; k++) {
    const int *f = m->facets + (long)bcs->neumann_facet[k] * d;
    w[k] = fe_facet_measure(m, f) / (d * (d + 1));
    for (int v = 0; v < d; v++) ptr[f[v] + 1]++;
  }
  for (int i = 0; i < m->n_nodes; i++) ptr[i + 1] += ptr[i];
  int *next;
  FE_MALLOC(m->n_nodes + 1, &next);
  memcpy(next, ptr, (size_t)m->n_nodes * sizeof *next);
  for (long k = 0; k < ns; k++) /* slots ascending within each node */
    slots[next[m->facets[(long)bcs->neumann_facet[k / d] * d + k % d]]++] = (int)k;
  free(next);
  int err = fe_backend_alloc(be, ((size_t)m->n_nodes + 1) * sizeof(int), ptr, &nf->ptr);
  if (!err) err = fe_backend_alloc(be, (size_t)ns * sizeof(int), slots, &nf->slots);
  if (!err) err = fe_backend_alloc(be, (size_t)n * sizeof(double), w, &nf->w);
  if (!err) err = fe_backend_alloc(be, (size_t)ns * sizeof(double), NULL, &nf->g);
  if (!err) err = fe_calloc((size_t)c->n_boundaries + 1, sizeof *nf->groups, &nf->groups);
  for (int b = 0; !err && b < c->n_boundaries; b++) {
    long count = 0;
    for (long k = 0; k < ns; k++)
      if (bcs->neumann_bc[k / d] == b) {
        node[count] = m->facets[(long)bcs->neumann_facet[k / d] * d + k % d];
        pos[count++] = (int)k;
      }
    if (count) err = point_group(be, count, node, pos, c->boundaries[b].value, &nf->groups[nf->n_groups++]);
  }
  free(ptr);
  free(slots);
  free(node);
  free(pos);
  free(w);
  return err;
}

static int create(const struct fe_case *c, const struct fe_bcs *bcs, struct fe_coefficient_programs *cp)
{
  FE_CALL(tensors(c, cp));
  FE_CALL(upload_one(cp->space->be, c->source, &cp->source));
  FE_CALL(upload_one(cp->space->be, c->exact, &cp->exact));
  FE_CALL(upload_one(cp->space->be, c->absorption, &cp->absorption));
  cp->uniform_absorption = c->absorption && !fe_expr_depends_on_space(c->absorption);
  FE_CALL(dirichlet_groups(c, bcs, cp));
  return neumann_facets(c, bcs, cp->space->mesh, cp);
}

int fe_coefficient_programs_create(const struct fe_case *c, const struct fe_bcs *bcs,
                                   const struct fe_space *space, struct fe_coefficient_programs **out)
{
  struct fe_coefficient_programs *cp;
  FE_CALLOC(1, &cp);
  cp->space = space;
  int err = create(c, bcs, cp);
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
  fe_backend_free(be, cp->velocity);
  fe_backend_free(be, cp->diffusivity);
  fe_backend_free(be, cp->source);
  fe_backend_free(be, cp->exact);
  fe_backend_free(be, cp->absorption);
  for (int g = 0; g < cp->n_groups; g++) point_group_free(be, &cp->groups[g]);
  free(cp->groups);
  const struct fe_neumann_facets *nf = &cp->neumann;
  fe_backend_free(be, nf->ptr);
  fe_backend_free(be, nf->slots);
  fe_backend_free(be, nf->w);
  fe_backend_free(be, nf->g);
  for (int g = 0; g < nf->n_groups; g++) point_group_free(be, &nf->groups[g]);
  free(nf->groups);
  free(cp);
}

int fe_coefficients_velocity(const struct fe_coefficient_programs *cp, double t, double *out)
{
  return fe_coefficients_velocity_at(cp, NULL, cp->space->n_nodes, t, out);
}

int fe_coefficients_velocity_at(const struct fe_coefficient_programs *cp, const int *nodes, long m,
                                double t, double *out)
{
  return fe_space_evaluate(cp->space, 0, nodes, NULL, m, cp->velocity, cp->n_velocity, t, out);
}

int fe_coefficients_diffusivity(const struct fe_coefficient_programs *cp, double t, double *out)
{
  return fe_space_evaluate(cp->space, 1, NULL, NULL, cp->uniform_diffusivity ? 1 : cp->space->n_cells,
                           cp->diffusivity, cp->n_diffusivity, t, out);
}

int fe_coefficients_absorption(const struct fe_coefficient_programs *cp, double t, double *out)
{
  return fe_space_evaluate(cp->space, 1, NULL, NULL, cp->uniform_absorption ? 1 : cp->space->n_cells,
                           cp->absorption, 1, t, out);
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

int fe_coefficients_neumann(const struct fe_coefficient_programs *cp, double t, double *out)
{
  const struct fe_neumann_facets *nf = &cp->neumann;
  for (int g = 0; g < nf->n_groups; g++) {
    const struct fe_point_group *gr = &nf->groups[g];
    FE_CALL(fe_space_evaluate(cp->space, 0, gr->nodes, gr->pos, gr->m, gr->program, 1, t, nf->g));
  }
  return fe_space_facet_load(cp->space, nf->ptr, nf->slots, nf->w, nf->g, out);
}
