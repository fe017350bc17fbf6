/* Out of device memory: an allocation larger than the GPU fails with
 * FE_ERR_RESOURCE and one message saying how much was needed and how much was
 * free, and the backend goes on working.  Skips without a GPU. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno: the message */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_gpu.h"
#include "backends/backends.h"
#include "core/error.h"
#include "solvers/vec.h"
#include "test.h"

/* fe_backend_alloc of `bytes` with stderr captured into msg */
static int alloc_captured(const struct fe_backend *be, size_t bytes, char *msg, size_t size)
{
  FILE *tmp = tmpfile();
  CHECK(tmp != NULL);
  if (!tmp) return -1;
  fflush(stderr);
  const int saved = dup(fileno(stderr));
  dup2(fileno(tmp), fileno(stderr));
  double *p = NULL;
  const int err = fe_backend_alloc(be, bytes, NULL, &p);
  fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  rewind(tmp);
  const size_t n = fread(msg, 1, size - 1, tmp);
  msg[n] = '\0';
  fclose(tmp);
  if (!err) fe_backend_free(be, p);
  return err;
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  const size_t huge = (size_t)1 << 50; /* 1 PiB */
  char msg[1024];
  CHECK(alloc_captured(gpu, huge, msg, sizeof msg) == FE_ERR_RESOURCE);
  fputs(msg, stdout);
  CHECK(strncmp(msg, "fesim: error: out of device memory on ", 38) == 0);
  CHECK(strstr(msg, "needed 1125899906842624 bytes (1048576.00 GiB) more, ") != NULL);
  CHECK(strstr(msg, " GiB) free of ") != NULL && strstr(msg, " GiB\n") != NULL);
  CHECK(strchr(msg, '\n') == msg + strlen(msg) - 1); /* one line */
  /* the backend still works */
  struct fe_vec *v;
  CHECK_OK(fe_vec_create(gpu, 1000, &v));
  CHECK_OK(fe_vec_set(v, 2.0));
  double dot;
  CHECK_OK(fe_vec_dot(v, v, &dot));
  CHECK(dot == 4000.0);
  fe_vec_destroy(v);
  fe_backend_destroy(gpu);
  TEST_DONE();
}
