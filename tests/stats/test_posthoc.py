"""Post-hoc tests on ranks refuse two classifiers of one name.

With two columns named ``lr`` every result keyed by name merged them: ``nemenyi(...).cliques``
gave one group although tree and rf differ (p = 0.0006 by Nemenyi), ``tests_against_control``
listed "lr vs lr", and the critical-difference diagram raised TypeError. The score matrix is
now refused where it is checked (``_lib.checks.as_score_matrix``), before any of them runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from precmp_lib.stats.posthoc import nemenyi, pairwise_rank_tests, tests_against_control
from precmp_lib.stats.ranks import friedman


def _scores(names):
    rng = np.random.default_rng(0)
    base = rng.uniform(0.6, 0.9, (20, 1))
    edge = np.array([0.05, 0.0, 0.01, -0.05, 0.02])
    return pd.DataFrame(base + edge + rng.normal(0, 0.01, (20, 5)), columns=names)


@pytest.mark.parametrize("call", [
    lambda s: nemenyi(s).cliques,
    lambda s: tests_against_control(s, "lr"),
    lambda s: pairwise_rank_tests(s),
    lambda s: friedman(s),
])
def test_two_classifiers_of_one_name_are_refused(call):
    with pytest.raises(ValueError, match="scores has two columns named 'lr'; give each "
                                         "classifier its own name"):
        call(_scores(["rf", "lr", "knn", "tree", "lr"]))


def test_the_critical_difference_diagram_refuses_them_too():
    from precmp_lib.course.plots import critical_difference_diagram

    with pytest.raises(ValueError, match="two columns named 'lr'"):
        critical_difference_diagram(_scores(["rf", "lr", "knn", "tree", "lr"]))


def test_with_distinct_names_the_groups_separate_rf_from_tree():
    res = nemenyi(_scores(["rf", "lr", "knn", "tree", "svm"]))
    assert res.pvalues.loc["rf", "tree"] < 0.05
    assert not any({"rf", "tree"} <= set(g) for g in res.cliques)
