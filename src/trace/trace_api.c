/*
 * trace_api.c -- the public trace functions of stepcast.h: load a job's
 * files, replay it, what it holds.
 */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "stepcast.h"
#include "trace/etjoin.h"
#include "trace/kineto.h"
#include "trace/replay.h"
#include "trace/tgraph_write.h"
#include "trace/trace_int.h"

void sc_trace_whatif_default(sc_trace_whatif *w) {
  memset(w, 0, sizeof *w);
  w->dp_scale = 1;
  w->overlap = 1;
}

static int load_chakra(sc_trace *t, const char *path, const char *buf, size_t len, sc_error *err) {
  if (t->job->n)
    return sc_error_set(err, SC_EINPUT, "%s: a Chakra ET in a job of Kineto traces: give one kind",
                        path);
  if (vec_grow((void **)&t->ch, &t->cap_ch, (long)t->n_ch + 1, sizeof *t->ch))
    return sc_error_set(err, SC_ENOMEM, "%s: out of memory", path);
  memset(&t->ch[t->n_ch], 0, sizeof t->ch[t->n_ch]);
  t->n_ch++;
  int rc = ch_load_buffer((const unsigned char *)buf, len, path, &t->ch[t->n_ch - 1], err);
  const ch_graph *g = &t->ch[t->n_ch - 1];
  if (!rc && (g->missing_deps || g->forward_deps))
    tg_warn(t->job, "%s: dependencies dropped: %ld on nodes not in the file, %ld on later nodes",
            path, g->missing_deps, g->forward_deps);
  return rc;
}

static int load_kineto(tg_job *j, const char *path, const char *buf, size_t len, sc_error *err) {
  if (vec_grow((void **)&j->r, &j->cap, (long)j->n + 1, sizeof *j->r))
    return sc_error_set(err, SC_ENOMEM, "%s: out of memory", path);
  memset(&j->r[j->n], 0, sizeof j->r[j->n]);
  j->n++;
  return kin_load_buffer(buf, len, path, &j->r[j->n - 1], j, err);
}

static int load_et(sc_trace *t, const char *path, const char *buf, size_t len, sc_error *err) {
  if (vec_grow((void **)&t->et, &t->cap_et, (long)t->n_et + 1, sizeof *t->et))
    return sc_error_set(err, SC_ENOMEM, "%s: out of memory", path);
  memset(&t->et[t->n_et], 0, sizeof t->et[t->n_et]);
  t->n_et++;
  return pet_load_buffer(buf, len, path, &t->et[t->n_et - 1], err);
}

/* Read one file (gzip or not) and load it by what it holds. */
static int load_one(sc_trace *t, const char *path, sc_error *err) {
  char *buf;
  size_t len;
  int rc = kin_read_file(path, &buf, &len, err);
  if (rc) return rc;
  if (ch_sniff((const unsigned char *)buf, len))
    rc = load_chakra(t, path, buf, len, err);
  else if (t->n_ch)
    rc = sc_error_set(err, SC_EINPUT, "%s: not a Chakra ET, in a job of Chakra ETs", path);
  else if (pet_sniff(buf, len))
    rc = load_et(t, path, buf, len, err);
  else
    rc = load_kineto(t->job, path, buf, len, err);
  mem_free(buf);
  return rc;
}

/* Order the ranks by their distributedInfo rank when every file has a
 * distinct one; warn when a job mixes GPUs. */
static void order_ranks(tg_job *j) {
  for (int a = 1; a < j->n; a++)
    for (int b = a; b > 0 && j->r[b].rank >= 0 && j->r[b].rank < j->r[b - 1].rank; b--) {
      tg_rank t = j->r[b];
      j->r[b] = j->r[b - 1], j->r[b - 1] = t;
    }
  for (int a = 1; a < j->n; a++)
    if (strcmp(j->r[a].device, j->r[0].device))
      tg_warn(j, "%s: device '%s' differs from rank 0's '%s'", j->r[a].path, j->r[a].device,
              j->r[0].device);
}

/* Two files of one job that name the same distributedInfo rank would be
 * joined as two ranks: refused (files are few: pairwise). */
static int distinct_ranks(const tg_job *j, sc_error *err) {
  for (int a = 1; a < j->n; a++)
    for (int b = 0; b < a; b++)
      if (j->r[a].rank >= 0 && j->r[a].rank == j->r[b].rank)
        return sc_error_set(err, SC_EINPUT,
                            "%s: distributedInfo.rank %d is also that of %s: give one file per "
                            "rank of one job",
                            j->r[a].path, j->r[a].rank, j->r[b].path);
  return SC_OK;
}

