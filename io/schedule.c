#include "io/schedule.h"

#include <math.h>

static double time_of(double start, double dt, long k) { return start + (double)k * dt; }

/* The last step runs from start + (n - 1) dt to end; its length is exact in
 * double arithmetic (Sterbenz), so the bounds hold however large n is. */
enum fe_steps_status fe_steps_count(double start, double end, double dt, long *n)
{
  *n = 0;
  if (!isfinite(end - start)) return FE_STEPS_SPAN_NOT_FINITE;
  if (!(start + dt > start)) return FE_STEPS_DT_LOST_AT_START;
  if (!(end - dt < end)) return FE_STEPS_DT_LOST_AT_END;
  const double ratio = (end - start) / dt;
  if (!(ratio <= (double)FE_MAX_STEPS + 1)) return FE_STEPS_TOO_MANY;
  long k = ratio < 1 ? 1 : (long)ceil(ratio);
  while (k > 1 && end - time_of(start, dt, k - 1) <= FE_STEP_ROUNDOFF * dt) k--;
  while (end - time_of(start, dt, k - 1) > (1 + FE_STEP_ROUNDOFF) * dt) k++;
  if (k > FE_MAX_STEPS) return FE_STEPS_TOO_MANY;
  *n = k;
  return FE_STEPS_OK;
}

enum fe_steps_status fe_schedule_init(struct fe_schedule *s, double start, double end, double dt,
                                      long output_every, long checkpoint_every)
{
  *s = (struct fe_schedule){.start = start,
                            .end = end,
                            .dt = dt,
                            .output_every = output_every,
                            .checkpoint_every = checkpoint_every};
  return fe_steps_count(start, end, dt, &s->n_steps);
}

/* The output times are the ends of the steps of a fixed dt = output_period but its last
 * (which is end): so is one within round-off of end. */
enum fe_steps_status fe_schedule_init_cfl(struct fe_schedule *s, double start, double end,
                                          double cfl, double dt_max, long output_every,
                                          double output_period, long checkpoint_every)
{
  *s = (struct fe_schedule){.start = start,
                            .end = end,
                            .cfl = cfl,
                            .dt_max = dt_max,
                            .output_every = output_every,
                            .output_period = output_period,
                            .checkpoint_every = checkpoint_every};
  long n;
  const enum fe_steps_status status = fe_steps_count(start, end, dt_max, &n);
  if (status != FE_STEPS_OK || output_every) return status;
  const enum fe_steps_status outputs = fe_steps_count(start, end, output_period, &n);
  s->n_outputs = n - 1;
  return outputs;
}

/* ---------------------------------------------------------------- steps from a Courant number */

/* Output time i (1..n_outputs; past them: end). */
static double output_time(const struct fe_schedule *s, long i)
{
  return i > s->n_outputs ? s->end : time_of(s->start, s->output_period, i);
}

/* The first output time after t, by its index (n_outputs + 1: end). */
static long next_output(const struct fe_schedule *s, double t)
{
  if (!s->n_outputs) return 1;
  const double ratio = (t - s->start) / s->output_period;
  long i = !(ratio >= 0) ? 1 : ratio >= (double)s->n_outputs ? s->n_outputs : (long)ratio + 1;
  while (i > 1 && output_time(s, i - 1) > t) i--;
  while (i <= s->n_outputs && output_time(s, i) <= t) i++;
  return i;
}

/* The step the Courant number allows, then fitted to the next output time or end. */
static enum fe_steps_status next_cfl(const struct fe_schedule *s, long step, double t, double rate,
                                     struct fe_step *st)
{
  const double reach = rate > 0 ? fmin(s->dt_max, s->cfl / rate) : s->dt_max;
  const long i = next_output(s, t);
  const double target = output_time(s, i), left = target - t;
  const int lands = left <= (1 + FE_STEP_ROUNDOFF) * reach;
  double h = reach;
  if (lands)
    h = left;
  else if (left <= 2 * reach)
    h = 0.5 * left; /* one step and a sliver would be left: two equal steps instead */
  const long k = step + 1;
  *st = (struct fe_step){.step = k,
                         .t0 = t,
                         .t1 = lands ? target : t + h,
                         .length = h,
                         .last = lands && i > s->n_outputs,
                         .shortened = h < reach};
  st->dump = s->output_every ? k % s->output_every == 0 || st->last : lands;
  st->checkpoint = s->checkpoint_every > 0 && k % s->checkpoint_every == 0 && !st->last;
  if (!(st->t1 > t)) return FE_STEPS_DT_LOST_AT_START;
  return k > FE_MAX_STEPS ? FE_STEPS_TOO_MANY : FE_STEPS_OK;
}

