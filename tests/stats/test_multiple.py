"""Multiplicity adjustment, cross-checked against statsmodels' multipletests."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from precmp_lib import adjust_pvalues


@pytest.fixture(scope="module", autouse=True)
def _frozen_heap():
    """Freeze the objects alive now, so that statsmodels' Holm stays cheap.

    ``multipletests(method="holm")`` calls ``gc.collect()`` on every call; in a test worker
    that has run other files, that walks the whole heap each time (83 s for this module's 100
    examples in a full run, against 7 s alone). Frozen objects are not walked.
    """
    gc.freeze()
    yield
    gc.unfreeze()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.sampled_from(["holm", "bonferroni", "fdr_bh"]))
def test_equals_statsmodels(p, method):
    # subnormal p-values (below 2.2e-308) carry no relative precision: compare them absolutely
    np.testing.assert_allclose(adjust_pvalues(p, method), multipletests(p, method=method)[1],
                               rtol=1e-12, atol=1e-300)


def test_methods_example_and_nan_passthrough():
    # docs/methods.md §3: uncorrected (0.020921, 0.045500, 1) -> Holm (0.062764, 0.091001, 1)
    np.testing.assert_allclose(adjust_pvalues([0.020921, 0.0455, 1.0]), [0.062763, 0.091, 1.0], rtol=1e-5)
    out = adjust_pvalues([0.01, np.nan, 0.04], "bonferroni")
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.08)


def test_bad_input():
    with pytest.raises(ValueError, match="method must be one of"):
        adjust_pvalues([0.1], "hommel")
    with pytest.raises(ValueError, match=r"pvalues must lie in \[0, 1\]"):
        adjust_pvalues([0.1, 1.2])
    with pytest.raises(ValueError, match="one-dimensional"):
        adjust_pvalues([[0.1]])
