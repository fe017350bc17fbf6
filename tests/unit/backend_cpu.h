/* The CPU backend of a test program, created at its first use and kept for
 * the program's life. */
#ifndef FE_TEST_BACKEND_CPU_H
#define FE_TEST_BACKEND_CPU_H

#include <stdlib.h>

#include "backends/backends.h"

static inline const struct fe_backend *test_cpu(void)
{
  static struct fe_backend *be;
  if (!be && fe_backend_create(FE_BACKEND_CPU, NULL, &be)) abort();
  return be;
}

#endif
