"""predict() takes every plan key of docs/input.md through its overrides
(the command's --set): each key, with a value valid for its scenario,
gives the bytes `stepcast predict --set plan.KEY=VALUE` prints, and
changes the prediction. A key added to the plan table of docs/input.md
without a case here fails test_every_documented_key_has_a_case."""
import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
import stepcast  # noqa: E402

CLI = os.environ.get("STEPCAST_CLI", os.path.join(ROOT, "build", "stepcast"))
EX = os.path.join(ROOT, "examples")
DEFAULT = None  # the built-in scenario: gpt3-175b, tp 8, pp 16, 1024 x A100
MPT = os.path.join(EX, "mpt-7b-fsdp-8-a100.json")  # zero 3 (FSDP), pp 1, 8 GPUs
MIXTRAL = os.path.join(EX, "mixtral-8x7b-h100.json")  # MoE, ep 8, tp 2, pp 4
LLAMA = os.path.join(EX, "llama3-70b-512-h100.json")  # H100: fp8
DSV3 = os.path.join(EX, "deepseek-v3-modelzoo-h100.json")  # MoE with a shared expert, flex
DS = {"plan.fsdp_impl": "deepspeed"}

# key: (scenario, the overrides that set it and what it needs beside it)
CASES = {
    "tp": (DEFAULT, {"plan.tp": 4}),
    "pp": (DEFAULT, {"plan.pp": 8}),
    "dp": (DEFAULT, {"plan.dp": 4, "plan.pp": 32, "plan.global_batch": 1024}),
    "cp": (DEFAULT, {"plan.cp": 2}),
    "ep": (MIXTRAL, {"plan.ep": 4}),
    "etp": (MIXTRAL, {"plan.etp": 1}),
    "moe_capacity": (MIXTRAL, {"plan.moe_capacity": 1.25}),
    "moe_grouped_gemm": (MIXTRAL, {"plan.moe_grouped_gemm": False, "plan.ep": 2}),
    "moe_permute_fusion": (MIXTRAL, {"plan.moe_permute_fusion": False}),
    "moe_router_dtype": (MIXTRAL, {"plan.moe_router_dtype": "fp32"}),
    "moe_shared_expert_overlap": (DSV3, {"plan.moe_shared_expert_overlap": True}),
    "moe_imbalance": (MIXTRAL, {"plan.moe_imbalance": 1.3}),
    "vpp": (DEFAULT, {"plan.vpp": 3, "plan.schedule": "interleaved"}),
    "sp": (DEFAULT, {"plan.sp": False}),
    "zero": (DEFAULT, {"plan.zero": 3}),
    "fsdp_shard": (MPT, {"plan.fsdp_shard": 4}),
    "fsdp_impl": (MPT, {"plan.fsdp_impl": "fsdp1"}),
    "fsdp_reshard": (MPT, {"plan.fsdp_reshard": False}),
    "fsdp_prefetch": (MPT, {"plan.fsdp_prefetch": 1, "plan.fsdp_impl": "fsdp1"}),
    "fsdp_forward_prefetch": (MPT, {"plan.fsdp_forward_prefetch": True,
                                    "plan.fsdp_impl": "fsdp1"}),
    "ds_prefetch_bucket": (MPT, dict(DS, **{"plan.ds_prefetch_bucket": 0})),
    "ds_max_live": (MPT, dict(DS, **{"plan.ds_max_live": 2e6})),
    "ds_max_reuse": (MPT, dict(DS, **{"plan.ds_max_reuse": 0})),
    "ds_reduce_bucket": (MPT, dict(DS, **{"plan.ds_reduce_bucket": 2e6})),
    "ds_persistence": (MPT, dict(DS, **{"plan.ds_persistence": 1e9})),
    "schedule": (DEFAULT, {"plan.schedule": "gpipe"}),
    "recompute": (DEFAULT, {"plan.recompute": "full"}),
    "global_batch": (DEFAULT, {"plan.global_batch": 2048}),
    "micro_batch": (DEFAULT, {"plan.micro_batch": 2}),
    "dtype": (DEFAULT, {"plan.dtype": "fp16"}),
    "distributed_optimizer": (DEFAULT, {"plan.distributed_optimizer": True, "plan.zero": 0}),
    "overlap_grad_reduce": (DEFAULT, {"plan.overlap_grad_reduce": False}),
    "overlap_param_gather": (DEFAULT, {"plan.overlap_param_gather": False}),
    "overlap_tp": (DEFAULT, {"plan.overlap_tp": True}),
    "tp_async_bwd": (DEFAULT, {"plan.tp_async_bwd": True}),
    "overlap_ep": (MIXTRAL, {"plan.overlap_ep": True, "plan.pp": 1}),
    "moe_dispatcher": (MIXTRAL, {"plan.moe_dispatcher": "flex"}),
    "moe_router_groups": (MIXTRAL, {"plan.moe_dispatcher": "flex", "plan.moe_router_groups": 2,
                                    "plan.moe_router_group_topk": 1}),
    "moe_router_group_topk": (MIXTRAL, {"plan.moe_dispatcher": "flex",
                                        "plan.moe_router_groups": 2,
                                        "plan.moe_router_group_topk": 1}),
    "moe_flex_sms": (MIXTRAL, {"plan.moe_dispatcher": "flex", "plan.overlap_ep": True,
                               "plan.pp": 1, "plan.moe_flex_sms": 64}),
    "flash_attention": (DEFAULT, {"plan.flash_attention": False}),
    "attention": (DEFAULT, {"plan.attention": "flash1"}),
    "fused_kernels": (DEFAULT, {"plan.fused_kernels": False}),
    "framework_eager": (DEFAULT, {"plan.framework_eager": False}),
    "channels_last": ({"model": "resnet50", "cluster": {"gpus": 8},
                       "plan": {"tp": 1, "pp": 1, "global_batch": 256, "dtype": "fp16"}},
                      {"plan.channels_last": False}),
    "cuda_graphs": (DEFAULT, {"plan.cuda_graphs": True}),
    "conv_autotune": ({"model": "alexnet", "cluster": {"gpu": "p100-sxm2-16gb", "gpus": 1},
                       "plan": {"tp": 1, "pp": 1, "global_batch": 512, "dtype": "fp32"}},
                      {"plan.conv_autotune": True}),
    "amp": ({"model": "bert_base", "cluster": {"gpu": "v100-sxm2-16gb", "gpus": 1},
             "plan": {"tp": 1, "pp": 1, "global_batch": 64, "dtype": "fp16"}},
            {"plan.amp": True}),
    "cublas_pre11": ({"model": "bert_base", "cluster": {"gpu": "v100-sxm2-16gb", "gpus": 1},
                      "plan": {"tp": 1, "pp": 1, "global_batch": 64, "dtype": "fp16"}},
                     {"plan.cublas_pre11": True}),
    "vocab_multiple": (DEFAULT, {"plan.vocab_multiple": 1}),  # GPT-3's 50,257 unpadded
    "overrides": (DEFAULT, {"plan.overrides": [{"layers": [0, 11], "recompute": "full"}]}),
    "main_grads": (DEFAULT, {"plan.main_grads": "bf16"}),
    "main_params_dtype": (DEFAULT, {"plan.main_params_dtype": "fp16"}),  # zero 1
    "exp_avg_dtype": (DEFAULT, {"plan.exp_avg_dtype": "bf16"}),
    "exp_avg_sq_dtype": (DEFAULT, {"plan.exp_avg_sq_dtype": "fp8"}),
    "fp8_recipe": (LLAMA, {"plan.dtype": "fp8", "plan.fp8_recipe": "current"}),
    "bf16_first_layers": (LLAMA, {"plan.dtype": "fp8", "plan.bf16_first_layers": 2}),
    "bf16_last_layers": (LLAMA, {"plan.dtype": "fp8", "plan.bf16_last_layers": 2}),
    "fp8_param": (LLAMA, {"plan.dtype": "fp8", "plan.fp8_param": True}),
    "param_remainders": (DEFAULT, {"plan.param_remainders": True}),
    "fused_loss": (MPT, {"plan.fused_loss": True}),
    "loss": (MPT, {"plan.loss": "eager"}),
    # one GPU, AMP, one micro-batch: "auto" frees the gradients, "zero" keeps them
    # Trainer: FSDP1 through accelerate, torch.nn layers, autocast
    "framework": (MPT, {"plan.framework": "hf_trainer"}),
    "zero_grad": ({"model": "bert_base", "cluster": {"gpu": "v100-sxm2-16gb", "gpus": 1},
                   "plan": {"tp": 1, "pp": 1, "global_batch": 64, "dtype": "fp16", "amp": True}},
                  {"plan.zero_grad": "zero"}),
    # AMP over 8 GPUs with no ZeRO (PyTorch DDP): bucket views hold the gradients once
    "ddp_bucket_view": ({"model": "bert_base", "cluster": {"gpu": "v100-sxm2-16gb", "gpus": 8},
                         "plan": {"tp": 1, "pp": 1, "global_batch": 64, "dtype": "fp16",
                                  "amp": True, "zero": 0}},
                        {"plan.ddp_bucket_view": True}),
    "offload_layers": (MPT, {"plan.offload_layers": 4}),
    "recompute_layers": (DEFAULT, {"plan.recompute": "full", "plan.recompute_layers": 2}),
    "recompute_modules": (DEFAULT, {"plan.recompute_modules": ["core_attn", "mlp"]}),
    "pp_first_layers": (DEFAULT, {"plan.pp_first_layers": 5, "plan.pp_last_layers": 7}),
    "pp_last_layers": (DEFAULT, {"plan.pp_last_layers": 5, "plan.pp_first_layers": 7}),
    "pp_embedding_in_split": (DEFAULT, {"model.layers": 95,
                                        "plan.pp_embedding_in_split": True}),
    "pp_loss_in_split": (DEFAULT, {"model.layers": 95, "plan.pp_loss_in_split": True}),
    "pp_layout": (DEFAULT, {"plan.pp_layout": [5] + [6] * 14 + [7]}),
}

