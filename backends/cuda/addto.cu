/* The addto strategy on the CUDA backend: element matrices added into the CSR
 * values with atomics through the entry -> slot map, applied by cuSPARSE. */
#include <cstdlib>

#include <cub/device/device_scan.cuh>

#include "assembly/node.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"

#define THREADS 256

/* ---------------------------------------------------------------- the sparsity, on the device */

/* Row i's columns into its own stretch of scratch (its incidence's count times nv, where
 * fe_node_csr_columns has room), their count into count[i]. */
__global__ void csr_columns_kernel(long n, int nv, const int *inc_ptr, const int *inc,
                                   const int *cells, const int *owner, int *scratch, int *count)
{
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    count[i] =
        fe_node_csr_columns(i, nv, inc_ptr, inc, cells, owner, scratch + (long)inc_ptr[i] * nv);
}

/* Row i's columns from its stretch of scratch into colind, and its diagonal's slot. */
__global__ void csr_rows_kernel(long n, int nv, const int *inc_ptr, const int *scratch,
                                const int *rowptr, int *colind, int *diag)
{
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x) {
    const int *from = scratch + (long)inc_ptr[i] * nv;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++) colind[k] = from[k - rowptr[i]];
    diag[i] = fe_node_csr_slot(rowptr, colind, (int)i, (int)i);
  }
}

/* Each entry's slot, in the blocked layout (the blocks' padding 0). */
__global__ void csr_map_kernel(long n_cells, int nv, int nk, int shift, const int *cells,
                               const int *owner, const int *rowptr, const int *colind, int *map)
{
  const long total = fe_blocked_cells(n_cells, shift) * nk, mask = (1L << shift) - 1;
  for (long idx = blockIdx.x * (long)blockDim.x + threadIdx.x; idx < total;
       idx += (long)gridDim.x * blockDim.x) {
    const long c = ((idx >> shift) / nk << shift) + (idx & mask); /* the cell of entry idx */
    const int k = (int)((idx >> shift) % nk);
    map[idx] = c < n_cells ? fe_node_csr_entry_slot(c, k, nv, cells, owner, rowptr, colind) : 0;
  }
}

/* The scratch of fe_csr_sparsity_cuda: every row's stretch, the rows' counts, CUB's scan's. */
struct sparsity_scratch {
  int *rows, *count;
  void *temp;
  size_t temp_bytes;
};

static int sparsity(const struct fe_space *s, struct fe_csr *csr, struct sparsity_scratch *w)
{
  const struct fe_backend *be = s->be;
  cudaStream_t st = fe_cuda_stream(be);
  const long n = csr->n;
  const int nv = s->nv, nk = s->nk;
  int inc_n, nnz;
  FE_CALL(be->vec->to_host(be, &inc_n, s->inc_ptr + n, sizeof inc_n));
  FE_CALL(fe_backend_alloc(be, (size_t)inc_n * nv * sizeof(int), NULL, &w->rows));
  FE_CALL(fe_backend_alloc(be, n * sizeof(int), NULL, &w->count));
  FE_CALL(fe_backend_alloc(be, (n + 1) * sizeof(int), NULL, &csr->rowptr));
  FE_CUDA_CALL(
      cub::DeviceScan::InclusiveSum(NULL, w->temp_bytes, w->count, csr->rowptr + 1, (int)n, st));
  FE_CALL(fe_backend_alloc(be, w->temp_bytes, NULL, &w->temp));
  csr_columns_kernel<<<fe_cuda_blocks(n, THREADS), THREADS, 0, st>>>(
      n, nv, s->inc_ptr, s->inc, s->cells, s->owner, w->rows, w->count);
  FE_CUDA_LAUNCHED("csr_columns_kernel");
  FE_CUDA_CALL(cudaMemsetAsync(csr->rowptr, 0, sizeof(int), st));
  FE_CUDA_CALL(
      cub::DeviceScan::InclusiveSum(w->temp, w->temp_bytes, w->count, csr->rowptr + 1, (int)n, st));
  FE_CALL(be->vec->to_host(be, &nnz, csr->rowptr + n, sizeof nnz));
  csr->nnz = nnz;
  FE_CALL(fe_backend_alloc(be, (size_t)nnz * sizeof(int), NULL, &csr->colind));
  FE_CALL(fe_backend_alloc(be, n * sizeof(int), NULL, &csr->diag));
  csr_rows_kernel<<<fe_cuda_blocks(n, THREADS), THREADS, 0, st>>>(
      n, nv, s->inc_ptr, w->rows, csr->rowptr, csr->colind, csr->diag);
  FE_CUDA_LAUNCHED("csr_rows_kernel");
  const size_t total = (size_t)fe_blocked_cells(s->n_cells, s->block_shift) * nk;
  FE_CALL(fe_backend_alloc(be, total * sizeof(int), NULL, &csr->map));
  csr_map_kernel<<<fe_cuda_blocks(total, THREADS), THREADS, 0, st>>>(
      s->n_cells, nv, nk, s->block_shift, s->cells, s->owner, csr->rowptr, csr->colind, csr->map);
  FE_CUDA_LAUNCHED("csr_map_kernel");
  FE_CUDA_CALL(cudaStreamSynchronize(st)); /* before the scratch goes */
  return FE_SUCCESS;
}

/* Each row's columns are built by a thread of its own in a stretch of a scratch array as long
 * as the row's incidence times nv (4 bytes per element-matrix entry, freed after), counted,
 * summed into the row pointers (CUB's scan), then copied; the map by a binary search per entry,
 * as the CPU backend does. */
