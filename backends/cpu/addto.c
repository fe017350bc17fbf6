/* The addto strategy on the CPU: element matrices accumulated through the entry -> CSR slot
 * map, one row per thread (no atomics, so the sums have a fixed order), into the matrix's
 * values held in slices, which the product reads. */
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/node.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

/* The matrix as the product reads it (csr->ctx): slices of SLICE consecutive rows, each
 * slice's entries column by column, the j-th entries of its rows side by side; a row shorter
 * than its slice's longest is padded with zeros at its own column, and the last slice's rows
 * past n are zero rows at column 0 (SELL-C-sigma with C = 8, sigma = 1: rows not reordered;
 * Kreutzer et al., SIAM J. Sci. Comput. 36, 2014).  A row-by-row CSR product waits the adder's
 * latency at every entry of a row; here a slice's rows are summed side by side, eight
 * independent sums, each adding its row's entries in the CSR's order: the same sums, about
 * 1.3x faster on one core (docs/performance.md).  The values are held here only (csr->values
 * NULL): the assembly adds each row's entries into their places in the slices (slice_base),
 * and fe_csr_download gathers them back in the CSR's order (fe_csr_values_cpu); the columns
 * are held twice, the CSR's and the slices' (4 more bytes per entry, and the padding). */
enum { SLICE = 8 };
struct sliced {
  long n_slices;
  int *ptr;    /* n_slices + 1: each slice's first entry */
  int *col;    /* ptr[n_slices] */
  double *val; /* ptr[n_slices] */
};

static void sliced_free(struct sliced *m)
{
  if (!m) return;
  free(m->ptr);
  free(m->col);
  free(m->val);
  free(m);
}

/* The row's length in the CSR, 0 past its last row. */
static int row_length(const struct fe_csr *csr, long r)
{
  return r < csr->n ? csr->rowptr[r + 1] - csr->rowptr[r] : 0;
}

/* The slices' places and columns from csr's rows and columns; values 0. */
static int sliced_create(const struct fe_csr *csr, struct sliced **out)
{
  struct sliced *m;
  FE_CALLOC(1, &m);
  m->n_slices = (csr->n + SLICE - 1) / SLICE;
  int err = fe_malloc((size_t)(m->n_slices + 1) * sizeof *m->ptr, &m->ptr);
  long entries = 0; /* at most INT_MAX where it is stored as a slice's first entry */
  for (long sl = 0; !err && sl < m->n_slices && entries <= INT_MAX; sl++) {
    int width = 0;
    for (int l = 0; l < SLICE; l++)
      if (row_length(csr, sl * SLICE + l) > width) width = row_length(csr, sl * SLICE + l);
    m->ptr[sl] = (int)entries;
    entries += (long)width * SLICE;
  }
  if (!err && entries > INT_MAX) {
    sliced_free(m);
    FE_RAISE(FE_ERR_RESOURCE, "the CSR matrix sliced has more than %d entries (%ld and more)",
             INT_MAX, entries);
  }
  if (!err) m->ptr[m->n_slices] = (int)entries;
  if (!err) err = fe_malloc((size_t)entries * sizeof *m->col + 1, &m->col);
  if (!err) err = fe_malloc((size_t)entries * sizeof *m->val + 1, &m->val);
  if (err) {
    sliced_free(m);
    FE_RAISE(FE_ERR_RESOURCE, "out of host memory slicing the CSR matrix (%ld entries)", entries);
  }
#pragma omp parallel for schedule(static)
  for (long sl = 0; sl < m->n_slices; sl++) {
    const int width = (m->ptr[sl + 1] - m->ptr[sl]) / SLICE;
    for (int l = 0; l < SLICE; l++) {
      const long r = sl * SLICE + l;
      const int len = row_length(csr, r);
      for (int j = 0; j < width; j++) {
        const long at = m->ptr[sl] + (long)j * SLICE + l;
        m->col[at] = j < len ? csr->colind[csr->rowptr[r] + j] : r < csr->n ? (int)r : 0;
        m->val[at] = 0;
      }
    }
  }
  *out = m;
  return FE_SUCCESS;
}

