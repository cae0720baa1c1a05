/*
 * place.h -- where the replica groups of a collective lie on the job's
 * ranks (module prefix: place_).
 *
 * Ranks are laid out Megatron-style (engine/groups.h), so the groups of
 * one kind tile the ranks: a group of n members `stride` ranks apart
 * starts at every rank b whose (b / stride) is a multiple of n. The
 * groups that run the same collective at once lie in a window of
 * consecutive ranks: one pipeline stage (gpus / pp ranks) for the TP,
 * CP, EP, MP and data-parallel groups, two neighbouring stages for the
 * pipeline's send/recv (every GPU of a stage sends to its counterpart
 * in the next). Both the event engine's fleet runs (engine/fleet.h) and
 * the closed form's flow-engine costs (engine/netcost.h) place them
 * here, so they see the same groups on the same links.
 */
#ifndef SC_ENGINE_PLACE_H
#define SC_ENGINE_PLACE_H

#include "coll/sched.h"

/* How many groups of n members `stride` apart fill a window of `window`
 * ranks: window / n, or 0 when they do not tile it (n or stride below
 * 1, (n - 1) stride >= window, n stride not dividing the window). */
int place_count(int n, int stride, int window);

/* The ranks, relative to the window's first, of the k = place_count
 * groups: rank[q n + i] is member i of group q, groups in the order of
 * their first member. rank holds room for k n. */
void place_ranks(int n, int stride, int window, int *rank);

/* k copies of one group's schedule `one` side by side in *out (begun
 * empty), copy q's ranks offset by q n: the k groups running the same
 * collective at once, step by step. 0, or -1 when out of memory. */
int place_replicate(const sched *one, int n, int k, sched *out);

#endif
