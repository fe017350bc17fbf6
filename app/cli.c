#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "app/run.h"
#include "core/error.h"

static const char usage[] =
  "usage: fesim [options] CASE.xml\n"
  "  --backend cpu|cuda|auto      override the case\n"
  "  --assembly addto|lma|matfree|auto  override the case (auto: the fastest, measured)\n"
  "  --deterministic              LMA on the GPU without atomics: runs reproduce bit for bit\n"
  "  --output DIR                 override output@dir\n"
  "  --force                      overwrite the outputs of another case in the output directory\n"
  "  --check                      validate the case and the mesh, print a summary, run nothing\n"
  "  --restart CHECKPOINT         continue a run from a checkpoint\n"
  "  --quiet | --verbose\n"
  "  --version | --help\n"
  "exit codes: 0 success, 1 usage error, 2 invalid input, 3 numerical failure,\n"
  "            4 device or resource failure; 130/143 stopped by SIGINT/SIGTERM\n"
  "            (checkpoint written)\n";

int fe_cli_parse(int argc, char **argv, struct fe_options *o, int *done)
{
  static const struct option longopts[] = {
    {"backend", required_argument, NULL, 'b'}, {"assembly", required_argument, NULL, 'a'},
    {"output", required_argument, NULL, 'o'},  {"check", no_argument, NULL, 'c'},
    {"deterministic", no_argument, NULL, 'd'}, {"force", no_argument, NULL, 'f'},
    {"restart", required_argument, NULL, 'r'}, {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},       {"version", no_argument, NULL, 'V'},
    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->verbosity = 1;
  *done = 0;
  opterr = 0;
  optind = 1;
  int ch;
  while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (ch) {
    case 'b':
      FE_CALL(fe_backend_parse(optarg, &o->backend));
      o->backend_set = 1;
      break;
    case 'a':
      FE_CALL(fe_strategy_parse(optarg, &o->strategy));
      o->strategy_set = 1;
      break;
    case 'o': o->output_dir = optarg; break;
    case 'd': o->deterministic = 1; break;
    case 'f': o->force = 1; break;
    case 'c': o->check = 1; break;
    case 'r': o->restart = optarg; break;
    case 'q': o->verbosity = 0; break;
    case 'v': o->verbosity = 2; break;
    case 'V':
      printf("fesim %s (backends: cpu%s)\n", FESIM_VERSION,
#ifdef FESIM_HAVE_CUDA
             ", cuda"
#else
             ""
#endif
      );
      *done = 1;
      return FE_SUCCESS;
    case 'h':
      fputs(usage, stdout);
      *done = 1;
      return FE_SUCCESS;
    default:
      if (optopt)
        FE_RAISE(FE_ERR_USAGE, "option '%s' needs a value\n%s", argv[optind - 1], usage);
      FE_RAISE(FE_ERR_USAGE, "unknown option '%s'\n%s", argv[optind - 1], usage);
    }
  }
  FE_CHECK(optind < argc, FE_ERR_USAGE, "no case file given\n%s", usage);
  FE_CHECK(optind == argc - 1, FE_ERR_USAGE, "one case file expected, found '%s' after '%s'\n%s",
           argv[optind + 1], argv[optind], usage);
  o->case_path = argv[optind];
  return FE_SUCCESS;
}
