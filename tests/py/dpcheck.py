"""dpcheck.py -- what the tests of tools/dp share: tools/dp on the import
path (no __pycache__ written into the source tree), a check that records
a failure and goes on, a relative comparison, and the exit status.
Usage, from a test in tests/py: `import dpcheck` (before the tool)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(ROOT, "tools", "dp"))

failures = []


def check(cond, what):
    """Record `what` as a failure, printed at once, unless cond."""
    if not cond:
        failures.append(what)
        print("FAIL", what)


def near(a, b, what, rel=1e-12):
    """check that a is within rel of b (relative to max(1, |b|))."""
    check(a is not None and abs(a - b) <= rel * max(1.0, abs(b)),
          "%s: %r, expected %r" % (what, a, b))


def finish(name):
    """Exit 1 after any failure, else print that name passed."""
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("%s: all checks passed" % name)
