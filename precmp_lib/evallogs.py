"""Per-item scores from evaluation logs: lm-evaluation-harness and inspect_ai.

:func:`read_eval_logs` turns the per-sample logs of two common evaluation tools into one tidy
item table (``item``, ``model``, ``score``, ``task``, ``epoch``) that
:func:`precmp_lib.compare_items` reads; models are matched by item id.

- lm-evaluation-harness, run with ``--log_samples``, writes one JSON-lines file per task,
  ``samples_<task>_<timestamp>.jsonl``. Each line is one document: ``doc_id`` (the item),
  ``filter`` (the answer filter, e.g. ``"none"`` or ``"strict-match"``), ``metrics`` (the
  metric names) and one field per metric holding the document's score (``"acc": 1.0``).
- inspect_ai writes an eval log as JSON (``samples`` a list) or as an ``.eval`` zip archive
  (``header.json`` and one ``samples/<id>_epoch_<n>.json`` per sample). Each sample has ``id``,
  ``epoch`` and ``scores``, a mapping scorer -> ``{"value": ...}``, the value a number, a
  boolean or a letter (C correct, I incorrect, P partial, N no answer); the task is
  ``eval.task``.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .engines import resolve_path
from .items import parse_scores

__all__ = ["read_eval_logs"]

_LM_EVAL_NAME = re.compile(r"^samples_(?P<task>.+?)(_\d{4}-\d{2}-\d{2}T[0-9.:\-]+)?\.jsonl$")


def _files(model: str, path: Any) -> list[Path]:
    text = os.fspath(path)
    files, pattern = resolve_path(text)
    if pattern and not files:
        raise ValueError(f"logs[{model!r}]: no file matches the pattern {Path(text).name!r}")
    out: list[Path] = []
    for f in map(Path, files):
        if f.is_dir():
            found = sorted([*f.rglob("samples_*.jsonl"), *f.rglob("*.eval"), *f.rglob("*.json")])
            found = [p for p in found if p.suffix != ".json" or _is_inspect_json(p)]
            if not found:
                raise ValueError(f"logs[{model!r}]: folder {f.name!r} holds no samples_*.jsonl, "
                                 ".eval or inspect .json log")
            out += found
        elif not f.exists():
            raise ValueError(f"logs[{model!r}]: no such file {f.name!r}")
        else:
            out.append(f)
    return out


def _is_inspect_json(p: Path) -> bool:
    if p.name.startswith("results"):
        return False
    try:
        with open(p, encoding="utf-8") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return '"samples"' in head or '"eval"' in head


def _metric_of(record: Mapping[str, Any], metric: str | None, where: str) -> str:
    names = record.get("metrics")
    if metric is not None:
        name = metric.split(",")[0]
        if name not in record:
            raise ValueError(f"{where}: no metric {name!r} (metrics: {names})")
        return name
    if not names:
        raise ValueError(f"{where}: the line has no 'metrics' list; pass metric=")
    return str(names[0])


def _lm_eval_rows(path: Path, metric: str | None) -> Iterator[tuple[Any, ...]]:
    match = _LM_EVAL_NAME.match(path.name)
    task = match.group("task") if match else path.stem
    want_filter = metric.split(",", 1)[1] if metric and "," in metric else None
    rows, filters = [], set()
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path.name} line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where}: not JSON ({exc.msg})") from None
            if "doc_id" not in record:
                raise ValueError(f"{where}: no 'doc_id' (not an lm-evaluation-harness samples line)")
            flt = str(record.get("filter", "none"))
            if want_filter is not None and flt != want_filter:
                continue
            filters.add(flt)
            name = _metric_of(record, metric, where)
            value = record[name]
            if isinstance(value, list | dict):
                raise ValueError(f"{where}: metric {name!r} is not a per-item score "
                                 f"(got a {type(value).__name__}); choose another with metric=")
            rows.append((str(record["doc_id"]), value, task, 1))
    if len(filters) > 1:
        raise ValueError(f"{path.name}: the items are scored under several filters "
                         f"{sorted(filters)}; choose one with metric='METRIC,FILTER'")
    yield from rows


def _inspect_value(sample: Mapping[str, Any], metric: str | None, where: str) -> Any:
    scores = sample.get("scores") or {}
    if not isinstance(scores, Mapping) or not scores:
        raise ValueError(f"{where}: the sample has no scores")
    scorer, _, key = (metric or "").partition("/")
    if not scorer:
        scorer = next(iter(scores))
    if scorer not in scores:
        raise ValueError(f"{where}: no scorer {scorer!r} (scorers: {sorted(scores)})")
    value = scores[scorer].get("value") if isinstance(scores[scorer], Mapping) else None
    if isinstance(value, Mapping):
        if not key:
            raise ValueError(f"{where}: scorer {scorer!r} gives several values {sorted(value)}; "
                             f"choose one with metric='{scorer}/NAME'")
        value = value.get(key)
    return value


def _inspect_samples(path: Path) -> tuple[str, list[Mapping[str, Any]]]:
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            header = json.loads(z.read("header.json")) if "header.json" in names else {}
            samples = [json.loads(z.read(n)) for n in sorted(names)
                       if n.startswith("samples/") and n.endswith(".json")]
        return str((header.get("eval") or {}).get("task", path.stem)), samples
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path.name}: not a JSON eval log ({type(exc).__name__})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("samples"), list):
        raise ValueError(f"{path.name}: no 'samples' list (an inspect log written without samples?)")
    return str((data.get("eval") or {}).get("task", path.stem)), data["samples"]


def _inspect_rows(path: Path, metric: str | None) -> Iterator[tuple[Any, ...]]:
    task, samples = _inspect_samples(path)
    for n, sample in enumerate(samples):
        where = f"{path.name} sample {n}"
        if "id" not in sample:
            raise ValueError(f"{where}: no 'id'")
        yield (str(sample["id"]), _inspect_value(sample, metric, where), task,
               int(sample.get("epoch", 1)))


def read_eval_logs(logs: Mapping[str, Any], *, metric: str | None = None) -> pd.DataFrame:
    r"""Read lm-evaluation-harness and inspect_ai per-sample logs into one item table.

    Parameters
    ----------
    logs : mapping of str to path
        Model name -> a file (``samples_<task>_*.jsonl``, an inspect ``.json`` or ``.eval``
        log), a folder holding such files, or a glob (only a name that does not exist and holds
        ``*`` or ``?`` is a pattern).
    metric : str, optional
        lm-evaluation-harness: the metric field (default: the first of the line's ``metrics``);
        ``"METRIC,FILTER"`` picks one filter when the items are scored under several. inspect:
        the scorer (default: the first), ``"SCORER/NAME"`` for a scorer with several values.

    Returns
    -------
    DataFrame
        Columns ``item`` (str), ``model``, ``score`` (float: C 1, I 0, P 0.5, N 0, true 1,
        false 0), ``task``, ``epoch`` (1 for lm-evaluation-harness).

    Raises
    ------
    ValueError
        Naming the model, file and line or sample: a missing file, a line that is not JSON, a
        missing metric, several filters, a score that is not a number.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> lines = [{"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": float(i % 2)}
    ...          for i in range(4)]
    >>> _ = (d / "samples_arc_easy_2024-05-13T14-32-10.123456.jsonl").write_text(
    ...     "\n".join(json.dumps(x) for x in lines))
    >>> frame = read_eval_logs({"m1": d})
    >>> frame[["item", "score", "task"]].values.tolist()[:2]
    [['0', 0.0, 'arc_easy'], ['1', 1.0, 'arc_easy']]
    """
    if not isinstance(logs, Mapping) or not logs:
        raise ValueError(f"logs must be a mapping model -> path with at least one model; got "
                         f"{logs!r:.60}")
    parts = []
    for model, path in logs.items():
        rows: list[tuple[Any, ...]] = []
        for f in _files(str(model), path):
            reader = _lm_eval_rows if f.name.endswith(".jsonl") else _inspect_rows
            rows += list(reader(f, metric))
        if not rows:
            raise ValueError(f"logs[{model!r}]: the logs hold no samples")
        frame = pd.DataFrame(rows, columns=["item", "score", "task", "epoch"])
        try:
            frame["score"] = parse_scores(frame["score"].astype(object), "score")
        except ValueError as exc:
            raise ValueError(f"logs[{model!r}]: {exc}") from None
        frame.insert(1, "model", str(model))
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)[["item", "model", "score", "task", "epoch"]]
