"""Files the engines read: paths and patterns, CSV headers, Parquet schemas and drift."""

from __future__ import annotations

import contextlib
import csv
import glob
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:  # optional at run time: imported where the engine runs
    import duckdb
    from pyspark.sql import DataFrame as SparkDataFrame

from .._lib.bounded import stream_size
from .._lib.limits import LIMITS, check_limit, check_regular, limit
from .._lib.text import printable_name
from .base import CSV_SUFFIXES, PARQUET_SUFFIXES, PredictionFileError, _shown
from .sql import renamed_sql


def resolve_path(path: str | os.PathLike) -> tuple[list[str], bool]:
    """Return the files a path argument names, and whether it was read as a pattern.

    A name that exists is that file, whatever characters it holds (``run[1].parquet`` is the
    file of that name). Only a name that does not exist and holds ``*`` or ``?`` is a pattern;
    in it ``*`` and ``?`` are the only wildcards (brackets are themselves).

    Parameters
    ----------
    path : str or PathLike
        The argument as given.

    Returns
    -------
    files : list of str
        The file (one) or the files the pattern matches, sorted (possibly none).
    pattern : bool
        True when the argument was expanded as a pattern.

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> for name in ["run[1].parquet", "run1.parquet", "run2.parquet"]:
    ...     _ = (d / name).write_bytes(b"PAR1")
    >>> [Path(f).name for f in resolve_path(d / "run[1].parquet")[0]]
    ['run[1].parquet']
    >>> [Path(f).name for f in resolve_path(d / "run?.parquet")[0]]
    ['run1.parquet', 'run2.parquet']
    """
    text = os.fspath(path)
    if os.path.lexists(text) or not any(ch in text for ch in "*?"):
        return [text], False
    return sorted(glob.glob(text.replace("[", "[[]"))), True


def describe_path(path: str | os.PathLike) -> tuple[str, list[str], str, str | None]:
    r"""Check a path argument and say how to read it.

    Parameters
    ----------
    path : str or PathLike
        A CSV or Parquet file, or a pattern of Parquet files (see :func:`resolve_path`).

    Returns
    -------
    kind : {"csv", "parquet"}
    files : list of str
    name : str
        How messages name the source (the file name, or the pattern).
    note : str or None
        For a pattern, which files it matched.

    Raises
    ------
    PredictionFileError
        For a missing, empty, unreadable or unknown file, or a pattern matching nothing.

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "preds.csv").write_text("y,m\n1,1\n")
    >>> kind, files, name, note = describe_path(d / "preds.csv")
    >>> kind, name, note
    ('csv', 'preds.csv', None)
    """
    files, pattern = resolve_path(path)
    if pattern:
        text = printable_name(os.fspath(path))
        if not files:
            raise PredictionFileError(f"{text}: no file matches this pattern")
        if not all(f.lower().endswith(PARQUET_SUFFIXES) for f in files):
            raise PredictionFileError(f"{text}: a pattern must match Parquet files only")
        shown = ", ".join(Path(f).name for f in files[:20]) + (" ..." if len(files) > 20 else "")
        for f in files:
            _check_file(Path(f), Path(f).name, "parquet")
        return "parquet", files, text, f"the pattern matched {len(files)} file(s): {shown}"
    p = Path(files[0])
    name = printable_name(p.name)
    if not p.exists():
        raise PredictionFileError(f"{name}: no such file")
    if p.is_dir():
        raise PredictionFileError(f"{name}: is a directory, not a predictions file")
    low = name.lower()
    if low.endswith(PARQUET_SUFFIXES):
        kind = "parquet"
    elif low.endswith(CSV_SUFFIXES):
        kind = "csv"
    else:
        raise PredictionFileError(f"{name}: unknown file type {p.suffix!r}; expected .csv or .parquet")
    _check_file(p, name, kind)
    return kind, [str(p)], name, None


def _check_file(p: Path, name: str, kind: str) -> None:
    """Refuse a FIFO or device, an unreadable or empty file, a Parquet file without its header.

    The kind of file is looked up (``stat``, through any link) before it is opened: a FIFO
    would block the open, a device such as ``/dev/zero`` would never end.
    """
    check_regular(p, name, PredictionFileError)
    try:
        with open(p, "rb") as fh:
            head = fh.read(4)
    except PermissionError:
        raise PredictionFileError(f"{name}: permission denied (the file cannot be read)") from None
    except OSError as exc:
        raise PredictionFileError(f"{name}: cannot be opened ({exc.strerror})") from None
    if not head:
        raise PredictionFileError(f"{name}: the file is empty")
    if kind == "parquet" and head != b"PAR1":
        raise PredictionFileError(f"{name}: cannot be read as PARQUET (no Parquet header)")
    if kind == "csv":
        _check_csv_bytes(p, name)


