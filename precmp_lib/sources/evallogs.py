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
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .._lib.limits import check_limit, check_regular, limit
from ..engine.files import resolve_path
from ..engine.items import parse_scores

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
            found = _log_files(model, f)
            found = [p for p in found if p.suffix != ".json" or _is_inspect_json(p)]
            if not found:
                raise ValueError(f"logs[{model!r}]: folder {f.name!r} holds no samples_*.jsonl, "
                                 ".eval or inspect .json log")
            out += found
        elif not f.exists():
            raise ValueError(f"logs[{model!r}]: no such file {f.name!r}")
        else:
            check_regular(f, f"logs[{model!r}]: {f.name}")
            out.append(f)
    return out


def log_files(model: str, path: Any) -> list[Path]:
    """Return the log files read for one model: the file, or those a folder or pattern holds.

    Parameters
    ----------
    model : str
        The model's name, for messages.
    path : str or PathLike
        As :func:`read_eval_logs` takes it.

    Returns
    -------
    list of Path

    Raises
    ------
    ValueError
        For a missing file, a pattern matching nothing, a folder with no log, a folder nested
        deeper than the limit, or a log that is not a regular file.
    """
    return _files(model, path)


def _is_log_name(name: str) -> bool:
    return (name.startswith("samples_") and name.endswith(".jsonl")) or name.endswith((".eval", ".json"))


def _log_files(model: str, folder: Path) -> list[Path]:
    """Return the log files in ``folder`` and its subfolders, sorted; regular files only.

    Subfolders are walked down to the depth limit (links to folders are not followed); a
    file with a log's name that is not a regular file (a FIFO, a device, also behind a link)
    is refused before it is opened.
    """
    found: list[Path] = []
    todo = [(folder, 0)]
    while todo:
        here, depth = todo.pop()
        try:
            entries = list(os.scandir(here))
        except OSError as exc:
            raise ValueError(f"logs[{model!r}]: folder {here.name!r} cannot be read "
                             f"({exc.strerror})") from None
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                check_limit("depth", depth + 1, f"logs[{model!r}]: folder {folder.name!r}")
                todo.append((Path(entry.path), depth + 1))
            elif _is_log_name(entry.name):
                check_regular(entry.path, f"logs[{model!r}]: {entry.name}")
                found.append(Path(entry.path))
    return sorted(found)


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
    for number, line in _lines(path):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        record = _object(_json(line, where), where)
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
                             f"(got {_kind(value)}); choose another with metric=")
        rows.append((_item_id(record["doc_id"], where, "doc_id"), value, task, 1))
    if len(filters) > 1:
        raise ValueError(f"{path.name}: the items are scored under several filters "
                         f"{sorted(filters)}; choose one with metric='METRIC,FILTER'")
    yield from rows


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """Yield the numbered lines of a file, refusing a line longer than the line-length limit.

    No line is read past the limit: a file of one endless line costs the limit, not its size.
    """
    most = limit("line")
    with open(path, "rb") as fh:
        number = 0
        while True:
            line = fh.readline(most + 1)
            if not line:
                return
            number += 1
            if len(line) > most:
                check_limit("line", len(line), f"{path.name} line {number}")
            yield number, line


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
        if key not in value:
            raise ValueError(f"{where}: scorer {scorer!r} has no value {key!r} "
                             f"(values: {sorted(value)})")
        value = value[key]
    if value is None or isinstance(value, list | Mapping):
        raise ValueError(f"{where}: scorer {scorer!r} gives {_kind(value)}, not a score")
    return value


# The largest member of an .eval archive that is read, by the uncompressed size the archive
# declares (zipfile stops at that size). A sample's JSON takes kilobytes to a few megabytes; a
# larger member is refused, not decompressed into memory.
MAX_MEMBER_BYTES = 1 << 30


def _kind(value: Any) -> str:
    """Name a parsed JSON value's type as the log's reader would say it."""
    if isinstance(value, bool):
        return "true/false"
    kinds = [(Mapping, "an object"), (list, "a list"), (str, "a text"), (int | float, "a number")]
    return next((name for t, name in kinds if isinstance(value, t)), "null")


def _json(text: str | bytes, where: str) -> Any:
    """Parse JSON, or raise ValueError naming ``where``: bad JSON, not UTF-8, nested too deep."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON ({exc.msg} at line {exc.lineno} column "
                         f"{exc.colno})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not UTF-8 text") from None
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply to read") from None


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: not a JSON object (got {_kind(value)})")
    return value


def _item_id(value: Any, where: str, field: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"{where}: {field!r} is not a text or a whole number (got {_kind(value)})")
    return str(value)


def _task(header: Mapping[str, Any], default: str, where: str) -> str:
    part = header.get("eval", {})
    task = _object(part, f"{where}: 'eval'").get("task", default)
    if not isinstance(task, str):
        raise ValueError(f"{where}: 'eval.task' is not a text (got {_kind(task)})")
    return task


def _archive_json(z: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> Any:
    if info.file_size > MAX_MEMBER_BYTES:
        raise ValueError(f"{where}: {info.filename!r} would take {info.file_size:,} bytes; a "
                         f"sample's JSON is read up to {MAX_MEMBER_BYTES:,}")
    return _json(z.read(info), f"{where}: {info.filename}")


def _inspect_samples(path: Path) -> tuple[str, list[Any]]:
    if zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as z:
                members = {i.filename: i for i in z.infolist()}
                read = [n for n in members if n == "header.json"
                        or (n.startswith("samples/") and n.endswith(".json"))]
                # the total the members read would inflate to, as the archive declares it
                check_limit("log", sum(members[n].file_size for n in read), path.name)
                header: Mapping[str, Any] = {}
                if "header.json" in members:
                    header = _object(_archive_json(z, members["header.json"], path.name),
                                     f"{path.name}: header.json")
                samples = [_archive_json(z, members[n], path.name) for n in sorted(members)
                           if n.startswith("samples/") and n.endswith(".json")]
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
            raise ValueError(f"{path.name}: a damaged .eval archive ({exc})") from None
        except RuntimeError as exc:  # an encrypted member
            raise ValueError(f"{path.name}: {exc}") from None
        return _task(header, path.stem, path.name), samples
    if path.suffix == ".eval":
        raise ValueError(f"{path.name}: not a zip archive, as .eval logs are (cut short?)")
    check_limit("log", path.stat().st_size, path.name)
    data = _json(path.read_bytes(), path.name)
    if not isinstance(data, Mapping) or not isinstance(data.get("samples"), list):
        raise ValueError(f"{path.name}: no 'samples' list (an inspect log written without samples?)")
    return _task(data, path.stem, path.name), data["samples"]


def _inspect_rows(path: Path, metric: str | None) -> Iterator[tuple[Any, ...]]:
    task, samples = _inspect_samples(path)
    for n, raw in enumerate(samples):
        where = f"{path.name} sample {n}"
        sample = _object(raw, where)
        if "id" not in sample:
            raise ValueError(f"{where}: no 'id'")
        epoch = sample.get("epoch", 1)
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
            raise ValueError(f"{where}: 'epoch' is not a whole number from 1 (got {epoch!r:.40})")
        yield (_item_id(sample["id"], where, "id"), _inspect_value(sample, metric, where), task,
               epoch)


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
