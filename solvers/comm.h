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
   * backend's stream where it has one; every process gets the same bits (CG's decisions to go
   * on, and the ghosts of its solution that each process advances, rest on it) */
  int (*allreduce_sum_device)(const struct fe_comm *comm, double *v, int n);
  /* The halo's exchange with the neighbours ranks[0..n) (host values): to ranks[k] goes
   * send[send_ptr[k] .. send_ptr[k + 1]), from it comes recv[recv_ptr[k] .. recv_ptr[k + 1]);
   * both sides agree on the counts. */
  int (*exchange)(const struct fe_comm *comm, int n, const int *ranks, const double *send,
                  const int *send_ptr, double *recv, const int *recv_ptr);
  /* Process 0 receives every process's count values of send, process r's at recv + displs[r]
   * (counts[r] of them); recv, counts and displs are read on process 0 only. */
  int (*gather)(const struct fe_comm *comm, const double *send, int count, double *recv,
                const int *counts, const int *displs);
  /* Every process receives process 0's n bytes (NCCL's unique id) */
  int (*bcast)(const struct fe_comm *comm, void *bytes, int n);
  /* gather's mirror: every process receives count values at recv, process r's from process 0's
   * send + displs[r] (counts[r] of them); send, counts and displs are read on process 0 only. */
  int (*scatter)(const struct fe_comm *comm, const double *send, const int *counts,
                 const int *displs, double *recv, int count);
  /* Process 0's n bytes into process `to`'s (to > 0): process 0 sends, `to` receives, the others
   * do nothing (a part of the mesh to its process). */
  int (*send)(const struct fe_comm *comm, int to, void *bytes, int n);
};

struct fe_comm {
  int rank, size;
  int local_rank; /* this process's rank among the run's processes on its host (its GPU's) */
  const struct fe_comm_ops *ops;
  void *ctx;
  /* allreduce_sum_device and the halo's exchanges (fe_halo_update) are the backend's kernels
   * alone, no library call on the stream: a CG loop on the device may hold them (solvers/cg.c;
   * the CUDA backend's NCCL windows, backends/cuda/comm.cu).  The same on every process. */
  int device_loops;
};

/* The communicator of a run on one process: every reduction is its own result. */
const struct fe_comm *fe_comm_self(void);

int fe_comm_allreduce(const struct fe_comm *comm, double *v, int n, enum fe_reduce op);
int fe_comm_allreduce_sum_device(const struct fe_comm *comm, double *v, int n);
int fe_comm_exchange(const struct fe_comm *comm, int n, const int *ranks, const double *send,
                     const int *send_ptr, double *recv, const int *recv_ptr);
int fe_comm_bcast(const struct fe_comm *comm, void *bytes, int n);
/* One process: recv = send (count values). */
int fe_comm_gather(const struct fe_comm *comm, const double *send, int count, double *recv,
                   const int *counts, const int *displs);
/* One process: recv = send (count values). */
int fe_comm_scatter(const struct fe_comm *comm, const double *send, const int *counts,
                    const int *displs, double *recv, int count);
/* FE_ERR_USAGE on one process, which has no other to send to. */
int fe_comm_send(const struct fe_comm *comm, int to, void *bytes, int n);
/* Process 0's result err (of work it alone did; its message said there), every process's. */
int fe_comm_root_status(const struct fe_comm *comm, int err);

#ifdef __cplusplus
}
#endif

#endif
