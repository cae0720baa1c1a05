/*
 * esc.c -- escaping for JSON, CSV and XML/HTML; see esc.h.
 */
#include <math.h>
#include <string.h>

#include "core/utf8.h"
#include "report/esc.h"

/* Bytes that are not UTF-8 (a CSV cell, a file name) are written as
 * U+FFFD, so that every document stays valid UTF-8. */
#define REPLACEMENT "\xEF\xBF\xBD"

void esc_json(FILE *out, const char *s) {
  fputc('"', out);
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned char ch = *p;
    int n = utf8_seq(p);
    if (!n) fputs("\\ufffd", out), n = 1;
    else if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
    else if (ch == '\n') fputs("\\n", out);
    else if (ch < 0x20 || ch == 0x7F) fprintf(out, "\\u%04x", ch);
    else fwrite(p, 1, (size_t)n, out);
    p += n;
  }
  fputc('"', out);
}

void esc_csv(FILE *out, const char *s, char end) {
  int quote = strpbrk(s, ",\"\r\n") != NULL;
  if (quote) fputc('"', out);
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    int n = utf8_seq(p);
    /* invalid UTF-8 and control characters (terminal escapes) but tab
     * and line breaks become U+FFFD */
    if (!n || ((*p < 0x20 || *p == 0x7F) && *p != '\t' && *p != '\r' && *p != '\n'))
      fputs(REPLACEMENT, out), n = n ? n : 1;
    else if (*p == '"') fputs("\"\"", out);
    else fwrite(p, 1, (size_t)n, out);
    p += n;
  }
  if (quote) fputc('"', out);
  if (end) fputc(end, out);
}

void esc_text(char *dst, size_t cap, const char *s) { utf8_clean(dst, cap, s, 0); }

void esc_xml(FILE *out, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    int n = utf8_seq(p);
    /* XML allows no C0 control but tab and line breaks */
    if (!n || (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')) {
      fputs(REPLACEMENT, out);
      p += n ? n : 1;
      continue;
    }
    switch (*p) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    case '\'': fputs("&#39;", out); break;
    default: fwrite(p, 1, (size_t)n, out);
    }
    p += n;
  }
}

void esc_trace_times(FILE *out, double start_us, double dur_us) {
  double a = round(start_us * 1e3) / 1e3, e = round((start_us + dur_us) * 1e3) / 1e3;
  fprintf(out, "\"ts\": %.3f, \"dur\": %.3f", a, e - a);
}
