/*
 * rs_gpus.h -- GPU ids of the recommendation sets that have no preset of
 * their own, derived from the nearest preset with datasheet figures
 * (module prefix: rs_).
 */
#ifndef SC_RECSYS_RS_GPUS_H
#define SC_RECSYS_RS_GPUS_H

#include "stepcast.h"

/* The preset `name`, or a variant derived from one (rs_gpus.c). 0, or -1
 * when neither exists. */
int rs_gpu_lookup(const char *name, sc_gpu *out);

#endif
