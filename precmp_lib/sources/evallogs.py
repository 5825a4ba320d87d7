"""Per-item scores from evaluation logs: lm-evaluation-harness and inspect_ai.

:func:`read_eval_logs` turns the per-sample logs of two common evaluation tools into one tidy
item table (``item``, ``model``, ``score``, ``task``, ``epoch``, and ``cluster`` when asked)
that :func:`precmp_lib.compare_items` reads; models are matched by item id, and by the item's
content hash where the log has one.

- lm-evaluation-harness, run with ``--log_samples``, writes one JSON-lines file per task,
  ``samples_<task>_<timestamp>.jsonl``. Each line is one document: ``doc_id`` (the item),
  ``doc`` (the document's fields), ``doc_hash`` (a hash of the document), ``filter`` (the
  answer filter, e.g. ``"none"`` or ``"strict-match"``), ``metrics`` (the metric names) and
  one field per metric holding the document's score (``"acc": 1.0``).
- inspect_ai writes an eval log as JSON (``samples`` a list) or as an ``.eval`` zip archive
  (``header.json``, ``reductions.json`` and one ``samples/<id>_epoch_<n>.json`` per sample;
  the members are zstd-compressed by default, deflated or stored otherwise). Each sample has
  ``id``, ``epoch``, ``input``, ``metadata`` and ``scores``, a mapping scorer ->
  ``{"value": ...}``, the value a number, a boolean or a letter (C correct, I incorrect,
  P partial, N no answer); a sample that failed has ``error`` and no scores. The task is
  ``eval.task``; with several epochs, ``eval.config.epochs_reducer`` names how the epochs of
  an item are combined and ``reductions`` holds the combined values.
- An ``eval-set`` folder holds the ``.eval`` logs and two files that are not logs,
  ``logs.json`` (an index of the logs' headers) and ``eval-set.json``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._lib.bounded import check_json_cost, check_members, inflate_member, read_file
from .._lib.limits import check_limit, check_regular, limit
from .._lib.text import clip_for_message, printable_name, shorten
from ..engine.files import resolve_path
from ..engine.items import parse_scores

__all__ = ["logs_by_model", "read_eval_logs"]

_LM_EVAL_NAME = re.compile(r"^samples_(?P<task>.+?)(_(?P<stamp>\d{4}-\d{2}-\d{2}T[0-9.:\-]+))?"
                           r"\.jsonl$")
# files of an eval-set folder (and of lm-evaluation-harness) that sit beside the logs
_NOT_LOGS = {"logs.json", "eval-set.json"}
COLUMNS = ["item", "model", "score", "task", "epoch"]


@dataclass
class _Log:
    """One log file read: its rows and how they were scored."""

    path: Path
    task: str
    stamp: str
    rows: list[tuple[Any, ...]]
    scoring: str
    errored: list[str] = field(default_factory=list)
    # the samples the log holds, errored ones included (answers before any epoch reduction)
    samples: int = 0


def _who(model: str | None) -> str:
    """Name the logs of a model in messages.

    ``logs['m']``, or ``eval logs`` when the logs name their models themselves
    (``--eval-logs``).

    >>> _who("m"), _who(None)
    ("logs['m']", 'eval logs')
    """
    return "eval logs" if model is None else f"logs[{clip_for_message(model)!r}]"


def _files(model: str | None, path: Any) -> list[Path]:
    if isinstance(path, list | tuple):
        return [f for p in path for f in _files(model, p)]
    text = os.fspath(path)
    files, pattern = resolve_path(text)
    if pattern and not files:
        raise ValueError(f"{_who(model)}: no file matches the pattern {Path(text).name!r}")
    out: list[Path] = []
    for f in map(Path, files):
        if f.is_dir():
            found = _log_files(model, f)
            found = [p for p in found if p.suffix != ".json" or _is_inspect_json(p)]
            if not found:
                raise ValueError(f"{_who(model)}: folder {f.name!r} holds no samples_*.jsonl, "
                                 ".eval or inspect .json log")
            out += found
        elif not f.exists():
            raise ValueError(f"{_who(model)}: no such file {f.name!r}")
        else:
            check_regular(f, f"{_who(model)}: {f.name}")
            out.append(f)
    return out


def _model_of(path: Path) -> str:
    """Return the model a log names.

    inspect: ``eval.model``; lm-evaluation-harness: ``model_name`` in the
    ``results_<timestamp>.json`` beside the samples.
    """
    if path.name.endswith(".jsonl"):
        match = _LM_EVAL_NAME.match(path.name)
        results = path.with_name(f"results_{match.group('stamp')}.json") if match and \
            match.group("stamp") else None
        if results is None or not results.is_file():
            raise ValueError(f"{path.name}: no results_<timestamp>.json beside it to name its "
                             "model; name the model with --eval-log NAME=PATH")
        try:
            text = read_file(results, results.name)
        except OSError as exc:
            raise _cannot_read(results, exc) from None
        name = _object(_json(text, results.name), results.name).get("model_name")
    else:
        header = _inspect_parts(path, header_only=True)[0]
        name = header.get("eval", {}).get("model") if isinstance(header.get("eval"),
                                                                 Mapping) else None
    if not isinstance(name, str) or not name:
        raise ValueError(f"{path.name}: the log names no model; name it with --eval-log "
                         "NAME=PATH")
    return _name(name, f"{path.name}: the model")


def logs_by_model(paths: Any) -> dict[str, list[Path]]:
    """Group the logs under some paths by the model each log names.

    Parameters
    ----------
    paths : path or sequence of paths
        Log files, folders (read recursively) or globs.

    Returns
    -------
    dict
        Model name -> its log files, in the order found.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> for model in ["m1", "m2"]:
    ...     log = {"version": 2, "status": "success", "eval": {"task": "t", "model": model},
    ...            "samples": []}
    ...     _ = (d / f"{model}.json").write_text(json.dumps(log))
    >>> sorted(logs_by_model(d))
    ['m1', 'm2']
    """
    out: dict[str, list[Path]] = {}
    for f in _files(None, list(paths) if isinstance(paths, list | tuple) else [paths]):
        out.setdefault(_model_of(f), []).append(f)
    return out


# (a byte-order mark first, as some editors write, is not part of the JSON)
_INSPECT_HEAD = re.compile(rb'^(?:\xef\xbb\xbf)?\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


def log_files(model: str | None, path: Any) -> list[Path]:
    """Return the log files read for one model: the file, or those a folder or pattern holds.

    Parameters
    ----------
    model : str or None
        The model's name, for messages (None: logs that name their models).
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


