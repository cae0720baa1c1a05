/*
 * cmd_collective.c -- `stepcast collective`: an nccl-tests-like table of
 * one collective over a size range: NCCL's model (sc_coll_nccl_time, the
 * algorithm and protocol NCCL would pick) and, with --topo, the flow
 * engine running a schedule on that topology (sc_coll_simulate), side by
 * side.
 *
 *   stepcast collective --op all_reduce --ranks 16 --ppn 8 --arch 80
 *       --nvlink 300 --nic 200 [--fabric efa] --min 1K --max 1G
 *       [--topo SPEC --algo ring] [--pcie 31.5 (no NVLink: the slot's rate)]
 *       [--format table|json|csv]
 *
 * The sweep and its report are the library's (sc_coll_sweep_run,
 * sc_report_collective): every point is computed before anything is
 * printed, so an error leaves no half-written document.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "stepcast.h"

typedef struct opts {
  int op, ranks, ppn, arch, gpt, fabric, cpu;
  double nvlink, nic, min, max, factor;
  const char *topo, *algo, *html;
  sc_format format;
  double pcie; /* --pcie GB/s: no NVLink, the slot's x16 rate (0 = NVLink) */
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
  int shown;
} progress;

static void show_progress(void *ud, double done) {
  progress *p = ud;
  double now = now_s();
  if (now - p->t0 < 1.0 || now - p->last < 0.2) return;
  p->last = now;
  p->shown = 1;
  fprintf(stderr, "\rstepcast collective: flow engine: %3.0f %% of this size's transfers "
                  "(%.0f s)", 100 * done, now - p->t0);
}

static void end_progress(progress *p) {
  if (p->shown) fprintf(stderr, "\r%78s\r", "");
  p->shown = 0;
}

static int bad(const char *what, const char *val) {
  fprintf(stderr, "stepcast collective: %s '%s'\n", what, val ? val : "");
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

/* A whole number in 1..max (no sign, no overflow) into *out; 0 or -1. */
static int count(const char *s, long max, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno || v < 1 || v > max) return -1;
  *out = (int)v;
  return 0;
}

/* 1 when k is one of the options parse takes (each with a value). */
static int known(const char *k) {
  static const char *const names[] = {"--op", "--ranks", "--ppn", "--gpus-per-thread", "--arch",
                                      "--fabric", "--host-cpu", "--nvlink", "--nic", "--min", "--max", "--pcie",
                                      "--factor", "--topo", "--algo", "--html", "--format", NULL};
  for (int i = 0; names[i]; i++)
    if (!strcmp(k, names[i])) return 1;
  return 0;
}

