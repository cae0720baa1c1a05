/*
 * test_alloc_faults.c -- out of memory at every allocation of the
 * topology generators and loader, routing, schedules, the flow engine,
 * the CSV reader, validation, and the CNN/BERT builders with the
 * data-parallel view.
 *
 * Each case runs its operation with mem_fail_after(n) for n = 0, 1, 2,
 * ... (allocation n + 1 and every later one fail) until the first
 * success. Every failure must be SC_ENOMEM (or the operation's documented
 * failure value, mapped to SC_ENOMEM here), caused by an injected fault;
 * the success must have needed no failed allocation and must give exactly
 * the result of a run without faults. What an iteration allocated is
 * freed before the next, so LeakSanitizer (the sanitizer build) reports
 * any leak of a failure path. Built only with SC_ALLOC_FAULTS.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/sched.h"
#include "core/mem.h"
#include "job/dpm.h"
#include "load/csv.h"
#include "load/topo_json.h"
#include "net/flow.h"
#include "net/route.h"
#include "net/topo_gen.h"
#include "sharedcable.h"
#include "tmpfile.h"
#include "validate/validate.h"

/* Leaks of one iteration, found at once where LeakSanitizer runs (the
 * sanitizer build) so that the message can name n; 0 elsewhere. */
#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define HAVE_LSAN 1
#elif defined(__has_feature) /* clang */
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#endif
#endif
#ifdef HAVE_LSAN
#include <sanitizer/lsan_interface.h>
static int leaked(void) { return __lsan_do_recoverable_leak_check(); }
#else
static int leaked(void) { return 0; }
#endif

/* More allocations than any case makes. */
#define MAX_ALLOCS 100000

/* An operation under test. run() makes the allocations, with faults
 * injected, and returns SC_OK, SC_ENOMEM or another code (a bug);
 * check() then runs without faults: it compares a success with the
 * fault-free result, and frees whatever run() left. */
typedef struct fault_case {
  char name[96];
  int (*run)(void *ctx);
  void (*check)(void *ctx, int rc, const char *name, long n);
  void *ctx;
  sc_error *err;  /* where run() reports, cleared before it; or NULL */
} fault_case;

/* Run c with n = 0, 1, 2, ... allocations allowed until it succeeds. */
static void fault_loop(const fault_case *c) {
  for (long n = 0; n < MAX_ALLOCS; n++) {
    if (c->err) *c->err = (sc_error){0};
    mem_fail_after(n);
    int rc = c->run(c->ctx);
    long made = mem_alloc_count();
    mem_fail_after(-1);
    cr_assert(rc == SC_OK || rc == SC_ENOMEM,
              "%s, n = %ld (allocation %ld and later fail): returned %d, expected "
              "SC_OK or SC_ENOMEM (%d)", c->name, n, n + 1, rc, SC_ENOMEM);
    cr_assert(rc == SC_OK || !c->err || !c->err->code ||
                  (c->err->code == rc && strstr(c->err->msg, "out of memory")),
              "%s, n = %ld: SC_ENOMEM with error %d, message '%s'", c->name, n,
              c->err->code, c->err->msg);
    cr_assert(rc != SC_OK || made <= n,
              "%s, n = %ld: succeeded although allocations %ld..%ld failed", c->name, n,
              n + 1, made);
    cr_assert(rc == SC_OK || made > n,
              "%s, n = %ld: SC_ENOMEM although none of its %ld allocations failed", c->name,
              n, made);
    c->check(c->ctx, rc, c->name, n);
    cr_assert(!leaked(), "%s, n = %ld: leaked memory (LeakSanitizer's report above)",
              c->name, n);
    if (rc == SC_OK) {
      cr_assert(n > 0, "%s: made no allocation, so no failure was injected", c->name);
      cr_log_info("%s: %ld allocations, every failure reported", c->name, n);
      return;
    }
  }
  cr_assert_fail("%s: still failing with %d allocations allowed", c->name, MAX_ALLOCS);
}

/* A new temporary file holding body; its path is written to path. */
static void write_tmp(const char *body, char *path, size_t size) {
  snprintf(path, size, "/tmp/sc_alloc_XXXXXX");
  tmp_write(path, body);
}

/* ------------------------------------------------------------ topologies */

/* Arrays of ints (structs are compared field by field: their padding
 * holds whatever the allocator left). */
#define SAME_INTS(a, b, count, what)                                                     \
  cr_assert(!memcmp((a), (b), sizeof(int) * (size_t)(count)), "%s, n = %ld: %s differ", \
            name, n, what)

