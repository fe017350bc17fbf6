/* Error codes, reporting and propagation.
 *
 * Every fallible function returns one of enum fe_error.  FE_CHECK reports a
 * user-facing error once, where it is detected, and returns its code; FE_CALL
 * propagates a code upwards without printing again.  The codes are the exit
 * codes of the fesim command (docs/case-format.md). */
#ifndef FE_ERROR_H
#define FE_ERROR_H

#include <stdarg.h>
#include <stddef.h>


#ifdef __cplusplus
extern "C" {
#endif

enum fe_error {
  FE_SUCCESS = 0,
  FE_ERR_USAGE = 1,     /* bad command line */
  FE_ERR_INPUT = 2,     /* invalid case file, mesh or expression */
  FE_ERR_NUMERICAL = 3, /* solver did not converge, non-finite values */
  FE_ERR_RESOURCE = 4,  /* no GPU, out of memory, cannot write a file */
  FE_ERR_INTERRUPTED = 5 /* stopped by a signal; exit 128 + signal */
};

/* Print "fesim: error: <message>" to stderr and return code.  In a debug
 * build (or with FESIM_TRACE set) the C source location is appended. */
int fe_error_raise(int code, const char *src_file, int src_line, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));

/* Print "fesim: warning: <message>" to stderr. */
void fe_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Silence fe_error_raise (used while probing, e.g. a CUDA device for `auto`). */
void fe_error_set_quiet(int quiet);

#define FE_CHECK(cond, code, ...)                                              \
  do {                                                                         \
    if (!(cond)) return fe_error_raise((code), __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

#define FE_RAISE(code, ...) return fe_error_raise((code), __FILE__, __LINE__, __VA_ARGS__)

#define FE_CALL(expr)                                                          \
  do {                                                                         \
    int fe_call_err_ = (expr);                                                 \
    if (fe_call_err_ != FE_SUCCESS) return fe_call_err_;                       \
  } while (0)

/* A user-supplied string (an expression, a path) quoted for a message: 'text'
 * when it has at most `max` characters (bytes), else its start and end around
 * "..." and its length, "'x + x + ... + x' (400000 characters)", so that a
 * message stays readable and still states its reason.  Control characters
 * show as '?'; cuts fall between UTF-8 characters.  Written to buf (size at
 * least max + 40), which is returned. */
const char *fe_quote(const char *s, size_t max, char *buf, size_t size);
#define FE_QUOTE_MAX 120 /* the usual max */
#define FE_QUOTE_SIZE (FE_QUOTE_MAX + 48)

/* A path as messages show it, unquoted: itself, or cut by fe_quote when
 * longer than FE_QUOTE_MAX (buf of FE_QUOTE_SIZE bytes). */
const char *fe_path_shown(const char *path, char *buf, size_t size);

/* Allocation that reports the bytes it could not get. */
int fe_malloc(size_t bytes, void *ptr_to_ptr);
int fe_calloc(size_t count, size_t size, void *ptr_to_ptr);
int fe_strdup(const char *s, char **out);
#define FE_MALLOC(n, ptr) FE_CALL(fe_malloc((size_t)(n) * sizeof(**(ptr)), (ptr)))
#define FE_CALLOC(n, ptr) FE_CALL(fe_calloc((size_t)(n), sizeof(**(ptr)), (ptr)))

#ifdef __cplusplus
}
#endif

#endif
