/* The command line: one table of options (name, the form of its value, help), read by one loop
 * that says exactly what is wrong with an argument; the usage text is made from the table.  An
 * option is added by a line in the table and, when it sets something, a small setter. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/run.h"
#include "backends/backends.h"
#include "core/error.h"

struct cli_option {
  const char *name;  /* without its "--" */
  const char *value; /* the form of its value; NULL for a flag */
  const char *help;
  int (*set)(struct fe_options *o, const char *value);
};

static int set_backend(struct fe_options *o, const char *v)
{
  o->backend_set = 1;
  return fe_backend_parse(v, &o->backend);
}

static int set_assembly(struct fe_options *o, const char *v)
{
  o->strategy_set = 1;
  return fe_strategy_parse(v, &o->strategy);
}

static int set_stabilisation(struct fe_options *o, const char *v)
{
  o->stabilisation_set = 1;
  return fe_stabilisation_parse(v, &o->stabilisation);
}

static int set_loads(struct fe_options *o, const char *v)
{
  o->loads_set = 1;
  return fe_loads_parse(v, &o->loads);
}

static int set_deterministic(struct fe_options *o, const char *v)
{
  return (void)v, o->deterministic = 1, 0;
}
static int set_output(struct fe_options *o, const char *v) { return o->output_dir = v, 0; }
static int set_force(struct fe_options *o, const char *v) { return (void)v, o->force = 1, 0; }
static int set_check(struct fe_options *o, const char *v) { return (void)v, o->check = 1, 0; }
static int set_restart(struct fe_options *o, const char *v) { return o->restart = v, 0; }
static int set_mesh_time_limit(struct fe_options *o, const char *v)
{
  char *end;
  const double s = strtod(v, &end);
  FE_CHECK(end != v && !*end && isfinite(s) && s > 0, FE_ERR_USAGE,
           "option '--mesh-time-limit' needs a number of seconds > 0; found '%s'", v);
  o->mesh_time_limit = s;
  return FE_SUCCESS;
}

static int set_max_cells(struct fe_options *o, const char *v)
{
  char *end;
  errno = 0;
  const long n = strtol(v, &end, 10);
  FE_CHECK(end != v && !*end && !errno && n > 0 && n < INT_MAX, FE_ERR_USAGE,
           "option '--max-cells' needs a whole number of cells from 1 to %d; found '%s'",
           INT_MAX - 1, v);
  o->max_cells = n;
  return FE_SUCCESS;
}

static int set_quiet(struct fe_options *o, const char *v) { return (void)v, o->verbosity = 0, 0; }
static int set_verbose(struct fe_options *o, const char *v) { return (void)v, o->verbosity = 2, 0; }

/* --version and --help: their set is NULL; they answer and end the parse. */
static const struct cli_option options[] = {
    {"backend", "cpu|cuda|auto", "override the case", set_backend},
    {"assembly", "addto|lma|matfree|auto", "override the case (auto: the fastest, measured)",
     set_assembly},
    {"stabilisation", "none|supg|fct",
     "override scheme@stabilisation (supg: streamline upwind; fct: bounded, flux-corrected)",
     set_stabilisation},
    {"loads", "quadrature|interpolated",
     "override scheme@loads (interpolated: source and fluxes through P1 interpolants, as "
     "Fluidity)",
     set_loads},
    {"deterministic", NULL,
     "LMA and matfree on the GPU without atomics: runs reproduce bit for bit", set_deterministic},
    {"output", "DIR", "override output@dir", set_output},
    {"force", NULL, "overwrite the outputs of another case in the output directory", set_force},
    {"check", NULL, "validate the case, the mesh and a --restart checkpoint; run nothing",
     set_check},
    {"restart", "CHECKPOINT", "continue a run from a checkpoint", set_restart},
    {"mesh-time-limit", "SECONDS", "stop reading or meshing the mesh after this long (1800)",
     set_mesh_time_limit},
    {"max-cells", "N", "mesh at most N cells (100000000 and what memory holds)", set_max_cells},
    {"quiet", NULL, "print error messages only", set_quiet},
    {"verbose", NULL, "print a line per step", set_verbose},
    {"version", NULL, "print the version and the backends of this build", NULL},
    {"help", NULL, "print this help", NULL},
};
enum { N_OPTIONS = sizeof options / sizeof options[0] };

static void option_form(const struct cli_option *opt, char *buf, size_t size)
{
  snprintf(buf, size, "--%s%s%s", opt->name, opt->value ? " " : "", opt->value ? opt->value : "");
}

