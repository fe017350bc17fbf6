/* The CUDA backend on several processes: one GPU per process, their NCCL communicator made from
 * an id that process 0 draws and the host communicator broadcasts.  Device sums (CG's scalars)
 * and the halo's exchanges run on the backend's stream, so that a solve needs no host round
 * trip; host values (stat reductions, the gather of the outputs) go through the host
 * communicator (MPI).
 *
 * Where every process's GPU can load and store the others' memory (NCCL's LSA team is the
 * whole run: NVLink or PCIe peer access on one host), the sums and the exchanges are the GPUs'
 * own loads and stores into NCCL windows (symmetric memory, NCCL's device API): each process
 * writes its values into the others' windows, each word tagged with the operation, and reads
 * its own window's words once they hold the tag (window.cuh).  They are kernels alone, so CG's loop
 * on the device (a CUDA graph's while node, which cannot hold NCCL's calls) holds them as it does
 * on one process (fe_comm.device_loops).  Elsewhere, or with FESIM_NCCL_WINDOWS=0, they are
 * NCCL's calls (ncclAllReduce; ncclSend and ncclRecv) and the host drives CG.
 *
 * An exchange waits for its neighbours only (as ncclSend and ncclRecv do), a sum for every
 * process; CG's sums are made by its reductions' last blocks (cg.cu). */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backends/cuda/backend_cuda.h"
#include "backends/cuda/window.cuh"
#include "core/cuda_check.h"
#include "core/error.h"
#include "solvers/halo.h"

static int nccl_error(ncclResult_t r, const char *what)
{
  FE_RAISE(FE_ERR_RESOURCE, "NCCL: %s failed: %s", what, ncclGetErrorString(r));
}

#define FE_NCCL_CALL(expr, what)                                                             \
  do {                                                                                       \
    const ncclResult_t fe_nccl_r_ = (expr);                                                  \
    if (fe_nccl_r_ != ncclSuccess) return nccl_error(fe_nccl_r_, what);                       \
  } while (0)

static struct fe_cuda_ctx *ctx_of(const struct fe_comm *comm) { return (struct fe_cuda_ctx *)comm->ctx; }

static int allreduce(const struct fe_comm *comm, double *v, int n, enum fe_reduce op)
{
  return fe_comm_allreduce(ctx_of(comm)->host_comm, v, n, op);
}

/* An NCCL window: the same bytes on every process, zero at the start (LL words: window.cuh). */
struct window {
  void *base;
  ncclWindow_t win;
  unsigned long long *count; /* device: the operations through it so far, one count per channel */
  unsigned *done_blocks;     /* device: blocks of the running kernel that have finished */
};

struct fe_cuda_windows {
  struct window sums; /* window.cuh's sums_at */
};

static int window_open(const struct fe_cuda_ctx *c, size_t bytes, int channels, struct window *w)
{
  const size_t counts = channels * sizeof *w->count + sizeof *w->done_blocks;
  FE_NCCL_CALL(ncclMemAlloc(&w->base, bytes), "ncclMemAlloc");
  FE_CUDA_CALL(cudaMalloc(&w->count, counts));
  w->done_blocks = (unsigned *)(w->count + channels);
  FE_CUDA_CALL(cudaMemset(w->base, 0, bytes));
  FE_CUDA_CALL(cudaMemset(w->count, 0, counts));
  FE_CUDA_CALL(cudaDeviceSynchronize()); /* zero before the others can reach it */
  FE_NCCL_CALL(ncclCommWindowRegister(c->nccl, w->base, bytes, &w->win, NCCL_WIN_COLL_SYMMETRIC),
               "ncclCommWindowRegister");
  return FE_SUCCESS;
}

static void window_close(const struct fe_cuda_ctx *c, struct window *w)
{
  if (w->win) ncclCommWindowDeregister(c->nccl, w->win);
  if (w->base) ncclMemFree(w->base);
  cudaFree(w->count);
  *w = (struct window){};
}

/* The sum over the processes of v[0 .. n) (n <= N <= FE_SUMS_MAX), one block, through the sums'
 * channel 0: N values pass, the first n of v and zeros */
