/*
 * graph.c -- gossip graphs of the decentralized schemes (dp.graph): the
 * named ones (exponential-2, ring, star, full), an edge list, a mixing
 * matrix, or a file of either; uniform weights where none are given;
 * checked connected. See dp.h.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/mem.h"
#include "dp/dp.h"

static int gr_alloc(int n, dp_graph *g, sc_error *err) {
  g->n = n;
  g->w = mem_calloc((size_t)n * (size_t)n, sizeof *g->w);
  if (!g->w) return sc_error_set(err, SC_ENOMEM, "dp.graph: out of memory");
  return SC_OK;
}

void dp_graph_free(dp_graph *g) {
  mem_free(g->w);
  g->w = NULL;
  g->n = 0;
}

/* Uniform weights over each row's neighbours and itself. */
static void gr_uniform(dp_graph *g) {
  int n = g->n;
  for (int i = 0; i < n; i++) {
    g->w[(size_t)i * n + i] = 1;
    int deg = 0;
    for (int j = 0; j < n; j++) deg += g->w[(size_t)i * n + j] != 0;
    for (int j = 0; j < n; j++)
      if (g->w[(size_t)i * n + j] != 0) g->w[(size_t)i * n + j] = 1.0 / deg;
  }
}

int dp_graph_exp2(int n, dp_graph *g, sc_error *err) {
  int rc = gr_alloc(n, g, err);
  if (rc) return rc;
  for (int i = 0; i < n; i++)
    for (int d = 1; d < n; d *= 2) g->w[(size_t)((i + d) % n) * n + i] = 1;
  gr_uniform(g);
  return SC_OK;
}

static int gr_named(const char *s, int n, dp_graph *g, sc_error *err) {
  if (!strcmp(s, "exp2")) return dp_graph_exp2(n, g, err);
  int rc = gr_alloc(n, g, err);
  if (rc) return rc;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int ring = j == (i + 1) % n || i == (j + 1) % n;
      int on = !strcmp(s, "ring") ? ring : !strcmp(s, "full") ? 1 : !strcmp(s, "star") ? (i == 0 || j == 0) : -1;
      if (on < 0) {
        dp_graph_free(g);
        return sc_error_set(err, SC_EINPUT,
                            "dp.graph: unknown graph '%s'; valid: exp2, ring, star, full, an "
                            "edge list \"0-1,1-2\" or a mixing matrix \"0.5,0.5;0.5,0.5\"", s);
      }
      if (on && i != j) g->w[(size_t)i * n + j] = 1;
    }
  gr_uniform(g);
  return SC_OK;
}

/* "a-b,c-d": undirected edges between ranks. */
static int gr_edges(const char *s, int n, dp_graph *g, sc_error *err) {
  int rc = gr_alloc(n, g, err);
  if (rc) return rc;
  const char *p = s;
  while (*p) {
    char *end;
    long a = strtol(p, &end, 10);
    if (end == p || *end != '-') goto bad;
    p = end + 1;
    long b = strtol(p, &end, 10);
    if (end == p || a < 0 || b < 0 || a >= n || b >= n) goto bad;
    g->w[(size_t)a * n + b] = g->w[(size_t)b * n + a] = 1;
    p = end;
    while (*p == ',' || isspace((unsigned char)*p)) p++;
  }
  gr_uniform(g);
  return SC_OK;
bad:
  dp_graph_free(g);
  return sc_error_set(err, SC_EINPUT,
                      "dp.graph: bad edge at '%.20s' (edges are 'a-b' with ranks 0..%d, "
                      "separated by commas)", p, n - 1);
}

/* "w00,w01;w10,w11": a row-stochastic mixing matrix, row i = rank i. */
static int gr_matrix(const char *s, int n, dp_graph *g, sc_error *err) {
  int rc = gr_alloc(n, g, err);
  if (rc) return rc;
  const char *p = s;
  for (int i = 0; i < n; i++) {
    double sum = 0;
    for (int j = 0; j < n; j++) {
      char *end;
      double v = strtod(p, &end);
      if (end == p || v < 0 || !isfinite(v)) goto bad;
      g->w[(size_t)i * n + j] = v;
      sum += v;
      p = end;
      while (isspace((unsigned char)*p)) p++;
      if (j < n - 1 && *p++ != ',') goto bad;
    }
    while (isspace((unsigned char)*p)) p++;
    if (i < n - 1 && *p++ != ';') goto bad;
    if (fabs(sum - 1) > 1e-6) {
      dp_graph_free(g);
      return sc_error_set(err, SC_EINPUT, "dp.graph: row %d of the mixing matrix sums to %g, not 1",
                          i, sum);
    }
  }
  while (isspace((unsigned char)*p)) p++;
  if (*p) goto bad;
  return SC_OK;
bad:
  dp_graph_free(g);
  return sc_error_set(err, SC_EINPUT,
                      "dp.graph: a mixing matrix needs %d rows of %d non-negative numbers "
                      "(',' between numbers, ';' between rows)", n, n);
}

