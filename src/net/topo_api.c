/*
 * topo_api.c -- the topologies of the public header (stepcast.h), and
 * collectives run on them by the flow engine.
 *
 * An sc_topo is the internal topo plus its route table, which is
 * built by the first sc_coll_simulate and kept: routes found for one
 * collective serve every later one on the same topology (a sweep over
 * message sizes asks for the same paths at each size).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/sched.h"
#include "core/mem.h"
#include "load/topo_json.h"
#include "net/flow.h"
#include "net/ncoll.h"
#include "net/route.h"
#include "net/topo_gen.h"
#include "report/esc.h"
#include "report/esc.h"
#include "stepcast.h"

struct sc_topo {
  topo *t;              /* owned; finalized and checked */
  route_table *routes;  /* owned, t's routing; NULL until the first run */
};

int sc_topo_load(const char *spec, sc_topo **out, sc_error *err) {
  *out = NULL;
  sc_topo *st = mem_calloc(1, sizeof *st);
  if (!st) return sc_error_set(err, SC_ENOMEM, "out of memory loading topology %s", spec);
  int rc = topo_load_spec(spec, &st->t, err);
  if (rc) {
    mem_free(st);
    return rc;
  }
  *out = st;
  return SC_OK;
}

void sc_topo_free(sc_topo *t) {
  if (!t) return;
  route_free(t->routes);
  topo_free(t->t);
  mem_free(t);
}

int sc_topo_gpus(const sc_topo *t) { return t->t->n_gpus; }

int sc_topo_domain_check(const sc_topo *t, int ranks, int per, const char *key, sc_error *err) {
  return topo_domain_check(t->t, ranks, per, key, err);
}

void sc_topo_describe(const sc_topo *t, FILE *out) { topo_describe(t->t, out); }

int sc_topo_check(const sc_topo *t, sc_error *err, char *warn, size_t warn_size) {
  return topo_check(t->t, err, warn, warn_size);
}

/* One line of warnings (up to '\n' or the end) as a JSON string. */
static const char *warn_line_json(FILE *out, const char *w) {
  const char *e = strchr(w, '\n');
  size_t len = e ? (size_t)(e - w) : strlen(w);
  char line[512];
  snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), w);
  esc_json(out, line);
  return e ? e + 1 : w + len;
}

/* What a topology's routing is, for the table. */
static const char *routing_what(int p) {
  switch ((route_policy)p) {
  case ROUTE_DMODK: return "dmodk (destination-mod-k: InfiniBand fat-tree routing)";
  case ROUTE_DOR: return "dor (dimension order)";
  case ROUTE_ECMP: break;
  }
  return "ecmp (hashed per source and destination: Ethernet ECMP)";
}

void sc_report_topo(FILE *out, sc_format fmt, const sc_topo *st, const char *warnings) {
  sc_report_topo_ex(out, fmt, st, warnings, -1);
}

void sc_report_topo_ex(FILE *out, sc_format fmt, const sc_topo *st, const char *warnings,
                       double exchange_Bps) {
  if (fmt == SC_FORMAT_TABLE) {
    topo_describe(st->t, out);
    fprintf(out, "routing      %s\n", routing_what(st->t->routing));
    if (exchange_Bps >= 0)
      fprintf(out, "exchange     %.3f GB/s per GPU per direction (GPU i <-> i + n/2, all at "
                   "once, %s routes)\n", exchange_Bps / 1e9,
              route_policy_name((route_policy)st->t->routing));
    if (warnings) {
      fprintf(out, "check        ok (connected, all bandwidths > 0)\n");
      if (warnings[0]) fprintf(out, "warnings\n%s\n", warnings);
    }
    return;
  }
  const topo *t = st->t;
  int count[TOPO_KIND_COUNT] = {0};
  for (int v = 0; v < t->n_nodes; v++) count[t->nodes[v].kind]++;
  double lo = 0, hi = 0, llo = 0, lhi = 0;
  for (int i = 0; i < t->n_links; i++) {
    double bw = t->links[i].bw, lat = t->links[i].lat;
    lo = i ? fmin(lo, bw) : bw, hi = fmax(hi, bw);
    llo = i ? fmin(llo, lat) : lat, lhi = fmax(lhi, lat);
  }
  if (fmt == SC_FORMAT_CSV) {
    int ex = exchange_Bps >= 0; /* the column only when measured (--check) */
    fprintf(out, "topology,nodes,gpus,nvswitches,nics,switches,links,bw_min_GBps,bw_max_GBps,"
                 "lat_min_us,lat_max_us,routing%s%s\n", ex ? ",exchange_GBps" : "",
            warnings ? ",check,warnings" : "");
    esc_csv(out, t->name, ',');
    fprintf(out, "%d,%d,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.6g", t->n_nodes, count[TOPO_GPU],
            count[TOPO_NVSWITCH], count[TOPO_NIC], count[TOPO_SWITCH], t->n_links, lo / 1e9,
            hi / 1e9, llo * 1e6, lhi * 1e6);
    fprintf(out, ",%s", route_policy_name((route_policy)t->routing));
    if (ex) fprintf(out, ",%.6g", exchange_Bps / 1e9);
    if (warnings) { /* the check's warnings in one cell, "; " between them (as JSON's list) */
      char cell[2048];
      size_t n = 0;
      for (const char *w = warnings; *w && n + 3 < sizeof cell; w++) {
        if (*w != '\n') cell[n++] = *w;
        else if (w[1]) cell[n++] = ';', cell[n++] = ' ';
      }
      cell[n] = '\0';
      fputs(",ok,", out);
      esc_csv(out, cell, '\n');
      return;
    }
    fputc('\n', out);
    return;
  }
  fprintf(out, "{\"topology\": ");
  esc_json(out, t->name);
  fprintf(out, ", \"nodes\": %d, \"gpus\": %d, \"nvswitches\": %d, \"nics\": %d, "
               "\"switches\": %d, \"links\": %d, \"bw_min_GBps\": %.6g, \"bw_max_GBps\": %.6g, "
               "\"lat_min_us\": %.6g, \"lat_max_us\": %.6g",
          t->n_nodes, count[TOPO_GPU], count[TOPO_NVSWITCH], count[TOPO_NIC], count[TOPO_SWITCH],
          t->n_links, lo / 1e9, hi / 1e9, llo * 1e6, lhi * 1e6);
  fprintf(out, ", \"routing\": \"%s\"", route_policy_name((route_policy)t->routing));
  if (exchange_Bps >= 0) fprintf(out, ", \"exchange_GBps\": %.6g", exchange_Bps / 1e9);
  if (warnings) {
    fprintf(out, ", \"check\": \"ok\", \"warnings\": [");
    for (const char *w = warnings; *w;) {
      if (w != warnings) fputs(", ", out);
      w = warn_line_json(out, w);
    }
    fputc(']', out);
  }
  fprintf(out, "}\n");
}

