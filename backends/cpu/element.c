/* Local assembly on the CPU: element matrices by tensor contraction. */
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

/* One cell's stored matrix with d, storage and symmetry literals at each call, so that the
 * element loops unroll: inside a parallel loop, whose outlined body sees its captured values
 * as variables, GCC would otherwise call one generic function (2D LMA's local assembly on
 * one thread: 12.3 against 4.0 ms at 180K triangles). */
static inline void store_cell(int d, enum fe_storage st, int upper, const struct fe_space *s,
                              const struct fe_form *form, const double *diff, const double *vel,
                              unsigned dmask, long c, int shift, double *ec)
{
  const int sym = st == FE_STORAGE_SYMMETRIC;
  if (d == 2 && sym)
    fe_cell_store(2, FE_STORAGE_SYMMETRIC, 1, &s->ref, form, s->cells, s->coords, diff, vel, dmask,
                  c, shift, ec);
  else if (d == 2 && upper)
    fe_cell_store(2, FE_STORAGE_FULL, 1, &s->ref, form, s->cells, s->coords, diff, vel, dmask, c,
                  shift, ec);
  else if (d == 2)
    fe_cell_store(2, FE_STORAGE_FULL, 0, &s->ref, form, s->cells, s->coords, diff, vel, dmask, c,
                  shift, ec);
  else if (sym)
    fe_cell_store(3, FE_STORAGE_SYMMETRIC, 1, &s->ref, form, s->cells, s->coords, diff, vel, dmask,
                  c, shift, ec);
  else if (upper)
    fe_cell_store(3, FE_STORAGE_FULL, 1, &s->ref, form, s->cells, s->coords, diff, vel, dmask, c,
                  shift, ec);
  else
    fe_cell_store(3, FE_STORAGE_FULL, 0, &s->ref, form, s->cells, s->coords, diff, vel, dmask, c,
                  shift, ec);
}

/* The element matrices (the upper triangle where the form is symmetric: `upper`) */
static void cells_cpu(const struct fe_space *s, const struct fe_form *form, enum fe_storage st,
                      const double *diff, const double *vel, double *e)
{
  const int d = s->d, upper = st == FE_STORAGE_SYMMETRIC || fe_form_symmetric(form);
  const int ns = fe_storage_entries(d + 1, st);
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++)
    store_cell(d, st, upper, s, form, diff, vel, s->dmask[c], c, s->block_shift,
               e + fe_block_index(c, 0, ns, s->block_shift));
}

/* The boundary cells' unmasked full matrices (the lifting's), blocked at FE_LIFT_SHIFT */
static void boundary_cells_cpu(const struct fe_space *s, const struct fe_form *form,
                               const double *diff, const double *vel, double *elift)
{
  const int d = s->d, nk = (d + 1) * (d + 1), upper = fe_form_symmetric(form);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < s->n_bcells; b++)
    store_cell(d, FE_STORAGE_FULL, upper, s, form, diff, vel, 0u, s->bcells[b], FE_LIFT_SHIFT,
               elift + fe_block_index(b, 0, nk, FE_LIFT_SHIFT));
}

int fe_element_matrices_cpu(const struct fe_space *s, const struct fe_form *form,
                            enum fe_storage st, const double *diff, const double *vel, double *e,
                            double *elift)
{
  if (e) cells_cpu(s, form, st, diff, vel, e);
  boundary_cells_cpu(s, form, diff, vel, elift);
  return FE_SUCCESS;
}
