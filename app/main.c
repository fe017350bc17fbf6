/* fesim: advection-diffusion of a tracer on unstructured meshes. */
#include "app/processes.h"
#include "app/run.h"
#include "core/error.h"

int main(int argc, char **argv)
{
  struct fe_processes p;
  int err = fe_processes_start(&argc, &argv, &p);
  if (err) return err;
  struct fe_options o;
  struct fe_run_report report = {0};
  int done;
  err = fe_cli_parse(argc, argv, &o, &done);
  o.comm = p.comm;
  o.report = &report;
  if (!err && !done) err = fe_run(&o);
  err = fe_processes_finish(&p, err, &report);
  return err == FE_ERR_INTERRUPTED ? 128 + fe_run_stop_signal() : err;
}