void sc_topo_write_dot(const sc_topo *t, FILE *out) { topo_write_dot(t->t, out); }

void sc_topo_generators_help(FILE *out) { topo_gen_help(out); }

int sc_topo_generator(int i, const char **name, const char **keys, const char **what) {
  return topo_gen_info(i, name, keys, what);
}

/* The unit of generator key k (its defaults' words): GB/s or Gb/s per
 * direction, microseconds, or "" for a count or ratio. */
static const char *gen_key_unit(const char *k, size_t len) {
  if ((len == 2 && !strncmp(k, "bw", 2)) || (len == 9 && !strncmp(k, "global_bw", 9)) ||
      (len == 6 && !strncmp(k, "nvlink", 6)))
    return "GB/s";
  if (len == 3 && !strncmp(k, "nic", 3)) return "Gb/s";
  if (len == 3 && !strncmp(k, "lat", 3)) return "us";
  return "";
}

/* The keys "n=8 bw=25" of a generator as JSON objects {"key", "default",
 * "unit"}, comma-separated. */
static void gen_keys_json(FILE *out, const char *keys) {
  for (const char *p = keys; *p;) {
    size_t len = strcspn(p, "=");
    if (!p[len]) break;
    double v = strtod(p + len + 1, NULL);
    fprintf(out, "%s{\"key\": \"%.*s\", \"default\": %.15g, \"unit\": \"%s\"}",
            p == keys ? "" : ", ", (int)len, p, v, gen_key_unit(p, len));
    p += len + strcspn(p + len, " ");
    p += strspn(p, " ");
  }
}

void sc_report_topo_generators(FILE *out, sc_format fmt) {
  const char *name, *keys, *what;
  if (fmt == SC_FORMAT_TABLE) {
    fprintf(out, "topology generators (bw, nvlink: GB/s per direction; nic: Gb/s; lat: us):\n");
    topo_gen_help(out);
    return;
  }
  if (fmt == SC_FORMAT_CSV) fputs("name,keys,description\n", out);
  else fputs("{\"generators\": [", out);
  for (int i = 0; !topo_gen_info(i, &name, &keys, &what); i++) {
    if (fmt == SC_FORMAT_CSV) {
      esc_csv(out, name, ',');
      esc_csv(out, keys, ',');
      esc_csv(out, what, '\n');
      continue;
    }
    fprintf(out, "%s\n {\"name\": ", i ? "," : "");
    esc_json(out, name);
    fputs(", \"keys\": [", out);
    gen_keys_json(out, keys);
    fputs("], \"description\": ", out);
    esc_json(out, what);
    fputc('}', out);
  }
  if (fmt == SC_FORMAT_JSON) fputs("]}\n", out);
}

/* The checks of sc_coll_simulate's counts; SC_OK or SC_EINPUT. */
static int check_counts(const sc_topo *t, double bytes, int ranks, int ranks_per_node,
                        int chunks, sc_error *err) {
  if (ranks < 1 || ranks > t->t->n_gpus)
    return sc_error_set(err, SC_EINPUT, "ranks %d: topology %s has %d GPUs (valid: 1..%d)",
                        ranks, t->t->name, t->t->n_gpus, t->t->n_gpus);
  if (ranks_per_node < 1 || ranks % ranks_per_node)
    return sc_error_set(err, SC_EINPUT, "ranks_per_node %d must divide ranks %d",
                        ranks_per_node, ranks);
  if (chunks < 1) return sc_error_set(err, SC_EINPUT, "chunks %d must be >= 1", chunks);
  if (!(bytes >= 0))
    return sc_error_set(err, SC_EINPUT, "bytes %g must be >= 0", bytes);
  return SC_OK;
}

