/* Tracer budgets (app/budget.h): the sums of a step on the backend, their weights per group,
 * and their reduction once per step. */
#include "app/budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/flux.h"
#include "core/error.h"
#include "io/outdir.h"

/* ---------------------------------------------------------------- set-up */

/* Whether this process counts a cell or facet whose first vertex is node n of its mesh: on
 * several processes the process that owns n's unknown, which holds every cell at each of its
 * copies (io/partition.h), so that each is counted by one process; with one, all. */
static int counted(const struct fe_mesh *m, int n)
{
  return fe_mesh_owner(m, n) < fe_mesh_n_owned(m);
}

/* The boundary facets of the groups that this process counts, group after group (facets inside
 * the domain, or of no cell, have no outward normal and are left out): d vertices and the
 * opposite vertex each. */
static int facet_list(struct fe_budget *b, const struct fe_mesh *m)
{
  const int d = m->dim;
  int *ptr, *inc, *nodes = NULL;
  FE_CALL(fe_mesh_facet_incidence(m, &ptr, &inc));
  int err = fe_calloc((size_t)b->n_groups + 1, sizeof *b->first_facet, &b->first_facet);
  if (!err) err = fe_malloc(((size_t)m->n_facets + 1) * (d + 1) * sizeof *nodes, &nodes);
  for (int g = 0; g < b->n_groups && !err; g++) {
    b->first_facet[g] = b->n_facets;
    for (int f = 0; f < m->n_facets; f++) {
      const int *facet = m->facets + (long)f * d;
      if (m->facet_group[f] != m->groups[b->groups[g]].tag ||
          (m->facet_cells && m->facet_cells[f] != 1) || !counted(m, facet[0]))
        continue;
      const int opposite = fe_mesh_facet_opposite(m, ptr, inc, facet);
      if (opposite < 0) continue;
      int *out = nodes + b->n_facets++ * (d + 1);
      memcpy(out, facet, (size_t)d * sizeof *out);
      out[d] = opposite;
    }
  }
  if (!err) b->first_facet[b->n_groups] = b->n_facets;
  if (!err)
    err = fe_backend_alloc(b->be, ((size_t)b->n_facets * (d + 1) + 1) * sizeof *nodes, nodes,
                           &b->facet_nodes);
  free(nodes);
  free(ptr);
  free(inc);
  return err;
}

/* A vector of n values on the backend from the host's w, or NULL (no vector) when all are 0. */
static int weights(const struct fe_backend *be, size_t n, const double *w, struct fe_vec **v)
{
  *v = NULL;
  size_t k = 0;
  while (k < n && w[k] == 0) k++;
  if (k == n) return FE_SUCCESS;
  FE_CALL(fe_vec_create(be, n, v));
  return fe_vec_upload(*v, w);
}

/* Per group: 1 at the Dirichlet nodes it sets, and each Neumann slot's weight in the flux it
 * loads (by quadrature the slot holds int_F N_v g; interpolated, g at the vertex, and the
 * facet mass matrix gives the facet |F| / d sum_v g_v), 0 at the facets another process
 * counts. */
static int group_weights(struct fe_budget *b, const struct fe_case *c, const struct fe_bcs *bcs,
                         struct fe_budget_tracer *bt)
{
  const struct fe_mesh *m = b->space->mesh;
  const int d = m->dim;
  const long n_slots = (long)bcs->n_neumann_facets * d;
  const long n = m->n_nodes > n_slots ? m->n_nodes : n_slots;
  double *w;
  FE_CALLOC(b->n_groups, &bt->dirichlet);
  FE_CALLOC(b->n_groups, &bt->slots);
  FE_MALLOC(n + 1, &w);
  int err = FE_SUCCESS;
  for (int g = 0; g < b->n_groups && !err; g++) {
    memset(w, 0, (size_t)m->n_nodes * sizeof *w);
    for (long k = 0; k < bcs->n_dirichlet; k++)
      if (bcs->dirichlet_group[k] == b->groups[g]) w[bcs->dirichlet[k]] = 1;
    err = weights(b->be, (size_t)m->n_nodes, w, &bt->dirichlet[g]);
    for (long k = 0; !err && k < n_slots; k++) {
      const int *facet = m->facets + (long)bcs->neumann_facet[k / d] * d;
      const int mine = m->facet_group[bcs->neumann_facet[k / d]] == m->groups[b->groups[g]].tag &&
                       counted(m, facet[0]);
      w[k] = !mine ? 0.0 : c->loads == FE_LOADS_QUADRATURE ? 1.0 : fe_facet_measure(m, facet) / d;
    }
    if (!err && n_slots) err = weights(b->be, (size_t)n_slots, w, &bt->slots[g]);
  }
  free(w);
  return err;
}

