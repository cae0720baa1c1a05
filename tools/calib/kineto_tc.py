#!/usr/bin/env python3
"""What precision the GPU kernels of Kineto traces ran in: is there any
measured tensor-core (16-bit) GEMM or convolution, or 16-bit element-wise
kernel, on a given GPU?

    tools/calib/kineto_tc.py [--gpu SUBSTRING] TRACE...

A trace is a Kineto JSON file (.json or .json.gz; a .tar.gz of them is
read member by member). Its GPU is the first deviceProperties name. Each
kernel event (cat "kernel" or "Kernel") falls in the first class whose
name pattern it matches:

  tensor-core   cuBLAS / cuDNN / CUTLASS tensor-core kernels by their
                instruction-shape names: Volta's HMMA.884 ("h884gemm",
                "s884gemm", "884cudnn"), Turing's 1688, Ampere's 16816,
                "hmma", "xmma", "tensorop", "_tc_" (NVIDIA's kernel naming;
                no list in ../shared, read off kernel names of public traces)
  fp32-gemm     CUDA-core SGEMM and fp32 cuDNN convolutions ("sgemm",
                "scudnn", "convolve_sgemm", "winograd", "<float" engines)
  nccl          "nccl"
  16-bit        any other kernel with a 16-bit type in its template
                arguments ("Half", "half", "BFloat16", "__nv_bfloat16")
  other         the rest (fp32 element-wise, reductions, copies, ...)

Prints per trace: the GPU, kernels and GPU time per class, and the names
of the tensor-core and 16-bit kernels (at most 5). With --gpu only traces
whose GPU name contains SUBSTRING (case-insensitive) are listed. Exit 2
when no trace matches.
"""
import argparse
import collections
import gzip
import io
import json
import re
import sys
import tarfile

CLASSES = (
    ("tensor-core", re.compile(r"884|1688|16816|hmma|xmma|tensorop|_tc_", re.I)),
    ("fp32-gemm", re.compile(r"sgemm|scudnn|convolve_sgemm|winograd|engine<float", re.I)),
    ("nccl", re.compile(r"nccl", re.I)),
    ("16-bit", re.compile(r"\bHalf\b|c10::Half|__half|\bhalf\b|BFloat16|__nv_bfloat16")),
)


def classify(name):
    for cls, pat in CLASSES:
        if pat.search(name):
            return cls
    return "other"


def traces(path):
    """(label, parsed JSON) of each trace in path."""
    if path.endswith(".tar.gz") or path.endswith(".tgz"):
        with tarfile.open(path) as tar:
            for m in sorted(tar.getmembers(), key=lambda m: m.name):
                if m.isfile() and ".json" in m.name and "/._" not in m.name:
                    data = tar.extractfile(m).read()
                    if m.name.endswith(".gz"):
                        data = gzip.decompress(data)
                    yield path + ":" + m.name, json.load(io.BytesIO(data))
        return
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        yield path, json.load(f)


def summarise(doc):
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    props = doc.get("deviceProperties") if isinstance(doc, dict) else None
    gpu = props[0].get("name", "?") if props else "?"
    count, dur = collections.Counter(), collections.Counter()
    names = collections.defaultdict(collections.Counter)
    for e in events:
        if not isinstance(e, dict) or str(e.get("cat", "")).lower() != "kernel":
            continue
        cls = classify(e.get("name", ""))
        count[cls] += 1
        dur[cls] += float(e.get("dur", 0))
        names[cls][e.get("name", "")] += 1
    return gpu, count, dur, names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", default="")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    shown = 0
    for path in a.traces:
        for label, doc in traces(path):
            gpu, count, dur, names = summarise(doc)
            if a.gpu.lower() not in gpu.lower():
                continue
            shown += 1
            total = sum(dur.values()) or 1.0
            print("%s  [%s]" % (label, gpu))
            for cls in [c for c, _ in CLASSES] + ["other"]:
                print("  %-12s %6d kernels  %10.0f us  %5.1f %%"
                      % (cls, count[cls], dur[cls], 100 * dur[cls] / total))
            for cls in ("tensor-core", "16-bit"):
                for n, c in names[cls].most_common(5):
                    print("    %s x%d: %s" % (cls, c, n[:120]))
    if shown == 0:
        print("kineto_tc: no trace on a GPU matching %r" % a.gpu, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
