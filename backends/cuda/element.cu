/* The CUDA kernels that compute element matrices from the reference tensors K
 * in constant memory (the element math of assembly/element.h, compiled by
 * nvcc): stored (element matrices of LMA and addto), recomputed in each apply
 * (matrix-free), and the mass rows of the norms. */
#include <cstdlib>

#include "assembly/node.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"

/* K of 2D and 3D: read with warp-uniform addresses, so constant memory broadcasts. */
__constant__ struct fe_reference c_ref[2];

#define THREADS 256

int fe_element_prepare_cuda(const struct fe_space *s)
{
  FE_CUDA_CALL(cudaMemcpyToSymbolAsync(c_ref, &s->ref, sizeof s->ref, (s->d - 2) * sizeof s->ref,
                                       cudaMemcpyHostToDevice, fe_cuda_stream(s->be)));
  FE_CUDA_CALL(cudaStreamSynchronize(fe_cuda_stream(s->be))); /* s->ref may go before the copy */
  return FE_SUCCESS;
}

/* ---- local assembly: one thread per cell, stores coalesced in the blocked layout */

/* Storage ST (enum fe_storage); UPPER: the form is symmetric, its upper triangle computed. */
template <int D, int ST, bool UPPER>
__global__ void element_kernel(long n_cells, struct fe_form form, const int *cells,
                               const double *coords, const unsigned char *dmask, const double *diff,
                               const double *vel, double *e, int shift)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  const int ns = fe_storage_entries(D + 1, (enum fe_storage)ST);
  fe_cell_store(D, (enum fe_storage)ST, UPPER, &c_ref[D - 2], &form, cells, coords, diff, vel,
                dmask[c], c, shift, e + fe_block_index(c, 0, ns, shift));
}

/* The boundary cells' unmasked full matrices (the lifting's), blocked at FE_LIFT_SHIFT */
template <int D, bool UPPER>
__global__ void boundary_kernel(long n_bcells, struct fe_form form, const int *bcells,
                                const int *cells, const double *coords, const double *diff,
                                const double *vel, double *elift)
{
  const int nk = (D + 1) * (D + 1);
  const long b = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (b >= n_bcells) return;
  fe_cell_store(D, FE_STORAGE_FULL, UPPER, &c_ref[D - 2], &form, cells, coords, diff, vel, 0u,
                bcells[b], FE_LIFT_SHIFT, elift + fe_block_index(b, 0, nk, FE_LIFT_SHIFT));
}

/* Two-level parallelism (Filipovic et al.): EPB elements per block; phase 1,
 * one thread per element computes its geometry tensors into shared memory;
 * phase 2, TPE threads per element contract them with K, thread t taking
 * element t % EPB and stored entries t / EPB + j * TPE, so that a warp reads one K
 * entry (constant-memory broadcast) and stores 32 consecutive elements'
 * entry k (coalesced in the blocked layout). */
