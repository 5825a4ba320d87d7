"""Cost of text and categorical labels against integer labels, in one run.

The same labels (K = 5 classes, about 80 % accuracy) are given to ``pattern_counts`` (truth and
three classifiers) and ``compare_precision`` (truth and two) in five containers:

- ``int``: int64 numpy arrays, the baseline (small-range integers are counted directly);
- ``category``: pandas categorical Series (codes are used as they are);
- ``str``: pandas Series of text, pandas' default ``str`` dtype (Arrow-backed with pyarrow);
- ``object``: numpy object arrays of Python strings;
- ``unicode``: numpy fixed-width text arrays (what ``np.asarray`` makes of a list of strings).

Each row prints the best-of-``repeat`` time of every container and its ratio to ``int``, all
measured in this run; the encodings are checked to give the same counts. The goal is every
ratio within ``GOAL`` (2x) of the integer path: a ratio above it is marked ``*`` and the last
lines list the misses. The rows marked ``(long)`` give ``compare_precision`` labels of 8 to 23
characters instead of 3 to 8: each row of text is then 2 to 12 times the bytes of an int64
label, and the ratios are reported beside the goal rather than held to it. Run: ``python bench/bench_labels.py`` (``make bench``); ``--max-n 1e6``
to stop early, ``--repeat 3``.

Text is coded by the C loops of ``precmp_lib.core._native`` where the package was built with a C
compiler; ``--numpy`` measures the numpy kernels that replace them where it was not. The first
line says which ran.
"""

from __future__ import annotations

import argparse
import gc

import numpy as np
import pandas as pd
from _timing import best_of

import precmp_lib as pc
from precmp_lib.core import factorize as validation
from precmp_lib.core.counts import pattern_counts

K = 5
NAMES = np.array(["asphalt", "building", "car", "grass", "tree"])
LONG_NAMES = np.array(["asphalt (impervious)", "building roof", "car park", "grass field",
                       "tree canopy (deciduous)"])  # sorted, as the codes are
FORMS = ("int", "category", "str", "object", "unicode")
GOAL = 2.0  # text and categorical labels within 2x of the integer path


def codes(n: int, c: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Truth and c classifiers' predictions as codes 0..K-1."""
    y = rng.integers(0, K, n)
    out = [y]
    for _ in range(c):
        wrong = rng.integers(0, K, n)
        out.append(np.where(rng.random(n) < 0.8, y, wrong))
    return out


def container(form: str, c: np.ndarray, names: np.ndarray = NAMES):
    if form == "int":
        return c
    if form == "category":
        return pd.Series(pd.Categorical.from_codes(c, names))
    if form == "str":
        return pd.Series(names[c], dtype="str")
    if form == "object":
        return names.astype(object)[c]
    return names[c]


def run(fn, arrays, repeat: int):
    result = fn(arrays)
    return result, best_of(lambda: fn(arrays), repeat)


def patterns(arrays):
    y, *preds = arrays
    return pattern_counts(y, {f"m{j}": p for j, p in enumerate(preds)})


def precision(arrays):
    return pc.compare_precision(*arrays)


def same(a, b) -> bool:
    if isinstance(a, pd.DataFrame):
        cols = [c for c in a.columns if c != "class"]
        return a[cols].equals(b[cols])
    return np.array_equal(a.counts, b.counts)


def ratio_text(ratio: float) -> str:
    """A ratio to int, marked when it misses the goal."""
    return f"{ratio:>9.2f}{'*' if ratio > GOAL else ' '}"


def main(max_n: float, repeat: int) -> None:
    print("label coding: " + ("numpy kernels" if validation._native is None
                              else "C loops (precmp_lib.core._native)"))
    head = "".join(f"{f + ' s':>11}" for f in FORMS) + "".join(f"{f:>10}" for f in FORMS[1:])
    print(f"{'function':<18}{'N':>7}{head}")
    print(f"{'':<25}{'':>{11 * len(FORMS)}}" + "".join(f"{'/ int':>10}" for _ in FORMS[1:]))
    misses, long_misses = [], []
    cases = (("pattern_counts", patterns, 3, NAMES), ("compare_precision", precision, 2, NAMES),
             ("(long)", precision, 2, LONG_NAMES))
    for n in (10**6, 10**7):
        if n > max_n:
            break
        for label, fn, c, names in cases:
            raw = codes(n, c, np.random.default_rng(n + c))
            times, first = {}, None
            for form in FORMS:
                arrays = [container(form, a, names) for a in raw]
                result, times[form] = run(fn, arrays, repeat)
                if first is None:
                    first = result
                elif not same(result, first):
                    raise AssertionError(f"{label}: {form} labels give other counts than int")
                del arrays, result
                gc.collect()
            row = "".join(f"{times[f]:>11.4f}" for f in FORMS)
            ratios = {f: times[f] / times["int"] for f in FORMS[1:]}
            print(f"{label:<18}{n:>7.0e}{row}" + "".join(ratio_text(r) for r in ratios.values()))
            above = [f"{label} N={n:.0e} {f}: {r:.2f}x" for f, r in ratios.items() if r > GOAL]
            (long_misses if names is LONG_NAMES else misses).extend(above)
    print(f"goal: every ratio <= {GOAL:g}x int; " + (f"{len(misses)} above (*):" if misses
                                                    else "all within"))
    for miss in misses:
        print(f"  {miss}")
    if long_misses:
        print(f"long labels, reported: {len(long_misses)} above {GOAL:g}x: "
              + "; ".join(long_misses))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=float, default=1e7, help="largest number of rows")
    parser.add_argument("--repeat", type=int, default=3, help="timing repeats (best of)")
    parser.add_argument("--numpy", action="store_true",
                        help="code text with the numpy kernels, as without a C compiler")
    args = parser.parse_args()
    if args.numpy:
        validation._native = None
    main(args.max_n, args.repeat)
