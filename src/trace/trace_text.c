/*
 * trace_text.c -- text out of profiled traces, for bindings (sc_trace_json;
 * stepcast.h, the Python module): the same document as `stepcast trace
 * FILE... [what-if options] --format json`, by the same writer
 * (sc_report_trace_replay), and optionally the replayed schedule as a
 * Perfetto file, as --perfetto, and the loaded graph, as --export-graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/mem.h"
#include "core/mstream.h"
#include "stepcast.h"

static int perfetto_of(FILE *f, const void *t, sc_error *err) {
  (void)err;
  sc_trace_write_perfetto(t, f);
  return SC_OK;
}

/* The report of t as traced and, when w is not NULL, under w into *out;
 * the schedule of the last replay (w's, else the traced one) to perfetto
 * when not NULL. */
static int replay_json(sc_trace *t, const sc_trace_whatif *w, const char *perfetto, char **out,
                       sc_error *err) {
  sc_trace_result base, x;
  sc_trace_whatif none;
  int rc = sc_trace_replay(t, NULL, &base, err);
  if (!rc && w) rc = sc_trace_replay(t, w, &x, err);
  if (rc) return rc;
  if (!w) sc_trace_whatif_default(&none);
  mstream m;
  if ((rc = mstream_open(&m, err))) return rc;
  sc_report_trace_replay(m.f, SC_FORMAT_JSON, t, &base, w ? w : &none, w ? &x : NULL);
  if ((rc = mstream_close(&m, out, err))) return rc;
  return file_write_beside(out, perfetto, "trace", perfetto_of, t, err);
}

int sc_trace_json(const char *const *paths, int n, const sc_trace_whatif *w,
                  const char *perfetto, char **out, sc_error *err) {
  return sc_trace_json_warn(paths, n, w, perfetto, out, NULL, err);
}

int sc_trace_json_warn(const char *const *paths, int n, const sc_trace_whatif *w,
                       const char *perfetto, char **out, char **warnings, sc_error *err) {
  return sc_trace_json_ex(paths, n, w, perfetto, NULL, out, warnings, err);
}

/* What one rank's graph is written from. */
typedef struct graph_of {
  const sc_trace *t;
  int rank;
} graph_of;

static int graph_writer(FILE *f, const void *ctx, sc_error *err) {
  const graph_of *g = ctx;
  return sc_trace_write_graph(g->t, g->rank, f, err);
}

/* Every rank's graph of t to the files named after path; on failure
 * *out, the document already made, is freed. */
static int export_graph(const sc_trace *t, const char *path, char **out, sc_error *err) {
  sc_trace_info in;
  sc_trace_info_get(t, &in);
  int rc = SC_OK;
  for (int r = 0; r < in.ranks && rc == SC_OK; r++) {
    char name[4096];
    graph_of g = {t, r};
    if (sc_trace_graph_name(path, r, in.ranks, name, sizeof name) >= (int)sizeof name)
      rc = sc_error_set(err, SC_EINPUT, "trace: graph: the file name '%s' is too long", path);
    else
      rc = file_write_beside(out, name, "trace", graph_writer, &g, err);
  }
  if (rc != SC_OK) { /* a name too long: the document goes too */
    free(*out);
    *out = NULL;
  }
  return rc;
}

int sc_trace_json_ex(const char *const *paths, int n, const sc_trace_whatif *w,
                     const char *perfetto, const char *graph, char **out, char **warnings,
                     sc_error *err) {
  *out = NULL;
  if (warnings) *warnings = NULL;
  int rc = file_name_check(perfetto, "trace: perfetto", err);
  if (!rc) rc = file_name_check(graph, "trace: graph", err);
  if (rc) return rc;
  sc_trace *t;
  if ((rc = sc_trace_load(paths, n, NULL, NULL, &t, err))) return rc;
  rc = replay_json(t, w, perfetto, out, err);
  if (!rc && graph) rc = export_graph(t, graph, out, err);
  if (!rc && warnings && !(*warnings = mem_strdup(sc_trace_warnings(t)))) {
    free(*out);
    *out = NULL;
    rc = sc_error_set(err, SC_ENOMEM, "trace: out of memory");
  }
  sc_trace_close(t);
  return rc;
}
