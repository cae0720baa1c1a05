/*
 * test_utf8.c -- user text on its way out (issue 12, hostile input 13):
 * UTF-8 validation, the cleaning of text for terminals and messages, and
 * the JSON/CSV/XML escaping of names that are not UTF-8 or hold control
 * characters.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "report/esc.h"
#include "stepcast.h"

Test(utf8, sequences) {
  struct { const char *s; int len; } cases[] = {
      {"a", 1},           {"\xC3\xA9", 2},        {"\xE2\x82\xAC", 3}, {"\xF0\x9F\x98\x80", 4},
      {"\xC0\xAF", 0},    {"\xE0\x80\xAF", 0},    {"\xED\xA0\x80", 0}, {"\xF4\x90\x80\x80", 0},
      {"\xFF", 0},        {"\x80", 0},            {"\xC3", 0},         {"\xE2\x82", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    cr_expect_eq(utf8_seq((const unsigned char *)cases[i].s), cases[i].len,
                 "case %zu: utf8_seq = %d, expected %d", i,
                 utf8_seq((const unsigned char *)cases[i].s), cases[i].len);
  cr_expect(utf8_valid("caf\xC3\xA9"));
  cr_expect(!utf8_valid("caf\xE9"));
}

Test(utf8, clean_replaces_escapes_and_invalid_bytes) {
  char out[32];
  utf8_clean(out, sizeof out, "a\x1b[31mb\xFF\xC2\x9B" "c\n\xC3\xA9", 0);
  cr_expect_str_eq(out, "a?[31mb??c?\xC3\xA9"); /* 0xFF, then C1 U+009B */
  utf8_clean(out, sizeof out, "line\nnext", 1);
  cr_expect_str_eq(out, "line\nnext");
  /* cut at a character boundary, never inside one */
  utf8_clean(out, 4, "ab\xC3\xA9", 0);
  cr_expect_str_eq(out, "ab");
}

/* What esc_fn wrote for s, in a static buffer. */
static const char *written(void (*json)(FILE *, const char *), const char *s) {
  static char buf[256];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  json(f, s);
  fclose(f);
  return buf;
}
static void csv_field(FILE *f, const char *s) { esc_csv(f, s, '\n'); }

Test(utf8, documents_stay_valid) {
  cr_expect_str_eq(written(esc_json, "a\xFF\x1b\"b"), "\"a\\ufffd\\u001b\\\"b\"");
  cr_expect_str_eq(written(csv_field, "a,\xFF\x1b\"b"), "\"a,\xEF\xBF\xBD\xEF\xBF\xBD\"\"b\"\n");
  cr_expect_str_eq(written(esc_xml, "<\xFF\x01>"), "&lt;\xEF\xBF\xBD\xEF\xBF\xBD&gt;");
}

Test(utf8, error_messages_carry_no_escape_sequences) {
  sc_error err;
  sc_error_set(&err, SC_EINPUT, "unknown preset \"%s\"", "x\x1b]0;title\x07\xFF");
  cr_expect_str_eq(err.msg, "unknown preset \"x?]0;title??\"");
  sc_error_set(&err, SC_EINPUT, "two\nlines");
  cr_expect_str_eq(err.msg, "two\nlines");
}
