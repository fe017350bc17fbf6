#include "io/geo_check.h"

#include "core/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names as Gmsh 4.8's lexer (Parser/Gmsh.l) and its command rules
 * (Parser/Gmsh.y: `tSTRING StringExpr tEND` and friends) know them. */
static const struct {
  const char *name, *does;
} refused[] = {
    {"SystemCall", "runs a shell command"},
    {"System", "runs a shell command"},
    {"NonBlockingSystemCall", "runs a shell command"},
    {"OnelabRun", "runs a program"},
    {"OnelabAction", "drives ONELAB clients"},
    {"Plugin", "runs a Gmsh plugin, which may read and write files"},
    {"Save", "writes a file"},
    {"Print", "writes an image file"},
    {"CreateDir", "creates a directory"},
    {"DeleteFile", "deletes a file"},
    {"RenameFile", "renames a file"},
    {"Include", "reads another file"},
    {"Merge", "reads another file"},
    {"MergeWithBoundingBox", "reads another file"},
    {"ShapeFromFile", "reads a CAD file"},
    {"ListFromFile", "reads a file"},
    {"FileExists", "looks for files"},
    {"GetEnv", "reads the environment"},
    {"CurrentDir", "names fesim's folders"},
    {"CurrentDirectory", "names fesim's folders"},
    {"AbsolutePath", "names fesim's folders"},
    {"GmshExecutableName", "names programs"},
    {"Exit", "ends Gmsh"},
    {"Abort", "ends Gmsh"},
    {"Sleep", "pauses Gmsh"},
    {"RefineMesh", "meshes in the script"},
    {"OptimizeMesh", "meshes in the script"},
    {"AdaptMesh", "meshes in the script"},
    {"SetOrder", "meshes in the script"},
    {"PartitionMesh", "meshes in the script"},
    {"RelocateMesh", "meshes in the script"},
};

/* Option categories a meshing script has no use for (Solver names programs). */
static const char *const refused_categories[] = {"Solver", "Print", "PostProcessing", "View",
                                                 "Fltk"};
static const char *const option_categories[] = {"General", "Geometry", "Mesh"};
/* Functions whose value is a string. */
static const char *const string_functions[] = {
    "Sprintf",   "UpperCase",      "LowerCase",    "LowerCaseIn",  "NameToString", "N2S",
    "GetString", "GetStringValue", "GetForcedStr", "DefineString", "DirName",      "Today"};

enum kind { NAME, NUMBER, STRING, PUNCT, END };

struct token {
  enum kind kind;
  const char *s;
  size_t len;
  int line;
};

struct lexer {
  const char *path, *p, *end;
  int line;
};

static int is_name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int is_name_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int next(struct lexer *lx, struct token *t)
{
  for (;;) {
    while (lx->p < lx->end && isspace((unsigned char)*lx->p)) lx->line += *lx->p++ == '\n';
    if (lx->end - lx->p >= 2 && lx->p[0] == '/' && lx->p[1] == '/') {
      while (lx->p < lx->end && *lx->p != '\n') lx->p++;
      continue;
    }
    if (lx->end - lx->p >= 2 && lx->p[0] == '/' && lx->p[1] == '*') {
      const int start = lx->line;
      lx->p += 2;
      while (lx->end - lx->p >= 2 && !(lx->p[0] == '*' && lx->p[1] == '/'))
        lx->line += *lx->p++ == '\n';
      FE_CHECK(lx->end - lx->p >= 2, FE_ERR_INPUT,
               "%s:%d: a comment that starts here never ends; expected '*/'", lx->path, start);
      lx->p += 2;
      continue;
    }
    break;
  }
  t->s = lx->p;
  t->line = lx->line;
  if (lx->p == lx->end) {
    t->kind = END;
    t->len = 0;
    return FE_SUCCESS;
  }
  const char c = *lx->p;
  if (c == '"' || c == '\'') { /* Gmsh's strings have no escapes */
    lx->p++;
    while (lx->p < lx->end && *lx->p != c) lx->line += *lx->p++ == '\n';
    FE_CHECK(lx->p < lx->end, FE_ERR_INPUT,
             "%s:%d: a string that starts here never ends; expected a closing %c", lx->path,
             t->line, c);
    lx->p++;
    t->kind = STRING;
  } else if (is_name_start(c)) {
    while (lx->p < lx->end && is_name_char(*lx->p)) lx->p++;
    t->kind = NAME;
  } else if (isdigit((unsigned char)c) ||
             (c == '.' && lx->end - lx->p > 1 && isdigit((unsigned char)lx->p[1]))) {
    while (lx->p < lx->end && (isdigit((unsigned char)*lx->p) || *lx->p == '.')) lx->p++;
    const char *e = lx->p;
    if (e < lx->end && (*e == 'e' || *e == 'E')) { /* an exponent, as {exp} in Gmsh.l */
      e++;
      if (e < lx->end && (*e == '+' || *e == '-')) e++;
      if (e < lx->end && isdigit((unsigned char)*e)) {
        while (e < lx->end && isdigit((unsigned char)*e)) e++;
        lx->p = e;
      }
    }
    t->kind = NUMBER;
  } else {
    lx->p++;
    t->kind = PUNCT;
  }
  t->len = (size_t)(lx->p - t->s);
  return FE_SUCCESS;
}

