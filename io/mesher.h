/* fesim's side of the meshing process.  Every mesh file is read, and every
 * .geo script run and meshed, by a separate program, fesim-mesh (app/mesher.c),
 * confined by io/sandbox.h and limited in time; it hands the mesh back
 * through a pipe, never through a file.  Gmsh never runs inside fesim.
 *
 * The pipe (the meshing process's descriptor 3) carries frames: a type byte,
 * a 32-bit length and a payload: 'P' progress (a stage byte and a text),
 * then one 'M' (empty payload) followed by the mesh (io/mesh_raw.h).
 * Its descriptors 1 and 2 go to a second pipe: its messages, which fesim
 * passes on when it exits with an error code, or quotes when it crashes. */
#ifndef FE_MESHER_H
#define FE_MESHER_H

#include "io/mesh_raw.h"

#define FE_MESHER_NAME "fesim-mesh"
#define FE_MESHER_FD 3

/* Defaults: seconds, cells (documented in docs/untrusted-input.md and the README). */
#define FE_MESH_TIME_LIMIT 1800.0
#define FE_MESH_MAX_CELLS 100000000L

/* Read or mesh `path` in the meshing process.  Its errors (exit 2 or 4) are
 * passed on; a crash is FE_ERR_INPUT ("Gmsh crashed ... (Segmentation
 * fault)"), or FE_ERR_RESOURCE when it ran out of memory. */
int fe_mesher_run(const char *path, const struct fe_mesh_options *o, struct fe_mesh_raw *r);

#endif
