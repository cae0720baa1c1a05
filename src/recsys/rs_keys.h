/*
 * rs_keys.h -- the keys of a recsys job document (docs/input.md,
 * "Recommendation models") and `KEY=VALUE` overrides of them, as
 * `stepcast recsys --set` gives them (module prefix: rs_keys_).
 *
 * The lists are the one schema of the document: the loader (rs_json.c)
 * refuses any other key with them, and an override's key path is checked
 * against them before its value is set, with the messages and the "did
 * you mean" of a scenario's overrides (src/load/scenario.h).
 */
#ifndef SC_RECSYS_RS_KEYS_H
#define SC_RECSYS_RS_KEYS_H

#include <stddef.h>

#include <jansson.h>

#include "stepcast.h"

/* NULL-terminated key lists: the top level, its three sections, a table
 * object of model.tables and an entry of an array sharding. */
extern const char *const rs_keys_top[];
extern const char *const rs_keys_model[];
extern const char *const rs_keys_cluster[];
extern const char *const rs_keys_training[];
extern const char *const rs_keys_table[];
extern const char *const rs_keys_shard[];

/* Apply overrides ov[0..n) ("cluster.gpus=16", "sharding=row_wise";
 * VALUE parsed as JSON, else taken as a string) to the job document root
 * (a JSON object, modified in place; the caller keeps it), shallower key
 * paths first and otherwise in the order given, creating a section the
 * document leaves out. A key path is a top-level key or SECTION.KEY of
 * model, cluster or training. SC_OK; SC_EINPUT with 'override "TEXT":
 * PATH: unknown key; did you mean ...? valid keys in SECTION: ...' (or
 * what else is wrong with it) before any value of that override is set;
 * SC_ENOMEM. */
int rs_keys_apply(json_t *root, const char *const *ov, size_t n, sc_error *err);

/* After a load of a document with overrides ov[0..n) failed with err
 * ("FILE: KEY.PATH: ..."): append ' (set by override "TEXT")' naming the
 * override that set that key or an object holding it (the deepest, then
 * the latest), as a scenario's messages do. Nothing when none did. */
void rs_keys_blame(sc_error *err, const char *file, const char *const *ov, size_t n);

#endif
