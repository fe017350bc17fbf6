/* A point field as a snapshot file holds it, before it is matched to the
 * mesh (io/snapshot.c): the readers of the three formats fill it. */
#ifndef FE_POINT_DATA_H
#define FE_POINT_DATA_H

#include <stddef.h>

struct fe_point_data {
  size_t n;       /* points (VTK) or node values ($NodeData) */
  int components; /* of the field */
  double *values; /* n * components */
  double *points; /* n * 3 coordinates; NULL: none in the file ($NodeData without $Nodes) */
  size_t *tags;   /* n Gmsh node tags ($NodeData); NULL: the points in order (VTK) */
};

void fe_point_data_free(struct fe_point_data *pd);

/* The point field `field` of a snapshot file read whole into bytes (size bytes, NUL after
 * them), shown as `shown` in messages.  FE_ERR_INPUT for a file that breaks its format or
 * lacks the field, naming what was found and what was expected. */
int fe_vtk_read_points(const char *shown, const unsigned char *bytes, size_t size,
                       const char *field,
                       struct fe_point_data *pd); /* legacy VTK: io/vtk_reader.c */
int fe_vtu_read_points(const char *shown, const unsigned char *bytes, size_t size,
                       const char *field, struct fe_point_data *pd); /* VTK XML: io/vtu.c */
int fe_msh_read_node_data(const char *shown, const unsigned char *bytes, size_t size,
                          const char *field, struct fe_point_data *pd); /* Gmsh: io/msh_data.c */

/* Numbers in the files: a VTK type name ("double", "Float32", ...) read as doubles. */
enum fe_number_type {
  FE_NUM_NONE,
  FE_NUM_BIT,
  FE_NUM_I8,
  FE_NUM_U8,
  FE_NUM_I16,
  FE_NUM_U16,
  FE_NUM_I32,
  FE_NUM_U32,
  FE_NUM_I64,
  FE_NUM_U64,
  FE_NUM_F32,
  FE_NUM_F64
};
/* Bytes of one value (0 for bits, packed 8 to a byte). */
int fe_number_size(enum fe_number_type t);
/* n values of type t at p, stored big-endian (big) or little-endian, into out as doubles. */
void fe_number_decode(enum fe_number_type t, int big, const unsigned char *p, size_t n,
                      double *out);

#endif
