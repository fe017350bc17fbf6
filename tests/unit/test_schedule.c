/* io/schedule: the number of steps, the last step's length (never more than
 * dt beyond FE_STEP_ROUNDOFF, whatever the step count), the refusals, and
 * the dump and checkpoint schedule. */
#include "io/schedule.h"

#include "test.h"

#include <float.h>
#include <stdlib.h>

static long steps(double start, double end, double dt)
{
  long n = -1;
  CHECK(fe_steps_count(start, end, dt, &n) == FE_STEPS_OK);
  return n;
}

/* The last step of the schedule lies in (FE_STEP_ROUNDOFF dt, (1 + FE_STEP_ROUNDOFF) dt]
 * and the steps before it end before `end`. */
static int last_step_ok(double start, double end, double dt)
{
  struct fe_schedule s;
  if (fe_schedule_init(&s, start, end, dt, 1, 0) != FE_STEPS_OK) return 0;
  const double before = fe_schedule_time(&s, s.n_steps - 1), last = end - before;
  const double h = fe_schedule_length(&s, s.n_steps);
  return before < end && last > FE_STEP_ROUNDOFF * dt && last <= (1 + FE_STEP_ROUNDOFF) * dt &&
         h <= (1 + FE_STEP_ROUNDOFF) * dt && h > 0 && fe_schedule_time(&s, s.n_steps) == end;
}

static void check_counts(void)
{
  CHECK(steps(0, 1, 0.1) == 10); /* 1 / 0.1 rounds to 10: the last step is dt */
  struct fe_schedule s;
  CHECK(fe_schedule_init(&s, 0, 1, 0.1, 1, 0) == FE_STEPS_OK);
  CHECK(fe_schedule_length(&s, 10) == 0.1);
  CHECK(fe_schedule_time(&s, 3) == 0.30000000000000004); /* start + 3 dt, as the run has it */
  CHECK(steps(0, 6.283185307179586, 0.01) == 629);
  CHECK(fe_schedule_init(&s, 0, 6.283185307179586, 0.01, 10, 0) == FE_STEPS_OK);
  CHECK_CLOSE(fe_schedule_length(&s, 629), 0.00318530717958623, 1e-12);
  CHECK(fe_schedule_length(&s, 628) == 0.01);
  CHECK(steps(0, 1 + 1e-12, 0.1) == 10); /* a remainder of 1e-11 dt: no step of its own */
  CHECK(steps(0, 1 + 1e-6, 0.1) == 11);  /* 1e-5 dt: a short last step */
  CHECK(steps(0, 0.05, 0.1) == 1);       /* one short step */
  CHECK(steps(-1, 1, 0.5) == 4);
  CHECK(steps(5, 5.25, 0.1) == 3);
  CHECK(last_step_ok(0, 1 + 1e-6, 0.1) && last_step_ok(0, 0.05, 0.1) && last_step_ok(0, 1, 0.1));
}

/* Around 10^9 steps the old tolerance (10^-9 of the step count) let the last
 * step grow to 2 dt: it is now dt at most, beyond round-off. */
static void check_many_steps(void)
{
  const double dt = 1e-3;
  CHECK(steps(0, (1e9 + 0.5) * dt, dt) == 1000000001L);
  CHECK(last_step_ok(0, (1e9 + 0.5) * dt, dt));
  CHECK(last_step_ok(0, (1e9 + 0.9) * dt, dt));
  CHECK(last_step_ok(0, (3e9 + 0.25) * dt, dt)); /* beyond 2^31 steps */
  CHECK(steps(0, 3e9 + 0.5, 1) == 3000000001L);
  CHECK(last_step_ok(1e3, 1e3 + 4e11 * 0.37 + 0.1, 0.37));
  /* random spans, from one step to 10^11 */
  srand(12345);
  int bad = 0;
  for (int i = 0; i < 20000; i++) {
    const double start = (rand() / (double)RAND_MAX - 0.5) * 1e3;
    const double dt = pow(10, -6 + 8 * (rand() / (double)RAND_MAX));
    const double n = pow(10, 11 * (rand() / (double)RAND_MAX)) * (1 + rand() / (double)RAND_MAX);
    bad += !last_step_ok(start, start + n * dt, dt);
  }
  CHECK(bad == 0);
}

