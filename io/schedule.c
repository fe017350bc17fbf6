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

long fe_schedule_max_dumps(const struct fe_schedule *s) { return s->n_steps / s->output_every + 2; }