/* got (built with faults injected) equals want (built without). */
static void same_topo(const topo *want, const topo *got, const char *name, long n) {
  cr_assert_not_null(got, "%s, n = %ld: SC_OK but no topology", name, n);
  cr_assert(want->n_nodes == got->n_nodes && want->n_links == got->n_links &&
                want->n_gpus == got->n_gpus,
            "%s, n = %ld: %d nodes, %d links, %d GPUs; expected %d, %d, %d", name, n,
            got->n_nodes, got->n_links, got->n_gpus, want->n_nodes, want->n_links,
            want->n_gpus);
  for (int v = 0; v < want->n_nodes; v++)
    cr_assert(!strcmp(want->nodes[v].name, got->nodes[v].name) &&
                  want->nodes[v].kind == got->nodes[v].kind,
              "%s, n = %ld: node %d is %s, expected %s", name, n, v, got->nodes[v].name,
              want->nodes[v].name);
  for (int i = 0; i < want->n_links; i++) {
    const topo_link *a = &want->links[i], *b = &got->links[i];
    cr_assert(a->src == b->src && a->dst == b->dst && a->bw == b->bw && a->lat == b->lat &&
                  a->dim == b->dim,
              "%s, n = %ld: link %d differs", name, n, i);
  }
  SAME_INTS(want->out_start, got->out_start, want->n_nodes + 1, "out-link offsets");
  SAME_INTS(want->out_link, got->out_link, want->n_links, "out-links");
  SAME_INTS(want->in_start, got->in_start, want->n_nodes + 1, "in-link offsets");
  SAME_INTS(want->in_link, got->in_link, want->n_links, "in-links");
  SAME_INTS(want->gpus, got->gpus, want->n_gpus, "GPU lists");
}

/* A topology made by `make` (a generator spec, JSON text or file). */
typedef struct topo_ctx {
  const char *src;
  int (*make)(const char *src, topo **out, sc_error *err);
  topo *want, *got;
  sc_error err;
} topo_ctx;

static int topo_run(void *p) {
  topo_ctx *c = p;
  return c->make(c->src, &c->got, &c->err);
}

static void topo_check_case(void *p, int rc, const char *name, long n) {
  topo_ctx *c = p;
  if (rc == SC_OK) same_topo(c->want, c->got, name, n);
  else cr_assert_null(c->got, "%s, n = %ld: failed but *out is set", name, n);
  topo_free(c->got);
  c->got = NULL;
}

static void topo_case(const char *name, const char *src,
                      int (*make)(const char *, topo **, sc_error *)) {
  topo_ctx c = {.src = src, .make = make};
  sc_error e = {0};
  cr_assert_eq(make(src, &c.want, &e), SC_OK, "%s without faults: %s", name, e.msg);
  fault_case fc = {.run = topo_run, .check = topo_check_case, .ctx = &c, .err = &c.err};
  snprintf(fc.name, sizeof fc.name, "%s", name);
  fault_loop(&fc);
  topo_free(c.want);
}

Test(alloc_faults, topology_generators) {
  const char *specs[] = {"fat_tree:hosts=64,radix=8", "fat_tree:hosts=32,radix=8,levels=2",
                         "rail:nodes=2,gpus=8",       "torus:x=4,y=4",
                         "mesh:x=3,y=3,z=2",          "ring:n=8",
                         "star:n=8,ps=1",             "tree:k=2,depth=3",
                         "expo:n=16",                 "dgx1",
                         "hier:nodes=2,gpus=4",       "dragonfly",
                         "fat_tree:hosts=32,radix=8,levels=2,gpus=8",
                         "rail:nodes=2,gpus=4,oversub=2"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
    char name[96];
    snprintf(name, sizeof name, "topo_gen %s", specs[i]);
    topo_case(name, specs[i], topo_gen);
  }
}

static const char *TOPO_JSON =
    "{\"name\": \"two-servers\",\n"
    " \"nodes\": [{\"name\": \"n0.gpu0\", \"kind\": \"gpu\"}, {\"name\": \"n0.gpu1\"},\n"
    "           {\"name\": \"n0.nvs\", \"kind\": \"nvswitch\"},\n"
    "           {\"name\": \"n1.gpu0\"}, {\"name\": \"n1.gpu1\"},\n"
    "           {\"name\": \"n1.nvs\", \"kind\": \"nvswitch\"},\n"
    "           {\"name\": \"core\", \"kind\": \"switch\"}],\n"
    " \"links\": [{\"from\": \"n0.gpu0\", \"to\": \"n0.nvs\", \"bw_GBps\": 300, \"lat_us\": 0.7},\n"
    "           {\"from\": \"n0.gpu1\", \"to\": \"n0.nvs\", \"bw_GBps\": 300, \"lat_us\": 0.7},\n"
    "           {\"from\": \"n1.gpu0\", \"to\": \"n1.nvs\", \"bw_GBps\": 300},\n"
    "           {\"from\": \"n1.gpu1\", \"to\": \"n1.nvs\", \"bw_GBps\": 300},\n"
    "           {\"from\": \"n0.nvs\", \"to\": \"core\", \"bw_GBps\": 50, \"duplex\": false},\n"
    "           {\"from\": \"core\", \"to\": \"n0.nvs\", \"bw_GBps\": 50, \"duplex\": false},\n"
    "           {\"from\": \"n1.nvs\", \"to\": \"core\", \"bw_GBps\": 50, \"lat_us\": 2}]}\n";

static int json_text(const char *src, topo **out, sc_error *err) {
  return topo_json_load_buffer(src, strlen(src), "two-servers.json", out, err);
}

