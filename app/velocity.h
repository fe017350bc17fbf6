/* The run's velocity u(t) at the nodes: the case's expressions (app/fields.c on
 * the host, their programs on the backend), or snapshots
 * read from files (io/snapshot.h) and interpolated linearly in time between
 * the two whose times bracket t, held at the first snapshot before its time
 * and at the last after it.  The backend holds at most two snapshots, loaded
 * from the files as t moves into a new interval, and interpolates there
 * (axpby); the host does the same from its own copies of the same two, for
 * the dumps, --check and messages.  The one source of u(t) of a run: the
 * scheme, the Courant number, --check and the dumps all ask it. */
#ifndef FE_VELOCITY_H
#define FE_VELOCITY_H

#include <stddef.h>

#include "app/distribution.h"
#include "assembly/space.h"
#include "io/case.h"
#include "solvers/vec.h"

struct fe_velocity;

/* For a case with a velocity (fe_case_has_velocity).  With files, each is read and checked
 * against the mesh once, now (FE_ERR_INPUT naming the file), and a note on stderr (verbosity >
 * 0) says where the run's time span goes beyond the snapshots'. */
int fe_velocity_create(const struct fe_case *c, const struct fe_mesh *m,
                       const struct fe_backend *be, int verbosity, struct fe_velocity **v);
/* On several processes, every process together: u at the nodes of this process's part,
 * dist->part.  Process 0 reads the files and matches them to the whole mesh, dist->whole (its
 * faults every process's error, said there), and hands each process its part's values
 * (fe_distribution_scatter), at the start and whenever t enters a new interval. */
int fe_velocity_create_part(const struct fe_case *c, const struct fe_distribution *dist,
                            const struct fe_backend *be, int verbosity, struct fe_velocity **v);
void fe_velocity_destroy(struct fe_velocity *v);

/* Whether u changes in time: an expression of t, or more than one snapshot. */
int fe_velocity_time_dependent(const struct fe_velocity *v);

/* out = u(t) on the host: n_nodes * dim values of its mesh (the part's on several processes).
 * With files, every process calls it at the same t (the snapshots may be read). */
int fe_velocity_host(struct fe_velocity *v, double t, double *out);
/* out = u(t) on the host at the whole mesh's nodes: the checks of the start, which process 0
 * makes on the whole mesh.  Every process calls it (with files, the snapshots may be read);
 * out is written on process 0 (the one process), where it is not NULL. */
int fe_velocity_host_whole(struct fe_velocity *v, double t, double *out);

/* out = u(t) on the backend: n_nodes * dim entries; expressions are evaluated at the nodes of
 * space (a space of the mesh on the velocity's backend; unread with files).  A snapshot file
 * read again that no longer holds what it held at the start is FE_ERR_INPUT. */
int fe_velocity_at(struct fe_velocity *v, const struct fe_space *space, double t,
                   struct fe_vec *out);

/* What u is, for --check: "expressions" or the files, their times and field. */
void fe_velocity_describe(const struct fe_velocity *v, char *buf, size_t size);

#endif
