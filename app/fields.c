#include "app/fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/element.h"
#include "assembly/load.h"
#include "core/error.h"

/* Where node n's values are evaluated: at the node, or for a copy of a periodic unknown at its
 * owner, whose values it takes (assembly/node.h, fe_point_evaluate, does the same). */
static void node_point(const struct fe_mesh *m, long n, double p[3])
{
  const long o = fe_mesh_owner(m, (int)n);
  p[0] = p[1] = p[2] = 0;
  for (int a = 0; a < m->dim; a++) p[a] = m->coords[o * m->dim + a];
}

static void centroid(const struct fe_mesh *m, long c, double p[3])
{
  p[0] = p[1] = p[2] = 0;
  for (int v = 0; v < m->nv; v++)
    for (int a = 0; a < m->dim; a++)
      p[a] += m->coords[(long)m->cells[c * m->nv + v] * m->dim + a] / m->nv;
}

/* "case.xml:12: <initial>" from the expression's "case.xml:12 (<initial>)",
 * the element shown inside `parent` when there is one. */
static const char *expr_where(const struct fe_expr *e, const char *parent, char *buf, size_t size)
{
  const char *w = fe_expr_where(e), *open = NULL;
  for (const char *s = strstr(w, " (<"); s; s = strstr(s + 1, " (<")) open = s;
  const size_t len = strlen(w);
  if (!open || len < 2 || strcmp(w + len - 2, ">)"))
    snprintf(buf, size, "%s", w);
  else
    snprintf(buf, size, "%.*s: %s<%.*s>", (int)(open - w), w, parent ? parent : "",
             (int)(w + len - 2 - (open + 3)), open + 3);
  return buf;
}

/* Where an expression is evaluated: at a node, at the centroid of a cell, at a quadrature
 * point of a cell or of a boundary facet (the loads: assembly/load.h). */
enum point_kind { AT_NODE, AT_CENTROID, AT_CELL_POINT, AT_FACET_POINT };

/* "the node (x, y) = (...)", "the centroid (x, y, z) = (...) of element N", "the quadrature
 * point (x, y) = (...) of element N", "... of boundary element N" (N the Gmsh tag of the cell
 * or facet `index`). */
static const char *point_name(const struct fe_mesh *m, enum point_kind kind, long index,
                              const double p[3], char *buf, size_t size)
{
  static const char *const what[] = {"the node", "the centroid", "the quadrature point",
                                     "the quadrature point"};
  char xyz[96];
  if (m->dim == 2)
    snprintf(xyz, sizeof xyz, "(x, y) = (%g, %g)", p[0], p[1]);
  else
    snprintf(xyz, sizeof xyz, "(x, y, z) = (%g, %g, %g)", p[0], p[1], p[2]);
  if (kind == AT_NODE)
    snprintf(buf, size, "%s %s", what[kind], xyz);
  else if (kind == AT_FACET_POINT)
    snprintf(buf, size, "%s %s of boundary element %zu", what[kind], xyz,
             m->facet_id ? m->facet_id[index] : (size_t)index + 1);
  else
    snprintf(buf, size, "%s %s of element %zu", what[kind], xyz, m->cell_id[index]);
  return buf;
}

static int not_finite_at(const struct fe_expr *e, const char *parent, const struct fe_mesh *m,
                         enum point_kind kind, long index, const double p[3], double t, double v)
{
  char where[4200], point[200], text[FE_QUOTE_SIZE];
  FE_RAISE(FE_ERR_INPUT, "%s: expression %s is %s at %s, t = %g; expected a finite value",
           expr_where(e, parent, where, sizeof where),
           fe_quote(fe_expr_text(e), FE_QUOTE_MAX, text, sizeof text),
           isnan(v) ? "nan"
           : v > 0  ? "inf"
                    : "-inf",
           point_name(m, kind, index, p, point, sizeof point), t);
}

/* A value at a node (cell < 0) or at the centroid of cell `cell` that is not finite. */
static int not_finite(const struct fe_expr *e, const char *parent, const struct fe_mesh *m,
                      long cell, const double p[3], double t, double v)
{
  return not_finite_at(e, parent, m, cell < 0 ? AT_NODE : AT_CENTROID, cell, p, t, v);
}

/* What the value functions of eval_items read: the expression (or the case's velocity, the
 * tracer's coefficients), the mesh, the time, the cells' rule, where the values go (stride of
 * them an item, 0: none kept), and whether they are the same at every item (no expression
 * depends on x, y or z). */
struct eval_at {
  const struct fe_case *c;
  const struct fe_tracer *tr;
  const struct fe_expr *e;
  const struct fe_mesh *m;
  struct fe_quadrature q;
  double t;
  double *out;
  int stride, uniform;
};

/* The values at items 0..n-1 (nodes, cells, ...): value(i, a, 0) writes item i's and is
 * nonzero where they are wrong.  Evaluated in parallel; the first wrong item is evaluated again
 * with its message (value(i, a, 1) returns the error), so that the message names the same
 * item whatever the threads.  Uniform values: item 0's, checked with its message, copied. */
static int eval_items(long n, int (*value)(long i, const struct eval_at *a, int report),
                      const struct eval_at *a)
{
  if (a->uniform && n > 0) {
    FE_CALL(value(0, a, 1));
    const int k = a->stride;
    if (!k) return FE_SUCCESS;
#pragma omp parallel for schedule(static)
    for (long i = 1; i < n; i++) memcpy(a->out + i * k, a->out, (size_t)k * sizeof *a->out);
    return FE_SUCCESS;
  }
  long bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (long i = 0; i < n; i++)
    if (i < bad && value(i, a, 0)) bad = i;
  return bad < n ? value(bad, a, 1) : FE_SUCCESS;
}

/* None of the n expressions e depends on x, y or z. */
static int uniform(int n, const struct fe_expr *const *e)
{
  for (int k = 0; k < n; k++)
    if (fe_expr_depends_on_space(e[k])) return 0;
  return 1;
}

static int node_value(long n, const struct eval_at *a, int report)
{
  double p[3];
  node_point(a->m, n, p);
  a->out[n] = fe_expr_eval(a->e, p, a->t);
  if (isfinite(a->out[n])) return FE_SUCCESS;
  return report ? not_finite(a->e, NULL, a->m, -1, p, a->t, a->out[n]) : 1;
}

int fe_eval_nodes(const struct fe_expr *e, const struct fe_mesh *m, double t, double *out)
{
  const struct eval_at a = {
      .e = e, .m = m, .t = t, .out = out, .stride = 1, .uniform = uniform(1, &e)};
  return eval_items(m->n_nodes, node_value, &a);
}

static int velocity_value(long n, const struct eval_at *a, int report)
{
  const struct fe_mesh *m = a->m;
  double p[3];
  node_point(m, n, p);
  for (int d = 0; d < m->dim; d++) {
    const double v = fe_expr_eval(a->c->velocity[d], p, a->t);
    if (!isfinite(v))
      return report ? not_finite(a->c->velocity[d], "<velocity>", m, -1, p, a->t, v) : 1;
    a->out[n * m->dim + d] = v;
  }
  return FE_SUCCESS;
}

int fe_eval_velocity(const struct fe_case *c, const struct fe_mesh *m, double t, double *out)
{
  const struct eval_at a = {.c = c,
                            .m = m,
                            .t = t,
                            .out = out,
                            .stride = m->dim,
                            .uniform = uniform(m->dim, (const struct fe_expr *const *)c->velocity)};
  return eval_items(m->n_nodes, velocity_value, &a);
}

/* Positive semi-definite by the principal minors (tolerance relative to the
 * largest diagonal entry); otherwise `why` says which minor is negative. */
static int is_psd(int d, const double *s, char *why, size_t size)
{
  static const char axis[] = "xyz";
  int a, b;
  double v;
  switch (fe_sym_psd_failure(d, s, &a, &b, &v)) {
  case 0: return 1;
  case 1: snprintf(why, size, "%c%c = %g < 0", axis[a], axis[a], v); break;
  case 2:
    snprintf(why, size, "%c%c %c%c - %c%c^2 = %g < 0", axis[a], axis[a], axis[b], axis[b], axis[a],
             axis[b], v);
    break;
  default: snprintf(why, size, "its determinant is %g < 0", v);
  }
  return 0;
}

static int not_psd(const struct fe_case *c, const struct fe_tracer *tr, const struct fe_mesh *m,
                   long e, const double *s, const double p[3], double t, const char *why)
{
  char point[200], values[160] = "", shown[FE_QUOTE_SIZE], text[FE_QUOTE_SIZE];
  point_name(m, AT_CENTROID, e, p, point, sizeof point);
  if (tr->n_diffusivity == 1)
    FE_RAISE(FE_ERR_INPUT,
             "%s:%d: <diffusivity>: %s is %g at %s, t = %g; expected a diffusivity >= 0",
             fe_path_shown(c->path, shown, sizeof shown), tr->diffusivity_line,
             fe_quote(fe_expr_text(tr->diffusivity[0]), FE_QUOTE_MAX, text, sizeof text), s[0],
             point, t);
  for (int k = 0; k < FE_NSYM(m->dim); k++)
    snprintf(values + strlen(values), sizeof values - strlen(values), "%s%g", k ? " " : "", s[k]);
  FE_RAISE(FE_ERR_INPUT,
           "%s:%d: <diffusivity>: the tensor (%s) = (%s) at %s, t = %g, is not positive "
           "semi-definite: %s; expected a symmetric positive semi-definite tensor",
           fe_path_shown(c->path, shown, sizeof shown), tr->diffusivity_line,
           m->dim == 2 ? "xx xy yy" : "xx xy xz yy yz zz", values, point, t, why);
}

static int diffusivity_value(long e, const struct eval_at *a, int report)
{
  const struct fe_tracer *tr = a->tr;
  const int d = a->m->dim, ns = FE_NSYM(d);
  double *s = a->out + e * ns, p[3];
  centroid(a->m, e, p);
  for (int k = 0; k < tr->n_diffusivity; k++) {
    s[k] = fe_expr_eval(tr->diffusivity[k], p, a->t);
    if (!isfinite(s[k]))
      return report ? not_finite(tr->diffusivity[k], tr->n_diffusivity > 1 ? "<diffusivity>" : NULL,
                                 a->m, e, p, a->t, s[k])
                    : 1;
  }
  if (tr->n_diffusivity == 1) {
    double k = s[0];
    for (int j = 0; j < ns; j++) s[j] = 0;
    for (int b = 0, j = 0; b < d; j += d - b, b++) s[j] = k; /* diagonal slots: 0, d, ... */
  }
  char why[96];
  if (is_psd(d, s, why, sizeof why)) return FE_SUCCESS;
  return report ? not_psd(a->c, tr, a->m, e, s, p, a->t, why) : 1;
}

int fe_eval_diffusivity(const struct fe_case *c, const struct fe_tracer *tr,
                        const struct fe_mesh *m, double t, double *out)
{
  const int d = m->dim, ns = FE_NSYM(d);
  char shown[FE_QUOTE_SIZE];
  FE_CHECK(tr->n_diffusivity == 1 || tr->n_diffusivity == ns, FE_ERR_INPUT,
           "%s:%d: <diffusivity>: %d tensor components for a %dD mesh; expected a scalar or the %d "
           "components %s",
           fe_path_shown(c->path, shown, sizeof shown), tr->diffusivity_line, tr->n_diffusivity, d,
           ns, d == 2 ? "xx xy yy" : "xx xy xz yy yz zz");
  const struct eval_at a = {
      .c = c,
      .tr = tr,
      .m = m,
      .t = t,
      .out = out,
      .stride = ns,
      .uniform = uniform(tr->n_diffusivity, (const struct fe_expr *const *)tr->diffusivity)};
  return eval_items(m->n_cells, diffusivity_value, &a);
}

static int absorption_value(long e, const struct eval_at *a, int report)
{
  const struct fe_tracer *tr = a->tr;
  double p[3];
  centroid(a->m, e, p);
  const double v = a->out[e] = fe_expr_eval(tr->absorption, p, a->t);
  if (!isfinite(v)) return report ? not_finite(tr->absorption, NULL, a->m, e, p, a->t, v) : 1;
  if (v >= 0) return FE_SUCCESS;
  if (!report) return 1;
  char point[200], shown[FE_QUOTE_SIZE], text[FE_QUOTE_SIZE];
  FE_RAISE(FE_ERR_INPUT, "%s:%d: <absorption>: %s is %g at %s, t = %g; expected a rate >= 0",
           fe_path_shown(a->c->path, shown, sizeof shown), tr->absorption_line,
           fe_quote(fe_expr_text(tr->absorption), FE_QUOTE_MAX, text, sizeof text), v,
           point_name(a->m, AT_CENTROID, e, p, point, sizeof point), a->t);
}

int fe_eval_absorption(const struct fe_case *c, const struct fe_tracer *tr, const struct fe_mesh *m,
                       double t, double *out)
{
  const struct eval_at a = {.c = c,
                            .tr = tr,
                            .m = m,
                            .t = t,
                            .out = out,
                            .stride = 1,
                            .uniform = uniform(1, (const struct fe_expr *const *)&tr->absorption)};
  return eval_items(m->n_cells, absorption_value, &a);
}

int fe_eval_dirichlet(const struct fe_tracer *tr, const struct fe_mesh *m, const struct fe_bcs *bcs,
                      double t, double *out)
{
  double p[3];
  for (long k = 0; k < bcs->n_dirichlet; k++) {
    const struct fe_expr *e = tr->boundaries[bcs->dirichlet_bc[k]].value;
    node_point(m, bcs->dirichlet[k], p);
    out[k] = fe_expr_eval(e, p, t);
    if (!isfinite(out[k])) return not_finite(e, NULL, m, -1, p, t, out[k]);
  }
  return FE_SUCCESS;
}

/* The coordinates of the vertices of boundary facet f (its dim node indices). */
static void facet_coords(const struct fe_mesh *m, const int *f, double x[4][3])
{
  for (int v = 0; v < m->dim; v++)
    for (int a = 0; a < m->dim; a++) x[v][a] = m->coords[(long)f[v] * m->dim + a];
}

double fe_facet_measure(const struct fe_mesh *m, const int *f)
{
  double x[4][3] = {{0}};
  facet_coords(m, f, x);
  return fe_facet_measure_at(m->dim, x);
}

int fe_eval_neumann(const struct fe_tracer *tr, const struct fe_mesh *m, const struct fe_bcs *bcs,
                    double t, double *out)
{
  const int d = m->dim;
  memset(out, 0, (size_t)m->n_nodes * sizeof *out);
  double p[3];
  for (int k = 0; k < bcs->n_neumann_facets; k++) {
    const int *f = m->facets + (long)bcs->neumann_facet[k] * d;
    const struct fe_expr *e = tr->boundaries[bcs->neumann_bc[k]].value;
    double g[3];
    for (int v = 0; v < d; v++) {
      node_point(m, f[v], p);
      g[v] = fe_expr_eval(e, p, t);
      if (!isfinite(g[v])) return not_finite(e, NULL, m, -1, p, t, g[v]);
    }
    /* facet mass matrix: |F| (1 + delta_ij) / (d (d + 1)) */
    const double w = fe_facet_measure(m, f) / (d * (d + 1));
    for (int i = 0; i < d; i++)
      for (int j = 0; j < d; j++) out[f[i]] += w * (i == j ? 2 : 1) * g[j];
  }
  return FE_SUCCESS;
}

