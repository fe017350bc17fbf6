#include "backends/backends.h"

#include <stdio.h>
#include <stdlib.h>

#include "assembly/kernels.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"
#ifdef FESIM_HAVE_CUDA
#include "backends/cuda/cuda.h"
#endif

#define SLOT(table, slot)                                                                          \
  FE_CHECK((table)->slot, FE_ERR_USAGE, "backend %s: no kernel in the slot %s.%s", be->name,       \
           #table, #slot)

/* Every slot of every table filled: a slot left out fails here, not at a call. */
static int check_tables(const struct fe_backend *be)
{
  const struct fe_vec_ops *vec = be->vec;
  const struct fe_cg_ops *cg = be->cg;
  const struct fe_element_kernels *element = &be->assembly->element;
  const struct fe_lma_kernels *lma = &be->assembly->lma;
  const struct fe_addto_kernels *addto = &be->assembly->addto;
  const struct fe_matfree_kernels *matfree = &be->assembly->matfree;
  const struct fe_node_kernels *node = &be->assembly->node;
  const struct fe_fct_kernels *fct = &be->assembly->fct;
  const struct fe_courant_kernels *courant = &be->assembly->courant;
  const struct fe_load_kernels *load = &be->assembly->load;
  const struct fe_flux_kernels *flux = &be->assembly->flux;
  FE_CHECK(be->comm && be->destroy, FE_ERR_USAGE, "backend %s: no communicator or destroy",
           be->name);
  SLOT(vec, malloc);
  SLOT(vec, free);
  SLOT(vec, to_device);
  SLOT(vec, to_host);
  SLOT(vec, sync);
  SLOT(vec, set);
  SLOT(vec, copy);
  SLOT(vec, axpby);
  SLOT(vec, pointwise_mult);
  SLOT(vec, pointwise_div);
  SLOT(vec, set_indexed);
  SLOT(vec, dot);
  SLOT(vec, minmax);
  SLOT(vec, ghost_update);
  SLOT(vec, ghost_sum);
  SLOT(cg, residual);
  SLOT(cg, start);
  SLOT(cg, pq);
  SLOT(cg, update);
  SLOT(cg, direction);
  SLOT(cg, going);
  SLOT(cg, scalar_post);
  SLOT(cg, scalar_wait);
  SLOT(element, prepare);
  SLOT(element, matrices);
  SLOT(element, variant);
  SLOT(element, use_variant);
  SLOT(lma, apply);
  SLOT(lma, diagonal);
  SLOT(addto, sparsity);
  SLOT(addto, assemble);
  SLOT(addto, apply);
  SLOT(addto, diagonal);
  SLOT(addto, release);
  SLOT(matfree, apply);
  SLOT(matfree, diagonal);
  SLOT(node, lift);
  SLOT(node, reaction);
  SLOT(node, facet_load);
  SLOT(node, mass_apply);
  SLOT(node, evaluate);
  SLOT(node, count_indefinite);
  SLOT(node, interpolate);
  SLOT(fct, lumped_mass);
  SLOT(fct, step);
  SLOT(courant, cell_rates);
  SLOT(load, cells);
  SLOT(load, facets);
  SLOT(load, gather);
  SLOT(flux, facets);
  SLOT(flux, cells);
  return FE_SUCCESS;
}

static int checked(int err, struct fe_backend **be)
{
  if (!err) err = check_tables(*be);
  if (err && *be) {
    (*be)->destroy(*be);
    *be = NULL;
  }
  return err;
}

static int create_cuda(const struct fe_backend_options *o, struct fe_backend **be)
{
#ifdef FESIM_HAVE_CUDA
  return checked(fe_backend_cuda_create(o ? o->device : -1, o ? o->comm : NULL, be), be);
#else
  (void)o, (void)be;
  FE_RAISE(FE_ERR_RESOURCE, "backend 'cuda' was asked for, but this fesim was built without the "
                            "CUDA backend; use --backend cpu or auto");
#endif
}

/* The CPU backend on the run's processes. */
static int create_cpu(const struct fe_backend_options *o, struct fe_backend **be)
{
  FE_CALL(fe_backend_cpu_create(be));
  if (o && o->comm) (*be)->comm = o->comm;
  return checked(FE_SUCCESS, be);
}

int fe_backend_create(enum fe_backend_kind kind, const struct fe_backend_options *o,
                      struct fe_backend **be)
{
  *be = NULL;
  switch (kind) {
  case FE_BACKEND_CPU: return create_cpu(o, be);
  case FE_BACKEND_CUDA: return create_cuda(o, be);
  case FE_BACKEND_AUTO: break;
  }
  if (fe_backend_available(FE_BACKEND_CUDA)) {
    fe_error_set_quiet(1);
    const int err = create_cuda(o, be);
    fe_error_set_quiet(0);
    if (!err) return FE_SUCCESS;
  }
  if (o && o->verbosity > 0)
    fprintf(stderr, "fesim: note: no usable GPU found; backend auto runs on the CPU\n");
  return create_cpu(o, be);
}

struct fe_backend_warm_up *fe_backend_warm_up(enum fe_backend_kind kind,
                                              const struct fe_backend_options *o)
{
#ifdef FESIM_HAVE_CUDA
  if (kind != FE_BACKEND_CPU)
    return fe_cuda_warm_up(o ? o->device : -1, o && o->comm ? o->comm->local_rank : 0);
#endif
  (void)kind, (void)o;
  return NULL;
}

double fe_backend_warm_up_end(struct fe_backend_warm_up *w)
{
#ifdef FESIM_HAVE_CUDA
  if (w) return fe_cuda_warm_up_end(w);
#endif
  (void)w;
  return 0.0;
}

void fe_backend_destroy(struct fe_backend *be)
{
  if (be) be->destroy(be);
}

int fe_backend_available(enum fe_backend_kind kind)
{
#ifdef FESIM_HAVE_CUDA
  if (kind == FE_BACKEND_CUDA) return fe_cuda_device_count() > 0;
#endif
  return kind != FE_BACKEND_CUDA;
}

const char *fe_backends_built(void)
{
#ifdef FESIM_HAVE_CUDA
  return "cpu, cuda";
#else
  return "cpu";
#endif
}
