/*
 * utf8.h -- UTF-8 checks for text that came from users (module prefix:
 * utf8_): CSV cells, file paths and names reach JSON documents, CSV
 * tables, terminals and error messages, which must stay valid UTF-8 and
 * must not carry terminal escape sequences.
 */
#ifndef SC_CORE_UTF8_H
#define SC_CORE_UTF8_H

#include <stddef.h>

/* Length (1..4) of the valid UTF-8 sequence at s, or 0 when the bytes
 * there are not one (overlong forms, surrogates and values beyond
 * U+10FFFF are invalid). s[0] must not be NUL. */
int utf8_seq(const unsigned char *s);

/* 1 when s (NUL-terminated) is valid UTF-8. */
int utf8_valid(const char *s);

/* src as printable text into dst (cap bytes, NUL-terminated, cut at a
 * character boundary): control characters (C0, DEL, C1) and invalid UTF-8
 * become '?', a newline is kept when keep_newline. */
void utf8_clean(char *dst, size_t cap, const char *src, int keep_newline);

#endif /* SC_CORE_UTF8_H */
