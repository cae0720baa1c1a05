#!/usr/bin/env python3
"""Measure training-step times of a GPT-style decoder in eager PyTorch on one GPU.

    python3 tools/calib/h100_step.py --out DIR [--budget-s 170] [--only NAME,...] [--long]

--long runs LONG_CONFIGS instead (sequences of 8k-32k at micro-batch 1:
long-context training, where attention is most of the work).

Writes DIR/h100_gpt_steps.csv (one row per config, appended and flushed as
each config finishes), DIR/h100_env.txt (GPU, versions, clocks) and prints
progress. Each config builds a fresh model, runs WARMUP training steps and
then STEPS timed ones; the numbers are medians over the timed steps.

The model (written out here so that the measurement is reproducible):
  token embedding (vocab x h) + learned position embedding (seq x h)
  `layers` x pre-LN block:
      x = x + proj(sdpa(qkv(ln1(x)), causal))      qkv: h -> 3h, proj: h -> h
      x = x + fc2(gelu(fc1(ln2(x))))               fc1: h -> 4h, fc2: 4h -> h
  final LayerNorm, vocab head tied to the token embedding, cross-entropy
  All Linear layers have biases; no dropout.
Parameters and AdamW states are fp32; forward and backward run under
torch.autocast(bfloat16) (mixed precision, as most eager training scripts
do); AdamW is the fused implementation when PyTorch has it. Attention is
torch.nn.functional.scaled_dot_product_attention with is_causal=True, run
inside sdpa_kernel(FLASH_ATTENTION) so that the flash kernel (FlashAttention-2
in PyTorch) is used; if that context fails, the default backend is used and
the row says so. `ckpt` = 1 wraps every block in torch.utils.checkpoint
(full per-layer recomputation, use_reentrant=False).

Per step, CUDA events split the step into forward (incl. loss), backward,
and optimizer (zero_grad + step); `step_ms` is the event time from the start
of forward to the end of the optimizer step. `host_ms` is the CPU time the
Python thread took to issue one step without synchronising (if it is close to
`step_ms`, the step is host-bound). One extra step is run under
torch.profiler to count the GPU kernels of a step (`kernels`).

Works without a GPU (for testing the logic: --device cpu runs tiny configs).
"""
import argparse
import csv
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

VOCAB = 50304  # GPT-2's 50257 padded to a multiple of 128 (as nanoGPT/Megatron do)
WARMUP = 3
STEPS = 10


def named_configs(heads, names):
    """The configs (name, hidden, layers, heads, seq, micro_batch, ckpt) that
    the names spell, SIZE<hidden>_L<layers>_s<seq>_b<micro_batch>, "_ckpt"
    where every block is checkpointed (SIZE s, m, l, xl: for the eye), each
    with heads[hidden] attention heads."""
    out = []
    for name in names.split():
        m = re.fullmatch(r"[a-z]+(\d+)_L(\d+)_s(\d+)_b(\d+)(_ckpt)?", name)
        h, layers, seq, mb = (int(g) for g in m.groups()[:4])
        out.append((name, h, layers, heads[h], seq, mb, int(m.group(5) is not None)))
    return out


# Ordered cheap to dear so that a run cut short still has the small
# (host-bound) end; head dim 64 but for 1536 and 2048 (16 heads: 96, 128).
CONFIGS = named_configs({768: 12, 1024: 16, 1536: 16, 2048: 16}, """
    s768_L12_s1024_b1 s768_L12_s1024_b4 s768_L12_s1024_b16 s768_L12_s4096_b4_ckpt
    m1024_L24_s1024_b8 m1024_L24_s2048_b4 l1536_L24_s2048_b4 xl2048_L24_s1024_b1
    xl2048_L24_s2048_b4 xl2048_L24_s4096_b2 xl2048_L24_s2048_b8_ckpt""")

