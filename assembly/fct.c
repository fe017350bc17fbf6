/* The limited step of flux-corrected transport (assembly/fct.h): its work
 * arrays on the backend, and the backend's loops run over them. */
#include "assembly/fct.h"

#include <stdlib.h>

#include "assembly/kernels.h"
#include "core/error.h"
#include "solvers/halo.h"
#include "solvers/vec.h"

struct fe_fct {
  struct fe_space *space;
  double conservative;
  struct fe_vec *ml, *ulow, *p_plus, *p_minus, *r_plus, *r_minus, *courant;
  double *cell_rate, *cell_diag, *flux;
};

int fe_fct_create(struct fe_space *space, double conservative, struct fe_fct **out)
{
  struct fe_fct *f;
  FE_CALLOC(1, &f);
  f->space = space;
  f->conservative = conservative;
  const struct fe_backend *be = space->be;
  const size_t nc = (size_t)space->n_cells;
  struct fe_vec **v[] = {&f->ml,     &f->ulow,    &f->p_plus, &f->p_minus,
                         &f->r_plus, &f->r_minus, &f->courant};
  int err = FE_SUCCESS;
  for (size_t i = 0; !err && i < sizeof v / sizeof *v; i++) err = fe_space_vec_create(space, v[i]);
  const size_t nv = (size_t)space->nv, np = (size_t)FE_FCT_PAIRS(space->d);
  if (!err) err = fe_backend_alloc(be, nc * nv * sizeof(double), NULL, &f->cell_rate);
  if (!err) err = fe_backend_alloc(be, nc * nv * sizeof(double), NULL, &f->cell_diag);
  if (!err) err = fe_backend_alloc(be, nc * np * sizeof(double), NULL, &f->flux);
  if (!err) err = be->assembly->fct.lumped_mass(space, fe_vec_write(f->ml));
  if (!err) err = fe_vec_complete(f->ml, space->halo);
  if (err) {
    fe_fct_destroy(f);
    return err;
  }
  *out = f;
  return FE_SUCCESS;
}

void fe_fct_destroy(struct fe_fct *f)
{
  if (!f) return;
  struct fe_vec *v[] = {f->ml, f->ulow, f->p_plus, f->p_minus, f->r_plus, f->r_minus, f->courant};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) fe_vec_destroy(v[i]);
  double *dev[] = {f->cell_rate, f->cell_diag, f->flux};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) fe_backend_free(f->space->be, dev[i]);
  free(f);
}

/* Several processes: the ghosts of what a node loop of the step wrote take their owners'
 * values before a cell loop reads them (the node loops' sums are complete at owned nodes only;
 * the ratios read T^L, the limiting R+ and R-, at every vertex of their cells). */
static int exchange(const struct fe_fct_arrays *a, enum fe_fct_phase phase)
{
  const struct fe_halo *halo = a->ctx;
  if (phase == FE_FCT_LOW) return fe_halo_complete(halo, 1, a->ulow);
  FE_CALL(fe_halo_complete(halo, 1, a->r_plus));
  return fe_halo_complete(halo, 1, a->r_minus);
}

int fe_fct_step(struct fe_fct *f, const double *velocity, const struct fe_vec *u,
                const struct fe_vec *udot, double dt, struct fe_vec *out, double *courant,
                struct fe_vec *reaction)
{
  const struct fe_halo *halo = f->space->halo;
  const struct fe_fct_arrays a = {.velocity = velocity,
                                  .conservative = f->conservative,
                                  .u = u->a,
                                  .udot = udot ? udot->a : NULL,
                                  .ml = f->ml->a,
                                  .dt = dt,
                                  .cell_rate = f->cell_rate,
                                  .cell_diag = f->cell_diag,
                                  .flux = f->flux,
                                  .ulow = fe_vec_write(f->ulow),
                                  .p_plus = fe_vec_write(f->p_plus),
                                  .p_minus = fe_vec_write(f->p_minus),
                                  .r_plus = fe_vec_write(f->r_plus),
                                  .r_minus = fe_vec_write(f->r_minus),
                                  .courant = courant ? fe_vec_write(f->courant) : NULL,
                                  .reaction = reaction ? fe_vec_write(reaction) : NULL,
                                  .out = fe_vec_write(out),
                                  .exchange = fe_halo_remote(halo) ? exchange : NULL,
                                  .ctx = halo};
  FE_CALL(fe_vec_update_ghosts(u)); /* the cells read the copies of periodic unknowns, the */
  if (udot) FE_CALL(fe_vec_update_ghosts(udot)); /* ghosts of other processes' nodes */
  FE_CALL(f->space->be->assembly->fct.step(f->space, &a));
  FE_CALL(fe_vec_complete(out, halo));
  if (reaction) FE_CALL(fe_vec_complete(reaction, halo));
  if (!courant) return FE_SUCCESS;
  double lo;
  return fe_vec_minmax(f->courant, &lo, courant);
}
