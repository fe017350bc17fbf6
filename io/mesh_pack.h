/* A mesh as bytes and back: process 0 of a run on several processes reads (meshes) the mesh
 * once, cuts it, and hands each process its part (app/distribution.h, fe_distribution_create),
 * in the byte order and layout of this build (the processes run the same fesim). */
#ifndef FE_MESH_PACK_H
#define FE_MESH_PACK_H

#include <stddef.h>

#include "io/mesh.h"
#include "io/pack.h"

/* m's fields, a part's too (n_ghost ...), into p (io/pack.h); and a mesh read from p into *m
 * (FE_ERR_USAGE when the bytes end early or do not hold the fields of a mesh). */
void fe_mesh_pack_write(struct fe_pack *p, const struct fe_mesh *m);
int fe_mesh_pack_read(struct fe_pack *p, struct fe_mesh **m);

/* *bytes (malloc'd, *size of them): m alone, as fe_mesh_pack_write writes it. */
int fe_mesh_pack(const struct fe_mesh *m, unsigned char **bytes, size_t *size);
/* The mesh fe_mesh_pack wrote into bytes; FE_ERR_USAGE when they end early or run over. */
int fe_mesh_unpack(const unsigned char *bytes, size_t size, struct fe_mesh **m);

#endif