template <int D, int EPB, int TPE>
__global__ void __launch_bounds__(EPB *TPE)
    element_kernel_2level(long n_cells, struct fe_form form, enum fe_storage st, const int *cells,
                          const double *coords, const unsigned char *dmask, const double *diff,
                          const double *vel, double *e, int shift)
{
  const int nv = D + 1, ns = fe_storage_entries(nv, st);
  __shared__ double s_det[EPB], s_tau[EPB], s_gstiff[D * D][EPB], s_gadv[(D + 1) * D][EPB];
  const long c0 = (long)blockIdx.x * EPB;
  const int t = threadIdx.x;
  const int stiff = fe_form_stiffness(&form), adv = fe_form_velocity(&form);
  if (t < EPB && c0 + t < n_cells) {
    double gstiff[9], gadv[12];
    s_det[t] = fe_cell_geometry(D, &c_ref[D - 2], &form, cells, coords, diff, vel, c0 + t, gstiff,
                                gadv, &s_tau[t]);
    if (stiff)
      for (int g = 0; g < D * D; g++) s_gstiff[g][t] = gstiff[g];
    if (adv)
      for (int g = 0; g < (D + 1) * D; g++) s_gadv[g][t] = gadv[g];
  }
  __syncthreads();
  const int el = t % EPB;
  const long c = c0 + el;
  if (c >= n_cells) return;
  double gstiff[9], gadv[12];
  if (stiff)
    for (int g = 0; g < D * D; g++) gstiff[g] = s_gstiff[g][el];
  if (adv)
    for (int g = 0; g < (D + 1) * D; g++) gadv[g] = s_gadv[g][el];
  const unsigned dm = dmask[c];
  const double weight = fe_cell_mass_weight(D, &c_ref[D - 2], &form, c, s_det[el], gadv);
  double *ec = e + fe_block_index(c, 0, ns, shift);
  for (int k = t / EPB; k < ns; k += TPE) {
    int i, j;
    fe_storage_pair(nv, st, k, &i, &j);
    const double v = fe_element_entry(D, &c_ref[D - 2], &form, weight, s_det[el], s_tau[el], gstiff,
                                      gadv, i * nv + j);
    ec[k << shift] = fe_dirichlet_entry(i, j, dm, v);
  }
}

/* The kernel variants, by (EPB, TPE); (0, 0) is one thread per element. */
struct element_variant {
  int epb, tpe;
  int (*launch)(const struct fe_space *s, const struct fe_form *f, enum fe_storage st,
                const double *diff, const double *vel, double *e);
};

template <int D, int EPB, int TPE>
static int launch_2level(const struct fe_space *s, const struct fe_form *f, enum fe_storage st,
                         const double *diff, const double *vel, double *e)
{
  const unsigned blocks = (unsigned)((s->n_cells + EPB - 1) / EPB);
  element_kernel_2level<D, EPB, TPE><<<blocks, EPB * TPE, 0, fe_cuda_stream(s->be)>>>(
      s->n_cells, *f, st, s->cells, s->coords, s->dmask, diff, vel, e, s->block_shift);
  FE_CUDA_LAUNCHED("element_kernel_2level");
  return FE_SUCCESS;
}

template <int D, int ST, bool UPPER>
static void launch_element_kernel(const struct fe_space *s, const struct fe_form *f,
                                  const double *diff, const double *vel, double *e)
{
  const unsigned blocks = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  element_kernel<D, ST, UPPER><<<blocks, THREADS, 0, fe_cuda_stream(s->be)>>>(
      s->n_cells, *f, s->cells, s->coords, s->dmask, diff, vel, e, s->block_shift);
}

template <int D>
static int launch_simple(const struct fe_space *s, const struct fe_form *f, enum fe_storage st,
                         const double *diff, const double *vel, double *e)
{
  if (st == FE_STORAGE_SYMMETRIC)
    launch_element_kernel<D, FE_STORAGE_SYMMETRIC, true>(s, f, diff, vel, e);
  else if (fe_form_symmetric(f))
    launch_element_kernel<D, FE_STORAGE_FULL, true>(s, f, diff, vel, e);
  else
    launch_element_kernel<D, FE_STORAGE_FULL, false>(s, f, diff, vel, e);
  FE_CUDA_LAUNCHED("element_kernel");
  return FE_SUCCESS;
}

#define VARIANTS(D)                                                                                \
  {0, 0, launch_simple<D>}, {32, 1, launch_2level<D, 32, 1>}, {32, 2, launch_2level<D, 32, 2>},    \
      {32, 4, launch_2level<D, 32, 4>}, {32, 8, launch_2level<D, 32, 8>},                          \
      {64, 1, launch_2level<D, 64, 1>}, {64, 2, launch_2level<D, 64, 2>},                          \
      {64, 4, launch_2level<D, 64, 4>}, {128, 1, launch_2level<D, 128, 1>},                        \
      {128, 2, launch_2level<D, 128, 2>}, {128, 4, launch_2level<D, 128, 4>},                      \
  {                                                                                                \
    256, 1, launch_2level<D, 256, 1>                                                               \
  }

