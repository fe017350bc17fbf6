/* A test's look at a file it wrote: its whole text. */
#ifndef FE_TEST_READ_ALL_H
#define FE_TEST_READ_ALL_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of path and a terminating zero (malloc'd), or NULL when it cannot be read. */
static inline char *read_all(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  rewind(f);
  char *buf = malloc((size_t)size + 1);
  if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[size] = 0;
  fclose(f);
  return buf;
}

#endif