def _check_csv_bytes(p: Path, name: str) -> None:
    r"""Refuse a compressed CSV that inflates past its limit, and a last line past the line limit.

    A ``.gz`` file is inflated as a stream and counted before any engine reads it (nothing is
    kept; a GiB takes a few seconds): DuckDB and Spark inflate it themselves and would read a
    bomb to its end, pandas into memory. DuckDB (1.5) drops a last line longer than its
    buffer without a word, counting 40 of 41 rows; the last line is measured here (the file's
    tail, or the stream's) and refused on every engine when it is longer than the line limit.

    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "p.csv").write_bytes(b"y,m\n1,1\n1," + b"x" * 50)
    >>> os.environ["PRECMP_MAX_LINE"] = "40"
    >>> _check_csv_bytes(d / "p.csv", "p.csv")
    Traceback (most recent call last):
    ...
    precmp_lib.engine.base.PredictionFileError: p.csv: the last line holds more than 40 bytes, the limit of bytes in a line (raise it with --limit line=N or PRECMP_MAX_LINE=N)
    >>> del os.environ["PRECMP_MAX_LINE"]
    """
    most = limit("line")
    if p.name.lower().endswith(".gz"):
        import zlib

        try:
            last = stream_size(str(p), name, PredictionFileError)[1]
        except (OSError, EOFError, zlib.error) as exc:  # a damaged .gz
            raise PredictionFileError(f"{name}: cannot be read as CSV ({exc})") from None
    else:
        with open(p, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - most - 3))
            body = fh.read(most + 3)
        body = body[:-1] if body.endswith(b"\n") else body  # the last line's own ending
        body = body[:-1] if body.endswith(b"\r") else body
        cut = max(body.rfind(b"\n"), body.rfind(b"\r"))
        last = len(body) - cut - 1 if cut >= 0 else len(body)
    if last > most:
        _csv_header(str(p), name)  # when the long line is the header, say so
        entry = LIMITS["line"]
        raise PredictionFileError(f"{name}: the last line holds more than {most:,} bytes, the "
                                  f"limit of {entry.counts} (raise it with --limit line=N or "
                                  f"{entry.variable}=N)")


def _suffix(path: str) -> str:
    """Return the file-type suffix of a path (``.csv.gz``, ``.parquet``, ...), as readers see it."""
    low = path.lower()
    return next(s for s in (*CSV_SUFFIXES, *PARQUET_SUFFIXES)[::-1] if low.endswith(s))


def _delimiter(path: str) -> str:
    """Tab for ``.tsv`` and ``.tsv.gz`` files, else a comma."""
    return "\t" if _suffix(path).startswith(".tsv") else ","


@contextlib.contextmanager
def literal_files(files: list[str], name: str, own_paths: bool = False) -> Iterator[list[str]]:
    """Give DuckDB and Spark plain names for the files: links ``f0.csv``, ... in a private folder.

    Both readers expand glob characters in a path they are given (``run[1].parquet`` would read
    ``run1.parquet``; Hadoop also expands braces and stops at a ``:``), so they get links whose
    names hold no such character; the folder goes when the count is done. Where links cannot be
    made, the paths themselves are used when they hold none of those characters. With
    ``own_paths`` (a Spark Connect server, which may run elsewhere and not see this machine's
    private folder) the files' own absolute paths are given whenever they hold none of those
    characters; links only for the others.

    Parameters
    ----------
    files : list of str
    name : str
        The source's name, for messages.
    own_paths : bool
        Keep the files' own absolute paths where they hold no pattern character (a Spark
        Connect server, see :func:`~precmp_lib.engine.spark_engine.is_spark_connect`).

    Yields
    ------
    list of str
        Paths or links whose names hold no character a file reader takes as a pattern.

    Raises
    ------
    PredictionFileError
        When a path holds such a character and no link to it can be made.
    """
    if own_paths:
        paths = [os.path.abspath(f) for f in files]
        if not any(ch in p for p in paths for ch in "*?[]{}\\:"):
            yield paths
            return
    folder = tempfile.mkdtemp(prefix="precmp-files-")
    try:
        try:
            links = []
            for i, f in enumerate(files):
                link = os.path.join(folder, f"f{i}{_suffix(f)}")
                os.symlink(os.path.abspath(f), link)
                links.append(link)
        except OSError:
            links = [os.path.abspath(f) for f in files]
        if any(ch in link for link in links for ch in "*?[]{}\\:"):
            raise PredictionFileError(f"{name}: the path holds characters the file readers take as "
                                      "a pattern (*?[]{}\\:) and no plain link to it can be made; "
                                      "rename the file or count it with --engine numpy")
        yield links
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _unreadable(name: str, kind: str, exc: Exception) -> PredictionFileError:
    r"""Return the one-line error for a file the pandas readers could not parse.

    >>> str(_unreadable("a.csv", "csv", UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad")))
    'a.csv: cannot be read as CSV (it holds text that is not UTF-8); save the file as UTF-8'
    """
    if isinstance(exc, UnicodeDecodeError) or "utf8" in str(exc).lower().replace("-", ""):
        # past the first MiB that the header check reads, or in a Parquet text column
        return PredictionFileError(f"{name}: cannot be read as {kind.upper()} (it holds text "
                                   "that is not UTF-8); save the file as UTF-8")
    return PredictionFileError(f"{name}: cannot be read as {kind.upper()} "
                               f"({type(exc).__name__})")