static const struct element_variant variants[2][12] = {{VARIANTS(2)}, {VARIANTS(3)}};

int fe_element_variant_cuda(int d, int k, int *epb, int *tpe)
{
  if (d < 2 || d > 3 || k < 0 || k >= 12) return 0;
  *epb = variants[d - 2][k].epb;
  *tpe = variants[d - 2][k].tpe;
  return 1;
}

template <int D>
static int element_matrices_d(const struct fe_space *s, const struct fe_form *f, enum fe_storage st,
                              const double *diff, const double *vel, double *e, double *elift)
{
  const struct fe_cuda_ctx *ctx = fe_cuda_ctx(s->be);
  const struct element_variant *v = &variants[D - 2][0];
  for (int k = 0; k < 12; k++)
    if (variants[D - 2][k].epb == ctx->element_epb[D - 2] &&
        variants[D - 2][k].tpe == ctx->element_tpe[D - 2])
      v = &variants[D - 2][k];
  if (e) FE_CALL(v->launch(s, f, st, diff, vel, e));
  if (s->n_bcells) {
    const unsigned blocks = (unsigned)((s->n_bcells + THREADS - 1) / THREADS);
    if (fe_form_symmetric(f))
      boundary_kernel<D, true><<<blocks, THREADS, 0, fe_cuda_stream(s->be)>>>(
          s->n_bcells, *f, s->bcells, s->cells, s->coords, diff, vel, elift);
    else
      boundary_kernel<D, false><<<blocks, THREADS, 0, fe_cuda_stream(s->be)>>>(
          s->n_bcells, *f, s->bcells, s->cells, s->coords, diff, vel, elift);
    FE_CUDA_LAUNCHED("boundary_kernel");
  }
  return FE_SUCCESS;
}

int fe_element_matrices_cuda(const struct fe_space *s, const struct fe_form *f, enum fe_storage st,
                             const double *diff, const double *vel, double *e, double *elift)
{
  return s->d == 2 ? element_matrices_d<2>(s, f, st, diff, vel, e, elift)
                   : element_matrices_d<3>(s, f, st, diff, vel, e, elift);
}

/* ---- matrix-free: element matrices recomputed in each apply */

/* Deterministic variant: the local products to work, summed per node by incidence_sum_kernel. */
/* The element matrix recomputed and applied, then the scatter: with atomics
 * into y (ATOMIC), or the products into the work array for the gather per
 * node.  (Summing a block's products per node in a shared-memory hash table
 * first, to cut the global atomics about five-fold, measured 1.9x slower on
 * an H100: docs/performance.md.) */
template <int D, bool ATOMIC, bool SYM>
__global__ void __launch_bounds__(THREADS, SYM ? 4 : 2)
    matfree_kernel(long n_cells, struct fe_form form, const int *cells, const double *coords,
                   const unsigned char *dmask, const double *diff, const double *vel,
                   const double *x, double *out)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  double ye[4];
  fe_cell_matfree_product(D, SYM, &c_ref[D - 2], &form, cells, coords, diff, vel, dmask[c], x, c,
                          ye);
  fe_cuda_put_local<D, ATOMIC>(c, cells + c * (D + 1), ye, out);
}

/* The kernel for the form: a symmetric form's without the velocity terms, whose registers
 * would otherwise bound the occupancy of every matrix-free apply. */
template <int D, bool ATOMIC>
static void launch_matfree(const struct fe_space *s, const struct fe_form *f, const double *diff,
                           const double *vel, const double *x, double *out)
{
  const unsigned cb = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  const cudaStream_t stream = fe_cuda_stream(s->be);
  if (fe_form_symmetric(f))
    matfree_kernel<D, ATOMIC, true><<<cb, THREADS, 0, stream>>>(s->n_cells, *f, s->cells, s->coords,
                                                                s->dmask, diff, vel, x, out);
  else
    matfree_kernel<D, ATOMIC, false><<<cb, THREADS, 0, stream>>>(
        s->n_cells, *f, s->cells, s->coords, s->dmask, diff, vel, x, out);
}

