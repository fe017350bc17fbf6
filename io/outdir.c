#define _DEFAULT_SOURCE /* flock */
#include "io/outdir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

static int vprint(char **out, const char *fmt, va_list ap)
{
  va_list again;
  va_copy(again, ap);
  const int n = vsnprintf(NULL, 0, fmt, ap);
  int err = n < 0 ? fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__, "cannot format a file name")
                  : fe_malloc((size_t)n + 1, out);
  if (!err) vsnprintf(*out, (size_t)n + 1, fmt, again);
  va_end(again);
  return err;
}

int fe_path_printf(char **out, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  const int err = vprint(out, fmt, ap);
  va_end(ap);
  return err;
}

int fe_outdir_path(const char *dir, char **out, const char *fmt, ...)
{
  char *file;
  va_list ap;
  va_start(ap, fmt);
  int err = vprint(&file, fmt, ap);
  va_end(ap);
  FE_CALL(err);
  err = dir && dir[0] ? fe_path_printf(out, "%s/%s", dir, file) : fe_path_printf(out, "%s", file);
  free(file);
  return err;
}

int fe_outdir_tmp_path(const char *path, char **tmp)
{
  return fe_path_printf(tmp, "%s" FE_TMP_INFIX "%ld", path, (long)getpid());
}

static int write_all(int fd, const unsigned char *p, size_t size)
{
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    p += n;
    size -= (size_t)n;
  }
  return 0;
}

int fe_outdir_write_file(const char *path, const void *data, size_t size, int sync)
{
  char *tmp;
  FE_CALL(fe_outdir_tmp_path(path, &tmp));
  int e = 0;
  const int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) e = errno;
  if (!e) e = write_all(fd, data, size);
  if (!e && sync && fsync(fd) != 0) e = errno;
  if (fd >= 0 && close(fd) != 0 && !e) e = errno;
  if (!e && rename(tmp, path) != 0) e = errno;
  if (e) unlink(tmp);
  free(tmp);
  char q[FE_QUOTE_SIZE];
  FE_CHECK(!e, FE_ERR_RESOURCE, "cannot write %s: %s", fe_quote(path, FE_QUOTE_MAX, q, sizeof q),
           strerror(e));
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- limits */

/* pathconf's answer, LONG_MAX for "no limit"; -1 when path cannot be asked. */
static long limit_of(const char *path, int name)
{
  errno = 0;
  const long v = pathconf(path, name);
  if (v >= 0) return v;
  return errno ? -1 : LONG_MAX;
}

/* p becomes its parent directory ("a/b" -> "a" -> "."; "/a" -> "/"); 0 at "." or "/". */
static int to_parent(char *p)
{
  size_t len = strlen(p);
  while (len > 1 && p[len - 1] == '/') p[--len] = '\0';
  char *slash = strrchr(p, '/');
  if (!slash) {
    if (!strcmp(p, ".")) return 0;
    strcpy(p, "."); /* p holds at least two bytes */
    return 1;
  }
  if (slash == p) {
    if (!p[1]) return 0;
    p[1] = '\0';
    return 1;
  }
  *slash = '\0';
  return 1;
}

void fe_outdir_limits(const char *dir, long *name_max, long *path_max)
{
  char *p = NULL;
  *name_max = *path_max = LONG_MAX;
  if (fe_strdup(dir && dir[0] ? dir : ".", &p)) return;
  while (limit_of(p, _PC_NAME_MAX) < 0 && to_parent(p)) continue;
  const long n = limit_of(p, _PC_NAME_MAX), m = limit_of(p, _PC_PATH_MAX);
  if (n >= 0) *name_max = n;
  if (m >= 0) *path_max = m;
  free(p);
}

/* The first component of dir longer than name_max, as an allocated copy, or NULL. */
static int long_component(const char *dir, long name_max, char **found)
{
  *found = NULL;
  for (const char *s = dir; *s;) {
    const size_t len = strcspn(s, "/");
    if ((long)len > name_max) {
      FE_CALL(fe_malloc(len + 1, found));
      memcpy(*found, s, len);
      (*found)[len] = '\0';
      return FE_SUCCESS;
    }
    s += len;
    s += *s == '/';
  }
  return FE_SUCCESS;
}

