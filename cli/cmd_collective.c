/*
 * cmd_collective.c -- `stepcast collective`: an nccl-tests-like table of
 * one collective over a size range: NCCL's model (sc_coll_nccl_time, the
 * algorithm and protocol NCCL would pick) and, with --topo, the flow
 * engine running a schedule on that topology (sc_coll_simulate), side by
 * side.
 *
 *   stepcast collective --op all_reduce --ranks 16 --ppn 8 --arch 80
 *       --nvlink 300 --nic 200 --min 1K --max 1G [--topo SPEC --algo ring]
 *       [--format text|json|csv]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "stepcast.h"

typedef struct opts {
  int op, ranks, ppn, arch;
  double nvlink, nic, min, max, factor;
  const char *topo, *algo, *format;
} opts;

/* Seconds since a fixed point (CLOCK_MONOTONIC), for the progress display
 * only: the CLI sees the public header alone, and the library's clock
 * (src/core/clock.h) is not part of it. */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Progress of a flow-engine run on a terminal's stderr: after the first
 * second, at most every 0.2 s. */
typedef struct progress {
  double t0, last;
  double bytes;
  int shown;
} progress;

static void show_progress(void *ud, double done) {
  progress *p = ud;
  double now = now_s();
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
  *o = (opts){SC_COLL_ALL_REDUCE, 8, 8, 80, 300, 200, 1024, 1 << 30, 2, NULL, "ring", "text"};
  int ppn_set = 0;
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(k, "-h") || !strcmp(k, "--help")) return -1;
    if (!v) return bad("missing value for", k);
    i++;
    char *end = NULL;
    if (!strcmp(k, "--op")) {
      if ((o->op = sc_coll_op_from_name(v)) < 0)
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

/* Load --topo into *t and check that --ranks and --algo fit it, before
 * any output; returns the exit code (0, 2, 3) after printing any error. */
static int load_topo(const opts *o, sc_topo **t) {
  sc_error err = {0};
  int rc = sc_topo_load(o->topo, t, &err);
  if (rc) {
    fprintf(stderr, "stepcast collective: %s\n", err.msg);
    return rc == SC_EIO ? 3 : 2;
  }
  if (sc_topo_gpus(*t) < o->ranks) {
    fprintf(stderr, "stepcast collective: --ranks %d is larger than the %d GPUs of %s\n",
            o->ranks, sc_topo_gpus(*t), o->topo);
    rc = 2;
  } else if (sc_coll_algo_find((sc_coll_op)o->op, o->algo, &err) < 0) {
    fprintf(stderr, "stepcast collective: %s\n", err.msg);
    rc = 2;
  }
  if (rc) {
    sc_topo_free(*t);
    *t = NULL;
  }
  return rc;
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
  sc_coll_op op = (sc_coll_op)o.op;
  sc_coll_group g = {o.ranks, o.ppn, o.arch, o.nvlink * 1e9, o.nic * 1e9 / 8, 0, 0, 0};
  sc_topo *t = NULL;
  if (o.topo && (rc = load_topo(&o, &t))) return rc;
  int json = !strcmp(o.format, "json"), csv = !strcmp(o.format, "csv");
  double fac = sc_coll_busbw_factor(op, o.ranks);
  if (json) printf("{\"op\": \"%s\", \"ranks\": %d, \"rows\": [", sc_coll_op_name(op), o.ranks);
  else if (csv) printf("bytes,nccl_us,nccl_algbw_GBps,nccl_busbw_GBps,algo,proto%s\n",
                       t ? ",flow_us,flow_busbw_GBps" : "");
  else printf("# %s, %d ranks (%d per node), sm%d, NVLink %g GB/s, NIC %g Gb/s%s%s\n"
              "%12s %12s %10s %10s %-12s%s\n",
              sc_coll_op_name(op), o.ranks, o.ppn, o.arch, o.nvlink, o.nic,
              t ? ", flow engine: " : "", t ? o.topo : "", "size(B)", "time(us)",
              "algbw", "busbw", "nccl-algo", t ? "   flow(us)  flow-busbw" : "");
  int first = 1, tty = isatty(fileno(stderr));
  for (double b = o.min; b <= o.max * 1.0000001 && rc == 0; b *= o.factor) {
    double bytes = floor(b);
    sc_coll_cost c = sc_coll_nccl_time(op, bytes, &g);
    double algbw = c.time > 0 ? bytes / c.time / 1e9 : 0;
    double ft = -1;
    if (t) {
      sc_error err = {0};
      progress pg = {now_s(), 0, bytes, 0};
      rc = sc_coll_simulate(t, op, o.algo, bytes, o.ranks, o.ppn, 8, tty ? show_progress : NULL,
                            &pg, &ft, &err);
      end_progress(&pg);
      if (rc) {
        fprintf(stderr, "stepcast collective: %s\n", err.msg);
        rc = rc == SC_ENOMEM ? 4 : 2;
        break;
      }
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
  sc_topo_free(t);
  return rc;
}