def _csv_header(path: str, name: str) -> list[str]:
    """Return the header's names, reading no more of the file than the line-length limit."""
    import codecs
    import gzip
    import io
    import zlib

    opener = gzip.open if path.lower().endswith(".gz") else open
    most = limit("line")
    try:
        with opener(path, "rb") as fh:
            head = fh.read(most + 1)
    except (OSError, EOFError, zlib.error) as exc:  # a damaged .gz
        raise PredictionFileError(f"{name}: cannot be read as CSV ({exc})") from None
    try:  # utf-8-sig: a spreadsheet's byte-order mark is not part of the first name
        text = codecs.getincrementaldecoder("utf-8-sig")().decode(head, final=len(head) <= most)
        lines = io.StringIO(text, newline="")
        header = next(csv.reader(lines, delimiter=_delimiter(path)), None)
    except UnicodeDecodeError:
        raise PredictionFileError(f"{name}: cannot be read as CSV (not UTF-8 text)") from None
    except csv.Error as exc:
        raise PredictionFileError(f"{name}: cannot be read as CSV ({exc})") from None
    if len(head) > most and lines.tell() >= len(text):  # the header did not end in the bytes read
        check_limit("line", len(head), f"{name}: the header line", PredictionFileError)
    if not header or all(not h.strip() for h in header):
        raise PredictionFileError(f"{name}: the file has no header line")
    return [h.strip() for h in header]


def malformed_line(path: str, name: str, width: int) -> PredictionFileError | None:
    r"""Find the first CSV row with more or fewer fields than the header's ``width``; say which.

    Called when a reader has refused a row without naming it (pandas' tokenizer, Spark's
    ``MALFORMED_CSV_RECORD``), so that every engine names the same line the same way. The
    file is read as a stream, one row at a time.

    Parameters
    ----------
    path : str
    name : str
        The source's name, for messages.
    width : int
        The header's number of columns.

    Returns
    -------
    PredictionFileError or None
        The one line naming the row's line and its number of fields, or None when every row
        fits (or the file cannot be read as CSV text).

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "p.csv").write_text("y,m\n1,1\n2,2,2\n")
    >>> print(malformed_line(str(d / "p.csv"), "p.csv", 2))
    p.csv: line 3 has 3 fields where the header has 2; every row needs one field per column
    """
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, delimiter=_delimiter(path))
            start = 1
            for i, row in enumerate(reader):
                if i and row and len(row) != width:
                    return _field_count_error(name, start, len(row), width)
                start = reader.line_num + 1
    except (OSError, EOFError, UnicodeDecodeError, csv.Error):
        return None
    return None


def _read_csv_text(path: str, name: str, header: Sequence[str], wanted: Sequence[str]) -> pd.DataFrame:
    """Read the ``wanted`` columns of a CSV file as text (empty cells missing) into memory.

    Columns are taken by position under ``header``, the names as every engine sees them (no
    byte-order mark, stripped). A row with more or fewer fields than the header is refused
    naming its line, as DuckDB and Spark refuse it: pandas would drop a field too many with a
    warning, or fill a short row with missing cells. Only when the last column has a missing
    cell is the file read again, as a stream, to tell a short row from an empty last field.
    """
    width = len(header)
    try:
        frame = pd.read_csv(path, header=0, names=[f"c{i}" for i in range(width)], index_col=False,
                            dtype=str, keep_default_na=False, na_values=[""], sep=_delimiter(path))
    except Exception as exc:  # any parser failure is a file problem for the user
        raise malformed_line(path, name, width) or _unreadable(name, "csv", exc) from None
    if width and frame.iloc[:, -1].isna().any():
        short = malformed_line(path, name, width)
        if short is not None:
            raise short
    position = {c: i for i, c in enumerate(header)}
    return frame[[f"c{position[c]}" for c in wanted]].set_axis(list(wanted), axis=1)


