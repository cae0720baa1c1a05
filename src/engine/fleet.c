/*
 * fleet.c -- every data-parallel group's reduction at once; see fleet.h.
 */
#include "engine/fleet.h"

#include <stdio.h>
#include <string.h>

#include "core/mem.h"
#include "engine/engine.h"
#include "engine/groups.h"
#include "engine/netcost.h"
#include "engine/place.h"
#include "net/flow.h"
#include "net/ncoll.h"

struct fleet_net {
  topo *t;             /* owned */
  route_table *rt;     /* owned */
};

/* The busiest links of the run into out->top. */
static void busiest(const topo *t, const double *lb, fleet *out) {
  out->n_top = 0;
  for (int l = 0; l < t->n_links; l++) {
    double u = out->fleet_s > 0 ? lb[l] / (t->links[l].bw * out->fleet_s) : 0;
    if (lb[l] <= 0) continue;
    int pos = out->n_top < FLEET_TOP ? out->n_top++ : FLEET_TOP;
    while (pos > 0 && out->top[pos - 1].util < u) {
      if (pos < FLEET_TOP) out->top[pos] = out->top[pos - 1];
      pos--;
    }
    if (pos >= FLEET_TOP) continue;
    fleet_link *f = &out->top[pos];
    snprintf(f->src, sizeof f->src, "%s", t->nodes[t->links[l].src].name);
    snprintf(f->dst, sizeof f->dst, "%s", t->nodes[t->links[l].dst].name);
    f->util = u;
    f->bytes = lb[l];
  }
}

/* Run both schedules on the topology; SC_OK or the flow engine's error. */
static int simulate(fleet_net *net, const sched *one, const sched *all,
                    const int *node, fleet *out, sc_error *err) {
  const topo *t = net->t;
  route_table *rt = net->rt;
  double *lb = mem_calloc((size_t)(t->n_links > 0 ? t->n_links : 1), sizeof *lb);
  int rc = lb ? SC_OK : sc_error_set(err, SC_ENOMEM, "out of memory for the link counts");
  flow_stats st;
  if (rc == SC_OK && (rc = flow_run(t, rt, one, node, &st, err)) == SC_OK) out->alone_s = st.time;
  if (rc == SC_OK && (rc = flow_run_links(t, rt, all, node, &st, lb, err)) == SC_OK)
    out->fleet_s = st.time;
  if (rc == SC_OK) {
    out->factor = out->alone_s > 0 ? out->fleet_s / out->alone_s : 1;
    busiest(t, lb, out);
  }
  mem_free(lb);
  return rc;
}

/* GPUs of one pipeline stage. */
static int stage_span(const sc_scenario *s) {
  return s->cluster.gpus / (s->plan.pp > 0 ? s->plan.pp : 1);
}

/* Every group like g in one pipeline stage running the same collective
 * at once: one group's schedule, the k groups' side by side, and the
 * topology node of each of their ranks. */
typedef struct fleet_run {
  sched one, all;  /* owned */
  int *node;       /* owned: node[q n + i], member i of group q */
  int k;           /* groups; 0: nothing to simulate */
} fleet_run;

static void run_free(fleet_run *r) {
  sched_free(&r->one), sched_free(&r->all);
  mem_free(r->node);
}

/* Lay out op of `bytes` on every group like g in pipeline stage `stage`
 * into *r (run_free it whatever is returned): the groups of the stage
 * as engine/place.h lays them out. r->k = 0 when there is nothing to simulate (no
 * topology, a one-rank group, no bytes, a group wider than a stage, a
 * stage past the cluster). SC_OK or SC_ENOMEM. */
