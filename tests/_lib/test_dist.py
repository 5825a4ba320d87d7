"""The distribution tails of precmp_lib._lib.dist equal scipy.stats bit for bit.

The reference is scipy.stats itself, evaluated on the same inputs: random values over each
function's range plus its edges (0, 1, infinities, NaN, negative statistics).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from precmp_lib._lib import dist as _dist

RNG = np.random.default_rng(20261123)
STATISTICS = np.concatenate([RNG.exponential(3.0, 400), RNG.exponential(200.0, 100),
                             [0.0, 1e-300, 1e-12, 3.841458820694124, 700.0, 1e6, np.inf, np.nan,
                              -1.0, -np.inf]])
Z = np.concatenate([RNG.normal(0, 3, 400), [0.0, -0.0, 1e-300, 8.0, 38.0, -38.0, np.inf, -np.inf,
                                            np.nan]])
Q = np.concatenate([RNG.random(400), 10.0 ** -RNG.uniform(0, 300, 100),
                    [0.0, 1.0, 0.5, 5e-324, 1 - 2**-53, -0.1, 1.1, np.nan]])


def same(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("df", [1, 2, 3, 7.5, 30, 1000])
def test_chi2_tails(df):
    with np.errstate(all="ignore"):
        assert same(_dist.chi2_sf(STATISTICS, df), stats.chi2.sf(STATISTICS, df))
        assert same(_dist.chi2_isf(Q, df), stats.chi2.isf(Q, df))
    assert same(_dist.chi2_sf(4.2, df), stats.chi2.sf(4.2, df))
    assert np.ndim(_dist.chi2_isf(0.05, df)) == 0 and same(_dist.chi2_isf(0.05, df),
                                                          stats.chi2.isf(0.05, df))


def test_normal_tails():
    with np.errstate(all="ignore"):
        assert same(_dist.norm_sf(Z), stats.norm.sf(Z))
        assert same(_dist.norm_logsf(Z), stats.norm.logsf(Z))
        assert same(_dist.norm_pdf(Z), stats.norm.pdf(Z))
        assert same(_dist.norm_isf(Q), stats.norm.isf(Q))


@pytest.mark.parametrize("df", [1, 2, 4, 5, 7.5, 9, 30, 1000, 1e10, np.inf])
def test_student_and_f_tails(df):
    with np.errstate(all="ignore"):
        assert same(_dist.t_sf(Z, df), stats.t.sf(Z, df))
        assert same(_dist.t_cdf(Z, df), stats.t.cdf(Z, df))
        assert same(_dist.t_isf(Q, df), stats.t.isf(Q, df))
        assert same(_dist.t_ppf(Q, df), stats.t.ppf(Q, df))
        assert same(_dist.f_sf(STATISTICS, df, 5), stats.f.sf(STATISTICS, df, 5))
        assert same(_dist.f_sf(STATISTICS, 10, df), stats.f.sf(STATISTICS, 10, df))
    for ours, theirs in [(_dist.t_sf(1.5, df), stats.t.sf(1.5, df)),
                         (_dist.t_isf(0.025, df), stats.t.isf(0.025, df)),
                         (_dist.f_sf(2.5, 10, df), stats.f.sf(2.5, 10, df))]:
        assert np.ndim(ours) == 0 and same(ours, theirs)


@pytest.mark.parametrize(("df", "loc", "scale"), [(9, 0.02, 0.01), (1, -0.3, 2.0),
                                                  (99, 1e-5, 3e-7), (4.5, 0.0, 1.0)])
def test_student_posterior_tails_and_interval(df, loc, scale):
    from precmp_lib.stats.bayesian import StudentPosterior

    post, frozen = StudentPosterior(df=df, loc=loc, scale=scale), stats.t(df, loc=loc, scale=scale)
    xs = np.concatenate([loc + scale * Z, [loc, 0.0, 1e-300]])
    with np.errstate(all="ignore"):
        assert same(post.cdf(xs), frozen.cdf(xs)) and same(post.sf(xs), frozen.sf(xs))
    assert isinstance(post.sf(0.0), float) and post.sf(0.0) == float(frozen.sf(0.0))
    for level in (0.0, 1e-9, 0.5, 0.95, 0.998, 1.0):
        assert post.interval(level) == tuple(float(v) for v in frozen.interval(level)), level


@pytest.mark.parametrize("n", [1, 2, 5, 24, 25, 100, 10_001, 2_000_000])
def test_binomial_tails_at_one_half_and_elsewhere(n):
    ks = sorted({0, 1, n // 3, n // 2, max(0, n - 1), n})
    for p in (0.5, 0.2, 0.93):
        for k in ks:
            assert _dist.binom_cdf(k, n, p) == float(stats.binom.cdf(k, n, p)), (k, n, p)
            assert _dist.binom_pmf(k, n, p) == float(stats.binom.pmf(k, n, p)), (k, n, p)
            assert _dist.binom_logpmf(k, n, p) == float(stats.binom.logpmf(k, n, p)), (k, n, p)


def _imports_scipy_stats(args: list[str]) -> bool:
    code = ("import sys\nfrom precmp_lib.cli import main\n"
            f"assert main({args!r}) == 0\n"
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() in ("True", "False"), out.stderr
    return out.stdout.strip() == "True"


def test_a_report_on_repeated_cross_validation_does_not_import_scipy_stats(tmp_path):
    """Its corrected t tests, Bayesian posteriors and clustered precision tests use the tails above."""
    from sparkfiles import cv_file

    cv_file(tmp_path / "cv.parquet", seed=5)
    assert not _imports_scipy_stats(["report", str(tmp_path / "cv.parquet"), "--y-true", "y_true",
                                     "--out", str(tmp_path / "r.html"), "--quiet"])


def test_a_report_on_one_test_set_does_not_import_scipy_stats(tmp_path):
    """The command's path on a test set needs only the tails above (and imports them only)."""
    csv = tmp_path / "p.csv"
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 300)
    lines = ["y,a,b,c"] + [f"{t},{t if r < .8 else (t + 1) % 3},{t if s < .7 else 0},{t}"
                           for t, r, s in zip(y, rng.random(300), rng.random(300))]
    csv.write_text("\n".join(lines) + "\n")
    code = ("import sys\nfrom precmp_lib.cli import main\n"
            f"assert main(['report', {str(csv)!r}, '--y-true', 'y', '--out', "
            f"{str(tmp_path / 'r.html')!r}, '--quiet', '--prevalence', '1=0.2']) == 0\n"
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr
