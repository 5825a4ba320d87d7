"""Loading the paper's UCI datasets: first load (parse + content check) against later loads.

Later notebooks load several datasets, often more than once; ``load_dataset`` parses and checks
each file once per process and then hands out copies. This prints, per dataset, the median time
of a first load and of a later load, and their ratio, and the share of the first load spent on the
sha256 check of the files. Needs ``PRECMP_DATA_MIRROR`` or the cache filled by ``make data``.
"""

from __future__ import annotations

import statistics
import time

import precmp_lib.sources.datasets as data


def _median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(repeat: int = 7) -> None:
    print(f"{'dataset':<22}{'rows':>7}{'first load ms':>15}{'later load ms':>15}{'ratio':>8}"
          f"{'sha256 ms':>11}{'of first':>10}")
    for name in data._uci_names():
        try:
            ds = data.load_dataset(name)
        except data.DatasetUnavailable as exc:
            print(f"{name:<22} skipped: {exc}")
            continue

        def first(name=name):
            data._load_uci.cache_clear()
            data.load_dataset(name)

        cold = _median_seconds(first, repeat)
        data.load_dataset(name)
        warm = _median_seconds(lambda name=name: data.load_dataset(name), repeat)
        folder = data._uci_directory(name, None)
        digest = _median_seconds(lambda name=name, f=folder: data._verify_digests(name, f), repeat)
        print(f"{name:<22}{len(ds.X):>7}{cold * 1e3:>15.1f}{warm * 1e3:>15.2f}{cold / warm:>8.0f}"
              f"{digest * 1e3:>11.2f}{digest / cold:>10.1%}")


if __name__ == "__main__":
    main()
