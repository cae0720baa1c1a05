/*
 * test_net_flow.c -- the flow engine against the closed forms where they
 * are exact (within 2 %), plus max-min sharing basics.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "coll/sched.h"
#include "net/flow.h"
#include "net/route.h"
#include "net/topo_gen.h"

/* Run alg over the GPUs of spec; return flow time and closed form. */
static void both(const char *spec, coll_op op, const char *alg, double bytes, double alpha,
                 double bw, double *flow_t, double *closed_t) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen(spec, &t, &e), SC_OK, "%s: %s", spec, e.msg);
  route_table *rt = route_new(t, ROUTE_ECMP);
  const coll_alg *a = coll_alg_find(op, alg);
  cr_assert(a, "no algorithm %s", alg);
  sched s;
  sched_init(&s);
  sched_params p = {.n = t->n_gpus, .ppn = t->n_gpus, .chunks = 1, .bytes = bytes,
                    .alpha = alpha, .bw = bw};
  cr_assert_eq(a->build(&s, &p), 0);
  flow_stats st;
  cr_assert_eq(flow_run(t, rt, &s, t->gpus, &st, &e), SC_OK, "%s", e.msg);
  *flow_t = st.time;
  *closed_t = a->closed(&p);
  cr_expect(fabs(st.bytes - sched_bytes(&s)) <= 1e-9 * st.bytes, "bytes %g vs %g", st.bytes,
            sched_bytes(&s));
  sched_free(&s);
  route_free(rt);
  topo_free(t);
}

Test(net_flow, ring_allreduce_on_idle_ring_matches_closed_form) {
  double sizes[] = {1e3, 1e6, 1e9};
  for (int i = 0; i < 3; i++) {
    double f, c;
    /* ring of 8 GPUs, 25 GB/s and 1 us per link */
    both("ring:n=8,bw=25,lat=1", COLL_ALL_REDUCE, "ring", sizes[i], 1e-6, 25e9, &f, &c);
    cr_expect(fabs(f - c) <= 0.02 * c, "ring all-reduce %g B: flow %.9g s, closed %.9g s",
              sizes[i], f, c);
  }
}

Test(net_flow, allgather_on_nonblocking_switch_matches_closed_form) {
  double f, c;
  /* star = one non-blocking switch; path = 2 links of 1 us */
  both("star:n=16,bw=50,lat=1", COLL_ALL_GATHER, "ring", 64e6, 2e-6, 50e9, &f, &c);
  cr_expect(fabs(f - c) <= 0.02 * c, "ring all-gather: flow %.9g, closed %.9g", f, c);
  both("star:n=16,bw=50,lat=1", COLL_ALL_GATHER, "direct", 64e6, 2e-6, 50e9, &f, &c);
  cr_expect(fabs(f - c) <= 0.02 * c, "direct all-gather: flow %.9g, closed %.9g", f, c);
  both("star:n=16,bw=50,lat=1", COLL_ALL_TO_ALL, "pairwise", 64e6, 2e-6, 50e9, &f, &c);
  cr_expect(fabs(f - c) <= 0.02 * c, "pairwise all-to-all: flow %.9g, closed %.9g", f, c);
}

Test(net_flow, every_plugin_delivers_its_bytes_on_a_fat_tree) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen("fat_tree:hosts=16,radix=4,levels=3", &t, &e), SC_OK, "%s", e.msg);
  route_table *rt = route_new(t, ROUTE_ECMP);
  for (int i = 0; i < coll_alg_count(); i++) {
    const coll_alg *a = coll_alg_at(i);
    if (!strcmp(a->name, "nvls")) continue; /* needs an NVSwitch */
    sched s;
    sched_init(&s);
    sched_params p = {.n = 16, .ppn = 4, .chunks = 4, .bytes = 1 << 20, .alpha = 1e-6, .bw = 50e9};
    cr_assert_eq(a->build(&s, &p), 0);
    flow_stats st;
    cr_assert_eq(flow_run(t, rt, &s, t->gpus, &st, &e), SC_OK, "%s: %s", a->name, e.msg);
    cr_expect(st.time > 0 && fabs(st.bytes - sched_bytes(&s)) <= 1e-9 * st.bytes,
              "%s %s: time %g bytes %g", coll_op_name(a->op), a->name, st.time, st.bytes);
    sched_free(&s);
  }
  route_free(rt);
  topo_free(t);
}

