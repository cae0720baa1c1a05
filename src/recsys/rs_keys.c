/*
 * rs_keys.c -- the keys of a recsys job document and `KEY=VALUE`
 * overrides of them (rs_keys.h). The value of an override is read as a
 * scenario's is (scn_override_value), and its messages are worded as a
 * scenario's (src/load/scenario.c, "overrides"): 'override "TEXT": ...'.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "load/scenario.h"
#include "recsys/rs_keys.h"

const char *const rs_keys_top[] = {"model", "cluster", "training", "sharding", NULL};
const char *const rs_keys_model[] = {"kind", "name", "tables", "ids", "dense_features",
                                     "bottom_mlp", "top_mlp", "interaction", "cross_layers",
                                     "cross_rank", "concat_pool", "dropout", NULL};
const char *const rs_keys_cluster[] = {"gpu", "gpus", "gpus_per_node", "nvlink_GBps",
                                       "nic_Gbps", "intra", NULL};
const char *const rs_keys_training[] = {"global_batch", "dtype", "optimizer", "kernel",
                                        "embedding_bytes", "eager", "bottom_mlp_on_gpu0",
                                        "collective_cycle_ms", "keys_from_reader", "hash_capacity_rows",
                                        "pooled_in_table_type", "reader_ms_per_batch",
                                        "reader_us_per_sample", NULL};
const char *const rs_keys_table[] = {"name", "rows", "dim", "pooling", "count", "ids", "wide",
                                     NULL};
const char *const rs_keys_shard[] = {"table", "kind", "gpu", "node", "parts", NULL};

#define KEY_PATH 96 /* bytes kept of a key path: two keys of the lists above */

/* The keys below top-level key `name`: a section's list, or NULL for a
 * key that takes a value (sharding). */
static const char *const *section(const char *name) {
  if (!strcmp(name, "model")) return rs_keys_model;
  if (!strcmp(name, "cluster")) return rs_keys_cluster;
  if (!strcmp(name, "training")) return rs_keys_training;
  return NULL;
}

/* Fail with SC_EINPUT and 'override "TEXT": message'. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int ov_fail(sc_error *err, const char *text, const char *fmt, ...) {
  char msg[sizeof err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return sc_error_set(err, SC_EINPUT, "override \"%.160s\": %s", text, msg);
}

/* 1 when key is in the NULL-terminated list. */
static int listed(const char *key, const char *const *keys) {
  for (size_t i = 0; keys[i]; i++)
    if (!strcmp(key, keys[i])) return 1;
  return 0;
}

/* key is not in keys (the section `where`, "" for the top level): say so
 * with the closest key and every valid one. */
static int unknown(sc_error *err, const char *text, const char *where, const char *key,
                   const char *const *keys) {
  size_t n = 0;
  while (keys[n]) n++;
  const char *hint = scn_suggest(key, keys, n);
  char valid[480], quoted[80] = "";
  scn_join(keys, n, valid, sizeof valid);
  if (hint) snprintf(quoted, sizeof quoted, " did you mean \"%s\"?", hint);
  return ov_fail(err, text, "%s%s%s: unknown key;%s valid keys in %s: %s", where,
                 *where ? "." : "", key, quoted, *where ? where : "the top level", valid);
}

/* Split the key path of override `text` (written into path) into its one
 * or two keys, each checked against the lists: their count, or 0 after
 * failing with SC_EINPUT. */
