/* The CUDA backend, private: its context and the prototypes of its kernels'
 * launchers, which backends/cuda/backend.cu puts in its tables.  Every launch
 * and copy is queued on the context's stream. */
#ifndef FE_BACKEND_CUDA_H
#define FE_BACKEND_CUDA_H

#include <cuda_runtime.h>
#include <cusparse.h>
#include <nccl.h>

#include "assembly/kernels.h"
#include "solvers/backend.h"

#define FE_REDUCE_BLOCKS 1024
#define FE_REDUCE_THREADS 256
/* The largest meshes, in nodes, 2D and 3D, whose CG solves run as one kernel (lma_cg.cu)
 * unless FESIM_CUDA_CG_KERNEL says another: past them the kernel's barriers and its node
 * phases cost more than the launches they replace (H100, docs/performance.md, "CG as one
 * kernel"). */
#define FE_CUDA_CG_KERNEL_NODES_2D 200000L
#define FE_CUDA_CG_KERNEL_NODES_3D 40000L
/* The variants of CG as one kernel (lma_cg.cu's instantiations), at most */
#define FE_CUDA_CG_VARIANTS 8

/* The sums over the processes through the NCCL windows (window.cuh): the most values one sum
 * takes (CG's start sums 3), and the window's channels, each with its own words and count so
 * that sums of different channels may run at once: channel 0 for fe_comm's sums, FE_SUMS_CG + j
 * for those CG's kernels make of system j. */
#define FE_SUMS_MAX 8
#define FE_SUMS_CG 1
#define FE_SUMS_CHANNELS (FE_SUMS_CG + FE_CG_MANY)

/* The sums' window as a kernel takes it: win NULL where no kernel sums over the processes (one
 * process, or NCCL's calls made apart). */
struct fe_cuda_sums {
  ncclWindow_t win;
  unsigned long long *count; /* device: each channel's sums so far */
  int rank, size;
};

struct fe_cuda_ctx {
  int device;
  cudaStream_t stream;
  char name[256];
  double *partials;      /* FE_REDUCE_BLOCKS * 3 per CG system (FE_CG_MANY): per-block partial
                            reductions */
  double *result;        /* 3 doubles on the device */
  unsigned *done_blocks; /* blocks of the running reduction that have written their partials,
                            one count per CG system */
  double *host;          /* 3 doubles, pinned */
  double *slots;         /* 2 doubles, pinned: scalar_post / scalar_wait */
  cudaEvent_t slot_ready[2];
  int sms, cooperative;   /* the device's multiprocessors; whether it launches cooperative grids */
  double *cg_partials;    /* CG as one kernel (lma_cg.cu): 2 * FE_CG_MANY * 3 per block, */
  int cg_blocks;          /* for this many blocks (one per FE_REDUCE_THREADS threads the GPU
                             holds); allocated on first use */
  long cg_kernel_nodes[2]; /* the largest meshes, 2D and 3D, whose CG runs as one kernel */
  double *cg_scratch;      /* its vectors beyond the solvers' (lma_cg.cu: s), grown on demand */
  size_t cg_scratch_doubles;
  struct {
    const void *kernel;
    int per_sm;
  } cg_occupancy[FE_CUDA_CG_VARIANTS]; /* lma_cg.cu: the blocks of each kernel variant an SM
                                          holds on this device, asked on its first solve */
  cusparseHandle_t sparse;            /* addto's SpMV, on the stream */
  int element_epb[2], element_tpe[2]; /* element kernel of 2D, 3D: elements per block,
                                         threads per element; 0, 0: one thread per element */
  /* several processes (backends/cuda/comm.cu): their GPUs' NCCL communicator, the backend's
   * communicator (the device's sums and the halo's exchanges on the stream: by the GPUs'
   * loads and stores into NCCL windows where every GPU reaches the others' memory (windows),
   * else by NCCL's calls; the host's values through host_comm) */
  ncclComm_t nccl;
  struct fe_cuda_windows *windows;
  struct fe_cuda_sums sums; /* the windows' sums, for CG's kernels (cg.cu) */
  const struct fe_comm *host_comm;
  struct fe_comm comm;
  struct fe_backend backend;
};

/* backends/cuda/comm.cu */
int fe_cuda_comm_create(struct fe_cuda_ctx *c, const struct fe_comm *host);
void fe_cuda_comm_destroy(struct fe_cuda_ctx *c);
int fe_cuda_halo_open(struct fe_halo *h);
void fe_cuda_halo_close(struct fe_halo *h);
int fe_cuda_halo_update(const struct fe_halo *h, int ncomp, double *x);
int fe_cuda_halo_sum(const struct fe_halo *h, double *x);

static inline struct fe_cuda_ctx *fe_cuda_ctx(const struct fe_backend *be)
{
  return (struct fe_cuda_ctx *)be->ctx;
}

static inline cudaStream_t fe_cuda_stream(const struct fe_backend *be)
{
  return fe_cuda_ctx(be)->stream;
}

