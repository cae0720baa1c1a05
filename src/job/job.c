/*
 * job.c -- a prepared job (sc_job_*), and the one-call conveniences
 * sc_predict, sc_timeline and sc_explain_layer.
 *
 * The data flow of one evaluation, each step in its own module:
 *
 *   scenario --builder--> workload graph --lowering--> execution graph
 *     (src/model/)          (src/graph/)   (src/lower/)   (src/exec/)
 *   --engine--> stage costs, memory --> result / timeline
 *     (src/engine/)
 *
 * What does not depend on the plan is done once, in sc_job_open: the
 * model's workload graph is built (or read from its file), the topology
 * is loaded with its routes, and the collective memo starts empty. Every
 * sc_job_predict checks the plan, lowers it into the job's execution
 * graph (whose arrays are reused) and runs the analytic engine; it reads
 * no file and, once the arrays have grown, allocates nothing.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "core/mem.h"
#include "cost/compute.h"
#include "engine/engine.h"
#include "engine/qmemo.h"
#include "job/job.h"
#include "lower/lcache.h"
#include "lower/lower.h"
#include "model/builder.h"
#include "net/flow.h"
#include "plan/plan.h"

struct sc_job {
  sc_scenario s;          /* model and cluster resolved, plan as given */
  wg_graph *g;            /* owned, or borrowed read-only from the job it
                             shares (job_open_sharing: own_g 0) */
  int own_g;              /* 1: g is this job's to free */
  ncost *net;             /* owned (a view of another job's with
                             job_open_sharing), NULL without a topology */
  sc_scenario cur;        /* the scenario of the plan being evaluated */
  int cur_set;            /* 1: cur's model, cluster and dp are s's (set
                             once: resolving a plan writes only the plan) */
  xg x;                   /* the plan's execution graph (reused) */
  memo costs;             /* kernel and collective times of this job */
  memo bound_costs;       /* the same without the topology (job_bound) */
  lower_scratch ls;
  lcache lc;              /* the search's lowered plans (job_lower) */
  qmemo qm;               /* their engine queues (job_bound, job_finish) */
  flow_scratch fs;        /* the flow engine's arrays, lent to net (kept
                             by job_park) */
  int quiet;              /* job_quiet_checks */
  eng e;
};

/* A job with empty memos and arrays on scenario *in (copied, not yet
 * resolved), or NULL when out of memory. */
static sc_job *new_job(const sc_scenario *in) {
  sc_job *j = mem_calloc(1, sizeof *j);
  if (!j) return NULL;
  j->s = *in;
  xg_init(&j->x);
  memo_init(&j->costs);
  memo_init(&j->bound_costs);
  lcache_init(&j->lc);
  qmemo_init(&j->qm);
  flow_scratch_init(&j->fs);
  eng_init(&j->e);
  return j;
}

int sc_job_open(const sc_scenario *in, sc_job **out, sc_error *err) {
  *out = NULL;
  sc_job *j = new_job(in);
  if (!j) return sc_error_set(err, SC_ENOMEM, "out of memory opening a job");
  int rc = job_reopen(j, in, err);
  if (rc != SC_OK) {
    sc_job_close(j);
    return rc;
  }
  *out = j;
  return SC_OK;
}

int job_reopen(sc_job *j, const sc_scenario *in, sc_error *err) {
  assert(!j->g && !j->net && !j->cur_set);
  j->s = *in;
  int rc = sc_scenario_resolve_model(&j->s, err);
  if (rc == SC_OK) rc = model_builder_for(j->s.model.kind)->build(&j->s.model, &j->g, err);
  j->own_g = j->g != NULL;
  if (rc == SC_OK) rc = ncost_open(&j->s.cluster, &j->net, err);
  ncost_lend_scratch(j->net, &j->fs);
  /* the model and cluster as resolving them again leaves them: what
   * check() resolved for every plan before, so that it resolves only the
   * plan now (same bits, whether or not resolving twice changes them) */
  if (rc == SC_OK) rc = sc_scenario_resolve_model(&j->s, err);
  return rc;
}

/* j0's scenario as it stands (resolved: nothing is resolved or built
 * again) and its workload graph, borrowed: after sc_job_open nothing
 * writes a job's scenario or graph (every use takes them const), so the
 * threads of a search read one copy at once. */
int job_open_sharing(sc_job *j0, sc_job **out, sc_error *err) {
  *out = NULL;
  sc_job *j = new_job(&j0->s);
  if (!j) return sc_error_set(err, SC_ENOMEM, "out of memory opening a job");
  int rc = job_reopen_sharing(j, j0, err);
  if (rc != SC_OK) {
    sc_job_close(j);
    return rc;
  }
  *out = j;
  return SC_OK;
}