/* 1 at the cells this process counts, 0 at the others; NULL where it counts every cell. */
static int cell_weights(struct fe_budget *b)
{
  const struct fe_mesh *m = b->space->mesh;
  long c = 0;
  while (c < m->n_cells && counted(m, m->cells[c * m->nv])) c++;
  if (c == m->n_cells) return FE_SUCCESS;
  double *w;
  FE_MALLOC(m->n_cells, &w);
  for (c = 0; c < m->n_cells; c++) w[c] = counted(m, m->cells[c * m->nv]);
  int err = fe_vec_create(b->be, (size_t)m->n_cells, &b->own_cells);
  if (!err) err = fe_vec_upload(b->own_cells, w);
  free(w);
  return err;
}

static int tracer_create(struct fe_budget *b, const struct fe_case *c, const struct fe_tracer *tr,
                         const struct fe_bcs *bcs, struct fe_budget_tracer *bt)
{
  const struct fe_backend *be = b->be;
  const struct fe_space *s = b->space;
  const int fct = b->advected && c->stabilisation == FE_STABILISATION_FCT;
  const size_t n_slots = (size_t)bcs->n_neumann_facets * s->d;
  const struct {
    struct fe_vec **v;
    size_t n;
    int needed;
  } list[] = {{&bt->facets, (size_t)b->n_facets + 1, b->advected},
              {&bt->divergence, (size_t)s->n_cells, b->advected},
              {&bt->absorption, (size_t)s->n_cells, tr->absorption != NULL},
              {&bt->source, (size_t)s->n_nodes, !fe_expr_is_zero(tr->source)},
              {&bt->neumann_slots, n_slots, n_slots > 0},
              {&bt->neumann, n_slots, n_slots > 0},
              {&bt->reaction_adv, (size_t)s->n_nodes, 1},
              {&bt->reaction_diff, (size_t)s->n_nodes, 1},
              {&bt->fct_reaction, (size_t)s->n_nodes, fct},
              {&bt->before, (size_t)s->n_nodes, b->advected}};
  for (size_t i = 0; i < sizeof list / sizeof *list; i++)
    if (list[i].needed) FE_CALL(fe_vec_create(be, list[i].n, list[i].v));
  FE_CALLOC(b->n_groups + 1, &bt->advective);
  FE_CALLOC(b->n_groups + 1, &bt->diffusive);
  return group_weights(b, c, bcs, bt);
}

int fe_budget_create(const struct fe_case *c, const struct fe_space *space, int n_groups,
                     const int *groups, const struct fe_bcs *const *bcs,
                     const struct fe_vec *lumped, int advected, struct fe_budget **out)
{
  struct fe_budget *b;
  FE_CALLOC(1, &b);
  *b = (struct fe_budget){.be = space->be,
                          .space = space,
                          .n_groups = n_groups,
                          .groups = groups,
                          .advected = advected,
                          .lumped = lumped,
                          .n_tracers = c->n_tracers};
  int err = facet_list(b, space->mesh);
  long n = b->n_facets > space->n_cells ? b->n_facets : space->n_cells;
  n = n > space->n_nodes ? n : space->n_nodes;
  if (!err) err = fe_vec_create(b->be, (size_t)n, &b->ones);
  if (!err) err = fe_vec_set(b->ones, 1.0);
  if (!err) err = cell_weights(b);
  b->source_weights = c->loads == FE_LOADS_QUADRATURE ? b->ones : lumped;
  if (!err) err = fe_calloc((size_t)c->n_tracers, sizeof *b->tracers, &b->tracers);
  for (int k = 0; !err && k < c->n_tracers; k++)
    err = tracer_create(b, c, &c->tracers[k], bcs[k], &b->tracers[k]);
  const int most = c->n_tracers * (4 * n_groups + 3); /* partials a step queues */
  for (int i = 0; !err && i < 2; i++) {
    struct fe_budget_queued *q = &b->queued[i];
    err = fe_readout_create(b->be, most * FE_READOUT_REDUCTION, &q->readout);
    if (!err) err = fe_calloc((size_t)most, sizeof *q->at, &q->at);
    if (!err) err = fe_calloc((size_t)most, sizeof *q->into, &q->into);
  }
  if (err) {
    fe_budget_destroy(b);
    return err;
  }
  *out = b;
  return FE_SUCCESS;
}

