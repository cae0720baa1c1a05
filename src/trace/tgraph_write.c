/*
 * tgraph_write.c -- see tgraph_write.h.
 */
#include "trace/tgraph_write.h"

#include <jansson.h>

/* s as a JSON string literal (jansson escapes it). */
static void jstr(FILE *out, const char *s) {
  json_t *v = json_string(s);
  if (!v) v = json_string("?"); /* not UTF-8 */
  if (v)
    json_dumpf(v, out, JSON_ENCODE_ANY);
  else
    fputs("\"?\"", out);
  json_decref(v);
}

/* The collective name the Kineto loader maps back to op (sc_coll_op). */
static const char *coll_name(int op) {
  switch (op) {
    case SC_COLL_ALL_REDUCE:
      return "allreduce";
    case SC_COLL_ALL_GATHER:
      return "allgather";
    case SC_COLL_REDUCE_SCATTER:
      return "reduce_scatter";
    case SC_COLL_ALL_TO_ALL:
      return "all_to_all";
    case SC_COLL_BROADCAST:
      return "broadcast";
    case SC_COLL_SEND_RECV:
      return "send_recv";
    case SC_COLL_REDUCE:
      return "reduce";
    default:
      return NULL;
  }
}

static void header(const tg_rank *r, FILE *out) {
  fputs("{\"schemaVersion\": 1,\n\"displayTimeUnit\": \"ms\",\n", out);
  fputs(
      "\"stepcast\": \"traced graph written by stepcast trace --export-graph "
      "(docs/trace.md)\",\n\"deviceProperties\": [{\"id\": 0, \"name\": ",
      out);
  jstr(out, r->device);
  if (r->arch)
    fprintf(out, ", \"computeMajor\": %d, \"computeMinor\": %d", r->arch / 10, r->arch % 10);
  fputs("}],\n", out);
  if (r->rank >= 0 && r->world > 0)
    fprintf(out, "\"distributedInfo\": {\"rank\": %d, \"world_size\": %d},\n", r->rank, r->world);
  else if (r->rank >= 0) /* what the trace gave: a rank alone, or a size alone */
    fprintf(out, "\"distributedInfo\": {\"rank\": %d},\n", r->rank);
  else if (r->world > 0)
    fprintf(out, "\"distributedInfo\": {\"world_size\": %d},\n", r->world);
  fputs("\"traceEvents\": [\n", out);
}

static void event(FILE *out, int *first, const char *cat, const char *name, double pid, double tid,
                  double ts, double dur) {
  fprintf(out, "%s{\"ph\": \"X\", \"cat\": \"%s\", \"name\": ", *first ? "" : ",\n", cat);
  jstr(out, name);
  fprintf(out, ", \"pid\": %.17g, \"tid\": %.17g, \"ts\": %.17g, \"dur\": %.17g", pid, tid, ts,
          dur);
  *first = 0;
}

/* args of a collective: its op, size in bytes (1-byte elements as the
 * loader reads them: an all-gather's output, else the input) and group. */
static void coll_args(const tg_gpu *g, FILE *out) {
  const char *cn = coll_name(g->coll_op);
  if (cn) fprintf(out, ", \"Collective name\": \"%s\"", cn);
  if (g->bytes > 0) {
    int k = g->group > 0 ? g->group : 1;
    double in = g->coll_op == SC_COLL_ALL_GATHER ? g->bytes / k : g->bytes;
    double outb = g->coll_op == SC_COLL_REDUCE_SCATTER ? g->bytes / k
                  : g->coll_op == SC_COLL_ALL_GATHER   ? g->bytes
                                                       : g->bytes;
    fprintf(out, ", \"In msg nelems\": %.17g, \"Out msg nelems\": %.17g, \"dtype\": \"Byte\"", in,
            outb);
  }
  if (g->group > 0) fprintf(out, ", \"Group size\": %d", g->group);
}

void tgw_write(const tg_rank *r, FILE *out) {
  static const char *const cats[] = {[TG_KERNEL] = "kernel",
                                     [TG_MEMCPY] = "gpu_memcpy",
                                     [TG_MEMSET] = "gpu_memset",
                                     [TG_COMM] = "kernel"};
  double pid = r->pid >= 0 ? r->pid : 1;
  int first = 1;
  header(r, out);
  for (int i = 0; i < r->steps.n; i++) {
    const tg_step *s = &r->steps.v[i];
    char name[40];
    snprintf(name, sizeof name, "ProfilerStep#%ld", s->number);
    event(out, &first, "user_annotation", name, pid, s->thread + 1, s->ts, s->dur);
    fputc('}', out);
  }
  for (int i = 0; i < r->host.n; i++) {
    const tg_host *h = &r->host.v[i];
    if (h->kind != TG_CALL) continue;
    event(out, &first, "cuda_runtime", tg_str(r, h->name), pid, h->thread + 1, h->ts, h->dur);
    fprintf(out, ", \"args\": {\"stepcast wait op\": %d, \"stepcast own us\": %.17g",
            h->sync ? h->wait_op : -1, h->sync ? tg_sync_own(r, h) : 0.0);
    if (h->corr >= 0) fprintf(out, ", \"correlation\": %.17g", h->corr);
    fputs("}}", out);
  }
  for (int i = 0; i < r->gpu.n; i++) {
    const tg_gpu *g = &r->gpu.v[i];
    event(out, &first, cats[g->kind], tg_str(r, g->name), 0, g->stream, g->ts, g->dur);
    fprintf(out, ", \"args\": {\"stepcast op\": %d, \"stream\": %d", i, g->stream);
    if (g->corr >= 0) fprintf(out, ", \"correlation\": %.17g", g->corr);
    if (g->kind == TG_COMM) coll_args(g, out);
    fputs("}}", out);
  }
  fputs("\n]}\n", out);
}
