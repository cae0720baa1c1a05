/*
 * rejects.h -- why a search found no valid plan: the first plans of the
 * space checked again, this time with the plan check's messages, and
 * their reasons counted (module prefix: rejects_).
 *
 * The search's first pass rejects plans without formatting a message
 * (job_quiet_checks): a search with valid plans never pays for one. Only
 * when none is valid does sc_search call rejects_explain, once, after the
 * search.
 */
#ifndef SC_SEARCH_REJECTS_H
#define SC_SEARCH_REJECTS_H

#include "job/job.h"
#include "search/space.h"
#include "stepcast.h"

/* The most plans re-checked (each a few microseconds with its message). */
#define REJECTS_MAX 4096

/* Check the first min(n, REJECTS_MAX) points of pts on job (whose plan
 * is the search's base; changed in place, as the search does) with
 * messages, and fill st->rechecked, st->n_reasons and st->reasons: the
 * rejections grouped by the key path their message starts with ("plan.tp"
 * of "plan.tp: 64 does not divide model.heads 96 ..."), most plans first
 * (ties: the reason met first), each with its first message. A plan the
 * checks accept is not counted. SC_OK, or an error other than a
 * rejection (err set). */
int rejects_explain(sc_job *job, const space_pt *pts, long n, sc_search_stats *st,
                    sc_error *err);

/* The space of base (graph g) under o's constraints is empty: why, as one
 * reason of no plans in st (st->rechecked 0, st->n_reasons 1): the first
 * fixed degree that cannot be (one that does not divide the GPUs, a pp
 * over the layers, an ep on a dense model or not dividing its experts, a
 * dp that does not divide the global batch), fixed degrees whose product
 * does not divide the GPUs, a fixed micro-batch, vpp or recomputation no
 * plan of the degrees can have (with the values they can: the space
 * walked again without that constraint, space_probe), or else the bounds
 * that left nothing. */
void rejects_empty(const sc_scenario *base, const wg_graph *g, const sc_search_opts *o,
                   sc_search_stats *st);

#endif
