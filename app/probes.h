/* The case's probes on its mesh (<probes>, docs/case-format.md): each checked against the
 * mesh and located once, on the host (assembly/probes.h), and listed by --check. */
#ifndef FE_APP_PROBES_H
#define FE_APP_PROBES_H

#include <stddef.h>

#include "assembly/probes.h"
#include "io/case.h"

/* *loc: c->n_probes locations (malloc'd; NULL without probes).  FE_ERR_INPUT naming the
 * probe (file, line, name) for one with another number of coordinates than the mesh has axes,
 * or outside the mesh beyond the tolerance (with its point and the mesh's extent). */
int fe_case_probes_locate(const struct fe_case *c, const struct fe_mesh *m,
                          struct fe_probe_location **loc);

/* "a row every step" or "a row every N steps" (buf of 32 bytes, returned). */
const char *fe_case_probes_rule(const struct fe_case *c, char *buf, size_t size);

/* --check's lines: the probes file, then each probe's point, cell (fesim's index and the Gmsh
 * element), weights, and how far outside the mesh it is when it is. */
void fe_case_probes_print(const struct fe_case *c, const struct fe_mesh *m,
                          const struct fe_probe_location *loc, const char *path);

#endif