static int run_build(fleet_net *net, const sc_scenario *s, const xg_group *g, coll_op op,
                     double bytes, int stage, fleet_run *r, sc_error *err) {
  memset(r, 0, sizeof *r);
  sched_init(&r->one), sched_init(&r->all);
  if (!net || g->ranks <= 1 || bytes <= 0) return SC_OK;
  int n = g->ranks, stride = g->stride, span = stage_span(s), k = place_count(n, stride, span);
  if (k < 1 || (long)(stage + 1) * span > s->cluster.gpus) return SC_OK;
  r->node = mem_alloc(sizeof *r->node * (size_t)span);
  if (!r->node || ncoll_schedule(&r->one, op, bytes, n, xg_per_domain(&s->cluster, n, stride)) ||
      place_replicate(&r->one, n, k, &r->all))
    return sc_error_set(err, SC_ENOMEM, "out of memory building %d concurrent %s", k,
                        coll_op_name(op));
  place_ranks(n, stride, span, r->node);
  for (int i = 0; i < k * n; i++) r->node[i] = net->t->gpus[stage * span + r->node[i]];
  r->k = k;
  return SC_OK;
}

int fleet_open(const sc_scenario *s, fleet_net **out, sc_error *err) {
  *out = NULL;
  topo *t = NULL;
  int rc = ncost_topology(&s->cluster, &t, err);
  if (rc != SC_OK || !t || t->n_gpus < s->cluster.gpus) {
    topo_free(t);
    return rc;
  }
  fleet_net *n = mem_calloc(1, sizeof *n);
  route_table *rt = n ? route_new(t, (route_policy)t->routing) : NULL;
  if (!rt) {
    mem_free(n);
    topo_free(t);
    return sc_error_set(err, SC_ENOMEM, "out of memory loading the topology");
  }
  n->t = t, n->rt = rt;
  *out = n;
  return SC_OK;
}

void fleet_close(fleet_net *n) {
  if (!n) return;
  route_free(n->rt);
  topo_free(n->t);
  mem_free(n);
}

int fleet_group(fleet_net *net, const sc_scenario *s, const xg_group *g, coll_op op,
                double bytes, fleet *out, sc_error *err) {
  memset(out, 0, sizeof *out);
  out->factor = 1;
  fleet_run r;
  int rc = run_build(net, s, g, op, bytes, 0, &r, err);
  if (rc == SC_OK && r.k > 0) {
    out->groups = r.k;
    out->bytes = bytes;
    rc = simulate(net, &r.one, &r.all, r.node, out, err);
  }
  run_free(&r);
  return rc;
}

int fleet_dp(fleet_net *net, const sc_scenario *s, const xg *x, fleet *out, sc_error *err) {
  memset(out, 0, sizeof *out);
  out->factor = 1;
  const xg_group *g = xg_dp_group(x);
  if (!net || !g || x->n_stages < 1) return SC_OK;
  double bytes = x->stages[0].params * eng_grad_bytes(&s->plan);
  return fleet_group(net, s, g, COLL_ALL_REDUCE, bytes, out, err);
}

int fleet_links(const fleet_net *n, double *bw) {
  for (int l = 0; bw && l < n->t->n_links; l++) bw[l] = n->t->links[l].bw;
  return n->t->n_links;
}

/* The links l of the L in lb that carry anything into out (zeroed by the
 * caller), each at lb[l] / div; SC_OK, or SC_ENOMEM with out empty. */
static int demand_of_links(const double *lb, int L, double div, evs_demand *out,
                           sc_error *err) {
  int n = 0;
  for (int l = 0; l < L; l++) n += lb[l] > 0;
  if (n == 0) return SC_OK;
  out->link = mem_alloc(sizeof *out->link * (size_t)n);
  out->rate = mem_alloc(sizeof *out->rate * (size_t)n);
  if (!out->link || !out->rate) {
    evs_demand_free(out);
    return sc_error_set(err, SC_ENOMEM, "out of memory for the link demands");
  }
  for (int l = 0; l < L; l++)
    if (lb[l] > 0) out->link[out->n] = l, out->rate[out->n++] = lb[l] / div;
  return SC_OK;
}

/* Run `sc` on the topology with rank i on node[i] and keep each link's
 * bytes over the run's time as the demand (bytes = 1: the bytes). */
static int links_of(fleet_net *net, const sched *sc, const int *node, int bytes,
                    evs_demand *out, sc_error *err) {
  const topo *t = net->t;
  double *lb = mem_calloc((size_t)(t->n_links > 0 ? t->n_links : 1), sizeof *lb);
  if (!lb) return sc_error_set(err, SC_ENOMEM, "out of memory for the link counts");
  flow_stats st;
  int rc = flow_run_links(t, net->rt, sc, node, &st, lb, err);
  if (rc == SC_OK && st.time > 0)
    rc = demand_of_links(lb, t->n_links, bytes ? 1 : st.time, out, err);
  mem_free(lb);
  return rc;
}

