/* A limited FCT step (assembly/fct.h) on a mesh cut into as many parts as mpirun starts
 * processes (label mpi: 1 to 4), each process stepping its part (io/partition.h; the exchanges
 * between the step's loops, assembly/fct.c), against the same step on the whole mesh by one
 * process: the result at every node of the part, owned and ghost, the consistent flux at its
 * Dirichlet nodes and the low-order Courant number (the largest over the processes) equal bit
 * for bit: the part's owned sums are the whole mesh's, in the same order.  2D and 3D, with and
 * without the Galerkin rate, a compressible velocity with the conservative form. */
#include "mpi_backends.h"

#include <math.h>
#include <stdlib.h>

#include "assembly/fct.h"
#include "assembly/space.h"
#include "backends/backends.h"
#include "fct_checks.h"
#include "io/partition.h"
#include "test.h"

struct step {
  double *out, *reaction, courant;
};

/* The step on mesh m (the whole, or a part: node i is the whole mesh's global_node[i]). */
static void step_on(const struct fe_backend *be, const struct fct_problem *p,
                    const struct fe_mesh *m, int with_udot, double dt, struct step *r)
{
  const int nn = m->n_nodes, dim = m->dim;
  const int *gn = m->global_node;
  unsigned char *isd = malloc((size_t)nn + 1);
  double *u = malloc(sizeof(double) * ((size_t)nn + 1));
  double *udot = malloc(sizeof(double) * ((size_t)nn + 1));
  double *vel = malloc(sizeof(double) * ((size_t)nn * dim + 1));
  for (int i = 0; i < nn; i++) {
    const int g = gn ? gn[i] : i;
    isd[i] = p->isd[g];
    u[i] = p->u[g];
    udot[i] = p->udot[g];
    for (int a = 0; a < dim; a++) vel[i * dim + a] = p->vel[g * dim + a];
  }
  struct fe_space *space = NULL;
  struct fe_fct *fct = NULL;
  double *dvel = NULL;
  struct fe_vec *vu = NULL, *vudot = NULL, *y = NULL, *reaction = NULL;
  CHECK_OK(fe_space_create(be, m, isd, &space));
  CHECK_OK(fe_fct_create(space, p->beta, &fct));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * ((size_t)nn * dim + 1), vel, &dvel));
  CHECK_OK(fe_space_vec_create(space, &vu));
  CHECK_OK(fe_space_vec_create(space, &vudot));
  CHECK_OK(fe_space_vec_create(space, &y));
  CHECK_OK(fe_space_vec_create(space, &reaction));
  CHECK_OK(fe_vec_upload(vu, u));
  CHECK_OK(fe_vec_upload(vudot, udot));
  CHECK_OK(fe_vec_set(reaction, 0.0));
  CHECK_OK(fe_fct_step(fct, dvel, vu, with_udot ? vudot : NULL, dt, y, &r->courant, reaction));
  r->out = malloc(sizeof(double) * ((size_t)nn + 1));
  r->reaction = malloc(sizeof(double) * ((size_t)nn + 1));
  CHECK_OK(fe_vec_download(y, r->out));
  CHECK_OK(fe_vec_download(reaction, r->reaction));
  fe_vec_destroy(vu);
  fe_vec_destroy(vudot);
  fe_vec_destroy(y);
  fe_vec_destroy(reaction);
  fe_backend_free(be, dvel);
  fe_fct_destroy(fct);
  fe_space_destroy(space);
  free(isd);
  free(u);
  free(udot);
  free(vel);
}

static void check(const struct fe_comm *comm, const struct fe_backend *self,
                  const struct fe_backend *be, int dim, int n, int with_udot, int compressible,
                  double beta)
{
  struct fct_problem p;
  fct_problem_make(dim, n, 1, compressible, beta, &p);
  struct fe_partition *part = NULL;
  struct fe_mesh *pm = NULL;
  CHECK_OK(fe_partition_create(p.m, comm->size, &part));
  if (part) CHECK_OK(fe_partition_mesh(part, p.m, comm->rank, &pm));
  if (pm) {
    const double dt = 0.6 / (n * 2.0); /* a low-order Courant number below 1 */
    struct step whole, mine;
    step_on(self, &p, p.m, with_udot, dt, &whole);
    step_on(be, &p, pm, with_udot, dt, &mine);
    long bad = 0, bad_reaction = 0;
    for (long i = 0; i < pm->n_nodes; i++) {
      const int g = pm->global_node[i];
      bad += mine.out[i] != whole.out[g];
      bad_reaction += p.isd[g] && mine.reaction[i] != whole.reaction[g];
    }
    if (bad || bad_reaction || mine.courant != whole.courant)
      fprintf(stderr,
              "process %d of %d, %dD, %s, beta %g: %ld of %d node values, %ld reactions differ; "
              "Courant number %.17g, one process %.17g\n",
              comm->rank, comm->size, dim, with_udot ? "Galerkin rate" : "lumped", beta, bad,
              pm->n_nodes, bad_reaction, mine.courant, whole.courant);
    CHECK(bad == 0);
    CHECK(bad_reaction == 0);
    CHECK(mine.courant == whole.courant);
    CHECK(whole.courant > 0.1 && whole.courant <= 1);
    free(whole.out);
    free(whole.reaction);
    free(mine.out);
    free(mine.reaction);
  }
  fe_mesh_destroy(pm);
  fe_partition_destroy(part);
  fct_problem_free(&p);
}

int main(int argc, char **argv)
{
  struct mpi_backends b;
  if (mpi_backends_start(&argc, &argv, &b))
    for (int with_udot = 0; with_udot < 2; with_udot++) {
      check(b.comm, b.self, b.all, 2, 20, with_udot, 0, 0.0);
      check(b.comm, b.self, b.all, 2, 20, with_udot, 1, 1.0);
      check(b.comm, b.self, b.all, 3, 6, with_udot, 1, 0.5);
    }
  mpi_backends_end(&b);
  TEST_DONE();
}
