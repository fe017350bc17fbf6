/* Assembly kernels of the CUDA backend: element matrices by tensor
 * contraction (the element math of assembly/element.h, compiled by nvcc),
 * the local matrix approach (scatter with atomics, or a deterministic gather
 * through the node incidence), and addto (atomics into CSR, cuSPARSE SpMV). */
#include <cstdlib>

#include "assembly/kernels.h"
#include "core/cuda_check.h"
#include "solvers/cuda/backend_cuda.h"

/* K of 2D and 3D: read with warp-uniform addresses, so constant memory broadcasts. */
__constant__ struct fe_reference c_ref[2];

#define THREADS 256

static int prepare_cuda(const struct fe_space *s)
{
  FE_CUDA_CALL(cudaMemcpyToSymbol(c_ref, &s->ref, sizeof s->ref, (s->d - 2) * sizeof s->ref));
  return FE_SUCCESS;
}

/* ---- local assembly: one thread per cell, stores coalesced in the blocked layout */

template <int D>
__global__ void element_kernel(long n_cells, struct fe_form form, const int *cells, const double *coords,
                               const unsigned char *dmask, const double *diff, const double *vel, double *e,
                               int shift)
{
  const int nv = D + 1, nk = nv * nv;
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  double m[FE_NK_MAX];
  fe_cell_matrix(D, &c_ref[D - 2], &form, cells, coords, diff, vel, c, m);
  const unsigned dm = dmask[c];
#pragma unroll
  for (int i = 0; i < nv; i++)
#pragma unroll
    for (int j = 0; j < nv; j++) e[fe_block_index(c, i * nv + j, nk, shift)] = fe_dirichlet_entry(i, j, dm, m[i * nv + j]);
}

template <int D>
__global__ void boundary_kernel(long n_bcells, struct fe_form form, const int *bcells, const int *cells,
                                const double *coords, const double *diff, const double *vel, double *elift)
{
  const int nk = (D + 1) * (D + 1);
  const long b = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (b >= n_bcells) return;
  fe_cell_matrix(D, &c_ref[D - 2], &form, cells, coords, diff, vel, bcells[b], elift + b * nk);
}

/* Two-level parallelism (Filipovic et al.): EPB elements per block; phase 1,
 * one thread per element computes its geometry tensors into shared memory;
 * phase 2, TPE threads per element contract them with K, thread t taking
 * element t % EPB and entries t / EPB + j * TPE, so that a warp reads one K
 * entry (constant-memory broadcast) and stores 32 consecutive elements'
 * entry k (coalesced in the blocked layout). */
template <int D, int EPB, int TPE>
__global__ void __launch_bounds__(EPB *TPE) element_kernel_2level(long n_cells, struct fe_form form, const int *cells,
                                                                  const double *coords, const unsigned char *dmask,
                                                                  const double *diff, const double *vel, double *e,
                                                                  int shift)
{
  const int nv = D + 1, nk = nv * nv;
  __shared__ double s_det[EPB], s_gdiff[D * D][EPB], s_gadv[(D + 1) * D][EPB];
  const long c0 = (long)blockIdx.x * EPB;
  const int t = threadIdx.x;
  if (t < EPB && c0 + t < n_cells) {
    double gdiff[9], gadv[12];
    s_det[t] = fe_cell_geometry(D, &form, cells, coords, diff, vel, c0 + t, gdiff, gadv);
    if (form.diffusion != 0)
      for (int g = 0; g < D * D; g++) s_gdiff[g][t] = gdiff[g];
    if (form.advection != 0)
      for (int g = 0; g < (D + 1) * D; g++) s_gadv[g][t] = gadv[g];
  }
  __syncthreads();
  const int el = t % EPB;
  const long c = c0 + el;
  if (c >= n_cells) return;
  double gdiff[9], gadv[12];
  if (form.diffusion != 0)
    for (int g = 0; g < D * D; g++) gdiff[g] = s_gdiff[g][el];
  if (form.advection != 0)
    for (int g = 0; g < (D + 1) * D; g++) gadv[g] = s_gadv[g][el];
  const unsigned dm = dmask[c];
  for (int k = t / EPB; k < nk; k += TPE) {
    const double v = fe_element_entry(D, &c_ref[D - 2], &form, s_det[el], gdiff, gadv, k);
    e[fe_block_index(c, k, nk, shift)] = fe_dirichlet_entry(k / nv, k % nv, dm, v);
  }
}

