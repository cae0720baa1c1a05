/* TEMPORARY stub until the JSON graph loader lands. */
#include "load/graph_json.h"
int graph_json_load_buffer(const char *buf, size_t len, const char *origin, wg_graph **out,
                           sc_error *err) {
  (void)buf, (void)len;
  *out = NULL;
  return sc_error_set(err, SC_EMODEL, "%s: graph loader not built", origin);
}
int graph_json_load_file(const char *path, wg_graph **out, sc_error *err) {
  return graph_json_load_buffer("", 0, path, out, err);
}