int fe_schedule_done(const struct fe_schedule *s, long step, double t)
{
  return s->cfl > 0 ? t >= s->end : step >= s->n_steps;
}

enum fe_steps_status fe_schedule_next(const struct fe_schedule *s, long step, double t, double rate,
                                      struct fe_step *next)
{
  if (s->cfl > 0) return next_cfl(s, step, t, rate, next);
  const long k = step + 1;
  *next = (struct fe_step){.step = k,
                           .t0 = fe_schedule_time(s, step),
                           .t1 = fe_schedule_time(s, k),
                           .length = fe_schedule_length(s, k),
                           .last = k == s->n_steps,
                           .dump = fe_schedule_is_dump(s, k),
                           .checkpoint = fe_schedule_is_checkpoint(s, k)};
  return FE_STEPS_OK;
}

/* ---------------------------------------------------------------- a fixed dt */

double fe_schedule_time(const struct fe_schedule *s, long step)
{
  return step >= s->n_steps ? s->end : time_of(s->start, s->dt, step);
}

/* The nominal dt, so that operators built for it are reused, but for the
 * last step, shortened to land on end (dt itself when within round-off). */
double fe_schedule_length(const struct fe_schedule *s, long step)
{
  if (step < s->n_steps) return s->dt;
  const double left = s->end - fe_schedule_time(s, s->n_steps - 1);
  return fabs(left - s->dt) <= FE_STEP_ROUNDOFF * s->dt ? s->dt : left;
}

int fe_schedule_is_dump(const struct fe_schedule *s, long step)
{
  return step % s->output_every == 0 || step == s->n_steps;
}

int fe_schedule_is_checkpoint(const struct fe_schedule *s, long step)
{
  return s->checkpoint_every > 0 && step % s->checkpoint_every == 0 && step > 0 &&
         step < s->n_steps;
}

long fe_schedule_dumps_after(const struct fe_schedule *s, long step)
{
  const long regular = step / s->output_every + 1; /* steps 0, every, 2 every, ... */
  return regular + (step == s->n_steps && step % s->output_every != 0);
}

long fe_schedule_dump_step(const struct fe_schedule *s, long index)
{
  return index >= s->n_steps / s->output_every + 1 ? s->n_steps : index * s->output_every;
}

/* ---------------------------------------------------------------- either rule */

long fe_schedule_dumps_by(const struct fe_schedule *s, long step, double t)
{
  if (!(s->cfl > 0)) return fe_schedule_dumps_after(s, step);
  const int end = t >= s->end;
  if (s->output_every) return step / s->output_every + 1 + (end && step % s->output_every != 0);
  return end ? s->n_outputs + 2 : next_output(s, t);
}

int fe_schedule_dump_time(const struct fe_schedule *s, long index, double *t)
{
  if (!(s->cfl > 0)) {
    *t = fe_schedule_time(s, fe_schedule_dump_step(s, index));
    return 1;
  }
  if (s->output_every && index > 0) return 0;
  *t = index == 0 ? s->start : output_time(s, index);
  return 1;
}

long fe_schedule_max_dumps(const struct fe_schedule *s)
{
  if (!(s->cfl > 0)) return fe_schedule_dumps_after(s, s->n_steps);
  return s->output_every ? FE_MAX_STEPS / s->output_every + 2 : s->n_outputs + 2;
}

long fe_schedule_max_steps(const struct fe_schedule *s)
{
  return s->cfl > 0 ? FE_MAX_STEPS : s->n_steps;
}