int job_reopen_sharing(sc_job *j, sc_job *j0, sc_error *err) {
  assert(!j->g && !j->net && !j->cur_set);
  j->s = j0->s;
  j->g = j0->g;
  int rc = ncost_open_sharing(j0->net, &j->net, err);
  ncost_lend_scratch(j->net, &j->fs);
  return rc;
}

void job_park(sc_job *j) {
  if (j->own_g) wg_free(j->g);
  j->g = NULL;
  j->own_g = 0;
  ncost_close(j->net);
  j->net = NULL;
  j->cur_set = 0;
  j->quiet = 0;
  memo_clear(&j->costs);
  memo_clear(&j->bound_costs);
  lcache_clear(&j->lc);
  qmemo_clear(&j->qm);
}

void sc_job_close(sc_job *j) {
  if (!j) return;
  if (j->own_g) wg_free(j->g);
  ncost_close(j->net);
  xg_free(&j->x);
  memo_free(&j->costs);
  memo_free(&j->bound_costs);
  lower_scratch_free(&j->ls);
  lcache_free(&j->lc);
  qmemo_free(&j->qm);
  flow_scratch_free(&j->fs);
  eng_free(&j->e);
  mem_free(j);
}

const sc_scenario *sc_job_scenario(const sc_job *j) { return &j->s; }

const sc_scenario *job_current(const sc_job *j) { return &j->cur; }

const wg_graph *job_graph(const sc_job *j) { return j->g; }

const xg *job_xg(const sc_job *j) { return j->e.x; }

const eng *job_eng(const sc_job *j) { return &j->e; }

/* Resolve j->cur and check it against the graph: SC_OK or SC_EINPUT
 * (with j->quiet, an empty message: job_quiet_checks). */
static int check(sc_job *j, sc_error *err) {
  sc_error *e = j->quiet ? NULL : err; /* NULL: no message formatted */
  /* j->cur is scratch; its model and cluster are j->s's, resolved */
  int rc = plan_resolve_plan(&j->cur, e);
  if (rc == SC_OK && j->cur.model.kind != SC_MODEL_TRANSFORMER) rc = lower_check(j->g, &j->cur, e);
  if (rc != SC_OK && j->quiet && err) {
    err->code = rc;
    err->msg[0] = '\0';
  }
  return rc;
}

static int lower_cur(sc_job *j, int memoise, sc_error *err);

/* j->cur = j->s with plan (NULL: j->s's): the whole scenario the first
 * time, then only the plan (4 KB -> 2.3 KB a plan, the search's). */
static void cur_from(sc_job *j, const sc_plan *plan) {
  if (!j->cur_set) {
    j->cur = j->s;
    j->cur_set = 1;
  }
#ifdef SC_DEBUG_CHECKS
  assert(!memcmp(&j->cur.model, &j->s.model, sizeof j->s.model) &&
         !memcmp(&j->cur.cluster, &j->s.cluster, sizeof j->s.cluster) &&
         !memcmp(&j->cur.dp, &j->s.dp, sizeof j->s.dp));
#endif
  j->cur.plan = plan ? *plan : j->s.plan;
}

/* Check plan (NULL: the scenario's) against the job and lower it into
 * j->x (with `memoise`, the search's: into or from j->lc), which j->e then
 * evaluates. */
static int check_and_lower(sc_job *j, const sc_plan *plan, int memoise, sc_error *err) {
  cur_from(j, plan);
  return lower_cur(j, memoise, err);
}

/* check_and_lower of the plan in j->cur. */
static int lower_cur(sc_job *j, int memoise, sc_error *err) {
  int rc = check(j, err);
  if (rc != SC_OK) return rc;
  const xg *x = &j->x;
  rc = memoise ? lcache_lower(&j->lc, j->g, &j->cur, &j->ls, &x, err)
            : lower_plan(j->g, &j->cur, &j->ls, &j->x, err);
  if (rc) return rc;
  j->e.s = &j->cur;
  j->e.g = j->g;
  j->e.x = x;
  j->e.net = j->net;
  j->e.costs = &j->costs;
  j->e.oom = 0;
  j->e.mem_ready = 0; /* a new graph or plan */
  /* the queues of segments the memo of segments numbered (qmemo.h) */
  j->e.qm = &j->qm;
  return SC_OK;
}

