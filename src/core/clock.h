/*
 * clock.h -- a monotonic clock for the wall time that reports print
 * (module prefix: clock_). Never read by a prediction: results stay
 * deterministic.
 */
#ifndef SC_CORE_CLOCK_H
#define SC_CORE_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double clock_now_s(void);

#endif /* SC_CORE_CLOCK_H */
