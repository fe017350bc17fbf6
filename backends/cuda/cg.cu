/* The kernels of CG on the CUDA backend: the scalars stay on the device, and
 * the update is fused with its two reductions (reduce.cuh).  On several processes whose GPUs
 * reach each other's memory, the last block of each reduction sums it over the processes too
 * (window.cuh): a sum is no kernel of its own. */
#include <cstddef>

#include "backends/cuda/reduce.cuh"
#include "backends/cuda/window.cuh"
#include "core/cuda_check.h"

/* System j's share of the reduction scratch: the systems of a batch reduce side by side. */
__device__ inline double *system_partials(double *partials, int j)
{
  return partials + (size_t)j * 3 * FE_REDUCE_BLOCKS;
}

/* r = b - q, z = r .* dinv (or r), p = z and the sums b . b, r . r, r . z of system
 * blockIdx.y, each summed as a reduction of it alone (op 3: three sums in op 0's order), then
 * over the processes through `sums`. */
__global__ void cg_residual_kernel(size_t n, struct fe_cg_batch c, const double *dinv,
                                   double *partials, unsigned *done_blocks,
                                   struct fe_cuda_sums sums)
{
  const int j = blockIdx.y;
  const double *b = c.b[j], *q = c.q[j];
  double *r = c.r[j], *z = c.z[j], *p = c.p[j];
  double v[3] = {0, 0, 0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const double bi = b[i], ri = bi - q[i];
    const double zi = dinv ? ri * dinv[i] : ri;
    r[i] = ri;
    z[i] = zi;
    p[i] = zi;
    v[0] += bi * bi;
    v[1] += ri * ri;
    v[2] += ri * zi;
  }
  if (!reduce_last_block(3, v, system_partials(partials, j), done_blocks + j)) return;
  fe_window_sum<3>(sums, FE_SUMS_CG + j, v);
  if (threadIdx.x == 0) {
    c.s[j]->bb = v[0];
    c.s[j]->rr0 = v[1];
    c.s[j]->rz[0] = v[2];
  }
}

/* fe_cg_state_start of system threadIdx.x; a single system in a loop on the device names the
 * loop's condition in its state and sets it: whether the loop runs at all. */
__global__ void cg_start_kernel(struct fe_cg_batch c, double rtol, double atol,
                                int max_iterations, cudaGraphConditionalHandle condition, int on)
{
  const int j = threadIdx.x;
  if (j >= c.m) return;
  struct fe_cg_state *s = c.s[j];
  const int go_on = fe_cg_state_start(s, rtol, atol, max_iterations);
  s->loop.condition = (unsigned long long)condition;
  s->loop.on = on;
  if (on) cudaGraphSetConditional(condition, go_on);
}

/* pq = p . q of system blockIdx.y, as a reduction of it alone (op 0), then over the
 * processes; nothing for a system stopped already (on every process alike).  Eight blocks an
 * SM, as update: the sum over the processes in the last block would otherwise take 40
 * registers of every thread of the loop, which needs 32. */
__global__ void __launch_bounds__(FE_REDUCE_THREADS, 8)
    cg_pq_kernel(size_t n, struct fe_cg_batch c, double *partials, unsigned *done_blocks,
                 struct fe_cuda_sums sums)
{
  const int j = blockIdx.y;
  if (!c.s[j]->go_on) return; /* every block of the system alike */
  const double *p = c.p[j], *q = c.q[j];
  double v[3] = {0, 0, 0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    v[0] += p[i] * q[i];
  if (!reduce_last_block(0, v, system_partials(partials, j), done_blocks + j)) return;
  fe_window_sum<1>(sums, FE_SUMS_CG + j, v);
  if (threadIdx.x == 0) c.s[j]->pq = v[0];
}

/* op 2: sums of r.z and r.r of system blockIdx.y, then over the processes; the last block
 * moves rz[0] to rz_old and writes them to rz (every block has read rz by then: it counted
 * itself done after).  x's entries from n to c.nx (its ghosts, where kept current) advance
 * too. */
__global__ void __launch_bounds__(FE_REDUCE_THREADS, 8)
    cg_update_kernel(size_t n, struct fe_cg_batch c, const double *dinv, double *partials,
                     unsigned *done_blocks, struct fe_cuda_sums sums)
{
  const int j = blockIdx.y;
  struct fe_cg_state *s = c.s[j];
  if (!s->go_on) return; /* stopped: nothing changes */
  const double *p = c.p[j], *q = c.q[j];
  double *x = c.x[j], *r = c.r[j], *z = c.z[j];
  const double alpha = s->rz[0] / s->pq;
  double v[3] = {0, 0, 0};
  for (size_t i = n + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < c.nx;
       i += (size_t)gridDim.x * blockDim.x)
    fe_cg_advance(x, alpha, p, i);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    fe_cg_advance(x, alpha, p, i);
    const double ri = r[i] - alpha * q[i];
    const double zi = dinv ? ri * dinv[i] : ri;
    r[i] = ri;
    z[i] = zi;
    v[0] += ri * zi;
    v[1] += ri * ri;
  }
  if (!reduce_last_block(2, v, system_partials(partials, j), done_blocks + j)) return;
  fe_window_sum<2>(sums, FE_SUMS_CG + j, v);
  if (threadIdx.x == 0) {
    s->rz_old = s->rz[0];
    s->rz[0] = v[0];
    s->rz[1] = v[1];
  }
}

