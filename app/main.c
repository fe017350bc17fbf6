/* fesim: advection-diffusion of a tracer on unstructured meshes. */
#include "app/run.h"
#include "core/error.h"

int main(int argc, char **argv)
{
  struct fe_options o;
  int done;
  int err = fe_cli_parse(argc, argv, &o, &done);
  if (err || done) return err;
  err = fe_run(&o);
  return err == FE_ERR_INTERRUPTED ? 128 + fe_run_stop_signal() : err;
}
