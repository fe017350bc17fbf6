#include "solvers/readback.h"

#include <stdlib.h>

#include "core/error.h"

struct fe_readback {
  const struct fe_backend *be;
  size_t bytes;
  void *host; /* the backend's host memory, or malloc's where it has none */
  void *mark; /* the last post's end (an asynchronous backend's) */
  int posted; /* a copy posted and not waited for */
};

int fe_readback_create(const struct fe_backend *be, size_t bytes, struct fe_readback **rb)
{
  struct fe_readback *r;
  FE_CALLOC(1, &r);
  r->be = be;
  r->bytes = bytes;
  const int err = be->vec->host_alloc ? be->vec->host_alloc(be, bytes ? bytes : 1, &r->host)
                                      : fe_malloc(bytes ? bytes : 1, &r->host);
  if (err) {
    fe_readback_destroy(r);
    return err;
  }
  *rb = r;
  return FE_SUCCESS;
}

void fe_readback_destroy(struct fe_readback *rb)
{
  if (!rb) return;
  const struct fe_vec_ops *v = rb->be->vec;
  if (rb->mark) v->mark_free(rb->be, rb->mark);
  if (v->host_free)
    v->host_free(rb->be, rb->host);
  else
    free(rb->host);
  free(rb);
}

int fe_readback_post(struct fe_readback *rb, const void *dev, size_t bytes)
{
  FE_CHECK(bytes <= rb->bytes, FE_ERR_USAGE, "a readback of %zu bytes, %zu posted", rb->bytes,
           bytes);
  const struct fe_vec_ops *v = rb->be->vec;
  if (!v->post) return v->to_host(rb->be, rb->host, dev, bytes);
  FE_CALL(v->post(rb->be, rb->host, dev, bytes, &rb->mark));
  rb->posted = 1;
  return FE_SUCCESS;
}

int fe_readback_wait(struct fe_readback *rb)
{
  if (!rb->posted) return FE_SUCCESS;
  rb->posted = 0;
  return rb->be->vec->wait(rb->be, rb->mark);
}

void *fe_readback_host(const struct fe_readback *rb) { return rb->host; }