Test(alloc_faults, topology_json) {
  /* jansson's own allocations fail too */
  json_set_alloc_funcs(mem_alloc, mem_free);
  topo_case("topo_json_load_buffer of nodes and links", TOPO_JSON, json_text);
  topo_case("topo_json_load_buffer of a generator", "{\"generator\": \"rail:nodes=2,gpus=4\"}",
            json_text);
  char path[64];
  write_tmp(TOPO_JSON, path, sizeof path);
  topo_case("topo_json_load_file", path, topo_json_load_file);
  unlink(path);
}

/* ---------------------------------------------------------------- routes */

typedef struct route_ctx {
  const topo *t;
  route_policy policy;
  route_table *want, *got;
} route_ctx;

/* Ask rt for the path of every GPU pair: 0 or route_path's failure. */
static int all_paths(const topo *t, route_table *rt) {
  for (int i = 0; i < t->n_gpus; i++)
    for (int j = 0; j < t->n_gpus; j++) {
      const int *p;
      int n;
      int rc = route_path(rt, t->gpus[i], t->gpus[j], &p, &n);
      if (rc) return rc;
    }
  return 0;
}

static int route_run(void *p) {
  route_ctx *c = p;
  c->got = route_new(c->t, c->policy);
  if (!c->got) return SC_ENOMEM;
  int rc = all_paths(c->t, c->got);
  return rc == ROUTE_NOMEM ? SC_ENOMEM : rc;
}

/* Every GPU pair's path in got equals the one in want. */
static void same_paths(const route_ctx *c, const char *name, long n) {
  const topo *t = c->t;
  for (int i = 0; i < t->n_gpus; i++)
    for (int j = 0; j < t->n_gpus; j++) {
      const int *pw, *pg;
      int nw, ng, a = t->gpus[i], b = t->gpus[j];
      cr_assert_eq(route_path(c->want, a, b, &pw, &nw), 0);
      cr_assert_eq(route_path(c->got, a, b, &pg, &ng), 0, "%s, n = %ld: %s -> %s lost",
                   name, n, t->nodes[a].name, t->nodes[b].name);
      cr_assert(nw == ng && (nw == 0 || !memcmp(pw, pg, sizeof *pw * (size_t)nw)),
                "%s, n = %ld: path %s -> %s differs", name, n, t->nodes[a].name,
                t->nodes[b].name);
    }
}

/* A success has every path right; so has a table whose route_path
 * failed, once memory is back (a failed call adds no path). */
static void route_check(void *p, int rc, const char *name, long n) {
  route_ctx *c = p;
  if (c->got) same_paths(c, name, n);
  route_free(c->got);
  c->got = NULL;
}

Test(alloc_faults, routes_between_all_gpu_pairs) {
  struct {
    const char *spec;
    route_policy policy;
  } cases[] = {{"fat_tree:hosts=64,radix=8", ROUTE_ECMP},
               {"fat_tree:hosts=64,radix=8", ROUTE_DMODK},
               {"rail:nodes=2,gpus=8", ROUTE_ECMP},
               {"torus:x=4,y=4", ROUTE_DOR}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    topo *t;
    sc_error e = {0};
    cr_assert_eq(topo_gen(cases[i].spec, &t, &e), SC_OK, "%s", e.msg);
    route_ctx c = {.t = t, .policy = cases[i].policy};
    c.want = route_new(t, c.policy);
    cr_assert(c.want && all_paths(t, c.want) == 0, "%s without faults", cases[i].spec);
    fault_case fc = {.run = route_run, .check = route_check, .ctx = &c};
    snprintf(fc.name, sizeof fc.name, "route_new + route_path on %s", cases[i].spec);
    fault_loop(&fc);
    route_free(c.want);
    topo_free(t);
  }
}

/* ------------------------------------------------------------- schedules */

typedef struct sched_ctx {
  const coll_alg *alg;
  sched_params p;
  sched want, got;
} sched_ctx;

static int sched_run(void *p) {
  sched_ctx *c = p;
  sched_init(&c->got);
  return c->alg->build(&c->got, &c->p) ? SC_ENOMEM : SC_OK;
}

static void sched_check(void *p, int rc, const char *name, long n) {
  sched_ctx *c = p;
  if (rc == SC_OK) {
    cr_assert(c->want.ns == c->got.ns && c->want.nx == c->got.nx,
              "%s, n = %ld: %d steps, %d transfers; expected %d, %d", name, n, c->got.ns,
              c->got.nx, c->want.ns, c->want.nx);
    for (int i = 0; i < c->want.ns; i++) {
      const sched_step *a = &c->want.s[i], *b = &c->got.s[i];
      cr_assert(a->first == b->first && a->count == b->count && a->repeat == b->repeat,
                "%s, n = %ld: step %d differs", name, n, i);
    }
    for (int i = 0; i < c->want.nx; i++) {
      const sched_xfer *a = &c->want.x[i], *b = &c->got.x[i];
      cr_assert(a->src == b->src && a->dst == b->dst && a->via == b->via &&
                    a->bytes == b->bytes,
                "%s, n = %ld: transfer %d differs", name, n, i);
    }
  }
  sched_free(&c->got);
}

