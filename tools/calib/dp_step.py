#!/usr/bin/env python3
"""Measure training steps of CNNs and BERT in eager PyTorch on one GPU.

    python3 tools/calib/dp_step.py --out DIR [--budget-s 240] [--only NAME,...]

Writes DIR/dp_steps.csv (one row per config, appended and flushed as each
config finishes) and DIR/dp_env.txt (GPU, versions, clocks), and prints
progress. The models and the step are written out here so that the
measurement can be repeated:

CNNs: torchvision's resnet50 (v1.5: stride on the 3x3), resnet101,
  resnet152, vgg16, inception_v3 (aux_logits=False, 299 x 299) and alexnet,
  built with weights=None, 1000 classes, in train mode (batch norm updates,
  dropout on). Inputs are random images already on the GPU (no data
  loader), labels random. SGD with momentum 0.9 and weight decay 1e-4
  (torchvision's reference recipe; PyTorch's default foreach kernels).
BERT: written out below (as tools/calib/h100_step.py writes out its GPT):
  word (vocab 30522) + position (512) + token-type (2) embeddings, LayerNorm,
  dropout 0.1; `layers` post-LN encoder layers (qkv h->3h, SDPA with
  attention dropout 0.1 and no mask, out h->h, dropout, add, LayerNorm;
  fc1 h->4h, GELU, fc2 4h->h, dropout, add, LayerNorm); the MLM head on
  `mlm` masked positions per sequence (gathered: dense h->h, GELU,
  LayerNorm, decoder tied to the word embedding plus a bias) and the NSP
  head (pooler h->h tanh on the first token, then h->2), both
  cross-entropy. AdamW (fused) as HuggingFace's and most PyTorch BERT
  scripts use (NVIDIA's use LAMB, which PyTorch lacks).

Precisions: `amp_fp16` (torch.autocast float16 + GradScaler), `amp_bf16`
(autocast bfloat16, no scaler), `tf32` (fp32 with TF32 tensor cores for
matmuls and convolutions), `fp32` (TF32 off). Layout `cl` is
channels_last (NHWC) for the model and its input, `nchw` PyTorch's
default. cudnn.benchmark is on (every CNN script that cares sets it).

Per config: a fresh model, WARMUP untimed steps (cuDNN's autotuning runs in
the first), then STEPS timed ones, CUDA events around each whole step
(forward, loss, backward, optimizer, zero_grad): medians. `peak_mem_GiB`
is torch.cuda.max_memory_allocated over the timed steps (model, optimizer
state, activations and workspace, reset after the warm-up),
`reserved_GiB` the caching allocator's reserve. One more step runs under
torch.profiler to count its GPU kernels. Works without a GPU for a logic
check (--device cpu runs tiny configs).
"""
import os
import statistics
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from h100_step import (Timer, count_kernels, env_after, run_configs, sm_clock,  # noqa: E402
                       step_args, time_steps, write_env)

WARMUP = 4
STEPS = 12
BERT_VOCAB = 30522

# name, model, precision, layout, batch, seq, mlm. Cheap to dear within
# each family, so that a run cut short keeps the spread of shapes.
CONFIGS = [
    ("resnet50_amp16_cl_b32", "resnet50", "amp_fp16", "cl", 32, 0, 0),
    ("resnet50_amp16_cl_b64", "resnet50", "amp_fp16", "cl", 64, 0, 0),
    ("resnet50_amp16_cl_b128", "resnet50", "amp_fp16", "cl", 128, 0, 0),
    ("resnet50_amp16_cl_b256", "resnet50", "amp_fp16", "cl", 256, 0, 0),
    ("resnet50_amp16_nchw_b256", "resnet50", "amp_fp16", "nchw", 256, 0, 0),
    ("resnet50_ampbf16_cl_b256", "resnet50", "amp_bf16", "cl", 256, 0, 0),
    ("resnet50_tf32_nchw_b128", "resnet50", "tf32", "nchw", 128, 0, 0),
    ("resnet50_fp32_nchw_b128", "resnet50", "fp32", "nchw", 128, 0, 0),
    ("resnet50_tf32_cl_b128", "resnet50", "tf32", "cl", 128, 0, 0),
    ("resnet101_amp16_cl_b128", "resnet101", "amp_fp16", "cl", 128, 0, 0),
    ("resnet152_amp16_cl_b128", "resnet152", "amp_fp16", "cl", 128, 0, 0),
    ("vgg16_amp16_cl_b128", "vgg16", "amp_fp16", "cl", 128, 0, 0),
    ("vgg16_tf32_nchw_b64", "vgg16", "tf32", "nchw", 64, 0, 0),
    ("inception3_amp16_cl_b128", "inception_v3", "amp_fp16", "cl", 128, 0, 0),
    ("alexnet_amp16_cl_b512", "alexnet", "amp_fp16", "cl", 512, 0, 0),
    ("bertbase_amp16_s128_b32", "bert_base", "amp_fp16", "", 32, 128, 20),
    ("bertbase_amp16_s128_b128", "bert_base", "amp_fp16", "", 128, 128, 20),
    ("bertbase_fp32_s128_b64", "bert_base", "fp32", "", 64, 128, 20),
    ("bertlarge_amp16_s128_b64", "bert_large", "amp_fp16", "", 64, 128, 20),
    ("bertlarge_tf32_s128_b32", "bert_large", "tf32", "", 32, 128, 20),
    ("bertlarge_amp16_s512_b16", "bert_large", "amp_fp16", "", 16, 512, 80),
    ("bertlarge_ampbf16_s512_b16", "bert_large", "amp_bf16", "", 16, 512, 80),
]