/* The kernel variants, by (EPB, TPE); (0, 0) is one thread per element. */
struct element_variant {
  int epb, tpe;
  int (*launch)(const struct fe_space *s, const struct fe_form *f, const double *diff, const double *vel, double *e);
};

template <int D, int EPB, int TPE>
static int launch_2level(const struct fe_space *s, const struct fe_form *f, const double *diff, const double *vel,
                         double *e)
{
  const unsigned blocks = (unsigned)((s->n_cells + EPB - 1) / EPB);
  element_kernel_2level<D, EPB, TPE><<<blocks, EPB * TPE>>>(s->n_cells, *f, s->cells, s->coords, s->dmask, diff,
                                                             vel, e, s->block_shift);
  FE_CUDA_LAUNCHED("element_kernel_2level");
  return FE_SUCCESS;
}

template <int D>
static int launch_simple(const struct fe_space *s, const struct fe_form *f, const double *diff, const double *vel,
                         double *e)
{
  const unsigned blocks = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  element_kernel<D><<<blocks, THREADS>>>(s->n_cells, *f, s->cells, s->coords, s->dmask, diff, vel, e, s->block_shift);
  FE_CUDA_LAUNCHED("element_kernel");
  return FE_SUCCESS;
}

#define VARIANTS(D)                                                                                            \
  {0, 0, launch_simple<D>}, {32, 1, launch_2level<D, 32, 1>}, {32, 2, launch_2level<D, 32, 2>},                \
    {32, 4, launch_2level<D, 32, 4>}, {32, 8, launch_2level<D, 32, 8>}, {64, 1, launch_2level<D, 64, 1>},      \
    {64, 2, launch_2level<D, 64, 2>}, {64, 4, launch_2level<D, 64, 4>}, {128, 1, launch_2level<D, 128, 1>},    \
    {128, 2, launch_2level<D, 128, 2>}, {128, 4, launch_2level<D, 128, 4>}, {256, 1, launch_2level<D, 256, 1>}

static const struct element_variant variants[2][12] = {{VARIANTS(2)}, {VARIANTS(3)}};

extern "C" int fe_cuda_element_variant(int d, int k, int *epb, int *tpe)
{
  if (k < 0 || k >= 12) return 0;
  *epb = variants[d - 2][k].epb;
  *tpe = variants[d - 2][k].tpe;
  return 1;
}

template <int D>
static int element_matrices_d(const struct fe_space *s, const struct fe_form *f, const double *diff,
                              const double *vel, double *e, double *elift)
{
  const struct fe_cuda_ctx *ctx = fe_cuda_ctx(s->be);
  const struct element_variant *v = &variants[D - 2][0];
  for (int k = 0; k < 12; k++)
    if (variants[D - 2][k].epb == ctx->element_epb[D - 2] && variants[D - 2][k].tpe == ctx->element_tpe[D - 2])
      v = &variants[D - 2][k];
  if (e) FE_CALL(v->launch(s, f, diff, vel, e));
  if (s->n_bcells) {
    const unsigned blocks = (unsigned)((s->n_bcells + THREADS - 1) / THREADS);
    boundary_kernel<D><<<blocks, THREADS>>>(s->n_bcells, *f, s->bcells, s->cells, s->coords, diff, vel, elift);
    FE_CUDA_LAUNCHED("boundary_kernel");
  }
  return FE_SUCCESS;
}

