/* Values as bytes and back, in one order for both (process 0 of a run on several processes
 * hands each process its part of the mesh and its boundary conditions: io/mesh_pack.h,
 * app/distribution.c), in the byte order and layout of this build (the processes run the same
 * fesim).  A writer runs twice: once with out NULL, counting, then into a buffer of that size. */
#ifndef FE_PACK_H
#define FE_PACK_H

#include <stddef.h>

struct fe_pack {
  unsigned char *out;      /* writing: the buffer, NULL while counting */
  const unsigned char *in; /* reading */
  size_t at, size;
  int over; /* reading: a field ran past the end (what it read is then not to be used) */
};

void fe_pack_put(struct fe_pack *p, const void *data, size_t bytes);
void fe_pack_get(struct fe_pack *p, void *data, size_t bytes);
/* An array of count items of `item` bytes, NULL or not: a flag, then the items; read into a
 * new array (*a NULL where it was NULL or the bytes end early; FE_ERR_RESOURCE: no memory). */
void fe_pack_put_array(struct fe_pack *p, const void *a, size_t count, size_t item);
int fe_pack_get_array(struct fe_pack *p, void **a, size_t count, size_t item);
/* A string (NULL packs as ""); read into a new one (NULL where the bytes end early). */
void fe_pack_put_text(struct fe_pack *p, const char *s);
int fe_pack_get_text(struct fe_pack *p, char **s);

#endif
