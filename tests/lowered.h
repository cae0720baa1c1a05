/*
 * lowered.h -- a scenario lowered to its execution graph, for the tests
 * that look at the lowering's output (test_lower.c, test_pipeline_layout.c,
 * test_fsdp_moe.c, test_moe_dispatch.c, test_moe_etp.c, test_tp_async.c,
 * test_amp.c, test_moe_permute.c, test_moe_shared_overlap.c, test_mla.c).
 * Header-only: each test executable includes it once.
 */
#ifndef SC_TESTS_LOWERED_H
#define SC_TESTS_LOWERED_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "exec/xg.h"
#include "lower/lower.h"
#include "model/builder.h"
#include "stepcast.h"

typedef struct lowered {
  sc_scenario s; /* resolved */
  wg_graph *g;   /* owned */
  xg x;
  lower_scratch ls;
} lowered;

/* Resolve `in`, build its model's graph (its kind's builder) and lower the
 * plan into *l; any failure fails the test. Free with lowered_done. */
static inline void lowered_make(lowered *l, const sc_scenario *in) {
  sc_error err = {0};
  memset(l, 0, sizeof *l);
  l->s = *in;
  cr_assert_eq(sc_scenario_resolve(&l->s, &err), SC_OK, "%s", err.msg);
  const model_builder *b = model_builder_for(l->s.model.kind);
  cr_assert(b, "no builder for model kind %d", (int)l->s.model.kind);
  cr_assert_eq(b->build(&l->s.model, &l->g, &err), SC_OK, "%s", err.msg);
  xg_init(&l->x);
  cr_assert_eq(lower_plan(l->g, &l->s, &l->ls, &l->x, &err), SC_OK, "%s", err.msg);
}

/* An engine *e on l's scenario and graphs (eng_init; borrowed from l,
 * which must outlive it): eng_prepare it for the costs. */
static inline void lowered_eng(lowered *l, eng *e) {
  eng_init(e);
  e->s = &l->s, e->g = l->g, e->x = &l->x;
}

/* The first layer segment of stage 0; fails the test when there is none. */
static inline const xg_segment *lowered_layer_seg(const lowered *l) {
  const xg_stage *st = &l->x.stages[0];
  for (int j = 0; j < st->n_runs; j++) {
    const xg_segment *sg = &l->x.segs[l->x.runs[st->first_run + j].segment];
    if (sg->role == WG_ROLE_LAYER) return sg;
  }
  cr_assert_fail("no layer segment");
  return NULL;
}

/* The first task named `name` (lower_task_name) of a layer segment of
 * stage 0, or NULL. */
static inline const xg_task *lowered_find(const lowered *l, const char *name) {
  const xg_stage *st = &l->x.stages[0];
  for (int j = 0; j < st->n_runs; j++) {
    const xg_segment *sg = &l->x.segs[l->x.runs[st->first_run + j].segment];
    for (int i = 0; i < sg->n_tasks; i++) {
      char buf[64];
      const xg_task *t = &l->x.tasks[sg->first_task + i];
      if (sg->role == WG_ROLE_LAYER && !strcmp(lower_task_name(t, buf, sizeof buf), name))
        return t;
    }
  }
  return NULL;
}

/* lowered_find's task; fails the test when there is none. */
static inline const xg_task *lowered_task(const lowered *l, const char *name) {
  const xg_task *t = lowered_find(l, name);
  cr_assert(t, "no task %s", name);
  return t;
}

/* Write the workload graph `json` (docs/graph.md) to file `path` and make
 * it s's model; the caller removes the file. */
static inline void lowered_graph_model(sc_scenario *s, const char *path, const char *json) {
  FILE *f = fopen(path, "w");
  cr_assert(f, "cannot write %s", path);
  fputs(json, f);
  cr_assert_eq(fclose(f), 0);
  memset(&s->model, 0, sizeof s->model);
  s->model.kind = SC_MODEL_GRAPH;
  snprintf(s->model.name, sizeof s->model.name, "graph");
  snprintf(s->model.graph.path, sizeof s->model.graph.path, "%s", path);
}

/* The closed-form (event 0) or event-engine prediction of s; any failure
 * fails the test. */
static inline sc_result lowered_predict(const sc_scenario *s, int event) {
  sc_result r;
  sc_error err = {0};
  sc_event_opts eo = {1, 0};
  int rc = event ? sc_predict_event(s, &eo, &r, NULL, &err) : sc_predict(s, &r, &err);
  cr_assert_eq(rc, SC_OK, "%s", err.msg);
  return r;
}

/* A small Mixtral-shaped MoE model for the dispatcher tests
 * (test_moe_etp.c, test_moe_permute.c, test_moe_shared_overlap.c): 8
 * experts of ffn 2048, top-2, hidden 1024, 1024 tokens a sequence, 4
 * layers, on one node of 8 GPUs: tp (sequence parallel when > 1), ep,
 * dp the rest, micro-batch 1 of 16 sequences, dispatcher d. */
static inline sc_scenario lowered_small_moe(int tp, int ep, sc_moe_dispatcher d) {
  sc_scenario s;
  sc_scenario_default(&s);
  s.model = *sc_model_preset("mixtral-8x7b");
  s.model.tf.layers = 4;
  s.model.tf.hidden = 1024;
  s.model.tf.heads = 8;
  s.model.tf.kv_heads = 8;
  s.model.tf.head_dim = 128;
  s.model.tf.ffn = 2048;
  s.model.tf.seq = 1024;
  s.cluster.gpus = 8;
  s.plan.tp = tp;
  s.plan.pp = 1;
  s.plan.dp = 0;
  s.plan.ep = ep;
  s.plan.sp = tp > 1;
  s.plan.vpp = 1;
  s.plan.schedule = SC_SCHED_1F1B;
  s.plan.global_batch = 16;
  s.plan.micro_batch = 1;
  s.plan.moe_dispatcher = d;
  return s;
}

/* The names of l's first layer segment's tasks from `from` on, as "name
 * name ..." into buf (cap bytes). */
static inline void lowered_names_from(const lowered *l, const char *from, char *buf, size_t cap) {
  const xg_segment *sg = lowered_layer_seg(l);
  size_t len = 0;
  int on = 0;
  buf[0] = 0;
  for (int i = 0; i < sg->n_tasks && len + 40 < cap; i++) {
    char nm[64];
    lower_task_name(&l->x.tasks[sg->first_task + i], nm, sizeof nm);
    on |= !strcmp(nm, from);
    if (on) len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? " " : "", nm);
  }
}

static inline void lowered_done(lowered *l) {
  wg_free(l->g);
  xg_free(&l->x);
  lower_scratch_free(&l->ls);
}

#endif
