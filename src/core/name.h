/*
 * name.h -- matching the names users type against a table's names
 * (module prefix: name_): case is ignored ("Fat_Tree" is the generator
 * fat_tree, "NVSwitch" the node kind nvswitch), and underscores too where
 * a table allows other spellings ("allreduce" and "All_Reduce" are the
 * collective all_reduce, as nccl-tests spells it).
 */
#ifndef SC_CORE_NAME_H
#define SC_CORE_NAME_H

#include <stddef.h>

/* 1 when the first n bytes of s (fewer where s ends first) spell the
 * table's name `canon` (NUL-terminated) ignoring case (ASCII) and, when
 * `underscores`, underscores on both sides; 0 otherwise, and for a NULL
 * s. */
int name_eq(const char *canon, const char *s, size_t n, int underscores);

#endif /* SC_CORE_NAME_H */
