/* The run's velocity from files (app/velocity.h) on the CPU: linear interpolation between the
 * snapshots whose times bracket t, held outside their span, on the host and the backend alike
 * (bit for bit on the CPU), whichever way t moves; one snapshot is steady, several are not; a
 * file changed after the run read it is an input error when it is read again. */
#include "backend_cpu.h"
#include "velocity_checks.h"

static void interpolation(void)
{
  struct velocity_setup s;
  velocity_setup(&s, 3);
  struct fe_velocity *v;
  CHECK_OK(fe_velocity_create(&s.c, s.m, test_cpu(), 0, &v));
  CHECK(fe_velocity_time_dependent(v));
  velocity_at_times(test_cpu(), v, s.m, 1e-15);
  /* the host's values are the backend's, bit for bit, on the CPU */
  double a[18], b[18];
  struct fe_vec *out;
  CHECK_OK(fe_vec_create(test_cpu(), 18, &out));
  CHECK_OK(fe_velocity_host(v, 1.7, a));
  CHECK_OK(fe_velocity_at(v, NULL, 1.7, out));
  CHECK_OK(fe_vec_download(out, b));
  CHECK(!memcmp(a, b, sizeof a));
  fe_vec_destroy(out);
  /* snapshot 0 changed on disk while snapshots 1 and 2 are held: read again, refused */
  CHECK_OK(fe_velocity_host(v, 2, a));
  write_snapshot(&s, 0, 1.5);
  fe_error_set_quiet(1);
  CHECK(fe_velocity_host(v, 0.5, a) == FE_ERR_INPUT);
  fe_error_set_quiet(0);
  fe_velocity_destroy(v);
  velocity_teardown(&s);
}

static void steady(void)
{
  struct velocity_setup s;
  velocity_setup(&s, 1);
  s.files[0].time = NAN; /* one file, no time */
  struct fe_velocity *v;
  CHECK_OK(fe_velocity_create(&s.c, s.m, test_cpu(), 0, &v));
  CHECK(!fe_velocity_time_dependent(v));
  double u[18];
  CHECK_OK(fe_velocity_host(v, 7, u));
  for (int i = 0; i < 18; i++) CHECK(u[i] == snapshot_value(s.m, 0, i / 2, i % 2));
  char what[256];
  fe_velocity_describe(v, what, sizeof what);
  CHECK(strstr(what, "1 snapshot (field 'velocity', from <file> elements), steady") != NULL);
  fe_velocity_destroy(v);
  velocity_teardown(&s);
}

int main(void)
{
  interpolation();
  steady();
  TEST_DONE();
}