#ifdef __CUDACC__
/* out[node] += value for every lane of the warp, the lanes that add into the same node
 * summing their values first (shuffles), one of them adding the sum: a fraction of the
 * atomics, where consecutive cells share nodes, for a few more instructions. */
__device__ inline void fe_cuda_add_aggregated(double *out, int node, double value)
{
  const unsigned active = __activemask(), lane = threadIdx.x & 31u;
  const unsigned peers = __match_any_sync(active, node);
  unsigned rest = peers & ~(1u << lane);
  const int rounds = __reduce_max_sync(active, __popc(rest));
  double sum = value;
  for (int k = 0; k < rounds; k++) {
    const double other = __shfl_sync(active, value, rest ? __ffs(rest) - 1 : (int)lane);
    if (rest) {
      sum += other;
      rest &= rest - 1;
    }
  }
  if (lane == (unsigned)(__ffs(peers) - 1)) atomicAdd(&out[node], sum);
}

/* Cell c's local results ye: added into out (the nodal vector) at its vertices v with
 * atomics (AGGREGATE: warp-aggregated, fe_cuda_add_aggregated), or stored at out[c * nv + i]
 * (the work array, summed per node afterwards).  One thread per cell, 1D blocks. */
template <int D, bool ATOMIC, bool AGGREGATE = false>
__device__ inline void fe_cuda_put_local(long c, const int *v, const double *ye, double *out)
{
#pragma unroll
  for (int i = 0; i < D + 1; i++) {
    if (ATOMIC && AGGREGATE)
      fe_cuda_add_aggregated(out, v[i], ye[i]);
    else if (ATOMIC)
      atomicAdd(&out[v[i]], ye[i]);
    else
      out[c * (D + 1) + i] = ye[i];
  }
}

/* The n programs copied to p in shared memory by the block's threads, so that every thread
 * then reads the same instruction from there; the block synchronised. */
__device__ inline void fe_cuda_stage_programs(struct fe_program *p, const struct fe_program *progs,
                                              int n)
{
  const int words = n * (int)(sizeof(struct fe_program) / sizeof(int));
  for (int w = threadIdx.x; w < words; w += blockDim.x) ((int *)p)[w] = ((const int *)progs)[w];
  __syncthreads();
}
#endif

/* vec.cu */
int fe_vec_malloc_cuda(const struct fe_backend *be, size_t bytes, void **p);
void fe_vec_free_cuda(const struct fe_backend *be, void *p);
int fe_vec_to_device_cuda(const struct fe_backend *be, void *dev, const void *host, size_t bytes);
int fe_vec_to_host_cuda(const struct fe_backend *be, void *host, const void *dev, size_t bytes);
int fe_vec_sync_cuda(const struct fe_backend *be);
int fe_vec_host_alloc_cuda(const struct fe_backend *be, size_t bytes, void **p);
void fe_vec_host_free_cuda(const struct fe_backend *be, void *p);
int fe_vec_post_cuda(const struct fe_backend *be, void *host, const void *dev, size_t bytes,
                     void **mark);
int fe_vec_wait_cuda(const struct fe_backend *be, void *mark);
void fe_vec_mark_free_cuda(const struct fe_backend *be, void *mark);
int fe_vec_set_cuda(const struct fe_backend *be, size_t n, double alpha, double *y);
int fe_vec_copy_cuda(const struct fe_backend *be, size_t n, const double *x, double *y);
int fe_vec_axpby_cuda(const struct fe_backend *be, size_t n, double a, const double *x, double b,
                      double *y);
int fe_vec_pointwise_mult_cuda(const struct fe_backend *be, size_t n, const double *x,
                               const double *y, double *w);
int fe_vec_pointwise_div_cuda(const struct fe_backend *be, size_t n, const double *x,
                              const double *y, double *w);
int fe_vec_set_indexed_cuda(const struct fe_backend *be, size_t m, const int *idx,
                            const double *values, double *y);
int fe_vec_dot_cuda(const struct fe_backend *be, size_t n, const double *x, const double *y,
                    double *r);
int fe_vec_minmax_cuda(const struct fe_backend *be, size_t n, const double *x, double *min,
                       double *max, double *bad);
int fe_vec_ghost_update_cuda(const struct fe_halo *h, int ncomp, double *x);
int fe_vec_ghost_sum_cuda(const struct fe_halo *h, double *x);
/* The copies within the process alone (solvers/halo.h): their update, their sum. */
int fe_cuda_copies_update(const struct fe_halo *h, int ncomp, double *x);
int fe_cuda_copies_sum(const struct fe_halo *h, double *x);
/* The reduction op (reduce.cuh: FE_VEC_DOT is its op 0, FE_VEC_RANGE its op 1) of x, y into
 * out (3 doubles) on the device: fe_vec_ops.reduce. */
int fe_vec_reduce_cuda(const struct fe_backend *be, enum fe_vec_reduction op, size_t n,
                       const double *x, const double *y, double *out);