/* The files of one job agree on its size: two distributedInfo.world_size
 * that differ are files of two jobs, refused naming both (a file that
 * gives none agrees with any). */
static int same_world(const tg_job *j, sc_error *err) {
  const tg_rank *first = NULL;
  for (int a = 0; a < j->n; a++) {
    const tg_rank *r = &j->r[a];
    if (r->world <= 0) continue;
    if (!first)
      first = r;
    else if (r->world != first->world)
      return sc_error_set(err, SC_EINPUT,
                          "%s: distributedInfo.world_size %d differs from %s's %d: the files "
                          "are of different jobs (give the files of one job)",
                          r->path, r->world, first->path, first->world);
  }
  return SC_OK;
}

/* Some ranks of a larger job (trace_filter's 2 files of 128 ranks): the
 * collectives join over the given ranks only, which a warning says. */
static void warn_partial_world(tg_job *j) {
  int world = j->n ? j->r[0].world : 0;
  if (j->n > 1 && world > j->n)
    tg_warn(j,
            "%d of the job's %d ranks (distributedInfo.world_size) given: collectives are joined "
            "over these only; the other ranks' waits stay in the kernels' times",
            j->n, world);
}

/* The Kineto rank of et's process: the first unjoined one with its pid,
 * or the only one when one of each was given and a pid is unknown; -1. */
static int et_partner(const tg_job *j, const pet_graph *et, const char *joined, int n_et) {
  for (int i = 0; i < j->n; i++)
    if (!joined[i] && et->pid >= 0 && j->r[i].pid == et->pid) return i;
  return j->n == 1 && n_et == 1 && (et->pid < 0 || j->r[0].pid < 0) ? 0 : -1;
}

/* Replace the Kineto rank k of t with its join with et. */
static int join_one(sc_trace *t, const pet_graph *et, int k, sc_error *err) {
  tg_rank out = {0};
  ej_stats st;
  int rc = ej_join(et, &t->job->r[k], &out, &st, err);
  if (rc) return tg_rank_free(&out), rc;
  tg_rank_free(&t->job->r[k]);
  t->job->r[k] = out;
  t->et_ops += st.ops, t->et_matched += st.matched;
  if (st.matched < st.ops)
    tg_warn(t->job, "%s: %ld of %ld operators not in the Kineto trace, left out (first: %s)",
            et->path, st.ops - st.matched, st.ops, st.first_missing);
  return SC_OK;
}

/* Join every execution trace with the Kineto trace of its process. */
static int join_ets(sc_trace *t, sc_error *err) {
  tg_job *j = t->job;
  if (t->n_et && !j->n)
    return sc_error_set(err, SC_EINPUT,
                        "%s: a PyTorch execution trace has no durations: give the PyTorch "
                        "profiler (Kineto) trace of the same process with it (docs/trace.md)",
                        t->et[0].path);
  char *joined = mem_calloc((size_t)j->n + 1, 1);
  if (!joined) return sc_error_set(err, SC_ENOMEM, "trace: out of memory");
  int rc = SC_OK;
  for (int e = 0; e < t->n_et && !rc; e++) {
    int k = et_partner(j, &t->et[e], joined, t->n_et);
    if (k < 0)
      rc = sc_error_set(err, SC_EINPUT,
                        "%s: no Kineto trace of process %.0f among the files (an execution "
                        "trace is joined with the profiler trace of the same pid)",
                        t->et[e].path, t->et[e].pid);
    else if (joined[k])
      rc = sc_error_set(err, SC_EINPUT, "%s: a second execution trace for %s", t->et[e].path,
                        j->r[k].path);
    else
      joined[k] = 1, rc = join_one(t, &t->et[e], k, err);
  }
  if (!rc && t->n_et && t->n_et < j->n)
    tg_warn(j, "%d of %d ranks have no execution trace: they replay from their Kineto trace",
            j->n - t->n_et, j->n);
  mem_free(joined);
  return rc;
}

