/*
 * ovsize.c -- a size of the cluster on the command line replaces the
 * document's; see ovsize.h and docs/input.md ("Overrides").
 */
#include <string.h>

#include "load/ovsize.h"

/* 1 when one of ov[0..n) sets the key path `path` itself ("path=..."). */
static int ovs_sets(const char *const *ov, size_t n, const char *path) {
  size_t len = strlen(path);
  for (size_t i = 0; i < n; i++)
    if (ov[i] && !strncmp(ov[i], path, len) && ov[i][len] == '=') return 1;
  return 0;
}

void ovs_drop_replaced(json_t *root, const char *const *ov, size_t n) {
  json_t *cl = json_is_object(root) ? json_object_get(root, "cluster") : NULL;
  if (!json_is_object(cl)) return; /* a preset id or nothing: no size to drop */
  int gpus = ovs_sets(ov, n, "cluster.gpus"), nodes = ovs_sets(ov, n, "cluster.nodes");
  if (gpus && !nodes) json_object_del(cl, "nodes");
  if (nodes && !gpus) json_object_del(cl, "gpus");
}
