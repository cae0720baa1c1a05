/*
 * scenario.h -- the JSON scenario loader, internals (module prefix: scn_).
 *
 * The public entry points are sc_scenario_load_file() and
 * sc_scenario_load_string() in stepcast.h. This header exposes the pieces
 * the CLI and other readers (CSV, flags) reuse: applying one "key.path=
 * value" override to a JSON document, "did you mean" suggestions, and the
 * wording of lists and values in messages.
 * The format itself is documented in docs/input.md.
 */
#ifndef SC_SCENARIO_H
#define SC_SCENARIO_H

#include <stddef.h>

#include <jansson.h>

#include "stepcast.h"

/* Apply one override "a.b.c=VALUE" to the scenario document `root` (a JSON
 * object, modified in place; the caller keeps ownership). VALUE is parsed
 * as JSON and taken as a string when it is not valid JSON ("cluster.gpu=
 * h100-sxm5-80gb"). The key path is checked against the scenario schema
 * (unknown keys get a suggestion); sections written as a preset id string
 * ("model": "llama3-70b") become {"preset": id} (a model named by its
 * graph file, "x.json", becomes {"graph": path}) so that one key can be
 * changed, and missing sections are created. Returns SC_OK, SC_EINPUT
 * (message names the override text) or SC_ENOMEM; on failure root may
 * hold the sections created so far but no value has been changed. */
int scn_apply_override(json_t *root, const char *assignment, sc_error *err);

/* The JSON value of an override's text into *v (new reference, the
 * caller's): parsed JSON, else the text as a string ("h100-sxm5-80gb").
 * SC_OK, SC_EINPUT with the reason in why (cap bytes: not UTF-8, or text
 * that starts with '[' or '{' and is not valid JSON, with the parser's
 * message and column, rather than taken as a string) or SC_ENOMEM (never
 * the text taken as a string because an allocation of the parse failed).
 * Also used by the recsys job's overrides (src/recsys/rs_keys.c). */
int scn_override_value(const char *text, json_t **v, char *why, size_t cap);

/* Optimal-string-alignment edit distance between a and b, ignoring ASCII
 * case; only the first 63 bytes of each string are compared. */
int scn_edit_distance(const char *a, const char *b);

/* The candidate closest to `word` (edit distance, a common synonym such as
 * "hidden_size" -> "hidden", or a prefix such as "h100" ->
 * "h100-sxm5-80gb"), or NULL when none is close. cands[0..n) are not
 * copied; the result points into them. */
const char *scn_suggest(const char *word, const char *const *cands, size_t n);

/* Into buf (cap bytes): `; did you mean "ID"?` naming the GPU preset id
 * closest to id (scn_suggest), or "" when none is close. */
void scn_gpu_hint(const char *id, char *buf, size_t cap);

/* Join names[0..n) as "a, b, c" into buf, ending in ", ... (K more)"
 * when the list does not fit; returns K (0 when every name fits). */
size_t scn_join(const char *const *names, size_t n, char *buf, size_t cap);

/* Describe a JSON value for a message: `string "abc"`, `integer 8`, ... */
void scn_describe(const json_t *v, char *buf, size_t cap);

#endif /* SC_SCENARIO_H */
