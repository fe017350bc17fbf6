/* Checkpoints: enough state to continue a run with --restart and reach the
 * same result as an uninterrupted run (binary doubles, so bit for bit). */
#ifndef FE_CHECKPOINT_H
#define FE_CHECKPOINT_H

#include <stddef.h>

struct fe_checkpoint {
  char name[256];   /* case name */
  long n_nodes;
  long step;        /* last completed step */
  double time;
  int n_dumps;      /* dumps written so far */
  double *dump_times;
  double *field;    /* n_nodes values */
};

/* dir/NAME_checkpoint_NNNNNN.bin, written under a temporary name and renamed. */
int fe_checkpoint_write(const char *dir, const struct fe_checkpoint *cp, char *path, size_t size);
/* Read a checkpoint; FE_ERR_INPUT naming the file when it is not one. */
int fe_checkpoint_read(const char *path, struct fe_checkpoint *cp);
void fe_checkpoint_free(struct fe_checkpoint *cp);

#endif
