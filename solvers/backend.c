#include "solvers/backend.h"

#include <string.h>

#include "core/error.h"
#include "solvers/comm.h"

static const char *const kind_words[FE_BACKEND_KINDS] = {
    [FE_BACKEND_AUTO] = "auto", [FE_BACKEND_CPU] = "cpu", [FE_BACKEND_CUDA] = "cuda"};

const char *fe_backend_name(enum fe_backend_kind kind)
{
  return (int)kind >= 0 && (int)kind < FE_BACKEND_KINDS ? kind_words[kind] : "unknown";
}

int fe_backend_parse(const char *word, enum fe_backend_kind *kind)
{
  for (int k = 0; k < FE_BACKEND_KINDS; k++)
    if (!strcmp(word, kind_words[k])) {
      *kind = (enum fe_backend_kind)k;
      return FE_SUCCESS;
    }
  FE_RAISE(FE_ERR_USAGE, "unknown backend '%s'; expected one of %s, %s, %s", word, kind_words[0],
           kind_words[1], kind_words[2]);
}

int fe_backend_alloc(const struct fe_backend *be, size_t bytes, const void *host, void *ptr_to_ptr)
{
  void *p = NULL;
  FE_CALL(be->vec->malloc(be, bytes, &p));
  if (host) {
    int err = be->vec->to_device(be, p, host, bytes);
    if (err) {
      be->vec->free(be, p);
      return err;
    }
  }
  memcpy(ptr_to_ptr, &p, sizeof p);
  return FE_SUCCESS;
}

void fe_backend_free(const struct fe_backend *be, void *p)
{
  if (p) be->vec->free(be, p);
}

int fe_backend_sync(const struct fe_backend *be) { return be->vec->sync(be); }

int fe_cg_sum_states(const struct fe_backend *be, const struct fe_cg_batch *c, size_t at, int n)
{
  for (int j = 0; j < c->m; j++)
    FE_CALL(fe_comm_allreduce_sum_device(be->comm, (double *)((char *)c->s[j] + at), n));
  return FE_SUCCESS;
}
