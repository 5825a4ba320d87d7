"""The shared finish of every engine: raw grouped rows become :class:`~precmp_lib.core.predictions.Counts`."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._lib.limits import check_limit
from ..core.clusters import (
    ClassProfiles,
    ClusterSums,
    class_profiles,
    class_profiles_from_rows,
    cluster_sums,
    cluster_sums_from_rows,
    packed_bits,
    packed_terms,
    profile_terms,
)

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    pass

from ..core.predictions import Counts
from .base import REPEATED_CV, TEST_SET, PredictionFileError, _Spec
from .dictionary import _sorted_codes, _value, label_dictionary
from .sql import cluster_sql, profile_sql

# --------------------------------------------------------------------------------------------
# the shared finish: raw grouped rows -> Counts
# --------------------------------------------------------------------------------------------


def _group_sum(keys: np.ndarray, weights: np.ndarray, names: list[str]) -> pd.DataFrame:
    """Sum ``weights`` over equal rows of the int64 matrix ``keys`` (n x k), sorted by keys."""
    if len(keys) == 0:
        out = pd.DataFrame({n: np.zeros(0, np.int64) for n in names})
        out["count"] = np.zeros(0, np.int64)
        return out
    lo, hi = keys.min(axis=0), keys.max(axis=0)
    spans = [int(h) - int(v) + 1 for v, h in zip(lo, hi)]
    if math.prod(spans) < 2**62:
        # one int64 per row, the first column most significant: its order is the rows'
        # lexicographic order, and a 1-d unique is many times faster than unique(axis=0)
        flat = np.zeros(len(keys), np.int64)
        for i, span in enumerate(spans):
            flat = flat * span + (keys[:, i] - lo[i])
        first, inv = np.unique(flat, return_inverse=True)
        uniq = np.empty((len(first), len(spans)), np.int64)
        for i in reversed(range(len(spans))):
            first, uniq[:, i] = np.divmod(first, spans[i])
            uniq[:, i] += lo[i]
    elif max(spans) <= 256:
        # many columns of few labels (a wide file of hundreds of models): rows of bytes sort
        # in the same order as rows of int64 and are compared 8 times faster
        small = (keys - lo).astype(np.uint8)
        uniq, inv = np.unique(small, axis=0, return_inverse=True)
        uniq = uniq.astype(np.int64) + lo
    else:
        uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    total = np.bincount(inv.ravel(), weights=weights, minlength=len(uniq))
    out = pd.DataFrame({n: uniq[:, i].astype(np.int64) for i, n in enumerate(names)})
    out["count"] = np.rint(total).astype(np.int64)
    return out


def _finish(spec: _Spec, pat: pd.DataFrame, obs: pd.DataFrame | None, engine: str,
            locate: Callable[[str, str], int | None],
            sums: Callable[..., pd.DataFrame] | None = None) -> Counts:
    """Turn the grouped raw rows of any engine into :class:`Counts` (label rules, checks).

    For repeated cross-validation the cluster sums (and the profiles the spec asks for) come
    from ``obs`` (the per-observation rows) when the engine brought them back, else from
    ``sums(codes, reps, sql)``: the engine registers the table of codes of the distinct raw
    patterns and the table of codes of the repeats, and runs the query ``sql(roles, codes,
    reps)`` writes with the names it gave them (:func:`cluster_sql`, :func:`profile_sql`).
    """
    m = len(spec.models)
    pcols = [f"p{j}" for j in range(m)]
    truth_cols = ["y", *(["y1"] if "y1" in pat else [])]
    label_cols = {"y": spec.y, **({"y1": spec.y} if "y1" in pat else {}),
                  **{p: (spec.models[j] if spec.layout == "wide" else spec.pred_col)
                     for j, p in enumerate(pcols)}}
    if len(pat) == 0 or int(pat["n"].sum()) == 0:
        raise spec.fail("no rows" if spec.name == "DataFrame" else "the file has a header but no rows")
    _check_grouped(spec, pat, locate)
    distinct: dict[str, np.ndarray] = {}
    inverse: dict[str, np.ndarray] = {}
    for c in label_cols:
        inv, uniq = pd.factorize(pat[c], use_na_sentinel=False)
        distinct[c], inverse[c] = np.asarray(uniq, dtype=object), inv
    # one dictionary over the distinct values: name each column by its source column
    named: dict[str, list[np.ndarray]] = {}
    for c, raw in distinct.items():
        named.setdefault(label_cols[c], []).append(raw)
    merged = {n: np.concatenate(v) for n, v in named.items()}
    _check_label_sizes(spec, merged)
    classes, codes, missing = label_dictionary(merged, text_numbers=spec.text_numbers,
                                               source=spec.name)
    check_limit("classes", len(classes), spec.name, PredictionFileError)
    if missing:
        col = next(iter(missing))
        raise spec.fail(f"column {col!r} has a missing label{_example_at(spec, locate, col)}")
    offsets: dict[str, int] = {}
    coded: dict[str, np.ndarray] = {}
    for n in named:
        offsets[n] = 0
    for c, raw in distinct.items():
        n = label_cols[c]
        coded[c] = codes[n][offsets[n]:offsets[n] + len(raw)][inverse[c]]
        offsets[n] += len(raw)
    for c in truth_cols[1:]:
        if (coded[c] != coded["y"]).any():
            raise spec.fail(f"column {spec.y!r}: an observation has more than one true label"
                            f"{_example(spec, locate, 'two labels')}")
    notes = _overlap(spec, coded, pcols, pat["n"].to_numpy(), classes)
    keys = [coded["y"], *(coded[p] for p in pcols)]
    names = ["y", *pcols]
    repeats = folds = None
    if spec.cv:
        rep = _sorted_codes(pat["rep"].to_numpy(), spec.text_numbers, spec.repeat or "repeat",
                            spec)
        fold = (_sorted_codes(pat["f0"].to_numpy(), spec.text_numbers, spec.fold, spec)
                if spec.fold else np.zeros(len(pat), np.int64))
        keys, names = [rep, fold, *keys], ["repeat", "fold", *names]
    weights = pat["n"].to_numpy().astype(np.float64)
    patterns = _group_sum(np.column_stack(keys).astype(np.int64), weights, names)
    n_rows = int(patterns["count"].sum())
    observations = clusters = profiles = None
    n_obs = n_rows
    if spec.cv:
        repeats = int(patterns["repeat"].nunique())
        folds = int(patterns.groupby("repeat")["fold"].nunique().max())
        if obs is not None:
            observations, n_obs = _observations(spec, obs, label_cols, distinct, codes, pcols)
            clusters = cluster_sums(observations["obs"], observations["y"], observations[pcols],
                                    observations["count"], n_classes=len(classes))
            wanted = _profile_codes(spec, classes)
            if wanted:
                profiles = tuple(class_profiles(observations["obs"], observations["y"],
                                                observations[pcols], observations["count"],
                                                classes=[code]) for code in wanted)
            observations = observations if spec.keep_observations else None
        else:
            assert sums is not None  # an engine without per-observation rows runs cluster_sql
            reps = pd.DataFrame({"rrep": pat["rep"].to_numpy(), "crep": rep})
            reps = reps.drop_duplicates(subset=["rrep"]).reset_index(drop=True)
            codes_table = _codes_table(pat, coded, pcols)
            clusters = _clusters_in_engine(spec, pat, codes_table, pcols, len(classes), sums,
                                           locate, reps)
            n_obs = clusters.n_clusters
            wanted = _profile_codes(spec, classes)
            if wanted:
                profiles = _profiles_in_engine(spec, codes_table, pcols, wanted, sums, reps)
    return Counts(
        classes=classes, models=tuple(spec.models), patterns=patterns, observations=observations,
        design=REPEATED_CV if spec.cv else TEST_SET, n_rows=n_rows, n_observations=n_obs,
        repeats=repeats, folds=folds, engine=engine, source=spec.name,
        notes=tuple(spec.notes) + notes, clusters=clusters, profiles=profiles,
    )


def _check_label_sizes(spec: _Spec, merged: Mapping[str, np.ndarray]) -> None:
    """Refuse a label column with a label too long or more distinct labels than classes allowed.

    Checked on the distinct raw values, before any of them is read as a number.
    """
    for column, raw in merged.items():
        where = f"{spec.name}: column {column!r}"
        check_limit("classes", len(pd.unique(raw)), where, PredictionFileError)
        longest = max((len(v) for v in raw if isinstance(v, str | bytes)), default=0)
        check_limit("label", longest, where, PredictionFileError)


def _profile_codes(spec: _Spec, classes: tuple) -> list[int]:
    """Return the codes of the classes ``spec`` asks profiles for, matched by their text."""
    if not spec.profile_labels:
        return []
    by_text = {str(c): code for code, c in enumerate(classes)}
    return list(dict.fromkeys(by_text[str(v)] for v in spec.profile_labels if str(v) in by_text))


def _codes_table(pat: pd.DataFrame, coded: dict, pcols: list[str]) -> pd.DataFrame:
    """Return the first row of each distinct raw pattern: raw columns ``r<c>``, codes ``c<c>``.

    The pattern table also splits by repeat and fold; only these few rows are converted and
    sent to the engine.
    """
    raw = ["y", *pcols]
    first = np.flatnonzero(~pat[raw].duplicated().to_numpy())
    table = pd.DataFrame({f"r{c}": pat[c].iloc[first].to_numpy() for c in raw})
    for c in raw:
        table[f"c{c}"] = np.asarray(coded[c], dtype=np.int64)[first]
    return table


def _profiles_in_engine(spec: _Spec, codes: pd.DataFrame, pcols: list[str], wanted: list[int],
                        sums: Callable[..., pd.DataFrame],
                        reps: pd.DataFrame) -> tuple[ClassProfiles, ...]:
    """Group the observations by their profile over each class of ``wanted``, in the engine."""
    # an observation has at most one event per repeat (the cluster query checked it)
    terms = profile_terms(codes["cy"], codes[[f"c{p}" for p in pcols]], classes=wanted,
                          max_size=len(reps))
    table = pd.concat([codes[[f"r{c}" for c in ["y", *pcols]]], terms], axis=1)
    rows = sums(table, reps, lambda roles, codes_name, _reps: profile_sql(
        spec, roles, codes_name, len(wanted), len(reps)))
    return class_profiles_from_rows(rows, wanted, len(pcols), max_size=len(reps))


def _clusters_in_engine(spec: _Spec, pat: pd.DataFrame, codes: pd.DataFrame, pcols: list[str],
                        n_classes: int, sums: Callable[..., pd.DataFrame],
                        locate: Callable[[str, str], Any], reps: pd.DataFrame) -> ClusterSums:
    """Run the cluster sums where the data live, on the codes of the distinct raw patterns.

    ``codes`` is :func:`_codes_table`'s table. ``reps`` holds each raw repeat (``rrep``) with
    its code (``crep``). For the wide layout the query also tells whether an (id, repeat) pair
    comes more than once (the pattern count does not group by id): that is the error of a
    duplicated pair.
    """
    table = codes.copy()
    if packed_bits(len(reps), len(pcols), n_classes) is not None:  # packed terms (cluster_sql)
        words = packed_terms(table["cy"], table[[f"c{p}" for p in pcols]], n_classes=n_classes,
                             max_size=len(reps))
        for w in range(words.shape[1]):
            table[f"v{w}"] = words[:, w]
    if len(reps) <= 30:
        reps = reps.assign(dm=np.left_shift(1, reps["crep"].to_numpy().astype(np.int64)))
    n_rows = int(pat["n"].sum())
    rows = sums(table, reps, lambda roles, codes_name, reps_name: cluster_sql(
        spec, roles, codes_name, n_classes, len(reps), reps_name, n_rows))
    top = rows.loc[rows["g"] == 1]
    if "dup" in rows and int(top["dup"].sum()) > 0:
        raise _duplicated(spec, locate)
    if int(top["mixed"].sum()) > 0:
        raise spec.fail(f"column {spec.y!r}: an observation has more than one true label"
                        f"{_example(spec, locate, 'two labels')}")
    result = cluster_sums_from_rows(rows, len(pcols), n_classes)
    if result.size != int(pat["n"].sum()):  # every raw pattern found its codes
        raise spec.fail(f"the cluster sums cover {result.size} of {int(pat['n'].sum())} rows; "
                        "a label value did not compare equal to itself in the engine")
    return result


def _observations(spec: _Spec, obs: pd.DataFrame, label_cols: dict, distinct: dict,
                  codes: dict, pcols: list[str]) -> tuple[pd.DataFrame, int]:
    """Code the per-observation rows on the dictionary already built from the patterns."""
    assert spec.id is not None  # _spec gives every repeated cross-validation an id column
    obs_code = _sorted_codes(obs["id"].to_numpy(), spec.text_numbers, spec.id, spec)
    keys = [obs_code]
    for c in ["y", *pcols]:
        n = label_cols[c]
        # the same distinct values appear here as in the pattern table: look them up
        lookup: dict[Any, np.int64] = {}
        start = 0
        for cc, raw in distinct.items():
            if label_cols[cc] == n:
                for v, code in zip(raw, codes[n][start:start + len(raw)]):
                    lookup.setdefault(_hashable(v), code)
                start += len(raw)
        inv, uniq = pd.factorize(obs[c], use_na_sentinel=False)
        table = np.array([lookup[_hashable(v)] for v in uniq], dtype=np.int64)
        keys.append(table[inv])
    out = _group_sum(np.column_stack(keys), obs["n"].to_numpy().astype(np.float64),
                     ["obs", "y", *pcols])
    two = out.groupby("obs")["y"].nunique()
    if (two > 1).any():
        code = int(two.index[two.to_numpy() > 1][0])
        bad = obs["id"].to_numpy()[np.flatnonzero(obs_code == code)[0]]
        raise spec.fail(f"column {spec.y!r}: an observation has more than one true label "
                        f"(observation {spec.id}={_value(spec, bad)})")
    return out, int(obs_code.max()) + 1 if len(obs_code) else 0


def _hashable(v: Any) -> Any:
    if isinstance(v, float) and np.isnan(v):
        return "__nan__"
    return v.item() if isinstance(v, np.generic) else v


def _check_grouped(spec: _Spec, pat: pd.DataFrame, locate: Callable[[str, str], int | None]) -> None:
    """Run the checks carried as columns of the grouped rows (SQL engines).

    The columns are rows per id (``c``), rows per (id, model) (``c<j>``) and the smallest and
    largest fold per (id, repeat) (``f0``, ``f1``).
    """
    if "c" in pat and (pat["c"] > 1).any():
        raise _duplicated(spec, locate)
    for j, name in enumerate(spec.models):
        cj = f"c{j}"
        if cj not in pat:
            continue
        if (pat[cj] > 1).any():
            key = ", ".join(c for c in (spec.id, spec.model_col, spec.repeat) if c)
            raise spec.fail(f"duplicated ({key}) rows for model {name!r}; each must appear once")
        if (pat[cj] == 0).any():
            raise spec.fail(f"column {spec.model_col!r}: model {name!r} lacks predictions for some "
                            "observations")
    if "f1" in pat and spec.fold and (pat["f0"].astype(str) != pat["f1"].astype(str)).any():
        raise spec.fail(f"column {spec.fold!r}: an observation has two folds in one repeat")


def _duplicated(spec: _Spec, locate: Callable[[str, str], Any]) -> PredictionFileError:
    """Return the error of a wide table with a repeated id (or (id, repeat) pair)."""
    what = f"({spec.id}, {spec.repeat})" if spec.repeat else spec.id
    return spec.fail(f"column {spec.id!r}: duplicated {what}{_example(spec, locate, 'duplicate')}; "
                     "a wide table has one row per observation"
                     + ("" if spec.repeat else " (add a repeat column for repeated cross-validation)"))


def _example_at(spec: _Spec, locate: Callable[[str, str], Any], column: str) -> str:
    found = locate(column, "missing")
    return spec.where(found) if isinstance(found, int) else ""


def _example(spec: _Spec, locate: Callable[[str, str], Any], what: str) -> str:
    found = locate(spec.id or spec.y, what)
    if found is None:
        return ""
    if isinstance(found, int):
        return spec.where(found)
    return f" ({found})"


def _overlap(spec: _Spec, coded: dict, pcols: list[str], n: np.ndarray, classes: tuple) -> tuple[str, ...]:
    k = len(classes)
    truth = np.bincount(coded["y"], weights=n, minlength=k) > 0
    notes = []
    for j, p in enumerate(pcols):
        used = np.bincount(coded[p], weights=n, minlength=k) > 0
        name = spec.models[j]
        if not np.any(used & truth):
            shown = ", ".join(str(classes[i]) for i in np.flatnonzero(used)[:5])
            raise spec.fail(f"column {name!r}: none of its labels ({shown}) occurs in the truth "
                            f"column {spec.y!r}; is it the right column?")
        extra = np.flatnonzero(used & ~truth)
        if len(extra):
            shown = ", ".join(str(classes[i]) for i in extra[:5]) + (" ..." if len(extra) > 5 else "")
            notes.append(f"model {name!r} predicts labels never seen in the truth: [{shown}]")
    return tuple(notes)