static int element_matrices_cuda(const struct fe_space *s, const struct fe_form *f, const double *diff,
                                 const double *vel, double *e, double *elift)
{
  return s->d == 2 ? element_matrices_d<2>(s, f, diff, vel, e, elift)
                   : element_matrices_d<3>(s, f, diff, vel, e, elift);
}

/* ---- LMA: y = A^T (E (A x)) */

/* gather, local product and scatter with atomics, in one kernel */
template <int D>
__global__ void lma_atomic_kernel(long n_cells, const int *cells, const double *e, int shift, const double *x,
                                  double *y)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  double ye[4];
  fe_cell_lma_product(D, e, shift, cells, x, c, ye);
#pragma unroll
  for (int i = 0; i < D + 1; i++) atomicAdd(&y[cells[c * (D + 1) + i]], ye[i]);
}

/* gather and local product into work (c * nv + i); the scatter is a gather below */
template <int D>
__global__ void lma_product_kernel(long n_cells, const int *cells, const double *e, int shift, const double *x,
                                   double *work)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  double ye[4];
  fe_cell_lma_product(D, e, shift, cells, x, c, ye);
#pragma unroll
  for (int i = 0; i < D + 1; i++) work[c * (D + 1) + i] = ye[i];
}

__global__ void incidence_sum_kernel(long n_nodes, const int *inc_ptr, const int *inc, const double *work, double *y)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n >= n_nodes) return;
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) sum += work[inc[k]];
  y[n] = sum;
}

template <int D>
static int lma_apply_d(const struct fe_space *s, const double *e, const double *x, double *y, double *work)
{
  const unsigned cb = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  if (!s->deterministic) {
    FE_CUDA_CALL(cudaMemsetAsync(y, 0, s->n_nodes * sizeof *y));
    lma_atomic_kernel<D><<<cb, THREADS>>>(s->n_cells, s->cells, e, s->block_shift, x, y);
    FE_CUDA_LAUNCHED("lma_atomic_kernel");
    return FE_SUCCESS;
  }
  lma_product_kernel<D><<<cb, THREADS>>>(s->n_cells, s->cells, e, s->block_shift, x, work);
  FE_CUDA_LAUNCHED("lma_product_kernel");
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  incidence_sum_kernel<<<nb, THREADS>>>(s->n_nodes, s->inc_ptr, s->inc, work, y);
  FE_CUDA_LAUNCHED("incidence_sum_kernel");
  return FE_SUCCESS;
}

static int lma_apply_cuda(const struct fe_space *s, const double *e, const double *x, double *y, double *work)
{
  return s->d == 2 ? lma_apply_d<2>(s, e, x, y, work) : lma_apply_d<3>(s, e, x, y, work);
}

/* ---- matrix-free: element matrices recomputed in each apply */

/* Deterministic variant: the local products to work, summed per node by incidence_sum_kernel. */
template <int D>
__global__ void matfree_kernel(long n_cells, struct fe_form form, const int *cells, const double *coords,
                               const unsigned char *dmask, const double *diff, const double *vel, const double *x,
                               double *work)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  double ye[4];
  fe_cell_matfree_product(D, &c_ref[D - 2], &form, cells, coords, diff, vel, dmask[c], x, c, ye);
#pragma unroll
  for (int i = 0; i < D + 1; i++) work[c * (D + 1) + i] = ye[i];
}

/* Scatter-add with atomics.  (Summing a block's products per node in a
 * shared-memory hash table first, to cut the global atomics about five-fold,
 * measured 1.9x slower on an H100: docs/performance.md.) */
template <int D>
__global__ void matfree_atomic_kernel(long n_cells, struct fe_form form, const int *cells, const double *coords,
                                      const unsigned char *dmask, const double *diff, const double *vel,
                                      const double *x, double *y)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  double ye[4];
  fe_cell_matfree_product(D, &c_ref[D - 2], &form, cells, coords, diff, vel, dmask[c], x, c, ye);
