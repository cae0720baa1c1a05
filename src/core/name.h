/*
 * name.h -- matching the names users type against a table's names
 * (module prefix: name_): case is ignored ("Fat_Tree" is the generator
 * fat_tree, "NVSwitch" the node kind nvswitch), and underscores too where
 * a table allows other spellings ("allreduce" and "All_Reduce" are the
 * collective all_reduce, as nccl-tests spells it); and the name closest to
 * a misspelt one, for "did you mean" (the loaders, the topology generators).
 */
#ifndef SC_CORE_NAME_H
#define SC_CORE_NAME_H

#include <stddef.h>

/* 1 when the first n bytes of s (fewer where s ends first) spell the
 * table's name `canon` (NUL-terminated) ignoring case (ASCII) and, when
 * `underscores`, underscores on both sides; 0 otherwise, and for a NULL
 * s. */
int name_eq(const char *canon, const char *s, size_t n, int underscores);

/* Optimal-string-alignment edit distance between a and b, ignoring ASCII
 * case; only the first 63 bytes of each string are compared. */
int name_edit_distance(const char *a, const char *b);

/* The "did you mean" of every loader: the candidate closest to `word` (a
 * prefix such as "h100" -> "h100-sxm5-80gb", else the least edit
 * distance within a limit growing with word's length), or NULL when none
 * is close. cands[0..n) are not copied; the result points into them. */
const char *name_suggest(const char *word, const char *const *cands, size_t n);

#endif /* SC_CORE_NAME_H */