/* check_and_lower, then cost the plan's stages into j->e. */
static int prepare(sc_job *j, const sc_plan *plan, sc_error *err) {
  int rc = check_and_lower(j, plan, 0, err);
  return rc != SC_OK ? rc : eng_prepare(&j->e, err);
}

/* What went wrong beside the evaluation itself: a collective the flow
 * engine could not run, or a memo that could not grow. rc if not SC_OK. */
static int settle(sc_job *j, int rc, sc_error *err) {
  int net = ncost_error(j->net, err);
  if (rc == SC_OK) rc = net;
  if (rc == SC_OK && j->e.oom) rc = sc_error_set(err, SC_ENOMEM, "out of memory remembering costs");
  j->e.oom = 0;
  return rc;
}

/* A result whose numbers are not all finite comes from inputs beyond the
 * model's range (a bandwidth, peak or efficiency close to 0, sizes near
 * the limits): an input error, never a NaN or inf printed as an answer. */
static int finite_result(const sc_result *r, sc_error *err) {
  const double v[] = {r->step_s, r->tokens_per_s, r->mfu, r->mfu_lowp, r->tflops_per_gpu,
                      r->time.compute, r->time.host, r->time.tp_comm, r->time.ep_comm,
                      r->time.bubble, r->time.pp_comm, r->time.dp_comm, r->time.optimizer,
                      r->mem.total, r->model_flops};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!isfinite(v[i]) || (i == 0 && !(v[i] > 0)))
      return sc_error_set(err, SC_EINPUT,
                          "the prediction is not a finite number (step %g s, memory %g bytes): "
                          "an input is outside the model's range (a GPU peak, bandwidth or "
                          "efficiency near 0, or a size near its limit); valid: realistic "
                          "hardware numbers (docs/input.md)",
                          r->step_s, r->mem.total);
  return SC_OK;
}

int sc_job_predict(sc_job *j, const sc_plan *plan, sc_result *r, sc_error *err) {
  int rc = prepare(j, plan, err);
  if (rc == SC_OK) eng_result(&j->e, r);
  if (rc == SC_OK) rc = finite_result(r, err);
  /* the topology's collectives either all ran or the prediction fails */
  return settle(j, rc, err);
}

int sc_job_timeline(sc_job *j, const sc_plan *plan, sc_span **spans, size_t *n, double *step_s,
                    sc_error *err) {
  int rc = prepare(j, plan, err);
  if (rc == SC_OK) {
    rc = eng_timeline(&j->e, spans, n, step_s, err);
    if (rc == SC_OK && (rc = settle(j, rc, err)) != SC_OK) {
      mem_free(*spans);
      *spans = NULL;
    }
    return rc;
  }
  return settle(j, rc, err);
}

/* The first layer segment of the first stage. */
static const xg_segment *first_layer(const xg *x) {
  const xg_stage *st = &x->stages[0];
  for (int i = 0; i < st->n_runs; i++) {
    const xg_segment *sg = &x->segs[x->runs[st->first_run + i].segment];
    if (sg->role == WG_ROLE_LAYER) return sg;
  }
  return NULL;
}

int sc_job_explain_layer(sc_job *j, const sc_plan *plan, sc_op_time *out, int max,
                         sc_error *err) {
  int rc = settle(j, prepare(j, plan, err), err);
  if (rc != SC_OK) return -rc;
  static const char *const kinds[] = {"gemm", "attn", "mem", "comm"};
  const xg_segment *sg = first_layer(&j->x);
  int n = 0;
  for (int i = 0; sg && i < sg->n_tasks && n < max; i++, n++) {
    const xg_task *t = &j->x.tasks[sg->first_task + i];
    sc_op_time *o = &out[n];
    memset(o, 0, sizeof *o);
    lower_task_name(t, o->name, sizeof o->name);
    snprintf(o->kind, sizeof o->kind, "%s", kinds[t->kind]);
    o->flops = t->kind == XG_MEM || t->kind == XG_COMM ? 0 : t->flops;
    o->bytes = t->kind == XG_MEM || t->kind == XG_COMM ? t->bytes : 0;
    if (t->kind == XG_COMM) {
      o->fwd_s = eng_task_comm(&j->e, t, 0);
      /* a sequence-parallel gather's backward under plan.tp_async_bwd:
       * the reduce-scatter and the input gathered again */
      grp_share sh;
      o->bwd_s = eng_task_comm(&j->e, t, 1) + eng_regather(&j->e, t, &sh);
      continue;
    }
    o->fwd_s = eng_task_compute(&j->e, t, 0);
    o->bwd_s = eng_task_compute(&j->e, t, 1);
    if (t->kind == XG_GEMM) { /* what was costed: the kernel and the rate it achieves */
      double peak = cost_peak(&j->cur.cluster.gpu, t->dtype);
      o->eff = o->fwd_s > 0 && peak > 0 ? t->flops / (o->fwd_s * peak) : 0;
      int p = eng_task_gemm_path(&j->e, t);
      snprintf(o->path, sizeof o->path, "%s", p < 0 ? "conv" : cost_gemm_path_name(p));
    }
  }
  rc = settle(j, SC_OK, err);
  return rc != SC_OK ? -rc : n;
}

