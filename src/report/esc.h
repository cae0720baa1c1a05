/*
 * esc.h -- text written into documents other programs parse (module
 * prefix: esc_): a JSON string literal, an RFC 4180 CSV field, XML/HTML
 * text. Shared by every writer of src/report/ and src/net/.
 */
#ifndef SC_REPORT_ESC_H
#define SC_REPORT_ESC_H

#include <stddef.h>
#include <stdio.h>

/* s as a JSON string literal, quotes included; invalid UTF-8 as \ufffd. */
void esc_json(FILE *out, const char *s);

/* s as one CSV field (quoted, with quotes doubled, when it holds a comma,
 * a quote or a line break), then `end` (',' or '\n'; '\0': nothing). Invalid UTF-8 and
 * control characters other than tab and line breaks are written as
 * U+FFFD. */
void esc_csv(FILE *out, const char *s, char end);

/* s as printable text for a table on a terminal, into dst (cap bytes):
 * control characters (escape sequences) and invalid UTF-8 become '?'. */
void esc_text(char *dst, size_t cap, const char *s);

/* s as XML/HTML text or attribute value (& < > " ' escaped). */
void esc_xml(FILE *out, const char *s);

/* A Chrome trace complete event's times, `"ts": A, "dur": D` (microseconds,
 * nanosecond digits), for a span from start_us lasting dur_us: its start and
 * end are rounded to the nanosecond and D is their difference, so that spans
 * that meet in the layout meet in the file instead of overlapping by the
 * rounding (which a viewer reads as a badly nested slice). */
void esc_trace_times(FILE *out, double start_us, double dur_us);

#endif