#pragma unroll
  for (int i = 0; i < D + 1; i++) atomicAdd(&y[cells[c * (D + 1) + i]], ye[i]);
}

template <int D>
static int matfree_apply_d(const struct fe_space *s, const struct fe_form *f, const double *diff, const double *vel,
                           const double *x, double *y, double *work)
{
  const unsigned cb = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  if (s->deterministic) {
    matfree_kernel<D><<<cb, THREADS>>>(s->n_cells, *f, s->cells, s->coords, s->dmask, diff, vel, x, work);
    FE_CUDA_LAUNCHED("matfree_kernel");
  } else {
    FE_CUDA_CALL(cudaMemsetAsync(y, 0, s->n_nodes * sizeof *y));
    matfree_atomic_kernel<D><<<cb, THREADS>>>(s->n_cells, *f, s->cells, s->coords, s->dmask, diff, vel, x, y);
    FE_CUDA_LAUNCHED("matfree_atomic_kernel");
  }
  if (s->deterministic) {
    const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
    incidence_sum_kernel<<<nb, THREADS>>>(s->n_nodes, s->inc_ptr, s->inc, work, y);
    FE_CUDA_LAUNCHED("incidence_sum_kernel");
  }
  return FE_SUCCESS;
}

static int matfree_apply_cuda(const struct fe_space *s, const struct fe_form *f, const double *diff, const double *vel,
                              const double *x, double *y, double *work)
{
  return s->d == 2 ? matfree_apply_d<2>(s, f, diff, vel, x, y, work) : matfree_apply_d<3>(s, f, diff, vel, x, y, work);
}

template <int D>
__global__ void matfree_diagonal_kernel(long n_nodes, struct fe_form form, const int *inc_ptr, const int *inc,
                                        const int *cells, const double *coords, const unsigned char *dmask,
                                        const double *diff, const double *vel, double *diag)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n >= n_nodes) return;
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const int c = inc[k] / (D + 1), i = inc[k] % (D + 1);
    double m[FE_NK_MAX];
    fe_cell_matrix(D, &c_ref[D - 2], &form, cells, coords, diff, vel, c, m);
    sum += fe_dirichlet_entry(i, i, dmask[c], m[i * (D + 1) + i]);
  }
  diag[n] = sum;
}

static int matfree_diagonal_cuda(const struct fe_space *s, const struct fe_form *f, const double *diff,
                                 const double *vel, double *diag)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  if (s->d == 2)
    matfree_diagonal_kernel<2><<<nb, THREADS>>>(s->n_nodes, *f, s->inc_ptr, s->inc, s->cells, s->coords, s->dmask,
                                                diff, vel, diag);
  else
    matfree_diagonal_kernel<3><<<nb, THREADS>>>(s->n_nodes, *f, s->inc_ptr, s->inc, s->cells, s->coords, s->dmask,
                                                diff, vel, diag);
  FE_CUDA_LAUNCHED("matfree_diagonal_kernel");
  return FE_SUCCESS;
}

__global__ void lma_diagonal_kernel(long n_nodes, int nv, const int *inc_ptr, const int *inc, const double *e,
                                    int shift, double *diag)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n >= n_nodes) return;
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const int c = inc[k] / nv, i = inc[k] % nv;
    sum += e[fe_block_index(c, i * nv + i, nv * nv, shift)];
  }
  diag[n] = sum;
}

static int lma_diagonal_cuda(const struct fe_space *s, const double *e, double *diag)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  lma_diagonal_kernel<<<nb, THREADS>>>(s->n_nodes, s->nv, s->inc_ptr, s->inc, e, s->block_shift, diag);
  FE_CUDA_LAUNCHED("lma_diagonal_kernel");
  return FE_SUCCESS;
}

/* y_n += scale * sum over the boundary cells at interior node n of E_{n j} x_j,
 * j Dirichlet: a gather per node, so the sums have a fixed order. */