Test(alloc_faults, schedules_of_every_algorithm) {
  for (int i = 0; i < coll_alg_count(); i++) {
    sched_ctx c = {.alg = coll_alg_at(i),
                   .p = {.n = 16, .ppn = 8, .chunks = 4, .bytes = 1e6, .alpha = 1e-6,
                         .bw = 25e9}};
    sched_init(&c.want);
    cr_assert_eq(c.alg->build(&c.want, &c.p), 0);
    fault_case fc = {.run = sched_run, .check = sched_check, .ctx = &c};
    snprintf(fc.name, sizeof fc.name, "%s %s build", coll_op_name(c.alg->op), c.alg->name);
    fault_loop(&fc);
    sched_free(&c.want);
  }
}

/* ------------------------------------------------------------ flow engine */

/* Route table, schedule and flow run from scratch, so that the flow
 * engine's pre-pass computes (and may fail to store) every route. */
typedef struct flow_ctx {
  const topo *t;
  const coll_alg *alg;
  sched_params p;
  flow_stats want, got;
  sc_error err;
} flow_ctx;

static int flow_run_case(void *p) {
  flow_ctx *c = p;
  route_table *rt = route_new(c->t, ROUTE_ECMP);
  sched s;
  sched_init(&s);
  int rc = SC_ENOMEM;
  if (rt && c->alg->build(&s, &c->p) == 0)
    rc = flow_run(c->t, rt, &s, c->t->gpus, &c->got, &c->err);
  sched_free(&s);
  route_free(rt);
  return rc;
}

static void flow_check(void *p, int rc, const char *name, long n) {
  flow_ctx *c = p;
  const flow_stats *w = &c->want, *g = &c->got;
  if (rc == SC_OK)
    cr_assert(w->time == g->time && w->bytes == g->bytes && w->solves == g->solves &&
                  w->events == g->events && w->max_flows == g->max_flows &&
                  w->mem_bytes == g->mem_bytes,
              "%s, n = %ld: time %.17g s, %g bytes, %ld solves; expected %.17g s, "
              "%g bytes, %ld solves", name, n, g->time, g->bytes, g->solves, w->time,
              w->bytes, w->solves);
}

static void flow_case(const char *spec, coll_op op, const char *alg) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen(spec, &t, &e), SC_OK, "%s", e.msg);
  flow_ctx c = {.t = t, .alg = coll_alg_find(op, alg),
                .p = {.n = t->n_gpus, .ppn = t->n_gpus, .chunks = 1, .bytes = 64e6}};
  cr_assert_not_null(c.alg, "no algorithm %s", alg);
  cr_assert_eq(flow_run_case(&c), SC_OK, "%s %s on %s: %s", coll_op_name(op), alg, spec,
               c.err.msg);
  c.want = c.got;
  fault_case fc = {.run = flow_run_case, .check = flow_check, .ctx = &c, .err = &c.err};
  snprintf(fc.name, sizeof fc.name, "flow_run of %s %s on %s", coll_op_name(op), alg, spec);
  fault_loop(&fc);
  topo_free(t);
}

Test(alloc_faults, flow_engine) {
  const char *specs[] = {"rail:nodes=2,gpus=4", "fat_tree:hosts=16,radix=8"};
  for (int i = 0; i < 2; i++) {
    flow_case(specs[i], COLL_ALL_REDUCE, "ring");
    flow_case(specs[i], COLL_ALL_TO_ALL, "pairwise");
  }
}

/* ------------------------------------------------------------ CSV reader */

typedef struct csv_ctx {
  const char *path;
  long records, want_records;
  unsigned long sum, want_sum; /* a hash of the fields */
  sc_error err;
} csv_ctx;

static int csv_run(void *p) {
  csv_ctx *c = p;
  csv_file f;
  c->records = 0, c->sum = 0;
  int rc = csv_open(&f, c->path, &c->err);
  if (rc) return rc;
  while ((rc = csv_next(&f, c->path, &c->err)) == 1) {
    c->records++;
    for (int i = 0; i < f.n_fields; i++)
      for (const char *s = f.field[i]; *s; s++) c->sum = c->sum * 31 + (unsigned char)*s + i;
  }
  csv_close(&f);
  return rc < 0 ? -rc : SC_OK;
}

static void csv_check(void *p, int rc, const char *name, long n) {
  csv_ctx *c = p;
  if (rc == SC_OK)
    cr_assert(c->records == c->want_records && c->sum == c->want_sum,
              "%s, n = %ld: %ld records (hash %lx), expected %ld (hash %lx)", name, n,
              c->records, c->sum, c->want_records, c->want_sum);
}

