/* The time steps of a case and its output schedule (docs/case-format.md, "Time
 * steps" and "Outputs"): how many steps, when each ends and how long it is,
 * after which steps a dump or a checkpoint is written, and how many dumps
 * there are by then.  Arithmetic on the case's numbers only, shared by the
 * case reader (which refuses a <time> that cannot be stepped), the time loop
 * and the checks of a checkpoint against its case. */
#ifndef FE_SCHEDULE_H
#define FE_SCHEDULE_H

/* At most 10^12 steps: step numbers stay exact in a double (k dt) and in the
 * stat file, and a run that long is a mistake in <time> rather than a plan. */
#define FE_MAX_STEPS 1000000000000L
/* Round-off allowed on the last step, relative to dt: the last step is at
 * most (1 + FE_STEP_ROUNDOFF) dt long, and a remainder of at most
 * FE_STEP_ROUNDOFF dt is no step of its own. */
#define FE_STEP_ROUNDOFF 1e-9

enum fe_steps_status {
  FE_STEPS_OK,
  FE_STEPS_SPAN_NOT_FINITE,  /* end - start overflows */
  FE_STEPS_DT_LOST_AT_START, /* start + dt == start */
  FE_STEPS_DT_LOST_AT_END,   /* end - dt == end */
  FE_STEPS_TOO_MANY          /* more than FE_MAX_STEPS */
};

/* The number of steps of length dt from start to end (dt > 0, end > start):
 * the smallest n with start + (n - 1) dt + (1 + FE_STEP_ROUNDOFF) dt >= end,
 * less one when the remainder would be FE_STEP_ROUNDOFF dt or less. */
enum fe_steps_status fe_steps_count(double start, double end, double dt, long *n);

struct fe_schedule {
  double start, end, dt;
  long n_steps;
  long output_every;     /* a dump after every output_every steps (and at steps 0 and n) */
  long checkpoint_every; /* a checkpoint after every checkpoint_every steps but the last; 0: none */
};

/* Fills s; fe_steps_count's status. */
enum fe_steps_status fe_schedule_init(struct fe_schedule *s, double start, double end, double dt,
                                      long output_every, long checkpoint_every);
/* The time at the end of `step` (0: start; n_steps and beyond: end). */
double fe_schedule_time(const struct fe_schedule *s, long step);
/* The length of `step` (1..n_steps): dt, but for the last, which ends at end. */
double fe_schedule_length(const struct fe_schedule *s, long step);
/* Whether `step` is dumped / checkpointed. */
int fe_schedule_is_dump(const struct fe_schedule *s, long step);
int fe_schedule_is_checkpoint(const struct fe_schedule *s, long step);
/* Dumps written once `step` is done (0 <= step <= n_steps), and the step of dump `index`. */
long fe_schedule_dumps_after(const struct fe_schedule *s, long step);
long fe_schedule_dump_step(const struct fe_schedule *s, long index);
/* Dumps of the whole run: a bound for tables of dump times. */
long fe_schedule_max_dumps(const struct fe_schedule *s);

#endif
