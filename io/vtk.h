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

/* Names in a legacy VTK file are tokens: VTK's own reader (vtkDataReader::ReadString)
 * reads at most 255 bytes of one, after %XX encoding (spaces, '%', bytes outside ASCII). */
#define FE_VTK_NAME_MAX 255
#define FE_VTK_CELL_FIELD "region" /* the cell field of every dump */
#define FE_VTK_TIME_FIELD "TIME"   /* the field-data array of the simulation time */

/* Bytes of name in the file, encoded. */
size_t fe_vtk_encoded_length(const char *name);
/* The first of the point-field names that repeats an earlier one or a name of
 * the dump's own (region, TIME), -1 when none; *other: the name it repeats. */
int fe_vtk_name_clash(int n, const char *const *names, const char **other);

/* Write the dump `path`: points, cells (VTK_TRIANGLE / VTK_TETRA), the point
 * fields, and cell data "region" (the Gmsh physical region).  Written to a
 * temporary name and renamed, so a killed run never leaves a truncated file.
 * FE_ERR_INPUT for fields the format cannot hold (names too long or repeated);
 * FE_ERR_RESOURCE when the file cannot be written. */
int fe_vtk_write(const char *path, double time, const struct fe_mesh *mesh, int n_fields,
                 const struct fe_vtk_field *fields);

/* Rewrite `path` (NAME.vtk.series) listing the dumps 0..n-1 of the case NAME
 * with their times (same temporary-name-and-rename rule). */
int fe_vtk_write_series(const char *path, const char *name, long n, const double *times);

/* *path = "dir/NAME_NNNNNN.vtk" (just the file name when dir is NULL), allocated. */
int fe_vtk_path(const char *dir, const char *name, long index, char **path);

#endif