/* The operator kind a task belongs to, as sc_job_explain_kinds groups
 * them: the workload graph's op kind (wg_kind_name), linear and matmul
 * as "gemm", conv2d as "conv", the MoE route and unroute as one; an
 * unfused attention's GEMMs and softmax count as attention. */
static const char *task_kind(const eng *e, const xg_task *t) {
  if (t->kind == XG_COMM) return "comm";
  if (t->op < 0 || !e->g) return "other";
  wg_kind k = e->g->ops[t->op].kind;
  switch (k) {
  case WG_LINEAR: case WG_MATMUL: return "gemm"; /* the GEMM class */
  case WG_CONV: return "conv";
  case WG_UNROUTE: return wg_kind_name(WG_ROUTE); /* both halves of the routing */
  default: return wg_kind_name(k);
  }
}

/* The row of kind `name` in out[0..*n), added when missing (NULL when out
 * is full). */
static sc_op_time *kind_row(sc_op_time *out, int *n, int max, const char *name) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(out[i].name, name)) return &out[i];
  if (*n >= max) return NULL;
  sc_op_time *o = &out[(*n)++];
  memset(o, 0, sizeof *o);
  snprintf(o->name, sizeof o->name, "%s", name);
  snprintf(o->kind, sizeof o->kind, "kind");
  return o;
}

int sc_job_explain_kinds(sc_job *j, const sc_plan *plan, sc_op_time *out, int max,
                         sc_error *err) {
  int rc = settle(j, prepare(j, plan, err), err);
  if (rc != SC_OK) return -rc;
  const xg *x = &j->x;
  const xg_stage *st = &x->stages[0];
  int n = 0;
  for (int r = 0; r < st->n_runs; r++) {
    const xg_run *run = &x->runs[st->first_run + r];
    const xg_segment *sg = &x->segs[run->segment];
    for (int i = 0; i < sg->n_tasks; i++) {
      const xg_task *t = &x->tasks[sg->first_task + i];
      sc_op_time *o = kind_row(out, &n, max, task_kind(&j->e, t));
      if (!o) continue;
      if (t->kind == XG_COMM) {
        o->fwd_s += run->count * eng_task_comm(&j->e, t, 0);
        o->bwd_s += run->count * eng_task_comm(&j->e, t, 1);
        o->bytes += run->count * t->bytes;
        continue;
      }
      o->fwd_s += run->count * eng_task_compute(&j->e, t, 0);
      o->bwd_s += run->count * eng_task_compute(&j->e, t, 1);
      if (t->kind == XG_MEM) o->bytes += run->count * t->bytes;
      else o->flops += run->count * t->flops;
    }
  }
  rc = settle(j, SC_OK, err);
  return rc != SC_OK ? -rc : n;
}

/* ------------------------------------------ the event engine's hooks */

int job_prepare(sc_job *j, const sc_plan *plan, eng **e, sc_error *err) {
  *e = &j->e;
  return prepare(j, plan, err);
}

int job_settle(sc_job *j, int rc, sc_error *err) { return settle(j, rc, err); }

/* ------------------------------------------ phases, for the search */

int job_has_topology(const sc_job *j) { return j->net != NULL; }

long job_memo_hits(const sc_job *j) { return j->lc.hits; }

long job_queue_memo_hits(const sc_job *j) { return j->qm.hits; }

void job_quiet_checks(sc_job *j, int on) { j->quiet = on; }

sc_plan *job_plan(sc_job *j) {
  j->e.mem_ready = 0; /* j->cur, the engine's scenario, changes */
  cur_from(j, NULL);
  return &j->cur.plan;
}

/* The plan to evaluate into j->cur (NULL: job_plan's, already there). */
static void take_plan(sc_job *j, const sc_plan *plan) {
  j->e.mem_ready = 0; /* j->cur, the engine's scenario, may change */
  if (plan) cur_from(j, plan);
}

