#include "io/xml.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

#if LIBXML_VERSION >= 21200
void fe_xml_keep_first(void *data, const xmlError *e)
#else
void fe_xml_keep_first(void *data, xmlErrorPtr e)
#endif
{
  struct fe_xml_error *s = data;
  if (s->have || e->level < XML_ERR_ERROR) return;
  s->have = 1;
  s->line = e->line;
  s->node = e->node;
  snprintf(s->msg, sizeof s->msg, "%s", e->message ? e->message : "unknown error");
}

static void ignore_generic(void *ctx, const char *msg, ...)
{
  (void)ctx;
  (void)msg;
}

void fe_xml_quiet_begin(struct fe_xml_quiet *q, struct fe_xml_error *err)
{
  q->generic = xmlGenericError;
  q->generic_ctx = xmlGenericErrorContext;
  q->structured = xmlStructuredError;
  q->structured_ctx = xmlStructuredErrorContext;
  xmlSetGenericErrorFunc(NULL, ignore_generic);
  xmlSetStructuredErrorFunc(err, fe_xml_keep_first);
}

void fe_xml_quiet_end(const struct fe_xml_quiet *q)
{
  xmlSetStructuredErrorFunc(q->structured_ctx, q->structured);
  xmlSetGenericErrorFunc(q->generic_ctx, q->generic);
}

void fe_xml_tidy(char *msg)
{
  static const char *const replace[][2] = {
      {"a valid value of the atomic type 'xs:double'", "a number"},
      {"a valid value of the atomic type 'xs:integer'", "an integer"},
      {"is not an element of the set", "is not one of"},
  };
  char *w = msg;
  for (const char *s = msg; *s; s++) {
    if (*s == '[' && !strncmp(s, "[facet '", 8) && strstr(s, "] ")) {
      s = strstr(s, "] ") + 1;
      continue;
    }
    if (isspace((unsigned char)*s) && (w == msg || w[-1] == ' ')) continue;
    *w++ = isspace((unsigned char)*s) ? ' ' : *s;
  }
  while (w > msg && (w[-1] == ' ' || w[-1] == '.')) w--;
  *w = '\0';
  for (int i = 0; i < COUNT(replace); i++) {
    char *at = strstr(msg, replace[i][0]);
    if (!at) continue;
    size_t old_len = strlen(replace[i][0]), new_len = strlen(replace[i][1]);
    memmove(at + new_len, at + old_len, strlen(at + old_len) + 1);
    memcpy(at, replace[i][1], new_len);
  }
  if (isupper((unsigned char)msg[0]) && islower((unsigned char)msg[1]))
    msg[0] = (char)tolower((unsigned char)msg[0]);
}

xmlDoc *fe_xml_parse(const char *path, const char *bytes, size_t size, int options,
                     struct fe_xml_error *err)
{
  struct fe_xml_quiet q;
  fe_xml_quiet_begin(&q, err);
  xmlDoc *doc = size > (size_t)2147483647
                    ? NULL
                    : xmlReadMemory(bytes, (int)size, path, NULL,
                                    XML_PARSE_NONET | XML_PARSE_BIG_LINES | options);
  fe_xml_quiet_end(&q);
  if (doc && !err->have) return doc;
  xmlFreeDoc(doc);
  if (!err->have) {
    err->have = 1;
    snprintf(err->msg, sizeof err->msg, "%s",
             size > (size_t)2147483647 ? "larger than 2 GiB" : "cannot be read as XML");
  }
  fe_xml_tidy(err->msg);
  return NULL;
}