/* Block (0, j) keeps system j's count (fe_cg_state_record) and, a single system in a loop on
 * the device, sets its condition; the other blocks read rz and rz_old only. */
__global__ void cg_direction_kernel(size_t n, struct fe_cg_batch c)
{
  struct fe_cg_state *s = c.s[blockIdx.y];
  const double rz = s->rz[0], rr = s->rz[1], rz_old = s->rz_old, done2 = s->done2;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const int go_on = fe_cg_state_record(s);
    if (s->loop.on) cudaGraphSetConditional((cudaGraphConditionalHandle)s->loop.condition, go_on);
  }
  if (rr <= done2) return;
  const double beta = rz / rz_old;
  const double *z = c.z[blockIdx.y];
  double *p = c.p[blockIdx.y];
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = z[i] + beta * p[i];
}

__global__ void cg_going_kernel(struct fe_cg_batch c, double *out, struct fe_cg_state *gathered,
                                cudaGraphConditionalHandle condition, int on)
{
  int going = 0;
  for (int j = 0; j < c.m; j++) {
    going += c.s[j]->go_on != 0;
    gathered[j] = *c.s[j];
  }
  *out = going;
  if (on) cudaGraphSetConditional(condition, going > 0);
}

/* The sums of a kernel that did not make them over the processes (NCCL's calls, after it) */
static int sum_apart(const struct fe_backend *be, const struct fe_cg_batch *c, size_t at, int n)
{
  return fe_cuda_ctx(be)->sums.win ? FE_SUCCESS : fe_cg_sum_states(be, c, at, n);
}

int fe_cg_residual_cuda(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                        const double *dinv)
{
  struct fe_cuda_ctx *x = fe_cuda_ctx(be);
  const dim3 grid(reduce_blocks(n), c->m);
  cg_residual_kernel<<<grid, FE_REDUCE_THREADS, 0, x->stream>>>(n, *c, dinv, x->partials,
                                                                x->done_blocks, x->sums);
  FE_CUDA_LAUNCHED("cg_residual_kernel");
  return sum_apart(be, c, offsetof(struct fe_cg_state, bb), 3);
}

int fe_cg_start_cuda(const struct fe_backend *be, const struct fe_cg_batch *c, double rtol,
                     double atol, int max_iterations, unsigned long long condition, int on)
{
  cg_start_kernel<<<1, FE_CG_MANY, 0, fe_cuda_stream(be)>>>(
      *c, rtol, atol, max_iterations, (cudaGraphConditionalHandle)condition, on);
  FE_CUDA_LAUNCHED("cg_start_kernel");
  return FE_SUCCESS;
}

int fe_cg_pq_cuda(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c)
{
  struct fe_cuda_ctx *x = fe_cuda_ctx(be);
  const dim3 grid(reduce_blocks(n), c->m);
  cg_pq_kernel<<<grid, FE_REDUCE_THREADS, 0, x->stream>>>(n, *c, x->partials, x->done_blocks,
                                                          x->sums);
  FE_CUDA_LAUNCHED("cg_pq_kernel");
  return sum_apart(be, c, offsetof(struct fe_cg_state, pq), 1);
}

int fe_cg_update_cuda(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                      const double *dinv)
{
  struct fe_cuda_ctx *x = fe_cuda_ctx(be);
  const dim3 grid(reduce_blocks(n), c->m);
  cg_update_kernel<<<grid, FE_REDUCE_THREADS, 0, x->stream>>>(n, *c, dinv, x->partials,
                                                              x->done_blocks, x->sums);
  FE_CUDA_LAUNCHED("cg_update_kernel");
  return sum_apart(be, c, offsetof(struct fe_cg_state, rz), 2);
}

int fe_cg_direction_cuda(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c)
{
  const dim3 grid(fe_cuda_blocks(n, 256), c->m);
  cg_direction_kernel<<<grid, 256, 0, fe_cuda_stream(be)>>>(n, *c);
  FE_CUDA_LAUNCHED("cg_direction");
  return FE_SUCCESS;
}

int fe_cg_going_cuda(const struct fe_backend *be, const struct fe_cg_batch *c, double *out,
                     struct fe_cg_state *gathered, unsigned long long condition, int on)
{
  cg_going_kernel<<<1, 1, 0, fe_cuda_stream(be)>>>(*c, out, gathered,
                                                   (cudaGraphConditionalHandle)condition, on);
  FE_CUDA_LAUNCHED("cg_going_kernel");
  return FE_SUCCESS;
}