template <int N> __global__ void sum_kernel(struct fe_cuda_sums s, int n, double *v)
{
  double u[N];
#pragma unroll
  for (int i = 0; i < N; i++) u[i] = i < n ? v[i] : 0.0;
  fe_window_sum<N>(s, 0, u);
#pragma unroll
  for (int i = 0; i < N; i++)
    if (i < n && threadIdx.x == 0) v[i] = u[i];
}

static int allreduce_sum_device(const struct fe_comm *comm, double *v, int n)
{
  const struct fe_cuda_ctx *c = ctx_of(comm);
  if (c->sums.win && n <= FE_SUMS_MAX) {
    if (n <= 3) /* CG's sums and the like: fewer words to pass */
      sum_kernel<3><<<1, 32, 0, c->stream>>>(c->sums, n, v);
    else
      sum_kernel<FE_SUMS_MAX><<<1, 32, 0, c->stream>>>(c->sums, n, v);
    FE_CUDA_LAUNCHED("sum_kernel");
    return FE_SUCCESS;
  }
  FE_NCCL_CALL(ncclAllReduce(v, v, (size_t)n, ncclDouble, ncclSum, c->nccl, c->stream),
               "ncclAllReduce");
  return FE_SUCCESS;
}

static int exchange(const struct fe_comm *comm, int n, const int *ranks, const double *send,
                    const int *send_ptr, double *recv, const int *recv_ptr)
{
  return fe_comm_exchange(ctx_of(comm)->host_comm, n, ranks, send, send_ptr, recv, recv_ptr);
}

static int gather(const struct fe_comm *comm, const double *send, int count, double *recv,
                  const int *counts, const int *displs)
{
  return fe_comm_gather(ctx_of(comm)->host_comm, send, count, recv, counts, displs);
}

static int bcast(const struct fe_comm *comm, void *bytes, int n)
{
  return fe_comm_bcast(ctx_of(comm)->host_comm, bytes, n);
}

static int scatter(const struct fe_comm *comm, const double *send, const int *counts,
                   const int *displs, double *recv, int count)
{
  return fe_comm_scatter(ctx_of(comm)->host_comm, send, counts, displs, recv, count);
}

static int send_bytes(const struct fe_comm *comm, int to, void *bytes, int n)
{
  return fe_comm_send(ctx_of(comm)->host_comm, to, bytes, n);
}

static const struct fe_comm_ops ops_nccl = {
    .allreduce = allreduce,
    .allreduce_sum_device = allreduce_sum_device,
    .exchange = exchange,
    .gather = gather,
    .bcast = bcast,
    .scatter = scatter,
    .send = send_bytes,
};

/* The windows, where every process's GPU reaches every other's (agreed by all) and
 * FESIM_NCCL_WINDOWS is not 0. */
static int windows_open(struct fe_cuda_ctx *c, const struct fe_comm *host)
{
  const char *env = getenv("FESIM_NCCL_WINDOWS");
  const ncclTeam_t lsa = ncclTeamLsa(c->nccl);
  double reach = !(env && !strcmp(env, "0")) && lsa.nRanks == host->size && lsa.rank == host->rank;
  FE_CALL(fe_comm_allreduce(host, &reach, 1, FE_REDUCE_MIN));
  if (!reach) return FE_SUCCESS;
  FE_CALL(fe_calloc(1, sizeof *c->windows, &c->windows));
  const size_t bytes = 2 * (size_t)FE_SUMS_CHANNELS * host->size * FE_SUMS_MAX * 2 *
                       sizeof(unsigned long long); /* window.cuh's sums_at */
  FE_CALL(window_open(c, bytes, FE_SUMS_CHANNELS, &c->windows->sums));
  /* NCCL registers nothing where it has no symmetric memory (no window, and success) */
  double registered = c->windows->sums.win != NULL;
  FE_CALL(fe_comm_allreduce(host, &registered, 1, FE_REDUCE_MIN));
  if (!registered) {
    window_close(c, &c->windows->sums);
    free(c->windows);
    c->windows = NULL;
    return FE_SUCCESS;
  }
  c->sums = (struct fe_cuda_sums){.win = c->windows->sums.win,
                                  .count = c->windows->sums.count,
                                  .rank = host->rank,
                                  .size = host->size};
  return FE_SUCCESS;
}

