"""The probabilities' queries: DeLong's placements by window functions, losses and curves.

They read the fixed names :func:`~precmp_lib.engine.sql.roles_sql` gives the source's columns
(``k_y`` the truth, ``k_s0`` ... the models' scores, ``k_c`` the cluster), never a column name,
model name or label of the source; a number reaches them as a DOUBLE literal (Spark reads
``0.5`` as a DECIMAL and would round the placements).
"""

from __future__ import annotations

from collections.abc import Sequence


def proba_check_sql(k: int, table: str = "roles") -> str:
    """Write the first look at the scores: rows, and per model bad values, smallest and largest.

    ``bad{j}``: rows whose score is missing, not a number or not finite; ``lo{j}``, ``hi{j}``
    the smallest and largest finite score; ``ny`` the rows with no truth.
    """
    casts = ", ".join(f"TRY_CAST(k_s{j} AS DOUBLE) AS s{j}" for j in range(k))
    cols = ", ".join(f"SUM(CASE WHEN s{j} IS NULL OR NOT (s{j} - s{j} = 0) THEN 1 ELSE 0 END) "
                     f"AS bad{j}, MIN(CASE WHEN s{j} - s{j} = 0 THEN s{j} END) AS lo{j}, "
                     f"MAX(CASE WHEN s{j} - s{j} = 0 THEN s{j} END) AS hi{j}" for j in range(k))
    return (f"WITH x AS (SELECT k_y, {casts} FROM {table}) SELECT COUNT(*) AS n, "
            f"SUM(CASE WHEN k_y IS NULL THEN 1 ELSE 0 END) AS ny, {cols} FROM x")


def proba_classes_sql(table: str = "roles") -> str:
    """Select the truth's distinct values with their counts, in the engine's order."""
    return f"SELECT k_y, COUNT(*) AS n FROM {table} WHERE k_y IS NOT NULL GROUP BY k_y ORDER BY k_y"


def _double(x: float) -> str:
    """Write a number as a DOUBLE literal in both dialects (Spark reads ``0.5`` as a DECIMAL)."""
    return f"{float(x):.17e}"


def proba_base_sql(k: int, table: str, positive: str, clustered: bool) -> str:
    """Select the rows as y (1 for the positive class: the truth's ``MIN`` or ``MAX``) and scores."""
    scores = ", ".join(f"TRY_CAST(k_s{j} AS DOUBLE) AS s{j}" for j in range(k))
    c = ", k_c AS c" if clustered else ""
    return (f"SELECT CASE WHEN k_y = (SELECT {positive}(k_y) FROM {table}) THEN 1 ELSE 0 END "
            f"AS y, {scores}{c} FROM {table}")


def proba_rows_sql(k: int, m: int, n: int, positive: str, eps: float, *, losses: bool,
                   clustered: bool, table: str = "roles") -> str:
    """Write each row's placement values and losses: ``y``, ``v{j}``, ``b{j}``, ``l{j}`` (, ``c``).

    A positive's placement is the share of negatives it outscores, a tie counting one half; a
    negative's the share of positives that outscore it. Per model, the rows are first counted
    by distinct score (positives ``p``, negatives ``q``); one running sum over the distinct
    scores in order gives each score's placement, (Σ q up to s - q/2) / n for a positive and
    (m - Σ p up to s + p/2) / m for a negative; a join brings it back to the rows. The sort
    is of the distinct scores only. Brier score ``b{j}`` = (s - y)², log loss ``l{j}`` with s
    clipped to [eps, 1 - eps] (``losses``: the scores are probabilities). ``k`` models (score
    columns ``k_s0`` ..), ``m`` positives, ``n`` negatives; ``positive`` ("MIN" or "MAX") says
    which of the truth's two values is the positive class; ``clustered`` keeps ``k_c`` as ``c``.
    """
    if positive not in ("MIN", "MAX"):
        raise ValueError(f"positive must be 'MIN' or 'MAX'; got {positive!r}")
    half = _double(0.5)
    run = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    ctes = [f"b AS ({proba_base_sql(k, table, positive, clustered)})"]
    for j in range(k):
        ctes.append(f"g{j} AS (SELECT s{j} AS s, SUM(y) AS p, SUM(1 - y) AS q FROM b "
                    f"GROUP BY s{j})")
        ctes.append(f"h{j} AS (SELECT s, (SUM(q) OVER (ORDER BY s {run}) - {half} * q) / "
                    f"{_double(n)} AS pos, ({_double(m)} - SUM(p) OVER (ORDER BY s {run}) + "
                    f"{half} * p) / {_double(m)} AS neg FROM g{j})")
    placed = []
    for j in range(k):
        placed.append(f"CASE WHEN b.y = 1 THEN h{j}.pos ELSE h{j}.neg END AS v{j}")
        if losses:
            q = f"LEAST(GREATEST(b.s{j}, {_double(eps)}), {_double(1 - eps)})"
            placed.append(f"(b.s{j} - b.y) * (b.s{j} - b.y) AS b{j}, "
                          f"-(b.y * LN({q}) + (1 - b.y) * LN(1 - {q})) AS l{j}")
    c = ", b.c AS c" if clustered else ""
    joins = " ".join(f"JOIN h{j} ON b.s{j} = h{j}.s" for j in range(k))
    return (f"WITH {', '.join(ctes)} SELECT b.y AS y{c}, {', '.join(placed)} FROM b {joins}")


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


def proba_curves_sql(k: int, threshold: float, lo: Sequence[float], hi: Sequence[float],
                     table: str = "pb", bins: int = 1000) -> list[str]:
    """Write the bounded curves: ROC counts per score bin, calibration bins, label patterns.

    The ROC counts positives and negatives per model and bin of the score (``bins`` equal
    widths between the model's smallest and largest score, ``lo`` and ``hi``); the reliability
    table per tenth of the probability; the labels' patterns (y and each model's label at
    ``threshold``) with their counts, at most 2^(k+1) rows.
    """
    def width(j: int) -> str:
        return _double(hi[j] - lo[j] if hi[j] > lo[j] else 1.0)

    roc = " UNION ALL ".join(
        f"SELECT {j} AS j, FLOOR((s{j} - {_double(lo[j])}) / {width(j)} * {bins}) AS bin, "
        f"SUM(y) AS pos, SUM(1 - y) AS neg FROM {table} GROUP BY 1, 2" for j in range(k))
    cal = " UNION ALL ".join(
        f"SELECT {j} AS j, LEAST(FLOOR(s{j} * 10), 9) AS bin, COUNT(*) AS n, SUM(s{j}) AS sp, "
        f"SUM(y) AS sy FROM {table} GROUP BY 1, 2" for j in range(k))
    labels = ", ".join(f"CASE WHEN s{j} >= {_double(threshold)} THEN 1 ELSE 0 END AS p{j}"
                       for j in range(k))
    keys = ", ".join(["y", *(f"p{j}" for j in range(k))])
    pat = f"SELECT {keys}, COUNT(*) AS count FROM (SELECT y, {labels} FROM {table}) GROUP BY {keys}"
    return [roc, cal, pat]
