/* The CUDA backend: its context (the GPU, a stream of its own, reduction
 * scratch, pinned slots, the cuSPARSE handle) and its tables, filled here and
 * only here. */
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "assembly/operator.h"
#include "backends/cuda/backend_cuda.h"
#include "backends/cuda/cuda.h"
#include "core/cuda_check.h"
#include "core/timer.h"

int fe_cuda_sync_launches(void)
{
  static int sync = -1; /* read once: a constant of the process */
  if (sync < 0) sync = getenv("FESIM_CUDA_SYNC") != NULL;
  return sync;
}

static const struct fe_vec_ops vec_cuda = {
    .malloc = fe_vec_malloc_cuda,
    .free = fe_vec_free_cuda,
    .to_device = fe_vec_to_device_cuda,
    .to_host = fe_vec_to_host_cuda,
    .sync = fe_vec_sync_cuda,
    .set = fe_vec_set_cuda,
    .copy = fe_vec_copy_cuda,
    .axpby = fe_vec_axpby_cuda,
    .pointwise_mult = fe_vec_pointwise_mult_cuda,
    .pointwise_div = fe_vec_pointwise_div_cuda,
    .set_indexed = fe_vec_set_indexed_cuda,
    .dot = fe_vec_dot_cuda,
    .minmax = fe_vec_minmax_cuda,
    .reduce = fe_vec_reduce_cuda,
    .host_alloc = fe_vec_host_alloc_cuda,
    .host_free = fe_vec_host_free_cuda,
    .post = fe_vec_post_cuda,
    .wait = fe_vec_wait_cuda,
    .mark_free = fe_vec_mark_free_cuda,
    .ghost_update = fe_vec_ghost_update_cuda,
    .ghost_sum = fe_vec_ghost_sum_cuda,
    .halo_open = fe_cuda_halo_open,
    .halo_close = fe_cuda_halo_close,
};

static const struct fe_cg_ops cg_cuda = {
    .residual = fe_cg_residual_cuda,
    .start = fe_cg_start_cuda,
    .pq = fe_cg_pq_cuda,
    .update = fe_cg_update_cuda,
    .direction = fe_cg_direction_cuda,
    .going = fe_cg_going_cuda,
    .scalar_post = fe_cg_scalar_post_cuda,
    .scalar_wait = fe_cg_scalar_wait_cuda,
    .loop_prepare = fe_cg_loop_prepare_cuda,
    .loop_launch = fe_cg_loop_launch_cuda,
    .loop_destroy = fe_cg_loop_destroy_cuda,
};

/* The fastest per step in session 21's sweep (one H100, docs/performance.md, "The default
 * strategy"): LMA on small meshes, whose CG solves run as one kernel; matrix-free from 250K
 * triangles (1.21 against LMA's 1.37 ms a step at 500K; LMA 0.77 against 0.83 at 125K), addto
 * from 200K tetrahedra (2.50 against matrix-free's 2.74 and LMA's 3.16 ms at 384K; LMA 1.93
 * against 2.59 and 2.70 at 105K). */
static int default_strategy_cuda(int d, long cells)
{
  if (d == 2) return cells < 250000 ? FE_STRATEGY_LMA : FE_STRATEGY_MATFREE;
  return cells < 200000 ? FE_STRATEGY_LMA : FE_STRATEGY_ADDTO;
}

static const struct fe_assembly_kernels assembly_cuda = {
    .default_strategy = default_strategy_cuda,
    .element = {.prepare = fe_element_prepare_cuda,
                .matrices = fe_element_matrices_cuda,
                .variant = fe_element_variant_cuda,
                .use_variant = fe_element_use_variant_cuda},
    .lma = {.apply = fe_lma_apply_cuda,
            .apply_many = fe_lma_apply_many_cuda,
            .diagonal = fe_lma_diagonal_cuda,
            .cg = fe_lma_cg_cuda},
    .addto = {.sparsity = fe_csr_sparsity_cuda,
              .assemble = fe_csr_assemble_cuda,
              .apply = fe_csr_apply_cuda,
              .values = NULL, /* in csr->values, where cuSPARSE reads them */
              .diagonal = fe_csr_diagonal_cuda,
              .release = fe_csr_release_cuda},
    .matfree = {.apply = fe_matfree_apply_cuda, .diagonal = fe_matfree_diagonal_cuda},
    .node = {.lift = fe_lift_cuda,
             .reaction = fe_reaction_cuda,
             .facet_load = fe_facet_load_cuda,
             .mass_apply = fe_mass_apply_cuda,
             .evaluate = fe_evaluate_cuda,
             .count_indefinite = fe_count_indefinite_cuda,
             .interpolate = fe_interpolate_cuda},
    .fct = {.lumped_mass = fe_fct_lumped_mass_cuda, .step = fe_fct_step_cuda},
    .courant = {.cell_rates = fe_courant_cell_rates_cuda},
    .load = {.cells = fe_load_cells_cuda,
             .facets = fe_load_facets_cuda,
             .gather = fe_incidence_sum_cuda},
    .flux = {.facets = fe_flux_facets_cuda, .cells = fe_flux_cells_cuda},
};

