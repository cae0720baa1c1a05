"""Timing of GPU calls for the calibration benchmarks (moe_bench.py,
gemm_bench.py): CUDA events around INNER back-to-back calls, the median
of REPS such blocks after WARM untimed calls, in ms per call."""
import statistics

import torch

WARM, REPS, INNER = 3, 5, 5


def timed(fn):
    """Median ms per call of fn() over REPS blocks of INNER calls."""
    for _ in range(WARM):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(REPS):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(INNER):
            fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / INNER)
    return statistics.median(ts)
