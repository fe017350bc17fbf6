#include "io/shares.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

int fe_shares_threads(void)
{
  const int n = omp_get_max_threads();
  return n < FE_MAX_SHARES ? n : FE_MAX_SHARES;
}

void fe_share(size_t n, size_t *lo, size_t *hi)
{
  const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
  *lo = n / nt * t + (t < n % nt ? t : n % nt);
  *hi = *lo + n / nt + (t < n % nt);
}

size_t fe_share_offset(struct fe_shares *s, size_t count)
{
  const int t = omp_get_thread_num(), nt = omp_get_num_threads();
  s->before[t + 1] = count;
#pragma omp barrier
#pragma omp single
  {
    s->before[0] = 0;
    for (int u = 0; u < nt; u++) s->before[u + 1] += s->before[u];
    s->total = s->before[nt];
  }
  return s->before[t];
}

void fe_running_sum(size_t *a, size_t n)
{
  struct fe_shares s;
#pragma omp parallel num_threads(fe_shares_threads())
  {
    size_t lo, hi, sum = 0;
    fe_share(n, &lo, &hi);
    for (size_t i = lo; i < hi; i++) sum += a[i];
    sum = fe_share_offset(&s, sum);
    for (size_t i = lo; i < hi; i++) a[i] = sum += a[i];
  }
}

size_t fe_scratch_reserve(struct fe_scratch *s, size_t bytes)
{
  if (s->p && bytes <= s->bytes) return 0;
  size_t want = bytes > 2 * s->bytes ? bytes : 2 * s->bytes;
  want = want > 64 ? want : 64;
  void *p = realloc(s->p, want);
  if (!p) return want;
  s->p = p;
  s->bytes = want;
  return 0;
}

/* The buckets in ranges of 2^shift buckets (at most 2^14, at least eight ranges a thread where
 * there are buckets enough), whose items are placed in two stable passes, neither of which needs
 * a count per bucket and thread: each thread's share of the items by range, then each range's
 * items by bucket, a range a thread. */
struct ranges {
  int shift;
  size_t n, *start; /* n + 1: where each range's items begin */
  size_t *place;    /* threads * n: each thread's next place for each range */
};

/* Each thread's share of the items to their range's part of items[], share by share. */
static void items_by_range(size_t n, const int *key, struct ranges *g, size_t *items)
{
  const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
  size_t lo, hi, *mine = g->place + t * g->n;
  fe_share(n, &lo, &hi);
  for (size_t i = lo; i < hi; i++) mine[(size_t)key[i] >> g->shift]++;
#pragma omp barrier
#pragma omp single
  for (size_t c = 0, sum = 0; c < g->n; c++) {
    g->start[c] = sum;
    for (size_t u = 0; u < nt; u++) {
      const size_t count = g->place[u * g->n + c];
      g->place[u * g->n + c] = sum;
      sum += count;
    }
    g->start[c + 1] = sum;
  }
  for (size_t i = lo; i < hi; i++) items[mine[(size_t)key[i] >> g->shift]++] = i;
}

/* Range c's items (copied to `was`) to their buckets, in order: ptr[b + 1] counts bucket b,
 * then holds where its next item goes, and at the end where bucket b + 1 begins. */
static void range_to_buckets(const int *key, size_t n_buckets, const struct ranges *g, size_t c,
                             size_t *was, size_t *ptr, size_t *items)
{
  const size_t first = g->start[c], n = g->start[c + 1] - first, b0 = c << g->shift;
  const size_t b1 = (c + 1) << g->shift < n_buckets ? (c + 1) << g->shift : n_buckets;
  memcpy(was, items + first, n * sizeof *was);
  for (size_t j = 0; j < n; j++) ptr[key[was[j]] + 1]++;
  for (size_t b = b0, at = first; b < b1; b++) {
    const size_t count = ptr[b + 1];
    ptr[b + 1] = at;
    at += count;
  }
  for (size_t j = 0; j < n; j++) items[ptr[key[was[j]] + 1]++] = was[j];
}

/* Each range by bucket, on every thread: 0, or the bytes a thread could not get. */
static size_t ranges_to_buckets(const int *key, size_t n_buckets, const struct ranges *g,
                                size_t *ptr, size_t *items)
{
  size_t lack = 0;
#pragma omp parallel reduction(max : lack)
  {
    struct fe_scratch s = {0};
#pragma omp for schedule(dynamic, 1)
    for (size_t c = 0; c < g->n; c++) {
      const size_t short_of =
          fe_scratch_reserve(&s, (g->start[c + 1] - g->start[c]) * sizeof *items);
      if (short_of)
        lack = short_of > lack ? short_of : lack;
      else
        range_to_buckets(key, n_buckets, g, c, s.p, ptr, items);
    }
    free(s.p);
  }
  return lack;
}

int fe_buckets(size_t n, const int *key, size_t n_buckets, size_t **ptr_out, size_t **items_out)
{
  const int threads = fe_shares_threads();
  struct ranges g = {.shift = 14};
  while (g.shift > 0 && n_buckets && (n_buckets - 1) >> g.shift < 8 * (size_t)threads) g.shift--;
  g.n = n_buckets ? ((n_buckets - 1) >> g.shift) + 1 : 0; /* none: no items either */
  size_t *ptr = NULL, *items = NULL, lack = 0;
  int err = fe_calloc(n_buckets + 1, sizeof *ptr, &ptr);
  if (!err) err = fe_malloc((n ? n : 1) * sizeof *items, &items);
  if (!err) err = fe_calloc(g.n + 1, sizeof *g.start, &g.start);
  if (!err) err = fe_calloc((size_t)threads * g.n, sizeof *g.place, &g.place);
  if (!err) {
#pragma omp parallel num_threads(threads)
    items_by_range(n, key, &g, items);
    lack = ranges_to_buckets(key, n_buckets, &g, ptr, items);
  }
  free(g.start);
  free(g.place);
  if (err || lack) {
    free(ptr);
    free(items);
    FE_CHECK(!lack, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu bytes", lack);
    return err;
  }
  *ptr_out = ptr;
  *items_out = items;
  return FE_SUCCESS;
}
