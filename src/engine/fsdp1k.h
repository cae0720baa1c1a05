/*
 * fsdp1k.h -- the kernels FSDP1 (PyTorch's FullyShardedDataParallel)
 * runs around each unit's collectives (module prefix: fsdp1k_).
 *
 * FSDP1 keeps a unit's parameters as one flat parameter whose pieces the
 * module sees as views, so the all-gather itself needs no copy (its
 * destination is the flat parameter); what it does run, per unit and per
 * micro-batch (PyTorch 1.13, Debian python3-torch 1.13.1+dfsg-4,
 * torch/distributed/fsdp/):
 *
 *   before each gather, on the pre-all-gather stream, with parameter
 *     mixed precision: the fp32 shard cast into the low-precision shard
 *     that is gathered (flat_param.py _use_low_precision_shard,
 *     `_mp_shard.copy_`, line 648): reads 4 and writes e bytes a shard
 *     element;
 *   in backward, on the compute stream: the views are torch.split pieces
 *     of the flat parameter (flat_param.py _get_unflat_views, line 967),
 *     so autograd's SplitWithSizesBackward concatenates their gradients
 *     into the flat gradient: reads and writes e bytes an element of the
 *     whole unit;
 *   on the post-backward stream, before the reduce-scatter: F.pad of the
 *     flat gradient (a copy even with nothing to pad) and the gradient's
 *     pre-divide in place (fully_sharded_data_parallel.py line 3296;
 *     algorithms/_comm_hooks/default_hooks.py reduce_scatter_hook, line
 *     110), 2e each an element of the whole unit; after it, on the shard:
 *     torch.zeros_like of the output (e, line 3297), the post-divide (2e,
 *     line 116, when n / predivide > 1), the cast to the fp32 shard's
 *     dtype (e + 4, line 3381, with mixed precision) and the accumulation
 *     into the saved gradient shard (12, line 3321; the first micro-batch
 *     assigns instead, counted alike).
 *
 * Each is one kernel: bytes / achievable HBM bandwidth + the kernel
 * latency (cost_mem). docs/model.md section 4b.
 */
#ifndef SC_ENGINE_FSDP1K_H
#define SC_ENGINE_FSDP1K_H

#include "stepcast.h"

/* FSDP1's kernels for one unit, seconds (see above). */
typedef struct fsdp1k_cost {
  double cast;   /* before each gather, beside it (pre-all-gather stream) */
  double cat;    /* backward, compute stream */
  double reduce; /* around the reduce-scatter, post-backward stream */
} fsdp1k_cost;

/* FSDP1's pre-divide factor over n ranks (default_hooks.py
 * DefaultState._get_gradient_predivide_factor): f = 1, doubled while
 * n % f == 0 and n / f > f (8 ranks: 4, 16: 4, 64: 8, 2: 2). The
 * post-divide factor is n / f; a factor of 1 runs no kernel. */
double fsdp1k_predivide(double n);

/* The costs for a unit of `params` elements sharded over n ranks, with
 * e-byte unsharded weights and gradients (e < 4: mixed precision, an
 * fp32 shard) on GPU g. */
fsdp1k_cost fsdp1k_unit(const sc_gpu *g, double params, double e, double n);

/* The kernels of a unit over n ranks with e-byte weights that run (a
 * kernel of 0 bytes above does not), per micro-batch: *fwd the cast
 * before its gather; *bwd, with regather (resharded after forward) the
 * cast before the gather again, then the cat, pad, pre-divide, zeros,
 * post-divide, fp32 cast and accumulation. Each is a framework call from
 * FSDP's hooks (the cat autograd's), launched on the host as the
 * lowered kernels are (analytic.c eng_task_host); 0 and 0 where
 * fsdp1k_unit costs nothing (n < 2). */
void fsdp1k_launches(double e, double n, int regather, int *fwd, int *bwd);

/* HBM bytes those kernels move per micro-batch for the unit, with
 * `gathers` gathers (1 or 2: the backward's again). */
double fsdp1k_bytes(double params, double e, double n, int gathers);

#endif
