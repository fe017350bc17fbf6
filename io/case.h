/* The case file (docs/case-format.md, format version 1), read with libxml2 and
 * validated against io/fesim.xsd before anything else is looked at. */
#ifndef FE_CASE_H
#define FE_CASE_H

#include <stddef.h>

#include "io/expr.h"
#include "io/probe.h"

enum fe_splitting { FE_SPLIT_STRANG, FE_SPLIT_LIE };
/* rk4: explicit, split from the diffusion; theta: in the theta scheme with the diffusion, one
 * implicit solve per step and no splitting (Fluidity's continuous-Galerkin advection-diffusion) */
enum fe_advection { FE_ADVECTION_RK4, FE_ADVECTION_NONE, FE_ADVECTION_THETA };
enum fe_mass { FE_MASS_CONSISTENT, FE_MASS_LUMPED };
enum fe_stabilisation { FE_STABILISATION_NONE, FE_STABILISATION_FCT, FE_STABILISATION_SUPG };
/* How SUPG's xi follows the cell Peclet number: Fluidity's nu_bar_optimal,
 * nu_bar_doubly_asymptotic, nu_bar_critical_rule, nu_bar_unity (assembly/element.h
 * fe_supg_xi takes these values) */
enum fe_nu_bar {
  FE_NU_BAR_OPTIMAL,
  FE_NU_BAR_DOUBLY_ASYMPTOTIC,
  FE_NU_BAR_CRITICAL_RULE,
  FE_NU_BAR_UNITY
};
/* How the source and the Neumann fluxes enter: integrated at quadrature points (default), or
 * through their P1 interpolants, F = M f_h (Fluidity's way) */
enum fe_loads { FE_LOADS_QUADRATURE, FE_LOADS_INTERPOLATED };
enum fe_preconditioner { FE_PC_JACOBI, FE_PC_NONE };
enum fe_bc_kind { FE_BC_DIRICHLET, FE_BC_NEUMANN };

struct fe_boundary {
  int n_refs;
  char **refs; /* physical groups as written: names or numbers */
  enum fe_bc_kind kind;
  struct fe_expr *value; /* Dirichlet value or Neumann flux mu grad T . n */
  int line;              /* line of <boundary> in the case file */
};

/* One <tracer>: a field of the run with its own initial value, coefficients, boundary
 * conditions and exact solution; the velocity, the scheme and the mesh are the case's. */
struct fe_tracer {
  char *name;
  int line; /* line of <tracer> */
  struct fe_expr *initial;
  struct fe_expr *source;     /* never NULL: "0" when absent */
  struct fe_expr *exact;      /* NULL when absent */
  struct fe_expr *absorption; /* the decay rate lambda >= 0 of a -lambda T term; NULL when absent */
  int absorption_line;
  int n_diffusivity; /* 1 (scalar), 3 (xx xy yy) or 6 (xx xy xz yy yz zz) */
  struct fe_expr *diffusivity[6];
  int diffusivity_line;
  int n_boundaries;
  struct fe_boundary *boundaries;
};

/* A velocity snapshot file (io/snapshot.h) and its time. */
struct fe_velocity_file {
  char *path;  /* resolved against the case file's folder (or the series index's) */
  double time; /* NAN for the one file of a steady velocity given without a time */
};