int fe_cuda_comm_create(struct fe_cuda_ctx *c, const struct fe_comm *host)
{
  c->host_comm = host;
  ncclUniqueId id;
  if (host->rank == 0) FE_NCCL_CALL(ncclGetUniqueId(&id), "ncclGetUniqueId");
  FE_CALL(fe_comm_bcast(host, &id, (int)sizeof id));
  FE_NCCL_CALL(ncclCommInitRank(&c->nccl, host->size, id, host->rank), "ncclCommInitRank");
  FE_CALL(windows_open(c, host));
  c->comm = (struct fe_comm){.rank = host->rank,
                             .size = host->size,
                             .local_rank = host->local_rank,
                             .ops = &ops_nccl,
                             .ctx = c,
                             .device_loops = c->windows != NULL};
  c->backend.comm = &c->comm;
  snprintf(c->backend.description + strlen(c->backend.description),
           sizeof c->backend.description - strlen(c->backend.description), ", NCCL %d%s",
           NCCL_VERSION_CODE, c->windows ? " (windows)" : "");
  return FE_SUCCESS;
}

/* Finalised before it is destroyed, after the stream's work (a destroy alone hung in a probe). */
void fe_cuda_comm_destroy(struct fe_cuda_ctx *c)
{
  if (!c->nccl) return;
  cudaStreamSynchronize(c->stream);
  if (c->windows) window_close(c, &c->windows->sums);
  free(c->windows);
  c->windows = NULL;
  c->sums = (struct fe_cuda_sums){};
  ncclCommFinalize(c->nccl);
  ncclCommDestroy(c->nccl);
  c->nccl = NULL;
}

/* buf[i * ncomp + k] = x[idx[i] * ncomp + k] */
__global__ void pack_kernel(long n, const int *idx, int ncomp, const double *x, double *buf)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < ncomp; k++) buf[i * ncomp + k] = x[(long)idx[i] * ncomp + k];
}

/* x[idx[i]] += buf[i], i < n: one neighbour's list (no entry twice) */
__global__ void add_kernel(long n, const int *idx, const double *buf, double *x)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) x[idx[i]] += buf[i];
}

/* A halo's window: two halves, each of `half` values (two LL words each: window.cuh), the
 * ghosts as a vector holds them (neighbour k's from recv_ptr[k] on, FE_HALO_MAX_COMP values
 * per entry at most), then a word per process: its mark of the update, which a neighbour
 * writes whether or not it sends values (halo_update_kernel); where each owned entry sent goes:
 * the neighbour's rank and its ghost there (device). */
struct halo_window {
  struct window w;
  size_t half;
  int2 *to;
  int *neighbours; /* device */
};

/* Where half `k & 1` of a window of `half` values and `size` processes' marks starts */
__device__ inline size_t half_at(int size, size_t half, unsigned long long k)
{
  return (size_t)(k & 1) * (2 * half + size) * sizeof(fe_ll_word);
}

/* 1 in the block that finishes last (its threads see every other block's writes) */
__device__ int last_block(unsigned *done_blocks)
{
  __shared__ int last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(done_blocks, 1u) == gridDim.x - 1;
    if (last) {
      __threadfence(); /* the others' writes, which their fences ordered before */
      *done_blocks = 0;
    }
  }
  __syncthreads();
  return last;
}

/* The blocks of an update: enough threads that each writes or reads a value or a few (fewer
 * made 2D's update at 10M cells longer: one block took 14 us where 16 to 64 took 9, H200,
 * before the LL words). */
#define HALO_BLOCKS 32

/* The update in one kernel: every owned entry a neighbour has as a ghost written into its
 * window as LL words of tag k + 1 (ncomp values each), and this process's mark at every
 * neighbour; then the ghosts from this process's window, each once its words hold the tag,
 * and every neighbour's mark; the last block to finish counts the update done.  The marks keep
 * the halves' alternation safe where a neighbour sends nothing: a process writes a half again
 * two updates later, after it has read every neighbour's mark of the update in between, which
 * the neighbour wrote after it had read this one. */