int fe_cg_scalar_post_cuda(const struct fe_backend *be, int slot, const double *dev)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  FE_CUDA_CALL(
      cudaMemcpyAsync(c->slots + slot, dev, sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  FE_CUDA_CALL(cudaEventRecord(c->slot_ready[slot], c->stream));
  return FE_SUCCESS;
}

int fe_cg_scalar_wait_cuda(const struct fe_backend *be, int slot, const double *, double *value)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  FE_CUDA_CALL(cudaEventSynchronize(c->slot_ready[slot]));
  *value = c->slots[slot];
  return FE_SUCCESS;
}

/* CG's solve on the device: a graph of its start, captured from the backend's stream, then a
 * while node whose body is one iteration; start and direction set the condition (CUDA 12.4's
 * conditional nodes). */
struct fe_cuda_loop {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
};

void fe_cg_loop_destroy_cuda(const struct fe_backend *, void *loop)
{
  struct fe_cuda_loop *l = (struct fe_cuda_loop *)loop;
  if (!l) return;
  if (l->exec) cudaGraphExecDestroy(l->exec);
  if (l->graph) cudaGraphDestroy(l->graph);
  free(l);
}

/* What queue(arg) queues on the stream, captured into graph after its nodes. */
template <typename Queue>
static int capture(const struct fe_backend *be, cudaGraph_t graph, Queue queue)
{
  cudaStream_t stream = fe_cuda_stream(be);
  FE_CUDA_CALL(cudaStreamBeginCaptureToGraph(stream, graph, NULL, NULL, 0,
                                             cudaStreamCaptureModeThreadLocal));
  const int err = queue();
  cudaGraph_t captured;
  const cudaError_t end = cudaStreamEndCapture(stream, &captured);
  if (err) return err;
  FE_CUDA_CALL(end);
  return FE_SUCCESS;
}

static int loop_build(const struct fe_backend *be, struct fe_cuda_loop *l,
                      int (*start)(void *, const unsigned long long *), int (*iteration)(void *),
                      void *arg)
{
  FE_CUDA_CALL(cudaGraphCreate(&l->graph, 0));
  cudaGraphConditionalHandle condition;
  FE_CUDA_CALL(cudaGraphConditionalHandleCreate(&condition, l->graph, 0, 0));
  const unsigned long long handle = (unsigned long long)condition;
  FE_CALL(capture(be, l->graph, [&] { return start(arg, &handle); }));
  /* the start's last node: the one no other depends on */
  size_t count = 0;
  FE_CUDA_CALL(cudaGraphGetNodes(l->graph, NULL, &count));
  cudaGraphNode_t *nodes = (cudaGraphNode_t *)malloc(count * sizeof *nodes);
  FE_CHECK(nodes, FE_ERR_RESOURCE, "out of host memory");
  cudaError_t err = cudaGraphGetNodes(l->graph, nodes, &count);
  cudaGraphNode_t last = NULL;
  for (size_t k = 0; k < count && err == cudaSuccess && !last; k++) {
    size_t dependents = 0;
    err = cudaGraphNodeGetDependentNodes(nodes[k], NULL, NULL, &dependents);
    if (!dependents) last = nodes[k];
  }
  free(nodes);
  FE_CUDA_CALL(err);
  cudaGraphNodeParams params = {};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = condition;
  params.conditional.type = cudaGraphCondTypeWhile;
  params.conditional.size = 1;
  cudaGraphNode_t node;
  FE_CUDA_CALL(cudaGraphAddNode(&node, l->graph, &last, NULL, last ? 1 : 0, &params));
  FE_CALL(capture(be, params.conditional.phGraph_out[0], [&] { return iteration(arg); }));
  FE_CUDA_CALL(cudaGraphInstantiate(&l->exec, l->graph, 0));
  return FE_SUCCESS;
}

int fe_cg_loop_prepare_cuda(const struct fe_backend *be, void **loop,
                            int (*start)(void *, const unsigned long long *),
                            int (*iteration)(void *), void *arg)
{
  if (*loop) return FE_SUCCESS;
  struct fe_cuda_loop *l = (struct fe_cuda_loop *)calloc(1, sizeof *l);
  FE_CHECK(l, FE_ERR_RESOURCE, "out of host memory");
  const int err = loop_build(be, l, start, iteration, arg);
  if (err) {
    fe_cg_loop_destroy_cuda(be, l);
    return err;
  }
  *loop = l;
  return FE_SUCCESS;
}

int fe_cg_loop_launch_cuda(const struct fe_backend *be, void *loop)
{
  FE_CUDA_CALL(cudaGraphLaunch(((struct fe_cuda_loop *)loop)->exec, fe_cuda_stream(be)));
  return FE_SUCCESS;
}
