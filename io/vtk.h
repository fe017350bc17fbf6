/* Legacy VTK output (binary UNSTRUCTURED_GRID, our own writer) and ParaView's
 * `.vtk.series` JSON index with the simulation time of each dump. */
#ifndef FE_VTK_H
#define FE_VTK_H

#include "io/mesh.h"

struct fe_vtk_field {
  const char *name;
  int components;       /* 1 (scalar) or 3 (vector; 2D vectors are padded with 0) */
  const double *values; /* n_nodes * components_in (see below) */
  int components_in;    /* components stored per node in values: 1, 2 or 3 */
};

/* Write NAME_NNNNNN.vtk in dir: points, cells (VTK_TRIANGLE / VTK_TETRA), the
 * point fields, and cell data "region" (the Gmsh physical region).  Written to
 * a temporary name and renamed, so a killed run never leaves a truncated file.
 * FE_ERR_RESOURCE when the file cannot be written. */
int fe_vtk_write(const char *dir, const char *name, long index, double time,
                 const struct fe_mesh *mesh, int n_fields, const struct fe_vtk_field *fields);

/* Rewrite dir/NAME.vtk.series listing dumps 0..n-1 with their times (same
 * temporary-name-and-rename rule). */
int fe_vtk_write_series(const char *dir, const char *name, long n, const double *times);

/* "dir/NAME_NNNNNN.vtk" into buf. */
void fe_vtk_path(char *buf, size_t size, const char *dir, const char *name, long index);

#endif
