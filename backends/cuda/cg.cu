/* The kernels of CG on the CUDA backend: the scalars stay on the device, and
 * the update is fused with its two reductions (reduce.cuh). */
#include "backends/cuda/reduce.cuh"
#include "core/cuda_check.h"

/* fe_cg_state_start on the device; in a loop on the device it names the loop's condition in
 * the state and sets it: whether the loop runs at all. */
__global__ void cg_start_kernel(struct fe_cg_state *s, double rtol, double atol,
                                int max_iterations, cudaGraphConditionalHandle condition, int on)
{
  const int go_on = fe_cg_state_start(s, rtol, atol, max_iterations);
  s->loop.condition = (unsigned long long)condition;
  s->loop.on = on;
  if (on) cudaGraphSetConditional(condition, go_on);
}

/* op 2: sums of r.z and r.r; the last block moves rz[0] to rz_old and writes them to rz (every
 * block has read rz by then: it counted itself done after) */
__global__ void cg_update_kernel(size_t n, struct fe_cg_state *s, const double *p, const double *q,
                                 double *x, double *r, const double *dinv, double *z,
                                 double *partials, unsigned *done_blocks)
{
  if (!s->go_on) return; /* stopped: nothing changes */
  const double alpha = s->rz[0] / s->pq;
  double v[3] = {0, 0, 0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * q[i];
    const double zi = dinv ? ri * dinv[i] : ri;
    r[i] = ri;
    z[i] = zi;
    v[0] += ri * zi;
    v[1] += ri * ri;
  }
  if (reduce_last_block(2, v, partials, done_blocks) && threadIdx.x == 0) {
    s->rz_old = s->rz[0];
    s->rz[0] = v[0];
    s->rz[1] = v[1];
  }
}

/* Block 0 keeps the count (fe_cg_state_record) and, in a loop on the device, sets its
 * condition; the other blocks read rz and rz_old only. */
__global__ void cg_direction_kernel(size_t n, struct fe_cg_state *s, const double *z, double *p)
{
  const double rz = s->rz[0], rr = s->rz[1], rz_old = s->rz_old, done2 = s->done2;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const int go_on = fe_cg_state_record(s);
    if (s->loop.on) cudaGraphSetConditional((cudaGraphConditionalHandle)s->loop.condition, go_on);
  }
  if (rr <= done2) return;
  const double beta = rz / rz_old;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = z[i] + beta * p[i];
}

/* A batch's states, by value. */
struct cg_states {
  struct fe_cg_state *s[FE_CG_MANY];
};

__global__ void cg_going_kernel(int m, struct cg_states states, double *out,
                                cudaGraphConditionalHandle condition, int on)
{
  int going = 0;
  for (int j = 0; j < m; j++) going += states.s[j]->go_on != 0;
  *out = going;
  if (on) cudaGraphSetConditional(condition, going > 0);
}

int fe_cg_dot_cuda(const struct fe_backend *be, size_t n, const double *x, const double *y,
                   double *out)
{
  return fe_cuda_reduce_keep(be, 0, n, x, y, out);
}

int fe_cg_start_cuda(const struct fe_backend *be, struct fe_cg_state *s, double rtol, double atol,
                     int max_iterations, unsigned long long condition, int on)
{
  cg_start_kernel<<<1, 1, 0, fe_cuda_stream(be)>>>(s, rtol, atol, max_iterations,
                                                   (cudaGraphConditionalHandle)condition, on);
  FE_CUDA_LAUNCHED("cg_start_kernel");
  return FE_SUCCESS;
}

int fe_cg_update_cuda(const struct fe_backend *be, size_t n, struct fe_cg_state *s,
                      const double *p, const double *q, double *x, double *r, const double *dinv,
                      double *z)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  cg_update_kernel<<<reduce_blocks(n), FE_REDUCE_THREADS, 0, c->stream>>>(
      n, s, p, q, x, r, dinv, z, c->partials, c->done_blocks);
  FE_CUDA_LAUNCHED("cg_update_kernel");
  return FE_SUCCESS;
}

int fe_cg_direction_cuda(const struct fe_backend *be, size_t n, struct fe_cg_state *s,
                         const double *z, double *p)
{
  cg_direction_kernel<<<fe_cuda_blocks(n, 256), 256, 0, fe_cuda_stream(be)>>>(n, s, z, p);
  FE_CUDA_LAUNCHED("cg_direction");
  return FE_SUCCESS;
}

int fe_cg_going_cuda(const struct fe_backend *be, int m, struct fe_cg_state *const *s,
                     double *out, unsigned long long condition, int on)
{
  struct cg_states states = {};
  for (int j = 0; j < m; j++) states.s[j] = s[j];
  cg_going_kernel<<<1, 1, 0, fe_cuda_stream(be)>>>(m, states, out,
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
