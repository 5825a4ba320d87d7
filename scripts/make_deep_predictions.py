"""Train the two digits CNNs of notebook 09 and write their test-set predictions.

    .venv/bin/python scripts/make_deep_predictions.py            # writes precmp_lib/_resources/deep_digits_predictions.csv
    .venv/bin/python scripts/make_deep_predictions.py --check    # retrains, compares with the file

The file is what notebook 09 uses when PyTorch is not installed. Its provenance (this script,
the settings below and the torch version) is recorded in data/README.md; the --check run and
tests/course/test_deep.py verify that retraining reproduces it exactly.
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from precmp_lib.course.deep import SHIPPED_PREDICTIONS, train_digits_cnns

SETTINGS = {"dropouts": (0.5, 0.7), "epochs": 60, "test_size": 0.5, "seed": 0, "threads": 1}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="retrain and compare with the file")
    parser.add_argument("--out", default=str(SHIPPED_PREDICTIONS), help="where to write the CSV")
    args = parser.parse_args(argv)
    run = train_digits_cnns(**SETTINGS)
    frame = run.predictions
    accuracy = {m: float((frame[m] == frame["y_true"]).mean()) for m in run.models}
    print(f"torch {run.settings['torch']}, settings {SETTINGS}")
    for m in run.models:
        print(f"  {m}: trained in {run.seconds[m]:.1f} s, test accuracy {accuracy[m]:.4f}")
    if args.check:
        shipped = pd.read_csv(args.out)
        same = shipped.equals(frame)
        print("the shipped file is reproduced exactly" if same else "the shipped file DIFFERS")
        return 0 if same else 1
    frame.to_csv(args.out, index=False)
    print(f"wrote {len(frame)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
