/* A cursor over a file read into memory (io/file.h), for the readers of text
 * and mixed text-and-binary formats (legacy VTK, Gmsh's $NodeData): lines,
 * blank-separated tokens, numbers and raw bytes, with the line number of the
 * position for messages.  Nothing is read past the end of the buffer. */
#ifndef FE_SCAN_H
#define FE_SCAN_H

#include <stddef.h>

struct fe_scan {
  const unsigned char *p, *end; /* the position and the end of the buffer */
  long line;                    /* the line of p, from 1 */
};

void fe_scan_init(struct fe_scan *s, const unsigned char *bytes, size_t size);

/* The next line (its end, and the blanks and carriage return before it, dropped) into buf, a
 * longer line cut at size - 1 bytes: 1, or 0 at the end of the buffer. */
int fe_scan_line(struct fe_scan *s, char *buf, size_t size);

/* The next non-blank line, as fe_scan_line. */
int fe_scan_nonblank_line(struct fe_scan *s, char *buf, size_t size);

/* The next blank-separated token: 1; 0 at the end of the buffer; -1 when it is longer than
 * size - 1 bytes or holds a NUL byte (buf then holds its start). */
int fe_scan_token(struct fe_scan *s, char *buf, size_t size);

/* The next token as a double (the whole token a number, as strtod reads it; not checked
 * finite) or as an integer >= 0: 1, or 0 when it is absent or not such a number. */
int fe_scan_double(struct fe_scan *s, double *v);
int fe_scan_size(struct fe_scan *s, size_t *v);

/* The next n bytes, as they are, and past them (binary data: no lines counted): NULL when
 * fewer remain. */
const unsigned char *fe_scan_bytes(struct fe_scan *s, size_t n);

/* Whether the word (of a line or token) is `name`, in any case. */
int fe_scan_is(const char *word, const char *name);

#endif