/* Loads by quadrature evaluate the source at the points of each cell's rule. */
static int cell_points_value(long c, const struct eval_at *a, int report)
{
  const struct fe_mesh *m = a->m;
  double x[4][3] = {{0}}, p[3];
  fe_cell_coords(m->dim, m->cells, m->coords, c, x);
  for (int k = 0; k < a->q.n; k++) {
    fe_quadrature_point(&a->q, k, m->dim, x, p);
    const double v = fe_expr_eval(a->e, p, a->t);
    if (!isfinite(v))
      return report ? not_finite_at(a->e, NULL, m, AT_CELL_POINT, c, p, a->t, v) : 1;
  }
  return FE_SUCCESS;
}

static int eval_cell_points(const struct fe_expr *e, const struct fe_mesh *m, double t)
{
  struct eval_at a = {.e = e, .m = m, .t = t, .uniform = uniform(1, &e)};
  fe_quadrature_simplex(m->dim, &a.q);
  return eval_items(m->n_cells, cell_points_value, &a);
}

/* ... and the Neumann fluxes at the points of each Neumann facet's rule. */
static int eval_neumann_points(const struct fe_tracer *tr, const struct fe_mesh *m,
                               const struct fe_bcs *bcs, double t)
{
  struct fe_quadrature q;
  fe_quadrature_simplex(m->dim - 1, &q);
  for (int k = 0; k < bcs->n_neumann_facets; k++) {
    const int f = bcs->neumann_facet[k];
    const struct fe_expr *e = tr->boundaries[bcs->neumann_bc[k]].value;
    double x[4][3] = {{0}}, p[3];
    facet_coords(m, m->facets + (long)f * m->dim, x);
    for (int j = 0; j < q.n; j++) {
      fe_quadrature_point(&q, j, m->dim, x, p);
      const double v = fe_expr_eval(e, p, t);
      if (!isfinite(v)) return not_finite_at(e, NULL, m, AT_FACET_POINT, f, p, t, v);
    }
  }
  return FE_SUCCESS;
}

int fe_eval_source(const struct fe_case *c, const struct fe_tracer *tr, const struct fe_mesh *m,
                   double t, double *work)
{
  if (c->loads == FE_LOADS_QUADRATURE) return eval_cell_points(tr->source, m, t);
  return fe_eval_nodes(tr->source, m, t, work);
}

int fe_eval_neumann_flux(const struct fe_case *c, const struct fe_tracer *tr,
                         const struct fe_mesh *m, const struct fe_bcs *bcs, double t, double *work)
{
  if (c->loads == FE_LOADS_QUADRATURE) return eval_neumann_points(tr, m, bcs, t);
  return fe_eval_neumann(tr, m, bcs, t, work);
}

long fe_eval_max_values(const struct fe_mesh *m, const struct fe_bcs *bcs)
{
  long n = (long)m->n_nodes * m->dim;
  if ((long)m->n_cells * FE_NSYM(m->dim) > n) n = (long)m->n_cells * FE_NSYM(m->dim);
  return bcs->n_dirichlet > n ? bcs->n_dirichlet : n;
}

int fe_case_time_dependent_velocity(const struct fe_case *c)
{
  for (int a = 0; a < c->n_velocity; a++)
    if (fe_expr_depends_on_t(c->velocity[a])) return 1;
  return 0;
}

int fe_tracer_time_dependent_diffusivity(const struct fe_tracer *tr)
{
  for (int k = 0; k < tr->n_diffusivity; k++)
    if (fe_expr_depends_on_t(tr->diffusivity[k])) return 1;
  return 0;
}

/* Words joined by one space: an attribute's list of physical groups as written. */
static const char *refs_text(int n, char *const *refs, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int r = 0; r < n; r++)
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", r ? " " : "", refs[r]);
  return buf;
}

/* The physical attribute of a <boundary> as written. */
static const char *boundary_text(const struct fe_boundary *bd, char *buf, size_t size)
{
  return refs_text(bd->n_refs, bd->refs, buf, size);
}

static const char *const group_kind[] = {"points", "curves", "surfaces", "volumes"};

/* "4 and 7", "4, 7 and 9", "4, 7, 9, ... (20 groups)". */
static void list_tags(const struct fe_physical *const *g, int n, int total, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    const size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%d", !i ? "" : i == total - 1 ? " and " : ", ", g[i]->tag);
  }
  if (total > n) snprintf(buf + strlen(buf), size - strlen(buf), ", ... (%d groups)", total);
}

/* Where a list of groups is written: the case file, the line, the element and its attribute
 * (<boundary physical="a b">, <fluxes boundaries="a b">). */
struct group_list {
  const struct fe_case *c;
  int line;
  const char *element, *attr;
  int n_refs;
  char *const *refs;
};

