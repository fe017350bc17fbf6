/* libxml2 without its own messages: the first error of a parse or a schema
 * validation is kept, tidied to one line, and reported by the caller with the
 * file and line (the case file, VTK XML snapshots and ParaView .pvd series). */
#ifndef FE_XML_H
#define FE_XML_H

#include <libxml/tree.h>
#include <libxml/xmlerror.h>

struct fe_xml_error {
  int have;
  int line;
  xmlNode *node;
  char msg[1024];
};

/* libxml2's error handlers while parsing or validating: begin sets them to keep the first
 * error in err and print nothing, end puts back what was there. */
struct fe_xml_quiet {
  xmlGenericErrorFunc generic;
  void *generic_ctx;
  xmlStructuredErrorFunc structured;
  void *structured_ctx;
};
void fe_xml_quiet_begin(struct fe_xml_quiet *q, struct fe_xml_error *err);
void fe_xml_quiet_end(const struct fe_xml_quiet *q);

/* The structured error handler that keeps the first error (data: a struct fe_xml_error). */
#if LIBXML_VERSION >= 21200
void fe_xml_keep_first(void *data, const xmlError *e);
#else
void fe_xml_keep_first(void *data, xmlErrorPtr e);
#endif

/* One line, no "[facet ...]" tag, no final period, lower-case start; XML Schema's type
 * names in words ("a number", "an integer"). */
void fe_xml_tidy(char *msg);

/* The document in `bytes` (size bytes; path names it), parsed without network access,
 * options added to XML_PARSE_NONET | XML_PARSE_BIG_LINES; NULL with err set when it is not
 * well-formed. */
xmlDoc *fe_xml_parse(const char *path, const char *bytes, size_t size, int options,
                     struct fe_xml_error *err);

#endif
