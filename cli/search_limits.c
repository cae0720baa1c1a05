/*
 * search_limits.c -- the options of `stepcast search` that shape and bound
 * the search: fixed degrees (--tp, --pp, --dp, --cp, --ep), micro-batch
 * (--mb) and vpp (--vpp), the recomputation kinds (--recompute full), the
 * ZeRO stages (--zero 1,3), the GEMM types (--dtypes bf16,fp8), a memory margin
 * (--headroom 4 for GiB, 0.1 or 10% for a fraction), the space's bounds
 * (--max-tp, --max-pp, --max-mb, --max-vpp), the budgets (--max-plans,
 * --max-seconds), --threads, --all and --rerank / --no-rerank. Each is one key of the
 * library's sc_search_opts_set, which parses and checks the value (one
 * parser and one message format for the CLI and the bindings).
 * docs/search.md.
 */
#include <stdio.h>
#include <string.h>

#include "search_limits.h"

void search_limits_help(void) {
  printf("  --tp N, --pp N, --dp N, --cp N, --ep N   fix that degree (the rest is searched)\n"
         "  --mb N                fix the micro-batch (sequences; not bound by --max-mb)\n"
         "  --vpp N               fix the interleaving: 1 = 1F1B only, N > 1 = N chunks per\n"
         "                        stage (pp > 1; not bound by --max-vpp)\n"
         "  --recompute LIST      recomputation searched: none (offloading too), selective,\n"
         "                        full (every layer), partial (full for the first N layers\n"
         "                        of each chunk); e.g. full or full,partial (default all)\n"
         "  --zero LIST           ZeRO stages searched, e.g. 1,3 (default 0,1,2,3)\n"
         "  --dtypes LIST         GEMM types searched, e.g. bf16,fp8 (default the scenario's;\n"
         "                        fp8 changes numerics, so it is only searched when asked;\n"
         "                        a type the GPU has no peak for is skipped)\n"
         "  --headroom X          memory kept free on every GPU: GiB (4), or a fraction of\n"
         "                        its memory (0.1 or 10%%)\n");
}

/* Each option, the sc_search_opts_set key it sets, and for a switch (no
 * value) the value it sets the key to (NULL: the option takes a value). */
static const struct {
  const char *flag, *key, *sw;
} options[] = {
    {"--tp", "tp", NULL},          {"--pp", "pp", NULL},
    {"--dp", "dp", NULL},          {"--cp", "cp", NULL},
    {"--ep", "ep", NULL},          {"--zero", "zero", NULL},
    {"--mb", "micro_batch", NULL}, {"--vpp", "vpp", NULL},
    {"--recompute", "recompute", NULL},
    {"--dtypes", "dtypes", NULL},  {"--headroom", "headroom", NULL},
    {"--max-tp", "max_tp", NULL},  {"--max-pp", "max_pp", NULL},
    {"--max-mb", "max_micro_batch", NULL}, {"--max-vpp", "max_vpp", NULL},
    {"--threads", "threads", NULL}, {"--max-plans", "max_plans", NULL},
    {"--max-seconds", "max_seconds", NULL}, {"--all", "all", "1"},
    {"--rerank", "rerank", "1"}, {"--no-rerank", "rerank", "0"},
};

/* The ones a scenario flag of the same name would otherwise mean. */
const char *const search_limits_flags[] = {"--tp",   "--pp",     "--dp",       "--cp", "--ep",
                                           "--zero", "--dtypes", "--headroom", "--mb",
                                           "--vpp",  "--recompute", NULL};

/* The library's message names the key first ("max_micro_batch: expected
 * ..."): print it under the option's own name. */
static void print_error(const char *flag, const char *key, const char *msg) {
  size_t n = strlen(key);
  if (!strncmp(msg, key, n) && msg[n] == ':') fprintf(stderr, "stepcast search: %s%s\n", flag, msg + n);
  else fprintf(stderr, "stepcast search: %s: %s\n", flag, msg);
}

int search_limits_take(int argc, char **argv, int *i, sc_search_opts *o) {
  const char *a = argv[*i];
  for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
    if (strcmp(a, options[k].flag)) continue;
    const char *v = options[k].sw;
    if (!v) v = ++*i < argc ? argv[*i] : "";
    sc_error err = {0};
    if (sc_search_opts_set(o, options[k].key, v, &err) == SC_OK) return 1;
    print_error(a, options[k].key, err.msg);
    return -1;
  }
  return 0;
}

/* search_limits.h */
int search_limits_headroom(const char *cmd, const char *v, double *bytes, double *frac) {
  sc_search_opts so;
  sc_search_opts_default(&so);
  sc_error e = {0};
  if (sc_search_opts_set(&so, "headroom", v, &e)) {
    const char *msg = !strncmp(e.msg, "headroom:", 9) ? e.msg + 9 : e.msg;
    fprintf(stderr, "stepcast %s: --headroom:%s\n", cmd, msg);
    return 2;
  }
  *bytes = so.headroom_bytes;
  *frac = so.headroom_frac;
  return 0;
}

/* search_limits.h */
void search_limits_fit(sc_memory *m, double bytes, double frac) {
  double usable = sc_memory_usable(m->capacity, bytes, frac);
  m->headroom = m->capacity - usable; /* said in JSON (docs/output.md) */
  if (m->total > usable) m->fits = 0;
}

/* search_limits.h */
static void mark(sc_memory *m, const sc_search_opts *o) {
  m->headroom = m->capacity - sc_memory_usable(m->capacity, o->headroom_bytes, o->headroom_frac);
}

/* search_limits.h */
void search_limits_mark(sc_candidate *c, int n, sc_search_stats *st, const sc_search_opts *o) {
  for (int i = 0; i < n; i++) mark(&c[i].result.mem, o);
  if (st->has_closest) mark(&st->closest.result.mem, o);
}