# Long sequences (--long): the same decoder at 8k-32k tokens, micro-batch 1,
# head dim 64 (768/12, 1024/16) and 128 (1536/12, 2048/16); one with every
# block checkpointed. Cheap to dear as above.
LONG_CONFIGS = named_configs({768: 12, 1024: 16, 1536: 12, 2048: 16}, """
    s768_L12_s8192_b1 s768_L12_s16384_b1 m1024_L24_s8192_b2 s768_L12_s32768_b1
    m1024_L24_s16384_b1 l1536_L24_s16384_b1 m1024_L24_s32768_b1 xl2048_L24_s16384_b1
    l1536_L24_s32768_b1 l1536_L24_s32768_b1_ckpt""")

# Tiny shapes for a CPU check of the script's logic.
CPU_CONFIGS = [
    ("cpu_tiny", 64, 2, 4, 32, 2, 0),
    ("cpu_tiny_ckpt", 64, 2, 4, 32, 2, 1),
]

COLUMNS = ["name", "hidden", "layers", "heads", "seq", "micro_batch", "ckpt",
           "vocab", "params", "tied", "dtype", "attention", "optimizer",
           "warmup", "steps", "step_ms", "step_ms_min", "step_ms_max",
           "fwd_ms", "bwd_ms", "opt_ms", "host_ms", "kernels",
           "peak_mem_GiB", "sm_clock_MHz", "status"]


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.ln2 = nn.LayerNorm(h)
        self.fc1 = nn.Linear(h, 4 * h)
        self.fc2 = nn.Linear(4 * h, h)

    def attn(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).split(h, dim=2)
        q = q.view(b, s, self.heads, h // self.heads).transpose(1, 2)
        k = k.view(b, s, self.heads, h // self.heads).transpose(1, 2)
        v = v.view(b, s, self.heads, h // self.heads).transpose(1, 2)
        if hasattr(F, "scaled_dot_product_attention"):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:  # old PyTorch (CPU logic test only)
            att = (q @ k.transpose(-2, -1)) / math.sqrt(k.shape[-1])
            mask = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
            y = att.masked_fill(~mask, float("-inf")).softmax(-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, s, h))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, h, layers, heads, seq, ckpt):
        super().__init__()
        self.ckpt = ckpt
        self.wte = nn.Embedding(VOCAB, h)
        self.wpe = nn.Embedding(seq, h)
        self.blocks = nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(h)
        for p in self.parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, std=0.02)

    def forward(self, idx, targets):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for blk in self.blocks:
            if self.ckpt:
                x = torch.utils.checkpoint.checkpoint(blk, x, use_reentrant=False)
            else:
                x = blk(x)
        logits = F.linear(self.ln_f(x), self.wte.weight)  # tied head
        return F.cross_entropy(logits.float().view(-1, VOCAB), targets.view(-1))


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # no nvidia-smi on a CPU machine
        return "unavailable (%s)" % type(e).__name__


def sm_clock():
    out = sh(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"])
    return out.splitlines()[0].strip() if out and out[0].isdigit() else ""


def write_env(path, dev):
    lines = ["date_utc: " + time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
             "python: " + platform.python_version(),
             "torch: " + torch.__version__,
             "cuda (torch): " + str(torch.version.cuda),
             "cudnn: " + str(torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None),
             "platform: " + platform.platform(),
             "cpu: " + (platform.processor() or "") + " x%d" % (os.cpu_count() or 0)]
    if dev == "cuda":
        p = torch.cuda.get_device_properties(0)
        lines += ["gpu: " + p.name,
                  "sm_count: %d" % p.multi_processor_count,
                  "memory_GiB: %.1f" % (p.total_memory / 2**30)]
    lines += ["nvidia-smi:", sh(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,"
                                 "clocks.mem,clocks.max.mem,power.limit,temperature.gpu,pstate",
                                 "--format=csv"])]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)


class Timer:
    """CUDA events on a GPU, perf_counter after a sync-free wait on CPU."""

    def __init__(self, dev):
        self.dev = dev

    def mark(self):
        if self.dev == "cuda":
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            return e
        return time.perf_counter()

    def ms(self, a, b):
        if self.dev == "cuda":
            return a.elapsed_time(b)
        return (b - a) * 1e3

    def sync(self):
        if self.dev == "cuda":
            torch.cuda.synchronize()