int fe_outdir_check_name(const char *dir, const char *name, long name_max, long path_max,
                         const char *source)
{
  char q[FE_QUOTE_SIZE], q2[FE_QUOTE_SIZE], *component, *path;
  const size_t len = strlen(name);
  FE_CHECK((long)len <= name_max, FE_ERR_INPUT,
           "output file name %s is too long: %zu bytes, where the file system of the output "
           "directory %s allows %ld (NAME_MAX); expected a shorter %s",
           fe_quote(name, FE_QUOTE_MAX, q, sizeof q), len,
           fe_quote(dir && dir[0] ? dir : ".", FE_QUOTE_MAX, q2, sizeof q2), name_max, source);
  FE_CALL(fe_outdir_path(dir, &path, "%s", name));
  const size_t path_len = strlen(path);
  if (path_max != LONG_MAX && (long)path_len >= path_max) {
    fe_quote(path, FE_QUOTE_MAX, q, sizeof q);
    free(path);
    FE_RAISE(FE_ERR_INPUT,
             "output path %s is too long: %zu bytes, where the file system allows %ld (PATH_MAX, "
             "the terminating zero included); expected a shorter output directory or %s",
             q, path_len, path_max, source);
  }
  free(path);
  if (!dir || !dir[0]) return FE_SUCCESS;
  FE_CALL(long_component(dir, name_max, &component));
  if (!component) return FE_SUCCESS;
  const size_t clen = strlen(component);
  fe_quote(component, FE_QUOTE_MAX, q, sizeof q);
  free(component);
  FE_RAISE(FE_ERR_INPUT,
           "output directory %s: its part %s is too long: %zu bytes, where the file system "
           "allows %ld (NAME_MAX); expected shorter directory names",
           fe_quote(dir, FE_QUOTE_MAX, q2, sizeof q2), q, clen, name_max);
}

/* ---------------------------------------------------------------- lock */

struct fe_outdir_lock {
  int fd;
  char *path;
};