CPU_CONFIGS = [
    ("cpu_resnet50", "resnet50", "fp32", "nchw", 2, 0, 0),
    ("cpu_bert_tiny", "bert_tiny", "fp32", "", 2, 32, 5),
]

BERT_SHAPES = {"bert_base": (768, 12, 12), "bert_large": (1024, 24, 16),
               "bert_tiny": (64, 2, 4)}

COLUMNS = ["name", "model", "precision", "layout", "batch", "seq", "mlm",
           "params", "optimizer", "warmup", "steps", "step_ms", "step_ms_min",
           "step_ms_max", "samples_per_s", "host_ms", "kernels", "peak_mem_GiB",
           "reserved_GiB", "sm_clock_MHz", "status"]


class EncoderLayer(nn.Module):
    def __init__(self, h, heads, p):
        super().__init__()
        self.heads, self.p = heads, p
        self.qkv = nn.Linear(h, 3 * h)
        self.out = nn.Linear(h, h)
        self.ln1 = nn.LayerNorm(h, eps=1e-12)
        self.fc1 = nn.Linear(h, 4 * h)
        self.fc2 = nn.Linear(4 * h, h)
        self.ln2 = nn.LayerNorm(h, eps=1e-12)
        self.drop = nn.Dropout(p)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = (t.view(b, s, self.heads, h // self.heads).transpose(1, 2)
                   for t in self.qkv(x).split(h, dim=2))
        p = self.p if self.training else 0.0
        if hasattr(F, "scaled_dot_product_attention"):
            a = F.scaled_dot_product_attention(q, k, v, dropout_p=p)
        else:  # old PyTorch (CPU logic test only)
            att = ((q @ k.transpose(-2, -1)) / (k.shape[-1] ** 0.5)).softmax(-1)
            a = F.dropout(att, p) @ v
        x = self.ln1(x + self.drop(self.out(a.transpose(1, 2).reshape(b, s, h))))
        return self.ln2(x + self.drop(self.fc2(F.gelu(self.fc1(x)))))


class Bert(nn.Module):
    def __init__(self, h, layers, heads, p=0.1):
        super().__init__()
        self.word = nn.Embedding(BERT_VOCAB, h)
        self.pos = nn.Embedding(512, h)
        self.ttype = nn.Embedding(2, h)
        self.ln = nn.LayerNorm(h, eps=1e-12)
        self.drop = nn.Dropout(p)
        self.layers = nn.ModuleList(EncoderLayer(h, heads, p) for _ in range(layers))
        self.mlm_dense = nn.Linear(h, h)
        self.mlm_ln = nn.LayerNorm(h, eps=1e-12)
        self.mlm_bias = nn.Parameter(torch.zeros(BERT_VOCAB))
        self.pool = nn.Linear(h, h)
        self.nsp = nn.Linear(h, 2)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)

    def forward(self, ids, types, mpos, mlab, nsp):
        s = ids.shape[1]
        x = self.word(ids) + self.pos(torch.arange(s, device=ids.device)) + self.ttype(types)
        x = self.drop(self.ln(x))
        for layer in self.layers:
            x = layer(x)
        m = torch.gather(x, 1, mpos.unsqueeze(-1).expand(-1, -1, x.shape[2]))
        m = self.mlm_ln(F.gelu(self.mlm_dense(m)))
        logits = F.linear(m, self.word.weight, self.mlm_bias)
        pooled = torch.tanh(self.pool(x[:, 0]))
        return (F.cross_entropy(logits.float().reshape(-1, BERT_VOCAB), mlab.reshape(-1))
                + F.cross_entropy(self.nsp(pooled).float(), nsp))


def build(model, dev):
    """The model, its optimizer's name and a function making one batch."""
    if model.startswith("bert"):
        h, L, heads = BERT_SHAPES[model]
        opt = "adamw_fused" if dev == "cuda" else "adamw"
        if hasattr(torch, "get_default_device"):  # build on the device: no slow CPU init
            with torch.device(dev):
                return Bert(h, L, heads), opt
        return Bert(h, L, heads).to(dev), opt
    import torchvision.models as tvm
    kw = {"weights": None}
    if model == "inception_v3":
        kw.update(aux_logits=False, init_weights=False)
    net = getattr(tvm, model)(**kw)
    return net.to(dev), "sgd_momentum"


