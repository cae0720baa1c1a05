/*
 * test_flowcf.c -- the closed form of a schedule's flow time (net/flowcf.h)
 * agrees with the flow engine wherever it claims to know the time, over
 * every collective algorithm, group sizes, placements, sizes 1 KiB - 64
 * GiB and topologies with oversubscription, tori and rails; and it does
 * claim the large ring collectives a search costs on an oversubscribed
 * fat-tree.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "coll/sched.h"
#include "net/flow.h"
#include "net/flowcf.h"
#include "net/ncoll.h"
#include "net/route.h"
#include "load/topo_json.h"

/* The closed form and the flow engine's time of s on t (ranks on the GPUs
 * stride apart): 1 and *cf when the closed form claims the time. */
static int both(const topo *t, route_table *rt, const sched *s, int ranks, int stride, double *cf,
                double *flow) {
  int node[1024];
  cr_assert(ranks <= 1024);
  for (int i = 0; i < ranks; i++) node[i] = t->gpus[i * stride];
  fcf_scratch w;
  fcf_scratch_init(&w);
  fcf f;
  cr_assert_eq(fcf_build(t, rt, s, node, &w, &f), 0);
  fcf_scratch_free(&w);
  flow_stats st;
  sc_error e = {0};
  cr_assert_eq(flow_run(t, rt, s, node, &st, &e), SC_OK, "%s", e.msg);
  *flow = st.time;
  /* the schedule is built at its size: the lines are per unit of it */
  return fcf_time(&f, 1.0, cf);
}

/* Largest relative gap between closed form and flow engine over every
 * algorithm on topology spec (GPUs `gpus`, `ppn` per node for the
 * hierarchical ones); *claimed counts the cases the closed form took. */
static double compare(const char *spec, int gpus, int ppn, int *claimed, int *cases) {
  topo *t = NULL;
  sc_error e = {0};
  cr_assert_eq(topo_load_spec(spec, &t, &e), SC_OK, "%s", e.msg);
  route_table *rt = route_new(t, ROUTE_ECMP);
  cr_assert_not_null(rt);
  double worst = 0;
  for (int i = 0; i < coll_alg_count(); i++) {
    const coll_alg *a = coll_alg_at(i);
    for (int n = 2; n <= gpus && n <= 64; n *= 4)
      for (int stride = 1; stride * n <= gpus; stride *= 8) {
        if (a->pow2 && (n & (n - 1))) continue;
        for (int k = 10; k <= 36; k += 3) {
          sched s;
          sched_init(&s);
          sched_params p = {.n = n, .ppn = n % ppn == 0 ? ppn : 1, .root = 0, .chunks = 4,
                            .bytes = ldexp(1, k)};
          int sw = 0; /* in-switch reductions: these topologies have no NVSwitch */
          if (a->build(&s, &p) == 0)
            for (int x = 0; x < s.nx; x++) sw |= s.x[x].src == SCHED_SWITCH || s.x[x].dst == SCHED_SWITCH;
          if (sw || s.nx == 0 || s.nx > 100000) {
            sched_free(&s);
            continue;
          }
          double cf, flow;
          (*cases)++;
          if (both(t, rt, &s, n, stride, &cf, &flow)) {
            (*claimed)++;
            double gap = fabs(cf - flow) / flow;
            cr_assert(gap <= 2e-3, "%s: %s %s over %d ranks stride %d, 2^%d bytes: closed form %.9g s, "
                      "flow engine %.9g s", spec, coll_op_name(a->op), a->name, n, stride, k, cf, flow);
            /* the flow engine ends early, never late (its event precision
             * finishes flows due soon with the event before) */
            cr_assert(flow <= cf * (1 + 1e-9), "%s %s: flow %.12g > closed form %.12g", a->name,
                      coll_op_name(a->op), flow, cf);
            if (gap > worst) worst = gap;
          }
          sched_free(&s);
        }
      }
  }
  route_free(rt);
  topo_free(t);
  return worst;
}

Test(flowcf, agrees_with_the_flow_engine_on_an_oversubscribed_fat_tree) {
  int claimed = 0, cases = 0;
  double w = compare("fat_tree:hosts=64,radix=8,levels=3,oversub=2,bw=50", 64, 8, &claimed, &cases);
  cr_log_info("fat-tree: %d of %d claimed, largest gap %.3g", claimed, cases, w);
  cr_assert(claimed > 0);
}

Test(flowcf, agrees_with_the_flow_engine_on_a_torus_and_rails) {
  int claimed = 0, cases = 0;
  double w = compare("torus:x=4,y=4,z=4,bw=50", 64, 1, &claimed, &cases);
  w = fmax(w, compare("rail:nodes=8,gpus=8", 64, 8, &claimed, &cases));
  cr_log_info("torus, rails: %d of %d claimed, largest gap %.3g", claimed, cases, w);
  cr_assert(claimed > 0);
}

/* The collectives that dominate a search on the bench's fat-tree
 * (bench/bench_search.c): rings over 64-512 GPUs, one per NIC rail, at
 * 100 MB - 20 GB. The closed form takes them and agrees with the engine. */
Test(flowcf, takes_the_large_rings_of_a_search) {
  topo *t = NULL;
  sc_error e = {0};
  cr_assert_eq(topo_load_spec("fat_tree:hosts=512,radix=16,levels=3,oversub=2,bw=50", &t, &e),
               SC_OK, "%s", e.msg);
  route_table *rt = route_new(t, ROUTE_ECMP);
  cr_assert_not_null(rt);
  static const double sizes[] = {1e8, 1.7e9, 2e10};
  for (int n = 64; n <= 512; n *= 8)
    for (int stride = 1; stride * n <= 512; stride *= 2)
      for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        sched s;
        sched_init(&s);
        cr_assert_eq(ncoll_schedule(&s, COLL_ALL_GATHER, sizes[i], n, 8 / stride), 0);
        double cf, flow;
        cr_assert(both(t, rt, &s, n, stride, &cf, &flow), "%d ranks stride %d, %g bytes: not taken",
                  n, stride, sizes[i]);
        cr_assert(fabs(cf - flow) <= 2e-3 * flow && flow <= cf * (1 + 1e-9),
                  "%d ranks stride %d, %g bytes: closed form %.9g s, flow engine %.9g s", n, stride,
                  sizes[i], cf, flow);
        cr_log_info("%d ranks stride %d, %g bytes: closed form %.9g s, flow engine %.9g s", n,
                    stride, sizes[i], cf, flow);
        sched_free(&s);
      }
  route_free(rt);
  topo_free(t);
}
