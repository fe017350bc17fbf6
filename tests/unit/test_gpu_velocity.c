/* The run's velocity from files (app/velocity.h) on the CUDA backend: the snapshots
 * interpolated there match the interpolant (and the host's values) to 1e-15, whichever way t
 * moves.  Skips without a GPU. */
#include "backend_gpu.h"
#include "velocity_checks.h"

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  struct velocity_setup s;
  velocity_setup(&s, 3);
  struct fe_velocity *v;
  CHECK_OK(fe_velocity_create(&s.c, s.m, gpu, 0, &v));
  velocity_at_times(gpu, v, s.m, 1e-15);
  fe_velocity_destroy(v);
  velocity_teardown(&s);
  fe_backend_destroy(gpu);
  TEST_DONE();
}
