#include "io/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

static const char *file_kind(mode_t mode)
{
  return S_ISDIR(mode)    ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

int fe_file_check_regular(const char *path, const char *what, const char *expected)
{
  char q[FE_QUOTE_SIZE];
  struct stat st;
  fe_quote(path, FE_QUOTE_MAX, q, sizeof q);
  FE_CHECK(stat(path, &st) == 0, FE_ERR_INPUT, "cannot open %s %s: %s", what, q, strerror(errno));
  FE_CHECK(S_ISREG(st.st_mode), FE_ERR_INPUT, "%s %s is %s; expected %s", what, q,
           file_kind(st.st_mode), expected);
  return FE_SUCCESS;
}

int fe_file_open(const char *path, const char *what, const char *expected, int *fd, size_t *size)
{
  char q[FE_QUOTE_SIZE];
  struct stat st;
  FE_CALL(fe_file_check_regular(path, what, expected));
  fe_quote(path, FE_QUOTE_MAX, q, sizeof q);
  *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  FE_CHECK(*fd >= 0, FE_ERR_INPUT, "cannot open %s %s: %s", what, q, strerror(errno));
  if (fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size < SIZE_MAX) {
    *size = (size_t)st.st_size;
    return FE_SUCCESS;
  }
  close(*fd);
  *fd = -1;
  FE_RAISE(FE_ERR_INPUT, "%s %s changed into %s while it was opened", what, q,
           file_kind(st.st_mode));
}

int fe_file_read_open(int fd, const char *path, const char *what, size_t size,
                      unsigned char **bytes, size_t *got)
{
  char q[FE_QUOTE_SIZE];
  *got = 0;
  FE_CALL(fe_malloc(size + 1, bytes));
  while (*got < size) {
    const ssize_t n = read(fd, *bytes + *got, size - *got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      free(*bytes);
      *bytes = NULL;
      FE_RAISE(FE_ERR_INPUT, "cannot read %s %s: %s", what,
               fe_quote(path, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
    }
    if (n == 0) break; /* shorter than it was */
    *got += (size_t)n;
  }
  (*bytes)[*got] = 0;
  return FE_SUCCESS;
}

int fe_file_read(const char *path, const char *what, const char *expected, unsigned char **bytes,
                 size_t *size)
{
  int fd;
  size_t n;
  FE_CALL(fe_file_open(path, what, expected, &fd, &n));
  const int err = fe_file_read_open(fd, path, what, n, bytes, size);
  close(fd);
  return err;
}