static int demand_of(fleet_net *net, const sched *sc, const int *node, evs_demand *out,
                     sc_error *err) {
  return links_of(net, sc, node, 0, out, err);
}

int fleet_pp(fleet_net *net, const sc_scenario *s, const xg *x, int b, int dir, evs_demand *out,
             sc_error *err) {
  memset(out, 0, sizeof *out);
  int span = stage_span(s);
  if (!net || x->p2p_bytes <= 0 || (long)(b + 2) * span > s->cluster.gpus) return SC_OK;
  sched sc;
  sched_init(&sc);
  int *node = mem_alloc(sizeof *node * (size_t)(2 * span));
  int rc = node && !sched_begin(&sc, 1) ? SC_OK : -1;
  for (int i = 0; rc == SC_OK && i < span; i++) {
    node[i] = net->t->gpus[b * span + i];
    node[span + i] = net->t->gpus[(b + 1) * span + i];
    if (sched_add(&sc, dir ? span + i : i, dir ? i : span + i, x->p2p_bytes)) rc = -1;
  }
  if (rc == -1) rc = sc_error_set(err, SC_ENOMEM, "out of memory building the stage's sends");
  if (rc == SC_OK) rc = demand_of(net, &sc, node, out, err);
  mem_free(node);
  sched_free(&sc);
  return rc;
}

int fleet_dp_at(fleet_net *net, const sc_scenario *s, const xg *x, int stage, evs_demand *out,
                sc_error *err) {
  memset(out, 0, sizeof *out);
  const xg_group *g = xg_dp_group(x);
  if (!g || stage >= x->n_stages) return SC_OK;
  double bytes = x->stages[stage].params * eng_grad_bytes(&s->plan);
  fleet_run r;
  int rc = run_build(net, s, g, COLL_ALL_REDUCE, bytes, stage, &r, err);
  if (rc == SC_OK && r.k > 0) rc = demand_of(net, &r.all, r.node, out, err);
  run_free(&r);
  return rc;
}

int fleet_group_at(fleet_net *net, const sc_scenario *s, const xg_group *g, coll_op op,
                   double bytes, int stage, evs_demand *out, sc_error *err) {
  memset(out, 0, sizeof *out);
  fleet_run r;
  int rc = run_build(net, s, g, op, bytes, stage, &r, err);
  if (rc == SC_OK && r.k > 0) rc = links_of(net, &r.all, r.node, 1, out, err);
  run_free(&r);
  return rc;
}

/* d's bytes per link added into acc (per link of the topology). */
static void add_into(const evs_demand *d, double *acc) {
  for (int k = 0; k < d->n; k++) acc[d->link[k]] += d->rate[k];
}

int fleet_flex_at(fleet_net *net, const sc_scenario *s, const xg_group *g, double bytes,
                  double inter, int stage, evs_demand *out, sc_error *err) {
  memset(out, 0, sizeof *out);
  if (!net) return SC_OK;
  grp gm = grp_make(&s->cluster, g);
  eng_flex_leg leg[2];
  eng_flex_legs(&gm, bytes, inter, leg);
  int L = net->t->n_links;
  double *acc = mem_calloc((size_t)(L > 0 ? L : 1), sizeof *acc);
  int rc = acc ? SC_OK : sc_error_set(err, SC_ENOMEM, "out of memory for the link demands");
  for (int i = 0; rc == SC_OK && i < 2; i++) {
    if (leg[i].bytes <= 0) continue;
    xg_group lg = {g->kind, leg[i].g.g.ranks, leg[i].g.stride};
    evs_demand d;
    rc = fleet_group_at(net, s, &lg, COLL_ALL_TO_ALL, leg[i].bytes, stage, &d, err);
    if (rc == SC_OK) add_into(&d, acc);
    evs_demand_free(&d);
  }
  if (rc == SC_OK) rc = demand_of_links(acc, L, 1, out, err);
  mem_free(acc);
  return rc;
}