static int parse(int argc, char **argv, opts *o) {
  sc_coll_sweep_opts d;
  sc_coll_sweep_default(&d);
  *o = (opts){d.op, d.ranks, d.ranks_per_node, d.arch, d.gpus_per_thread, d.fabric, d.host_cpu,
              d.nvlink_GBps, d.nic_Gbps,
              d.min_bytes, d.max_bytes, d.factor, NULL, NULL, NULL, SC_FORMAT_TABLE, 0};
  int ppn_set = 0, nvlink_set = 0;
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(k, "-h") || !strcmp(k, "--help")) return -1;
    if (!known(k)) return bad(k[0] == '-' ? "unknown option (see stepcast collective --help)"
                                          : "unexpected argument (every option takes --NAME VALUE)", k);
    if (!v && !strcmp(k, "--format")) return cli_format("collective", NULL, 1), 2; /* one wording */
    if (!v) {
      fprintf(stderr, "stepcast collective: %s expects a value (see stepcast collective --help)\n", k);
      return 2;
    }
    i++;
    char *end = NULL;
    if (!strcmp(k, "--op")) {
      if ((o->op = sc_coll_op_from_name(v)) < 0)
        return bad("--op expects all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, "
                   "reduce or send_recv, got", v);
    } else if (!strcmp(k, "--ranks")) {
      if (count(v, 1 << 24, &o->ranks)) return bad("--ranks expects an integer 1..16777216, got", v);
    } else if (!strcmp(k, "--ppn")) {
      if (count(v, 1 << 24, &o->ppn)) return bad("--ppn expects an integer 1..16777216, got", v);
      ppn_set = 1;
    } else if (!strcmp(k, "--gpus-per-thread")) {
      if (count(v, 1024, &o->gpt))
        return bad("--gpus-per-thread expects an integer 1..1024 (nccl-tests -g), got", v);
    } else if (!strcmp(k, "--arch")) {
      if (count(v, 199, &o->arch) || o->arch < 30) /* 7 or 800 for 70 or 80 ran as is */
        return bad("--arch expects an SM version 30..199 (70 V100, 80 A100, 90 H100, 100 B200), got",
                   v);
    }
    else if (!strcmp(k, "--fabric")) {
      if ((o->fabric = sc_fabric_from_name(v)) < 0)
        return bad("--fabric expects infiniband, roce, efa or tcpxo, got", v);
    }
    else if (!strcmp(k, "--host-cpu")) {
      if ((o->cpu = sc_host_cpu_from_name(v)) < 0)
        return bad("--host-cpu expects auto, intel, amd or arm, got", v);
    }
    else if (!strcmp(k, "--nvlink")) o->nvlink = strtod(v, &end), nvlink_set = 1;
    else if (!strcmp(k, "--pcie")) {
      o->pcie = strtod(v, &end);
      if (!(o->pcie > 0) && !(end && *end))
        return bad("--pcie expects the slot's x16 rate in GB/s > 0 (15.75 Gen3, 31.5 Gen4, "
                   "63 Gen5), got", v);
    }
    else if (!strcmp(k, "--nic")) o->nic = strtod(v, &end);
    else if (!strcmp(k, "--min") || !strcmp(k, "--max")) {
      double *b = k[3] == 'i' ? &o->min : &o->max;
      if ((*b = parse_size(v)) < 0) {
        fprintf(stderr, "stepcast collective: %s expects a size in bytes > 0 (64, 4K, 1M, 2G: "
                        "powers of 1024), got '%s'\n", k, v);
        return 2;
      }
    }
    else if (!strcmp(k, "--factor")) o->factor = strtod(v, &end);
    else if (!strcmp(k, "--topo")) o->topo = v;
    else if (!strcmp(k, "--algo")) o->algo = v;
    else if (!strcmp(k, "--html")) o->html = v;
    else if (!strcmp(k, "--format")) {
      int f = cli_format("collective", v, 1);
      if (f < 0) return 2;
      o->format = (sc_format)f;
    } else return bad("unknown option", k);
    if (end && *end) { /* the unit is the option's: a number alone */
      const char *unit = !strcmp(k, "--nic") ? "Gb/s per GPU per direction, e.g. 400"
                         : !strcmp(k, "--factor") ? "> 1, e.g. 2"
                         : !strcmp(k, "--pcie")   ? "the slot's x16 rate in GB/s, e.g. 31.5"
                                                  : "GB/s per GPU per direction, e.g. 450";
      fprintf(stderr, "stepcast collective: %s expects a number (%s), got '%s'\n", k, unit, v);
      return 2;
    }
  }
  if (nvlink_set && o->pcie > 0) /* --pcie won in silence, whatever the order */
    return bad("--nvlink and --pcie both given: --pcie means the GPUs have no NVLink; give "
               "one of them", "");
  if (o->algo && !o->topo)
    return bad("--algo picks the flow engine's algorithm on a --topo SPEC; give --topo too, "
               "got --algo", o->algo);
  if (!ppn_set && o->ppn > o->ranks) o->ppn = o->ranks;
  if (o->ranks < 1 || o->ranks > 1 << 24) {
    char got[32];
    snprintf(got, sizeof got, "%d", o->ranks);
    return bad("--ranks must be 1..16777216, got", got);
  }
  if (o->ppn < 1 || o->ranks % o->ppn) {
    fprintf(stderr, "stepcast collective: --ppn %d does not divide --ranks %d (ranks per node: "
                    "every node holds as many)\n", o->ppn, o->ranks);
    return 2;
  }
  if (o->gpt > o->ppn) { /* one thread's GPUs are in one process, on one node */
    fprintf(stderr, "stepcast collective: --gpus-per-thread %d is more than the %d GPUs per "
                    "node (--ppn)\n", o->gpt, o->ppn);
    return 2;
  }
  if (o->ppn % o->gpt) { /* each node runs whole processes of gpt GPUs */
    fprintf(stderr, "stepcast collective: --gpus-per-thread %d does not divide the %d GPUs per "
                    "node (--ppn): nccl-tests -g runs whole processes of that many GPUs on each "
                    "node; valid: a divisor of %d\n", o->gpt, o->ppn, o->ppn);
    return 2;
  }
  if (!(o->factor > 1)) {
    fprintf(stderr, "stepcast collective: --factor expects a number > 1 (e.g. 2), got %g\n",
            o->factor);
    return 2;
  }
  if (o->min > o->max) {
    fprintf(stderr, "stepcast collective: --min (%.0f bytes) is larger than --max (%.0f bytes)\n",
            o->min, o->max);
    return 2;
  }
  return 0; /* the library checks the bandwidths and sizes (sc_coll_sweep_run) */
}

