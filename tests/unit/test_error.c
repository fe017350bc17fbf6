/* Messages: fe_quote keeps short strings whole and cuts long ones to a
 * readable length that still tells how long they were. */
#include "core/error.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
  char buf[FE_QUOTE_SIZE];
  CHECK(!strcmp(fe_quote("x + y", FE_QUOTE_MAX, buf, sizeof buf), "'x + y'"));
  CHECK(!strcmp(fe_quote("", FE_QUOTE_MAX, buf, sizeof buf), "''"));
  CHECK(!strcmp(fe_quote("a\tb\nc", FE_QUOTE_MAX, buf, sizeof buf), "'a?b?c'"));

  const size_t n = 400000;
  char *big = malloc(n + 1);
  for (size_t i = 0; i < n; i++) big[i] = "x + "[i % 4];
  big[n] = '\0';
  big[n - 1] = 'z';
  fe_quote(big, FE_QUOTE_MAX, buf, sizeof buf);
  CHECK(strlen(buf) <= FE_QUOTE_MAX + 40);
  CHECK(!strncmp(buf, "'x + x", 6));
  CHECK(strstr(buf, "...") != NULL);
  CHECK(strstr(buf, "z' (400000 characters)") != NULL);

  /* exactly max characters: whole; one more: cut */
  big[FE_QUOTE_MAX] = '\0';
  CHECK(strlen(fe_quote(big, FE_QUOTE_MAX, buf, sizeof buf)) == FE_QUOTE_MAX + 2);
  big[FE_QUOTE_MAX] = 'x';
  big[FE_QUOTE_MAX + 1] = '\0';
  CHECK(strstr(fe_quote(big, FE_QUOTE_MAX, buf, sizeof buf), "(121 characters)") != NULL);

  /* a cut never splits a UTF-8 character: 2-byte characters throughout */
  for (size_t i = 0; i + 1 < n; i += 2) {
    big[i] = (char)0xC3;
    big[i + 1] = (char)0xA9; /* é */
  }
  big[n] = '\0';
  fe_quote(big, FE_QUOTE_MAX, buf, sizeof buf);
  const char *dots = strstr(buf, "...");
  CHECK(dots && (dots - buf - 1) % 2 == 0);
  CHECK(dots && ((unsigned char)dots[3] & 0xC0) != 0x80);

  /* a small buffer still gets a terminated, cut string */
  char small[60];
  fe_quote(big, FE_QUOTE_MAX, small, sizeof small);
  CHECK(strlen(small) < sizeof small);
  free(big);
  TEST_DONE();
}