static void tracer_destroy(const struct fe_budget *b, struct fe_budget_tracer *bt)
{
  struct fe_vec *v[] = {bt->facets,        bt->divergence, bt->absorption,   bt->source,
                        bt->neumann_slots, bt->neumann,    bt->reaction_adv, bt->reaction_diff,
                        bt->fct_reaction,  bt->before};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) fe_vec_destroy(v[i]);
  for (int g = 0; g < b->n_groups; g++) {
    if (bt->dirichlet) fe_vec_destroy(bt->dirichlet[g]);
    if (bt->slots) fe_vec_destroy(bt->slots[g]);
  }
  free(bt->dirichlet);
  free(bt->slots);
  free(bt->advective);
  free(bt->diffusive);
}

void fe_budget_destroy(struct fe_budget *b)
{
  if (!b) return;
  for (int k = 0; b->tracers && k < b->n_tracers; k++) tracer_destroy(b, &b->tracers[k]);
  free(b->tracers);
  for (int i = 0; i < 2; i++) {
    fe_readout_destroy(b->queued[i].readout);
    free(b->queued[i].at);
    free(b->queued[i].into);
  }
  fe_vec_destroy(b->ones);
  fe_vec_destroy(b->own_cells);
  fe_backend_free(b->be, b->facet_nodes);
  free(b->first_facet);
  free(b);
}

