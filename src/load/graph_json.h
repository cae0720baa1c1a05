/*
 * graph_json.h -- workload graphs from JSON (module prefix: graph_json_).
 * The format is documented in docs/graph.md.
 */
#ifndef SC_LOAD_GRAPH_JSON_H
#define SC_LOAD_GRAPH_JSON_H

#include <stddef.h>

#include "graph/graph.h"

/* Load a workload graph from JSON text (origin names it in messages) or
 * a file. On success *out owns a finalized graph (wg_free); on error *out
 * is NULL and err names origin:line:column (syntax) or the key path and
 * operator (content) and what would be valid: SC_EINPUT, SC_EIO (file
 * unreadable) or SC_ENOMEM. */
int graph_json_load_buffer(const char *buf, size_t len, const char *origin, wg_graph **out,
                           sc_error *err);
int graph_json_load_file(const char *path, wg_graph **out, sc_error *err);

#endif /* SC_LOAD_GRAPH_JSON_H */