int job_check(sc_job *j, const sc_plan *plan, sc_error *err) {
  take_plan(j, plan);
  return check(j, err);
}

/* prepare()'s check and lowering, with the memory of every stage. */
int job_lower(sc_job *j, const sc_plan *plan, sc_memory *mem, sc_error *err) {
  take_plan(j, plan);
  int rc = lower_cur(j, 1, err);
  return rc != SC_OK ? rc : eng_prepare_memory(&j->e, mem, err);
}

double job_mem_floor_partial(const sc_job *j, int n) {
  return eng_memory_floor_partial(&j->e, j->e.mem_worst, n);
}

/* job_bound (floor 0) or job_bound_floor (1). */
static int bound_of(sc_job *j, int floor, double *step_s, sc_error *err) {
  j->e.net_bound = 1;
  j->e.costs = &j->bound_costs;
  int rc = eng_prepare(&j->e, err);
  sc_result r;
  if (rc == SC_OK && !floor) eng_result(&j->e, &r);
  *step_s = rc != SC_OK ? 0 : floor ? eng_step_floor(&j->e) : r.step_s;
#ifdef SC_DEBUG_CHECKS
  assert(rc != SC_OK || floor || !(eng_step_floor(&j->e) > r.step_s)); /* the floor's floor */
#endif
  j->e.net_bound = 0;
  j->e.costs = &j->costs;
  return settle(j, rc, err);
}

int job_bound(sc_job *j, double *step_s, sc_error *err) { return bound_of(j, 0, step_s, err); }

int job_bound_floor(sc_job *j, double *step_s, sc_error *err) {
  return bound_of(j, 1, step_s, err);
}

int job_finish(sc_job *j, sc_result *r, sc_error *err) {
  return job_finish_below(j, INFINITY, r, NULL, err);
}

int job_finish_below(sc_job *j, double bar, sc_result *r, double *floor_s, sc_error *err) {
  j->e.net = j->net;
  j->e.costs = &j->costs;
  int rc = eng_prepare(&j->e, err);
  double f = rc == SC_OK && (floor_s || bar < INFINITY) ? eng_step_floor(&j->e) : 0;
  if (floor_s) *floor_s = f;
  if (rc == SC_OK && !(f > bar)) {
    eng_result(&j->e, r);
    rc = finite_result(r, err);
#ifdef SC_DEBUG_CHECKS
    assert(rc != SC_OK || !(eng_step_floor(&j->e) > r->step_s)); /* never above the step */
#endif
  }
  return settle(j, rc, err);
}

int job_want(sc_job *j, int on) { return ncost_want(j->net, on); }

int job_help(sc_job *j) { return ncost_help(j->net); }

/* ----------------------------------------------------- one-call forms */

/* Resolve the whole scenario (so that plan errors come first, as they
 * always did), then open a job on it. */
static int open_resolved(const sc_scenario *in, sc_job **j, sc_error *err) {
  sc_scenario t = *in;
  int rc = sc_scenario_resolve(&t, err);
  if (rc != SC_OK) return rc;
  return sc_job_open(&t, j, err);
}

int sc_predict(const sc_scenario *s, sc_result *r, sc_error *err) {
  sc_job *j;
  int rc = open_resolved(s, &j, err);
  if (rc != SC_OK) return rc;
  rc = sc_job_predict(j, NULL, r, err);
  sc_job_close(j);
  return rc;
}

int sc_timeline(const sc_scenario *s, sc_span **spans, size_t *n, double *step_s,
                sc_error *err) {
  sc_job *j;
  int rc = open_resolved(s, &j, err);
  if (rc != SC_OK) return rc;
  rc = sc_job_timeline(j, NULL, spans, n, step_s, err);
  sc_job_close(j);
  return rc;
}

int sc_explain_layer(const sc_scenario *s, sc_op_time *out, int max, sc_error *err) {
  sc_job *j;
  int rc = open_resolved(s, &j, err);
  if (rc != SC_OK) return -rc;
  int n = sc_job_explain_layer(j, NULL, out, max, err);
  sc_job_close(j);
  return n;
}

int sc_explain_kinds(const sc_scenario *s, sc_op_time *out, int max, sc_error *err) {
  sc_job *j;
  int rc = open_resolved(s, &j, err);
  if (rc != SC_OK) return -rc;
  int n = sc_job_explain_kinds(j, NULL, out, max, err);
  sc_job_close(j);
  return n;
}