extern "C" int fe_cuda_device_count(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

/* The driver's and the context's start, on a thread that reports nothing: create() meets any
 * failure again, on the run's thread, and reports it there. */
struct fe_backend_warm_up {
  pthread_t thread;
  int device, local_rank;
  double seconds;
};

static void *warm_up(void *arg)
{
  struct fe_backend_warm_up *w = (struct fe_backend_warm_up *)arg;
  const double start = fe_wtime();
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) {
    const int device = w->device >= 0 ? w->device : w->local_rank % n;
    if (device < n && cudaSetDevice(device) == cudaSuccess) cudaFree(0); /* the context made */
  }
  cudaGetLastError(); /* this thread's error, if any, cleared */
  w->seconds = fe_wtime() - start;
  return NULL;
}

extern "C" struct fe_backend_warm_up *fe_cuda_warm_up(int device, int local_rank)
{
  struct fe_backend_warm_up *w = (struct fe_backend_warm_up *)calloc(1, sizeof *w);
  if (!w) return NULL;
  w->device = device;
  w->local_rank = local_rank;
  if (pthread_create(&w->thread, NULL, warm_up, w) != 0) {
    free(w);
    return NULL;
  }
  return w;
}

extern "C" double fe_cuda_warm_up_end(struct fe_backend_warm_up *w)
{
  pthread_join(w->thread, NULL);
  const double seconds = w->seconds;
  free(w);
  return seconds;
}