def make_opt(net, name):
    if name.startswith("adamw"):
        kw = {"fused": True} if name == "adamw_fused" else {}
        return torch.optim.AdamW(net.parameters(), lr=1e-4, weight_decay=0.01, **kw)
    return torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)


def batch_fn(cfg, dev):
    name, model, prec, layout, b, seq, mlm = cfg
    g = torch.Generator(device=dev).manual_seed(0)
    if model.startswith("bert"):
        ids = torch.randint(0, BERT_VOCAB, (b, seq), device=dev, generator=g)
        types = (torch.arange(seq, device=dev) >= seq // 2).long().expand(b, seq).contiguous()
        mpos = torch.stack([torch.randperm(seq, device=dev, generator=g)[:mlm] for _ in range(b)])
        mlab = torch.randint(0, BERT_VOCAB, (b, mlm), device=dev, generator=g)
        nsp = torch.randint(0, 2, (b,), device=dev, generator=g)
        return lambda net: net(ids, types, mpos, mlab, nsp)
    side = 299 if model == "inception_v3" else 224
    x = torch.randn(b, 3, side, side, device=dev, generator=g)
    if layout == "cl":
        x = x.contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (b,), device=dev, generator=g)
    return lambda net: F.cross_entropy(net(x).float(), y)


def set_precision(prec):
    tf32 = prec != "fp32"  # amp keeps TF32 for what runs in fp32, as PyTorch's default for cuDNN
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32


def setup(cfg, dev):
    """A fresh model of `cfg` on `dev`: (model, optimizer name, step function, timer).
    step() runs one training step and returns CUDA events at its start and end."""
    name, model, prec, layout, b, seq, mlm = cfg
    torch.manual_seed(0)
    set_precision(prec)
    net, opt_name = build(model, dev)
    if layout == "cl":
        net = net.to(memory_format=torch.channels_last)
    net.train()
    opt = make_opt(net, opt_name)
    loss_of = batch_fn(cfg, dev)
    amp = {"amp_fp16": torch.float16, "amp_bf16": torch.bfloat16}.get(prec)
    scaler = torch.amp.GradScaler(dev) if prec == "amp_fp16" and dev == "cuda" else None
    t = Timer(dev)

    def step():
        e0 = t.mark()
        if amp is not None:
            with torch.autocast(dev, dtype=amp):
                loss = loss_of(net)
        else:
            loss = loss_of(net)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        opt.zero_grad(set_to_none=True)
        return e0, t.mark()

    return net, opt_name, step, t


def run_config(cfg, dev):
    name, model, prec, layout, b, seq, mlm = cfg
    net, opt_name, step, t = setup(cfg, dev)
    marks, host = time_steps(step, t, dev, WARMUP, STEPS)
    ms = [t.ms(a, z) for a, z in marks]
    med = statistics.median(ms)
    row = dict(name=name, model=model, precision=prec, layout=layout or "-", batch=b,
               seq=seq or "", mlm=mlm or "", params=sum(p.numel() for p in net.parameters()),
               optimizer=opt_name, warmup=WARMUP, steps=STEPS, step_ms="%.3f" % med,
               step_ms_min="%.3f" % min(ms), step_ms_max="%.3f" % max(ms),
               samples_per_s="%.1f" % (b * 1e3 / med), host_ms="%.3f" % statistics.median(host),
               sm_clock_MHz=sm_clock() if dev == "cuda" else "", status="ok",
               peak_mem_GiB="%.3f" % (torch.cuda.max_memory_allocated() / 2**30) if dev == "cuda" else "",
               reserved_GiB="%.3f" % (torch.cuda.max_memory_reserved() / 2**30) if dev == "cuda" else "")
    row["kernels"] = count_kernels(step, dev)
    return row


def main():
    a, configs = step_args(240.0, CPU_CONFIGS, CONFIGS)
    dev = a.device
    env = os.path.join(a.out, "dp_env.txt")
    write_env(env, dev)
    torch.backends.cudnn.benchmark = True
    t0 = run_configs(
        os.path.join(a.out, "dp_steps.csv"), COLUMNS, configs, a,
        lambda cfg: run_config(cfg, dev),
        lambda cfg: dict(name=cfg[0], model=cfg[1], precision=cfg[2], layout=cfg[3] or "-",
                         batch=cfg[4], seq=cfg[5] or "", mlm=cfg[6] or ""),
        lambda row: "%-28s step %9s ms  %9s /s  host %8s  kern %5s  mem %7s GiB  %s"
        % (row["name"], row["step_ms"], row["samples_per_s"], row["host_ms"], row["kernels"],
           row["peak_mem_GiB"], row["status"]))
    env_after(env, t0)

if __name__ == "__main__":
    sys.exit(main())