__global__ void halo_update_kernel(long n_send, const int *send, const int2 *to, int ncomp,
                                   double *x, long n_recv, double *ghosts, ncclWindow_t w, int rank,
                                   int size, size_t half, const int *neighbours, int nb,
                                   unsigned long long *count, unsigned *done_blocks)
{
  const unsigned long long k = *count;
  const unsigned tag = (unsigned)(k + 1);
  const long first = blockIdx.x * (long)blockDim.x + threadIdx.x,
             stride = (long)gridDim.x * blockDim.x;
  const size_t at = half_at(size, half, k);
  for (long i = first; i < n_send; i += stride) {
    const int2 t = to[i];
    fe_ll_word *in = (fe_ll_word *)ncclGetLsaPointer(w, at, t.x) + 2 * (size_t)t.y * ncomp;
    for (int c = 0; c < ncomp; c++) ll_store(in + 2 * c, x[(long)send[i] * ncomp + c], tag);
  }
  if (first < nb)
    ll_mark((fe_ll_word *)ncclGetLsaPointer(w, at, neighbours[first]) + 2 * half + rank, tag);
  fe_ll_word *in = (fe_ll_word *)ncclGetLocalPointer(w, at);
  for (long i = first; i < n_recv; i += stride) ghosts[i] = ll_load(in + 2 * i, tag);
  if (first < nb) ll_await(in + 2 * half + neighbours[first], tag);
  if (last_block(done_blocks) && threadIdx.x == 0) *count = k + 1;
}

void fe_cuda_halo_close(struct fe_halo *h)
{
  struct halo_window *hw = (struct halo_window *)h->exchange;
  if (!hw) return;
  const struct fe_cuda_ctx *c = fe_cuda_ctx(h->be);
  cudaStreamSynchronize(c->stream);
  window_close(c, &hw->w);
  fe_backend_free(h->be, hw->to);
  fe_backend_free(h->be, hw->neighbours);
  free(hw);
  h->exchange = NULL;
}

/* Every process at once (the window is a collective): the largest ghost count of any process
 * sizes the halves; each neighbour says where its ghosts of this process's entries start. */
int fe_cuda_halo_open(struct fe_halo *h)
{
  const struct fe_cuda_ctx *c = fe_cuda_ctx(h->be);
  if (!c->windows) return FE_SUCCESS;
  const int nb = h->n_neighbours;
  const long n_send = h->send_ptr[nb];
  double most = (double)h->recv_ptr[nb] * FE_HALO_MAX_COMP;
  FE_CALL(fe_comm_allreduce(c->host_comm, &most, 1, FE_REDUCE_MAX));
  double *mine = NULL, *theirs = NULL;
  int *ptr = NULL;
  int2 *to = NULL;
  int err = fe_calloc((size_t)nb + 1, sizeof *mine, &mine);
  if (!err) err = fe_calloc((size_t)nb + 1, sizeof *theirs, &theirs);
  if (!err) err = fe_calloc((size_t)nb + 1, sizeof *ptr, &ptr);
  if (!err) err = fe_calloc((size_t)n_send + 1, sizeof *to, &to);
  for (int k = 0; k <= nb && !err; k++) ptr[k] = k;
  for (int k = 0; k < nb && !err; k++) mine[k] = h->recv_ptr[k];
  if (!err) err = fe_comm_exchange(c->host_comm, nb, h->neighbours, mine, ptr, theirs, ptr);
  for (int k = 0; k < nb && !err; k++)
    for (int i = h->send_ptr[k]; i < h->send_ptr[k + 1]; i++)
      to[i] = make_int2(h->neighbours[k], (int)theirs[k] + (i - h->send_ptr[k]));
  struct halo_window *hw = NULL;
  if (!err) err = fe_calloc(1, sizeof *hw, &hw);
  if (!err) {
    h->exchange = hw;
    hw->half = (size_t)most;
    err = window_open(c, 2 * (2 * hw->half + c->comm.size) * sizeof(fe_ll_word), 1, &hw->w);
  }
  if (!err) err = fe_backend_alloc(h->be, ((size_t)n_send + 1) * sizeof *to, to, &hw->to);
  if (!err)
    err = fe_backend_alloc(h->be, ((size_t)nb + 1) * sizeof(int), h->neighbours, &hw->neighbours);
  free(mine);
  free(theirs);
  free(ptr);
  free(to);
  return err;
}