template <int D>
static int matfree_apply_d(const struct fe_space *s, const struct fe_form *f, const double *diff,
                           const double *vel, const double *x, double *y, double *work)
{
  if (!s->deterministic) {
    FE_CUDA_CALL(cudaMemsetAsync(y, 0, s->n_nodes * sizeof *y, fe_cuda_stream(s->be)));
    launch_matfree<D, true>(s, f, diff, vel, x, y);
    FE_CUDA_LAUNCHED("matfree_kernel");
    return fe_cuda_fold(s, y);
  }
  launch_matfree<D, false>(s, f, diff, vel, x, work);
  FE_CUDA_LAUNCHED("matfree_kernel");
  return fe_incidence_sum_cuda(s, s->inc_ptr, s->inc, work, y);
}

int fe_matfree_apply_cuda(const struct fe_space *s, const struct fe_form *f, const double *diff,
                          const double *vel, const double *x, double *y, double *work)
{
  return s->d == 2 ? matfree_apply_d<2>(s, f, diff, vel, x, y, work)
                   : matfree_apply_d<3>(s, f, diff, vel, x, y, work);
}

template <int D>
__global__ void matfree_diagonal_kernel(long n_nodes, struct fe_form form, const int *inc_ptr,
                                        const int *inc, const int *cells, const double *coords,
                                        const unsigned char *dmask, const double *diff,
                                        const double *vel, double *diag)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes)
    diag[n] = fe_node_matfree_diagonal(D, &c_ref[D - 2], &form, n, inc_ptr, inc, cells, coords,
                                       dmask, diff, vel);
}

int fe_matfree_diagonal_cuda(const struct fe_space *s, const struct fe_form *f, const double *diff,
                             const double *vel, double *diag)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  if (s->d == 2)
    matfree_diagonal_kernel<2><<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(
        s->n_nodes, *f, s->inc_ptr, s->inc, s->cells, s->coords, s->dmask, diff, vel, diag);
  else
    matfree_diagonal_kernel<3><<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(
        s->n_nodes, *f, s->inc_ptr, s->inc, s->cells, s->coords, s->dmask, diff, vel, diag);
  FE_CUDA_LAUNCHED("matfree_diagonal_kernel");
  return FE_SUCCESS;
}

/* ---- matrix-free consistent mass apply, a gather per node (norms) */

template <int D>
__global__ void mass_apply_kernel(long n_nodes, const int *inc_ptr, const int *inc,
                                  const int *cells, const double *coords, const double *x,
                                  double *y)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) y[n] = fe_node_mass_row(D, &c_ref[D - 2], n, inc_ptr, inc, cells, coords, x);
}

int fe_mass_apply_cuda(const struct fe_space *s, const double *x, double *y)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  if (s->d == 2)
    mass_apply_kernel<2><<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_nodes, s->inc_ptr, s->inc,
                                                                    s->cells, s->coords, x, y);
  else
    mass_apply_kernel<3><<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_nodes, s->inc_ptr, s->inc,
                                                                    s->cells, s->coords, x, y);
  FE_CUDA_LAUNCHED("mass_apply_kernel");
  return FE_SUCCESS;
}

/* Which element kernel variant the backend runs. */
int fe_element_use_variant_cuda(const struct fe_backend *be, int d, int epb, int tpe)
{
  int e, t, found = 0;
  for (int k = 0; fe_element_variant_cuda(d, k, &e, &t); k++) found |= e == epb && t == tpe;
  FE_CHECK((d == 2 || d == 3) && found, FE_ERR_USAGE,
           "no %dD element kernel with %d elements per block and %d threads per element", d, epb,
           tpe);
  fe_cuda_ctx(be)->element_epb[d - 2] = epb;
  fe_cuda_ctx(be)->element_tpe[d - 2] = tpe;
  return FE_SUCCESS;
}