Test(net_flow, nvls_on_an_nvswitch_node) {
  double f, c;
  both("hier:nodes=1,gpus=8,nvlink=450,nic=400", COLL_ALL_REDUCE, "nvls", 1e8, 1e-6, 450e9, &f, &c);
  cr_expect(fabs(f - c) <= 0.02 * c, "nvls: flow %.9g, closed %.9g", f, c);
}

Test(net_flow, oversubscribed_uplinks_slow_cross_leaf_traffic) {
  double f1, f2, c;
  both("fat_tree:hosts=16,radix=8,levels=2,oversub=1", COLL_ALL_TO_ALL, "direct", 1e8, 1e-6, 50e9,
       &f1, &c);
  both("fat_tree:hosts=16,radix=8,levels=2,oversub=4", COLL_ALL_TO_ALL, "direct", 1e8, 1e-6, 50e9,
       &f2, &c);
  cr_expect(f2 > 2 * f1, "4:1 oversubscription: %g s vs %g s non-blocking", f2, f1);
}

/* The progress callback sees the fraction of transfers done grow to 1,
 * and does not change the result. */
typedef struct seen {
  double last;
  int calls, backwards;
} seen;
static void on_progress(void *ud, double done) {
  seen *s = ud;
  if (done < s->last) s->backwards++;
  s->last = done;
  s->calls++;
}

Test(net_flow, progress_reaches_one_and_changes_nothing) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen("fat_tree:hosts=8,radix=4,levels=2,bw=50", &t, &e), SC_OK, "%s", e.msg);
  route_table *rt = route_new(t, ROUTE_ECMP);
  sched s;
  sched_init(&s);
  sched_params p = {.n = t->n_gpus, .ppn = 1, .chunks = 1, .bytes = 1e8};
  cr_assert_eq(coll_alg_find(COLL_ALL_TO_ALL, "pairwise")->build(&s, &p), 0);
  flow_stats a, b;
  seen sn = {0, 0, 0};
  cr_assert_eq(flow_run(t, rt, &s, t->gpus, &a, &e), SC_OK, "%s", e.msg);
  cr_assert_eq(flow_run_ex(t, rt, &s, t->gpus, &b, on_progress, &sn, &e), SC_OK, "%s", e.msg);
  cr_expect_eq(a.time, b.time);
  cr_expect(sn.calls > 0 && sn.backwards == 0, "%d calls, %d backwards", sn.calls, sn.backwards);
  cr_expect(fabs(sn.last - 1.0) < 1e-12, "last report %g", sn.last);
  sched_free(&s);
  route_free(rt);
  topo_free(t);
}

/* A run in a scratch block kept from run to run (flow_run_in) is the run
 * with its own arrays, bit for bit, whether the block grows (small then
 * large schedules) or is reused by a smaller run after a larger one. */
Test(net_flow, a_kept_scratch_changes_nothing) {
  topo *t;
  sc_error e = {0};
  cr_assert_eq(topo_gen("fat_tree:hosts=16,radix=4,levels=3", &t, &e), SC_OK, "%s", e.msg);
  route_table *rt = route_new(t, ROUTE_ECMP);
  flow_scratch fs;
  flow_scratch_init(&fs);
  size_t grown = 0;
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < coll_alg_count(); i++) {
      const coll_alg *a = coll_alg_at(i);
      if (!strcmp(a->name, "nvls")) continue; /* needs an NVSwitch */
      sched s;
      sched_init(&s);
      sched_params p = {.n = 4 + 12 * ((i + round) % 2), .ppn = 4, .chunks = 1 + 3 * round,
                        .bytes = 1 << 20, .alpha = 1e-6, .bw = 50e9};
      cr_assert_eq(a->build(&s, &p), 0);
      flow_stats own, kept;
      cr_assert_eq(flow_run(t, rt, &s, t->gpus, &own, &e), SC_OK, "%s: %s", a->name, e.msg);
      cr_assert_eq(flow_run_in(&fs, t, rt, &s, t->gpus, &kept, &e), SC_OK, "%s: %s", a->name,
                   e.msg);
      cr_expect(!memcmp(&own, &kept, sizeof own), "%s, %d ranks: time %.17g, kept %.17g; "
                "bytes %zu, kept %zu", a->name, p.n, own.time, kept.time, own.mem_bytes,
                kept.mem_bytes);
      cr_assert(fs.cap >= grown, "the block shrank");
      grown = fs.cap;
      sched_free(&s);
    }
  cr_expect(grown > 0, "the block was never used");
  flow_scratch_free(&fs);
  flow_scratch_free(&fs); /* emptied: freeing again is safe */
  route_free(rt);
  topo_free(t);
}
