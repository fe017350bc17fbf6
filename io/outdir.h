/* The output directory of a run (docs/case-format.md, "Outputs"): the paths of
 * its files, written whole through temporaries, the file system's limits on
 * their names, the lock that keeps a second run out, and the temporaries a
 * killed run left behind.
 *
 * Every file but the .stat file is written as FINAL.fesim-tmp.PID in the same
 * directory and renamed over FINAL, so that a reader never sees part of it. */
#ifndef FE_OUTDIR_H
#define FE_OUTDIR_H

#include <stddef.h>

#define FE_TMP_INFIX ".fesim-tmp." /* FINAL.fesim-tmp.PID */
#define FE_LOCK_FILE "fesim.lock"

/* *out = the formatted string, allocated (never cut). */
int fe_path_printf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* *out = "dir/FILE" (just FILE when dir is NULL or empty), FILE formatted. */
int fe_outdir_path(const char *dir, char **out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* *tmp = path's temporary name for this process. */
int fe_outdir_tmp_path(const char *path, char **tmp);

/* Write `size` bytes to `path` through its temporary, renamed over path; with
 * `sync`, flushed to the disk first (checkpoints).  FE_ERR_RESOURCE naming
 * the path, and no temporary left, when it cannot. */
int fe_outdir_write_file(const char *path, const void *data, size_t size, int sync);

/* NAME_MAX and PATH_MAX of the file system that holds (or will hold) dir:
 * pathconf of dir, or of its first existing ancestor; LONG_MAX when the
 * system sets none. */
void fe_outdir_limits(const char *dir, long *name_max, long *path_max);
/* FE_ERR_INPUT when dir/name would not fit those limits, or when a directory
 * in dir has a name too long to create.  `source` says where the name comes
 * from ("<name> (case.xml)"), for the message. */
int fe_outdir_check_name(const char *dir, const char *name, long name_max, long path_max,
                         const char *source);

/* The run's lock on dir: flock on dir/fesim.lock, which names the holder
 * ("pid N" and "case PATH" lines) while the run lasts; the kernel releases it
 * when the run dies.  FE_ERR_INPUT, naming the holder, when another run holds it. */
struct fe_outdir_lock;
int fe_outdir_lock(const char *dir, const char *case_path, struct fe_outdir_lock **lock);
/* Remove the lock file (still holding the lock) and release it; NULL is fine. */
void fe_outdir_unlock(struct fe_outdir_lock *lock);

/* Remove dir's files named by fesim's temporary pattern (BASE.fesim-tmp.PID,
 * BASE of letters, digits, '_', '-', '.'): left by a killed run; call it
 * while holding the lock, when no run can be writing them.  *removed counts. */
int fe_outdir_remove_temporaries(const char *dir, long *removed);

#endif