/* Where row r's values lie in the slices: CSR slot k of the row at m->val[base + k * SLICE]
 * (an index, which may be negative before k is added: no pointer leaves the array). */
static long slice_base(const struct fe_csr *csr, const struct sliced *m, long r)
{
  return m->ptr[r / SLICE] + r % SLICE - (long)csr->rowptr[r] * SLICE;
}

int fe_csr_values_cpu(const struct fe_csr *csr, double *values)
{
  const struct sliced *m = csr->ctx;
  const double *val = m->val;
#pragma omp parallel for schedule(static)
  for (long r = 0; r < csr->n; r++) {
    const long base = slice_base(csr, m, r);
    for (int k = csr->rowptr[r]; k < csr->rowptr[r + 1]; k++)
      values[k] = val[base + (long)k * SLICE];
  }
  return FE_SUCCESS;
}

void fe_csr_release_cpu(struct fe_csr *csr) { sliced_free(csr->ctx); }

/* Every row's columns (fe_node_csr_columns), each thread's in a buffer of room ints of its
 * own: counted into rowptr[i + 1], or (copy) copied into colind with the diagonal's slot. */
static int rows(const struct fe_space *s, struct fe_csr *csr, size_t room, int copy)
{
  int err = FE_SUCCESS;
#pragma omp parallel reduction(max : err)
  {
    int *buf = malloc(room * sizeof *buf);
    err = buf ? FE_SUCCESS : FE_ERR_RESOURCE;
#pragma omp for schedule(dynamic, 1024)
    for (long i = 0; i < csr->n; i++) {
      if (!buf) continue;
      const int count = fe_node_csr_columns(i, s->nv, s->inc_ptr, s->inc, s->cells, s->owner, buf);
      if (!copy) {
        csr->rowptr[i + 1] = count;
        continue;
      }
      memcpy(csr->colind + csr->rowptr[i], buf, (size_t)count * sizeof *buf);
      csr->diag[i] = fe_node_csr_slot(csr->rowptr, csr->colind, (int)i, (int)i);
    }
    free(buf);
  }
  FE_CHECK(!err, FE_ERR_RESOURCE, "out of host memory building the CSR sparsity");
  return FE_SUCCESS;
}

/* Each row is built twice, to count its columns and to copy them: no array of every row's
 * candidates. */
int fe_csr_sparsity_cpu(const struct fe_space *s, struct fe_csr *csr)
{
  const long n = csr->n;
  const int nv = s->nv, nk = s->nk;
  int maxinc = 0;
  for (long i = 0; i < n; i++)
    if (s->inc_ptr[i + 1] - s->inc_ptr[i] > maxinc) maxinc = s->inc_ptr[i + 1] - s->inc_ptr[i];
  const size_t room = (size_t)maxinc * nv + 1;
  FE_CALL(fe_backend_alloc(s->be, (n + 1) * sizeof(int), NULL, &csr->rowptr));
  FE_CALL(rows(s, csr, room, 0));
  csr->rowptr[0] = 0;
  for (long i = 0; i < n; i++) csr->rowptr[i + 1] += csr->rowptr[i];
  csr->nnz = csr->rowptr[n];
  FE_CALL(fe_backend_alloc(s->be, (size_t)csr->nnz * sizeof(int) + 1, NULL, &csr->colind));
  FE_CALL(fe_backend_alloc(s->be, n * sizeof(int) + 1, NULL, &csr->diag));
  FE_CALL(rows(s, csr, room, 1));
  const long nb = fe_blocked_cells(s->n_cells, s->block_shift);
  FE_CALL(fe_backend_alloc(s->be, (size_t)(nb * nk) * sizeof(int), NULL, &csr->map));
  memset(csr->map, 0, (size_t)(nb * nk) * sizeof(int)); /* the blocks' padding */
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++)
    for (int k = 0; k < nk; k++)
      csr->map[fe_block_index(c, k, nk, s->block_shift)] =
          fe_node_csr_entry_slot(c, k, nv, s->cells, s->owner, csr->rowptr, csr->colind);
  struct sliced *m = NULL;
  FE_CALL(sliced_create(csr, &m));
  csr->ctx = m;
  return FE_SUCCESS;
}