static int create(struct fe_cuda_ctx *c, int device, int local_rank)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  FE_CHECK(
      err == cudaSuccess && n > 0, FE_ERR_RESOURCE,
      "backend 'cuda' was asked for, but no usable GPU was found (%s); use --backend cpu or auto",
      err == cudaSuccess ? "no CUDA device" : cudaGetErrorString(err));
  c->device = device >= 0 ? device : local_rank % n;
  FE_CHECK(c->device < n, FE_ERR_RESOURCE, "GPU %d was asked for, but this machine has %d",
           c->device, n);
  FE_CUDA_CALL(cudaSetDevice(c->device));
  cudaDeviceProp prop;
  FE_CUDA_CALL(cudaGetDeviceProperties(&prop, c->device));
  snprintf(c->name, sizeof c->name, "%.200s (sm_%d%d, %.1f GiB)", prop.name, prop.major, prop.minor,
           prop.totalGlobalMem / 1073741824.0);
  c->sms = prop.multiProcessorCount;
  c->cooperative = prop.cooperativeLaunch;
  c->cg_blocks = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / FE_REDUCE_THREADS);
  FE_CUDA_CALL(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
  FE_CUDA_CALL(cudaMalloc(&c->partials, FE_CG_MANY * 3 * FE_REDUCE_BLOCKS * sizeof(double)));
  FE_CUDA_CALL(cudaMalloc(&c->result, 3 * sizeof(double)));
  FE_CUDA_CALL(cudaMemset(c->partials, 0, FE_CG_MANY * 3 * FE_REDUCE_BLOCKS * sizeof(double)));
  FE_CUDA_CALL(cudaMemset(c->result, 0, 3 * sizeof(double)));
  FE_CUDA_CALL(cudaMalloc(&c->done_blocks, FE_CG_MANY * sizeof *c->done_blocks));
  FE_CUDA_CALL(cudaMemset(c->done_blocks, 0, FE_CG_MANY * sizeof *c->done_blocks));
  FE_CUDA_CALL(cudaMallocHost(&c->host, 3 * sizeof(double)));
  FE_CUDA_CALL(cudaMallocHost(&c->slots, 2 * sizeof(double)));
  for (int k = 0; k < 2; k++)
    FE_CUDA_CALL(cudaEventCreateWithFlags(&c->slot_ready[k], cudaEventDisableTiming));
  FE_CUSPARSE_CALL(cusparseCreate(&c->sparse));
  FE_CUSPARSE_CALL(cusparseSetStream(c->sparse, c->stream));
  FE_CUDA_CALL(cudaDeviceSynchronize()); /* the memsets above, on the legacy stream, done */
  /* CG's loop on the device needs graphs' while nodes (a 12.4 driver), and launches that are
   * not each synchronised (FESIM_CUDA_SYNC, for debugging: no synchronisation in a capture);
   * FESIM_CUDA_GRAPHS=0 leaves it to the host (to compare) */
  int driver = 0;
  FE_CUDA_CALL(cudaDriverGetVersion(&driver));
  const char *graphs = getenv("FESIM_CUDA_GRAPHS");
  c->backend.device_loops =
      driver >= 12040 && !fe_cuda_sync_launches() && !(graphs && !strcmp(graphs, "0"));
  /* FESIM_CUDA_CG_KERNEL=N: CG as one kernel up to N nodes in 2D and 3D (0: never, to
   * compare) */
  const char *kernel = getenv("FESIM_CUDA_CG_KERNEL");
  char *end = NULL;
  const long nodes = kernel ? strtol(kernel, &end, 10) : 0;
  c->cg_kernel_nodes[0] = kernel ? nodes : FE_CUDA_CG_KERNEL_NODES_2D;
  c->cg_kernel_nodes[1] = kernel ? nodes : FE_CUDA_CG_KERNEL_NODES_3D;
  FE_CHECK(!kernel || (end != kernel && !*end && nodes >= 0), FE_ERR_USAGE,
           "environment variable FESIM_CUDA_CG_KERNEL: expected the largest mesh, in nodes, "
           "whose CG runs as one kernel (0: none); found '%s'", kernel);
  snprintf(c->backend.description, sizeof c->backend.description, "cuda: %s", c->name);
  return FE_SUCCESS;
}

/* NCCL's set-up is collective: every process's GPU is known to be usable first. */
static int connect(struct fe_cuda_ctx *c, const struct fe_comm *comm, int err)
{
  double failed = err != FE_SUCCESS;
  const int agreed = fe_comm_allreduce(comm, &failed, 1, FE_REDUCE_MAX);
  if (err) return err;
  FE_CALL(agreed);
  FE_CHECK(!failed, FE_ERR_RESOURCE,
           "backend 'cuda' on %d processes: another process could not use its GPU; each "
           "process needs a usable GPU",
           comm->size);
  return fe_cuda_comm_create(c, comm);
}

static void destroy(struct fe_backend *be)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  fe_cuda_comm_destroy(c);
  if (c->sparse) cusparseDestroy(c->sparse);
  cudaFree(c->partials);
  cudaFree(c->cg_partials);
  cudaFree(c->cg_scratch);
  cudaFree(c->result);
  cudaFree(c->done_blocks);
  cudaFreeHost(c->host);
  cudaFreeHost(c->slots);
  for (int k = 0; k < 2; k++)
    if (c->slot_ready[k]) cudaEventDestroy(c->slot_ready[k]);
  if (c->stream) cudaStreamDestroy(c->stream);
  free(c);
}

extern "C" int fe_backend_cuda_create(int device, const struct fe_comm *comm,
                                      struct fe_backend **be)
{
  struct fe_cuda_ctx *c = (struct fe_cuda_ctx *)calloc(1, sizeof *c);
  FE_CHECK(c, FE_ERR_RESOURCE, "out of host memory");
  c->backend.name = "cuda";
  c->backend.asynchronous = 1;
  c->backend.atomic_scatter = 1;
  c->backend.vec = &vec_cuda;
  c->backend.cg = &cg_cuda;
  c->backend.assembly = &assembly_cuda;
  c->backend.comm = fe_comm_self();
  c->backend.destroy = destroy;
  c->backend.ctx = c;
  *be = &c->backend;
  const int err = create(c, device, comm ? comm->local_rank : 0);
  return comm && comm->size > 1 ? connect(c, comm, err) : err;
}