/* Refuse what the algorithm cannot do on p->n ranks, and a schedule too
 * large to hold, before building it (SC_EINPUT with the estimate). */
static int check_schedule(const coll_alg *a, const sched_params *p, sc_error *err) {
  if (a->pow2 && (p->n & (p->n - 1)))
    return sc_error_set(err, SC_EINPUT,
                        "algorithm %s of %s needs a power-of-two rank count, got %d (valid: "
                        "%d or %d ranks, or another algorithm such as ring)",
                        a->name, coll_op_name(a->op), p->n, 1 << (int)floor(log2(p->n)),
                        2 << (int)floor(log2(p->n)));
  double nx = sched_size(a, p);
  if (nx > SCHED_MAX_XFERS)
    return sc_error_set(err, SC_EINPUT,
                        "algorithm %s of %s on %d ranks: its schedule has %.0f transfers, about "
                        "%.3g GB for the flow engine; the limit is %d transfers (%.3g GB): use "
                        "fewer ranks or the NCCL model (no --topo)",
                        a->name, coll_op_name(a->op), p->n, nx, nx * SCHED_BYTES_PER_XFER / 1e9,
                        SCHED_MAX_XFERS, SCHED_MAX_XFERS * SCHED_BYTES_PER_XFER / 1e9);
  return SC_OK;
}

int sc_coll_simulate(sc_topo *t, sc_coll_op op, const char *algo, double bytes, int ranks,
                     int ranks_per_node, int chunks, sc_progress_fn fn, void *ud,
                     double *seconds, sc_error *err) {
  int i = sc_coll_algo_find(op, algo, err);
  if (i < 0) return SC_EINPUT;
  int rc = check_counts(t, bytes, ranks, ranks_per_node, chunks, err);
  if (rc) return rc;
  if (!t->routes && !(t->routes = route_new(t->t, (route_policy)t->t->routing)))
    return sc_error_set(err, SC_ENOMEM, "out of memory for the routes of %s", t->t->name);
  sched_params p = {.n = ranks, .ppn = ranks_per_node, .chunks = chunks, .bytes = bytes};
  if ((rc = check_schedule(coll_alg_at(i), &p, err))) return rc;
  sched s;
  sched_init(&s);
  flow_stats st;
  if (coll_alg_at(i)->build(&s, &p))
    rc = sc_error_set(err, SC_ENOMEM, "out of memory building the %s schedule of %s",
                      coll_alg_at(i)->name, coll_op_name((coll_op)op));
  else
    rc = flow_run_ex(t->t, t->routes, &s, t->t->gpus, &st, fn, ud, err);
  sched_free(&s);
  if (rc == SC_OK) *seconds = st.time;
  return rc;
}

int sc_topo_exchange(sc_topo *t, double *Bps, sc_error *err) {
  *Bps = 0;
  int n = t->t->n_gpus, half = n / 2, rc = SC_OK;
  if (half < 1) return SC_OK;
  if (!t->routes && !(t->routes = route_new(t->t, (route_policy)t->t->routing)))
    return sc_error_set(err, SC_ENOMEM, "out of memory for the routes of %s", t->t->name);
  sched s;
  sched_init(&s);
  flow_stats st;
  int bad = sched_begin(&s, 1);
  for (int i = 0; i < half && !bad; i++)
    bad = sched_add(&s, i, i + half, 1e9) || sched_add(&s, i + half, i, 1e9);
  if (bad)
    rc = sc_error_set(err, SC_ENOMEM, "out of memory building the exchange of %s", t->t->name);
  else
    rc = flow_run(t->t, t->routes, &s, t->t->gpus, &st, err);
  sched_free(&s);
  if (rc == SC_OK && st.time > 0) *Bps = 1e9 / st.time;
  return rc;
}

int sc_coll_simulate_nccl(sc_topo *t, sc_coll_op op, double bytes, const sc_coll_group *g,
                          sc_progress_fn fn, void *ud, double *seconds, double *flow_s,
                          sc_error *err) {
  if (op < 0 || op >= SC_COLL_OP_COUNT)
    return sc_error_set(err, SC_EINPUT, "collective op %d is not an op", (int)op);
  int rc = check_counts(t, bytes, g->ranks, g->ranks_per_node, 1, err);
  if (rc) return rc;
  if (!t->routes && !(t->routes = route_new(t->t, (route_policy)t->t->routing)))
    return sc_error_set(err, SC_ENOMEM, "out of memory for the routes of %s", t->t->name);
  coll_group cg = coll_group_of(g);
  return ncoll_time(t->t, t->routes, (coll_op)op, bytes, &cg, t->t->gpus, fn, ud, seconds,
                    flow_s, err);
}
