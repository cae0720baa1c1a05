#!/usr/bin/env python3
"""test_tcprate.py -- tools/dp/tcprate.py's arithmetic on hand-made rows:
which rows cross servers over TCP, the measured and predicted exchange
per byte, the row of the smallest batch per scheme and model, the median
per scheme, and the per-byte / per-message split (exact on points made
from a known split; refused where the message counts barely differ or
the points cannot tell bytes from messages). Needs no ../shared and no
CLI. Usage: test_tcprate.py (from anywhere).
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dpcheck import check, finish, near  # noqa: E402
import tcprate  # noqa: E402


def row(rid, scheme, model, batch, transport="tcp", nodes="2", sync="1", it="0.5", ws=""):
    return {"id": rid, "scheme": scheme, "model": model, "batch_per_gpu": batch,
            "transport": transport, "nodes": nodes, "synchronous": sync,
            "measured_iter_s": it, "worker_step_s": ws}


# Which rows: TCP across servers only.
check(tcprate.crosses_tcp(row("a", "s", "m", "16")), "tcp on 2 servers crosses")
check(not tcprate.crosses_tcp(row("b", "s", "m", "16", nodes="1")), "one server does not")
check(not tcprate.crosses_tcp(row("c", "s", "m", "16", transport="rdma")), "rdma does not")
check(not tcprate.crosses_tcp(row("d", "s", "m", "16", nodes="")), "blank servers do not")
# An asynchronous row's target is its worker step.
near(tcprate.target(row("e", "s", "m", "16", sync="0", ws="0.25")), 0.25, "async target")
near(tcprate.target(row("f", "s", "m", "16")), 0.5, "sync target")

# 0.37 s measured, 0.05 s compute, 0.15 s predicted exposed, 100 MB:
# 0.32 s measured exchange = 3.2 ns per byte; 1.5 predicted; 0.32 / 0.15.
m, p, per_m, per_p, ratio = tcprate.exchange(0.37, 0.05, 0.15, 1e8)
near(m, 0.32, "exch_m")
near(p, 0.15, "exch_p")
near(per_m, 3.2, "ns/B measured")
near(per_p, 1.5, "ns/B predicted")
near(ratio, 0.32 / 0.15, "ratio")
check(tcprate.exchange(0.37, 0.05, 0.0, 1e8)[4] is None, "no ratio where nothing is exposed")

# The smallest batch per scheme and model.
rows = [row("1", "kf", "r50", "64"), row("2", "kf", "r50", "16"), row("3", "kf", "vgg", "32"),
        row("4", "mpi", "r50", "128")]
low = tcprate.smallest_batch(rows)
check(low[("kf", "r50")]["id"] == "2", "kf r50 at 16 per GPU")
check(low[("kf", "vgg")]["id"] == "3", "kf vgg at 32 per GPU")
check(low[("mpi", "r50")]["id"] == "4", "mpi r50 at its one batch")

# Medians per scheme: three models of one scheme, one of another.
med = tcprate.scheme_medians([("kf", 1.3, 0.8), ("kf", 1.4, 1.8), ("kf", 1.2, 1.3),
                              ("mpi", 3.0, 1.5)])
near(med["kf"][0], 1.3, "kf median measured")
near(med["kf"][1], 1.3, "kf median predicted")
check(med["kf"][2] == 3 and med["mpi"][2] == 1, "models counted")

# The split: points made from 1.3 ns per byte + 0.025 ms per message are
# recovered exactly (three models, tensor counts 161, 32, 284).
a, c = 1.3e-9, 25e-6
pts = [(b, k, a * b + c * k) for b, k in ((1.02e8, 161), (5.28e8, 32), (0.95e8, 284))]
ac = tcprate.split(pts)
near(ac[0], a, "per byte recovered", rel=1e-6)
near(ac[1], c, "per message recovered", rel=1e-6)
# Two points suffice when they differ in both.
ac = tcprate.split(pts[:2])
near(ac[0], a, "per byte from two points", rel=1e-6)
# Horovod's 2-4 fused buffers: no split; one point: no split.
check(tcprate.split([(1e8, 2, 0.3), (5e8, 4, 1.5), (1e8, 2, 0.31)]) is None,
      "message counts within a factor 4: no split")
check(tcprate.split(pts[:1]) is None, "one point: no split")
# Bytes proportional to messages: bytes and messages cannot be told apart.
check(tcprate.split([(1e6, 10, 0.01), (4e6, 40, 0.04)]) is None, "collinear points: no split")

finish("tcprate")