static void print_usage(FILE *f)
{
  char form[64];
  int width = 0;
  for (int i = 0; i < N_OPTIONS; i++) {
    option_form(&options[i], form, sizeof form);
    width = (int)strlen(form) > width ? (int)strlen(form) : width;
  }
  fputs("usage: fesim [options] CASE.xml\n", f);
  for (int i = 0; i < N_OPTIONS; i++) {
    option_form(&options[i], form, sizeof form);
    fprintf(f, "  %-*s  %s\n", width, form, options[i].help);
  }
  fputs("exit codes: 0 success, 1 usage error, 2 invalid input, 3 numerical failure,\n"
        "            4 device or resource failure; 130/143 stopped by SIGINT/SIGTERM\n"
        "            (checkpoint written)\n",
        f);
}

/* A usage error: the message, then the usage on stderr. */
static int usage_error(int err)
{
  if (err == FE_ERR_USAGE) print_usage(stderr);
  return err;
}

/* The option named by arg (no "--", up to '=' or its end): exact, or the one it begins. */
static int find_option(const char *arg, size_t len, const struct cli_option **found)
{
  int matches = 0;
  char list[512] = "";
  *found = NULL;
  for (int i = 0; i < N_OPTIONS; i++) {
    if (strncmp(options[i].name, arg, len)) continue;
    if (strlen(options[i].name) == len) { /* exact */
      *found = &options[i];
      return FE_SUCCESS;
    }
    *found = &options[i];
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s--%s", matches++ ? ", " : "",
             options[i].name);
  }
  FE_CHECK(matches > 0, FE_ERR_USAGE, "unknown option '--%.*s'", (int)len, arg);
  FE_CHECK(matches == 1, FE_ERR_USAGE, "option '--%.*s' is ambiguous: it begins %s", (int)len, arg,
           list);
  return FE_SUCCESS;
}

/* One option at argv[*i]; its value from "=VALUE" or the next argument. */
static int take_option(int argc, char **argv, int *i, struct fe_options *o, int *done)
{
  const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
  const size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
  const struct cli_option *opt;
  FE_CHECK(len > 0 || eq, FE_ERR_USAGE, "unknown option '%s'", argv[*i]);
  FE_CALL(find_option(arg, len, &opt));
  const char *value = eq ? eq + 1 : NULL;
  if (!opt->value) {
    FE_CHECK(!eq, FE_ERR_USAGE, "option '--%s' takes no value; found '%s'", opt->name, argv[*i]);
  } else if (!eq) {
    FE_CHECK(*i + 1 < argc, FE_ERR_USAGE, "option '--%s' needs a value (%s) after it", opt->name,
             opt->value);
    value = argv[++*i];
    FE_CHECK(strncmp(value, "--", 2), FE_ERR_USAGE,
             "option '--%s' needs a value (%s); found the option '%s' (write --%s=%s for a value "
             "that begins with --)",
             opt->name, opt->value, value, opt->name, value);
  }
  FE_CHECK(!opt->value || value[0], FE_ERR_USAGE,
           "option '--%s' needs a value (%s); found an empty one", opt->name, opt->value);
  if (opt->set) return opt->set(o, value);
  if (!strcmp(opt->name, "version"))
    printf("fesim %s (backends: %s)\n", FESIM_VERSION, fe_backends_built());
  else
    print_usage(stdout);
  *done = 1;
  return FE_SUCCESS;
}

static int parse(int argc, char **argv, struct fe_options *o, int *done)
{
  int options_end = 0;
  for (int i = 1; i < argc && !*done; i++) {
    const char *arg = argv[i];
    if (!options_end && !strcmp(arg, "--")) {
      options_end = 1;
    } else if (!options_end && !strncmp(arg, "--", 2)) {
      FE_CALL(take_option(argc, argv, &i, o, done));
    } else if (!options_end && arg[0] == '-' && arg[1]) {
      FE_RAISE(FE_ERR_USAGE,
               "unknown option '%s': fesim's options are long ones (--check, --output DIR, ...)",
               arg);
    } else {
      FE_CHECK(!o->case_path, FE_ERR_USAGE, "one case file expected, found '%s' after '%s'", arg,
               o->case_path);
      o->case_path = arg;
    }
  }
  FE_CHECK(*done || o->case_path, FE_ERR_USAGE, "no case file given");
  return FE_SUCCESS;
}

int fe_cli_parse(int argc, char **argv, struct fe_options *o, int *done)
{
  memset(o, 0, sizeof *o);
  o->verbosity = 1;
  *done = 0;
  return usage_error(parse(argc, argv, o, done));
}
