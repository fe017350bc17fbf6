/* The run's velocity from files on several processes (app/velocity.h, fe_velocity_create_part;
 * label mpi: 1 to 4 processes): process 0 alone reads the snapshots of the whole mesh and hands
 * each process its part's values, so that every process's u(t), on the host and on the
 * backend, is the interpolant at its part's nodes, ghosts included, whichever way t moves; a
 * file changed on process 0's disk after the run read it is every process's input error when
 * it is read again. */
#include "solvers/comm_mpi.h"

#include "app/distribution.h"
#include "io/structured.h"
#include "backend_cpu.h"
#include "velocity_checks.h"

static void check(const struct fe_comm *comm)
{
  struct velocity_setup s; /* every process writes its own files: only process 0's are read */
  velocity_setup(&s, 3);
  fe_mesh_destroy(s.m); /* grid8's 8 cells are too few for 3 and 4 parts: 288 triangles */
  s.m = NULL;
  CHECK_OK(fe_mesh_create_structured(2, 12, 0.2, 5, &s.m));
  if (!s.m) return;
  for (int k = 0; k < 3; k++) write_snapshot(&s, k, 1.0);
  struct fe_distribution *d = NULL;
  CHECK_OK(fe_distribution_create(comm, comm->rank == 0 ? s.m : NULL, 0, NULL, NULL, &d));
  struct fe_velocity *v = NULL;
  if (d) CHECK_OK(fe_velocity_create_part(&s.c, d, test_cpu(), 0, &v));
  if (v) {
    CHECK(fe_velocity_time_dependent(v));
    velocity_at_times(test_cpu(), v, d->part, 1e-15);
    /* snapshot 0 changed on process 0's disk while 1 and 2 are held: refused everywhere */
    double *u = malloc(sizeof(double) * 2 * (size_t)d->part->n_nodes);
    CHECK_OK(fe_velocity_host(v, 2, u));
    if (comm->rank == 0) write_snapshot(&s, 0, 1.5);
    fe_error_set_quiet(1);
    CHECK(fe_velocity_host(v, 0.5, u) == FE_ERR_INPUT);
    fe_error_set_quiet(0);
    free(u);
  }
  fe_velocity_destroy(v);
  fe_distribution_destroy(d);
  velocity_teardown(&s);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  struct fe_comm *comm = NULL;
  CHECK_OK(fe_comm_mpi_create(MPI_COMM_WORLD, &comm));
  if (comm) check(comm);
  fe_comm_mpi_destroy(comm);
  MPI_Finalize();
  TEST_DONE();
}
