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
import json.decoder
import json.scanner
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

from .._lib.bounded import (
    check_directory,
    check_json_cost,
    check_members,
    inflate_member,
    read_file,
)
from .._lib.limits import check_limit, check_regular, limit, limits_held
from .._lib.text import clip_for_message, printable_name, shorten
from ..engine.files import resolve_path
from ..engine.items import parse_scores

__all__ = ["logs_by_model", "read_eval_logs"]

_LM_EVAL_NAME = re.compile(r"^samples_(?P<task>.+?)(_(?P<stamp>\d{4}-\d{2}-\d{2}T[0-9.:\-]+))?"
                           r"\.jsonl$")
# files of an eval-set folder (and of lm-evaluation-harness) that sit beside the logs
_NOT_LOGS = {"logs.json", "eval-set.json"}
COLUMNS = ["item", "model", "score", "task", "epoch"]
# the statuses inspect gives a run: every sample done, or stopped before that
RUN_STATUSES = ("success", "started", "cancelled", "error")


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
    # samples whose score is NaN or null: not scored, skipped and named like errored ones
    unscored: list[str] = field(default_factory=list)
    # the run's status (inspect: started, cancelled, error, success) and the samples it planned
    status: str = "success"
    planned: int = 0
    # the model the log names (None: it names none, or it was given in memory)
    model: str | None = None


