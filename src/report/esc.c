/*
 * esc.c -- escaping for JSON, CSV and XML/HTML; see esc.h.
 */
#include <string.h>

#include "report/esc.h"

void esc_json(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
    else if (ch == '\n') fputs("\\n", out);
    else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
    else fputc(ch, out);
  }
  fputc('"', out);
}

void esc_csv(FILE *out, const char *s, char end) {
  if (strpbrk(s, ",\"\r\n")) {
    fputc('"', out);
    for (; *s; s++) {
      if (*s == '"') fputc('"', out);
      fputc(*s, out);
    }
    fputc('"', out);
  } else {
    fputs(s, out);
  }
  fputc(end, out);
}

void esc_xml(FILE *out, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", out); break;
    case '<': fputs("&lt;", out); break;
    case '>': fputs("&gt;", out); break;
    case '"': fputs("&quot;", out); break;
    case '\'': fputs("&#39;", out); break;
    default: fputc(*s, out);
    }
  }
}