int dp_graph_connected(const dp_graph *g) {
  int n = g->n;
  if (n <= 1) return 1;
  char *seen = mem_calloc((size_t)n, 1);
  int *stack = mem_alloc(sizeof *stack * (size_t)n);
  if (!seen || !stack) {
    mem_free(seen), mem_free(stack);
    return -1;
  }
  int top = 0, count = 1;
  stack[top++] = 0, seen[0] = 1;
  while (top) {
    int i = stack[--top];
    for (int j = 0; j < n; j++)
      if (!seen[j] && (g->w[(size_t)i * n + j] != 0 || g->w[(size_t)j * n + i] != 0))
        seen[j] = 1, count++, stack[top++] = j;
  }
  mem_free(seen), mem_free(stack);
  return count == n;
}

/* One line of an edge-list file: edges "a-b" with ranks 0..n-1 (commas
 * between several), or fail naming PATH:LINE and what is valid. */
static int gr_edge_line(const char *path, int no, const char *line, int n, sc_error *err) {
  const char *p = line;
  while (*p) {
    char *end;
    long a = strtol(p, &end, 10);
    int ok = end != p && *end == '-' && isdigit((unsigned char)end[1]);
    long b = ok ? strtol(end + 1, &end, 10) : -1;
    if (!ok || a < 0 || b < 0 || a >= n || b >= n)
      return sc_error_set(err, SC_EINPUT,
                          "dp.graph: %s:%d: '%.20s' is not an edge; valid: 'a-b' with ranks "
                          "0..%d (the workers, cluster.gpus), one edge per line",
                          path, no, p, n - 1);
    p = end;
    while (*p == ',' || isspace((unsigned char)*p)) p++;
  }
  return SC_OK;
}

/* 1 when text has a '.' outside its '#' comments: a mixing matrix's
 * rows (an edge list has none; a comment may say anything). */
static int gr_has_dot(const char *t) {
  int comment = 0;
  for (; *t; t++) {
    if (*t == '\n') comment = 0;
    else if (*t == '#') comment = 1;
    else if (*t == '.' && !comment) return 1;
  }
  return 0;
}

/* "@PATH": the graph text is the file's: one edge ("a-b") or one row of
 * the mixing matrix per line, '#' starts a comment, blank lines skipped. */
static int gr_file(const char *path, int n, dp_graph *g, sc_error *err) {
  char *buf;
  size_t len;
  int rc = file_read(path, "dp.graph file", FILE_MAX_SCENARIO, &buf, &len, err);
  if (rc) return rc;
  char *text = mem_alloc(len + 2);
  if (!text) {
    mem_free(buf);
    return sc_error_set(err, SC_ENOMEM, "dp.graph: out of memory reading %s", path);
  }
  int matrix = gr_has_dot(buf);
  size_t k = 0;
  int no = 0;
  char *p = buf;
  for (char *line = p; line; line = p) {
    p = strchr(line, '\n');
    if (p) *p++ = '\0';
    no++;
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    while (isspace((unsigned char)*line)) line++;
    for (size_t l = strlen(line); l && isspace((unsigned char)line[l - 1]);) line[--l] = '\0';
    if (!*line) continue;
    if (!matrix && (rc = gr_edge_line(path, no, line, n, err))) break;
    if (k) text[k++] = matrix ? ';' : ',';
    size_t l = strlen(line);
    memcpy(text + k, line, l);
    k += l;
  }
  text[k] = '\0';
  mem_free(buf);
  if (!rc)
    rc = k ? dp_graph_parse(text, n, g, err)
           : sc_error_set(err, SC_EINPUT, "dp.graph: %s holds no edge and no matrix row", path);
  mem_free(text);
  return rc;
}

int dp_graph_parse(const char *spec, int n, dp_graph *g, sc_error *err) {
  g->n = 0, g->w = NULL;
  if (spec[0] == '@') return gr_file(spec + 1, n, g, err);
  int rc = strchr(spec, ';') || (n == 1 && strchr(spec, '.')) ? gr_matrix(spec, n, g, err)
           : strchr(spec, '-')                               ? gr_edges(spec, n, g, err)
                                                              : gr_named(spec, n, g, err);
  if (rc) return rc;
  int conn = dp_graph_connected(g);
  if (conn < 0) {
    dp_graph_free(g);
    return sc_error_set(err, SC_ENOMEM, "dp.graph: out of memory");
  }
  if (!conn) {
    dp_graph_free(g);
    return sc_error_set(err, SC_EINPUT,
                        "dp.graph: the gossip graph '%.60s' is not connected over %d workers: "
                        "models would never mix between its parts", spec, n);
  }
  return SC_OK;
}