int cmd_collective(int argc, char **argv) {
  opts o;
  int rc = parse(argc, argv, &o);
  if (rc < 0) {
    printf("usage: stepcast collective [--op OP] [--ranks N] [--ppn N] [--arch 70|80|90|100]\n"
           "  [--nvlink GB/s | --pcie GB/s] [--nic Gb/s] [--fabric infiniband|roce|efa|tcpxo]\n"
           "  [--host-cpu auto|intel|amd|arm] [--min SIZE] [--max SIZE] [--factor F]\n"
           "  [--gpus-per-thread N] [--topo SPEC --algo NAME] [--format table|json|csv]\n"
           "  [--html FILE]\n\n"
           "--gpus-per-thread N: one benchmark thread issues every collective for N GPUs\n"
           "(nccl-tests -g N in one process); each op then costs at least N x (5.19 us +\n"
           "0.31 us per channel) of host time. Default 1: one GPU per process\n"
           "(docs/network.md).\n"
           "--host-cpu: the servers' CPU, whose row of NCCL's tuner applies across nodes\n"
           "(AMD: a lower LL bandwidth cap, 2 us of network overhead a ring step). Default\n"
           "auto: the CPU of the GPU's reference server (DGX A100 AMD, the others Intel\n"
           "or Arm; docs/network.md).\n"
           "--pcie GB/s: the GPUs have no NVLink; they share PCIe slots of this x16 rate\n"
           "per direction (15.75 Gen3, 31.5 Gen4, 63 Gen5), which NCCL runs at 12 GB/s x\n"
           "rate / 15.75 (Gen4: 24 GB/s; docs/network.md, \"PCIe nodes\"). Not with --nvlink.\n"
           "--fabric: the scale-out network's kind; sets its per-traversal latency and\n"
           "achievable fraction of the NIC rate (docs/network.md, \"Fabrics\"). Default\n"
           "infiniband.\n"
           "--topo SPEC: also the collective on that topology: NCCL's schedule, its\n"
           "closed form scaled by what the network does to its links; --algo NAME runs\n"
           "that schedule alone in the flow engine instead. Both keep an A100's memory\n"
           "bound of NCCL's kernels (docs/network.md).\n"
           "--html FILE writes an HTML report with the bus-bandwidth curve (docs/report.md);\n"
           "'-' writes it to standard output instead of the table.\n"
           "Exit codes (docs/output.md): 0 ok, 2 bad input, 3 I/O error, 4 out of memory.\n");
    return 0;
  }
  if (rc) return rc;
  sc_coll_sweep_opts so;
  sc_coll_sweep_default(&so);
  so.op = (sc_coll_op)o.op;
  so.ranks = o.ranks;
  so.ranks_per_node = o.ppn;
  so.arch = o.arch;
  so.gpus_per_thread = o.gpt;
  so.fabric = o.fabric;
  so.host_cpu = o.cpu;
  so.nvlink_GBps = o.pcie > 0 ? o.pcie : o.nvlink;
  so.pcie = o.pcie > 0;
  so.nic_Gbps = o.nic;
  so.min_bytes = o.min;
  so.max_bytes = o.max;
  so.factor = o.factor;
  if (o.topo && snprintf(so.topo, sizeof so.topo, "%s", o.topo) >= (int)sizeof so.topo)
    return bad("--topo is longer than 255 characters:", o.topo);
  /* no --algo: NCCL's own schedule (the closed form; on a topology its
   * rings on the rails), src/coll/sweep.c */
  if (o.algo && snprintf(so.algo, sizeof so.algo, "%s", o.algo) >= (int)sizeof so.algo)
    return bad("--algo is longer than 31 characters:", o.algo);
  sc_coll_sweep sw;
  sc_error err = {0};
  progress pg = {now_s(), 0, 0};
  rc = sc_coll_sweep_run(&so, isatty(fileno(stderr)) ? show_progress : NULL, &pg, &sw, &err);
  end_progress(&pg);
  if (rc) {
    fprintf(stderr, "stepcast collective: %s\n", err.msg);
    return cli_exit_code(rc);
  }
  if (!cli_is_stdout(o.html)) sc_report_collective(stdout, o.format, &sw);
  if (o.html) {
    FILE *f = cli_open_out("collective", o.html);
    if (f) sc_html_collective(f, &sw);
    rc = f ? cli_close_out("collective", o.html, f) : 3;
  }
  sc_coll_sweep_free(&sw);
  return rc;
}