Test(alloc_faults, csv_reader) {
  /* large enough (about 300 KB) that the reader's buffer grows */
  size_t cap = 1 << 19, len = 0;
  char *body = malloc(cap);
  cr_assert_not_null(body);
  len += (size_t)snprintf(body, cap, "id,name,value\n");
  for (int i = 0; i < 12000; i++)
    len += (size_t)snprintf(body + len, cap - len, "%d,\"row, \"\"%d\"\"\",%g\n", i, i * 7,
                            i * 0.5);
  cr_assert(len > 1 << 18 && len < cap, "%zu bytes", len);
  char path[64];
  write_tmp(body, path, sizeof path);
  free(body);
  csv_ctx c = {.path = path};
  cr_assert_eq(csv_run(&c), SC_OK, "%s", c.err.msg);
  cr_assert_eq(c.records, 12000);
  c.want_records = c.records, c.want_sum = c.sum;
  fault_case fc = {.name = "csv_open + csv_next", .run = csv_run, .check = csv_check,
                   .ctx = &c, .err = &c.err};
  fault_loop(&fc);
  unlink(path);
}

/* ------------------------------------------------------------- validation */

typedef struct val_ctx {
  const char *path;
  val_file want, got;
  sc_error err;
} val_ctx;

static int val_case_run(void *p) {
  val_ctx *c = p;
  return sc_validate_file(c->path, &c->got, &c->err);
}

static void val_check(void *p, int rc, const char *name, long n) {
  val_ctx *c = p;
  const val_file *w = &c->want, *g = &c->got;
  if (rc == SC_OK) {
    cr_assert(g->n == w->n && g->predicted == w->predicted && g->skipped == w->skipped &&
                  g->mape == w->mape && g->median_ape == w->median_ape &&
                  g->max_ape == w->max_ape,
              "%s, n = %ld: %d rows (%d predicted, median %g); expected %d (%d, %g)", name,
              n, g->n, g->predicted, g->median_ape, w->n, w->predicted, w->median_ape);
    for (int i = 0; i < w->n; i++) {
      const val_row *a = &w->rows[i], *b = &g->rows[i];
      cr_assert(!strcmp(a->id, b->id) && a->predicted == b->predicted &&
                    !strcmp(a->skipped, b->skipped),
                "%s, n = %ld: row %d is %s %g '%s', expected %s %g '%s'", name, n, i, b->id,
                b->predicted, b->skipped, a->id, a->predicted, a->skipped);
    }
  } else {
    cr_assert_null(g->rows, "%s, n = %ld: failed but rows are left", name, n);
  }
  sc_validation_free(&c->got);
}

/* A CSV of the header and `rows` rows, row i in format fmt[i % 2] (a
 * printf format of i). */
static void val_case(const char *name, const char *header, const char *const fmt[2],
                     int rows) {
  size_t cap = 64 << 10, len = 0;
  char *body = malloc(cap);
  cr_assert_not_null(body);
  len += (size_t)snprintf(body, cap, "%s", header);
  for (int i = 0; i < rows; i++) len += (size_t)snprintf(body + len, cap - len, fmt[i % 2], i);
  cr_assert(len < cap);
  char path[64];
  write_tmp(body, path, sizeof path);
  free(body);
  val_ctx c = {.path = path};
  cr_assert_eq(sc_validate_file(path, &c.want, &c.err), SC_OK, "%s: %s", name, c.err.msg);
  cr_assert_eq(c.want.n, rows);
  fault_case fc = {.run = val_case_run, .check = val_check, .ctx = &c, .err = &c.err};
  snprintf(fc.name, sizeof fc.name, "sc_validate_file of %s", name);
  fault_loop(&fc);
  sc_validation_free(&c.want);
  unlink(path);
}

/* Rows in the format of tests/cli_e2e.sh, more than the first row array
 * holds (16) so that it grows; every other row is skipped (no preset for
 * its GPU). */
Test(alloc_faults, validation) {
  const char *training[2] = {
      "a%d,t,GPT,24,2304,24,,9216,51200,2048,,,512,16,1,1,32,1,1,1,0,0,full,fp16,"
      "a100-sxm4-80gb,32,8,8,300,200,3.5,iteration_time,\n",
      "b%d,t,GPT,24,2304,24,,9216,51200,2048,,,512,16,1,1,32,1,1,1,0,0,full,fp16,"
      "tpu-v9,32,8,8,300,200,3.5,iteration_time,\n"};
  val_case("a training set",
           "id,source,model,layers,hidden,heads,kv_heads,ffn,vocab,seq,experts,topk,"
           "global_batch,micro_batch,tp,pp,dp,cp,ep,vpp,sp,zero,recompute,dtype,gpu,gpus,"
           "gpus_per_node,nvlink_domain,nvlink_GBps,nic_Gbps,measured_iter_s,measured_from,"
           "notes\n",
           training, 20);
  const char *collective[2] = {
      "c%d,t,all_reduce,1048576,16,8,a100-sxm4-80gb,300,200,120.5,,\n",
      "d%d,t,all_reduce,1048576,16,8,tpu-v9,300,200,120.5,,\n"};
  val_case("a collective set",
           "id,source,op,bytes,ranks,gpus_per_node,gpu,nvlink_GBps,nic_Gbps,"
           "measured_time_us,measured_busbw_GBps,notes\n",
           collective, 20);
}

/* ------------------------------------------------------- jobs and engines */

