/*
 * dpm.c -- the data-parallel view of a model; see dpm.h.
 *
 * One worker is predicted as a one-GPU job (tp = pp = cp = 1, no
 * recomputation, the worker's batch as one micro-batch); its execution
 * graph is then walked backwards: segments of the only stage in reverse
 * run order, instances in reverse, tasks in reverse. Every task's backward
 * GPU time (eng_task_compute) accumulates until the last backward task of
 * an operator with parameters: that operator's gradient is ready there,
 * and the accumulated time is its entry's bwd_s.
 */
#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "cost/compute.h"
#include "engine/engine.h"
#include "exec/xg.h"
#include "job/dpm.h"
#include "job/job.h"

/* The one-GPU scenario of a worker of s. */
static sc_scenario worker(const sc_scenario *s) {
  sc_scenario w = *s;
  sc_plan *p = &w.plan;
  long batch = p->micro_batch > 0 ? p->micro_batch
               : s->cluster.gpus > 0 ? p->global_batch / s->cluster.gpus
                                     : p->global_batch;
  if (batch < 1) batch = 1;
  w.cluster.gpus = 1;
  w.cluster.gpus_per_node = 1;
  w.cluster.topology[0] = '\0'; /* and its cable what-ifs: a worker alone has no network */
  w.cluster.link_fail[0] = w.cluster.link_degrade[0] = '\0';
  p->tp = p->pp = p->cp = p->ep = p->etp = p->dp = 1;
  p->vpp = 1;
  p->sp = 0;
  p->zero = 0;
  p->recompute = SC_RECOMP_NONE;
  p->n_overrides = 0;
  p->n_pp_layout = 0;
  p->pp_first_layers = p->pp_last_layers = 0;
  p->pp_embedding_in_split = p->pp_loss_in_split = 0;
  p->global_batch = p->micro_batch = batch;
  return w;
}

/* Append one entry; -1 when out of memory. */
static int push(dpm_model *m, int *cap, const wg_graph *g, const wg_block *b, int op, int inst,
                double bwd, double host, double fwd, double host_fwd) {
  if (m->n == *cap) {
    int nc = *cap ? 2 * *cap : 64;
    dpm_layer *l = mem_realloc(m->layers, (size_t)nc * sizeof *l);
    if (!l) return -1;
    m->layers = l, *cap = nc;
  }
  const wg_op *o = &g->ops[op];
  dpm_layer *l = &m->layers[m->n++];
  memset(l, 0, sizeof *l);
  if (b->count > 1)
    snprintf(l->name, sizeof l->name, "%.31s[%d].%.20s", b->name, inst, o->name);
  else
    snprintf(l->name, sizeof l->name, "%.31s.%.31s", b->name, o->name);
  l->op = op;
  l->instance = inst;
  l->params = o->params;
  l->tensors = wg_op_tensors(o); /* its gradient tensors */
  l->bwd_s = bwd;
  l->host_bwd_s = host;
  l->fwd_s = fwd;
  l->host_fwd_s = host_fwd;
  m->params += l->params;
  m->tensors += l->tensors;
  return 0;
}

/* An operator whose gradient a data-parallel scheme exchanges. */
static int has_grad(const wg_graph *g, int op) {
  return op >= 0 && g->ops[op].params > 0 && !g->ops[op].tied;
}

/* Walk the segment runs of stage 0 backwards (see the top). */
static int walk(const sc_job *j, dpm_model *m) {
  const xg *x = job_xg(j);
  const eng *e = job_eng(j);
  const wg_graph *g = job_graph(j);
  const sc_scenario *s = job_current(j);
  double launch = s->plan.framework_eager ? cost_launch(&s->cluster.gpu) : 0;
  if (s->plan.cuda_graphs) launch = 0;
  const xg_stage *st = &x->stages[0];
  double acc = 0, acc_host = 0, acc_fwd = 0, acc_host_fwd = 0;
  int cap = 0;
  for (int r = st->n_runs - 1; r >= 0; r--) {
    const xg_run *run = &x->runs[st->first_run + r];
    const xg_segment *sg = &x->segs[run->segment];
    const wg_block *b = sg->block >= 0 ? &g->blocks[sg->block] : NULL;
    for (int inst = run->count - 1; inst >= 0; inst--) {
      for (int i = sg->n_tasks - 1; i >= 0; i--) {
        const xg_task *t = &x->tasks[sg->first_task + i];
        if (t->kind != XG_COMM) {
          double f = eng_task_compute(e, t, 0), bw = eng_task_compute(e, t, 1);
          m->fwd_s += f;
          m->bwd_s += bw;
          if (t->kind == XG_MEM) m->bwd_mem_s += bw;
          acc += bw;
          acc_fwd += f;
          acc_host += launch * t->host_bwd;
          acc_host_fwd += launch * t->host_fwd;
        }
        /* the operator's last backward task: its gradient is ready */
        int next_op = i > 0 ? x->tasks[sg->first_task + i - 1].op : -2;
        if (b && has_grad(g, t->op) && next_op != t->op) {
          if (push(m, &cap, g, b, t->op, inst, acc, acc_host, acc_fwd, acc_host_fwd)) return -1;
          acc = acc_host = acc_fwd = acc_host_fwd = 0;
        }
      }
    }
  }
  m->tail_s = acc;
  m->head_s = acc_fwd;
  m->host_head_s = acc_host_fwd;
  return 0;
}

int dpm_layers(const sc_scenario *s, dpm_model *out, sc_error *err) {
  memset(out, 0, sizeof *out);
  sc_scenario w = worker(s);
  sc_job *j = NULL;
  sc_result r;
  int rc = sc_scenario_resolve(&w, err);
  if (rc == SC_OK) rc = sc_job_open(&w, &j, err);
  if (rc == SC_OK) rc = sc_job_predict(j, NULL, &r, err);
  if (rc == SC_OK && walk(j, out)) rc = sc_error_set(err, SC_ENOMEM, "out of memory listing layers");
  if (rc == SC_OK) {
    out->optimizer_s = r.time.optimizer;
    out->single_s = r.step_s;
    out->batch = w.plan.micro_batch;
  } else {
    dpm_free(out);
  }
  sc_job_close(j);
  return rc;
}

void dpm_free(dpm_model *m) {
  if (!m) return;
  mem_free(m->layers);
  memset(m, 0, sizeof *m);
}