/* Through the window: one kernel */
static int halo_update_windows(const struct fe_halo *h, int ncomp, double *x)
{
  const struct fe_cuda_ctx *c = fe_cuda_ctx(h->be);
  const struct halo_window *hw = (const struct halo_window *)h->exchange;
  const int nb = h->n_neighbours;
  const long n_send = h->send_ptr[nb], n_recv = (long)h->recv_ptr[nb] * ncomp;
  halo_update_kernel<<<HALO_BLOCKS, 256, 0, c->stream>>>(
      n_send, h->send, hw->to, ncomp, x, n_recv, x + h->n_owned * ncomp, hw->w.win, c->comm.rank,
      c->comm.size, hw->half, hw->neighbours, nb, hw->w.count, hw->w.done_blocks);
  FE_CUDA_LAUNCHED("halo_update_kernel");
  return FE_SUCCESS;
}

/* The owned entries each neighbour has as ghosts packed on the device, sent, and received
 * straight into the ghosts (those of a neighbour are contiguous), one NCCL group; or through
 * the halo's window. */
int fe_cuda_halo_update(const struct fe_halo *h, int ncomp, double *x)
{
  if (h->exchange) return halo_update_windows(h, ncomp, x);
  const struct fe_cuda_ctx *c = fe_cuda_ctx(h->be);
  const int nb = h->n_neighbours;
  const long n_send = h->send_ptr[nb];
  if (n_send) {
    pack_kernel<<<(unsigned)((n_send + 255) / 256), 256, 0, c->stream>>>(n_send, h->send, ncomp, x,
                                                                         h->buffer);
    FE_CUDA_LAUNCHED("pack_kernel");
  }
  FE_NCCL_CALL(ncclGroupStart(), "ncclGroupStart");
  for (int k = 0; k < nb; k++) {
    const size_t ns = (size_t)(h->send_ptr[k + 1] - h->send_ptr[k]) * ncomp;
    const size_t nr = (size_t)(h->recv_ptr[k + 1] - h->recv_ptr[k]) * ncomp;
    if (ns)
      FE_NCCL_CALL(ncclSend(h->buffer + (size_t)h->send_ptr[k] * ncomp, ns, ncclDouble,
                            h->neighbours[k], c->nccl, c->stream),
                   "ncclSend");
    if (nr)
      FE_NCCL_CALL(ncclRecv(x + ((size_t)h->n_owned + h->recv_ptr[k]) * ncomp, nr, ncclDouble,
                            h->neighbours[k], c->nccl, c->stream),
                   "ncclRecv");
  }
  FE_NCCL_CALL(ncclGroupEnd(), "ncclGroupEnd");
  return FE_SUCCESS;
}

/* The ghosts sent back to their owners, which add them neighbour by neighbour in rank order. */
int fe_cuda_halo_sum(const struct fe_halo *h, double *x)
{
  const struct fe_cuda_ctx *c = fe_cuda_ctx(h->be);
  const int nb = h->n_neighbours;
  FE_NCCL_CALL(ncclGroupStart(), "ncclGroupStart");
  for (int k = 0; k < nb; k++) {
    const size_t ns = (size_t)(h->recv_ptr[k + 1] - h->recv_ptr[k]);
    const size_t nr = (size_t)(h->send_ptr[k + 1] - h->send_ptr[k]);
    if (ns)
      FE_NCCL_CALL(ncclSend(x + h->n_owned + h->recv_ptr[k], ns, ncclDouble, h->neighbours[k],
                            c->nccl, c->stream),
                   "ncclSend");
    if (nr)
      FE_NCCL_CALL(ncclRecv(h->buffer + h->send_ptr[k], nr, ncclDouble, h->neighbours[k], c->nccl,
                            c->stream),
                   "ncclRecv");
  }
  FE_NCCL_CALL(ncclGroupEnd(), "ncclGroupEnd");
  for (int k = 0; k < nb; k++) {
    const long n = h->send_ptr[k + 1] - h->send_ptr[k];
    if (!n) continue;
    add_kernel<<<(unsigned)((n + 255) / 256), 256, 0, c->stream>>>(n, h->send + h->send_ptr[k],
                                                                   h->buffer + h->send_ptr[k], x);
    FE_CUDA_LAUNCHED("add_kernel");
  }
  return FE_SUCCESS;
}