struct fe_case {
  char *path; /* the case file as given */
  char *dir;  /* its directory, for relative mesh paths */
  char *name;
  char *mesh_file;  /* resolved against dir */
  double mesh_size; /* 0 when absent */
  int mesh_line;
  struct fe_params params;
  double t_start, t_end;
  double dt;          /* the fixed step; 0 with cfl */
  double cfl, dt_max; /* cfl > 0: each step's length from the Courant number |u| dt / h,
                         at most dt_max; 0, 0 with a fixed dt */
  int n_velocity;     /* expressions: 0 (none), 2 (x y) or 3 (x y z) */
  struct fe_expr *velocity[3];
  int velocity_line;
  int n_velocity_files; /* the velocity from files instead: snapshots, times increasing */
  struct fe_velocity_file *velocity_files;
  char *velocity_field;  /* their point array; default "velocity" */
  char *velocity_series; /* the series index they are listed in, as written; NULL: <file> */
  int n_tracers;         /* the <tracer> elements, in the order of the file (at least one) */
  struct fe_tracer *tracers;
  double theta;
  enum fe_splitting splitting;
  enum fe_advection advection;
  enum fe_mass mass;
  enum fe_stabilisation stabilisation; /* default none */
  enum fe_nu_bar nu_bar;               /* SUPG's xi; default optimal */
  double nu_scale;                     /* SUPG's nu_scale; default 0.5 */
  enum fe_loads loads;                 /* default quadrature */
  double conservative_advection;       /* Fluidity's beta in [0, 1]: the advection term
                                          u . grad T + beta (div u) T; default 0 */
  int scheme_line;                     /* line of <scheme>, 0 when absent */
  double rtol, atol;
  int max_iterations;
  enum fe_preconditioner preconditioner;
  /* assembly@strategy and <backend>: the words of the schema, read by the
   * assembly and backend code (fe_strategy_parse, fe_backend_parse) */
  char *strategy;    /* NULL where the case names none: the backend's default */
  int deterministic; /* assembly@deterministic: reproducible LMA and matfree scatter on the GPU */
  char *backend;     /* default "auto" */
  char *output_dir;  /* relative to the working directory; default "." */
  int output_every;  /* default 1; 0 with cfl and output_period */
  double output_period; /* time between dumps, 0: none given; with a fixed dt, read as
                           output_every = output_period / dt */
  int checkpoint_every; /* 0: no checkpoints */
  /* <probes>: the points whose values NAME.probes.csv holds, <probe> elements first, then the
   * file's rows; names distinct; coordinates finite (their count is checked against the mesh) */
  int n_probes; /* 0: no <probes> */
  struct fe_probe *probes;
  int probes_every;  /* a row every N steps (and at step 0 and the last step); default 1 */
  int probes_line;   /* line of <probes> */
  char *probes_file; /* probes@file resolved against dir; NULL when absent */
  /* <fluxes>: each tracer's boundary fluxes and budget terms in the stat file */
  int fluxes;      /* 0: no <fluxes> */
  int n_flux_refs; /* fluxes@boundaries: physical groups as written (names or numbers), each
                      once; 0: every boundary group of the mesh */
  char **flux_refs;
  int fluxes_line; /* line of <fluxes> */
};

/* Read, validate against the schema (io/fesim.xsd, compiled into the program
 * as fe_case_schema), and check the values
 * (dt > 0 or cfl > 0 with dt_max > 0, end > start, theta in [0,1], periods > 0,
 * expressions compile, ...).
 * Every error is FE_ERR_INPUT with "FILE:LINE: <element>: what was found,
 * what was expected". */
int fe_case_read(const char *path, struct fe_case **c);
void fe_case_destroy(struct fe_case *c);

/* Whether some tracer has an <exact> solution. */
int fe_case_any_exact(const struct fe_case *c);
/* Whether two tracers' diffusivities, or absorptions, are written alike (the same expressions,
 * component by component): their operators then coincide and are shared. */
int fe_tracer_same_diffusivity(const struct fe_tracer *a, const struct fe_tracer *b);
int fe_tracer_same_absorption(const struct fe_tracer *a, const struct fe_tracer *b);

/* Whether the case has a velocity: expressions or files. */
static inline int fe_case_has_velocity(const struct fe_case *c)
{
  return c->n_velocity > 0 || c->n_velocity_files > 0;
}

/* Where probe p is given, as messages name it: "case.xml:12: <probe name="a">" or
 * "points.csv:3: probe 'a'" (buf of 2 FE_QUOTE_SIZE bytes, returned). */
const char *fe_case_probe_where(const struct fe_case *c, const struct fe_probe *p, char *buf,
                                size_t size);

/* "none", "fct", "supg" */
const char *fe_stabilisation_name(enum fe_stabilisation s);
/* "optimal", "doubly_asymptotic", "critical_rule", "unity" */
const char *fe_nu_bar_name(enum fe_nu_bar n);
/* The scheme's choices that exclude each other, checked after the command line's overrides:
 * FE_ERR_INPUT naming <scheme>'s line (fct limits explicit steps: advection "rk4" only). */
int fe_case_check_scheme(const struct fe_case *c);
/* The spelling of scheme@stabilisation (--stabilisation); FE_ERR_USAGE naming the words. */
int fe_stabilisation_parse(const char *word, enum fe_stabilisation *s);
/* "quadrature", "interpolated" */
const char *fe_loads_name(enum fe_loads l);
/* The spelling of scheme@loads (--loads); FE_ERR_USAGE naming the words. */
int fe_loads_parse(const char *word, enum fe_loads *l);

extern const char fe_case_schema[]; /* generated from io/fesim.xsd */
extern const unsigned long fe_case_schema_size;

#endif
