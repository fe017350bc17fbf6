/* Input files read whole: checkpoints and velocity snapshots.  A path that
 * names a FIFO, a device or a directory is refused at once, without waiting on
 * it, and so is a file that changes into one while it is opened. */
#ifndef FE_FILE_H
#define FE_FILE_H

#include <stddef.h>

/* FE_ERR_INPUT unless path names a regular file; `what` names it in the
 * message ("checkpoint", "velocity file"), `expected` says what it should be. */
int fe_file_check_regular(const char *path, const char *what, const char *expected);

/* The file opened for reading (without blocking) and its size; *fd to close. */
int fe_file_open(const char *path, const char *what, const char *expected, int *fd, size_t *size);

/* The size bytes of the open file fd, in *bytes (malloc'ed, one byte more, set to 0, so that
 * text can be scanned as a string); *got the bytes read (fewer when the file shrank). */
int fe_file_read_open(int fd, const char *path, const char *what, size_t size,
                      unsigned char **bytes, size_t *got);

/* fe_file_open and fe_file_read_open of a whole file of any size. */
int fe_file_read(const char *path, const char *what, const char *expected, unsigned char **bytes,
                 size_t *size);

#endif
