"""The explorers added with the accuracy and Bayesian sections of notebooks 01-03.

Reference values: the difference-of-proportions z and the exact McNemar test through the
library's ``proportions_test`` and ``mcnemar`` on the same simulated tables; the posterior
probabilities through ``bayes_correlated_ttest`` / ``bayes_signed_rank_test`` called here.
"""

from __future__ import annotations

import numpy as np
import pytest

import precmp_lib as pc
from precmp_lib.course import widgets

A = [0.81, 0.84, 0.80, 0.83, 0.82, 0.85, 0.80, 0.83, 0.84, 0.82]
B = [0.80, 0.82, 0.80, 0.81, 0.80, 0.83, 0.79, 0.82, 0.82, 0.80]


def test_proportions_type1_state_equals_the_library_tests_on_the_same_tables():
    n, p, phi, n_sim = 150, 0.8, 0.5, 60
    state = widgets.proportions_type1_state([phi], n=n, accuracy=p, n_sim=n_sim, random_state=7)
    q = 1 - p
    probs = np.array([p * p + phi * p * q, p * q * (1 - phi), p * q * (1 - phi), q * q + phi * p * q])
    tables = np.random.default_rng(7).multinomial(n, probs / probs.sum(), size=n_sim)
    z_rejects = mc_rejects = 0
    for t in tables:
        z = pc.proportions_test(int(t[0] + t[1]), int(t[0] + t[2]), n)
        z_rejects += z.pvalue <= 0.05
        if t[1] + t[2]:
            mc_rejects += pc.mcnemar([[t[0], t[1]], [t[2], t[3]]], method="exact").pvalue <= 0.05
    assert state.loc[phi, "proportions_z"] == pytest.approx(z_rejects / n_sim)
    assert state.loc[phi, "mcnemar_exact"] == pytest.approx(mc_rejects / n_sim)


def test_proportions_z_misses_alpha_while_mcnemar_holds_it():
    state = widgets.proportions_type1_state([-0.2, 0.0, 0.8], n_sim=4000)
    se = state["mc_se"].iloc[0]
    assert (state["mcnemar_exact"] <= 0.05 + 3 * se).all()
    assert state.loc[0.8, "proportions_z"] < 0.01  # conservative for correlated classifiers
    assert state.loc[-0.2, "proportions_z"] > 0.05 + 3 * se  # liberal for anti-correlated ones
    with pytest.raises(ValueError, match="accuracy"):
        widgets.proportions_type1_state(accuracy=1.0)


def test_bayes_rope_state_equals_the_tests():
    state = widgets.bayes_rope_state(A, B, 0.01, ropes=[0.0, 0.005, 0.02])
    assert list(state.index) == [0.0, 0.005, 0.01, 0.02] and state.loc[0.01, "current"]
    for rope, row in state.iterrows():
        ref = pc.bayes_correlated_ttest(A, B, rope=rope)
        assert (row["p_a_better"], row["p_rope"], row["p_b_better"]) == pytest.approx(tuple(ref), abs=1e-12)
    assert state.loc[0.0, "p_rope"] == 0
    assert state["p_rope"].is_monotonic_increasing
    np.testing.assert_allclose(state[["p_a_better", "p_rope", "p_b_better"]].sum(axis=1), 1)
    assert state.loc[0.0, "decision"] == "a_better"


def test_bayes_rope_state_over_data_sets_is_reproducible():
    s1 = widgets.bayes_rope_state(A, B, 0.01, method="signed_rank", ropes=[0.0, 0.01])
    ref = pc.bayes_signed_rank_test(A, B, rope=0.01, n_samples=20000, random_state=0)
    assert s1.loc[0.01, "p_a_better"] == pytest.approx(ref.p_a_better)
    s2 = widgets.bayes_rope_state(A, B, 0.01, method="signed_rank", ropes=[0.0, 0.01])
    assert s1.equals(s2)
    with pytest.raises(ValueError, match="method"):
        widgets.bayes_rope_state(A, B, 0.01, method="bogus")
    with pytest.raises(ValueError, match="rope"):
        widgets.bayes_rope_state(A, B, -0.01)


@pytest.mark.parametrize("method", ["correlated_t", "sign"])
def test_bayes_rope_explorer_redraws(method):
    import ipywidgets as w

    box = widgets.bayes_rope_explorer(A, B, method=method, rope=0.005, max_rope=0.04)
    slider, line, image = box.children
    assert isinstance(slider, w.FloatSlider) and isinstance(image, w.Image)
    before_line, before_image = line.value, bytes(image.value)
    slider.value = 0.03
    assert line.value != before_line and bytes(image.value) != before_image