static int is(const struct token *t, const char *s)
{
  return t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

static int in(const struct token *t, const char *const *list, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (is(t, list[i])) return 1;
  return 0;
}

#define IN(t, list) in((t), (list), sizeof(list) / sizeof *(list))

static int refuse(const struct lexer *lx, const struct token *t, const char *what, const char *does)
{
  return fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                        "%s:%d: '%.*s' %s: refused; expected a script that only builds geometry "
                        "(points, curves, surfaces, volumes, physical groups, Geometry., Mesh. "
                        "and General. options set to numbers)",
                        lx->path, t->line, (int)(what ? strlen(what) : t->len), what ? what : t->s,
                        does);
}

/* After Printf's argument list: '>' or '>>' redirects it into a file. */
static int check_printf(struct lexer *lx, const struct token *printf_token)
{
  struct token t;
  int depth = 0;
  do {
    FE_CALL(next(lx, &t));
    if (t.kind == PUNCT && *t.s == '(') depth++;
    if (t.kind == PUNCT && *t.s == ')') depth--;
  } while (t.kind != END && depth > 0 && !(t.kind == PUNCT && *t.s == ';'));
  FE_CALL(next(lx, &t));
  if (t.kind == PUNCT && *t.s == '>')
    return refuse(lx, printf_token, NULL, "writes into a file ('>')");
  return FE_SUCCESS;
}

/* A General., Geometry. or Mesh. option set to a string names a file or a
 * program: refused, up to the end of the statement. */
static int check_option(struct lexer *lx, const struct token *category)
{
  struct token t;
  const char *end_of_name = NULL;
  for (;;) {
    FE_CALL(next(lx, &t));
    if (t.kind == END || (t.kind == PUNCT && *t.s == ';')) return FE_SUCCESS;
    if (t.kind == PUNCT && *t.s == '=' && !end_of_name) end_of_name = t.s;
    if (end_of_name && (t.kind == STRING || IN(&t, string_functions) ||
                        (t.kind == NAME && t.len >= 3 && !memcmp(t.s, "Str", 3)))) {
      char name[128];
      size_t n = (size_t)(end_of_name - category->s);
      while (n > 0 && isspace((unsigned char)category->s[n - 1])) n--;
      snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1),
               category->s);
      return refuse(lx, category, name,
                    "is set to a string (string options name files and programs)");
    }
  }
}

int fe_geo_check_text(const char *path, const char *text, long len)
{
  struct lexer lx = {path, text, text + len, 1};
  const char *nul = memchr(text, '\0', (size_t)len);
  if (nul) {
    int line = 1;
    for (const char *s = text; s < nul; s++) line += *s == '\n';
    FE_RAISE(FE_ERR_INPUT, "%s:%d: a NUL byte; expected a Gmsh geometry script (text)", path, line);
  }
  struct token t, after;
  FE_CALL(next(&lx, &t));
  while (t.kind != END) {
    if (t.kind != NAME) {
      FE_CALL(next(&lx, &t));
      continue;
    }
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
      if (is(&t, refused[i].name)) return refuse(&lx, &t, NULL, refused[i].does);
    const struct lexer mark = lx;
    FE_CALL(next(&lx, &after));
    const int dot = after.kind == PUNCT && (*after.s == '.' || *after.s == '[');
    if (is(&t, "Mesh") && !dot)
      return refuse(&lx, &t, NULL, "meshes in the script (fesim meshes the geometry itself)");
    if (IN(&t, refused_categories) && dot) {
      return refuse(&lx, &t, NULL, "options are not for meshing");
    }
    if (is(&t, "Printf")) {
      lx = mark;
      FE_CALL(check_printf(&lx, &t));
    } else if (IN(&t, option_categories) && dot) {
      FE_CALL(check_option(&lx, &t));
    } else {
      t = after; /* not consumed: it is looked at in turn */
      continue;
    }
    FE_CALL(next(&lx, &t));
  }
  return FE_SUCCESS;
}

int fe_geo_check(const char *path, const char *shown)
{
  FILE *f = fopen(path, "rb");
  FE_CHECK(f, FE_ERR_INPUT, "mesh '%s' cannot be read: %s", shown, strerror(errno));
  char *text = NULL;
  int err = fe_malloc(FE_GEO_MAX_BYTES + 1, &text);
  const size_t n = err ? 0 : fread(text, 1, FE_GEO_MAX_BYTES + 1, f);
  fclose(f);
  if (!err && n > (size_t)FE_GEO_MAX_BYTES)
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                         "%s: larger than %ld MiB; expected a geometry script (a mesh this large "
                         "belongs in a .msh file)",
                         shown, FE_GEO_MAX_BYTES >> 20);
  if (!err) err = fe_geo_check_text(shown, text, (long)n);
  free(text);
  return err;
}
