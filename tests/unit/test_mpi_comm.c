/* The MPI communicator (solvers/comm_mpi.h) on however many processes mpirun starts (label
 * mpi: 1 to 4): sums, minima and maxima of host values and of the CPU backend's "device"
 * values equal the reductions computed here from every rank's contribution; a vector's dot
 * product and norm over owned entries (ghosts left out) reduce over the processes, read at
 * once and through a readout (solvers/readout.h, with a probe-like value held by one process
 * and a range with a non-finite value on one process); each
 * process's rank on its host (MPI_Comm_split_type), which picks its GPU; process 0's values
 * gathered and scattered back, and its bytes sent to each process alone. */
#include "solvers/comm_mpi.h"

#include "backends/backends.h"
#include "core/error.h"
#include "solvers/halo.h"
#include "solvers/readout.h"
#include "solvers/vec.h"
#include "test.h"

#include <math.h>

/* Rank r's contribution to entry i. */
static double value(int r, int i) { return (r + 1) * (i + 1) * (i % 2 ? -0.5 : 1.0) + 1e-3 * r; }

static void check_reductions(const struct fe_comm *comm)
{
  enum { N = 5 };
  const int size = comm->size;
  for (int op = FE_REDUCE_SUM; op <= FE_REDUCE_MAX; op++) {
    double v[N], want[N];
    for (int i = 0; i < N; i++) {
      v[i] = value(comm->rank, i);
      want[i] = value(0, i);
      for (int r = 1; r < size; r++) {
        const double x = value(r, i);
        want[i] = op == FE_REDUCE_SUM   ? want[i] + x
                  : op == FE_REDUCE_MIN ? fmin(want[i], x)
                                        : fmax(want[i], x);
      }
    }
    CHECK_OK(fe_comm_allreduce(comm, v, N, (enum fe_reduce)op));
    for (int i = 0; i < N; i++) CHECK_CLOSE(v[i], want[i], 1e-13 * fabs(want[i]));
  }
  double d[2] = {comm->rank, 1.0};
  CHECK_OK(fe_comm_allreduce_sum_device(comm, d, 2));
  CHECK(d[0] == size * (size - 1) / 2.0 && d[1] == size);
}

/* Owned entries 1 + rank, ghosts 1000 (left out of the reductions). */
static void check_vectors(const struct fe_comm *comm)
{
  struct fe_backend *be = NULL;
  const struct fe_backend_options bo = {.device = -1, .comm = comm};
  CHECK_OK(fe_backend_create(FE_BACKEND_CPU, &bo, &be));
  if (!be) return;
  struct fe_halo *halo = NULL;
  struct fe_vec *v = NULL;
  const int owner[2] = {0, 2};
  CHECK_OK(fe_halo_create(be, 3, 2, owner, &halo));
  if (halo) CHECK_OK(fe_vec_create_ghosted(halo, &v));
  if (!v) {
    fe_halo_destroy(halo);
    fe_backend_destroy(be);
    return;
  }
  double host[5] = {1 + comm->rank, 1 + comm->rank, 1 + comm->rank, 1000, 1000}, dot, lo, hi;
  CHECK_OK(fe_vec_upload(v, host));
  CHECK_OK(fe_vec_dot(v, v, &dot));
  CHECK_OK(fe_vec_minmax(v, &lo, &hi));
  double want = 0;
  for (int r = 0; r < comm->size; r++) want += 3.0 * (1 + r) * (1 + r);
  CHECK_CLOSE(dot, want, 1e-14 * want);
  CHECK(lo == 1 && hi == comm->size);
  /* the same through a readout, with a value only process 0 holds (a probe's) */
  struct fe_readout *r = NULL;
  int at_dot, at_range, at_probe, at_bad;
  CHECK_OK(fe_readout_create(be, 3 * FE_READOUT_REDUCTION + 1, &r));
  if (r) {
    double probe = comm->rank == 0 ? 7.5 : 0;
    CHECK_OK(fe_readout_dot(r, v, v, &at_dot));
    CHECK_OK(fe_readout_minmax(r, v, &at_range));
    CHECK_OK(fe_readout_sum(r, &probe, 1, &at_probe));
    host[1] = comm->rank == comm->size - 1 ? INFINITY : host[1]; /* on the last process */
    CHECK_OK(fe_vec_upload(v, host));
    CHECK_OK(fe_readout_minmax(r, v, &at_bad));
    CHECK_OK(fe_readout_wait(r, -1)); /* never cleared: tag -1 */
    CHECK(fe_readout_values(r, at_dot)[0] == dot);
    CHECK(fe_readout_values(r, at_range)[0] == lo && fe_readout_values(r, at_range)[1] == hi);
    CHECK(fe_readout_values(r, at_probe)[0] == 7.5);
    CHECK(isnan(fe_readout_values(r, at_bad)[0]) && isnan(fe_readout_values(r, at_bad)[1]));
  }
  fe_readout_destroy(r);
  fe_vec_destroy(v);
  fe_halo_destroy(halo);
  fe_backend_destroy(be);
}

/* Process r holds r + 1 values: gathered on process 0 in rank order, scattered back the same;
 * process 0's bytes to each other process, which alone receives them. */
static void check_gather_scatter_send(const struct fe_comm *comm)
{
  enum { MOST = 8 };
  const int n = comm->size, count = comm->rank + 1;
  int counts[MOST], displs[MOST];
  double mine[MOST], all[MOST * MOST], back[MOST];
  CHECK(n <= MOST);
  if (n > MOST) return;
  for (int r = 0, at = 0; r < n; at += r + 1, r++) counts[r] = r + 1, displs[r] = at;
  for (int i = 0; i < count; i++) mine[i] = value(comm->rank, i);
  CHECK_OK(fe_comm_gather(comm, mine, count, all, counts, displs));
  for (int r = 0; comm->rank == 0 && r < n; r++)
    for (int i = 0; i < r + 1; i++) CHECK(all[displs[r] + i] == value(r, i));
  for (int i = 0; i < MOST; i++) back[i] = -1;
  CHECK_OK(fe_comm_scatter(comm, all, counts, displs, back, count));
  for (int i = 0; i < MOST; i++) CHECK(back[i] == (i < count ? value(comm->rank, i) : -1));
  for (int to = 1; to < n; to++) {
    int bytes[2] = {comm->rank == 0 ? 100 + to : -1, comm->rank == 0 ? 200 + to : -1};
    CHECK_OK(fe_comm_send(comm, to, bytes, (int)sizeof bytes));
    const int got = comm->rank == 0 || comm->rank == to;
    CHECK(bytes[0] == (got ? 100 + to : -1) && bytes[1] == (got ? 200 + to : -1));
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  struct fe_comm *comm = NULL;
  CHECK_OK(fe_comm_mpi_create(MPI_COMM_WORLD, &comm));
  if (comm) {
    /* the tests' processes all run on this one host: the host's ranks are the world's */
    CHECK(comm->local_rank == comm->rank);
    check_reductions(comm);
    check_vectors(comm);
    check_gather_scatter_send(comm);
  }
  fe_comm_mpi_destroy(comm);
  MPI_Finalize();
  TEST_DONE();
}
