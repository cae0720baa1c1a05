/*
 * cmd_collective.c -- `stepcast collective`: an nccl-tests-like table of
 * one collective over a size range: NCCL's model (coll_nccl_time, the
 * algorithm and protocol NCCL would pick) and, with --topo, the flow
 * engine running a schedule on that topology, side by side.
 *
 *   stepcast collective --op all_reduce --ranks 16 --ppn 8 --arch 80
 *       --nvlink 300 --nic 200 --min 1K --max 1G [--topo SPEC --algo ring]
 *       [--format text|json|csv]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "coll/coll.h"
#include "coll/sched.h"
#include "core/clock.h"
#include "net/flow.h"
#include "net/route.h"
#include "load/topo_json.h"

typedef struct opts {
  int op, ranks, ppn, arch;
  double nvlink, nic, min, max, factor;
  const char *topo, *algo, *format;
} opts;

/* Progress of a flow-engine run on a terminal's stderr: after the first
 * second, at most every 0.2 s. */
typedef struct progress {
  double t0, last;
  double bytes;
  int shown;
} progress;

static void show_progress(void *ud, double done) {
  progress *p = ud;
  double now = clock_now_s();
  if (now - p->t0 < 1.0 || now - p->last < 0.2) return;
  p->last = now;
  p->shown = 1;
  fprintf(stderr, "\rstepcast collective: flow engine, %.0f B: %3.0f %% of the transfers "
                  "(%.0f s)", p->bytes, 100 * done, now - p->t0);
}

static void end_progress(progress *p) {
  if (p->shown) fprintf(stderr, "\r%78s\r", "");
  p->shown = 0;
}

static int bad(const char *what, const char *val) {
  if (val && !*val) fprintf(stderr, "stepcast collective: %s\n", what);
  else fprintf(stderr, "stepcast collective: %s '%s'\n", what, val ? val : "(missing)");
  return 2;
}

/* "64", "4K", "1M", "2G" (powers of 1024) -> bytes; -1 if malformed. */
static double parse_size(const char *s) {
  char *end;
  double v = strtod(s, &end);
  double m = 1;
  if (*end == 'K' || *end == 'k') m = 1024, end++;
  else if (*end == 'M' || *end == 'm') m = 1048576, end++;
  else if (*end == 'G' || *end == 'g') m = 1073741824, end++;
  if (*end == 'B') end++;
  return end == s || *end || !(v > 0) ? -1 : v * m;
}

static int parse(int argc, char **argv, opts *o) {
  *o = (opts){COLL_ALL_REDUCE, 8, 8, 80, 300, 200, 1024, 1 << 30, 2, NULL, "ring", "text"};
  int ppn_set = 0;
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(k, "-h") || !strcmp(k, "--help")) return -1;
    if (!v) return bad("missing value for", k);
    i++;
    char *end = NULL;
    if (!strcmp(k, "--op")) {
      if ((o->op = coll_op_from_name(v)) < 0)
        return bad("unknown op (valid: all_reduce all_gather reduce_scatter all_to_all "
                   "broadcast reduce send_recv)", v);
    } else if (!strcmp(k, "--ranks")) o->ranks = (int)strtol(v, &end, 10);
    else if (!strcmp(k, "--ppn")) o->ppn = (int)strtol(v, &end, 10), ppn_set = 1;
    else if (!strcmp(k, "--arch")) o->arch = (int)strtol(v, &end, 10);
    else if (!strcmp(k, "--nvlink")) o->nvlink = strtod(v, &end);
    else if (!strcmp(k, "--nic")) o->nic = strtod(v, &end);
    else if (!strcmp(k, "--min")) { if ((o->min = parse_size(v)) < 0) return bad("bad size", v); }
    else if (!strcmp(k, "--max")) { if ((o->max = parse_size(v)) < 0) return bad("bad size", v); }
    else if (!strcmp(k, "--factor")) o->factor = strtod(v, &end);
    else if (!strcmp(k, "--topo")) o->topo = v;
    else if (!strcmp(k, "--algo")) o->algo = v;
    else if (!strcmp(k, "--format")) {
      if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "csv"))
        return bad("unknown format (valid: text json csv)", v);
      o->format = v;
    } else return bad("unknown option", k);
    if (end && *end) return bad("not a number:", v);
  }
  if (!ppn_set && o->ppn > o->ranks) o->ppn = o->ranks;
  if (o->ranks < 1 || o->ranks > 1 << 24) {
    char got[32];
    snprintf(got, sizeof got, "%d", o->ranks);
    return bad("--ranks must be 1..16777216, got", got);
  }
  if (o->ppn < 1 || o->ranks % o->ppn) return bad("--ppn must divide --ranks", "");
  if (!(o->factor > 1)) return bad("--factor must be > 1", "");
  if (o->min > o->max) return bad("--min is larger than --max", "");
  if (!(o->nvlink > 0) || !(o->nic > 0)) return bad("--nvlink and --nic must be > 0", "");
  return 0;
}