def time_steps(step, t, dev, warmup, steps):
    """`warmup` untimed calls of step(), then `steps` timed ones with the
    peak-memory counter reset between: (each step's CUDA-event marks, each
    step's host ms to issue it)."""
    for _ in range(warmup):
        step()
    t.sync()
    if dev == "cuda":
        torch.cuda.reset_peak_memory_stats()
    marks, host = [], []
    for _ in range(steps):
        c0 = time.perf_counter()
        marks.append(step())
        host.append((time.perf_counter() - c0) * 1e3)
    t.sync()
    return marks, host


def make_opt(model, dev):
    try:
        return torch.optim.AdamW(model.parameters(), lr=1e-4, fused=(dev == "cuda")), \
            "adamw_fused" if dev == "cuda" else "adamw"
    except (TypeError, RuntimeError):
        return torch.optim.AdamW(model.parameters(), lr=1e-4), "adamw"


def attn_ctx(dev, use_flash, backend="flash"):
    if dev == "cuda" and use_flash:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        return sdpa_kernel([SDPBackend.CUDNN_ATTENTION if backend == "cudnn"
                            else SDPBackend.FLASH_ATTENTION])
    return _Null()


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def run_config(cfg, dev, dtype, backend="flash"):
    name, h, L, heads, seq, mb, ckpt = cfg
    torch.manual_seed(0)
    if hasattr(torch, "get_default_device"):  # build on the device: no slow CPU init
        with torch.device(dev):
            model = GPT(h, L, heads, seq, ckpt)
    else:
        model = GPT(h, L, heads, seq, ckpt).to(dev)
    nparams = sum(p.numel() for p in model.parameters())
    opt, opt_name = make_opt(model, dev)
    idx = torch.randint(0, VOCAB, (mb, seq), device=dev)
    tgt = torch.randint(0, VOCAB, (mb, seq), device=dev)
    t = Timer(dev)
    use_flash = dev == "cuda"

    def step():
        with attn_ctx(dev, use_flash, backend):
            with torch.autocast(dev, dtype=dtype):
                e0 = t.mark()
                loss = model(idx, tgt)
                e1 = t.mark()
            loss.backward()
            e2 = t.mark()
        opt.step()
        opt.zero_grad(set_to_none=True)
        e3 = t.mark()
        return e0, e1, e2, e3

    attention = ("sdpa_" + backend) if use_flash else "sdpa_default"
    try:
        step()
    except Exception as e:
        if not use_flash or "out of memory" in str(e).lower():
            raise
        print("  %s-only sdpa failed (%s); default backend" % (backend, str(e)[:120]), flush=True)
        use_flash = False
        attention = "sdpa_default"
        opt.zero_grad(set_to_none=True)
        step()
    marks, host = time_steps(step, t, dev, WARMUP - 1, STEPS)
    clock = sm_clock() if dev == "cuda" else ""
    step_ms = [t.ms(m[0], m[3]) for m in marks]
    row = dict(name=name, hidden=h, layers=L, heads=heads, seq=seq, micro_batch=mb,
               ckpt=ckpt, vocab=VOCAB, params=nparams, tied=1, dtype="amp_bf16",
               attention=attention, optimizer=opt_name, warmup=WARMUP, steps=STEPS,
               step_ms="%.3f" % statistics.median(step_ms),
               step_ms_min="%.3f" % min(step_ms), step_ms_max="%.3f" % max(step_ms),
               fwd_ms="%.3f" % statistics.median(t.ms(m[0], m[1]) for m in marks),
               bwd_ms="%.3f" % statistics.median(t.ms(m[1], m[2]) for m in marks),
               opt_ms="%.3f" % statistics.median(t.ms(m[2], m[3]) for m in marks),
               host_ms="%.3f" % statistics.median(host),
               kernels="", sm_clock_MHz=clock, status="ok",
               peak_mem_GiB="%.2f" % (torch.cuda.max_memory_allocated() / 2**30)
               if dev == "cuda" else "")
    row["kernels"] = count_kernels(step, dev)
    del model, opt, idx, tgt
    return row