/* Each row's sums in the order of its node's incidence, as the CSR's were; added in place,
 * an entry a cache line apart (a row summed in a buffer of its thread's first, then written,
 * measured 1.1x slower in 3D: docs/performance.md). */
int fe_csr_assemble_cpu(const struct fe_space *s, struct fe_csr *csr, const double *e)
{
  const int nv = s->nv, nk = s->nk;
  const struct sliced *m = csr->ctx;
  double *val = m->val;
#pragma omp parallel for schedule(static)
  for (long n = 0; n < csr->n; n++) { /* the entries of every copy of n's unknown (merged) */
    const long base = slice_base(csr, m, n);
    for (int k = csr->rowptr[n]; k < csr->rowptr[n + 1]; k++) val[base + (long)k * SLICE] = 0;
    for (int k = s->inc_ptr[n]; k < s->inc_ptr[n + 1]; k++) {
      int c = s->inc[k] / nv, i = s->inc[k] % nv;
      for (int j = 0; j < nv; j++) {
        long idx = fe_block_index(c, i * nv + j, nk, s->block_shift);
        val[base + (long)csr->map[idx] * SLICE] += e[idx];
      }
    }
  }
  return FE_SUCCESS;
}

/* On x86-64 the product is compiled twice, for AVX2 and for any x86-64, and the machine picks
 * one when the program starts (GCC's target_clones).  The AVX2 code is the same scalar
 * arithmetic in VEX encoding (no FMA, which AVX2 alone does not enable: the same bits), 2 %
 * faster on the default case's work on the developer machine; GCC does not vectorise a slice's
 * eight sums, and doing so by hand with AVX2's gathers of x was 10-20 % slower there
 * (docs/performance.md, "The CPU backend"). */
#if defined(__x86_64__) && defined(__GNUC__)
#define FE_X86_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define FE_X86_CLONES
#endif

/* Slices first .. last: each slice's eight sums side by side (eight variables, which the
 * compiler keeps in registers; an array of them it kept in memory, no faster than the CSR). */
FE_X86_CLONES static void slices_product(const struct sliced *m, long first, long last, long n,
                                         const double *x, double *y)
{
  for (long sl = first; sl < last; sl++) {
    const int *col = m->col + m->ptr[sl];
    const double *val = m->val + m->ptr[sl];
    const int width = (m->ptr[sl + 1] - m->ptr[sl]) / SLICE;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (int j = 0; j < width; j++, col += SLICE, val += SLICE) {
      s0 += val[0] * x[col[0]];
      s1 += val[1] * x[col[1]];
      s2 += val[2] * x[col[2]];
      s3 += val[3] * x[col[3]];
      s4 += val[4] * x[col[4]];
      s5 += val[5] * x[col[5]];
      s6 += val[6] * x[col[6]];
      s7 += val[7] * x[col[7]];
    }
    const double sum[SLICE] = {s0, s1, s2, s3, s4, s5, s6, s7};
    for (int l = 0; l < SLICE && sl * SLICE + l < n; l++) y[sl * SLICE + l] = sum[l];
  }
}

/* Each thread its share of the slices, as a static schedule would give it. */
int fe_csr_apply_cpu(struct fe_csr *csr, const double *x, double *y)
{
  const struct sliced *m = csr->ctx;
#pragma omp parallel
  {
    const long t = omp_get_thread_num(), nt = omp_get_num_threads();
    slices_product(m, m->n_slices * t / nt, m->n_slices * (t + 1) / nt, csr->n, x, y);
  }
  return FE_SUCCESS;
}

int fe_csr_diagonal_cpu(const struct fe_csr *csr, double *diag)
{
  const struct sliced *m = csr->ctx;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < csr->n; i++)
    diag[i] = m->val[slice_base(csr, m, i) + (long)csr->diag[i] * SLICE];
  return FE_SUCCESS;
}
