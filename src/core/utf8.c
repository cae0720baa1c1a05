/*
 * utf8.c -- see utf8.h.
 */
#include "core/utf8.h"

int utf8_seq(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  int n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
  if (!n || s[0] > 0xF4) return 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) return 0; /* a NUL ends here too */
  if (n == 3 && s[0] == 0xE0 && s[1] < 0xA0) return 0; /* overlong */
  if (n == 3 && s[0] == 0xED && s[1] >= 0xA0) return 0; /* surrogate */
  if (n == 4 && s[0] == 0xF0 && s[1] < 0x90) return 0;  /* overlong */
  if (n == 4 && s[0] == 0xF4 && s[1] >= 0x90) return 0; /* > U+10FFFF */
  return n;
}

int utf8_valid(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  for (int n; *p; p += n)
    if (!(n = utf8_seq(p))) return 0;
  return 1;
}

/* 1 when the character at s (n bytes) is a control character. */
static int control(const unsigned char *s, int n) {
  if (n == 1) return s[0] < 0x20 || s[0] == 0x7F;
  return n == 2 && s[0] == 0xC2 && s[1] < 0xA0; /* C1: U+0080..U+009F */
}

void utf8_clean(char *dst, size_t cap, const char *src, int keep_newline) {
  size_t o = 0;
  const unsigned char *s = (const unsigned char *)src;
  while (*s && cap > 0) {
    int n = utf8_seq(s);
    if (n && !(control(s, n) && !(keep_newline && *s == '\n'))) {
      if (o + (size_t)n >= cap) break;
      for (int i = 0; i < n; i++) dst[o++] = (char)s[i];
      s += n;
    } else {
      if (o + 1 >= cap) break;
      dst[o++] = '?';
      s += n ? n : 1;
    }
  }
  if (cap > 0) dst[o] = '\0';
}