typedef struct job_ctx {
  sc_scenario s;
  int what;                 /* 0 predict, 1 timeline, 2 a job with two plans, 3 search,
                               4 scenario file + predict, 5 collective sweep on a topology,
                               6 the event engine, 7 search re-ranked by it, 8 two
                               searches on one searcher (the second on its parked
                               job and space) */
  const char *path;         /* 4: the scenario file */
  sc_result want, got;
  double want2, got2;       /* timeline step, the second plan's step, or (7) the
                               first and last plans' event steps summed */
  size_t want_n, got_n;
  sc_error err;
} job_ctx;

static int job_run(void *ctx) {
  job_ctx *c = ctx;
  memset(&c->got, 0, sizeof c->got);
  c->got2 = 0;
  c->got_n = 0;
  switch (c->what) {
  case 0: return sc_predict(&c->s, &c->got, &c->err);
  case 1: {
    sc_span *spans = NULL;
    int rc = sc_timeline(&c->s, &spans, &c->got_n, &c->got2, &c->err);
    free(spans);
    return rc;
  }
  case 2: {
    sc_job *j = NULL;
    int rc = sc_job_open(&c->s, &j, &c->err);
    if (rc == SC_OK) rc = sc_job_predict(j, NULL, &c->got, &c->err);
    sc_plan p = c->s.plan;
    p.pp = 4;
    p.dp = 0;
    if (rc == SC_OK) {
      sc_result r2;
      rc = sc_job_predict(j, &p, &r2, &c->err);
      c->got2 = r2.step_s;
    }
    sc_job_close(j);
    return rc;
  }
  case 4: {
    sc_scenario s;
    int rc = sc_scenario_load_file(&s, c->path, NULL, 0, &c->err);
    return rc == SC_OK ? sc_predict(&s, &c->got, &c->err) : rc;
  }
  case 5: {
    sc_coll_sweep_opts o;
    sc_coll_sweep_default(&o);
    o.ranks = 16, o.ranks_per_node = 4, o.max_bytes = 1 << 20, o.factor = 4;
    snprintf(o.topo, sizeof o.topo, "%s", c->s.cluster.topology);
    sc_coll_sweep sw;
    int rc = sc_coll_sweep_run(&o, NULL, NULL, &sw, &c->err);
    if (rc == SC_OK) c->got2 = sw.points[sw.n - 1].flow_s, c->got_n = (size_t)sw.n;
    if (rc == SC_OK) sc_coll_sweep_free(&sw);
    return rc;
  }
  case 6: {
    sc_event_opts o = {1, 0};
    return sc_predict_event(&c->s, &o, &c->got, NULL, &c->err);
  }
  case 8: { /* one thread: as the search below */
    sc_searcher *sr = NULL;
    int rc = sc_searcher_open(1, &sr, &c->err), n = 0;
    sc_candidate best[3];
    sc_search_stats st;
    sc_search_opts o;
    sc_search_opts_default(&o);
    o.threads = 1;
    o.max_plans = 300;
    for (int i = 0; i < 2 && rc == SC_OK; i++)
      rc = sc_searcher_search(sr, &c->s, &o, best, 3, &n, &st, &c->err);
    sc_searcher_close(sr);
    if (rc == SC_OK && n > 0) c->got = best[0].result;
    c->got_n = (size_t)n;
    return rc;
  }
  default: {
    sc_candidate best[3];
    int n = 0;
    sc_search_stats st;
    /* One thread: injection and counting are per thread (core/mem.c), so
     * a failure on another OpenMP thread is neither injected nor counted,
     * and the main thread's count would depend on the schedule. The
     * first 600 plans keep the O(allocations^2) loop within CI's time. */
    sc_search_opts o;
    sc_search_opts_default(&o);
    o.threads = 1;
    o.max_plans = 600;
    if (c->what == 7) { /* the top plans (2 of the first 60 fit) re-run by the event engine */
      o.rerank = 1;
      o.max_plans = 60;
    }
    int rc = sc_search(&c->s, &o, best, 3, &n, &st, &c->err);
    if (rc == SC_OK && n > 0) c->got = best[0].result;
    if (rc == SC_OK && n > 0 && c->what == 7) c->got2 = best[0].event_s + best[n - 1].event_s;
    c->got_n = (size_t)n;
    return rc;
  }
  }
}

static void job_check(void *ctx, int rc, const char *name, long n) {
  job_ctx *c = ctx;
  if (rc != SC_OK) return;
  cr_assert(c->got.step_s == c->want.step_s && c->got.mem.total == c->want.mem.total &&
                c->got2 == c->want2 && c->got_n == c->want_n,
            "%s, n = %ld: step %g, memory %g, %g, %zu; expected %g, %g, %g, %zu", name, n,
            c->got.step_s, c->got.mem.total, c->got2, c->got_n, c->want.step_s,
            c->want.mem.total, c->want2, c->want_n);
}

static void job_case_path(const char *name, const sc_scenario *s, int what, const char *path) {
  job_ctx c = {.s = *s, .what = what, .path = path};
  cr_assert_eq(job_run(&c), SC_OK, "%s: %s", name, c.err.msg);
  c.want = c.got;
  c.want2 = c.got2;
  c.want_n = c.got_n;
  fault_case fc = {.run = job_run, .check = job_check, .ctx = &c, .err = &c.err};
  snprintf(fc.name, sizeof fc.name, "%s", name);
  fault_loop(&fc);
}

