/* The time steps of a case and its output schedule (docs/case-format.md, "Time
 * steps" and "Outputs"): how long each step is and when it ends, after which
 * steps a dump or a checkpoint is written, and how many dumps there are by
 * then.  Arithmetic on the case's numbers only, shared by the case reader
 * (which refuses a <time> that cannot be stepped), the time loop and the
 * checks of a checkpoint against its case.
 *
 * Two rules: a fixed dt (n_steps known up front, step k ending at start + k dt),
 * or cfl, each step's length from the Courant number at its start, at most
 * dt_max, landing exactly on the output times (with output_period) and on end
 * (fe_schedule_next).  The number of steps of a cfl run is known when it ends. */
#ifndef FE_SCHEDULE_H
#define FE_SCHEDULE_H

/* At most 10^12 steps: step numbers stay exact in a double (k dt) and in the
 * stat file, and a run that long is a mistake in <time> rather than a plan. */
#define FE_MAX_STEPS 1000000000000L
/* Round-off allowed on a step that lands on end (or, with cfl, on an output
 * time), relative to dt (dt_max, or the step the Courant number allows): it is
 * at most (1 + FE_STEP_ROUNDOFF) dt long, and a remainder of at most
 * FE_STEP_ROUNDOFF dt is no step of its own. */
#define FE_STEP_ROUNDOFF 1e-9

enum fe_steps_status {
  FE_STEPS_OK,
  FE_STEPS_SPAN_NOT_FINITE,  /* end - start overflows */
  FE_STEPS_DT_LOST_AT_START, /* start + dt == start (cfl: t + the step == t) */
  FE_STEPS_DT_LOST_AT_END,   /* end - dt == end */
  FE_STEPS_TOO_MANY          /* more than FE_MAX_STEPS */
};

/* The number of steps of length dt from start to end (dt > 0, end > start):
 * the smallest n with start + (n - 1) dt + (1 + FE_STEP_ROUNDOFF) dt >= end,
 * less one when the remainder would be FE_STEP_ROUNDOFF dt or less. */
enum fe_steps_status fe_steps_count(double start, double end, double dt, long *n);

struct fe_schedule {
  double start, end;
  double dt;             /* the fixed step; 0 with cfl */
  double cfl, dt_max;    /* cfl > 0: each step from the Courant number, at most dt_max */
  long n_steps;          /* fixed dt: the number of steps; cfl: 0 (not known before the end) */
  long output_every;     /* a dump after every output_every steps (and at the first and last);
                            0: by output_period */
  double output_period;  /* cfl: a dump at each output time start + k output_period (and at
                            end); 0: by output_every */
  long n_outputs;        /* with output_period: the output times strictly between start and end */
  long checkpoint_every; /* a checkpoint after every checkpoint_every steps but the last; 0: none */
};

/* A fixed dt: fills s; fe_steps_count's status. */
enum fe_steps_status fe_schedule_init(struct fe_schedule *s, double start, double end, double dt,
                                      long output_every, long checkpoint_every);
/* Steps from a Courant number cfl > 0, at most dt_max long, dumps every output_every
 * steps or (output_every 0) at the output times start + k output_period that fall
 * before end as the steps of a fixed dt = output_period would: fills s; the status of
 * fe_steps_count for dt_max, then for output_period. */
enum fe_steps_status fe_schedule_init_cfl(struct fe_schedule *s, double start, double end,
                                          double cfl, double dt_max, long output_every,
                                          double output_period, long checkpoint_every);

/* One step, as fe_schedule_next gives it. */
struct fe_step {
  long step;      /* its number, from 1 */
  double t0, t1;  /* its start and end */
  double length;  /* t1 - t0 but for round-off: the h the scheme steps by */
  int last;       /* it ends at end */
  int shortened;  /* cfl: shorter than the Courant number and dt_max allow, to land on an
                     output time or end (the remainder shared by two steps) */
  int dump;       /* a dump after it */
  int checkpoint; /* a checkpoint after it */
};

/* Whether the run is over once `step` has ended at t. */
int fe_schedule_done(const struct fe_schedule *s, long step, double t);
/* The step after `step` (0: none yet), which ended at t.  With cfl, rate is the
 * Courant number of a step of length 1 at t (>= 0 and finite; 0: no flow) and the step
 * is min(cfl / rate, dt_max) long, then fitted to the next output time or end: when it
 * reaches it (within FE_STEP_ROUNDOFF) it ends there; when what is left is at most two
 * such steps, it is shared by two equal ones, so that no step is left tiny.
 * FE_STEPS_DT_LOST_AT_START when the step is too short to change t, FE_STEPS_TOO_MANY
 * past FE_MAX_STEPS steps. */
enum fe_steps_status fe_schedule_next(const struct fe_schedule *s, long step, double t, double rate,
                                      struct fe_step *next);

/* Fixed dt: the time at the end of `step` (0: start; n_steps and beyond: end). */
double fe_schedule_time(const struct fe_schedule *s, long step);
/* Fixed dt: the length of `step` (1..n_steps): dt, but for the last, which ends at end. */
double fe_schedule_length(const struct fe_schedule *s, long step);
/* Fixed dt: whether `step` is dumped / checkpointed. */
int fe_schedule_is_dump(const struct fe_schedule *s, long step);
int fe_schedule_is_checkpoint(const struct fe_schedule *s, long step);
/* Fixed dt: dumps written once `step` is done (0 <= step <= n_steps), and the step of
 * dump `index`. */
long fe_schedule_dumps_after(const struct fe_schedule *s, long step);
long fe_schedule_dump_step(const struct fe_schedule *s, long index);

/* Either rule: the dumps written once `step`, which ended at t, is done. */
long fe_schedule_dumps_by(const struct fe_schedule *s, long step, double t);
/* Either rule: *t = the time of dump `index`, where the case alone fixes it (1), or 0 (a
 * cfl run dumped by steps: known from the run only, but for dump 0, at start). */
int fe_schedule_dump_time(const struct fe_schedule *s, long index, double *t);
/* Dumps of the whole run (a bound with cfl and output_every): for tables of dump times. */
long fe_schedule_max_dumps(const struct fe_schedule *s);
/* Steps of the whole run: n_steps, or with cfl the bound FE_MAX_STEPS. */
long fe_schedule_max_steps(const struct fe_schedule *s);

#endif
