/*
 * moe_dispatch.h -- what an MoE token dispatcher sends (module prefix:
 * moed_).
 *
 * Megatron-Core moves the tokens of an MoE layer to their experts and back
 * with one of three dispatchers (transformer_config.py,
 * moe_token_dispatcher_type):
 *
 *   alltoall   each token's top-k copies, all-to-all over the expert-
 *              parallel group: T k h bytes a rank, (n - per) / n of them
 *              across nodes (with etp > 1 the lowering adds the expert-
 *              tensor all-gather / reduce-scatter: src/lower/lower.c);
 *   allgather  every rank's tokens all-gathered over the expert group (T h
 *              from each of the etp x n ranks, not top-k copies), the
 *              experts' outputs reduce-scattered back;
 *   flex       DeepEP's dispatch/combine: a token crosses the network once
 *              per distinct remote node among its experts, then NVLink
 *              carries it to each distinct GPU of that node (all etp GPUs
 *              of each expert-parallel rank it picks).
 *
 * Group-limited routing (moe_router_num_groups / moe_router_group_topk)
 * confines a token's experts to a few groups: it bounds the distinct nodes
 * (and GPUs) a token reaches, which is what the flex dispatcher sends.
 * docs/model.md "MoE token dispatchers" derives every formula here.
 *
 * Pure functions of their arguments: no allocation, no state.
 */
#ifndef SC_LOWER_MOE_DISPATCH_H
#define SC_LOWER_MOE_DISPATCH_H

#include "coll/coll.h"
#include "stepcast.h"

/* The expected number of distinct units (nodes or GPUs: `units` equal
 * blocks of consecutive experts) that one token's `topk` experts fall on,
 * when the router picks `group_topk` of `groups` equal groups of
 * consecutive experts uniformly, then `topk` distinct experts uniformly
 * among the chosen groups' experts (groups 0: no group limit). Needs
 * units and groups to divide experts and each group to hold whole units
 * or each unit whole groups (moed_aligned). */
double moed_distinct(int experts, int units, int groups, int group_topk, int topk);

/* 1 when groups of experts/groups and units of experts/units nest (one
 * size divides the other), which moed_distinct needs. */
int moed_aligned(int experts, int units, int groups);

/* Expert-parallel ranks in one NVLink domain for a group of `ep` ranks
 * `stride` apart: the engines' layout (xg_per_domain, src/exec/xg.c),
 * which decides the nodes the fan-out counts. */
int moed_per_node(const sc_cluster *c, int ep, int stride);

/* One dispatch or combine of a layer, per GPU and micro-batch. */
typedef struct moed_in {
  sc_moe_dispatcher disp;
  double tok_bytes;   /* the rank's tokens, each once: T x hidden x bytes */
  int topk, experts;  /* of the model */
  int ep, per_node;   /* expert-parallel ranks, of them in one NVLink domain
                         (moed_per_node) */
  int groups, group_topk; /* group-limited routing, 0 = none */
  double cf;          /* busiest rank's tokens over the mean (capacity or
                         imbalance: lower.c moe_cf) */
  int combine;        /* 0 dispatch (to the experts), 1 combine (back) */
  int etp;            /* allgather and flex: expert tensor parallelism of
                         the group (ep x etp ranks, etp fastest; each
                         token goes to all etp ranks of its experts'
                         EP rank); 0 or 1: ep ranks alone */
} moed_in;

/* The collective that carries it. */
typedef struct moed_comm {
  coll_op op;         /* in forward; backward runs the conjugate */
  double bytes;       /* per GPU: the nccl-tests size (all-to-all,
                         all-gather, reduce-scatter); flex: the bytes the
                         GPU sends off itself, network and NVLink legs
                         together (no share stays local) */
  int flex;           /* 1 = flex: bytes split by inter_frac (engines) */
  double inter_frac;  /* flex: the part of bytes that crosses nodes */
} moed_comm;

moed_comm moed_shape(const moed_in *in);

/* Flex's expected sends per token: over the network to distinct remote
 * nodes (*inter) and over NVLink to distinct GPUs of a node other than
 * the one the token arrives at (*intra). */
void moed_flex_fanout(const moed_in *in, double *inter, double *intra);

#endif