__global__ void lift_kernel(long n_nodes, int nv, const int *inc_ptr, const int *inc, const int *cells,
                            const unsigned char *dmask, const int *bindex, const double *elift, double scale,
                            const double *x, double *y)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n >= n_nodes) return;
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const int c = inc[k] / nv, i = inc[k] % nv;
    const unsigned dm = dmask[c];
    if (!(dm & 15u) || ((dm >> i) & 1u)) continue;
    const double *el = elift + (long)bindex[c] * nv * nv;
    for (int j = 0; j < nv; j++)
      if ((dm >> j) & 1u) sum += el[i * nv + j] * x[cells[(long)c * nv + j]];
  }
  if (sum != 0) y[n] += scale * sum;
}

static int lift_cuda(const struct fe_space *s, const double *elift, double scale, const double *x, double *y)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  lift_kernel<<<nb, THREADS>>>(s->n_nodes, s->nv, s->inc_ptr, s->inc, s->cells, s->dmask, s->bindex, elift,
                               scale, x, y);
  FE_CUDA_LAUNCHED("lift_kernel");
  return FE_SUCCESS;
}

/* ---- addto */

__global__ void csr_assemble_kernel(long n_cells, int nk, int shift, const int *map, const double *e, double *values)
{
  const long total = fe_blocked_cells(n_cells, shift) * nk, mask = (1L << shift) - 1;
  for (long idx = blockIdx.x * (long)blockDim.x + threadIdx.x; idx < total; idx += (long)gridDim.x * blockDim.x) {
    const long c = ((idx >> shift) / nk << shift) + (idx & mask); /* the cell of entry idx */
    if (c < n_cells) atomicAdd(&values[map[idx]], e[idx]);
  }
}

static int csr_assemble_cuda(const struct fe_space *s, struct fe_csr *csr, const double *e)
{
  FE_CUDA_CALL(cudaMemsetAsync(csr->values, 0, csr->nnz * sizeof(double)));
  const size_t total = (size_t)fe_blocked_cells(s->n_cells, s->block_shift) * s->nk;
  csr_assemble_kernel<<<fe_cuda_blocks(total, THREADS), THREADS>>>(s->n_cells, s->nk, s->block_shift, csr->map, e,
                                                                   csr->values);
  FE_CUDA_LAUNCHED("csr_assemble_kernel");
  return FE_SUCCESS;
}

/* cuSPARSE descriptors and buffer, created at the first apply and kept */
struct spmv {
  cusparseSpMatDescr_t a;
  cusparseDnVecDescr_t x, y;
  void *buffer;
};

static int spmv_create(struct fe_csr *csr, cusparseHandle_t h)
{
  struct spmv *p = (struct spmv *)calloc(1, sizeof *p);
  FE_CHECK(p, FE_ERR_RESOURCE, "out of host memory");
  csr->ctx = p;
  FE_CUSPARSE_CALL(cusparseCreateCsr(&p->a, csr->n, csr->n, csr->nnz, csr->rowptr, csr->colind, csr->values,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  FE_CUSPARSE_CALL(cusparseCreateDnVec(&p->x, csr->n, csr->values, CUDA_R_64F));
  FE_CUSPARSE_CALL(cusparseCreateDnVec(&p->y, csr->n, csr->values, CUDA_R_64F));
  const double one = 1, zero = 0;
  size_t bytes = 0;
  FE_CUSPARSE_CALL(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->a, p->x, &zero, p->y,
                                           CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, &bytes));
  FE_CUDA_CALL(cudaMalloc(&p->buffer, bytes ? bytes : 1));
  return FE_SUCCESS;
}

static void csr_release_cuda(struct fe_csr *csr)
{
  struct spmv *p = (struct spmv *)csr->ctx;
  if (p->a) cusparseDestroySpMat(p->a);
  if (p->x) cusparseDestroyDnVec(p->x);
  if (p->y) cusparseDestroyDnVec(p->y);
  cudaFree(p->buffer);
  free(p);
  csr->ctx = NULL;
}

/* CSR_ALG2: bitwise reproducible from run to run */
static int csr_apply_cuda(struct fe_csr *csr, const double *x, double *y)
{
  cusparseHandle_t h = fe_cuda_ctx(csr->be)->sparse;
  if (!csr->ctx) FE_CALL(spmv_create(csr, h));
  struct spmv *p = (struct spmv *)csr->ctx;
  FE_CUSPARSE_CALL(cusparseDnVecSetValues(p->x, (void *)x));
  FE_CUSPARSE_CALL(cusparseDnVecSetValues(p->y, y));
  const double one = 1, zero = 0;
  FE_CUSPARSE_CALL(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->a, p->x, &zero, p->y, CUDA_R_64F,
                                CUSPARSE_SPMV_CSR_ALG2, p->buffer));
  return FE_SUCCESS;
}