static void check_refusals(void)
{
  long n = 7;
  CHECK(fe_steps_count(-1e308, 1e308, 1, &n) == FE_STEPS_SPAN_NOT_FINITE && n == 0);
  CHECK(fe_steps_count(1, 2, 1e-17, &n) == FE_STEPS_DT_LOST_AT_START);
  CHECK(fe_steps_count(0, 1e6, 1e-11, &n) ==
        FE_STEPS_DT_LOST_AT_END); /* 0 + dt > 0, 1e6 - dt == 1e6 */
  CHECK(fe_steps_count(0, 1e13, 1, &n) == FE_STEPS_TOO_MANY);
  CHECK(fe_steps_count(0, 1, 1e-15, &n) == FE_STEPS_TOO_MANY); /* 10^15 steps */
  CHECK(fe_steps_count(0, (double)FE_MAX_STEPS, 1, &n) == FE_STEPS_OK && n == FE_MAX_STEPS);
  CHECK(fe_steps_count(0, (double)FE_MAX_STEPS + 0.5, 1, &n) == FE_STEPS_TOO_MANY);
  CHECK(fe_steps_count(0, DBL_MIN, 1, &n) == FE_STEPS_OK && n == 1);
}

static void check_outputs(void)
{
  struct fe_schedule s;
  CHECK(fe_schedule_init(&s, 0, 1, 0.01, 20, 50) == FE_STEPS_OK);
  CHECK(s.n_steps == 100);
  CHECK(fe_schedule_is_dump(&s, 0) && fe_schedule_is_dump(&s, 20) && !fe_schedule_is_dump(&s, 21));
  CHECK(fe_schedule_is_dump(&s, 100));
  CHECK(fe_schedule_dumps_after(&s, 0) == 1 && fe_schedule_dumps_after(&s, 19) == 1);
  CHECK(fe_schedule_dumps_after(&s, 20) == 2 && fe_schedule_dumps_after(&s, 100) == 6);
  CHECK(fe_schedule_dump_step(&s, 5) == 100 && fe_schedule_dump_step(&s, 2) == 40);
  CHECK(fe_schedule_is_checkpoint(&s, 50) && !fe_schedule_is_checkpoint(&s, 100));
  CHECK(!fe_schedule_is_checkpoint(&s, 0) && !fe_schedule_is_checkpoint(&s, 51));
  CHECK(fe_schedule_max_dumps(&s) >= fe_schedule_dumps_after(&s, 100));
  /* 629 steps, a dump every 10: 63 regular dumps and the last step's */
  CHECK(fe_schedule_init(&s, 0, 6.283185307179586, 0.01, 10, 0) == FE_STEPS_OK);
  CHECK(fe_schedule_dumps_after(&s, 629) == 64 && fe_schedule_dump_step(&s, 63) == 629);
  CHECK(fe_schedule_dumps_after(&s, 628) == 63 && fe_schedule_max_dumps(&s) == 64);
  CHECK(!fe_schedule_is_checkpoint(&s, 10));
  /* every dump index, in every schedule, maps back to its step */
  int bad = 0;
  for (long every = 1; every <= 7; every++)
    for (double end = 0.5; end < 3; end += 0.37) {
      fe_schedule_init(&s, 0, end, 0.1, every, 0);
      const long n = fe_schedule_dumps_after(&s, s.n_steps);
      for (long step = 0, index = 0; step <= s.n_steps; step++)
        if (fe_schedule_is_dump(&s, step)) bad += fe_schedule_dump_step(&s, index++) != step;
      bad += n > fe_schedule_max_dumps(&s);
    }
  CHECK(bad == 0);
}

int main(void)
{
  check_counts();
  check_many_steps();
  check_refusals();
  check_outputs();
  TEST_DONE();
}
