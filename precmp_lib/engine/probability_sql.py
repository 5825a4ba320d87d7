"""The probabilities' queries: DeLong's placements by window functions, losses and curves.

They read the fixed names :func:`~precmp_lib.engine.sql.roles_sql` gives the source's columns
(``k_y`` the truth, ``k_s0`` ... the models' scores, ``k_c`` the cluster), never a column name,
model name or label of the source; a number reaches them as a DOUBLE literal (Spark reads
``0.5`` as a DECIMAL and would round the placements).
"""

from __future__ import annotations

import re
from collections.abc import Sequence


def proba_check_sql(k: int, table: str = "roles") -> str:
    """Write the first look at the scores, one row per value of the truth (its classes).

    Per truth value ``k_y``: ``n`` its rows, ``ny`` 1 for the missing truth's group; per model
    ``bad{j}`` the rows whose score is missing, not a number or not finite, ``lo{j}``, ``hi{j}``
    the smallest and largest finite score. Rows ordered by ``k_y`` in the engine's order (the
    classes' order); one pass answers both what the classes are and whether the scores are good.
    """
    casts = ", ".join(f"TRY_CAST(k_s{j} AS DOUBLE) AS s{j}" for j in range(k))
    cols = ", ".join(f"SUM(CASE WHEN s{j} IS NULL OR NOT (s{j} - s{j} = 0) THEN 1 ELSE 0 END) "
                     f"AS bad{j}, MIN(CASE WHEN s{j} - s{j} = 0 THEN s{j} END) AS lo{j}, "
                     f"MAX(CASE WHEN s{j} - s{j} = 0 THEN s{j} END) AS hi{j}" for j in range(k))
    return (f"WITH x AS (SELECT k_y, {casts} FROM {table}) SELECT k_y, COUNT(*) AS n, "
            f"MAX(CASE WHEN k_y IS NULL THEN 1 ELSE 0 END) AS ny, {cols} FROM x GROUP BY k_y "
            "ORDER BY k_y")


def _double(x: float) -> str:
    """Write a number as a DOUBLE literal in both dialects (Spark reads ``0.5`` as a DECIMAL)."""
    return f"{float(x):.17e}"


def proba_base_sql(k: int, table: str, positive: str, clustered: bool) -> str:
    """Select the rows as y (1 for the positive class: the truth's ``MIN`` or ``MAX``) and scores.

    ``positive`` ("MIN" or "MAX") says which of the truth's two values is the positive class;
    ``clustered`` keeps ``k_c`` as ``c``.
    """
    if positive not in ("MIN", "MAX"):
        raise ValueError(f"positive must be 'MIN' or 'MAX'; got {positive!r}")
    scores = ", ".join(f"TRY_CAST(k_s{j} AS DOUBLE) AS s{j}" for j in range(k))
    c = ", k_c AS c" if clustered else ""
    return (f"SELECT CASE WHEN k_y = (SELECT {positive}(k_y) FROM {table}) THEN 1 ELSE 0 END "
            f"AS y, {scores}{c} FROM {table}")


