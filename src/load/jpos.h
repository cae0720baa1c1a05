/*
 * jpos.h -- where a key path's value lies in a JSON text: its line and
 * column, for messages (module prefix: jpos_).
 *
 * jansson keeps no positions in its values, so a loader that refuses a
 * value (a string where a number goes, a number out of range) knows the
 * key path but not the place. These functions find that place again in
 * the text the value was parsed from: the text has parsed (it is valid
 * JSON, and every loader rejects duplicate keys, so a path names one
 * value). Every loader of src/load/ and src/recsys/rs_json.c puts its
 * messages through jpos_annotate, so type, range and relation errors
 * carry "FILE:LINE:COLUMN:" as syntax errors do (docs/input.md).
 */
#ifndef SC_LOAD_JPOS_H
#define SC_LOAD_JPOS_H

#include <stddef.h>

#include "stepcast.h"

/* Find the value at key path `path` ("model.tables[1].rows",
 * "links[0].bw_GBps", "blocks[0].ops[3] (op \"qkv\").m": a parenthesised
 * label is skipped) in the JSON text (len bytes): 1 with *line and *col
 * (1-based; the column counts characters, as jansson's do) of its first
 * byte, 0 when the text has no value there (a key set by an override or
 * a preset, a malformed path). */
int jpos_find(const char *text, size_t len, const char *path, int *line, int *col);

/* err holds "ORIGIN: PATH: message" (any code): when PATH is found in
 * text, rewrite it as "ORIGIN:LINE:COLUMN: PATH: message"; otherwise, or
 * when the message says an override set the value ("(set by override"),
 * leave it as it is. */
void jpos_annotate(sc_error *err, const char *origin, const char *text, size_t len);

#endif /* SC_LOAD_JPOS_H */
