/*
 * esc.h -- text written into documents other programs parse (module
 * prefix: esc_): a JSON string literal, an RFC 4180 CSV field, XML/HTML
 * text. Shared by every writer of src/report/ and src/net/.
 */
#ifndef SC_REPORT_ESC_H
#define SC_REPORT_ESC_H

#include <stdio.h>

/* s as a JSON string literal, quotes included. */
void esc_json(FILE *out, const char *s);

/* s as one CSV field (quoted, with quotes doubled, when it holds a comma,
 * a quote or a line break), then `end` (',' or '\n'). */
void esc_csv(FILE *out, const char *s, char end);

/* s as XML/HTML text or attribute value (& < > " ' escaped). */
void esc_xml(FILE *out, const char *s);

#endif
