"""Interactive explorers for the notebooks (ipywidgets).

Each explorer is a thin shell around a plain ``*_state`` function that computes everything it
shows; the tests call those functions directly, so the widgets' logic is tested without a browser.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .contingency import MCNEMAR_METHODS, mcnemar

__all__ = ["mcnemar_explorer", "mcnemar_state"]


# --------------------------------------------------------------------------------------------
# contingency (McNemar)
# --------------------------------------------------------------------------------------------


def mcnemar_state(b: int, c: int, *, n_agree: int = 100, alpha: float = 0.05) -> pd.DataFrame:
    """All four McNemar variants for discordant counts ``b`` and ``c``, as a table.

    ``n_agree`` items on which both classifiers agree complete the table; they do not change
    the p-values, only the accuracy difference.

    Returns
    -------
    DataFrame indexed by method with ``statistic``, ``pvalue``, ``reject`` (at ``alpha``)
    and ``degenerate``.

    Examples
    --------
    >>> mcnemar_state(11, 1)["pvalue"].round(5).tolist()
    [0.00389, 0.00937, 0.00635, 0.00342]
    """
    rows = {}
    for method in MCNEMAR_METHODS:
        res = mcnemar([[n_agree, b], [c, 0]], method=method)
        rows[method] = {
            "statistic": res.statistic,
            "pvalue": res.pvalue,
            "reject": res.pvalue <= alpha,
            "degenerate": res.degenerate,
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("method")


def mcnemar_explorer(b: int = 11, c: int = 1, *, max_count: int = 60, alpha: float = 0.05) -> Any:
    """Sliders for ``b`` and ``c`` that show all four McNemar p-values as they move."""
    import ipywidgets as w
    from IPython.display import display

    sb = w.IntSlider(value=b, min=0, max=max_count, description="b (only A)")
    sc = w.IntSlider(value=c, min=0, max=max_count, description="c (only B)")
    out = w.Output()

    def update(*_: Any) -> None:
        with out:
            out.clear_output(wait=True)
            display(mcnemar_state(sb.value, sc.value, alpha=alpha).style.format(
                {"statistic": "{:.4f}", "pvalue": "{:.5f}"}))

    sb.observe(update, names="value")
    sc.observe(update, names="value")
    update()
    return w.VBox([w.HBox([sb, sc]), out])


# --------------------------------------------------------------------------------------------
# precision (correlation and relative precision)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Bayes update (prevalence)
# --------------------------------------------------------------------------------------------
