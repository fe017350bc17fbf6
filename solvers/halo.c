#include "solvers/halo.h"

#include <stdlib.h>

#include "core/error.h"

/* The entries with copies, and their copies, ascending: a CSR by counting. */
static int shared_lists(struct fe_halo *h, const int *owner, int **shared, int **ptr, int **ghost)
{
  const size_t first = fe_halo_first_copy(h);
  int *count;
  FE_CALL(fe_calloc(first + 1, sizeof *count, &count));
  for (size_t k = 0; k < h->n_copies; k++) count[owner[k]]++;
  for (size_t i = 0; i < first; i++) h->n_shared += count[i] > 0;
  int err = fe_malloc((h->n_shared + 1) * sizeof **shared, shared);
  if (!err) err = fe_calloc(h->n_shared + 1, sizeof **ptr, ptr);
  if (!err) err = fe_malloc((h->n_copies + 1) * sizeof **ghost, ghost);
  if (!err) {
    size_t s = 0;
    for (size_t i = 0; i < first; i++) /* count[i] becomes the list of i's position */
      if (count[i]) {
        (*shared)[s] = (int)i;
        (*ptr)[s + 1] = (*ptr)[s] + count[i];
        count[i] = (*ptr)[s++];
      }
    for (size_t k = 0; k < h->n_copies; k++) (*ghost)[count[owner[k]]++] = (int)(first + k);
  }
  free(count);
  return err;
}

/* count ints to the backend (room for one when count is 0) */
static int upload(const struct fe_backend *be, size_t count, const int *host, int **dev)
{
  return fe_backend_alloc(be, count ? count * sizeof(int) : sizeof(int), count ? host : NULL, dev);
}

/* h's copies (the last n_copies of its ghosts, h->n_ghost counting them): owner[k] the entry
 * copy k copies, one before the first copy. */
static int copies(struct fe_halo *h, size_t n_copies, const int *owner)
{
  h->n_copies = n_copies;
  const size_t first = fe_halo_first_copy(h);
  for (size_t k = 0; k < n_copies; k++)
    FE_CHECK(owner[k] >= 0 && (size_t)owner[k] < first, FE_ERR_USAGE,
             "copy %zu copies entry %d, not one of the %zu before the copies", k, owner[k], first);
  int *shared = NULL, *ptr = NULL, *ghost = NULL;
  int err = shared_lists(h, owner, &shared, &ptr, &ghost);
  if (!err) err = upload(h->be, n_copies, owner, &h->owner);
  if (!err) err = upload(h->be, h->n_shared, shared, &h->shared);
  if (!err) err = upload(h->be, h->n_shared + 1, ptr, &h->shared_ptr);
  if (!err) err = upload(h->be, n_copies, ghost, &h->shared_ghost);
  free(shared);
  free(ptr);
  free(ghost);
  return err;
}

int fe_halo_create(const struct fe_backend *be, size_t n_owned, size_t n_ghost, const int *owner,
                   struct fe_halo **out)
{
  struct fe_halo *h;
  FE_CALLOC(1, &h);
  h->be = be;
  h->n_owned = n_owned;
  h->n_ghost = n_ghost;
  const int err = copies(h, n_ghost, owner);
  if (err) {
    fe_halo_destroy(h);
    return err;
  }
  *out = h;
  return FE_SUCCESS;
}

static int copy_ints(int n, const int *from, int **to)
{
  FE_CALL(fe_malloc(((size_t)n + 1) * sizeof **to, to));
  for (int i = 0; i < n; i++) (*to)[i] = from[i];
  return FE_SUCCESS;
}

int fe_halo_create_remote(const struct fe_backend *be, size_t n_owned, size_t n_remote,
                          int n_neighbours, const int *neighbours, const int *send_ptr,
                          const int *send, const int *recv_ptr, size_t n_copies,
                          const int *copy_of, struct fe_halo **out)
{
  FE_CHECK(recv_ptr[n_neighbours] == (int)n_remote, FE_ERR_USAGE,
           "a halo of %zu ghosts whose neighbours send %d", n_remote, recv_ptr[n_neighbours]);
  struct fe_halo *h;
  FE_CALLOC(1, &h);
  h->be = be;
  h->n_owned = n_owned;
  h->n_ghost = n_remote + n_copies;
  h->n_neighbours = n_neighbours;
  const int n_send = send_ptr[n_neighbours];
  int err = FE_SUCCESS;
  for (int i = 0; i < n_send && !err; i++)
    if (send[i] < 0 || (size_t)send[i] >= n_owned)
      err = fe_error_raise(FE_ERR_USAGE, __FILE__, __LINE__,
                           "a halo sends entry %d, not one of the %zu owned", send[i], n_owned);
  if (!err) err = copy_ints(n_neighbours, neighbours, &h->neighbours);
  if (!err) err = copy_ints(n_neighbours + 1, send_ptr, &h->send_ptr);
  if (!err) err = copy_ints(n_neighbours + 1, recv_ptr, &h->recv_ptr);
  if (!err) err = copy_ints(n_send, send, &h->send_host);
  if (!err) err = upload(be, (size_t)n_send, send, &h->send);
  if (!err)
    err = fe_backend_alloc(be, ((size_t)n_send + n_remote + 1) * FE_HALO_MAX_COMP * sizeof(double),
                           NULL, &h->buffer);
  if (!err) err = fe_malloc(2 * ((size_t)n_neighbours + 1) * sizeof(int), &h->scaled_ptr);
  if (!err) err = copies(h, n_copies, copy_of);
  if (!err && be->vec->halo_open) err = be->vec->halo_open(h);
  if (err) {
    fe_halo_destroy(h);
    return err;
  }
  *out = h;
  return FE_SUCCESS;
}

void fe_halo_destroy(struct fe_halo *h)
{
  if (!h) return;
  if (h->exchange) h->be->vec->halo_close(h);
  fe_backend_free(h->be, h->send);
  free(h->neighbours);
  free(h->send_ptr);
  free(h->recv_ptr);
  free(h->send_host);
  fe_backend_free(h->be, h->buffer);
  free(h->scaled_ptr);
  fe_backend_free(h->be, h->owner);
  fe_backend_free(h->be, h->shared);
  fe_backend_free(h->be, h->shared_ptr);
  fe_backend_free(h->be, h->shared_ghost);
  free(h);
}

int fe_halo_update(const struct fe_halo *h, int ncomp, double *x)
{
  if (!h || (!h->n_ghost && !h->n_neighbours)) return FE_SUCCESS;
  FE_CHECK(ncomp >= 1 && ncomp <= FE_HALO_MAX_COMP, FE_ERR_USAGE,
           "a halo exchange of %d values per entry", ncomp);
  return h->be->vec->ghost_update(h, ncomp, x);
}

int fe_halo_sum(const struct fe_halo *h, double *x)
{
  if (!h || (!h->n_ghost && !h->n_neighbours)) return FE_SUCCESS;
  return h->be->vec->ghost_sum(h, x);
}

int fe_halo_complete(const struct fe_halo *h, int ncomp, double *x)
{
  return fe_halo_remote(h) ? fe_halo_update(h, ncomp, x) : FE_SUCCESS;
}