__global__ void csr_diagonal_kernel(long n, const int *slot, const double *values, double *diag)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) diag[i] = values[slot[i]];
}

static int csr_diagonal_cuda(const struct fe_csr *csr, double *diag)
{
  csr_diagonal_kernel<<<(unsigned)((csr->n + THREADS - 1) / THREADS), THREADS>>>(csr->n, csr->diag, csr->values, diag);
  FE_CUDA_LAUNCHED("csr_diagonal_kernel");
  return FE_SUCCESS;
}

/* ---- facet loads (Neumann), a gather per node */

template <int D>
__global__ void facet_load_kernel(long n_nodes, const int *ptr, const int *slots, const double *w, const double *g,
                                  double *out)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n >= n_nodes) return;
  double sum = 0;
  for (int k = ptr[n]; k < ptr[n + 1]; k++) {
    const int f = slots[k] / D;
    double all = 0;
#pragma unroll
    for (int j = 0; j < D; j++) all += g[f * D + j];
    sum += w[f] * (g[slots[k]] + all);
  }
  out[n] = sum;
}

static int facet_load_cuda(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                           const double *g, double *out)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  if (s->d == 2)
    facet_load_kernel<2><<<nb, THREADS>>>(s->n_nodes, ptr, slots, w, g, out);
  else
    facet_load_kernel<3><<<nb, THREADS>>>(s->n_nodes, ptr, slots, w, g, out);
  FE_CUDA_LAUNCHED("facet_load_kernel");
  return FE_SUCCESS;
}

/* ---- matrix-free consistent mass apply, a gather per node (norms) */

template <int D>
__global__ void mass_apply_kernel(long n_nodes, const int *inc_ptr, const int *inc, const int *cells,
                                  const double *coords, const double *x, double *y)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n >= n_nodes) return;
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++)
    sum += fe_cell_mass_row(D, &c_ref[D - 2], cells, coords, x, inc[k] / (D + 1), inc[k] % (D + 1));
  y[n] = sum;
}

static int mass_apply_cuda(const struct fe_space *s, const double *x, double *y)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  if (s->d == 2)
    mass_apply_kernel<2><<<nb, THREADS>>>(s->n_nodes, s->inc_ptr, s->inc, s->cells, s->coords, x, y);
  else
    mass_apply_kernel<3><<<nb, THREADS>>>(s->n_nodes, s->inc_ptr, s->inc, s->cells, s->coords, x, y);
  FE_CUDA_LAUNCHED("mass_apply_kernel");
  return FE_SUCCESS;
}

/* ---- coefficients from the expressions' programs (io/program.h) */

#define EVAL_MAX_PROGRAMS 6

