#include "io/checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

static const char magic[16] = "fesim-ckpt-v1\n";

int fe_checkpoint_write(const char *dir, const struct fe_checkpoint *cp, char *path, size_t size)
{
  char tmp[4200];
  snprintf(path, size, "%s/%s_checkpoint_%06ld.bin", dir, cp->name, cp->step);
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  FE_CHECK(f, FE_ERR_RESOURCE, "cannot write checkpoint '%s': %s", tmp, strerror(errno));
  int ok = fwrite(magic, sizeof magic, 1, f) == 1 && fwrite(cp->name, sizeof cp->name, 1, f) == 1 &&
           fwrite(&cp->n_nodes, sizeof cp->n_nodes, 1, f) == 1 &&
           fwrite(&cp->step, sizeof cp->step, 1, f) == 1 &&
           fwrite(&cp->time, sizeof cp->time, 1, f) == 1 &&
           fwrite(&cp->n_dumps, sizeof cp->n_dumps, 1, f) == 1 &&
           fwrite(cp->dump_times, sizeof(double), (size_t)cp->n_dumps, f) == (size_t)cp->n_dumps &&
           fwrite(cp->field, sizeof(double), (size_t)cp->n_nodes, f) == (size_t)cp->n_nodes;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    int e = errno;
    remove(tmp);
    FE_RAISE(FE_ERR_RESOURCE, "cannot write checkpoint '%s': %s", path, strerror(e));
  }
  return FE_SUCCESS;
}

int fe_checkpoint_read(const char *path, struct fe_checkpoint *cp)
{
  memset(cp, 0, sizeof *cp);
  FILE *f = fopen(path, "rb");
  FE_CHECK(f, FE_ERR_INPUT, "cannot open checkpoint '%s': %s", path, strerror(errno));
  char m[sizeof magic];
  int ok = fread(m, sizeof m, 1, f) == 1 && !memcmp(m, magic, sizeof m) &&
           fread(cp->name, sizeof cp->name, 1, f) == 1 &&
           fread(&cp->n_nodes, sizeof cp->n_nodes, 1, f) == 1 &&
           fread(&cp->step, sizeof cp->step, 1, f) == 1 &&
           fread(&cp->time, sizeof cp->time, 1, f) == 1 &&
           fread(&cp->n_dumps, sizeof cp->n_dumps, 1, f) == 1 && cp->n_nodes > 0 &&
           cp->n_nodes < (1L << 40) && cp->n_dumps >= 0 && cp->n_dumps < (1 << 30) && cp->step >= 0;
  cp->name[sizeof cp->name - 1] = 0;
  if (ok) {
    cp->dump_times = malloc(((size_t)cp->n_dumps + 1) * sizeof(double));
    cp->field = malloc((size_t)cp->n_nodes * sizeof(double));
    ok = cp->dump_times && cp->field &&
         fread(cp->dump_times, sizeof(double), (size_t)cp->n_dumps, f) == (size_t)cp->n_dumps &&
         fread(cp->field, sizeof(double), (size_t)cp->n_nodes, f) == (size_t)cp->n_nodes &&
         fgetc(f) == EOF;
  }
  fclose(f);
  if (!ok) {
    fe_checkpoint_free(cp);
    FE_RAISE(FE_ERR_INPUT, "'%s' is not a complete fesim checkpoint; expected a file written by fesim "
             "(NAME_checkpoint_NNNNNN.bin)", path);
  }
  return FE_SUCCESS;
}

void fe_checkpoint_free(struct fe_checkpoint *cp)
{
  free(cp->dump_times);
  free(cp->field);
  cp->dump_times = cp->field = NULL;
}