def _table_name(name: str) -> str:
    """Return a table name the engine made (letters, digits, underscores) or refuse it."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"not a table name of the engine's own: {name!r}")
    return name


def proba_places_sql(j: int, m: int, n: int, table: str = "pb") -> str:
    """Write model ``j``'s distinct scores with their counts and placement values.

    Per distinct score ``s``: ``p`` positives and ``q`` negatives with that score, and the
    placement of a positive (``pos``, the share of negatives it outscores, a tie counting one
    half: (Σ q up to s - q/2) / n) and of a negative (``neg``, the share of positives that
    outscore it: (m - Σ p up to s + p/2) / m), from one running sum over the distinct scores in
    order: the sort is of the distinct scores only. ``m`` positives, ``n`` negatives; ``table``
    holds the rows of :func:`proba_base_sql`.
    """
    half = _double(0.5)
    run = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    return (f"SELECT s, p, q, (SUM(q) OVER (ORDER BY s {run}) - {half} * q) / {_double(n)} "
            f"AS pos, ({_double(m)} - SUM(p) OVER (ORDER BY s {run}) + {half} * p) / "
            f"{_double(m)} AS neg FROM (SELECT s{j} AS s, SUM(y) AS p, SUM(1 - y) AS q "
            f"FROM {table} GROUP BY s{j}) g")


def proba_rows_sql(k: int, eps: float, places: Sequence[str], *, losses: bool, clustered: bool,
                   table: str = "pb") -> str:
    """Write each row's placement values and losses: ``y``, ``v{j}``, ``b{j}``, ``l{j}`` (, ``c``).

    The rows of ``table`` (:func:`proba_base_sql`) are joined to each model's placements
    (``places[j]``, the engine's name for the table :func:`proba_places_sql` made) on the
    score. Brier score ``b{j}`` = (s - y)², log loss ``l{j}`` with s clipped to [eps, 1 - eps]
    (``losses``: the scores are probabilities); ``clustered`` keeps ``c``.
    """
    if len(places) != k:
        raise ValueError(f"{k} models need {k} placement tables; got {len(places)}")
    placed = []
    for j in range(k):
        placed.append(f"CASE WHEN b.y = 1 THEN h{j}.pos ELSE h{j}.neg END AS v{j}")
        if losses:
            q = f"LEAST(GREATEST(b.s{j}, {_double(eps)}), {_double(1 - eps)})"
            placed.append(f"(b.s{j} - b.y) * (b.s{j} - b.y) AS b{j}, "
                          f"-(b.y * LN({q}) + (1 - b.y) * LN(1 - {q})) AS l{j}")
    c = ", b.c AS c" if clustered else ""
    joins = " ".join(f"JOIN {_table_name(t)} h{j} ON b.s{j} = h{j}.s"
                     for j, t in enumerate(places))
    return f"SELECT b.y AS y{c}, {', '.join(placed)} FROM {table} b {joins}"


def _products(prefix: str, k: int, left: str = "", right: str = "") -> list[str]:
    """SUM(a_i * a_j) for i <= j, named ``{prefix}{i}_{j}``."""
    return [f"SUM({left}{i}{right} * {left}{j}{right}) AS {prefix}{i}_{j}"
            for i in range(k) for j in range(i, k)]


def proba_sums_sql(k: int, losses: bool, table: str = "pr") -> str:
    """Write the sums by class: rows, Σ v{j} and Σ v_i v_j (and the same of both losses)."""
    cols = [f"SUM(v{j}) AS sv{j}" for j in range(k)] + _products("pv", k, "v")
    if losses:
        for x in ("b", "l"):
            cols += [f"SUM({x}{j}) AS s{x}{j}" for j in range(k)] + _products(f"p{x}", k, x)
    return f"SELECT y, COUNT(*) AS n, {', '.join(cols)} FROM {table} GROUP BY y ORDER BY y"


def proba_cluster_sums_sql(k: int, m: int, n: int, losses: bool, table: str = "pr") -> str:
    """Write Obuchowski's and the losses' cluster sums in two levels of ``GROUP BY``.

    Per cluster: P{j} = Σ v{j} (1/m for a positive, 1/n for a negative), W = Σ of those weights,
    nc rows and the loss sums; over clusters: their count, Σ P_i P_j, Σ P_j W, Σ W², Σ nc², and
    for each loss Σ nc S{j} and Σ S_i S_j.
    """
    wt = f"CASE WHEN y = 1 THEN {_double(1.0 / m)} ELSE {_double(1.0 / n)} END"
    inner = [f"SUM(v{j} * {wt}) AS P{j}" for j in range(k)] + [f"SUM({wt}) AS W",
                                                                "COUNT(*) AS nc"]
    outer = (["COUNT(*) AS nclusters", "SUM(W * W) AS ww", "SUM(nc * nc) AS n2"]
             + [f"SUM(P{j} * W) AS pw{j}" for j in range(k)] + _products("pp", k, "P"))
    if losses:
        for x in ("b", "l"):
            inner += [f"SUM({x}{j}) AS {x.upper()}{j}" for j in range(k)]
            outer += ([f"SUM(nc * {x.upper()}{j}) AS n{x}{j}" for j in range(k)]
                      + _products(f"c{x}", k, x.upper()))
    return (f"WITH g AS (SELECT c, {', '.join(inner)} FROM {table} GROUP BY c) "
            f"SELECT {', '.join(outer)} FROM g")


def proba_bins_sql(places: Sequence[str], lo: Sequence[float], hi: Sequence[float],
                   bins: int = 1000) -> str:
    """Write the ROC and reliability bins of every model from its placements' table.

    Per model ``j`` (``places[j]``, see :func:`proba_places_sql`), bin of the ROC ``rbin``
    (``bins`` equal widths between the model's smallest and largest score, ``lo`` and ``hi``)
    and tenth of the probability ``cbin``: positives ``pos``, negatives ``neg`` and the sum of
    the scores ``sp``. The scores are monotone in both bins, so there are at most
    ``bins + 11`` rows per model; the table read is of the distinct scores, not the rows.
    """
    def width(j: int) -> str:
        return _double(hi[j] - lo[j] if hi[j] > lo[j] else 1.0)

    parts = " UNION ALL ".join(
        f"SELECT {j} AS j, FLOOR((s - {_double(lo[j])}) / {width(j)} * {bins}) AS rbin, "
        f"LEAST(FLOOR(s * {_double(10)}), {_double(9)}) AS cbin, p, q, s FROM {_table_name(t)}"
        for j, t in enumerate(places))
    return (f"SELECT j, rbin, cbin, SUM(p) AS pos, SUM(q) AS neg, SUM(s * (p + q)) AS sp "
            f"FROM ({parts}) u GROUP BY j, rbin, cbin")


def proba_patterns_sql(k: int, threshold: float, table: str = "pb") -> str:
    """Write the labels' patterns at ``threshold``: y and each model's label, with their counts.

    At most 2^(k+1) rows; ``table`` holds the rows of :func:`proba_base_sql`.
    """
    labels = ", ".join(f"CASE WHEN s{j} >= {_double(threshold)} THEN 1 ELSE 0 END AS p{j}"
                       for j in range(k))
    keys = ", ".join(["y", *(f"p{j}" for j in range(k))])
    return (f"SELECT {keys}, COUNT(*) AS count FROM (SELECT y, {labels} FROM {table}) t "
            f"GROUP BY {keys}")