int sc_trace_load(const char *const *paths, int n, sc_progress_fn fn, void *ud, sc_trace **out,
                  sc_error *err) {
  *out = NULL;
  if (n < 1 || !paths) return sc_error_set(err, SC_EINPUT, "trace: no file given");
  sc_trace *t = mem_calloc(1, sizeof *t);
  if (!t || !(t->job = mem_calloc(1, sizeof *t->job))) {
    mem_free(t);
    return sc_error_set(err, SC_ENOMEM, "trace: out of memory");
  }
  for (int i = 0; i < n; i++) {
    int rc = load_one(t, paths[i], err);
    if (rc) {
      sc_trace_close(t);
      return rc;
    }
    if (fn) fn(ud, (double)(i + 1) / n);
  }
  int rc = join_ets(t, err);
  if (rc) {
    sc_trace_close(t);
    return rc;
  }
  order_ranks(t->job);
  rc = same_world(t->job, err);
  if (!rc) rc = distinct_ranks(t->job, err);
  if (rc) {
    sc_trace_close(t);
    return rc;
  }
  warn_partial_world(t->job);
  *out = t;
  return sc_error_set(err, SC_OK, "%s", "");
}

void sc_trace_close(sc_trace *t) {
  if (!t) return;
  tg_job_free(t->job);
  for (int i = 0; i < t->n_ch; i++) ch_free(&t->ch[i]);
  mem_free(t->ch);
  for (int i = 0; i < t->n_et; i++) pet_free(&t->et[i]);
  mem_free(t->et);
  rp_free(&t->run);
  mem_free(t);
}

const char *sc_trace_warnings(const sc_trace *t) {
  snprintf(((sc_trace *)t)->warn, sizeof t->warn, "%s%s%s", t->job->warn, t->run.warn,
           t->run.warn[0] ? "\n" : "");
  return t->warn;
}

/* What Chakra ETs hold: node counts by kind. */
static void chakra_info(const sc_trace *t, sc_trace_info *o) {
  o->ranks = t->n_ch, o->chakra = 1, o->steps = 1;
  for (int i = 0; i < t->n_ch; i++) {
    const ch_graph *g = &t->ch[i];
    o->et_comp += g->types[CH_COMP], o->et_comm_coll += g->types[CH_COLL];
    o->collectives += g->types[CH_COLL] + g->types[CH_SEND] + g->types[CH_RECV];
    for (int k = 0; k < g->nodes.n; k++)
      if (g->nodes.v[k].type == CH_COMP)
        o->host_calls += g->nodes.v[k].is_cpu, o->kernels += !g->nodes.v[k].is_cpu;
  }
}

void sc_trace_info_get(const sc_trace *t, sc_trace_info *o) {
  memset(o, 0, sizeof *o);
  if (t->n_ch) {
    chakra_info(t, o);
    return;
  }
  const tg_job *j = t->job;
  o->ranks = j->n;
  o->et_ops = t->et_ops, o->et_matched = t->et_matched;
  const tg_rank *r0 = &j->r[0];
  o->steps = r0->steps.n;
  snprintf(o->gpu, sizeof o->gpu, "%s", r0->device);
  o->arch = r0->arch, o->amd = r0->amd, o->world = r0->world;
  for (int ri = 0; ri < j->n; ri++) {
    const tg_rank *r = &j->r[ri];
    for (int i = 0; i < r->gpu.n; i++) {
      int k = r->gpu.v[i].kind;
      o->kernels += k == TG_KERNEL, o->copies += k == TG_MEMCPY || k == TG_MEMSET;
      o->collectives += k == TG_COMM;
    }
    for (int i = 0; i < r->host.n; i++) o->host_calls += r->host.v[i].kind == TG_CALL;
  }
}

int sc_trace_replay(sc_trace *t, const sc_trace_whatif *w, sc_trace_result *r, sc_error *err) {
  t->replayed = 0;
  int rc = t->n_ch ? rp_replay_chakra(&t->run, t->ch, t->n_ch, w, r, err)
                   : rp_replay(&t->run, t->job, w, r, err);
  t->replayed = rc == SC_OK;
  return rc;
}

int sc_trace_write_graph(const sc_trace *t, int rank, FILE *out, sc_error *err) {
  if (t->n_ch)
    return sc_error_set(err, SC_EINPUT,
                        "trace: a job of Chakra ETs is not exported (the ET is the graph)");
  if (rank < 0 || rank >= t->job->n)
    return sc_error_set(err, SC_EINPUT, "trace: rank %d: expected 0..%d", rank, t->job->n - 1);
  tgw_write(&t->job->r[rank], out);
  return sc_error_set(err, SC_OK, "%s", "");
}

int sc_trace_graph_name(const char *path, int rank, int ranks, char *buf, size_t n) {
  size_t len = strlen(path), stem = len > 5 && !strcmp(path + len - 5, ".json") ? len - 5 : len;
  if (ranks == 1) return snprintf(buf, n, "%s", path);
  return snprintf(buf, n, "%.*s-rank%d%s", (int)stem, path, rank, path + stem);
}