def count_kernels(step, dev):
    """GPU kernels (and memcpy/memset) of one step, from torch.profiler."""
    if dev != "cuda":
        return ""
    try:
        from torch.autograd import DeviceType
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        return str(sum(1 for e in prof.events() if e.device_type == DeviceType.CUDA))
    except Exception as e:  # the profiler is optional
        print("  kernel count failed: %s" % str(e)[:120], flush=True)
        return ""


def step_args(budget_s, cpu_configs, gpu_configs, long_configs=None):
    """The command line the step scripts share (--out, --device, --budget-s,
    --only, and --long where long_configs is given): the arguments and the
    configs to run, as (args, configs)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--budget-s", type=float, default=budget_s,
                    help="start no new config after this many seconds")
    ap.add_argument("--only", default="", help="comma-separated config names")
    if long_configs is not None:
        ap.add_argument("--long", action="store_true", help="the long-sequence configs")
        ap.add_argument("--backend", default="flash", choices=("flash", "cudnn"),
                        help="SDPA backend the attention is restricted to")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if getattr(a, "long", False) and a.device == "cuda":
        gpu_configs = long_configs
    configs = gpu_configs if a.device == "cuda" else cpu_configs
    if a.only:
        keep = set(a.only.split(","))
        configs = [c for c in configs if c[0] in keep]
    return a, configs


def run_configs(path, columns, configs, a, run, failed, show):
    """Run each config (run(cfg) -> row) into the CSV at path, rows flushed
    as they finish, none started after a.budget_s seconds; a config that
    raises (out of memory or anything else) is recorded as failed(cfg,
    status) and the next one runs; show(row) is its progress line."""
    t0 = time.perf_counter()
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        f.flush()
        for cfg in configs:
            if time.perf_counter() - t0 > a.budget_s:
                print("budget spent: skipping %s" % cfg[0], flush=True)
                continue
            c0 = time.perf_counter()
            try:
                row = run(cfg)
            except Exception as e:  # OOM or anything else: record and go on
                msg = str(e).splitlines()[0][:100] if str(e) else type(e).__name__
                status = "oom" if "out of memory" in msg.lower() else "error: " + msg
                row = {k: "" for k in columns}
                row.update(failed(cfg), status=status.replace(",", ";"))
            if a.device == "cuda":
                torch.cuda.empty_cache()
            w.writerow(row)
            f.flush()
            print("%s  (%.1f s)" % (show(row), time.perf_counter() - c0), flush=True)
    return t0


def env_after(path, t0):
    """Append the clocks, temperature and power after the runs to the
    environment file at path; print the total time since t0."""
    with open(path, "a") as f:
        f.write("nvidia-smi after:\n" + sh(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,"
                                            "temperature.gpu,power.draw,pstate", "--format=csv"]) + "\n")
    print("total %.1f s" % (time.perf_counter() - t0), flush=True)


def main():
    a, configs = step_args(170.0, CPU_CONFIGS, CONFIGS, LONG_CONFIGS)
    dev, dtype = a.device, torch.bfloat16
    env = os.path.join(a.out, "h100_env.txt")
    write_env(env, dev)
    if dev == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    t0 = run_configs(
        os.path.join(a.out, "h100_gpt_steps.csv"), COLUMNS, configs, a,
        lambda cfg: run_config(cfg, dev, dtype, getattr(a, "backend", "flash")),
        lambda cfg: dict(name=cfg[0], hidden=cfg[1], layers=cfg[2], heads=cfg[3], seq=cfg[4],
                         micro_batch=cfg[5], ckpt=cfg[6]),
        lambda row: "%-26s step %8s ms  fwd %8s  bwd %8s  opt %7s  host %8s  kern %5s  %s"
        % (row["name"], row["step_ms"], row["fwd_ms"], row["bwd_ms"], row["opt_ms"],
           row["host_ms"], row["kernels"], row["status"]))
    env_after(env, t0)


if __name__ == "__main__":
    sys.exit(main())