/* "case.xml:12: <fluxes boundaries=\"a b\">" */
static const char *list_where(const struct group_list *l, char *buf, size_t size)
{
  char shown[FE_QUOTE_SIZE], attr[512];
  snprintf(buf, size, "%s:%d: <%s %s=\"%s\">", fe_path_shown(l->c->path, shown, sizeof shown),
           l->line, l->element, l->attr, refs_text(l->n_refs, l->refs, attr, sizeof attr));
  return buf;
}

/* A name given to several boundary groups of the mesh (io/mesh.c warns when
 * the mesh is read): which one is meant cannot be told. */
static int shared_name(const struct group_list *l, const struct fe_mesh *m, const char *ref)
{
  enum { SHOWN = 6 };
  const struct fe_physical *g[SHOWN];
  const int n = fe_mesh_groups_named(m, m->dim - 1, ref, g, SHOWN);
  if (n < 2) return FE_SUCCESS;
  char where[1024], tags[128];
  list_tags(g, n < SHOWN ? n : SHOWN, n, tags, sizeof tags);
  FE_RAISE(FE_ERR_INPUT,
           "%s: the mesh %s gives the physical name '%s' to %d groups of %s, %s; expected a name "
           "of one group: refer to the group by its number, e.g. %s=\"%d\"",
           list_where(l, where, sizeof where), m->path, ref, n, group_kind[m->dim - 1], tags,
           l->attr, g[0]->tag);
}

/* The physical groups of a list, as indices in m->groups; FE_ERR_INPUT for a name or number
 * that is not a boundary group of the mesh, and for a name that several of them have. */
static int find_groups(const struct group_list *l, const struct fe_mesh *m, int *groups)
{
  for (int r = 0; r < l->n_refs; r++) {
    const char *ref = l->refs[r];
    FE_CALL(shared_name(l, m, ref));
    const struct fe_physical *g = fe_mesh_find_group(m, m->dim - 1, ref);
    if (g) {
      groups[r] = (int)(g - m->groups);
      continue;
    }
    char list[512] = "", where[1024], region[160] = "";
    for (int k = 0; k < m->n_groups; k++)
      if (m->groups[k].dim == m->dim - 1) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s (%d)", len ? ", " : "",
                 m->groups[k].name[0] ? m->groups[k].name : "unnamed", m->groups[k].tag);
      }
    if (fe_mesh_find_group(m, m->dim, ref))
      snprintf(region, sizeof region, " ('%s' is a group of %s, a region of the domain)", ref,
               group_kind[m->dim]);
    FE_RAISE(FE_ERR_INPUT,
             "%s: the mesh %s has no boundary physical group '%s'%s; expected a group of %s, one "
             "of: %s",
             list_where(l, where, sizeof where), m->path, ref, region, group_kind[m->dim - 1],
             list[0] ? list : "none (the mesh has no boundary groups)");
  }
  return FE_SUCCESS;
}

/* The physical groups of one <boundary>, as indices in m->groups. */
static int resolve_refs(const struct fe_case *c, const struct fe_tracer *tr,
                        const struct fe_mesh *m, int b, int *groups)
{
  const struct fe_boundary *bd = &tr->boundaries[b];
  const struct group_list l = {c, bd->line, "boundary", "physical", bd->n_refs, bd->refs};
  return find_groups(&l, m, groups);
}

int fe_flux_groups_find(const struct fe_case *c, const struct fe_mesh *m, int *groups, int *n)
{
  *n = 0;
  if (!c->n_flux_refs) {
    for (int k = 0; k < m->n_groups; k++)
      if (m->groups[k].dim == m->dim - 1) groups[(*n)++] = k;
    return FE_SUCCESS;
  }
  const struct group_list l = {c,           c->fluxes_line, "fluxes", "boundaries", c->n_flux_refs,
                               c->flux_refs};
  FE_CALL(find_groups(&l, m, groups));
  for (int r = 0; r < c->n_flux_refs; r++)
    for (int q = 0; q < r; q++) {
      char where[1024];
      FE_CHECK(groups[q] != groups[r], FE_ERR_INPUT,
               "%s: '%s' is physical group %d, listed already as '%s'; expected each group once",
               list_where(&l, where, sizeof where), c->flux_refs[r], m->groups[groups[r]].tag,
               c->flux_refs[q]);
    }
  *n = c->n_flux_refs;
  return FE_SUCCESS;
}