def _log_files(model: str | None, folder: Path) -> list[Path]:
    """Return the log files in ``folder`` and its subfolders, sorted; regular files only.

    Subfolders are walked down to the depth limit (links to folders are not followed); a
    file with a log's name that is not a regular file (a FIFO, a device, also behind a link)
    is refused before it is opened.
    """
    found: list[Path] = []
    tasks: set[str] = set()
    todo = [(folder, 0)]
    where = f"{_who(model)}: folder {shorten(folder.name)!r}"
    # the most log files a comparison reads: one per task and model (a re-run is refused
    # unless --latest keeps the newest); counted while listing, before any log is opened
    most = limit("tasks") * limit("item_models")
    while todo:
        here, depth = todo.pop()
        try:
            entries = os.scandir(here)
        except OSError as exc:
            raise ValueError(f"{_who(model)}: folder {shorten(here.name)!r} cannot be read "
                             f"({exc.strerror})") from None
        with entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    check_limit("depth", depth + 1, where)
                    todo.append((Path(entry.path), depth + 1))
                elif _is_log_name(entry.name):
                    match = _LM_EVAL_NAME.match(entry.name)
                    if match:  # an lm-evaluation-harness file names its task
                        tasks.add(match.group("task"))
                        check_limit("tasks", len(tasks), where)
                    if len(found) == most:
                        raise ValueError(
                            f"{where}: more than {most:,} log files, the logs of "
                            f"{limit('tasks'):,} tasks of {limit('item_models'):,} models the "
                            "limits allow (raise them with --limit tasks=N or --limit "
                            "item_models=N, or PRECMP_MAX_TASKS=N, PRECMP_MAX_ITEM_MODELS=N)")
                    check_regular(entry.path, f"{_who(model)}: {shorten(entry.name)}")
                    found.append(Path(entry.path))
    return sorted(found)