static void job_case(const char *name, const sc_scenario *s, int what) {
  job_case_path(name, s, what, NULL);
}

/* What `stepcast predict FILE` and `stepcast collective --topo` do, each
 * allocation failing in turn (jansson's too): SC_ENOMEM with "out of
 * memory" every time, nothing leaked, and then the fault-free answer. */
Test(alloc_faults, scenario_file_and_collective_sweep) {
  json_set_alloc_funcs(mem_alloc, mem_free);
  char path[64];
  write_tmp("{\"model\": \"gpt3-1.3b\", \"cluster\": {\"preset\": \"dgx-a100\", "
            "\"gpus\": 16},\n \"plan\": {\"tp\": 2, \"pp\": 2, \"global_batch\": 32}}\n",
            path, sizeof path);
  sc_scenario s;
  sc_scenario_default(&s);
  job_case_path("scenario file, then sc_predict", &s, 4, path);
  unlink(path);
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s", "fat_tree:hosts=16,radix=8");
  job_case("sc_coll_sweep_run on a fat-tree", &s, 5);
}

Test(alloc_faults, jobs) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.plan.pp = 4;
  s.plan.global_batch = 64;
  job_case("sc_predict of GPT-3 175B", &s, 0);
  job_case("sc_timeline of GPT-3 175B", &s, 1);
  s.plan.overrides[0] = (sc_override){.first = 0, .last = 7, .tp = SC_INHERIT, .cp = SC_INHERIT,
                                      .ep = SC_INHERIT, .sp = 0, .zero = SC_INHERIT,
                                      .recompute = SC_RECOMP_FULL};
  s.plan.n_overrides = 1;
  job_case("sc_predict with per-layer overrides", &s, 0);
  s.plan.n_overrides = 0;
  s.cluster.gpus = 64;
  s.plan.pp = 8;
  snprintf(s.cluster.topology, sizeof s.cluster.topology, "%s",
           "fat_tree:hosts=64,radix=16,levels=2,oversub=2,bw=25");
  job_case("a job on a fat-tree, two plans", &s, 2);
  /* the split backwards' queues and templates, DualPipe's two directions
   * and the run of its order (pipe_makespan on the engine's scratch) */
  sc_scenario d;
  sc_scenario_default(&d);
  d.model = *sc_model_preset("mixtral-8x7b");
  d.cluster.gpus = 16;
  d.plan.tp = 1, d.plan.pp = 4, d.plan.dp = 0, d.plan.micro_batch = 1;
  d.plan.ep = 4;
  d.plan.pp_first_layers = 7, d.plan.pp_last_layers = 9;
  d.plan.global_batch = 32;
  d.plan.schedule = SC_SCHED_DUALPIPE;
  job_case("sc_predict of Mixtral under DualPipe", &d, 0);
  job_case("sc_timeline of Mixtral under DualPipe", &d, 1);
  job_case("sc_predict_event of Mixtral under DualPipe", &d, 6);
  d.plan.schedule = SC_SCHED_ZBH1;
  job_case("sc_predict_event of Mixtral under ZB-H1", &d, 6);
  sc_scenario m;
  sc_scenario_default(&m);
  m.model = *sc_model_preset("mixtral-8x7b");
  m.cluster.gpus = 16;
  m.plan.global_batch = 32;
  job_case("sc_search of Mixtral on 16 GPUs", &m, 3);
  job_case("sc_search of Mixtral on 16 GPUs, re-ranked by the event engine", &m, 7);
  /* memory first, bounds, then the best-first pass on a topology */
  snprintf(m.cluster.topology, sizeof m.cluster.topology, "%s",
           "fat_tree:hosts=16,radix=8,levels=2,oversub=2,bw=25");
  job_case("sc_search of Mixtral on a 16-GPU fat-tree", &m, 3);
  job_case("sc_searcher_search twice on the fat-tree", &m, 8);
}

/* The event engine on a topology where a pass's expert all-to-alls and
 * the pipeline's sends share a cable (evlinks.c, evshare.c). */
Test(alloc_faults, event_engine_on_a_topology) {
  sc_scenario s = shared_cable(12);
  sc_error e = {0};
  char js[1024];
  job_case("sc_predict_event with passes sharing links", &s, 6);
  /* a flex dispatch there: its two legs' factors and links (fleet_flex_at) */
  snprintf(js, sizeof js,
           "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"preset\": \"dgx-a100\", "
           "\"gpus\": 12, \"gpus_per_node\": 2, \"topology\": "
           "\"%s/tests/data/two_switches.json\"}, \"plan\": {\"tp\": 1, \"pp\": 3, \"ep\": 4, "
           "\"pp_first_layers\": 10, \"pp_last_layers\": 11, \"global_batch\": 12, "
           "\"micro_batch\": 1, \"moe_dispatcher\": \"flex\"}}",
           SC_SOURCE_DIR);
  cr_assert_eq(sc_scenario_load_string(&s, js, "test", NULL, 0, &e), SC_OK, "%s", e.msg);
  job_case("sc_predict_event with a flex dispatch on a topology", &s, 6);
}

