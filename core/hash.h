/* A 64-bit hash of bytes: XXH64 (Yann Collet's xxHash, 64-bit variant, as
 * specified in xxhash's doc/xxhash_spec.md), fast and well mixed, for the
 * checksum of a checkpoint file and the identity of a mesh.  It detects
 * damage, not tampering: it is no cryptographic hash. */
#ifndef FE_HASH_H
#define FE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Incremental state: fe_hash_init, any number of fe_hash_update, fe_hash_final;
 * the result does not depend on how the bytes were split between updates. */
struct fe_hash {
  uint64_t v[4];
  uint64_t total;        /* bytes seen */
  unsigned char mem[32]; /* a stripe not yet complete */
  size_t mem_size;
  uint64_t seed;
};

void fe_hash_init(struct fe_hash *h, uint64_t seed);
void fe_hash_update(struct fe_hash *h, const void *data, size_t size);
uint64_t fe_hash_final(const struct fe_hash *h);

/* The hash of one block of bytes. */
uint64_t fe_hash64(const void *data, size_t size, uint64_t seed);

#endif