int fe_budget_labels(const struct fe_mesh *m, int n, const int *groups, char ***labels)
{
  FE_CALLOC(n + 1, labels);
  for (int i = 0; i < n; i++) {
    const struct fe_physical *g = &m->groups[groups[i]];
    int usable = g->name[0] != '\0';
    for (const char *p = g->name; *p; p++)
      usable &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                *p == '_' || *p == '-' || *p == '.';
    for (int j = 0; j < n; j++) usable &= j == i || strcmp(m->groups[groups[j]].name, g->name) != 0;
    if (usable)
      FE_CALL(fe_strdup(g->name, &(*labels)[i]));
    else
      FE_CALL(fe_path_printf(&(*labels)[i], "%d", g->tag));
  }
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- during a step */

int fe_budget_begin(struct fe_budget *b)
{
  for (int k = 0; k < b->n_tracers; k++) {
    struct fe_budget_tracer *bt = &b->tracers[k];
    struct fe_vec *v[] = {bt->facets,  bt->divergence,   bt->absorption,   bt->source,
                          bt->neumann, bt->reaction_adv, bt->reaction_diff};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
      if (v[i]) FE_CALL(fe_vec_set(v[i], 0.0));
  }
  return FE_SUCCESS;
}

int fe_budget_flow(struct fe_budget *b, int k, const double *u, double beta, const struct fe_vec *x,
                   double w)
{
  struct fe_budget_tracer *bt = &b->tracers[k];
  FE_CALL(fe_vec_update_ghosts(x)); /* the cells and facets read the ghosts */
  FE_CALL(
      fe_flux_facets(b->space, b->n_facets, b->facet_nodes, u, x->a, -w, fe_vec_write(bt->facets)));
  if (beta == 1) return FE_SUCCESS;
  return fe_flux_cells(b->space, u, NULL, 0, x->a, w * (1 - beta), fe_vec_write(bt->divergence));
}

int fe_budget_absorb(struct fe_budget *b, int k, const double *lambda, int uniform,
                     const struct fe_vec *x, double w)
{
  FE_CALL(fe_vec_update_ghosts(x)); /* the cells read the ghosts */
  return fe_flux_cells(b->space, NULL, lambda, uniform, x->a, w,
                       fe_vec_write(b->tracers[k].absorption));
}

int fe_budget_jump(struct fe_budget *b, int k, const struct fe_vec *t)
{
  struct fe_budget_tracer *bt = &b->tracers[k];
  FE_CALL(fe_vec_axpby(bt->before, 1.0, t, -1.0));
  FE_CALL(fe_vec_pointwise_mult(bt->before, bt->before, b->lumped));
  return fe_vec_axpy(bt->reaction_adv, 1.0, bt->before);
}

/* ---------------------------------------------------------------- the step's rates */

/* x . y over n entries (x NULL: none, 0) queued into q, to be added into the step's sum
 * number `into` at its end.  Every process queues every partial, also of none, so that all
 * queue the same values (solvers/readout.h). */
static int partial(struct fe_budget_queued *q, size_t n, const double *x, const double *y, int into)
{
  q->into[q->n] = into;
  FE_CALL(fe_readout_dot_arrays(q->readout, x ? n : 0, x ? x : y, y, &q->at[q->n]));
  q->n++;
  return FE_SUCCESS;
}

static const double *values(const struct fe_vec *v) { return v ? v->a : NULL; }

/* Tracer k's partial sums queued: per group the advective and diffusive parts, then the
 * source, the absorption and the divergence (sums 2 n_groups + 3 of them from `base`). */
static int queue_tracer(const struct fe_budget *b, struct fe_budget_queued *q, int k, int base)
{
  const struct fe_budget_tracer *bt = &b->tracers[k];
  const double *ones = b->ones->a, *own_cells = b->own_cells ? b->own_cells->a : ones;
  /* node sums over the owned entries (a periodic unknown's copies, numbered last, hold its
   * values again; a part's ghosts are other processes' nodes, their sums incomplete); cell and
   * facet sums over those this process counts */
  const size_t n = (size_t)b->space->n_owned, cells = (size_t)b->space->n_cells;
  for (int g = 0; g < b->n_groups; g++) {
    const long first = b->first_facet[g], count = b->first_facet[g + 1] - first;
    const int adv = base + 2 * g, diff = base + 2 * g + 1;
    if (b->advected) FE_CALL(partial(q, (size_t)count, bt->facets->a + first, ones, adv));
    FE_CALL(partial(q, n, values(bt->dirichlet[g]), bt->reaction_adv->a, adv));
    FE_CALL(partial(q, n, values(bt->dirichlet[g]), bt->reaction_diff->a, diff));
    if (bt->neumann)
      FE_CALL(partial(q, bt->neumann->n, values(bt->slots[g]), bt->neumann->a, diff));
  }
  const int rest = base + 2 * b->n_groups;
  if (bt->source) FE_CALL(partial(q, n, bt->source->a, b->source_weights->a, rest));
  if (bt->absorption) FE_CALL(partial(q, cells, bt->absorption->a, own_cells, rest + 1));
  if (b->advected) FE_CALL(partial(q, cells, bt->divergence->a, own_cells, rest + 2));
  return FE_SUCCESS;
}

int fe_budget_queue(struct fe_budget *b, long step)
{
  struct fe_budget_queued *q = &b->queued[step & 1];
  fe_readout_clear(q->readout, step);
  q->n = 0;
  const int per = 2 * b->n_groups + 3;
  for (int k = 0; k < b->n_tracers; k++) FE_CALL(queue_tracer(b, q, k, k * per));
  return fe_readout_post(q->readout);
}

int fe_budget_end(struct fe_budget *b, long step, double h)
{
  struct fe_budget_queued *q = &b->queued[step & 1];
  FE_CALL(fe_readout_wait(q->readout, step));
  const int per = 2 * b->n_groups + 3, all = per * b->n_tracers;
  double *sums;
  FE_CALLOC(all, &sums);
  for (int i = 0; i < q->n; i++) sums[q->into[i]] += fe_readout_values(q->readout, q->at[i])[0];
  for (int k = 0; k < b->n_tracers; k++) {
    struct fe_budget_tracer *bt = &b->tracers[k];
    const double *s = sums + k * per;
    for (int g = 0; g < b->n_groups; g++) {
      bt->advective[g] = s[2 * g] / h;
      bt->diffusive[g] = s[2 * g + 1] / h;
    }
    bt->source_rate = s[2 * b->n_groups] / h;
    bt->absorption_rate = s[2 * b->n_groups + 1] / h;
    bt->divergence_rate = s[2 * b->n_groups + 2] / h;
  }
  free(sums);
  return FE_SUCCESS;
}
