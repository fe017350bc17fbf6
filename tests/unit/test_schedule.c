/* io/schedule: the number of steps, the last step's length (never more than
 * dt beyond FE_STEP_ROUNDOFF, whatever the step count), the refusals, and
 * the dump and checkpoint schedule; with cfl, steps of cfl / rate capped by
 * dt_max that land exactly on the output times and on end, the remainder
 * shared by two equal steps rather than left as a sliver. */
#include "io/schedule.h"

#include "test.h"

#include <float.h>
#include <math.h>
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

/* ---------------------------------------------------------------- steps from a Courant number */

struct walk {
  long steps, dumps, checkpoints, shortened;
  double shortest, longest; /* of the steps not shortened */
  double landed[64];        /* the times of the dumps after step 0 */
  int bad;                  /* a step past its reach, one that does not advance, or a status */
};

/* The whole run of s with the rate rate0 * (1 + growth t) at each step's start. */
static struct walk walk(const struct fe_schedule *s, double rate0, double growth)
{
  struct walk w = {.shortest = INFINITY};
  double t = s->start;
  long step = 0;
  while (!fe_schedule_done(s, step, t) && step < 100000) {
    const double rate = rate0 * (1 + growth * t);
    const double reach = rate > 0 ? fmin(s->dt_max, s->cfl / rate) : s->dt_max;
    struct fe_step st;
    w.bad += fe_schedule_next(s, step, t, rate, &st) != FE_STEPS_OK;
    w.bad += st.step != step + 1 || st.t0 != t || !(st.t1 > t) ||
             st.length > (1 + FE_STEP_ROUNDOFF) * reach || st.last != (st.t1 == s->end);
    w.bad += fabs(st.t1 - t - st.length) > 1e-15 * fabs(st.t1);
    if (st.dump && w.dumps < 64) w.landed[w.dumps] = st.t1;
    w.dumps += st.dump;
    w.checkpoints += st.checkpoint;
    w.shortened += st.shortened;
    if (!st.shortened) w.shortest = fmin(w.shortest, st.length);
    if (!st.shortened) w.longest = fmax(w.longest, st.length);
    t = st.t1;
    step = st.step;
  }
  w.steps = step;
  w.bad += t != s->end;
  return w;
}

static void check_cfl_steps(void)
{
  struct fe_schedule s;
  /* no flow: steps of dt_max, which add up to 0.9999999999999999 after 9: the 10th lands on 1 */
  CHECK(fe_schedule_init_cfl(&s, 0, 1, 0.5, 0.1, 1, 0, 0) == FE_STEPS_OK);
  struct walk w = walk(&s, 0, 0);
  CHECK(w.bad == 0 && w.steps == 10 && w.shortened == 0 && w.dumps == 10);
  CHECK(w.shortest == 0.1 && w.longest <= 0.1 * (1 + FE_STEP_ROUNDOFF));
  /* rate 4: steps of 0.125, dt_max not reached */
  CHECK(fe_schedule_init_cfl(&s, 0, 1, 0.5, 1, 3, 0, 4) == FE_STEPS_OK);
  w = walk(&s, 4, 0);
  CHECK(w.bad == 0 && w.steps == 8 && w.shortest == 0.125 && w.shortened == 0);
  CHECK(w.dumps == 3 && w.checkpoints == 1); /* after steps 3, 6, 8; checkpoint 4 (8 is last) */
  /* 1.1 / 0.125 = 8.8 steps: 7 whole ones, then 0.225 shared by two of 0.1125 */
  CHECK(fe_schedule_init_cfl(&s, 0, 1.1, 0.5, 1, 1, 0, 0) == FE_STEPS_OK);
  w = walk(&s, 4, 0);
  CHECK(w.bad == 0 && w.steps == 9 && w.shortened == 2 && w.shortest == 0.125);
  struct fe_step st;
  CHECK(fe_schedule_next(&s, 7, 0.875, 4, &st) == FE_STEPS_OK);
  CHECK_CLOSE(st.length, 0.1125, 1e-14);
  CHECK(st.shortened && !st.last && st.t1 == 0.875 + st.length);
  /* a step the Courant number makes too short for the times */
  CHECK(fe_schedule_next(&s, 7, 0.875, 1e20, &st) == FE_STEPS_DT_LOST_AT_START);
  CHECK(fe_schedule_next(&s, FE_MAX_STEPS, 0.875, 4, &st) == FE_STEPS_TOO_MANY);
}

