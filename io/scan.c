#include "io/scan.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

void fe_scan_init(struct fe_scan *s, const unsigned char *bytes, size_t size)
{
  s->p = bytes;
  s->end = bytes + size;
  s->line = 1;
}

int fe_scan_line(struct fe_scan *s, char *buf, size_t size)
{
  if (s->p >= s->end) return 0;
  size_t n = 0;
  while (s->p < s->end && *s->p != '\n') {
    if (n + 1 < size) buf[n++] = (char)*s->p;
    s->p++;
  }
  if (s->p < s->end) { /* past the '\n' */
    s->p++;
    s->line++;
  }
  while (n && (buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t')) n--;
  buf[n] = '\0';
  return 1;
}

int fe_scan_nonblank_line(struct fe_scan *s, char *buf, size_t size)
{
  while (fe_scan_line(s, buf, size)) {
    const char *c = buf;
    while (*c == ' ' || *c == '\t') c++;
    if (*c) return 1;
  }
  return 0;
}

int fe_scan_token(struct fe_scan *s, char *buf, size_t size)
{
  while (s->p < s->end && isspace(*s->p)) s->line += *s->p++ == '\n';
  if (s->p >= s->end) return 0;
  size_t n = 0;
  int whole = 1;
  while (s->p < s->end && !isspace(*s->p)) {
    if (n + 1 < size && *s->p)
      buf[n++] = (char)*s->p;
    else
      whole = 0;
    s->p++;
  }
  buf[n] = '\0';
  return whole ? 1 : -1;
}

int fe_scan_double(struct fe_scan *s, double *v)
{
  char tok[128], *end;
  if (fe_scan_token(s, tok, sizeof tok) != 1) return 0;
  *v = strtod(tok, &end);
  return end != tok && !*end;
}

int fe_scan_size(struct fe_scan *s, size_t *v)
{
  char tok[64], *end;
  if (fe_scan_token(s, tok, sizeof tok) != 1 || !isdigit((unsigned char)tok[0])) return 0;
  errno = 0;
  const unsigned long long x = strtoull(tok, &end, 10);
  if (*end || errno || x > SIZE_MAX) return 0;
  *v = (size_t)x;
  return 1;
}

const unsigned char *fe_scan_bytes(struct fe_scan *s, size_t n)
{
  if ((size_t)(s->end - s->p) < n) return NULL;
  const unsigned char *at = s->p;
  s->p += n; /* binary: its bytes are no lines */
  return at;
}

int fe_scan_is(const char *word, const char *name) { return !strcasecmp(word, name); }