static int split_path(const char *text, char *path, char **seg, sc_error *err) {
  const char *eq = strchr(text, '=');
  size_t len = eq ? (size_t)(eq - text) : 0;
  if (len == 0)
    return ov_fail(err, text, "expected KEY=VALUE with a key path, e.g. cluster.gpus=16"), 0;
  if (len >= KEY_PATH) return ov_fail(err, text, "the key path is too long"), 0;
  memcpy(path, text, len);
  path[len] = '\0';
  if (path[0] == '.' || path[len - 1] == '.' || strstr(path, ".."))
    return ov_fail(err, text, "empty key in the key path"), 0;
  seg[0] = path;
  char *dot = strchr(path, '.');
  if (dot) *dot = '\0';
  if (!listed(seg[0], rs_keys_top)) return unknown(err, text, "", seg[0], rs_keys_top), 0;
  if (!dot) return 1;
  seg[1] = dot + 1;
  const char *const *keys = section(seg[0]);
  char *below = strchr(seg[1], '.');
  if (keys && below) *below = '\0';
  if (!keys || below)
    return ov_fail(err, text, "%s%s%s takes a value, not keys below it", seg[0],
                   keys ? "." : "", keys ? seg[1] : ""), 0;
  if (!listed(seg[1], keys)) return unknown(err, text, seg[0], seg[1], keys), 0;
  return 2;
}

/* Apply one override to root. */
static int apply_one(json_t *root, const char *text, sc_error *err) {
  char path[KEY_PATH], *seg[2];
  int n = split_path(text, path, seg, err);
  if (n == 0) return SC_EINPUT;
  json_t *obj = root;
  if (n == 2) {
    obj = json_object_get(root, seg[0]);
    if (obj && !json_is_object(obj)) {
      char got[96];
      scn_describe(obj, got, sizeof got);
      return ov_fail(err, text, "%s is %s, not an object", seg[0], got);
    }
    if (!obj && (!(obj = json_object()) || json_object_set_new(root, seg[0], obj)))
      return sc_error_set(err, SC_ENOMEM, "override \"%.160s\": out of memory", text);
  }
  json_t *val;
  char why[160];
  int rc = scn_override_value(strchr(text, '=') + 1, &val, why, sizeof why);
  if (rc == SC_ENOMEM) return sc_error_set(err, SC_ENOMEM, "out of memory");
  if (rc) return ov_fail(err, text, "%s", why);
  if (json_object_set_new(obj, seg[n - 1], val))
    return sc_error_set(err, SC_ENOMEM, "override \"%.160s\": out of memory", text);
  return SC_OK;
}

/* Keys in the key path of override text (1 or 2; 1 without a '.'). */
static int depth(const char *text) {
  const char *eq = strchr(text, '='), *dot = strchr(text, '.');
  return dot && (!eq || dot < eq) ? 2 : 1;
}

int rs_keys_apply(json_t *root, const char *const *ov, size_t n, sc_error *err) {
  for (int d = 1; d <= 2; d++) /* a whole section before the keys inside it */
    for (size_t i = 0; i < n; i++) {
      if (!ov[i]) return ov_fail(err, "(null)", "expected KEY=VALUE");
      if (depth(ov[i]) != d) continue;
      int rc = apply_one(root, ov[i], err);
      if (rc) return rc;
    }
  return SC_OK;
}

void rs_keys_blame(sc_error *err, const char *file, const char *const *ov, size_t n) {
  size_t fl = strlen(file);
  const char *bad = err->msg;
  if (strncmp(bad, file, fl) || strncmp(bad + fl, ": ", 2)) return;
  bad += fl + 2; /* "model.tables[1].rows: ..." */
  size_t blen = strcspn(bad, ":[ ");
  const char *who = NULL;
  int best = 0;
  for (size_t i = n; i-- > 0;) { /* applied last: the deepest, then the latest */
    const char *eq = ov[i] ? strchr(ov[i], '=') : NULL;
    size_t len = eq ? (size_t)(eq - ov[i]) : 0;
    if (!len || len > blen || strncmp(bad, ov[i], len) || (len < blen && bad[len] != '.'))
      continue;
    if (depth(ov[i]) > best) who = ov[i], best = depth(ov[i]);
  }
  size_t used = strlen(err->msg);
  if (who && used < sizeof err->msg)
    snprintf(err->msg + used, sizeof err->msg - used, " (set by override \"%.160s\")", who);
}
