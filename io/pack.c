#include "io/pack.h"

#include <stdint.h>
#include <string.h>

#include "core/error.h"

void fe_pack_put(struct fe_pack *p, const void *data, size_t bytes)
{
  if (p->out && bytes) memcpy(p->out + p->at, data, bytes);
  p->at += bytes;
}

void fe_pack_get(struct fe_pack *p, void *data, size_t bytes)
{
  if (p->over || bytes > p->size - p->at) {
    p->over = 1;
    return;
  }
  if (bytes) memcpy(data, p->in + p->at, bytes);
  p->at += bytes;
}

void fe_pack_put_array(struct fe_pack *p, const void *a, size_t count, size_t item)
{
  const unsigned char present = a != NULL;
  fe_pack_put(p, &present, 1);
  if (present) fe_pack_put(p, a, count * item);
}

int fe_pack_get_array(struct fe_pack *p, void **a, size_t count, size_t item)
{
  unsigned char present = 0;
  fe_pack_get(p, &present, 1);
  *a = NULL;
  if (!present || p->over) return FE_SUCCESS;
  if (count * item > p->size - p->at) {
    p->over = 1;
    return FE_SUCCESS;
  }
  FE_CALL(fe_malloc(count * item + 1, a));
  fe_pack_get(p, *a, count * item);
  return FE_SUCCESS;
}

void fe_pack_put_text(struct fe_pack *p, const char *s)
{
  const uint64_t n = s ? strlen(s) : 0;
  fe_pack_put(p, &n, sizeof n);
  fe_pack_put(p, s, n);
}

int fe_pack_get_text(struct fe_pack *p, char **s)
{
  uint64_t n = 0;
  fe_pack_get(p, &n, sizeof n);
  if (p->over || n > p->size - p->at) {
    p->over = 1;
    *s = NULL;
    return FE_SUCCESS;
  }
  FE_CALL(fe_malloc(n + 1, s));
  fe_pack_get(p, *s, n);
  (*s)[n] = '\0';
  return FE_SUCCESS;
}
