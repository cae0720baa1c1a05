/*
 * rowtext.h -- reading the free text of a measurement row (its notes,
 * framework, wiring, data columns): the one place the validation searches
 * such text (module prefix: rowtext_).
 */
#ifndef SC_VALIDATE_ROWTEXT_H
#define SC_VALIDATE_ROWTEXT_H

#include <stddef.h>

/* 1 when word occurs in text, ignoring ASCII case; 0 otherwise (also when
 * text is NULL). */
int rowtext_has(const char *text, const char *word);

/* As rowtext_has, but only where word is not part of a longer word (no
 * letter or digit right before or after it): "NeMo" but not "Nemotron". */
int rowtext_word(const char *text, const char *word);

/* The number right after the first `key` in text (case as written),
 * skipping spaces, '~' and '=' ("alpha " in "power-law (alpha 1.05",
 * "nGpus " in an nccl-tests header; key "" reads a leading number); dflt
 * when text is NULL, key does not occur, or no number follows. */
double rowtext_after(const char *text, const char *key, double dflt);

/* As rowtext_after, for a whole number written with thousands separators
 * ("vocab_size 2,359,296": 2359296; a comma counts only when three digits
 * follow it, so "3, 4" reads 3); dflt as rowtext_after. */
double rowtext_count_after(const char *text, const char *key, double dflt);

/* 1 when word occurs, ignoring ASCII case, within `span` characters
 * before or after an occurrence of anchor (also ignoring case) in text
 * ("flex" near "dispatcher" in "flex dispatcher" and "dispatcher type:
 * flex"); 0 otherwise (also when text is NULL). */
int rowtext_near(const char *text, const char *anchor, const char *word, size_t span);

#endif /* SC_VALIDATE_ROWTEXT_H */
