/*
 * job.h -- what the library's own modules may ask a job beyond the public
 * API (module prefix: job_).
 */
#ifndef SC_JOB_H
#define SC_JOB_H

#include "graph/graph.h"
#include "stepcast.h"

/* The resolved scenario of the last plan evaluated (after a successful
 * sc_job_predict). */
const sc_scenario *job_current(const sc_job *j);

/* The job's workload graph. */
const wg_graph *job_graph(const sc_job *j);

#endif
