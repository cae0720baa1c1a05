/*
 * rerank.h -- a search's top k re-ranked by the event engine (module
 * prefix: rerank_).
 *
 * The closed form ranks every plan of the space; its k best are then each
 * run through the event engine (sc_job_predict_event, folded: one
 * representative per rank class, no spans kept) and ordered by that
 * step (topk_by_event: event step, memory, space index). The plans are
 * shared out among the search's threads, each against its own job; every
 * plan is simulated alone, so the result is the same whatever the thread
 * count (tests/test_search.c).
 */
#ifndef SC_SEARCH_RERANK_H
#define SC_SEARCH_RERANK_H

#include "search/crew.h"
#include "search/topk.h"

/* Asked on the calling thread after each plan it ran: nonzero = stop
 * (a time budget ran out, the user interrupted). */
typedef int (*rerank_stop_fn)(void *ctx);

/* Re-rank t by the event engine on nt threads (crew_run on pool, which
 * may be NULL), thread i against jobs[i]:
 * jobs[0] is the search's (required); a NULL jobs[i] is opened on its
 * thread sharing jobs[0] (job_open_sharing) and left in jobs[i], owned by
 * the caller (close it before jobs[0]). On SC_OK every candidate has its
 * event_s and event_time and t is in the event engine's order, unless
 * stop (may be NULL) said stop: then *stopped = 1 and t is left as it
 * was. SC_EINPUT when the event engine cannot run a plan (err names the
 * first such plan of t's order), SC_EMODEL when a plan has more
 * micro-batches per pipeline than the engine is run on (its time and
 * memory grow with them; nothing is run), SC_ENOMEM: t is left as it was
 * (the closed form's order, event_s 0). */
int rerank_topk(crew_pool *pool, sc_job **jobs, int nt, topk *t, rerank_stop_fn stop, void *ctx,
                int *stopped, sc_error *err);

#endif
