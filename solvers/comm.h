/* A communicator: the processes of one run, and how their parts of a
 * reduction are combined (DESIGN.md "Ownership": a no-op for one process,
 * MPI on the host, NCCL on the device).  Reductions of vectors and CG go
 * through the communicator of their backend, so that the same solver code
 * runs on one process or many. */
#ifndef FE_COMM_H
#define FE_COMM_H

#ifdef __cplusplus
extern "C" {
#endif

enum fe_reduce { FE_REDUCE_SUM, FE_REDUCE_MIN, FE_REDUCE_MAX };

struct fe_comm;

struct fe_comm_ops {
  /* v[i] = the reduction over the processes of v[i], i < n; v on the host */
  int (*allreduce)(const struct fe_comm *comm, double *v, int n, enum fe_reduce op);
  /* the same for n sums held in backend memory (CG's scalars), queued on the
   * backend's stream where it has one */
  int (*allreduce_sum_device)(const struct fe_comm *comm, double *v, int n);
};

struct fe_comm {
  int rank, size;
  const struct fe_comm_ops *ops;
  void *ctx;
};

/* The communicator of a run on one process: every reduction is its own result. */
const struct fe_comm *fe_comm_self(void);

int fe_comm_allreduce(const struct fe_comm *comm, double *v, int n, enum fe_reduce op);
int fe_comm_allreduce_sum_device(const struct fe_comm *comm, double *v, int n);

#ifdef __cplusplus
}
#endif

#endif