int fe_csr_sparsity_cuda(const struct fe_space *s, struct fe_csr *csr)
{
  struct sparsity_scratch w = {};
  const int err = sparsity(s, csr, &w);
  fe_backend_free(s->be, w.rows);
  fe_backend_free(s->be, w.count);
  fe_backend_free(s->be, w.temp);
  return err;
}

/* ---------------------------------------------------------------- assembly and apply */

__global__ void csr_assemble_kernel(long n_cells, int nk, int shift, const int *map,
                                    const double *e, double *values)
{
  const long total = fe_blocked_cells(n_cells, shift) * nk, mask = (1L << shift) - 1;
  for (long idx = blockIdx.x * (long)blockDim.x + threadIdx.x; idx < total;
       idx += (long)gridDim.x * blockDim.x) {
    const long c = ((idx >> shift) / nk << shift) + (idx & mask); /* the cell of entry idx */
    if (c < n_cells) atomicAdd(&values[map[idx]], e[idx]);
  }
}

static int spmv_create(struct fe_csr *csr, cusparseHandle_t h);
static int spmv_preprocess(struct fe_csr *csr, cusparseHandle_t h);

/* The SpMV's descriptors, buffer and preprocessing are made here, at the first assembly, and
 * not in an apply that CG's graph may be capturing (no allocation, no first-call work there). */
int fe_csr_assemble_cuda(const struct fe_space *s, struct fe_csr *csr, const double *e)
{
  const int first = !csr->ctx;
  if (first) FE_CALL(spmv_create(csr, fe_cuda_ctx(csr->be)->sparse));
  FE_CUDA_CALL(cudaMemsetAsync(csr->values, 0, csr->nnz * sizeof(double), fe_cuda_stream(s->be)));
  const size_t total = (size_t)fe_blocked_cells(s->n_cells, s->block_shift) * s->nk;
  csr_assemble_kernel<<<fe_cuda_blocks(total, THREADS), THREADS, 0, fe_cuda_stream(s->be)>>>(
      s->n_cells, s->nk, s->block_shift, csr->map, e, csr->values);
  FE_CUDA_LAUNCHED("csr_assemble_kernel");
  return first ? spmv_preprocess(csr, fe_cuda_ctx(csr->be)->sparse) : FE_SUCCESS;
}

/* cuSPARSE descriptors and buffer, created at the first assembly and kept */
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
  FE_CUSPARSE_CALL(cusparseCreateCsr(&p->a, csr->n, csr->n, csr->nnz, csr->rowptr, csr->colind,
                                     csr->values, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  FE_CUSPARSE_CALL(cusparseCreateDnVec(&p->x, csr->n, csr->values, CUDA_R_64F));
  FE_CUSPARSE_CALL(cusparseCreateDnVec(&p->y, csr->n, csr->values, CUDA_R_64F));
  const double one = 1, zero = 0;
  size_t bytes = 0;
  FE_CUSPARSE_CALL(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->a, p->x,
                                           &zero, p->y, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2,
                                           &bytes));
  FE_CUDA_CALL(cudaMalloc(&p->buffer, bytes ? bytes : 1));
  return FE_SUCCESS;
}

/* cuSPARSE's analysis of the matrix, once, on x = the values and a scratch y. */
static int spmv_preprocess(struct fe_csr *csr, cusparseHandle_t h)
{
  struct spmv *p = (struct spmv *)csr->ctx;
  double *y;
  FE_CUDA_CALL(cudaMalloc(&y, csr->n * sizeof(double) + 1));
  const double one = 1, zero = 0;
  cusparseStatus_t st = cusparseDnVecSetValues(p->y, y);
  if (st == CUSPARSE_STATUS_SUCCESS)
    st = cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->a, p->x, &zero, p->y,
                                 CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, p->buffer);
  const cudaError_t done = cudaStreamSynchronize(fe_cuda_stream(csr->be));
  cudaFree(y);
  FE_CUSPARSE_CALL(st);
  FE_CUDA_CALL(done);
  return FE_SUCCESS;
}

void fe_csr_release_cuda(struct fe_csr *csr)
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
int fe_csr_apply_cuda(struct fe_csr *csr, const double *x, double *y)
{
  cusparseHandle_t h = fe_cuda_ctx(csr->be)->sparse; /* on the backend's stream */
  FE_CHECK(csr->ctx, FE_ERR_USAGE, "a CSR applied before its first assembly");
  struct spmv *p = (struct spmv *)csr->ctx;
  FE_CUSPARSE_CALL(cusparseDnVecSetValues(p->x, (void *)x));
  FE_CUSPARSE_CALL(cusparseDnVecSetValues(p->y, y));
  const double one = 1, zero = 0;
  FE_CUSPARSE_CALL(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->a, p->x, &zero, p->y,
                                CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2, p->buffer));
  return FE_SUCCESS;
}

__global__ void csr_diagonal_kernel(long n, const int *slot, const double *values, double *diag)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) diag[i] = values[slot[i]];
}

int fe_csr_diagonal_cuda(const struct fe_csr *csr, double *diag)
{
  csr_diagonal_kernel<<<(unsigned)((csr->n + THREADS - 1) / THREADS), THREADS, 0,
                        fe_cuda_stream(csr->be)>>>(csr->n, csr->diag, csr->values, diag);
  FE_CUDA_LAUNCHED("csr_diagonal_kernel");
  return FE_SUCCESS;
}
