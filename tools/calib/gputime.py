"""Timing of GPU calls for the calibration benchmarks (moe_bench.py,
gemm_bench.py, bmm_bench.py, conv_bench.py --graph): CUDA events around
INNER back-to-back calls (or a CUDA graph of them), the median of REPS
such blocks after WARM untimed ones, in ms per call."""
import statistics

import torch

WARM, REPS, INNER = 3, 5, 5


def _median_ms(block, calls):
    """Median ms per call of REPS timed runs of block(), each `calls` calls."""
    ts = []
    for _ in range(REPS):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        block()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / calls)
    return statistics.median(ts)


def timed(fn):
    """Median ms per call of fn() over REPS blocks of INNER calls."""
    for _ in range(WARM):
        fn()
    torch.cuda.synchronize()

    def block():
        for _ in range(INNER):
            fn()
    return _median_ms(block, INNER)


def timed_graph(fn, inner=20):
    """Median ms per call of fn() replayed from a CUDA graph of `inner`
    back-to-back calls (REPS replays after WARM): the GPU's time per call
    without the host's dispatch, which bounds eager calls of small
    kernels (PyTorch's ~10-20 us a call)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(WARM):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(inner):
            fn()
    for _ in range(WARM):
        g.replay()
    torch.cuda.synchronize()
    ms = _median_ms(g.replay, inner)
    del g
    return ms
