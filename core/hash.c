#include "core/hash.h"

#include <string.h>

static const uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL,
                      P3 = 0x165667B19E3779F9ULL, P4 = 0x85EBCA77C2B2AE63ULL,
                      P5 = 0x27D4EB2F165667C5ULL;

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* Little-endian reads whatever the host's byte order: the hash of a file is the same everywhere. */
static uint64_t read64(const unsigned char *p)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static uint64_t read32(const unsigned char *p)
{
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t round64(uint64_t acc, uint64_t input)
{
  acc += input * P2;
  return rotl(acc, 31) * P1;
}

static uint64_t merge(uint64_t acc, uint64_t v)
{
  acc ^= round64(0, v);
  return acc * P1 + P4;
}

static void stripe(struct fe_hash *h, const unsigned char *p)
{
  for (int i = 0; i < 4; i++) h->v[i] = round64(h->v[i], read64(p + 8 * i));
}

void fe_hash_init(struct fe_hash *h, uint64_t seed)
{
  memset(h, 0, sizeof *h);
  h->seed = seed;
  h->v[0] = seed + P1 + P2;
  h->v[1] = seed + P2;
  h->v[2] = seed;
  h->v[3] = seed - P1;
}

void fe_hash_update(struct fe_hash *h, const void *data, size_t size)
{
  const unsigned char *p = data, *end = p + size;
  h->total += size;
  if (h->mem_size + size < 32) {
    if (size) memcpy(h->mem + h->mem_size, p, size);
    h->mem_size += size;
    return;
  }
  if (h->mem_size) {
    const size_t fill = 32 - h->mem_size;
    memcpy(h->mem + h->mem_size, p, fill);
    stripe(h, h->mem);
    p += fill;
    h->mem_size = 0;
  }
  for (; end - p >= 32; p += 32) stripe(h, p);
  h->mem_size = (size_t)(end - p);
  if (h->mem_size) memcpy(h->mem, p, h->mem_size);
}

uint64_t fe_hash_final(const struct fe_hash *h)
{
  uint64_t acc;
  if (h->total >= 32) {
    acc = rotl(h->v[0], 1) + rotl(h->v[1], 7) + rotl(h->v[2], 12) + rotl(h->v[3], 18);
    for (int i = 0; i < 4; i++) acc = merge(acc, h->v[i]);
  } else {
    acc = h->seed + P5;
  }
  acc += h->total;
  const unsigned char *p = h->mem, *end = h->mem + h->mem_size;
  for (; end - p >= 8; p += 8) acc = rotl(acc ^ round64(0, read64(p)), 27) * P1 + P4;
  if (end - p >= 4) {
    acc = rotl(acc ^ read32(p) * P1, 23) * P2 + P3;
    p += 4;
  }
  for (; p < end; p++) acc = rotl(acc ^ *p * P5, 11) * P1;
  acc ^= acc >> 33;
  acc *= P2;
  acc ^= acc >> 29;
  acc *= P3;
  return acc ^ (acc >> 32);
}

uint64_t fe_hash64(const void *data, size_t size, uint64_t seed)
{
  struct fe_hash h;
  fe_hash_init(&h, seed);
  fe_hash_update(&h, data, size);
  return fe_hash_final(&h);
}