static int cmp_tag_index(const void *a, const void *b)
{
  const int *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* group[f]: the index in m->groups of the boundary group of facet f, -1 for none. */
static int facet_groups(const struct fe_mesh *m, int *group)
{
  int *pairs, n = 0; /* (tag, index) of the boundary groups, by tag */
  FE_MALLOC(2 * (size_t)m->n_groups + 2, &pairs);
  for (int k = 0; k < m->n_groups; k++)
    if (m->groups[k].dim == m->dim - 1) {
      pairs[2 * n] = m->groups[k].tag;
      pairs[2 * n++ + 1] = k;
    }
  qsort(pairs, (size_t)n, 2 * sizeof *pairs, cmp_tag_index);
  for (int f = 0; f < m->n_facets; f++) {
    const int *hit =
        bsearch(&m->facet_group[f], pairs, (size_t)n, 2 * sizeof *pairs, cmp_tag_index);
    group[f] = hit ? hit[1] : -1;
  }
  free(pairs);
  return FE_SUCCESS;
}

/* Where the facets of a group lie: inside the domain (two cells have them),
 * or on no cell at all; the first of each (facet index). */
struct group_facets {
  long n, inside, none;
  int first_inside, first_none;
};

static void count_group_facets(const struct fe_mesh *m, const int *group, struct group_facets *st)
{
  for (int k = 0; k < m->n_groups; k++)
    st[k] = (struct group_facets){.first_inside = -1, .first_none = -1};
  for (int f = 0; f < m->n_facets; f++) {
    if (group[f] < 0) continue;
    struct group_facets *s = &st[group[f]];
    const int cells = m->facet_cells ? m->facet_cells[f] : 1;
    s->n++;
    if (cells == 2 && !s->inside++) s->first_inside = f;
    if (cells == 0 && !s->none++) s->first_none = f;
  }
}

/* "physical group 'cut' (5)", or "physical group 5" when it has no name. */
static const char *group_name(const struct fe_physical *g, char *buf, size_t size)
{
  char quoted[FE_QUOTE_SIZE];
  if (g->name[0])
    snprintf(buf, size, "physical group %s (%d)",
             fe_quote(g->name, FE_QUOTE_MAX, quoted, sizeof quoted), g->tag);
  else
    snprintf(buf, size, "physical group %d", g->tag);
  return buf;
}

/* " (and so are 3 other edges of the group)", "" for none. */
static const char *and_others(long others, const char *facets, char *buf, size_t size)
{
  if (others <= 0)
    buf[0] = '\0';
  else
    snprintf(buf, size, " (and so %s %ld other %.*s%s of the group)", others > 1 ? "are" : "is",
             others, (int)strlen(facets) - 1, facets, others > 1 ? "s" : "");
  return buf;
}

static size_t facet_tag(const struct fe_mesh *m, int f)
{
  return m->facet_id ? m->facet_id[f] : (size_t)f + 1;
}

/* Facets that are no facet of a cell: an error for any condition; facets
 * inside the domain: an error for a Neumann condition (a flux through the
 * inside of the domain is not a boundary condition). */
static int facets_error(const struct fe_case *c, const struct fe_tracer *tr,
                        const struct fe_mesh *m, int b, int g, const struct group_facets *s)
{
  static const char *const facet[] = {"", "", "an edge", "a face"};
  static const char *const facets[] = {"", "", "edges", "faces"};
  static const char *const cell[] = {"", "", "triangle", "tetrahedron"};
  static const char *const cells[] = {"", "", "triangles", "tetrahedra"};
  const struct fe_boundary *bd = &tr->boundaries[b];
  char attr[512], name[320], others[96], buf[FE_QUOTE_SIZE];
  boundary_text(bd, attr, sizeof attr);
  group_name(&m->groups[g], name, sizeof name);
  const char *shown = fe_path_shown(c->path, buf, sizeof buf), *mesh = m->path;
  const int d = m->dim;
  FE_CHECK(!s->none, FE_ERR_INPUT,
           "%s:%d: <boundary physical=\"%s\">: element %zu of %s is not %s of any %s of the "
           "mesh %s%s; expected %s of the %s, on the boundary of the domain",
           shown, bd->line, attr, facet_tag(m, s->first_none), name, facet[d], cell[d], mesh,
           and_others(s->none - 1, facets[d], others, sizeof others), facets[d], cells[d]);
  FE_CHECK(!s->inside || bd->kind != FE_BC_NEUMANN, FE_ERR_INPUT,
           "%s:%d: <boundary physical=\"%s\">: a Neumann condition inside the domain: element %zu "
           "of %s is %s shared by two %s of the mesh %s%s; expected %s on the boundary of the "
           "domain: a flux through the inside of the domain is not a boundary condition",
           shown, bd->line, attr, facet_tag(m, s->first_inside), name, facet[d], cells[d], mesh,
           and_others(s->inside - 1, facets[d], others, sizeof others), facets[d]);
  return FE_SUCCESS;
}

/* A Dirichlet condition on facets inside the domain holds the value on an
 * internal line or surface: legitimate, but rarely meant. */
static void facets_warning(const struct fe_case *c, const struct fe_tracer *tr,
                           const struct fe_mesh *m, int b, int g, const struct group_facets *s)
{
  static const char *const facets[] = {"", "", "edges", "faces"};
  const struct fe_boundary *bd = &tr->boundaries[b];
  if (!s->inside || bd->kind != FE_BC_DIRICHLET) return;
  char attr[512], name[320], shown[FE_QUOTE_SIZE];
  const char *mesh = m->path;
  fe_warn("%s:%d: <boundary physical=\"%s\">: %ld of the %ld %s of %s %s inside the domain of "
          "the mesh %s (element %zu, for one, is shared by two %s); the Dirichlet value holds "
          "there too, as on an internal wall",
          fe_path_shown(c->path, shown, sizeof shown), bd->line,
          boundary_text(bd, attr, sizeof attr), s->inside, s->n, facets[m->dim],
          group_name(&m->groups[g], name, sizeof name), s->inside > 1 ? "lie" : "lies", mesh,
          facet_tag(m, s->first_inside), m->dim == 2 ? "triangles" : "tetrahedra");
}

/* A group on a periodic boundary: its facets lie inside the periodic domain, and its nodes are
 * copies of others or have copies. */
static int periodic_error(const struct fe_case *c, const struct fe_tracer *tr,
                          const struct fe_mesh *m, int b, int g, const int *group)
{
  static const char *const kind[] = {"points", "curves", "surfaces"};
  for (int f = 0; m->facet_link && f < m->n_facets; f++) {
    if (group[f] != g || !m->facet_link[f]) continue;
    const struct fe_periodic_link *l = &m->links[m->facet_link[f] - 1];
    const struct fe_boundary *bd = &tr->boundaries[b];
    char attr[512], name[320], buf[FE_QUOTE_SIZE];
    FE_RAISE(FE_ERR_INPUT,
             "%s:%d: <boundary physical=\"%s\">: %s of the mesh %s lies on a periodic boundary "
             "(element %zu: %s %d and %d are periodic, Gmsh's Periodic): the domain continues "
             "across it, and its nodes are copies of the nodes on the other side; expected a "
             "group of the boundary that is not periodic, or the mesh without that periodicity",
             fe_path_shown(c->path, buf, sizeof buf), bd->line,
             boundary_text(bd, attr, sizeof attr), group_name(&m->groups[g], name, sizeof name),
             m->path, facet_tag(m, f), kind[l->dim], l->slave, l->master);
  }
  return FE_SUCCESS;
}

static int check_facets(const struct fe_case *c, const struct fe_tracer *tr,
                        const struct fe_mesh *m, const int *group, const int (*groups)[64])
{
  struct group_facets *st;
  FE_MALLOC((size_t)m->n_groups + 1, &st);
  count_group_facets(m, group, st);
  int err = FE_SUCCESS;
  for (int b = 0; b < tr->n_boundaries && !err; b++)
    for (int r = 0; r < tr->boundaries[b].n_refs && !err; r++)
      err = facets_error(c, tr, m, b, groups[b][r], &st[groups[b][r]]);
  for (int b = 0; b < tr->n_boundaries && !err; b++)
    for (int r = 0; r < tr->boundaries[b].n_refs && !err; r++)
      err = periodic_error(c, tr, m, b, groups[b][r], group);
  for (int b = 0; b < tr->n_boundaries && !err; b++)
    for (int r = 0; r < tr->boundaries[b].n_refs; r++)
      facets_warning(c, tr, m, b, groups[b][r], &st[groups[b][r]]);
  free(st);
  return err;
}

/* owner[g]: the <boundary> of each group (index in m->groups), -1 for none;
 * a group in two of them is FE_ERR_INPUT. */
static int resolve_owners(const struct fe_case *c, const struct fe_tracer *tr,
                          const struct fe_mesh *m, int (*groups)[64], int *owner)
{
  for (int k = 0; k < m->n_groups; k++) owner[k] = -1;
  for (int b = 0; b < tr->n_boundaries; b++) {
    const struct fe_boundary *bd = &tr->boundaries[b];
    char buf[FE_QUOTE_SIZE];
    const char *shown = fe_path_shown(c->path, buf, sizeof buf);
    FE_CHECK(bd->n_refs <= 64, FE_ERR_INPUT,
             "%s:%d: <boundary>: %d physical groups; expected at most 64", shown, bd->line,
             bd->n_refs);
    FE_CALL(resolve_refs(c, tr, m, b, groups[b]));
    for (int r = 0; r < bd->n_refs; r++) {
      const int g = groups[b][r];
      char attr[512];
      FE_CHECK(owner[g] < 0 || owner[g] == b, FE_ERR_INPUT,
               "%s:%d: <boundary physical=\"%s\">: '%s' is physical group %d, which already has a "
               "condition at line %d; a group may appear in one <boundary> only",
               shown, bd->line, boundary_text(bd, attr, sizeof attr), bd->refs[r], m->groups[g].tag,
               tr->boundaries[owner[g]].line);
      owner[g] = b;
    }
  }
  return FE_SUCCESS;
}

/* rank[g]: where group g (index in m->groups) stands in the tracer's conditions, its
 * <boundary> b and its place r in the physical attribute, as b * 64 + r; -1 for none. */
static void group_ranks(const struct fe_tracer *tr, const struct fe_mesh *m, const int *owner,
                        const int (*groups)[64], int *rank)
{
  for (int g = 0; g < m->n_groups; g++) {
    rank[g] = -1;
    if (owner[g] < 0) continue;
    for (int r = 0; r < tr->boundaries[owner[g]].n_refs; r++)
      if (groups[owner[g]][r] == g) rank[g] = owner[g] * 64 + r;
  }
}

/* Dirichlet nodes and Neumann facets from the group of each facet (group[f], -1 for none) and
 * the <boundary> of each group (owner).  Where Dirichlet boundaries meet, the later one sets
 * the value, and of its groups the one listed later (rank) owns the node. */
static int collect(const struct fe_tracer *tr, const struct fe_mesh *m, const int *group,
                   const int *owner, const int *rank, int *dgroup, struct fe_bcs *bcs)
{
  for (int f = 0; f < m->n_facets; f++) {
    const int g = group[f], b = g < 0 ? -1 : owner[g];
    if (b < 0) continue;
    if (tr->boundaries[b].kind == FE_BC_NEUMANN) {
      bcs->n_neumann_facets++;
      continue;
    }
    for (int v = 0; v < m->dim; v++) {
      const int n = m->facets[(long)f * m->dim + v];
      if (!bcs->is_dirichlet[n] || rank[dgroup[n]] < rank[g]) dgroup[n] = g;
      bcs->is_dirichlet[n] = 1;
    }
  }
  for (int n = fe_mesh_n_unknowns(m); n < m->n_nodes; n++) { /* periodic: every copy alike */
    const int o = fe_mesh_owner(m, n);
    if (bcs->is_dirichlet[n] && (!bcs->is_dirichlet[o] || rank[dgroup[o]] < rank[dgroup[n]]))
      dgroup[o] = dgroup[n];
    bcs->is_dirichlet[o] |= bcs->is_dirichlet[n];
  }
  for (int n = fe_mesh_n_unknowns(m); n < m->n_nodes; n++) {
    bcs->is_dirichlet[n] = bcs->is_dirichlet[fe_mesh_owner(m, n)];
    if (bcs->is_dirichlet[n]) dgroup[n] = dgroup[fe_mesh_owner(m, n)];
  }
  FE_MALLOC((size_t)bcs->n_neumann_facets + 1, &bcs->neumann_facet);
  FE_MALLOC((size_t)bcs->n_neumann_facets + 1, &bcs->neumann_bc);
  for (int f = 0, k = 0; f < m->n_facets; f++) {
    const int b = group[f] < 0 ? -1 : owner[group[f]];
    if (b >= 0 && tr->boundaries[b].kind == FE_BC_NEUMANN) {
      bcs->neumann_facet[k] = f;
      bcs->neumann_bc[k++] = b;
    }
  }
  for (long n = 0; n < m->n_nodes; n++) bcs->n_dirichlet += bcs->is_dirichlet[n];
  FE_MALLOC((size_t)bcs->n_dirichlet + 1, &bcs->dirichlet);
  FE_MALLOC((size_t)bcs->n_dirichlet + 1, &bcs->dirichlet_bc);
  FE_MALLOC((size_t)bcs->n_dirichlet + 1, &bcs->dirichlet_group);
  for (long n = 0, k = 0; n < m->n_nodes; n++)
    if (bcs->is_dirichlet[n]) {
      bcs->dirichlet[k] = (int)n;
      bcs->dirichlet_group[k] = dgroup[n];
      bcs->dirichlet_bc[k++] = owner[dgroup[n]];
    }
  return FE_SUCCESS;
}

static int bcs_resolve(const struct fe_case *c, const struct fe_tracer *tr, const struct fe_mesh *m,
                       struct fe_bcs *bcs)
{
  int *owner = NULL, *rank = NULL, *group = NULL, *dgroup = NULL, (*groups)[64] = NULL;
  int err = fe_malloc(((size_t)m->n_groups + 1) * sizeof *owner, &owner);
  if (!err) err = fe_malloc(((size_t)m->n_groups + 1) * sizeof *rank, &rank);
  if (!err) err = fe_malloc(((size_t)m->n_facets + 1) * sizeof *group, &group);
  if (!err) err = fe_malloc(((size_t)m->n_nodes + 1) * sizeof *dgroup, &dgroup);
  if (!err) err = fe_malloc(((size_t)tr->n_boundaries + 1) * sizeof *groups, &groups);
  if (!err) err = resolve_owners(c, tr, m, groups, owner);
  if (!err) err = facet_groups(m, group);
  if (!err) err = check_facets(c, tr, m, group, (const int(*)[64])groups);
  if (!err) {
    group_ranks(tr, m, owner, (const int(*)[64])groups, rank);
    err = collect(tr, m, group, owner, rank, dgroup, bcs);
  }
  free(owner);
  free(rank);
  free(group);
  free(dgroup);
  free(groups);
  return err;
}

int fe_bcs_create(const struct fe_case *c, const struct fe_tracer *tr, const struct fe_mesh *m,
                  struct fe_bcs **out)
{
  struct fe_bcs *bcs;
  FE_CALLOC(1, &bcs);
  int err = fe_calloc((size_t)m->n_nodes + 1, 1, &bcs->is_dirichlet);
  if (!err) err = bcs_resolve(c, tr, m, bcs);
  if (err) {
    fe_bcs_destroy(bcs);
    return err;
  }
  for (int b = 0; b < tr->n_boundaries; b++)
    bcs->time_dependent |= fe_expr_depends_on_t(tr->boundaries[b].value);
  bcs->has_dirichlet = bcs->n_dirichlet > 0;
  bcs->has_neumann = bcs->n_neumann_facets > 0;
  *out = bcs;
  return FE_SUCCESS;
}

void fe_bcs_destroy(struct fe_bcs *bcs)
{
  if (!bcs) return;
  free(bcs->is_dirichlet);
  free(bcs->dirichlet);
  free(bcs->dirichlet_bc);
  free(bcs->dirichlet_group);
  free(bcs->neumann_facet);
  free(bcs->neumann_bc);
  free(bcs);
}