def _field_count_error(name: str, line: int, found: int, width: int) -> PredictionFileError:
    """Return the one line for a CSV row with ``found`` fields under a header of ``width``."""
    return PredictionFileError(f"{name}: line {line} has {found} field{'s' * (found != 1)} where "
                               f"the header has {width}; every row needs one field per column")


def _line_end(path: str) -> str:
    """Return the header's line ending (outside quotes), as DuckDB's ``new_line`` spells it.

    DuckDB is told it: with CRLF endings and a quoted newline in the header it would otherwise
    take the header's end for the end of the file.
    """
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rb") as fh:
        head = fh.read(1 << 20)
    quoted = False
    for i, byte in enumerate(head):
        if byte == ord('"'):
            quoted = not quoted
        elif not quoted and byte == ord("\r"):
            return "\\r\\n" if head[i + 1:i + 2] == b"\n" else "\\r"
        elif not quoted and byte == ord("\n"):
            break
    return "\\n"


def _parquet_columns(files: list[str], name: str, optional: Callable[[str], bool] | None = None,
                     drop: bool = False) -> tuple[list[str], list[str]]:
    """Return the column names of a Parquet file, or of a set of files that must agree.

    The files of a glob are read by column name, so they must hold the same columns with the
    same types: a column missing from some files (a model, an extra column) or typed
    differently (text in one file, numbers in another) is an error naming the column and files.
    A column for which ``optional`` is true (a model column) may be missing from some files
    when ``drop`` is set; without it, the error says how to compare the other models.

    Returns the columns every file holds, in the first file's order, and the optional columns
    left out because some files lack them.
    """
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise PredictionFileError(f"{name}: reading Parquet needs pyarrow: pip install pyarrow") from None

    schemas = []
    for f in files:
        try:
            schemas.append(pq.read_schema(f))
        except Exception as exc:  # any parser failure is a file problem for the user
            shown = os.path.basename(f) if len(files) > 1 else name
            raise PredictionFileError(f"{shown}: cannot be read as PARQUET ({type(exc).__name__})") from None
    for f, sch in zip(files, schemas):
        _check_case_twins(list(sch.names), os.path.basename(f) if len(files) > 1 else name)
    first = list(schemas[0].names)
    if len(files) > 1:
        partial = _check_drift(files, schemas, name, optional, drop)
        return [c for c in first if c not in partial], partial
    return first, []


def _check_case_twins(names: list[str], name: str) -> None:
    """Refuse columns whose names differ only in case (``A`` and ``a``), naming both.

    Spark compares names without case and refuses the pair, DuckDB renames the second
    (``a_1``), pandas reads both: the engines would disagree on which column a name reads.
    """
    seen: dict[str, str] = {}
    for col in names:
        other = seen.setdefault(col.casefold(), col)
        if other != col:
            raise PredictionFileError(
                f"{name}: columns {other!r} and {col!r} differ only in case; "
                "the engines cannot tell them apart (rename one)")


def _type_kind(t: Any) -> str:
    """Text, number or bool for an Arrow type (widths and dictionary encoding aside)."""
    import pyarrow as pa

    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) \
            or pa.types.is_large_binary(t) or str(t) == "string_view":
        return "text"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "number"
    return "bool" if pa.types.is_boolean(t) else str(t)


def _check_drift(files: list[str], schemas: list[Any], name: str,
                 optional: Callable[[str], bool] | None = None, drop: bool = False) -> list[str]:
    """Fail when the files of a glob disagree on a column's presence or type.

    Return the columns missing from some files for which ``optional`` is true, when ``drop`` is
    set (else an empty list).
    """
    names = [os.path.basename(f) for f in files]

    def listed(idx: list[int]) -> str:
        shown = [names[i] for i in idx[:3]]
        return ", ".join(shown) + (f" and {len(idx) - 3} more" if len(idx) > 3 else "")

    every = list(dict.fromkeys(c for sch in schemas for c in sch.names))
    partial = []
    for col in every:
        has = [i for i, sch in enumerate(schemas) if col in sch.names]
        if len(has) < len(schemas):
            lack = [i for i in range(len(schemas)) if i not in has]
            model = optional is not None and optional(col)
            if model and drop:
                partial.append(col)
                continue
            raise PredictionFileError(
                f"{name}: column {col!r} is in {listed(has)} but not in {listed(lack)}; the files "
                "of a pattern must hold the same columns"
                + (" (--common-models, or common_models=True, compares the models every file "
                   "holds)" if model else ""))
        types = [schemas[i].field(col).type for i in has]
        kinds = [_type_kind(t) for t in types]
        if len(set(kinds)) > 1:
            other = next(i for i, k in enumerate(kinds) if k != kinds[0])
            raise PredictionFileError(
                f"{name}: column {col!r} holds {kinds[0]} ({types[0]}) in {names[has[0]]} but "
                f"{kinds[other]} ({types[other]}) in {names[has[other]]}; the files of a pattern "
                "must type each column alike")
    return partial


