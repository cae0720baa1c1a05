"""The command line the tools/dp scripts share: --stepcast (the CLI,
default build/stepcast) and the dp_training CSVs (default: every file of
../shared/validation/dp_training, or the caller's list)."""
import argparse
import glob


def parse(default_csvs=None):
    """(path of the stepcast CLI, the CSV files to read)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--stepcast", default="build/stepcast")
    ap.add_argument("csv", nargs="*")
    a = ap.parse_args()
    files = a.csv or default_csvs or sorted(glob.glob("../shared/validation/dp_training/*.csv"))
    return a.stepcast, files