def _files(model: str | None, path: Any) -> list[Path]:
    if isinstance(path, list | tuple):
        return [f for p in path for f in _files(model, p)]
    text = os.fspath(path)
    files, pattern = resolve_path(text)
    if pattern and not files:
        raise ValueError(f"{_label(model)}: no file matches the pattern {Path(text).name!r}")
    out: list[Path] = []
    for f in map(Path, files):
        if f.is_dir():
            found = _log_files(model, f)
            found = [p for p in found if p.suffix != ".json" or _is_inspect_json(p)]
            if not found:
                raise ValueError(f"{_label(model)}: folder {f.name!r} holds no samples_*.jsonl, "
                                 ".eval or inspect .json log")
            out += found
        elif not f.exists():
            raise ValueError(f"{_label(model)}: no such file {f.name!r}")
        else:
            check_regular(f, f"{_label(model)}: {f.name}")
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
        The model's name, for messages (None: not yet named, as --eval-logs gives them).
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
    where = f"{_label(model)}: folder {shorten(folder.name)!r}"
    # the most log files a comparison reads: one per task and model (a re-run is refused
    # unless --latest keeps the newest); counted while listing, before any log is opened
    most = limit("tasks") * limit("item_models")
    while todo:
        here, depth = todo.pop()
        try:
            entries = os.scandir(here)
        except OSError as exc:
            raise ValueError(f"{_label(model)}: folder {shorten(here.name)!r} cannot be read "
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
                    check_regular(entry.path, f"{_label(model)}: {shorten(entry.name)}")
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
    if len(text) > limit("label"):  # the message is written only for a name refused
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
    records = ((f"{path.name} line {number}", line) for number, line in _lines(path)
               if line.strip())
    return _lm_eval_read(path, task, stamp, records, metric, cluster)


def _lm_eval_read(path: Path, task: str, stamp: str, records: Iterable[tuple[str, Any]],
                  metric: str | None, cluster: str | None) -> _Log:
    """Read one task's sample records (JSON lines of a file, or dicts in memory) into a :class:`_Log`."""
    metric = _split_metric(metric, task)
    want_filter = metric.split(",", 1)[1] if metric and "," in metric else None
    if cluster is not None and not cluster.startswith("doc."):
        raise ValueError(f"{path.name}: lm-evaluation-harness lines carry the document as "
                         f"'doc'; name the cluster 'doc.<key>' (got {cluster!r})")
    rows, filters, names, unscored = [], set(), set(), []
    seen: dict[tuple[str, str], str] = {}  # (doc_id, filter) -> where it was read
    for where, line in records:
        record = _object(_json(line, where) if isinstance(line, bytes | str) else line, where)
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
        if _unscored(value):
            unscored.append(f"doc_id {record['doc_id']}: {_unscored(value)}")
            continue
        digest = record.get("doc_hash")
        if isinstance(digest, str) and len(digest) > 64:  # kept per row: a long one as its hash
            digest = hashlib.sha256(digest.encode("utf-8", "surrogatepass")).hexdigest()
        item = _item_id(record["doc_id"], where, "doc_id")
        first = seen.setdefault((item, flt), where)
        if first != where:
            lines = f"{path.name} line "
            at = (f"on lines {first[len(lines):]} and {where[len(lines):]}"
                  if first.startswith(lines) and where.startswith(lines)
                  else f"read twice ({first}; {where})")
            raise ValueError(f"{path.name}: doc_id {clip_for_message(item)!r} is {at}"
                             + (f" (filter {clip_for_message(flt)!r})" if flt != "none" else "")
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
    return _Log(path, task, stamp, [r[:6] for r in rows], scoring,
                samples=len(rows) + len(unscored), unscored=unscored)


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
        raise ValueError(f"{where}: no scorer {clip_for_message(scorer)!r} (scorers: "
                         f"{clip_for_message(str(sorted(scores)))})")
    given = scores[scorer]
    if not isinstance(given, Mapping) or "value" not in given:
        raise ValueError(f"{where}: scorer {clip_for_message(scorer)!r} gives no value, not a score")
    return _pick_value(given["value"], scorer, key, where)


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
    if isinstance(value, list | Mapping):
        raise ValueError(f"{where}: scorer {clip_for_message(scorer)!r} gives {_kind(value)}, "
                         "not a score")
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
        _refuse_lone_surrogates(raw, value, where)
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


def _archive_samples(z: zipfile.ZipFile, members: Mapping[str, zipfile.ZipInfo], path: Path,
                     names: list[str], budget: list[int]) -> Iterator[Any]:
    """Yield an archive's samples one at a time: only the rows taken from them are kept.

    The archive opened for its header is read on and closed when the samples are done (its
    directory is read once: a log of 15,000 samples spent a tenth of a second on each read).
    """
    with _archive_errors(path), z:
        for name in names:
            yield _archive_sample(z, members[name], path.name, budget)


# the fields of an inspect sample the reader uses; inspect writes them before the sample's
# events and transcript (pydantic's field order: id, epoch, input, ..., scores, metadata, ...,
# events, ..., error), which are most of its bytes and are not read
_SAMPLE_FIELDS = frozenset({"id", "epoch", "input", "scores", "metadata", "error"})
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_SCAN_VALUE = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[attr-defined,arg-type]


def _archive_sample(z: zipfile.ZipFile, info: zipfile.ZipInfo, where: str,
                    budget: list[int]) -> Any:
    """Read one sample member of an .eval archive: the fields the reader uses.

    Its bytes are inflated up to the member limit and to what is left of the log limit.
    """
    data = inflate_member(z, info, where, room=budget[0])
    budget[0] -= len(data)
    named = f"{where}: {clip_for_message(info.filename)}"
    check_json_cost(data, named)
    return _sample_json(data, named)


def _sample_json(data: bytes | bytearray, where: str) -> Any:
    r"""Parse an inspect sample's JSON up to the fields the reader uses, else all of it.

    The top-level object is walked key by key with the json module's own scanner; once the
    id, epoch, input, scores (not empty) and metadata are read, the rest (the events, most of
    the bytes) is left unread. Anything unusual (not an object, a field missing, bad JSON) is
    parsed in full by :func:`_json`, whose messages name the fault.

    >>> _sample_json(b'{"id": "q1", "epoch": 1, "input": "x", "scores": {"m": {"value": "C"}},'
    ...              b' "metadata": {}, "events": [1, 2]}', "s")
    {'id': 'q1', 'epoch': 1, 'input': 'x', 'scores': {'m': {'value': 'C'}}, 'metadata': {}}
    >>> _sample_json(b'{"id": "q1", "error": {"message": "boom"}}', "s")
    {'id': 'q1', 'error': {'message': 'boom'}}
    """
    try:
        out = _sample_fields(data.decode("utf-8"))
    except (ValueError, StopIteration, RecursionError, IndexError):
        out = None
    if out is None:
        return _json(data, where)
    _refuse_lone_surrogates(data, out, where)
    return out


def _refuse_lone_surrogates(raw: bytes | bytearray, value: Any, where: str) -> None:
    r"""Refuse a parsed document holding a lone surrogate escape (``\ud800`` without its pair).

    ``raw`` is the document's bytes: only one with a surrogate escape is searched.

    >>> _refuse_lone_surrogates(b'["\\ud800"]', ["\ud800"], "a.json")
    Traceback (most recent call last):
    ...
    ValueError: a.json: [0] holds a lone surrogate (a \ud800 to \udfff escape without its pair), which is not text
    """
    if _SURROGATE_ESCAPE.search(raw):
        at = _lone_surrogate(value)
        if at is not None:
            raise ValueError(f"{where}: {at} holds a lone surrogate (a \\ud800 to \\udfff "
                             "escape without its pair), which is not text")


def _sample_fields(text: str) -> dict[str, Any] | None:
    """Walk a JSON object's keys, keeping :data:`_SAMPLE_FIELDS`; None for anything unusual."""
    # the pattern matches everywhere (possibly nothing): a match, never None
    space: Any = _JSON_SPACE.match
    scan = _SCAN_VALUE
    i = space(text).end()
    if text[i:i + 1] != "{":
        return None
    i = space(text, i + 1).end()
    out: dict[str, Any] = {}
    while text[i:i + 1] == '"':
        key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        i = space(text, i).end()
        if text[i:i + 1] != ":":
            return None
        value, i = scan(text, space(text, i + 1).end())
        if key in _SAMPLE_FIELDS:
            out[key] = value
            if out.get("scores") and len(out) >= 5 and "error" not in out:
                return out  # id, epoch, input, scores, metadata: the rest is not read
        i = space(text, i).end()
        if text[i:i + 1] == ",":
            i = space(text, i + 1).end()
        elif text[i:i + 1] == "}" and space(text, i + 1).end() == len(text):
            return out
        else:
            return None
    return None


def _inspect_parts(path: Path, header_only: bool = False
                   ) -> tuple[Mapping[str, Any], Iterable[Any], Any]:
    """Return the header, the samples and the reductions (None when absent) of an inspect log.

    The samples of an ``.eval`` archive are read one at a time as they are iterated; each
    member is inflated up to the member limit, all of them up to the log limit (bytes
    produced, whatever the archive declares).
    """
    if zipfile.is_zipfile(path):
        with _archive_errors(path), contextlib.ExitStack() as stack:
            check_directory(path, path.name)  # before zipfile reads the directory whole
            z = stack.enter_context(zipfile.ZipFile(path))
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
            else:  # a run killed before its end: the journal's start record
                header = _journal_start(z, members, path.name, budget)
            if header_only:
                return header, [], None
            reductions = (_archive_json(z, members["reductions.json"], path.name, budget)
                          if "reductions.json" in members else None)
            stack.pop_all()  # the samples' reader closes the archive
        return header, _archive_samples(z, members, path, names, budget), reductions
    if path.suffix == ".eval":
        raise ValueError(f"{path.name}: not a zip archive, as .eval logs are (cut short?)")
    data = _json(read_file(path, path.name), path.name)
    if not isinstance(data, Mapping) or not isinstance(data.get("samples"), list):
        raise ValueError(f"{path.name}: no 'samples' list (an inspect log written without samples?)")
    return data, data["samples"], data.get("reductions")


def _journal_start(z: zipfile.ZipFile, members: Mapping[str, zipfile.ZipInfo],
                   name: str, budget: list[int]) -> Mapping[str, Any]:
    """Return the header of an unfinished run: ``_journal/start.json``, status ``started``.

    inspect writes ``header.json`` when a run ends (success, cancelled or error); a run killed
    before that (a started run) holds only the journal's start record, which names the task,
    the model and the dataset's samples, and the samples flushed so far.
    """
    info = members.get("_journal/start.json")
    if info is None:
        return {}
    start = _object(_archive_json(z, info, name, budget), f"{name}: _journal/start.json")
    return {**start, "status": "started"}


def _run_status(header: Mapping[str, Any], name: str) -> tuple[str, int]:
    """Return a log's status and the samples its run planned (samples × epochs; 0: unknown).

    >>> _run_status({"status": "cancelled", "eval": {"dataset": {"samples": 82},
    ...              "config": {"epochs": 1}}}, "a.eval")
    ('cancelled', 82)
    """
    status = header.get("status", "success")
    if status not in RUN_STATUSES:
        raise ValueError(f"{name}: the log's status is {_printable(str(status))[:40]!r}, not one "
                         f"of {', '.join(RUN_STATUSES)}")
    part = header.get("eval")
    dataset = part.get("dataset") if isinstance(part, Mapping) else None
    planned = 0
    if isinstance(dataset, Mapping):
        ids, n = dataset.get("sample_ids"), dataset.get("samples")
        planned = len(ids) if isinstance(ids, list) else n if isinstance(n, int) else 0
    return str(status), planned * _epochs(header)[0]


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
    return _inspect_read(path, header, samples, reductions, metric, cluster)


def _inspect_read(path: Path, header: Mapping[str, Any], samples: Iterable[Any], reductions: Any,
                  metric: str | None, cluster: str | None) -> _Log:
    """Read an inspect log's parts (from a file, or an ``EvalLog`` in memory) into a :class:`_Log`."""
    task = _task(header, printable_name(path.stem), path.name)
    metric = _split_metric(metric, task)
    if cluster is not None and not cluster.startswith("metadata."):
        raise ValueError(f"{path.name}: inspect samples carry their fields in 'metadata'; name "
                         f"the cluster 'metadata.<key>' (got {cluster!r})")
    rows, errored, unscored, scorers, seen = [], [], [], set(), set()
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
        value = _inspect_value(sample, metric, where)
        if _unscored(value):
            unscored.append(f"{item} epoch {epoch}: {_unscored(value)}")
            continue
        rows.append((item, value, task, epoch, _field(sample, cluster, where),
                     _content_hash(sample)))
    epochs, reducer = _epochs(header)
    samples_read = len(rows) + len(errored) + len(unscored)
    scorer = ", ".join(sorted(scorers))
    if epochs > 1 and reducer != "mean" and rows:
        rows = _reduced(rows, reductions, scorer, reducer, metric, path.name)
        said = f"{epochs} epochs reduced by {reducer} (the log's reductions)"
    else:
        said = f"{epochs} epochs, the mean of an item's answers" if epochs > 1 else "1 epoch"
    scoring = f"scorer {scorer} (C 1, P 0.5, I 0, N 0; true 1, false 0), {said}"
    status, planned = _run_status(header, path.name)
    model = header["eval"].get("model") if isinstance(header.get("eval"), Mapping) else None
    return _Log(path, task, str(header.get("eval", {}).get("created", "")), rows, scoring,
                errored, samples_read, unscored, status, planned,
                model if isinstance(model, str) and model else None)


def _unscored(value: Any) -> str:
    """Say why a score is no score (``"score NaN"``, ``"score null"``), or ``""`` for a score.

    A scorer that could not score a sample gives NaN (a float) or null; such a sample is
    skipped and named, as a sample that errored is, not read as a score.

    >>> _unscored(float("nan")), _unscored(None), _unscored(1.0), _unscored("C")
    ('score NaN', 'score null', '', '')
    """
    if value is None:
        return "score null"
    if isinstance(value, float) and value != value:
        return "score NaN"
    return ""


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
            if _unscored(value):
                continue
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
            raise ValueError(_two_logs(model, task, found[0], found[1]))
        dropped += [f"{model}: {log.path.name}" for log in found[:-1]]
        out.append(found[-1])
    return out


def _named_model(log: _Log) -> str | None:
    """Return the model a log names: read with it (inspect), else from the results beside it."""
    if log.model is not None or not isinstance(log.path, Path):
        return log.model
    try:
        return _model_of(log.path)
    except (ValueError, OSError):
        return None


def _two_logs(model: str, task: str, a: _Log, b: _Log) -> str:
    names = sorted({n for n in (_named_model(a), _named_model(b)) if n is not None})
    where, first, second = _label(model), a.path.name, b.path.name
    if len(names) > 1:
        return (f"{where}: logs of several models ({clip_for_message(', '.join(names))}) for task {clip_for_message(task)!r}, "
                f"{first} and {second}; name each model's logs, or read the folder with "
                "--eval-logs (logs_by_model) to take the models' names from the logs")
    # the same name: a re-run of one model, or two models under one name (inspect names a
    # model by its provider's name, "mockllm/model" for its mock model, whatever was run)
    shared = f"both name the model {clip_for_message(names[0])!r}" if names else "one model"
    return (f"{where}: two logs of task {clip_for_message(task)!r}, {first} and {second} ({shared}): if one model "
            "ran twice, keep one log or read the newest with latest=True (--latest); if they are "
            "two models, name each with --eval-log NAME=PATH ({NAME: log} in the mapping)")


def _label(model: str | None) -> str:
    """How messages name the logs given for a model: ``logs['a']``, or the logs not yet named."""
    return ("the eval logs" if model is None or model == "logs"
            else f"logs[{clip_for_message(model)!r}]")


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


@dataclass(frozen=True)
class _InMemory:
    """A log given in memory: its name in messages (as :attr:`Path.name` is a file's)."""

    name: str

    @property
    def stem(self) -> str:
        return self.name


def _is_eval_log(value: Any) -> bool:
    """Whether a value is inspect's ``EvalLog`` (read by duck type: inspect is not imported)."""
    return all(hasattr(value, a) for a in ("eval", "samples", "status", "model_dump")) \
        and not isinstance(value, Mapping | str | os.PathLike)


def _is_lm_eval_results(value: Any) -> bool:
    """Whether a value is a result of ``lm_eval.simple_evaluate`` (a dict with ``configs``)."""
    return isinstance(value, Mapping) and "configs" in value and "results" in value


def is_log_object(value: Any) -> bool:
    """Whether a value is a log in memory: inspect's ``EvalLog`` or an lm-eval result dict.

    >>> is_log_object({"results": {}, "configs": {}}), is_log_object({"item": [1]})
    (True, False)
    """
    return _is_eval_log(value) or _is_lm_eval_results(value) or (
        isinstance(value, list | tuple) and bool(value)
        and all(_is_eval_log(v) or _is_lm_eval_results(v) for v in value))


def _eval_log_read(model: str, log: Any, metric: str | None, cluster: str | None) -> _Log:
    """Read inspect's ``EvalLog`` object as its file would be read.

    Its parts are dumped as inspect writes them to JSON, so an item's content hash is the same
    whether the log comes from a file or from memory.
    """
    header = {"status": log.status, "eval": log.eval.model_dump(mode="json")}
    if log.samples is None:
        raise ValueError(f"{_label(model)}: the EvalLog holds no samples (read with "
                         "header_only=True?); read it with its samples")
    keep = {"id", "epoch", "input", "metadata", "scores", "error"}
    samples = [s.model_dump(mode="json", include=keep) for s in log.samples]
    reductions = [r.model_dump(mode="json") for r in log.reductions or []]
    task = header["eval"].get("task") or "task"
    name = _InMemory(f"the EvalLog of {task!r} for {model!r}")
    return _inspect_read(name, header, samples, reductions, metric, cluster)  # type: ignore[arg-type]


def _lm_eval_results_read(model: str, results: Mapping[str, Any], metric: str | None,
                          cluster: str | None) -> list[_Log]:
    """Read the per-sample records of an ``lm_eval.simple_evaluate`` result, one log per task.

    ``samples`` (task -> records, kept when the evaluation ran with ``log_samples=True``) holds
    the same records as the ``samples_<task>_*.jsonl`` files the harness writes.
    """
    samples = results.get("samples")
    if not isinstance(samples, Mapping) or not samples:
        raise ValueError(f"{_label(model)}: the lm-eval results hold no samples; run "
                         "simple_evaluate with log_samples=True")
    stamp = str(results.get("date", ""))
    out = []
    for task, records in samples.items():
        name = _InMemory(f"the lm-eval samples of {str(task)!r} for {model!r}")
        if not isinstance(records, list):
            raise ValueError(f"{name.name}: not a list of records (got {_kind(records)})")
        out.append(_lm_eval_read(name, str(task), stamp,  # type: ignore[arg-type]
                                 ((f"{name.name} record {i}", r) for i, r in enumerate(records)),
                                 metric, cluster))
    return out


def _given(model: str, given: Any) -> list[Any]:
    """List what was given for a model, one entry per log: paths, ``EvalLog``, lm-eval results."""
    if isinstance(given, list | tuple) and any(_is_eval_log(g) or _is_lm_eval_results(g)
                                               for g in given):
        return [entry for g in given for entry in _given(model, g)]
    if _is_eval_log(given) or _is_lm_eval_results(given):
        return [given]
    if isinstance(given, Mapping):
        raise ValueError(f"{_label(model)}: a mapping that is not an lm-eval result (no "
                         "'results' and 'configs'); give a path, an EvalLog or the result of "
                         "lm_eval.simple_evaluate")
    return list(_files(model, given))


def _read_given(model: str, entries: list[Any], metric: str | None, cluster: str | None,
                tick: Any = None) -> list[_Log]:
    """Read a model's logs (:func:`_given`'s entries), ticking the progress bar after each."""
    out: list[_Log] = []
    for entry in entries:
        if _is_eval_log(entry):
            out.append(_eval_log_read(model, entry, metric, cluster))
        elif _is_lm_eval_results(entry):
            out += _lm_eval_results_read(model, entry, metric, cluster)
        else:
            out.append(_read_log(entry, metric, cluster))
        if tick is not None:
            tick(1)
    return out


def _progress(total: int, show: bool) -> Any:
    """Return a progress bar over the logs on stderr (tqdm), or None when not shown."""
    if not show or total < 2:
        return None
    import sys

    from tqdm.auto import tqdm

    return tqdm(total=total, desc="eval logs", unit="log", file=sys.stderr, leave=False)


def _incomplete(model: str, read: list[_Log], incomplete: bool) -> None:
    """Refuse a run that did not finish (started, cancelled, error) unless ``incomplete``."""
    for log in read:
        if log.status != "success" and not incomplete:
            raise ValueError(f"{_label(model)}: {log.path.name} is an unfinished run, "
                             f"{_run_said(log)} (status {log.status}); compare it on the items "
                             "every model answered with --common-items (common_items=True), or "
                             "finish the run")


def _run_said(log: _Log) -> str:
    """Say how far a run got: ``"cancelled after 33 of 82 samples"``."""
    done = f"{log.samples:,} of {log.planned:,}" if log.planned else f"{log.samples:,}"
    how = {"cancelled": "cancelled after", "error": "stopped by an error after",
           "started": "started and never finished, after"}.get(log.status, "with")
    return f"{how} {done} samples"


def _read_model(model: str, entries: list[Any], metric: str | None, cluster: str | None,
                latest: bool, dropped: list[str], incomplete: bool = False, tick: Any = None
                ) -> tuple[pd.DataFrame, list[_Log]]:
    read = _read_given(model, entries, metric, cluster, tick)
    _incomplete(model, read, incomplete)
    read = _one_per_task(model, read, latest, dropped)
    rows = [row for log in read for row in log.rows]
    if not rows:
        said = "; ".join([f"{log.path.name}: {_run_said(log)}" for log in read
                          if log.status != "success"]
                         + [f"{log.path.name}: {len(log.unscored)} samples with no score "
                            f"({log.unscored[0]}, …)" for log in read if log.unscored])
        raise ValueError(f"{_label(model)}: the logs hold no scored samples"
                         + (f" ({said})" if said else ""))
    # Python objects, not pandas' text columns: a text column holds each row's bytes, an
    # object column a reference to the one string of a name (see _name)
    names = ["item", "score", "task", "epoch", "cluster", "hash"]
    frame = pd.DataFrame({name: pd.Series(values, dtype=object) if name != "epoch" else values
                          for name, values in zip(names, map(list, zip(*rows)))})
    try:
        frame["score"] = parse_scores(frame["score"], "score")
    except ValueError as exc:
        raise ValueError(f"{_label(model)}: {exc}") from None
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
               for log in logs if log.errored or log.unscored}
    unscored = {f"{model}: {log.task} ({log.path.name})": log.unscored
                for model, logs in read.items() for log in logs if log.unscored}
    # runs that did not finish, read because incomplete runs were asked for
    runs: dict[str, dict[str, str]] = {}
    for model, logs in read.items():
        for log in logs:
            if log.status != "success":
                runs.setdefault(model, {})[log.task] = _run_said(log)
    return {"scoring": {task: next(iter(s.values())) for task, s in scoring.items()},
            "errored": errored, "samples": samples, "left_out": dropped,
            "unscored": unscored, "runs": runs}


def read_eval_logs(logs: Mapping[str, Any], *, metric: str | None = None,
                   cluster: str | None = None, latest: bool = False,
                   incomplete: bool = False, progress: bool = False) -> pd.DataFrame:
    r"""Read lm-evaluation-harness and inspect_ai per-sample logs into one item table.

    Parameters
    ----------
    logs : mapping of str to path, EvalLog or lm-eval result
        Model name -> a file (``samples_<task>_*.jsonl``, an inspect ``.json`` or ``.eval``
        log), a folder holding such files (an ``eval-set`` folder too), or a glob (only a name
        that does not exist and holds ``*`` or ``?`` is a pattern); or, in memory, inspect's
        ``EvalLog`` (as ``inspect_ai.eval`` or ``read_eval_log`` return it) or the dict
        ``lm_eval.simple_evaluate(..., log_samples=True)`` returns; or a list of these.
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
    incomplete : bool
        A run that did not finish (inspect's status ``started``: killed, only
        ``_journal/start.json`` written; ``cancelled``; ``error``) is refused naming its status
        and samples; with True it is read, and ``attrs["eval_logs"]["runs"]`` says how far each
        such run got (compare such runs with ``common_items=True``).
    progress : bool
        A progress bar over the logs on stderr while they are read (the command shows it when
        stderr is a terminal and ``--quiet`` is not given).

    Returns
    -------
    DataFrame
        Columns ``item`` (str), ``model``, ``score`` (float: C 1, I 0, P 0.5, N 0, true 1,
        false 0), ``task``, ``epoch`` (1 for lm-evaluation-harness, and for inspect logs whose
        epochs were combined by a reducer other than the mean), and ``cluster`` when asked.
        ``attrs["eval_logs"]`` says how each task was scored (``scoring``), which samples
        failed and were skipped (``errored``, by id and epoch, with ``samples``: how many
        samples each such log held), which had no score (``unscored``: a NaN or null score,
        by log and sample), which runs did not finish (``runs``) and which logs were left out
        (``left_out``).

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
    given = {_name(str(model), "logs: the model"): _given(_name(str(model), "logs: the model"), path)
             for model, path in logs.items()}
    bar = _progress(sum(len(e) for e in given.values()), progress)
    try:
        with limits_held():  # each limit read once, not once a sample
            for model, entries in given.items():
                frame, read[model] = _read_model(model, entries, metric, cluster, latest,
                                                 dropped, incomplete,
                                                 None if bar is None else bar.update)
                parts.append(frame)
    finally:
        if bar is not None:
            bar.close()
    out = pd.concat(parts, ignore_index=True)
    _check_hashes(out)
    out = out[[*COLUMNS, "cluster"] if cluster is not None else COLUMNS]
    out.attrs["eval_logs"] = _settings(read, dropped)
    # how the engine's messages name this table: the logs, not "DataFrame"
    out.attrs["source"] = "the eval logs"
    return out
