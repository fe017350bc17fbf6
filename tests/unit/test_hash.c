/* core/hash: XXH64 against the reference implementation's values (python-xxhash 4.1,
 * libxxhash 0.8.4), and the incremental form against the one-shot form for every split. */
#include "core/hash.h"

#include "test.h"

#include <string.h>

struct vector {
  size_t size;
  uint64_t seed;
  uint64_t hash;
};

static void check_reference(void)
{
  unsigned char bytes[768];
  for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)i;
  const char *text = "0123456789abcdefghijklmnopqrstuvwxyz";
  CHECK(fe_hash64("", 0, 0) == 0xEF46DB3751D8E999ULL);
  CHECK(fe_hash64("a", 1, 0) == 0xD24EC4F1A98C6E5BULL);
  CHECK(fe_hash64("abc", 3, 0) == 0x44BC2CF5AD770999ULL);
  CHECK(fe_hash64("", 0, 12345) == 0x95584AF7701F808DULL);
  CHECK(fe_hash64("abc", 3, 12345) == 0x01700E64F6F23509ULL);
  /* lengths around the 32-byte stripe: the tail's 8-, 4- and 1-byte steps */
  const struct vector v[] = {
      {31, 0, 0x80ADFC1D42020F39ULL},     {32, 0, 0xBF7C9DBE16B5C6E2ULL},
      {36, 0, 0x69196C1B3AF0BFF9ULL},     {31, 12345, 0xCCF53214FE644102ULL},
      {32, 12345, 0xE6A1E4F2ACE01643ULL}, {36, 12345, 0x0050FDEDCF288068ULL}};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    CHECK(fe_hash64(text, v[i].size, v[i].seed) == v[i].hash);
  CHECK(fe_hash64(bytes, sizeof bytes, 0) == 0x8E03C838C596036FULL);
  CHECK(fe_hash64(bytes, sizeof bytes, 12345) == 0x6ECAC135863F12B2ULL);
}

/* Every split of 200 bytes into three updates gives the one-shot hash. */
static void check_incremental(void)
{
  unsigned char bytes[200];
  for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)(i * 37 + 11);
  const uint64_t whole = fe_hash64(bytes, sizeof bytes, 7);
  int mismatches = 0;
  for (size_t a = 0; a <= sizeof bytes; a += 3)
    for (size_t b = a; b <= sizeof bytes; b += 5) {
      struct fe_hash h;
      fe_hash_init(&h, 7);
      fe_hash_update(&h, bytes, a);
      fe_hash_update(&h, bytes + a, b - a);
      fe_hash_update(&h, bytes + b, sizeof bytes - b);
      mismatches += fe_hash_final(&h) != whole;
    }
  CHECK(mismatches == 0);
}

/* One flipped bit anywhere changes the hash. */
static void check_flips(void)
{
  unsigned char bytes[100];
  memset(bytes, 0xA5, sizeof bytes);
  const uint64_t whole = fe_hash64(bytes, sizeof bytes, 0);
  int same = 0;
  for (size_t i = 0; i < sizeof bytes * 8; i++) {
    bytes[i / 8] ^= (unsigned char)(1u << (i % 8));
    same += fe_hash64(bytes, sizeof bytes, 0) == whole;
    bytes[i / 8] ^= (unsigned char)(1u << (i % 8));
  }
  CHECK(same == 0);
}

int main(void)
{
  check_reference();
  check_incremental();
  check_flips();
  TEST_DONE();
}