template <int D>
__global__ void evaluate_kernel(int at_cells, const int *cells, const double *coords, const int *idx,
                                const int *opos, long m, const struct fe_program *progs, int nprog, double t,
                                double *out)
{
  __shared__ struct fe_program p[EVAL_MAX_PROGRAMS];
  /* stage the programs: every thread reads the same instruction, from shared memory */
  const int words = nprog * (int)(sizeof(struct fe_program) / sizeof(int));
  for (int w = threadIdx.x; w < words; w += blockDim.x) ((int *)p)[w] = ((const int *)progs)[w];
  __syncthreads();
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= m) return;
  double x[3] = {0, 0, 0};
  if (at_cells) {
#pragma unroll
    for (int v = 0; v < D + 1; v++)
#pragma unroll
      for (int a = 0; a < D; a++) x[a] += coords[(long)cells[i * (D + 1) + v] * D + a] / (D + 1);
  } else {
    const long n = idx ? idx[i] : i;
#pragma unroll
    for (int a = 0; a < D; a++) x[a] = coords[n * D + a];
  }
  const long o = (opos ? opos[i] : i) * nprog;
  for (int k = 0; k < nprog; k++) out[o + k] = fe_program_eval(&p[k], x[0], x[1], x[2], t);
}

static int evaluate_cuda(const struct fe_space *s, int at_cells, const int *idx, const int *opos, long m,
                         const struct fe_program *progs, int nprog, double t, double *out)
{
  FE_CHECK(nprog <= EVAL_MAX_PROGRAMS, FE_ERR_USAGE, "at most %d programs at once", EVAL_MAX_PROGRAMS);
  if (!m) return FE_SUCCESS;
  const unsigned blocks = (unsigned)((m + 127) / 128);
  if (s->d == 2)
    evaluate_kernel<2><<<blocks, 128>>>(at_cells, s->cells, s->coords, idx, opos, m, progs, nprog, t, out);
  else
    evaluate_kernel<3><<<blocks, 128>>>(at_cells, s->cells, s->coords, idx, opos, m, progs, nprog, t, out);
  FE_CUDA_LAUNCHED("evaluate_kernel");
  return FE_SUCCESS;
}

template <int D>
__global__ void count_indefinite_kernel(long m, const double *tensors, int *count)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  int a, b;
  double v;
  if (i < m && fe_sym_psd_failure(D, tensors + i * FE_NSYM(D), &a, &b, &v)) atomicAdd(count, 1);
}

static int count_indefinite_cuda(const struct fe_space *s, long m, const double *tensors, int *count)
{
  if (!m) return FE_SUCCESS;
  const unsigned blocks = (unsigned)((m + THREADS - 1) / THREADS);
  if (s->d == 2)
    count_indefinite_kernel<2><<<blocks, THREADS>>>(m, tensors, count);
  else
    count_indefinite_kernel<3><<<blocks, THREADS>>>(m, tensors, count);
  FE_CUDA_LAUNCHED("count_indefinite_kernel");
  return FE_SUCCESS;
}

extern "C" const struct fe_assembly_kernels fe_assembly_kernels_cuda = {
  prepare_cuda,      element_matrices_cuda, lma_apply_cuda,    lma_diagonal_cuda, matfree_apply_cuda,
  matfree_diagonal_cuda, lift_cuda,
  csr_assemble_cuda, csr_apply_cuda,        csr_diagonal_cuda, csr_release_cuda,  facet_load_cuda,
  mass_apply_cuda,   evaluate_cuda,         count_indefinite_cuda,
};

/* Which element kernel variant the backend runs (declared in solvers/cuda.h). */
extern "C" int fe_backend_cuda_set_element_kernel(struct fe_backend *be, int d, int epb, int tpe)
{
  int e, t, found = 0;
  for (int k = 0; fe_cuda_element_variant(d, k, &e, &t); k++) found |= e == epb && t == tpe;
  FE_CHECK((d == 2 || d == 3) && found, FE_ERR_USAGE,
           "no %dD element kernel with %d elements per block and %d threads per element", d, epb, tpe);
  fe_cuda_ctx(be)->element_epb[d - 2] = epb;
  fe_cuda_ctx(be)->element_tpe[d - 2] = tpe;
  return FE_SUCCESS;
}