/* The lock file's line "KEY VALUE" (pid, case) into buf; "" when absent. */
static void holder_line(const char *text, const char *key, char *buf, size_t size)
{
  buf[0] = '\0';
  const size_t k = strlen(key);
  for (const char *line = text; line && *line;
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
    if (!strncmp(line, key, k) && line[k] == ' ') {
      snprintf(buf, size, "%.*s", (int)strcspn(line + k + 1, "\n"), line + k + 1);
      return;
    }
}

static int held_by_other(const struct fe_outdir_lock *l, const char *dir)
{
  char text[8192], pid[32], path[8192], holder[FE_QUOTE_SIZE + 64];
  char q[FE_QUOTE_SIZE], qp[FE_QUOTE_SIZE], ql[FE_QUOTE_SIZE];
  const ssize_t n = pread(l->fd, text, sizeof text - 1, 0);
  text[n > 0 ? n : 0] = '\0';
  holder_line(text, "pid", pid, sizeof pid);
  holder_line(text, "case", path, sizeof path);
  if (pid[0])
    snprintf(holder, sizeof holder, "pid %s, case %s", pid,
             fe_quote(path, FE_QUOTE_MAX, qp, sizeof qp));
  else
    snprintf(holder, sizeof holder, "a run that is starting");
  FE_RAISE(FE_ERR_INPUT,
           "output directory %s is in use by another fesim run (%s; lock %s): two runs would mix "
           "their outputs; wait for it to end, or use --output for another directory",
           fe_quote(dir && dir[0] ? dir : ".", FE_QUOTE_MAX, q, sizeof q), holder,
           fe_quote(l->path, FE_QUOTE_MAX, ql, sizeof ql));
}

/* Open and lock dir/fesim.lock; 1 in *again when the file we locked was
 * removed by its previous holder in the meantime (lock the new one). */
static int try_lock(struct fe_outdir_lock *l, const char *dir, int *again)
{
  char q[FE_QUOTE_SIZE];
  *again = 0;
  l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  FE_CHECK(l->fd >= 0, FE_ERR_RESOURCE, "cannot create the lock file %s: %s",
           fe_quote(l->path, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
  while (flock(l->fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) return held_by_other(l, dir);
    FE_RAISE(FE_ERR_RESOURCE, "cannot lock %s: %s", fe_quote(l->path, FE_QUOTE_MAX, q, sizeof q),
             strerror(errno));
  }
  struct stat mine, named;
  *again = fstat(l->fd, &mine) != 0 || stat(l->path, &named) != 0 || mine.st_ino != named.st_ino ||
           mine.st_dev != named.st_dev;
  return FE_SUCCESS;
}

static int write_holder(const struct fe_outdir_lock *l, const char *case_path)
{
  char q[FE_QUOTE_SIZE], *text;
  FE_CALL(fe_path_printf(&text, "pid %ld\ncase %s\n", (long)getpid(), case_path));
  const size_t n = strlen(text);
  const int ok = ftruncate(l->fd, 0) == 0 && pwrite(l->fd, text, n, 0) == (ssize_t)n;
  free(text);
  FE_CHECK(ok, FE_ERR_RESOURCE, "cannot write the lock file %s: %s",
           fe_quote(l->path, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
  return FE_SUCCESS;
}

int fe_outdir_lock(const char *dir, const char *case_path, struct fe_outdir_lock **out)
{
  struct fe_outdir_lock *l;
  *out = NULL;
  FE_CALLOC(1, &l);
  l->fd = -1;
  int err = fe_outdir_path(dir, &l->path, FE_LOCK_FILE), again = 1;
  for (int tries = 0; !err && again && tries < 100; tries++) {
    if (l->fd >= 0) close(l->fd);
    err = try_lock(l, dir, &again);
  }
  if (!err && again)
    err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__,
                         "cannot lock %s: it keeps being replaced", l->path);
  if (!err) err = write_holder(l, case_path);
  if (err) {
    if (l->fd >= 0) close(l->fd);
    free(l->path);
    free(l);
    return err;
  }
  *out = l;
  return FE_SUCCESS;
}

void fe_outdir_unlock(struct fe_outdir_lock *l)
{
  if (!l) return;
  unlink(l->path); /* a run waiting on this file finds it replaced and locks a new one */
  close(l->fd);
  free(l->path);
  free(l);
}

/* ---------------------------------------------------------------- temporaries */

/* BASE.fesim-tmp.DIGITS, BASE non-empty and of base-name characters. */
static int is_temporary(const char *name)
{
  const char *infix = strstr(name, FE_TMP_INFIX);
  if (!infix || infix == name) return 0;
  for (const char *s = name; s < infix; s++)
    if (!isalnum((unsigned char)*s) && !strchr("_-.", *s)) return 0;
  const char *digits = infix + strlen(FE_TMP_INFIX);
  if (!*digits || strlen(digits) > 10) return 0;
  for (const char *s = digits; *s; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

int fe_outdir_remove_temporaries(const char *dir, long *removed)
{
  char q[FE_QUOTE_SIZE];
  const char *d = dir && dir[0] ? dir : ".";
  *removed = 0;
  DIR *h = opendir(d);
  FE_CHECK(h, FE_ERR_RESOURCE, "cannot list the output directory %s: %s",
           fe_quote(d, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
  int err = FE_SUCCESS;
  for (struct dirent *e; !err && (e = readdir(h));) {
    struct stat st;
    if (!is_temporary(e->d_name) || fstatat(dirfd(h), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    if (unlinkat(dirfd(h), e->d_name, 0) == 0)
      ++*removed;
    else if (errno != ENOENT)
      err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__,
                           "cannot remove the temporary file %s/%s left by an earlier run: %s",
                           fe_quote(d, FE_QUOTE_MAX, q, sizeof q), e->d_name, strerror(errno));
  }
  closedir(h);
  return err;
}
