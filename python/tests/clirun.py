"""What the tests that compare the module with the command share: the
source tree (ROOT), the module on the path, the stepcast binary (CLI:
$STEPCAST_CLI, default build/stepcast) and cli(), which runs it from the
source tree and checks its exit code."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
CLI = os.environ.get("STEPCAST_CLI", os.path.join(ROOT, "build", "stepcast"))


def cli(*args, code=0):
    """`stepcast ARGS...` run from the source tree; its CompletedProcess
    (text), asserted to exit with code."""
    p = subprocess.run([CLI, *args], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == code, f"stepcast {' '.join(args)}: exit {p.returncode}: {p.stderr}"
    return p


def read(path):
    """The bytes of the file at path."""
    with open(path, "rb") as f:
        return f.read()