int cmd_collective(int argc, char **argv) {
  opts o;
  int rc = parse(argc, argv, &o);
  if (rc < 0) {
    printf("usage: stepcast collective [--op OP] [--ranks N] [--ppn N] [--arch 70|80|90|100]\n"
           "  [--nvlink GB/s] [--nic Gb/s] [--min SIZE] [--max SIZE] [--factor F]\n"
           "  [--topo SPEC --algo NAME] [--format text|json|csv]\n");
    return 0;
  }
  if (rc) return rc;
  coll_group g = {o.ranks, o.ppn, o.arch, o.nvlink * 1e9, o.nic * 1e9 / 8, 0, 0, 0};
  topo *t = NULL;
  route_table *rt = NULL;
  const coll_alg *alg = NULL;
  sc_error err = {0};
  if (o.topo) {
    if ((rc = topo_load_spec(o.topo, &t, &err))) {
      fprintf(stderr, "stepcast collective: %s\n", err.msg);
      return rc == SC_EIO ? 3 : 2;
    }
    if (t->n_gpus < o.ranks) {
      fprintf(stderr, "stepcast collective: --ranks %d is larger than the %d GPUs of %s\n",
              o.ranks, t->n_gpus, o.topo);
      topo_free(t);
      return 2;
    }
    alg = coll_alg_find((coll_op)o.op, o.algo);
    if (!alg) {
      fprintf(stderr, "stepcast collective: no algorithm '%s' for %s (valid:", o.algo,
              coll_op_name((coll_op)o.op));
      for (int i = 0; i < coll_alg_count(); i++)
        if ((int)coll_alg_at(i)->op == o.op) fprintf(stderr, " %s", coll_alg_at(i)->name);
      fprintf(stderr, ")\n");
      topo_free(t);
      return 2;
    }
    rt = route_new(t, ROUTE_ECMP);
  }
  int json = !strcmp(o.format, "json"), csv = !strcmp(o.format, "csv");
  double fac = coll_busbw_factor((coll_op)o.op, o.ranks);
  if (json) printf("{\"op\": \"%s\", \"ranks\": %d, \"rows\": [", coll_op_name((coll_op)o.op), o.ranks);
  else if (csv) printf("bytes,nccl_us,nccl_algbw_GBps,nccl_busbw_GBps,algo,proto%s\n",
                       t ? ",flow_us,flow_busbw_GBps" : "");
  else printf("# %s, %d ranks (%d per node), sm%d, NVLink %g GB/s, NIC %g Gb/s%s%s\n"
              "%12s %12s %10s %10s %-12s%s\n",
              coll_op_name((coll_op)o.op), o.ranks, o.ppn, o.arch, o.nvlink, o.nic,
              t ? ", flow engine: " : "", t ? o.topo : "", "size(B)", "time(us)",
              "algbw", "busbw", "nccl-algo", t ? "   flow(us)  flow-busbw" : "");
  sched s;
  sched_init(&s);
  int first = 1, tty = isatty(fileno(stderr));
  for (double b = o.min; b <= o.max * 1.0000001 && rc == 0; b *= o.factor) {
    double bytes = floor(b);
    coll_cost c = coll_nccl_time((coll_op)o.op, bytes, &g);
    double algbw = c.time > 0 ? bytes / c.time / 1e9 : 0;
    double ft = -1;
    if (t) {
      sched_clear(&s);
      sched_params p = {.n = o.ranks, .ppn = o.ppn, .chunks = 8, .bytes = bytes};
      flow_stats st;
      progress pg = {clock_now_s(), 0, bytes, 0};
      int failed = alg->build(&s, &p) ||
                   (rc = flow_run_ex(t, rt, &s, t->gpus, &st, tty ? show_progress : NULL,
                                     &pg, &err));
      end_progress(&pg);
      if (failed) {
        fprintf(stderr, "stepcast collective: %s\n", rc ? err.msg : "out of memory");
        rc = rc ? 2 : 4;
        break;
      }
      ft = st.time;
    }
    double fbus = ft > 0 ? bytes / ft / 1e9 * fac : 0;
    if (json)
      printf("%s\n {\"bytes\": %.0f, \"time_us\": %.3f, \"algbw_GBps\": %.3f, \"busbw_GBps\": "
             "%.3f, \"algo\": \"%s\", \"proto\": \"%s\"",
             first ? "" : ",", bytes, c.time * 1e6, algbw, algbw * fac, c.algo, c.proto);
    else if (csv)
      printf("%.0f,%.3f,%.3f,%.3f,%s,%s", bytes, c.time * 1e6, algbw, algbw * fac, c.algo, c.proto);
    else
      printf("%12.0f %12.2f %10.2f %10.2f %-5s/%-6s", bytes, c.time * 1e6, algbw, algbw * fac,
             c.algo, c.proto);
    if (t) {
      if (json) printf(", \"flow_us\": %.3f, \"flow_busbw_GBps\": %.3f", ft * 1e6, fbus);
      else if (csv) printf(",%.3f,%.3f", ft * 1e6, fbus);
      else printf(" %11.2f %11.2f", ft * 1e6, fbus);
    }
    printf(json ? "}" : "\n");
    first = 0;
  }
  if (json) printf("]}\n");
  sched_free(&s);
  route_free(rt);
  topo_free(t);
  return rc;
}
