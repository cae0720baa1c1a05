"""The command line the tools/dp scripts share: --stepcast (the CLI,
default build/stepcast) and the dp_training CSVs (default: every file of
../shared/validation/dp_training, or the caller's list)."""
import argparse
import glob


def parse_switches(default_csvs=None, switches=()):
    """(path of the stepcast CLI, the CSV files to read, the set of the
    caller's switches given); switches: (flag, help) pairs, e.g.
    ("--all", "every pair")."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--stepcast", default="build/stepcast")
    for flag, what in switches:
        ap.add_argument(flag, action="store_true", help=what)
    ap.add_argument("csv", nargs="*")
    a = ap.parse_args()
    files = a.csv or default_csvs or sorted(glob.glob("../shared/validation/dp_training/*.csv"))
    given = {flag for flag, _ in switches if getattr(a, flag.lstrip("-").replace("-", "_"))}
    return a.stepcast, files, given


def parse(default_csvs=None):
    """(path of the stepcast CLI, the CSV files to read)."""
    exe, files, _ = parse_switches(default_csvs)
    return exe, files
