/* The CUDA backend of a GPU test program (tests/unit/test_gpu_*.c): made
 * when this build has it and a device is usable, else the reason the test
 * skips, printed, and NULL. */
#ifndef FE_TEST_BACKEND_GPU_H
#define FE_TEST_BACKEND_GPU_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"

static inline struct fe_backend *test_gpu(void)
{
  struct fe_backend *gpu = NULL;
  if (!strstr(fe_backends_built(), "cuda"))
    puts("skipped: fesim was built without the CUDA backend");
  else if (!fe_backend_available(FE_BACKEND_CUDA))
    puts("skipped: no CUDA device on this machine");
  else if (fe_backend_create(FE_BACKEND_CUDA, NULL, &gpu))
    puts("the CUDA backend could not be created"), abort();
  return gpu;
}

#endif
