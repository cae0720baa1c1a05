#!/usr/bin/env python3
"""test_rankpairs.py -- tools/dp/rankpairs.py's verdicts on hand-made rows:
the printed figure's rounding (half a unit of its last digit), the reading
uncertainty turned into seconds, the noise / tie / counted split of a pair,
and the platform read from the notes. Needs no ../shared and no CLI.
Usage: test_rankpairs.py (from anywhere).
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dpcheck import check, finish, near  # noqa: E402
import rankpairs  # noqa: E402


def row(rid, scheme, sps, unc="", iter_s="", notes="platform AWS p2.8xlarge; x"):
    r = {c: "" for c in rankpairs.GROUP}
    r.update({"id": rid, "scheme": scheme, "ps_placement": "", "synchronous": "1",
              "measured_samples_per_s": sps, "measured_uncertainty": unc,
              "measured_iter_s": iter_s, "worker_step_s": "", "notes": notes,
              "model_variant": "resnet50_v1", "batch_per_gpu": "32", "gpus": "8",
              "gpu": "k80", "dtype": "fp32", "data": "synthetic"})
    return r


# 149 printed: known to +-0.5 images/s; 51.9: +-0.05; 2987: +-0.5.
near(rankpairs.rounding_sps("149"), 0.5, "rounding of 149")
near(rankpairs.rounding_sps("51.9"), 0.05, "rounding of 51.9")
near(rankpairs.rounding_sps("2987"), 0.5, "rounding of 2987")
near(rankpairs.rounding_sps(""), 0.0, "rounding of a blank cell")

# 256 images at 149/s = 1.7181 s; +-0.5/149 of it = 5.765 ms. With a stated
# uncertainty of 2/s on 800/s, 0.32 s x 2/800 = 0.8 ms (the rounding unused).
a = row("a", "replicated_local_copy", "149", iter_s="1.7181")
near(rankpairs.read_s(a, 1.7181), 1.7181 * 0.5 / 149, "rounding in seconds")
k = row("k", "ps_async", "800", unc="2", iter_s="0.32")
near(rankpairs.read_s(k, 0.32), 0.32 * 2 / 800, "stated uncertainty in seconds")

# 149 vs 148 images/s (1.7181 vs 1.7297 s): 11.6 ms apart, within the two
# roundings (5.77 + 5.84 ms): noise. 149 vs 146 (1.7534 s): 35.3 ms, outside
# 11.8 ms, 2.05 % apart: counted. 149 vs 147 (1.7415 s): 23.4 ms, outside
# 11.7 ms but under 2 %: a tie.
b = row("b", "ps_sync", "148", iter_s="1.7297")
c = row("c", "ps_sync_distributed_replicated", "146", iter_s="1.7534")
d = row("d", "ps_async", "147", iter_s="1.7415", notes="platform GCE n1; y")
pred = {"a": 1.0, "b": 1.1, "c": 0.9, "d": 1.2}
seen = {(p[0]["id"], p[1]["id"]): p for p in rankpairs.pairs_of([a, b, c, d], pred)}
check(len(seen) == 6, "6 pairs of 4 schemes, got %d" % len(seen))
check(seen[("a", "b")][7] and seen[("a", "b")][6], "149 vs 148 is noise (and a tie)")
check(not seen[("a", "c")][7] and not seen[("a", "c")][6], "149 vs 146 is counted")
check(not seen[("a", "d")][7] and seen[("a", "d")][6], "149 vs 147 is a tie, not noise")

# The platform the notes name; " cluster" (a multi-server run) is the same one.
check(rankpairs.platform(a) == "AWS p2.8xlarge", "platform of a: %r" % rankpairs.platform(a))
a2 = row("e", "x", "1", notes="model: m; platform AWS p2.8xlarge cluster; EC2")
check(rankpairs.platform(a2) == "AWS p2.8xlarge", "cluster suffix: %r" % rankpairs.platform(a2))
check(rankpairs.platform(row("f", "x", "1", notes="none")) == "", "no platform named")

# The ceiling of one order per pair of schemes: copy faster than the PS in
# 3 groups and slower in 1 (best 3 of 4); with a third scheme measured
# behind the PS and ahead of copy twice each, the majority orders form a
# cycle (copy < ps < dr < copy) and no single order of the three reaches
# the sum of the majorities.
def pair(sa, sb, ma, mb):
    return (row("x", sa, "1"), row("y", sb, "1"), ma, mb)


ps4 = [pair("copy", "ps", 1.0, 1.1), pair("ps", "copy", 1.2, 1.1), pair("copy", "ps", 2.0, 2.2),
       pair("copy", "ps", 1.0, 0.9)]
best, n, kinds, cyclic = rankpairs.ceiling(ps4)
check((best, n) == (3, 4), "copy vs ps: at most 3 of 4, got %d of %d" % (best, n))
check(kinds[("copy", "ps")] == [3, 1], "copy faster in 3, slower in 1: %r" % kinds)
check(not cyclic, "two schemes form no cycle")
# copy < ps (3:1), ps < dr (2:0), dr < copy (2:0): no one order reaches 7
cyc = ps4 + [pair("ps", "dr", 1.0, 1.1), pair("dr", "ps", 1.3, 1.2),
             pair("dr", "copy", 1.0, 1.1), pair("copy", "dr", 1.3, 1.2)]
best, n, kinds, cyclic = rankpairs.ceiling(cyc)
check((best, n) == (7, 8), "three schemes: 7 of 8, got %d of %d" % (best, n))
check(cyclic, "copy < ps < dr < copy is a cycle")

finish("rankpairs")
