/* Bytes of backend memory copied to the host in two steps: the copy queued behind the work
 * before it (fe_readback_post), and waited for later (fe_readback_wait), so that the host can
 * queue more work in between (the next time step's while the GPU ends this one's).  On a
 * backend without asynchronous copies (the CPU) the post copies at once. */
#ifndef FE_READBACK_H
#define FE_READBACK_H

#include "solvers/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fe_readback;

/* Room for `bytes` on the host. */
int fe_readback_create(const struct fe_backend *be, size_t bytes, struct fe_readback **rb);
void fe_readback_destroy(struct fe_readback *rb);

/* The copy of bytes (at most the room) from `dev` queued; its values are the host's after
 * fe_readback_wait. */
int fe_readback_post(struct fe_readback *rb, const void *dev, size_t bytes);
/* Wait for the copy posted last (nothing to wait for when none was). */
int fe_readback_wait(struct fe_readback *rb);
/* The host's copy. */
void *fe_readback_host(const struct fe_readback *rb);

#ifdef __cplusplus
}
#endif

#endif