# keys whose valid values are the ones derived without them
SAME_WITHOUT = {"dp"}  # tp * pp * dp * cp = gpus: the derived dp is the only valid one


def documented_plan_keys():
    """The keys of the plan table of docs/input.md (its first table)."""
    with open(os.path.join(ROOT, "docs", "input.md")) as f:
        lines = f.read().split("\n")
    i = lines.index("## `plan`")
    while not lines[i].startswith("| key"):
        i += 1
    keys = []
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        keys += re.findall(r"`([a-z0-9_]+)`", line.split("|")[1])
    return keys


def test_every_documented_key_has_a_case():
    keys = documented_plan_keys()
    assert len(keys) >= 50 and "fsdp_impl" in keys and "moe_imbalance" in keys
    assert sorted(keys) == sorted(CASES)


def scenario_args(scenario, tmp_path):
    """The command-line scenario argument for a case (a dict goes to a file)."""
    if scenario is None:
        return []
    if isinstance(scenario, dict):
        path = tmp_path / "scenario.json"
        path.write_text(json.dumps(scenario))
        return [str(path)]
    return [scenario]


@pytest.mark.parametrize("key", sorted(CASES))
def test_key_through_overrides_equals_cli(key, tmp_path):
    scenario, overrides = CASES[key]
    text = stepcast.predict_json(scenario, overrides)
    sets = [a for kv in stepcast._overrides(overrides) for a in ("--set", kv)]
    p = subprocess.run([CLI, "predict", *scenario_args(scenario, tmp_path), *sets, "--format",
                        "json"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert text == p.stdout
    if key in SAME_WITHOUT:
        return
    # the key reaches the model: without it (its context kept) the prediction
    # differs, or the scenario is not valid
    rest = {k: v for k, v in overrides.items() if k != f"plan.{key}"}
    try:
        base = stepcast.predict(scenario, rest)
    except stepcast.Error:
        base = None
    assert json.loads(text) != base, f"plan.{key} changed nothing"


def test_list_overrides_are_the_dict_ones():
    assert stepcast.predict(MPT, ["plan.fsdp_impl=xla", "plan.moe_imbalance=1"]) == \
        stepcast.predict(MPT, {"plan.fsdp_impl": "xla", "plan.moe_imbalance": 1})


def test_bad_plan_value_names_the_key():
    with pytest.raises(stepcast.Error) as e:
        stepcast.predict(MPT, {"plan.fsdp_impl": "fsdp3"})
    assert e.value.code == 2 and "plan.fsdp_impl" in str(e.value)
    assert "fsdp2" in str(e.value)  # what would be valid
    with pytest.raises(stepcast.Error, match="unknown key"):
        stepcast.predict(MPT, {"plan.fsdp_implementation": "fsdp1"})