def file_columns(kind: str, files: list[str], name: str,
                 optional: Callable[[str], bool] | None = None,
                 drop: bool = False) -> tuple[list[str], list[str]]:
    r"""Return the column names of a CSV header or of Parquet schemas, in file order.

    The files of a Parquet pattern must agree on their columns and types (a column that some
    files lack is an error naming it and the files); a column for which ``optional`` is true
    is left out instead when ``drop`` is set.

    Parameters
    ----------
    kind : {"csv", "parquet"}
    files : list of str
    name : str
        The source's name, for messages.
    optional : callable, optional
        Tells which columns may be missing from some files of a pattern (a model column).
    drop : bool
        Leave such columns out rather than refuse them.

    Returns
    -------
    columns : list of str
        The columns every file holds.
    left_out : list of str
        The optional columns left out.

    Raises
    ------
    PredictionFileError
        For a header or schema that cannot be read, or files that disagree.

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "p.csv").write_text("y, m\n1,1\n")
    >>> file_columns("csv", [str(d / "p.csv")], "p.csv")
    (['y', 'm'], [])
    """
    if kind == "csv":
        return _csv_header(files[0], name), []
    return _parquet_columns(files, name, optional, drop)


def read_columns(kind: str, files: list[str], columns: list[str], name: str,
                 header: list[str]) -> pd.DataFrame:
    r"""Read some columns of the files into memory (CSV cells as text, empty cells missing).

    Parameters
    ----------
    kind : {"csv", "parquet"}
    files : list of str
    columns : list of str
        The columns to read.
    name : str
        The source's name, for messages.
    header : list of str
        Every column of the files, in order (:func:`file_columns`): a CSV row with more or
        fewer fields is refused naming its line, as DuckDB and Spark refuse it.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    PredictionFileError
        When the files cannot be parsed.

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "p.csv").write_text("y,m,n\n1,,3\n")
    >>> read_columns("csv", [str(d / "p.csv")], ["n", "m"], "p.csv", ["y", "m", "n"]).to_dict("list")
    {'n': ['3'], 'm': [nan]}
    """
    if kind == "csv":
        return _read_csv_text(files[0], name, header, columns)
    try:
        return pd.concat([pd.read_parquet(f, columns=columns) for f in files], ignore_index=True)
    except Exception as exc:  # any parser failure is a file problem for the user
        raise _unreadable(name, kind, exc) from None


def _by_position(frame: Any, keep: Sequence[str], rename: Callable[[Any, list[str]], Any],
                 select: Callable[[Any, list[str]], Any]) -> Any:
    """Keep the columns ``keep`` of a DuckDB relation or Spark DataFrame, in that order.

    The columns are found by exact name in the frame's own list and taken by position (renamed
    ``c0``, ``c1``, ... first), so no column name reaches a query or a name parser: a glob read
    by name may list its columns in another order than its first file, or hold more.
    """
    have = [str(c) for c in frame.columns]
    if have == list(keep):
        return frame
    position: dict[str, int] = {}
    for i, c in enumerate(have):
        position.setdefault(c, i)
    missing = [c for c in keep if c not in position]
    if missing:
        raise PredictionFileError(f"column {missing[0]!r} is not among the columns read: "
                                  f"{_shown(have)}")
    return select(rename(frame, [f"c{i}" for i in range(len(have))]),
                  [f"c{position[c]}" for c in keep])


def _duckdb_keep(rel: duckdb.DuckDBPyRelation, keep: Sequence[str]) -> duckdb.DuckDBPyRelation:
    def rename(r: Any, names: list[str]) -> Any:
        return r.query("drifted", renamed_sql(len(names), "drifted"))

    return _by_position(rel, keep, rename, lambda r, cols: r.project(", ".join(cols)))


def _spark_keep(df: SparkDataFrame, keep: Sequence[str]) -> SparkDataFrame:
    return _by_position(df, keep, lambda d, names: d.toDF(*names), lambda d, cols: d.select(*cols))