/* Output times start + k period, landed on exactly; the dumps counted and timed as the
 * checkpoint check needs them. */
static void check_cfl_outputs(void)
{
  struct fe_schedule s;
  /* period 0.3 in [0, 1]: output times 0.3, 0.6, 0.9 (as 3 * 0.3 = 0.8999999999999999 gives
   * them), then end; a velocity that speeds up from rate 7 to 21 */
  CHECK(fe_schedule_init_cfl(&s, 0, 1, 0.5, 0.05, 0, 0.3, 0) == FE_STEPS_OK);
  CHECK(s.n_outputs == 3 && fe_schedule_max_dumps(&s) == 5);
  const struct walk w = walk(&s, 7, 2);
  CHECK(w.bad == 0 && w.dumps == 4);
  CHECK(w.landed[0] == 0.3 && w.landed[1] == 0.6 && w.landed[2] == 0.3 * 3 && w.landed[3] == 1);
  CHECK(w.shortest >= 0.5 / 21 * (1 - 1e-12) && w.longest == 0.05);
  for (long i = 0; i < 5; i++) {
    double t = -1;
    CHECK(fe_schedule_dump_time(&s, i, &t) && t == (i == 0 ? 0 : i == 4 ? 1 : w.landed[i - 1]));
  }
  CHECK(fe_schedule_dumps_by(&s, 3, 0.2) == 1 && fe_schedule_dumps_by(&s, 5, 0.3) == 2);
  CHECK(fe_schedule_dumps_by(&s, 9, 0.61) == 3 && fe_schedule_dumps_by(&s, 40, 1) == 5);
  /* an output time within round-off of end is end's */
  CHECK(fe_schedule_init_cfl(&s, 0, 1, 0.5, 0.05, 0, 0.1, 0) == FE_STEPS_OK);
  CHECK(s.n_outputs == 9 && walk(&s, 3, 0).dumps == 10 && walk(&s, 3, 0).bad == 0);
  /* steps of 0.4 towards the output time 1: one whole, then the 0.6 left in two of 0.3 */
  CHECK(fe_schedule_init_cfl(&s, 0, 2.5, 1, 1, 0, 1, 0) == FE_STEPS_OK);
  struct fe_step st;
  CHECK(fe_schedule_next(&s, 0, 0, 2.5, &st) == FE_STEPS_OK && st.t1 == 0.4 && !st.shortened);
  CHECK(fe_schedule_next(&s, 1, 0.4, 2.5, &st) == FE_STEPS_OK && !st.dump && st.shortened);
  CHECK_CLOSE(st.t1, 0.7, 1e-15);
  CHECK(fe_schedule_next(&s, 2, st.t1, 2.5, &st) == FE_STEPS_OK && st.t1 == 1 && st.dump &&
        st.shortened && !st.last);
  /* dumps by steps: known in number, not in time */
  CHECK(fe_schedule_init_cfl(&s, 0, 1, 0.5, 0.1, 4, 0, 0) == FE_STEPS_OK);
  double t;
  CHECK(fe_schedule_dump_time(&s, 0, &t) && t == 0 && !fe_schedule_dump_time(&s, 1, &t));
  CHECK(fe_schedule_dumps_by(&s, 9, 0.9) == 3 && fe_schedule_dumps_by(&s, 10, 1) == 4);
  CHECK(fe_schedule_dumps_by(&s, 12, 1) == 4 && fe_schedule_max_steps(&s) == FE_MAX_STEPS);
}

int main(void)
{
  check_counts();
  check_many_steps();
  check_refusals();
  check_outputs();
  check_cfl_steps();
  check_cfl_outputs();
  TEST_DONE();
}