/* cg.cu */
int fe_cg_residual_cuda(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                        const double *dinv);
int fe_cg_start_cuda(const struct fe_backend *be, const struct fe_cg_batch *c, double rtol,
                     double atol, int max_iterations, unsigned long long condition, int on);
int fe_cg_pq_cuda(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c);
int fe_cg_update_cuda(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                      const double *dinv);
int fe_cg_direction_cuda(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c);
int fe_cg_going_cuda(const struct fe_backend *be, const struct fe_cg_batch *c, double *out,
                     struct fe_cg_state *gathered, unsigned long long condition, int on);
int fe_cg_scalar_post_cuda(const struct fe_backend *be, int slot, const double *dev);
int fe_cg_scalar_wait_cuda(const struct fe_backend *be, int slot, const double *dev, double *value);
int fe_cg_loop_prepare_cuda(const struct fe_backend *be, void **loop,
                            int (*start)(void *arg, const unsigned long long *condition),
                            int (*iteration)(void *arg), void *arg);
int fe_cg_loop_launch_cuda(const struct fe_backend *be, void *loop);
void fe_cg_loop_destroy_cuda(const struct fe_backend *be, void *loop);

/* element.cu */
int fe_element_prepare_cuda(const struct fe_space *s);
int fe_element_matrices_cuda(const struct fe_space *s, const struct fe_form *f, enum fe_storage st,
                             const double *diff, const double *vel, double *e, double *elift);
int fe_element_variant_cuda(int d, int k, int *epb, int *tpe);
int fe_element_use_variant_cuda(const struct fe_backend *be, int d, int epb, int tpe);
/* element.cu (the kernels that recompute element matrices read its constant memory) */
int fe_matfree_apply_cuda(const struct fe_space *s, const struct fe_form *f, const double *diff,
                          const double *vel, const double *x, double *y, double *work);
int fe_matfree_diagonal_cuda(const struct fe_space *s, const struct fe_form *f, const double *diff,
                             const double *vel, double *diag);
int fe_mass_apply_cuda(const struct fe_space *s, const double *x, double *y);
/* lma.cu */
int fe_lma_cg_cuda(const struct fe_space *s, enum fe_storage st, const double *e, double *work,
                   const struct fe_cg_job *job, int *done);
int fe_lma_apply_many_cuda(const struct fe_space *s, enum fe_storage st, const double *e, int m,
                           const double *const *x, double *const *y);
int fe_lma_apply_cuda(const struct fe_space *s, enum fe_storage st, const double *e,
                      const double *x, double *y, double *work);
int fe_lma_diagonal_cuda(const struct fe_space *s, enum fe_storage st, const double *e,
                         double *diag);
int fe_incidence_sum_cuda(const struct fe_space *s, const int *ptr, const int *idx,
                          const double *work, double *y);
int fe_cuda_fold(const struct fe_space *s, double *y);
/* addto.cu */
int fe_csr_sparsity_cuda(const struct fe_space *s, struct fe_csr *csr);
int fe_csr_assemble_cuda(const struct fe_space *s, struct fe_csr *csr, const double *e);
int fe_csr_apply_cuda(struct fe_csr *csr, const double *x, double *y);
int fe_csr_diagonal_cuda(const struct fe_csr *csr, double *diag);
void fe_csr_release_cuda(struct fe_csr *csr);
/* nodes.cu */
int fe_lift_cuda(const struct fe_space *s, const double *elift, double scale, const double *x,
                 double *y);
int fe_reaction_cuda(const struct fe_space *s, const double *elift, double scale, const double *x,
                     double *y);
int fe_facet_load_cuda(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                       const double *g, double *out);
int fe_evaluate_cuda(const struct fe_space *s, int at_cells, const int *idx, const int *opos,
                     long m, const struct fe_program *progs, int nprog, double t, double *out);
int fe_count_indefinite_cuda(const struct fe_space *s, long m, const double *tensors, int *count);
int fe_interpolate_cuda(const struct fe_space *s, long n, const int *nodes, const double *weights,
                        const double *field, int ncomp, double *out);
/* fct.cu */
int fe_fct_lumped_mass_cuda(const struct fe_space *s, double *ml);
int fe_fct_step_cuda(const struct fe_space *s, const struct fe_fct_arrays *a);
/* courant.cu */
int fe_courant_cell_rates_cuda(const struct fe_space *s, const double *velocity,
                               const double *inv_height, double *rate);
/* load.cu */
int fe_load_cells_cuda(const struct fe_space *s, const struct fe_form *form, const double *diff,
                       const double *vel, const struct fe_program *f, double t, double *work);
int fe_load_facets_cuda(const struct fe_space *s, long m, const int *list, const int *vertices,
                        const struct fe_program *g, double t, double *work);
/* flux.cu */
int fe_flux_facets_cuda(const struct fe_space *s, long m, const int *nodes, const double *velocity,
                        const double *x, double scale, double *acc);
int fe_flux_cells_cuda(const struct fe_space *s, const double *velocity, const double *weight,
                       int uniform, const double *x, double scale, double *acc);

#endif
