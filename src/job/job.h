/*
 * job.h -- what the library's own modules may ask a job beyond the public
 * API (module prefix: job_).
 */
#ifndef SC_JOB_H
#define SC_JOB_H

#include "graph/graph.h"

struct eng; /* engine/engine.h */
#include "stepcast.h"

/* The resolved scenario of the last plan evaluated (after a successful
 * sc_job_predict). */
const sc_scenario *job_current(const sc_job *j);

/* The job's workload graph. */
const wg_graph *job_graph(const sc_job *j);

/* The execution graph and the engine of the last plan evaluated (after a
 * successful sc_job_predict): what src/job/dpm.c walks per operator. */
struct xg;
struct eng;
const struct xg *job_xg(const sc_job *j);
const struct eng *job_eng(const sc_job *j);

/* A plan's evaluation in phases, for the search (each a subset of
 * sc_job_predict's work, which is job_lower then job_finish):
 *
 * job_lower   check `plan` (NULL: job_plan's) against the job and
 *             lower it; *mem is the memory of its most loaded stage
 *             (no time costed yet).
 *             The lowering comes from the job's memo of lowered plans
 *             (lower/lcache.h) where an earlier plan lowered the same.
 *             SC_EINPUT when the checks reject the plan.
 * job_bound   after job_lower: a lower bound of the step, every
 *             collective on a topology at the larger of NCCL's closed
 *             form and the link-load bound of its schedule (ncost_bound:
 *             no flow-engine run); without a topology it is the step
 *             itself.
 * job_finish  after job_lower (job_bound may come between): the
 *             prediction, exactly what sc_job_predict gives. */
int job_lower(sc_job *j, const sc_plan *plan, sc_memory *mem, sc_error *err);
/* Right after job_lower of a plan with full recomputation of every layer
 * (no offloading): a lower bound of the memory of the most loaded stage
 * (bytes) had only the first n >= 1 layers of each chunk been recomputed
 * (plan.recompute_layers): its most loaded stage's
 * eng_memory_floor_partial (engine.h); 0 when none is known. The search
 * drops such plans unlowered when this exceeds the GPU. */
double job_mem_floor_partial(const sc_job *j, int n);
/* The plan job_lower and job_check evaluate when given plan NULL: the
 * job's scenario's plan, for the caller to change in place (the search
 * sets a point's fields; no 2.3 KB plan copied twice per plan). Borrowed
 * from the job, valid until its next call. */
sc_plan *job_plan(sc_job *j);
/* With on = 1, job_lower's and job_check's plan checks reject a plan
 * (SC_EINPUT) without formatting its message (err->msg left empty): for
 * the search's first pass, which drops rejected plans unread (on a space
 * with many of them, such as tp 8 against 4 KV heads, the messages were
 * 8 % of the search). Other errors keep their messages. Off by default. */
void job_quiet_checks(sc_job *j, int on);
/* job_lower's checks alone (SC_OK or SC_EINPUT): for a plan known not to
 * fit, whose validity still counts. */
int job_check(sc_job *j, const sc_plan *plan, sc_error *err);
int job_bound(sc_job *j, double *step_s, sc_error *err);
/* After job_lower: a lower bound of job_bound's bound (so of the step),
 * that bound less its data-parallel reduction and optimizer
 * (eng_step_floor): no data-parallel collective is costed. */
int job_bound_floor(sc_job *j, double *step_s, sc_error *err);
int job_finish(sc_job *j, sc_result *r, sc_error *err);
/* job_finish for a plan that must beat `bar` (s) to be kept: the step
 * less its data-parallel reduction and optimizer (eng_step_floor, never
 * above the step) into *floor_s (s; floor_s may be NULL); when it exceeds
 * bar, *r is not written (the reduction, the FSDP schedule and the
 * optimizer are not costed), else *r is job_finish's. */
int job_finish_below(sc_job *j, double bar, sc_result *r, double *floor_s, sc_error *err);
/* The job's topology in want mode (on = 1) or out of it (0), for threads
 * that cost plans side by side (engine/netcost.h, ncost_want): in want
 * mode job_bound and job_finish_below post the collectives the topology
 * has not costed yet for other threads (job_help) instead of simulating
 * them, and what they return is then not the prediction. Returns 1 when
 * a collective was posted since want mode was turned on (evaluate again
 * out of it), 0 when what was evaluated is exact (always 0 without a
 * topology). */
int job_want(sc_job *j, int on);
/* Compute one collective another thread's job posted (ncost_help): 1, or
 * 0 when none is posted. */
int job_help(sc_job *j);

/* A new job on j0's scenario that shares what j0 prepared and never
 * changes: its resolved scenario (copied as it stands), its workload
 * graph (borrowed read-only: nothing is built again), its topology and
 * its memo of flow-engine runs (netcost.h: each job on its own thread,
 * with routes of its own), so that the threads of a search simulate each
 * distinct collective about once, side by side. Its memos of lowered
 * plans, kernel times and queues are its own (a job is used by one
 * thread at a time). Close it before j0. */
int job_open_sharing(sc_job *j0, sc_job **out, sc_error *err);

/* A job kept for another search (a searcher's, search.c): job_park
 * empties j, letting go of its workload graph and topology (a shared
 * one: its share; park the jobs sharing j0 before j0) and forgetting its
 * memos' contents, but keeps its arrays, memo tables and lowered graphs'
 * arrays, so that the next search writes memory already touched instead
 * of faulting fresh pages (docs/search.md, "Threads: a pool kept between
 * searches"). A parked job is only reopened or closed: job_reopen is
 * sc_job_open, job_reopen_sharing job_open_sharing, into j (on an error
 * j is left to sc_job_close). The result of every evaluation is that of a
 * new job. */
void job_park(sc_job *j);
int job_reopen(sc_job *j, const sc_scenario *in, sc_error *err);
int job_reopen_sharing(sc_job *j, sc_job *j0, sc_error *err);

/* 1 when the job's cluster names a topology (collectives run through the
 * flow engine). */
int job_has_topology(const sc_job *j);

/* How many of job_lower's lowerings came from the memo (a count, for
 * tests and benchmarks). */
long job_memo_hits(const sc_job *j);
/* How many segments' queues job_bound and job_finish took from the memo
 * of queues (engine/qmemo.h; a count, for tests and benchmarks). */
long job_queue_memo_hits(const sc_job *j);

/* Check and lower plan (NULL: the scenario's) and cost its stages; *e is
 * the job's prepared engine (for the event engine). Then job_settle. */
int job_prepare(sc_job *j, const sc_plan *plan, struct eng **e, sc_error *err);
/* What went wrong beside an evaluation (a collective the flow engine
 * could not run, a memo that could not grow); rc if not SC_OK. */
int job_settle(sc_job *j, int rc, sc_error *err);

/* The event engine's run behind a prediction (job_event.c). */
struct ev_out;
const struct ev_out *event_pred_run(const sc_event_pred *p);
struct fleet;
const struct fleet *event_pred_fleet(const sc_event_pred *p);

#endif
