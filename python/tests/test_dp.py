"""The Python module on data-parallel scenarios (a scenario with a "dp"
section, docs/input.md): the same JSON as `stepcast predict --format json`,
the CLI's message on bad input."""
import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
import stepcast  # noqa: E402

CLI = os.environ.get("STEPCAST_CLI", os.path.join(ROOT, "build", "stepcast"))
DP_EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "dp", "*.json")))


@pytest.mark.parametrize("path", DP_EXAMPLES, ids=os.path.basename)
def test_dp_predict_matches_the_cli(path):
    got = stepcast.predict(path)
    p = subprocess.run([CLI, "predict", path, "--format", "json"], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert got == json.loads(p.stdout)
    one = got["schemes"][0]
    assert one["step_s"] >= one["compute_s"] > 0


def test_dp_compare_matches_the_cli():
    path = os.path.join(ROOT, "examples", "dp", "resnet50-16-v100-25gbe.json")
    got = stepcast.dp(path, overrides={"dp.network_Gbps": 100})
    p = subprocess.run([CLI, "dp", path, "--set", "dp.network_Gbps=100", "--format", "json"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert got == json.loads(p.stdout)
    steps = [s["step_s"] for s in got["schemes"]]
    assert steps == sorted(steps) and len(steps) >= 10


def test_dp_bad_scheme_raises_the_cli_message():
    with pytest.raises(stepcast.Error, match="dp.scheme: unknown scheme 'nope'"):
        stepcast.predict(DP_EXAMPLES[0], overrides={"dp.scheme": "nope"})