def _is_inspect_json(p: Path) -> bool:
    """Whether a .json file found in a folder is an inspect log.

    inspect writes its JSON logs with ``version`` then ``status`` first; an eval-set's index
    (``logs.json``), lm-evaluation-harness's ``results_*.json`` and other JSON files are not
    logs, even when they mention "eval".
    """
    if p.name in _NOT_LOGS or p.name.startswith("results"):
        return False
    try:
        with open(p, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return bool(_INSPECT_HEAD.match(head))


def _split_metric(metric: str | None, task: str) -> str | None:
    """Return the metric for one task: ``"METRIC"`` for every task, ``"TASK=METRIC"`` for one."""
    if metric is None:
        return None
    chosen = None
    for part in metric.split(";"):
        name, sep, value = part.partition("=")
        if not sep:
            chosen = chosen or part
        elif name == task:
            return value
    return chosen


def _name(text: str, where: str) -> str:
    """Return a name read from a log (model, task, scorer, metric, item id, cluster), stored once.

    A name longer than the label limit is refused, its start shown; equal names are one
    string in memory however many rows hold them (``sys.intern``).
    """
    check_limit("label", len(text), f"{where} {clip_for_message(text, 40)!r}")
    return sys.intern(text)


def _metric_of(record: Mapping[str, Any], metric: str | None, where: str) -> str:
    """Return the metric field of an lm-evaluation-harness line.

    ``metric`` when given, else the first of the line's ``metrics`` list of names (anything
    else there is refused in one line).
    """
    names = record.get("metrics")
    if metric is not None:
        name = metric.split(",")[0]
        if name not in record:
            shown = shorten(", ".join(map(str, names)) if isinstance(names, list) else str(names))
            raise ValueError(f"{where}: no metric {shorten(name)!r} (metrics: {shown})")
        return _name(name, f"{where}: the metric")
    if not names:
        raise ValueError(f"{where}: the line has no 'metrics' list; pass metric=")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        what = _kind(names) if not isinstance(names, list) else "a list holding " + _kind(
            next(n for n in names if not isinstance(n, str)))
        raise ValueError(f"{where}: 'metrics' is not a list of metric names (got {what}); "
                         "pass metric=")
    if names[0] not in record:
        raise ValueError(f"{where}: 'metrics' names {shorten(names[0])!r} but the line has no "
                         "field of that name; pass metric=")
    return _name(names[0], f"{where}: the metric")


def _field(record: Mapping[str, Any], path: str | None, where: str) -> Any:
    """Return the value at ``doc.KEY`` / ``metadata.KEY`` of a line or sample (None without a path)."""
    if path is None:
        return None
    value: Any = record
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            raise ValueError(f"{where}: no field {path!r} for the cluster")
        value = value[key]
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{where}: the cluster {path!r} is {_kind(value)}, not a text or number")
    return _name(str(value), f"{where}: the cluster")


def _lm_eval_log(path: Path, metric: str | None, cluster: str | None) -> _Log:
    match = _LM_EVAL_NAME.match(path.name)
    # the task is named by the file: bytes of the name that are not UTF-8 are shown as \xNN
    task = _name(printable_name(match.group("task") if match else path.stem),
                 f"{path.name}: the task")
    stamp = (match.group("stamp") or "") if match else ""
    metric = _split_metric(metric, task)
    want_filter = metric.split(",", 1)[1] if metric and "," in metric else None
    if cluster is not None and not cluster.startswith("doc."):
        raise ValueError(f"{path.name}: lm-evaluation-harness lines carry the document as "
                         f"'doc'; name the cluster 'doc.<key>' (got {cluster!r})")
    rows, filters, names = [], set(), set()
    seen: dict[tuple[str, str], int] = {}  # (doc_id, filter) -> its line
    for number, line in _lines(path):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        record = _object(_json(line, where), where)
        if "doc_id" not in record:
            raise ValueError(f"{where}: no 'doc_id' (not an lm-evaluation-harness samples line)")
        flt = _name(str(record.get("filter", "none")), f"{where}: the filter")
        filters.add(flt)
        if want_filter is not None and flt != want_filter:
            continue
        name = _metric_of(record, metric, where)
        names.add(name)
        value = record[name]
        if isinstance(value, list | dict):
            raise ValueError(f"{where}: metric {clip_for_message(name)!r} is not a per-item score "
                             f"(got {_kind(value)}); choose another with metric=")
        digest = record.get("doc_hash")
        if isinstance(digest, str) and len(digest) > 64:  # kept per row: a long one as its hash
            digest = hashlib.sha256(digest.encode("utf-8", "surrogatepass")).hexdigest()
        item = _item_id(record["doc_id"], where, "doc_id")
        first = seen.setdefault((item, flt), number)
        if first != number:
            raise ValueError(f"{path.name}: doc_id {clip_for_message(item)!r} is on lines "
                             f"{first} and {number}" + (f" (filter {clip_for_message(flt)!r})"
                                                         if flt != "none" else "")
                             + "; each document is scored once (5 and \"5\" are one id): "
                             "remove the repeated line")
        rows.append((item, value, task, 1, _field(record, cluster, where),
                     digest if isinstance(digest, str) else None, flt))
    kept = {r[6] for r in rows}
    if want_filter is not None and not rows:
        raise ValueError(f"{path.name}: no line has the filter {want_filter!r} (filters: "
                         f"{sorted(filters)}); for a suite name the metric per task, "
                         "metric='TASK=METRIC,FILTER'")
    if len(kept) > 1:
        raise ValueError(f"{path.name}: the items are scored under several filters "
                         f"{sorted(kept)}; choose one with metric='METRIC,FILTER'")
    scoring = f"metric {', '.join(sorted(names))}, filter {', '.join(sorted(kept)) or 'none'}"
    return _Log(path, task, stamp, [r[:6] for r in rows], scoring)


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
    scorer, key = _scorer_of(scores, metric)
    if scorer not in scores:
        raise ValueError(f"{where}: no scorer {clip_for_message(scorer)!r} (scorers: {clip_for_message(str(sorted(scores)))})")
    value = scores[scorer].get("value") if isinstance(scores[scorer], Mapping) else None
    return _pick_value(value, scorer, key, where)


def _scorer_of(scores: Mapping[str, Any], metric: str | None) -> tuple[str, str]:
    scorer, _, key = (metric or "").partition("/")
    return scorer or next(iter(scores)), key


def _pick_value(value: Any, scorer: str, key: str, where: str) -> Any:
    if isinstance(value, Mapping):
        if not key:
            raise ValueError(f"{where}: scorer {clip_for_message(scorer)!r} gives several values {clip_for_message(str(sorted(value)))}; "
                             f"choose one with metric='{scorer}/NAME'")
        if key not in value:
            raise ValueError(f"{where}: scorer {clip_for_message(scorer)!r} has no value {clip_for_message(key)!r} "
                             f"(values: {clip_for_message(str(sorted(value)))})")
        value = value[key]
    if value is None or isinstance(value, list | Mapping):
        raise ValueError(f"{where}: scorer {clip_for_message(scorer)!r} gives {_kind(value)}, not a score")
    return value


def _kind(value: Any) -> str:
    """Name a parsed JSON value's type as the log's reader would say it."""
    if isinstance(value, bool):
        return "true/false"
    kinds = [(Mapping, "an object"), (list, "a list"), (str, "a text"), (int | float, "a number")]
    return next((name for t, name in kinds if isinstance(value, t)), "null")


# a JSON escape of a UTF-16 surrogate (\ud800 to \udfff): a pair of them is one character, a
# lone one decodes to a code point that is not text and fails later, wherever it is written
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _printable(text: str) -> str:
    """Show a key or text that may hold a lone surrogate: the surrogate as an escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _lone_surrogate(value: Any) -> str | None:
    r"""Return where (a JSON path) the first text holding a lone surrogate is, else None.

    >>> _lone_surrogate({"a": [1, {"b": "x\ud800"}]}), _lone_surrogate({"a": "\U0001F600"})
    ('a[1].b', None)
    """
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return path or "the log"
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                here = f"{path}.{_printable(key)}" if path else _printable(key)
                if _SURROGATE.search(key):
                    return f"the key {here}"
                stack.append((inner, here))
        elif isinstance(item, list):
            stack.extend((inner, f"{path}[{i}]") for i, inner in enumerate(item))
    return None


def _json(text: str | bytes | bytearray, where: str) -> Any:
    r"""Parse JSON, or raise ValueError naming ``where``.

    Refused: bad JSON, text that is not UTF-8, nesting too deep to follow, and a text holding a
    lone surrogate escape (``\ud800`` without its pair), which is not text.
    """
    try:
        if isinstance(text, bytes | bytearray):
            check_json_cost(text, where)
        value = json.loads(text)
        raw = text if isinstance(text, bytes | bytearray) else text.encode("utf-8", "surrogatepass")
        if _SURROGATE_ESCAPE.search(raw):
            at = _lone_surrogate(value)
            if at is not None:
                raise ValueError(f"{where}: {at} holds a lone surrogate (a \\ud800 to \\udfff "
                                 "escape without its pair), which is not text")
        return value
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON ({exc.msg} at line {exc.lineno} column "
                         f"{exc.colno})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{where}: not UTF-8 text") from None
    except ValueError as exc:  # Python's own limit on the digits of a whole number
        if "digits" not in str(exc) or where in str(exc):
            raise
        raise ValueError(f"{where}: a whole number of more than {sys.get_int_max_str_digits():,} "
                         "digits, which is not read (no score or id is that long)") from None
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply to read") from None


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: not a JSON object (got {_kind(value)})")
    return value


def _item_id(value: Any, where: str, field: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"{where}: {field!r} is not a text or a whole number (got {_kind(value)})")
    return _name(str(value), f"{where}: {field!r}")


def _task(header: Mapping[str, Any], default: str, where: str) -> str:
    part = header.get("eval", {})
    task = _object(part, f"{where}: 'eval'").get("task", default)
    if not isinstance(task, str):
        raise ValueError(f"{where}: 'eval.task' is not a text (got {_kind(task)})")
    return _name(task, f"{where}: the task")


def _archive_json(z: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, budget: list[int]) -> Any:
    """Parse one member, inflated up to the member limit and to what is left of the log limit."""
    data = inflate_member(z, info, where, room=budget[0])
    budget[0] -= len(data)
    return _json(data, f"{where}: {clip_for_message(info.filename)}")


@contextlib.contextmanager
def _archive_errors(path: Path) -> Iterator[None]:
    """One line for a damaged or encrypted archive."""
    try:
        yield
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise ValueError(f"{path.name}: a damaged .eval archive ({exc})") from None
    except RuntimeError as exc:  # an encrypted member
        raise ValueError(f"{path.name}: {exc}") from None


def _archive_samples(path: Path, names: list[str], budget: list[int]) -> Iterator[Any]:
    """Yield an archive's samples one at a time: only the rows taken from them are kept."""
    with _archive_errors(path), zipfile.ZipFile(path) as z:
        members = check_members(z, path.name)
        for name in names:
            yield _archive_json(z, members[name], path.name, budget)


def _inspect_parts(path: Path, header_only: bool = False
                   ) -> tuple[Mapping[str, Any], Iterable[Any], Any]:
    """Return the header, the samples and the reductions (None when absent) of an inspect log.

    The samples of an ``.eval`` archive are read one at a time as they are iterated; each
    member is inflated up to the member limit, all of them up to the log limit (bytes
    produced, whatever the archive declares).
    """
    if zipfile.is_zipfile(path):
        with _archive_errors(path), zipfile.ZipFile(path) as z:
            members = check_members(z, path.name)
            names = sorted(n for n in members if n.startswith("samples/") and n.endswith(".json"))
            # the total the members read would inflate to, as the archive declares it
            check_limit("log", sum(members[n].file_size
                                   for n in [*names, "header.json"] if n in members), path.name)
            budget = [limit("log")]
            header: Mapping[str, Any] = {}
            if "header.json" in members:
                header = _object(_archive_json(z, members["header.json"], path.name, budget),
                                 f"{path.name}: header.json")
            if header_only:
                return header, [], None
            reductions = (_archive_json(z, members["reductions.json"], path.name, budget)
                          if "reductions.json" in members else None)
        return header, _archive_samples(path, names, budget), reductions
    if path.suffix == ".eval":
        raise ValueError(f"{path.name}: not a zip archive, as .eval logs are (cut short?)")
    data = _json(read_file(path, path.name), path.name)
    if not isinstance(data, Mapping) or not isinstance(data.get("samples"), list):
        raise ValueError(f"{path.name}: no 'samples' list (an inspect log written without samples?)")
    return data, data["samples"], data.get("reductions")


def _epochs(header: Mapping[str, Any]) -> tuple[int, str]:
    """Return the epochs of an inspect log and its epoch reducer (``"mean"`` unless it names one)."""
    config = header.get("eval", {}).get("config") if isinstance(header.get("eval"), Mapping) else {}
    config = config if isinstance(config, Mapping) else {}
    epochs = config.get("epochs")
    reducers = config.get("epochs_reducer") or ["mean"]
    reducer = reducers[0] if isinstance(reducers, list) and reducers else "mean"
    return (epochs if isinstance(epochs, int) else 1), str(reducer)


def _content_hash(sample: Mapping[str, Any]) -> str:
    text = json.dumps(sample.get("input"), sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _inspect_log(path: Path, metric: str | None, cluster: str | None) -> _Log:
    header, samples, reductions = _inspect_parts(path)
    task = _task(header, printable_name(path.stem), path.name)
    metric = _split_metric(metric, task)
    if cluster is not None and not cluster.startswith("metadata."):
        raise ValueError(f"{path.name}: inspect samples carry their fields in 'metadata'; name "
                         f"the cluster 'metadata.<key>' (got {cluster!r})")
    rows, errored, scorers, seen = [], [], set(), set()
    for n, raw in enumerate(samples):
        sample = _object(raw, f"{path.name} sample {n}")
        if "id" not in sample:
            raise ValueError(f"{path.name} sample {n}: no 'id'")
        epoch = sample.get("epoch", 1)
        item = _item_id(sample["id"], f"{path.name} sample {n}", "id")
        where = f"{path.name} sample {clip_for_message(item)!r}"
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
            raise ValueError(f"{where}: 'epoch' is not a whole number from 1 (got {epoch!r:.40})")
        where += f" epoch {epoch}"
        if (item, epoch) in seen:
            raise ValueError(f"{where}: the log holds this sample twice (the same id and "
                             "epoch); each answer is read once: remove the copy")
        seen.add((item, epoch))
        if sample.get("error") and not sample.get("scores"):
            errored.append(f"{item} epoch {epoch}")
            continue
        scorers.add(_name(_scorer_of(sample.get("scores") or {"": None}, metric)[0],
                          f"{where}: the scorer"))
        rows.append((item, _inspect_value(sample, metric, where), task, epoch,
                     _field(sample, cluster, where), _content_hash(sample)))
    epochs, reducer = _epochs(header)
    samples_read = len(rows) + len(errored)
    scorer = ", ".join(sorted(scorers))
    if epochs > 1 and reducer != "mean" and rows:
        rows = _reduced(rows, reductions, scorer, reducer, metric, path.name)
        said = f"{epochs} epochs reduced by {reducer} (the log's reductions)"
    else:
        said = f"{epochs} epochs, the mean of an item's answers" if epochs > 1 else "1 epoch"
    scoring = f"scorer {scorer} (C 1, P 0.5, I 0, N 0; true 1, false 0), {said}"
    return _Log(path, task, str(header.get("eval", {}).get("created", "")), rows, scoring,
                errored, samples_read)


def _reduced(rows: list[tuple[Any, ...]], reductions: Any, scorer: str, reducer: str,
             metric: str | None, name: str) -> list[tuple[Any, ...]]:
    """One row per item: the value inspect's epoch reducer gave it (``reductions``)."""
    if reductions is not None and not isinstance(reductions, list):
        raise ValueError(f"{name}: the reductions (reductions.json) are not a list (got "
                         f"{_kind(reductions)})")
    found = [r for r in reductions or [] if isinstance(r, Mapping)
             and r.get("scorer") == scorer and r.get("reducer", reducer) == reducer]
    if not found:
        raise ValueError(f"{name}: the log names the epoch reducer {reducer!r} but holds no "
                         f"reductions for scorer {clip_for_message(scorer)!r}")
    first = {r[0]: r for r in rows}
    key = (metric or "").partition("/")[2]
    out = []
    reduced = found[0].get("samples") or []
    if not isinstance(reduced, list):
        raise ValueError(f"{name}: the reductions of scorer {scorer!r} hold no list of samples "
                         f"(got {_kind(reduced)})")
    for s in reduced:
        item = _item_id(_object(s, f"{name}: reductions").get("sample_id"), f"{name}: "
                        "reductions", "sample_id")
        if item in first:
            value = _pick_value(s.get("value"), scorer, key, f"{name}: reductions {clip_for_message(item)!r}")
            out.append((item, value, *first[item][2:3], 1, *first[item][4:]))
    return out


def _one_per_task(model: str, read: list[_Log], latest: bool, dropped: list[str]) -> list[_Log]:
    """One log per task: a second log of a task (a re-run) is refused, or the newest kept."""
    by_task: dict[str, list[_Log]] = {}
    for log in read:
        by_task.setdefault(log.task, []).append(log)
    out = []
    for task, found in by_task.items():
        found.sort(key=lambda log: (log.stamp, log.path.name))
        if len(found) > 1 and not latest:
            raise ValueError(_two_logs(model, task, found[0].path, found[1].path))
        dropped += [f"{model}: {log.path.name}" for log in found[:-1]]
        out.append(found[-1])
    return out


def _two_logs(model: str, task: str, a: Path, b: Path) -> str:
    try:
        names = sorted({_model_of(a), _model_of(b)})
    except ValueError:
        names = []
    if len(names) > 1:
        return (f"{_who(model)}: logs of several models ({clip_for_message(', '.join(names))}) for task {clip_for_message(task)!r}, "
                f"{a.name} and {b.name}; name each model's logs, or read the folder with "
                "--eval-logs (logs_by_model) to take the models' names from the logs")
    return (f"{_who(model)}: two logs of task {clip_for_message(task)!r}, {a.name} and {b.name} (a re-run?); "
            "keep one, or take the newest with latest=True (--latest)")


def _check_hashes(frame: pd.DataFrame) -> None:
    """Refuse an item whose content hash differs between models (another dataset revision)."""
    known = frame.dropna(subset=["hash"])
    counts = known.groupby(["task", "item"], sort=False)["hash"].nunique()
    if (counts > 1).any():
        task, item = counts[counts > 1].index[0]
        rows = known[(known["task"] == task) & (known["item"] == item)]
        a, b = rows.drop_duplicates("hash")["model"].iloc[:2]
        raise ValueError(f"task {clip_for_message(task)!r} item {clip_for_message(item)!r}: models {clip_for_message(a)!r} and {clip_for_message(b)!r} were given "
                         "different content under that id (the logs' hashes differ); compare "
                         "logs of the same dataset revision")


def _read_log(path: Path, metric: str | None, cluster: str | None) -> _Log:
    """Read one log; a file the system will not read (permissions, a failing disk) is one line."""
    try:
        if path.name.endswith(".jsonl"):
            return _lm_eval_log(path, metric, cluster)
        return _inspect_log(path, metric, cluster)
    except OSError as exc:
        raise _cannot_read(path, exc) from None


def _cannot_read(path: Path, exc: OSError) -> ValueError:
    """One line for a file the system will not read (permissions, a failing disk)."""
    return ValueError(f"{path.name}: cannot be read ({exc.strerror or type(exc).__name__})")


def _read_model(model: str, path: Any, metric: str | None, cluster: str | None,
                latest: bool, dropped: list[str]) -> tuple[pd.DataFrame, list[_Log]]:
    read = [_read_log(f, metric, cluster) for f in _files(model, path)]
    read = _one_per_task(model, read, latest, dropped)
    rows = [row for log in read for row in log.rows]
    if not rows:
        raise ValueError(f"{_who(model)}: the logs hold no samples")
    # Python objects, not pandas' text columns: a text column holds each row's bytes, an
    # object column a reference to the one string of a name (see _name)
    names = ["item", "score", "task", "epoch", "cluster", "hash"]
    frame = pd.DataFrame({name: pd.Series(values, dtype=object) if name != "epoch" else values
                          for name, values in zip(names, map(list, zip(*rows)))})
    try:
        frame["score"] = parse_scores(frame["score"], "score")
    except ValueError as exc:
        raise ValueError(f"{_who(model)}: {exc}") from None
    frame.insert(1, "model", pd.Series(np.full(len(frame), model, dtype=object), dtype=object))
    return frame, read


def _settings(read: dict[str, list[_Log]], dropped: list[str]) -> dict[str, Any]:
    """How each task was scored, the errored samples skipped and the logs left out."""
    scoring: dict[str, dict[str, str]] = {}
    for model, logs in read.items():
        for log in logs:
            scoring.setdefault(log.task, {})[model] = log.scoring
    for task, by_model in scoring.items():
        if len(set(by_model.values())) > 1:
            raise ValueError(f"task {clip_for_message(task)!r} is scored differently in the models' logs: "
                             + "; ".join(f"{m}: {s}" for m, s in by_model.items()))
    errored = {f"{model}: {log.task}": log.errored for model, logs in read.items()
               for log in logs if log.errored}
    # of how many samples each log with errored ones held, for the share the page states
    samples = {f"{model}: {log.task}": log.samples for model, logs in read.items()
               for log in logs if log.errored}
    return {"scoring": {task: next(iter(s.values())) for task, s in scoring.items()},
            "errored": errored, "samples": samples, "left_out": dropped}


def read_eval_logs(logs: Mapping[str, Any], *, metric: str | None = None,
                   cluster: str | None = None, latest: bool = False) -> pd.DataFrame:
    r"""Read lm-evaluation-harness and inspect_ai per-sample logs into one item table.

    Parameters
    ----------
    logs : mapping of str to path
        Model name -> a file (``samples_<task>_*.jsonl``, an inspect ``.json`` or ``.eval``
        log), a folder holding such files (an ``eval-set`` folder too), or a glob (only a name
        that does not exist and holds ``*`` or ``?`` is a pattern).
    metric : str, optional
        lm-evaluation-harness: the metric field (default: the first of the line's ``metrics``);
        ``"METRIC,FILTER"`` picks one filter when the items are scored under several. inspect:
        the scorer (default: the first), ``"SCORER/NAME"`` for a scorer with several values.
        ``"TASK=METRIC"`` names the metric of one task; several are joined by ``;``
        (``"arc=acc_norm;gsm8k=exact_match,strict-match"``), a part without ``=`` is for the
        other tasks.
    cluster : str, optional
        The field of a sample that names its cluster: ``"doc.<key>"`` (lm-evaluation-harness)
        or ``"metadata.<key>"`` (inspect); adds a ``cluster`` column.
    latest : bool
        Two logs of one task for one model (a re-run) are refused; with True the newest is
        read (by the log's time stamp) and the others are listed in ``attrs``.

    Returns
    -------
    DataFrame
        Columns ``item`` (str), ``model``, ``score`` (float: C 1, I 0, P 0.5, N 0, true 1,
        false 0), ``task``, ``epoch`` (1 for lm-evaluation-harness, and for inspect logs whose
        epochs were combined by a reducer other than the mean), and ``cluster`` when asked.
        ``attrs["eval_logs"]`` says how each task was scored (``scoring``), which samples
        failed and were skipped (``errored``, by id and epoch, with ``samples``: how many
        samples each such log held) and which logs were left out (``left_out``).

    Raises
    ------
    ValueError
        Naming the model, file and line or sample: a missing file, a line that is not JSON, a
        missing metric, several filters, a score that is not a number, two logs of one task,
        an item whose content differs between models.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> lines = [{"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": float(i % 2),
    ...           "doc": {"passage": f"p{i // 2}"}} for i in range(4)]
    >>> _ = (d / "samples_arc_easy_2024-05-13T14-32-10.123456.jsonl").write_text(
    ...     "\n".join(json.dumps(x) for x in lines))
    >>> frame = read_eval_logs({"m1": d}, cluster="doc.passage")
    >>> frame[["item", "score", "task", "cluster"]].values.tolist()[:2]
    [['0', 0.0, 'arc_easy', 'p0'], ['1', 1.0, 'arc_easy', 'p0']]
    >>> frame.attrs["eval_logs"]["scoring"]
    {'arc_easy': 'metric acc, filter none'}
    """
    if not isinstance(logs, Mapping) or not logs:
        raise ValueError(f"logs must be a mapping model -> path with at least one model; got "
                         f"{logs!r:.60}")
    parts: list[pd.DataFrame] = []
    read: dict[str, list[_Log]] = {}
    dropped: list[str] = []
    for model, path in logs.items():
        model = _name(str(model), "logs: the model")
        frame, read[model] = _read_model(model, path, metric, cluster, latest, dropped)
        parts.append(frame)
    out = pd.concat(parts, ignore_index=True)
    _check_hashes(out)
    out = out[[*COLUMNS, "cluster"] if cluster is not None else COLUMNS]
    out.attrs["eval_logs"] = _settings(read, dropped)
    return out