/* Nested selective recompute modules (the engines' re-run levels) and an
 * MoE dispatched over etp = tp > 1 (the expert-tensor legs' groups). */
Test(alloc_faults, recompute_modules_and_expert_tensor_dispatch) {
  sc_scenario s;
  sc_scenario_default(&s);
  sc_error e = {0};
  const char *js =
      "{\"model\": \"mixtral-8x7b\", \"cluster\": {\"preset\": \"dgx-h100\", \"gpus\": 16}, "
      "\"plan\": {\"tp\": 2, \"pp\": 2, \"ep\": 4, \"sp\": true, \"global_batch\": 16, "
      "\"micro_batch\": 1, \"moe_grouped_gemm\": true, \"recompute\": \"selective\", "
      "\"recompute_modules\": [\"moe\", \"moe_act\", \"layernorm\"]}}";
  cr_assert_eq(sc_scenario_load_string(&s, js, "test", NULL, 0, &e), SC_OK, "%s", e.msg);
  job_case("sc_predict with nested recompute modules, etp 2", &s, 0);
  job_case("sc_predict_event with nested recompute modules, etp 2", &s, 6);
}

/* ------------------------------------------ data-parallel schemes (dp) */

typedef struct dp_fault_ctx {
  sc_scenario s;
  sc_error err;
  sc_dp_result got[32];
  int n;
} dp_fault_ctx;

static int dp_fault_run(void *ctx) {
  dp_fault_ctx *c = ctx;
  c->n = sc_dp_compare(&c->s, c->got, 32, &c->err);
  return c->n < 0 ? -c->n : SC_OK;
}

static void dp_fault_check(void *ctx, int rc, const char *name, long n) {
  dp_fault_ctx *c = ctx;
  if (rc != SC_OK) return;
  sc_dp_result want[32];
  sc_error err = {0};
  int k = sc_dp_compare(&c->s, want, 32, &err);
  cr_assert(k == c->n && k > 0 && want[0].step_s == c->got[0].step_s &&
                want[k - 1].step_s == c->got[k - 1].step_s,
            "%s, n = %ld: %d schemes, expected %d", name, n, c->n, k);
}

Test(alloc_faults, dp_schemes) {
  dp_fault_ctx c = {0};
  sc_scenario_default(&c.s);
  c.s.model = *sc_model_preset("gpt3-125m");
  c.s.cluster.gpus = 16;
  c.s.plan.tp = c.s.plan.pp = 1;
  c.s.plan.sp = c.s.plan.zero = 0;
  c.s.plan.global_batch = 32;
  c.s.plan.micro_batch = 2;
  snprintf(c.s.dp.graph, sizeof c.s.dp.graph, "exp2");
  fault_case fc = {.run = dp_fault_run, .check = dp_fault_check, .ctx = &c, .err = &c.err};
  snprintf(fc.name, sizeof fc.name, "sc_dp_compare of GPT-3 125M on 16 GPUs with a graph");
  fault_loop(&fc);
}

/* ------------------------------------------- data-parallel models */

typedef struct dpm_ctx {
  sc_scenario s;
  dpm_model got;
  int want_n;
  double want_bwd;
  sc_error err;
} dpm_ctx;

static int dpm_run(void *ctx) {
  dpm_ctx *c = ctx;
  return dpm_layers(&c->s, &c->got, &c->err);
}

static void dpm_check(void *ctx, int rc, const char *name, long n) {
  dpm_ctx *c = ctx;
  if (rc == SC_OK)
    cr_assert(c->got.n == c->want_n && c->got.bwd_s == c->want_bwd,
              "%s, n = %ld: %d layers, backward %g; expected %d, %g", name, n, c->got.n,
              c->got.bwd_s, c->want_n, c->want_bwd);
  else
    cr_assert(c->got.n == 0 && !c->got.layers, "%s, n = %ld: a failure left layers", name, n);
  dpm_free(&c->got);
}

/* The CNN and BERT builders, their predictions and the data-parallel
 * view (src/model/cnn.c, bert.c, src/job/dpm.c). */
Test(alloc_faults, data_parallel_models) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("inception_v3");
  s.cluster.gpus = 1;
  s.plan.tp = s.plan.pp = 1;
  s.plan.zero = 0;
  s.plan.global_batch = 16;
  job_case("sc_predict of Inception-v3", &s, 0);
  s.model = *sc_model_preset("bert_base");
  job_case("sc_predict of BERT-base", &s, 0);
  dpm_ctx c = {.s = s};
  c.s.model = *sc_model_preset("resnet50");
  cr_assert_eq(dpm_run(&c), SC_OK, "%s", c.err.msg);
  c.want_n = c.got.n;
  c.want_bwd = c.got.bwd_s;
  dpm_free(&c.got);
  fault_case fc = {.run = dpm_run, .check = dpm_check, .ctx = &c, .err = &c.err};
  snprintf(fc.name, sizeof fc.name, "dpm_layers of ResNet-50");
  fault_loop(&fc);
}
