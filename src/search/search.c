/*
 * search.c -- walk the plan space and keep the fastest plans (sc_search).
 *
 * Every plan is one closed-form evaluation (sc_predict, about 10 us), so
 * an exhaustive walk of the usual space -- a few thousand plans -- takes
 * tens of milliseconds on one core. Plans the checks reject (tp not
 * dividing heads, micro-batch not dividing the batch, ...) are counted and
 * skipped; the best are kept in a small sorted array (insertion).
 */
#include <string.h>

#include "core/clock.h"
#include "job/job.h"
#include "stepcast.h"

/* Keep the fastest max plans in best[0..*n), fastest first. */
static void keep(sc_candidate *best, int max, int *n, const sc_candidate *c) {
  int pos = *n;
  while (pos > 0 && best[pos - 1].result.step_s > c->result.step_s) pos--;
  if (pos >= max) return;
  int last = *n < max ? *n : max - 1;
  memmove(&best[pos + 1], &best[pos], sizeof *best * (size_t)(last - pos));
  best[pos] = *c;
  if (*n < max) (*n)++;
}

typedef struct walk {
  const sc_scenario *base;
  sc_job *job;
  const sc_search_opts *o;
  sc_candidate *best;
  int max, n;
  sc_search_stats st;
  int rc;                 /* SC_OK, or what stopped the walk (out of memory) */
  sc_error *err;
} walk;

/* Evaluate plan p against the job. */
static void try_plan(walk *w, const sc_plan *p) {
  sc_candidate c;
  sc_error e = {0};
  if (w->rc != SC_OK) return;
  w->st.tried++;
  int rc = sc_job_predict(w->job, p, &c.result, &e);
  if (rc == SC_EINPUT) return; /* a plan the checks reject */
  if (rc != SC_OK) {
    w->rc = sc_error_set(w->err, rc, "%s", e.msg);
    return;
  }
  w->st.valid++;
  if (c.result.mem.fits) w->st.fit++;
  else if (w->o->require_fit) return;
  c.plan = job_current(w->job)->plan;
  keep(w->best, w->max, &w->n, &c);
}

/* The inner loops: micro-batch, schedule, ZeRO and recompute. */
static void walk_plan(walk *w, sc_plan p, long local) {
  static const sc_recompute recomp[] = {SC_RECOMP_NONE, SC_RECOMP_SELECTIVE, SC_RECOMP_FULL};
  static const int zeros[] = {1, 3};
  int layers_per_stage = job_graph(w->job)->layers / p.pp;
  for (long mb = 1; mb <= w->o->max_micro_batch && mb <= local; mb++) {
    if (local % mb) continue;
    p.micro_batch = mb;
    for (int vpp = 1; vpp <= (p.pp > 1 ? w->o->max_vpp : 1); vpp++) {
      if (layers_per_stage % vpp) continue;
      p.vpp = vpp;
      p.schedule = vpp > 1 ? SC_SCHED_INTERLEAVED : SC_SCHED_1F1B;
      for (size_t z = 0; z < sizeof zeros / sizeof *zeros; z++) {
        if (zeros[z] == 3 && p.pp > 1) continue; /* FSDP with pipelines: not a framework default */
        p.zero = zeros[z];
        p.overlap_grad_reduce = p.overlap_param_gather = 1;
        for (size_t r = 0; r < sizeof recomp / sizeof *recomp; r++) {
          p.recompute = recomp[r];
          try_plan(w, &p);
        }
      }
    }
  }
}

int sc_search(const sc_scenario *base, const sc_search_opts *opts,
              sc_candidate *best, int max_best, int *n_best,
              sc_search_stats *stats, sc_error *err) {
  /* check the model and cluster with a plan that cannot be wrong (one GPU
   * per replica, a batch of one sequence per GPU); the user's plan only
   * contributes its batch, dtype and switches */
  sc_scenario b = *base;
  sc_plan neutral = base->plan;
  neutral.tp = neutral.pp = neutral.cp = neutral.ep = neutral.vpp = 1;
  neutral.dp = 0;
  neutral.micro_batch = 0;
  neutral.schedule = SC_SCHED_1F1B;
  neutral.n_overrides = 0; /* the search picks one strategy for every layer */
  neutral.global_batch = base->cluster.gpus;
  b.plan = neutral;
  int rc = sc_scenario_resolve(&b, err);
  if (rc != SC_OK) return rc;
  b.plan.global_batch = base->plan.global_batch;
  if (b.plan.global_batch < 1)
    return sc_error_set(err, SC_EINPUT, "plan.global_batch: a search needs a global batch >= 1");
  sc_search_opts o = opts ? *opts : (sc_search_opts){0, 0, 0, 0, 1};
  int domain = b.cluster.nvlink_domain > 0 ? b.cluster.nvlink_domain : b.cluster.gpus_per_node;
  if (o.max_tp <= 0) o.max_tp = domain;
  if (o.max_pp <= 0) o.max_pp = 64;
  if (o.max_micro_batch <= 0) o.max_micro_batch = 16;
  if (o.max_vpp <= 0) o.max_vpp = 4;
  double t0 = clock_now_s();
  sc_job *job;
  if ((rc = sc_job_open(&b, &job, err)) != SC_OK) return rc;
  walk w = {&b, job, &o, best, max_best, 0, {0, 0, 0, 0}, SC_OK, err};
  const wg_graph *g = job_graph(job);
  int layers = g->layers, experts = 0;
  for (int i = 0; i < g->n_ops; i++)
    if (g->ops[i].expert && g->ops[i].experts > experts) experts = (int)g->ops[i].experts;
  int gpus = b.cluster.gpus;
  for (int tp = 1; tp <= o.max_tp && tp <= gpus; tp *= 2)
    for (int cp = 1; cp <= (g->seq >= 32768 ? 8 : 1); cp *= 2)
      for (int pp = 1; pp <= o.max_pp && pp <= layers; pp++) {
        if (layers % pp || gpus % (tp * cp * pp)) continue;
        int dp = gpus / (tp * cp * pp);
        if (b.plan.global_batch % dp) continue;
        for (int ep = 1; ep <= (experts > 1 ? experts : 1); ep *= 2) {
          if (experts > 1 && (experts % ep || (dp * cp) % ep)) continue;
          sc_plan p = b.plan;
          p.tp = tp;
          p.cp = cp;
          p.pp = pp;
          p.dp = dp;
          p.ep = ep;
          p.sp = tp > 1;
          p.distributed_optimizer = 0;
          walk_plan(&w, p, b.plan.global_batch / dp);
        }
      }
  sc_job_close(job);
  if (w.rc != SC_OK) return w.rc;
  w.st.seconds = clock_now_s() - t0;
  if (stats) *stats = w.st;
  *n_best = w.n;
  return SC_OK;
}
