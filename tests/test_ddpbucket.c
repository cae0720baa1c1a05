/*
 * test_ddpbucket.c -- Megatron-Core DDP's buckets and their chain of
 * reductions (src/engine/ddpbucket.h), the one definition the closed
 * form and the event engine share (their agreement: test_event.c).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "engine/ddpbucket.h"

Test(ddpbucket, the_size_is_40M_parameters_or_1M_per_rank) {
  cr_expect_eq(ddpb_size(1), 40e6, "1 rank: %g", ddpb_size(1));
  cr_expect_eq(ddpb_size(40), 40e6, "40 ranks: %g", ddpb_size(40));
  cr_expect_eq(ddpb_size(64), 64e6, "64 ranks: %g", ddpb_size(64));
}

Test(ddpbucket, a_bucket_closes_at_the_layer_that_fills_it) {
  double acc = 0;
  cr_expect_eq(ddpb_fill(&acc, 30, 50), 0);
  cr_expect_eq(acc, 30);
  /* 30 + 25 >= 50: the bucket closes with the whole layer (55) */
  cr_expect_eq(ddpb_fill(&acc, 25, 50), 55);
  cr_expect_eq(acc, 0);
}

Test(ddpbucket, a_chain_that_keeps_up_exposes_the_last_bucket_and_the_slowdown) {
  /* backward ends at 10 s and loses half its pace beside a reduction */
  ddpb_chain c = ddpb_chain_new(10, 0.5);
  /* 3 s beside the backward: it slows by 1.5 s */
  cr_expect_eq(ddpb_add(&c, 2, 3), 2);
  cr_expect_eq(c.d, 1.5);
  /* the last bucket leaves at the slowed end (11.5 s), runs 2 s after it */
  cr_expect_eq(ddpb_add(&c, 10, 2), 11.5);
  cr_expect_eq(c.d, 1.5, "nothing beside the backward any more: %g", c.d);
  cr_expect_eq(ddpb_exposed(&c), 3.5, "exposed %g s: last bucket 2 s + slowdown 1.5 s",
               ddpb_exposed(&c));
}

Test(ddpbucket, a_chain_that_falls_behind_exposes_its_backlog) {
  ddpb_chain c = ddpb_chain_new(4, 0);
  cr_expect_eq(ddpb_add(&c, 1, 5), 1);
  /* left at 2 s, waits for the first to end at 6 s */
  cr_expect_eq(ddpb_add(&c, 2, 5), 6);
  cr_expect_eq(ddpb_exposed(&c), 7, "exposed %g s: the chain ends at 11 s", ddpb_exposed(&c));
}

Test(ddpbucket, an_empty_chain_exposes_nothing) {
  ddpb_chain c = ddpb_chain_new(4, 0.3);
  cr_expect_eq(ddpb_exposed(&c), 0);
  cr_expect(isinf(c.prev) && c.prev < 0);
}
