#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int quiet_errors; /* the only mutable global: a probe's silence switch */

void fe_error_set_quiet(int quiet) { quiet_errors = quiet; }

int fe_error_raise(int code, const char *src_file, int src_line, const char *fmt, ...)
{
  if (quiet_errors) return code;
  va_list ap;
  va_start(ap, fmt);
  fputs("fesim: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (getenv("FESIM_TRACE")) fprintf(stderr, " [%s:%d]", src_file, src_line);
  fputc('\n', stderr);
  return code;
}

void fe_warn(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("fesim: warning: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

int fe_malloc(size_t bytes, void *ptr_to_ptr)
{
  void *p = bytes ? malloc(bytes) : NULL;
  FE_CHECK(p || !bytes, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu bytes", bytes);
  memcpy(ptr_to_ptr, &p, sizeof p);
  return FE_SUCCESS;
}

int fe_calloc(size_t count, size_t size, void *ptr_to_ptr)
{
  void *p = count && size ? calloc(count, size) : NULL;
  FE_CHECK(p || !count || !size, FE_ERR_RESOURCE,
           "out of host memory: could not allocate %zu bytes", count * size);
  memcpy(ptr_to_ptr, &p, sizeof p);
  return FE_SUCCESS;
}

int fe_strdup(const char *s, char **out)
{
  size_t n = strlen(s) + 1;
  FE_CALL(fe_malloc(n, out));
  memcpy(*out, s, n);
  return FE_SUCCESS;
}

/* n bytes of s into out, control characters as '?'. */
static size_t copy_printable(char *out, const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++) out[i] = (unsigned char)s[i] < 32 || s[i] == 127 ? '?' : s[i];
  return n;
}

static int utf8_continuation(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

const char *fe_quote(const char *s, size_t max, char *buf, size_t size)
{
  const size_t len = strlen(s);
  if (size < max + 40) max = size > 40 ? size - 40 : 0;
  char *w = buf;
  *w++ = '\'';
  if (len <= max) {
    w += copy_printable(w, s, len);
    *w++ = '\'';
    *w = '\0';
    return buf;
  }
  size_t head = max / 2, tail = max - head - 3;
  while (head > 0 && utf8_continuation(s[head])) head--;
  size_t from = len - tail;
  while (from < len && utf8_continuation(s[from])) from++;
  w += copy_printable(w, s, head);
  memcpy(w, "...", 3);
  w += 3;
  w += copy_printable(w, s + from, len - from);
  snprintf(w, size - (size_t)(w - buf), "' (%zu characters)", len);
  return buf;
}

const char *fe_path_shown(const char *path, char *buf, size_t size)
{
  return strlen(path) <= FE_QUOTE_MAX ? path : fe_quote(path, FE_QUOTE_MAX, buf, size);
}
