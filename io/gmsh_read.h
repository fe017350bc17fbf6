/* Reading a .msh or meshing a .geo with the Gmsh C API, into a raw mesh.
 * Runs only inside the meshing process (app/mesher.c), never in fesim
 * itself: Gmsh's global state (OpenMP thread count, locale, signal handlers,
 * its parser's leftovers) and its crashes stay there. */
#ifndef FE_GMSH_READ_H
#define FE_GMSH_READ_H

#include <stddef.h>

#include "io/mesh_raw.h"

struct fe_gmsh_options {
  const char *name;    /* the file as messages name it; NULL: its path */
  double size;         /* Mesh.MeshSizeMax of a .geo; <= 0: the script's own sizes */
  size_t max_cells;    /* the most cells fesim accepts (--max-cells) */
  int max_cells_given; /* --max-cells was given: the memory estimate does not refuse */
  size_t memory;       /* bytes of memory available, 0 when unknown */
  /* Called at each stage ("meshing surfaces (about 41000 triangles)"). */
  void (*progress)(void *ctx, int stage, const char *what);
  void *ctx;
};

enum fe_gmsh_stage {
  FE_GMSH_STARTING,
  FE_GMSH_PARSING,
  FE_GMSH_MESHING_1D,
  FE_GMSH_MESHING_2D,
  FE_GMSH_MESHING_3D,
  FE_GMSH_EXTRACTING
};

/* Fills r (fe_mesh_raw_free releases it).  Errors name `path`: what Gmsh
 * logged, elements fesim does not read, a mesh estimated larger than the
 * limits (before the surfaces or volumes are meshed), node tags given twice. */
int fe_gmsh_read(const char *path, const struct fe_gmsh_options *o, struct fe_mesh_raw *r);

/* The line of the .geo script Gmsh is parsing now, 0 when unknown: for a
 * script stopped by the time limit (async-signal-safe). */
int fe_gmsh_parse_line(void);

/* Bytes per cell that meshing and a run need together, for the memory estimate. */
size_t fe_gmsh_bytes_per_cell(int dim);

#endif
