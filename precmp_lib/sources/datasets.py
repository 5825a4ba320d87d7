r"""Datasets and the files the package ships: the registry, scikit-learn's bundled sets, the UCI sets.

``load_dataset(name)`` returns a :class:`Dataset` with features ``X`` (DataFrame), labels ``y``
(Series named ``"class"``) and ``split`` (a Series of ``"train"``/``"test"`` where the source is
pre-partitioned, else None).

The files the package reads at run time (the dataset registry ``datasets.csv``, the paper's
printed tables, the shipped predictions and the example prediction files) live in
``precmp_lib/_resources/`` and are found with :mod:`importlib.resources`, so an installed wheel
works from any folder: :func:`resource_path` and :func:`resource_text` give them by name.

The six UCI datasets of Gondara's paper come from one of two places:

- ``PRECMP_DATA_MIRROR=DIR``: a local directory laid out like the offline UCI mirror (one folder
  per dataset holding the original files: ``wilt/training.csv``, ``magic_gamma_telescope/
  magic04.data``, ...). A relative path is resolved against the working directory when loading.
- the download cache, filled by ``make data`` (:mod:`precmp_lib.course.download`) from the UCI
  repository or the base URL in ``PRECMP_DATA_URL``: the folder named by ``PRECMP_DATA``,
  else the platform's cache folder (``$XDG_CACHE_HOME/precmp`` or ``~/.cache/precmp`` on Linux,
  ``~/Library/Caches/precmp`` on macOS, ``%LOCALAPPDATA%\precmp\Cache`` on Windows); see
  :func:`default_cache_dir`. Nothing is ever written inside the installed package.

Every file is checked twice: by content (rows, feature columns, class counts, no missing values),
which says what differs when a copy is damaged, and by its sha256 digest as recorded in the
registry, which catches an edit that keeps the content plausible (one changed digit)
(:func:`check_uci_files`); the downloader runs the same checks before a file enters the cache.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib.resources
import io
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "ChecksumMismatch",
    "Dataset",
    "DatasetUnavailable",
    "available_datasets",
    "cache_folder",
    "check_uci_files",
    "default_cache_dir",
    "describe_datasets",
    "example_predictions",
    "list_datasets",
    "load_dataset",
    "resource_path",
    "resource_text",
    "uci_files",
]

#: Folder of the package's run-time files, inside the package (read-only once installed).
RESOURCES = "_resources"

MIRROR_ENV = "PRECMP_DATA_MIRROR"
CACHE_ENV = "PRECMP_DATA"


class DatasetUnavailable(FileNotFoundError):
    """A UCI dataset is neither in the mirror nor in the cache; the message says how to get it.

    Examples
    --------
    Fall back to a data set that ships with scikit-learn when the UCI files are not at hand
    (``make data`` fetches them; an offline mirror stands in through ``PRECMP_DATA_MIRROR``):

    >>> from precmp_lib import load_dataset
    >>> try:
    ...     data = load_dataset("wilt")
    ... except DatasetUnavailable:
    ...     data = load_dataset("breast_cancer")
    >>> data.y.nunique()
    2
    """


class ChecksumMismatch(ValueError):
    """A data file's sha256 digest differs from the registry's; the message names both digests."""


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset.

    Attributes
    ----------
    name : str
        Registry name.
    X : DataFrame
        Numeric features, one row per observation, with the source's column names.
    y : Series
        Class labels named ``"class"`` (ints or clean strings, as in the source), aligned with ``X``.
    split : Series or None
        ``"train"``/``"test"`` per row where the source comes pre-partitioned (train rows first),
        else None.

    Examples
    --------
    >>> from precmp_lib import load_dataset
    >>> iris = load_dataset("iris")
    >>> iris.X.shape, iris.y.name, iris.split is None
    ((150, 4), 'class', True)
    """

    name: str
    X: pd.DataFrame
    y: pd.Series
    split: pd.Series | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """Rows and feature columns of ``X``."""
        return self.X.shape

    def __repr__(self) -> str:
        counts = ", ".join(f"{k}: {v}" for k, v in self.y.value_counts().sort_index().items())
        split = "" if self.split is None else ", pre-split"
        return f"Dataset({self.name!r}, {self.X.shape[0]} rows x {self.X.shape[1]} features, classes {{{counts}}}{split})"


def _copied(ds: Dataset) -> Dataset:
    split = None if ds.split is None else ds.split.copy()
    return Dataset(name=ds.name, X=ds.X.copy(), y=ds.y.copy(), split=split)


# --------------------------------------------------------------------------------------------
# files shipped inside the package
# --------------------------------------------------------------------------------------------

# Paths handed out by resource_path stay valid for the life of the process: where the package
# is not a plain folder (a zip import), as_file extracts a copy that this stack removes at exit.
_EXTRACTED = contextlib.ExitStack()
atexit.register(_EXTRACTED.close)


def _resource(name: str) -> importlib.resources.abc.Traversable:
    parts = str(name).replace("\\", "/").split("/") if isinstance(name, str) else None
    if not parts or any(p in ("", ".", "..") or ":" in p for p in parts):
        raise ValueError(
            "name must be a file name relative to the package's resources, such as "
            f"'datasets.csv' or 'examples/digits_wide.csv'; got {name!r}"
        )
    ref = importlib.resources.files("precmp_lib").joinpath(RESOURCES, *parts)
    if not ref.is_file():
        raise FileNotFoundError(f"precmp_lib ships no resource {name!r} (in {RESOURCES}/)")
    return ref


def resource_path(name: str) -> Path:
    """Return the path of a file the package ships, by its name inside ``precmp_lib/_resources``.

    Parameters
    ----------
    name : str
        The file's path relative to the resources folder, with ``/`` between folders:
        ``"datasets.csv"``, ``"paper_tables.csv"``, ``"deep_digits_predictions.csv"``,
        ``"examples.csv"``, ``"examples/digits_wide.csv"``, ...

    Returns
    -------
    Path
        A file on disk, valid until the process ends (for an installed package this is the file
        itself; where the package is imported from a zip archive, a temporary copy).

    Raises
    ------
    ValueError
        ``name`` is not a plain relative path (empty, absolute, or with ``..``).
    FileNotFoundError
        No such resource; the message names it.

    Examples
    --------
    >>> resource_path("examples/digits_wide.csv").name
    'digits_wide.csv'

    The path works from any working directory, so a script can hand it to pandas or to the
    ``precmp report`` command.
    """
    _resource(name)  # checks the name and that the file exists
    return _extracted(name)


@cache
def _extracted(name: str) -> Path:
    return Path(_EXTRACTED.enter_context(importlib.resources.as_file(_resource(name))))


def resource_text(name: str) -> str:
    """Return the text (UTF-8) of a file the package ships.

    Parameters
    ----------
    name : str
        The file's path relative to the resources folder, as for :func:`resource_path`.

    Returns
    -------
    str
        The whole file, decoded as UTF-8.

    Raises
    ------
    ValueError
        ``name`` is not a plain relative path (empty, absolute, or with ``..``).
    FileNotFoundError
        No such resource; the message names it.

    Examples
    --------
    >>> resource_text("datasets.csv").splitlines()[0].split(",")[:3]
    ['name', 'loader', 'title']
    """
    return _resource(name).read_text(encoding="utf-8")


def example_predictions() -> pd.DataFrame:
    """List the example prediction files the package ships, with the options to report on each.

    Returns
    -------
    DataFrame
        One row per example: ``name``, ``predictions`` (absolute path of the shipped file),
        ``y_true``, ``models``, ``id``, ``format``, ``reference``, ``prevalence`` (the
        ``precmp report`` options, empty where the default applies) and ``description``.

    Examples
    --------
    >>> ex = example_predictions().set_index("name")
    >>> ex.loc["digits_wide", ["y_true", "format"]].tolist()
    ['digit', 'wide']

    ``precmp report <predictions> --y-true digit --id id`` renders the first one.
    """
    table = pd.read_csv(io.StringIO(resource_text("examples.csv")), keep_default_na=False)
    table["predictions"] = [str(resource_path(p)) for p in table["predictions"]]
    return table


# --------------------------------------------------------------------------------------------
# the download cache: a user folder, never the package
# --------------------------------------------------------------------------------------------


def _platform_cache_root() -> Path:
    home = Path.home()
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA", "").strip()
        return (Path(local) if local else home / "AppData" / "Local") / "precmp" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "precmp"
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    # The XDG base-directory rules ignore a relative XDG_CACHE_HOME.
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".cache"
    return base / "precmp"


def default_cache_dir() -> Path:
    r"""Return the folder ``make data`` downloads the UCI datasets into.

    Returns
    -------
    Path
        An absolute path: ``PRECMP_DATA`` when set (a relative path is taken from the working
        directory), else the platform's cache folder: ``$XDG_CACHE_HOME/precmp`` (default
        ``~/.cache/precmp``) on Linux, ``~/Library/Caches/precmp`` on macOS,
        ``%LOCALAPPDATA%\precmp\Cache`` on Windows. Each dataset gets a sub-folder; the folder
        is created by the first download, not here.

    Examples
    --------
    >>> import os
    >>> os.environ["PRECMP_DATA"] = "/srv/precmp-data"
    >>> default_cache_dir().as_posix()
    '/srv/precmp-data'
    >>> del os.environ["PRECMP_DATA"]
    """
    value = os.environ.get(CACHE_ENV, "").strip()
    if value:
        return Path(value).expanduser().absolute()
    return _platform_cache_root()


def cache_folder(cache_dir: str | os.PathLike | None = None) -> Path:
    """Return the download cache to use: ``cache_dir``, else :func:`default_cache_dir`.

    The installed package may be read-only, and must stay as it was installed, so a folder
    inside it is refused.

    Parameters
    ----------
    cache_dir : path, optional
        A folder chosen by the caller (``~`` is expanded, a relative path is taken from the
        working directory).

    Returns
    -------
    Path
        An absolute path; each UCI dataset has its files in a sub-folder named after it.

    Raises
    ------
    ValueError
        The folder lies inside the installed package.

    Examples
    --------
    >>> cache_folder("/srv/precmp-data").as_posix()
    '/srv/precmp-data'
    """
    root = Path(cache_dir).expanduser().absolute() if cache_dir else default_cache_dir()
    package = Path(__file__).resolve().parent.parent
    resolved = root.resolve()
    if resolved == package or package in resolved.parents:
        raise ValueError(
            f"cache_dir must lie outside the installed package ({package}); got {root}. "
            f"Set {CACHE_ENV} or pass another folder."
        )
    return root


# --------------------------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------------------------


@cache
def _registry() -> pd.DataFrame:
    reg = pd.read_csv(io.StringIO(resource_text("datasets.csv")), dtype=str, keep_default_na=False)
    for col in ("rows", "columns", "classes", "paper_rows", "paper_attributes"):
        reg[col] = pd.to_numeric(reg[col].replace("", None)).astype("Int64")
    return reg


def list_datasets() -> pd.DataFrame:
    """Return the dataset registry, one row per dataset.

    Returns
    -------
    DataFrame
        ``name``, ``loader`` (``"sklearn"`` or ``"uci"``), ``title``, ``source`` (the dataset's
        page), ``download`` (the file or archive ``make data`` fetches; empty for scikit-learn's
        bundled sets), ``sha256`` (``file=digest`` per data file of a UCI set, joined by ``;``:
        the digests of the UCI originals that every copy is checked against), ``license``, ``citation``, ``rows``, ``columns`` (features, the class
        excluded), ``classes``, ``split`` (``"train/test"`` where the source is pre-partitioned),
        ``paper_rows`` and ``paper_attributes`` (as printed in Table 4 of Gondara's paper, which
        differs from the files for Wilt and Phishing).

    Examples
    --------
    >>> reg = list_datasets()
    >>> reg.loc[reg["name"] == "iris", ["rows", "columns", "classes"]].to_numpy().tolist()
    [[150, 4, 3]]

    The paper's Table 4 gives 2456 rows for Phishing; the UCI file has 11055:

    >>> reg.set_index("name").loc["phishing", ["rows", "paper_rows"]].tolist()
    [11055, 2456]
    """
    return _registry().copy()


def _uci_names() -> list[str]:
    reg = _registry()
    return reg.loc[reg["loader"] == "uci", "name"].tolist()


def _registry_row(name: str) -> pd.Series:
    reg = _registry()
    if not isinstance(name, str) or name not in set(reg["name"]):
        known = ", ".join(reg["name"])
        raise ValueError(f"name must be one of the registered datasets ({known}); got {name!r}")
    return reg.loc[reg["name"] == name].iloc[0]


# --------------------------------------------------------------------------------------------
# the UCI files: layout, format and the content each must have
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _UciFile:
    name: str  # file name in the mirror folder, the cache folder and (for archives) the zip
    split: str | None  # "train" / "test" where the source is pre-partitioned
    rows: int
    counts: Mapping[str | int, int]  # class label -> count


@dataclass(frozen=True)
class _UciSource:
    mirror_dir: str
    fmt: str  # "csv" (with header), "arff" or "headerless"
    class_first: bool  # class in the first column (else the last)
    files: tuple[_UciFile, ...]
    names: tuple[str, ...] = ()  # column names of headerless files, class last


# Rows and class counts per file: the UCI dataset pages and the mirror's README (which checked each
# file against UCI's archive, names file or other independent copies).
_UCI: dict[str, _UciSource] = {
    "wilt": _UciSource(
        "wilt",
        "csv",
        True,
        (
            _UciFile("training.csv", "train", 4339, {"w": 74, "n": 4265}),
            _UciFile("testing.csv", "test", 500, {"w": 187, "n": 313}),
        ),
    ),
    "diabetic_retinopathy": _UciSource(
        "diabetic_retinopathy_debrecen",
        "arff",
        False,
        (_UciFile("messidor_features.arff", None, 1151, {1: 611, 0: 540}),),
    ),
    "phishing": _UciSource(
        "phishing_websites",
        "arff",
        False,
        (_UciFile("Training Dataset.arff", None, 11055, {1: 6157, -1: 4898}),),
    ),
    "banknote": _UciSource(
        "banknote_authentication",
        "headerless",
        False,
        (_UciFile("data_banknote_authentication.txt", None, 1372, {0: 762, 1: 610}),),
        names=("variance", "skewness", "curtosis", "entropy", "class"),
    ),
    "magic": _UciSource(
        "magic_gamma_telescope",
        "headerless",
        False,
        (_UciFile("magic04.data", None, 19020, {"g": 12332, "h": 6688}),),
        names=(
            "fLength",
            "fWidth",
            "fSize",
            "fConc",
            "fConc1",
            "fAsym",
            "fM3Long",
            "fM3Trans",
            "fAlpha",
            "fDist",
            "class",
        ),
    ),
    "urban_land_cover": _UciSource(
        "urban_land_cover",
        "csv",
        True,
        (
            _UciFile(
                "training.csv",
                "train",
                168,
                {
                    "grass": 29,
                    "building": 25,
                    "concrete": 23,
                    "tree": 17,
                    "shadow": 16,
                    "car": 15,
                    "pool": 15,
                    "asphalt": 14,
                    "soil": 14,
                },
            ),
            _UciFile(
                "testing.csv",
                "test",
                507,
                {
                    "building": 97,
                    "concrete": 93,
                    "tree": 89,
                    "grass": 83,
                    "asphalt": 45,
                    "shadow": 45,
                    "car": 21,
                    "soil": 20,
                    "pool": 14,
                },
            ),
        ),
    ),
}


def _read_arff(path: Path) -> pd.DataFrame:
    """Read an ARFF file's data section into a frame named by its ``@attribute`` lines (dense ARFF only)."""
    text = path.read_text(encoding="utf-8-sig")
    data = re.search(r"^[ \t]*@data[ \t]*\r?$", text, flags=re.IGNORECASE | re.MULTILINE)
    if data is None:
        raise ValueError("no @data line, so this is not an ARFF file")
    names = []
    for line in text[: data.start()].splitlines():
        s = line.strip()
        if s[:10].lower() == "@attribute":
            rest = s[10:].strip()
            if not rest:
                raise ValueError(f"an @attribute line without a name: {line!r}")
            if rest[0] in "'\"":  # a quoted name may contain spaces
                end = rest.find(rest[0], 1)
                names.append(rest[1:end] if end > 0 else rest[1:])
            else:
                names.append(rest.split()[0])
    frame = pd.read_csv(
        io.StringIO(text[data.end() :]),
        header=None,
        comment="%",
        na_values="?",
        skipinitialspace=True,
    )
    if frame.shape[1] != len(names):
        raise ValueError(f"{len(names)} @attribute lines but {frame.shape[1]} values per data row")
    frame.columns = names
    return frame


def _read_headerless(path: Path, names: Sequence[str]) -> pd.DataFrame:
    """Read a headerless CSV; a header line that some copies add is recognised and skipped."""
    with path.open(encoding="utf-8-sig") as fh:
        first = fh.readline().split(",")[0].strip()
    try:
        float(first)
        skip = 0
    except ValueError:
        skip = 1
    frame = pd.read_csv(
        path, header=None, skiprows=skip, encoding="utf-8-sig", skipinitialspace=True
    )
    if frame.shape[1] != len(names):
        raise ValueError(
            f"{frame.shape[1]} columns per row, expected {len(names)} ({', '.join(names)})"
        )
    frame.columns = list(names)
    return frame


def _read_uci_file(path: Path, src: _UciSource) -> tuple[pd.DataFrame, pd.Series]:
    """Parse one UCI file into numeric features and clean class labels."""
    try:
        if src.fmt == "arff":
            frame = _read_arff(path)
        elif src.fmt == "headerless":
            frame = _read_headerless(path, src.names)
        else:
            frame = pd.read_csv(path, encoding="utf-8-sig", skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot be parsed ({str(exc).strip()})") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    y = frame.pop(frame.columns[0] if src.class_first else frame.columns[-1])
    if pd.api.types.is_numeric_dtype(y):
        if y.notna().all() and (y == np.round(y)).all():
            y = y.astype("int64")
    else:
        y = y.str.strip()
    return frame, y.rename("class")


def _content_problems(spec: _UciFile, X: pd.DataFrame, y: pd.Series, n_features: int) -> list[str]:
    """List what differs between a parsed file and the UCI original's content (empty if nothing)."""
    problems = []
    if len(X) != spec.rows:
        problems.append(f"{len(X)} rows, expected {spec.rows}")
    if X.shape[1] != n_features:
        problems.append(f"{X.shape[1]} feature columns, expected {n_features}")
    missing = X.isna().any(axis=1) | y.isna()
    if missing.any():
        where = np.flatnonzero(missing.to_numpy())
        shown = ", ".join(str(i + 1) for i in where[:5]) + (", ..." if len(where) > 5 else "")
        problems.append(f"{len(where)} data rows with missing or unreadable values (rows {shown})")
    text = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    if text:
        problems.append(f"non-numeric feature columns {text[:5]}")
    counts = {(k.item() if hasattr(k, "item") else k): int(v) for k, v in y.value_counts().items()}
    expected = dict(spec.counts)
    if counts != expected:
        problems.append(f"class counts {_fmt_counts(counts)}, expected {_fmt_counts(expected)}")
    return problems


def _fmt_counts(counts: Mapping) -> str:
    return "{" + ", ".join(f"{k!r}: {v}" for k, v in sorted(counts.items(), key=str)) + "}"


def _read_checked(name: str, directory: Path) -> list[tuple[_UciFile, pd.DataFrame, pd.Series]]:
    """Parse and check every file of a UCI dataset in ``directory``; ValueError on any mismatch."""
    src = _UCI[name]
    n_features = int(_registry_row(name)["columns"])
    parts = []
    for spec in src.files:
        path = directory / spec.name
        try:
            X, y = _read_uci_file(path, src)
        except ValueError as exc:
            raise ValueError(
                f"dataset {name!r}: {path} does not match the UCI original: {exc}"
            ) from None
        problems = _content_problems(spec, X, y, n_features)
        if problems:
            raise ValueError(
                f"dataset {name!r}: {path} does not match the UCI original: {'; '.join(problems)}"
            )
        parts.append((spec, X, y))
    return parts


def _registry_digests(name: str) -> dict[str, str]:
    """File name -> sha256 hex digest, from the registry's ``sha256`` column."""
    digests = {}
    for entry in filter(None, _registry_row(name)["sha256"].split(";")):
        file, _, digest = entry.strip().rpartition("=")
        digests[file] = digest.lower()
    return digests


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _verify_digests(name: str, directory: Path) -> None:
    """Compare every file of ``name`` in ``directory`` with the registry's sha256 digests."""
    expected = _registry_digests(name)
    for spec in _UCI[name].files:
        path = directory / spec.name
        want = expected.get(spec.name)
        if want is None:
            raise ChecksumMismatch(f"registry: no sha256 recorded for {spec.name!r} of {name!r}")
        found = _sha256(path)
        if found != want:
            raise ChecksumMismatch(
                f"dataset {name!r}: {path} is not the UCI original: sha256 {found}, expected "
                f"{want} (the content checks pass, so a value was changed, or this is a "
                "re-exported copy)"
            )


def _check_files(name: str, directory: Path) -> list[tuple[_UciFile, pd.DataFrame, pd.Series]]:
    """Content check, then digest check, of every file of ``name`` in ``directory``."""
    parts = _read_checked(name, directory)
    _verify_digests(name, directory)
    return parts


def uci_files(name: str) -> list[str]:
    """Return the names of a UCI dataset's data files, as they lie in the mirror and the cache.

    Parameters
    ----------
    name : str
        A UCI dataset of the registry (``list_datasets()["loader"] == "uci"``).

    Returns
    -------
    list of str
        The file names (for a pre-split source the training file first); a zip archive on the
        UCI site holds them under the same names.

    Raises
    ------
    ValueError
        ``name`` is not in the registry (the message lists it), or ships with scikit-learn.

    Examples
    --------
    >>> uci_files("wilt")
    ['training.csv', 'testing.csv']
    """
    if _registry_row(name)["loader"] != "uci":
        raise ValueError(f"name must be a UCI dataset ({', '.join(_uci_names())}); {name!r} ships "
                         "with scikit-learn and has no data files")
    return [f.name for f in _UCI[name].files]


def check_uci_files(name: str, directory: str | os.PathLike) -> None:
    """Check every data file of a UCI dataset in ``directory`` against the UCI original.

    First by content (rows, feature columns, class counts, no missing values), which says what
    differs when a copy is damaged, then by the sha256 digest the registry records, which
    catches an edit that keeps the content plausible. :func:`load_dataset` runs the same checks
    on the mirror's and the cache's files; the course's downloader runs them on a download
    before it enters the cache.

    Parameters
    ----------
    name : str
        A UCI dataset of the registry.
    directory : path
        The folder holding the files named by :func:`uci_files`.

    Raises
    ------
    ValueError
        A file's content differs from the original (the message names the file and what
        differs); :class:`ChecksumMismatch` when the content checks pass but the sha256 does
        not (naming the file and both digests).
    FileNotFoundError
        A file is missing.

    Examples
    --------
    >>> check_uci_files("banknote", default_cache_dir() / "banknote")  # doctest: +SKIP

    Nothing is returned: the files in the cache are the UCI originals.
    """
    uci_files(name)  # checks the name
    _check_files(name, Path(directory))


# --------------------------------------------------------------------------------------------
# loading: mirror or cache, parsed once per process
# --------------------------------------------------------------------------------------------


def _mirror_root() -> Path | None:
    value = os.environ.get(MIRROR_ENV, "").strip()
    if not value:
        return None
    root = Path(value).expanduser()
    if not root.is_absolute():
        root = Path.cwd() / root
    if not root.is_dir():
        raise DatasetUnavailable(f"{MIRROR_ENV}={value} is not a directory (looked at {root})")
    return root


def _uci_directory(name: str, cache_dir: str | os.PathLike | None) -> Path:
    """Find the folder holding ``name``'s files: the mirror's when it is set, else the cache's."""
    src = _UCI[name]
    mirror = _mirror_root()
    directory = (
        mirror / src.mirror_dir if mirror is not None else cache_folder(cache_dir) / name
    )
    missing = [f.name for f in src.files if not (directory / f.name).is_file()]
    if missing:
        where = f"the mirror {MIRROR_ENV}" if mirror is not None else "the cache"
        raise DatasetUnavailable(
            f"dataset {name!r} is not available: {', '.join(missing)} missing in {where} "
            f"({directory}); run `make data` to download it, or set {MIRROR_ENV} to a copy of the "
            "UCI files"
        )
    return directory


@cache
def _load_uci(name: str, directory: str, stamp: tuple[int, ...]) -> Dataset:
    # ``stamp`` (file modification times) makes a re-downloaded file parse afresh.
    parts = _check_files(name, Path(directory))
    first_columns = list(parts[0][1].columns)
    for spec, X, _ in parts[1:]:
        if list(X.columns) != first_columns:
            raise ValueError(
                f"dataset {name!r}: {spec.name} has other columns than {parts[0][0].name}"
            )
    # copy() consolidates the concatenated columns into one block per dtype, so the copies that
    # load_dataset hands out later are cheap.
    X = pd.concat([p[1] for p in parts], ignore_index=True).copy()
    y = pd.concat([p[2] for p in parts], ignore_index=True).rename("class")
    split = None
    if parts[0][0].split is not None:
        split = pd.Series(
            np.repeat([p[0].split for p in parts], [len(p[1]) for p in parts]), name="split"
        )
    return Dataset(name=name, X=X, y=y, split=split)


@cache
def _load_sklearn(name: str) -> Dataset:
    from sklearn import datasets

    loader = getattr(datasets, f"load_{name}")
    bunch = loader(as_frame=True)
    X = bunch.data.copy()
    y = bunch.target.rename("class").astype("int64")
    return Dataset(name=name, X=X, y=y)


def load_dataset(name: str, *, cache_dir: str | os.PathLike | None = None) -> Dataset:
    """Load a dataset from the registry by name.

    scikit-learn's bundled sets load directly. The paper's six UCI sets are read from the mirror
    named by ``PRECMP_DATA_MIRROR`` when it is set, else from the cache that ``make data`` fills.
    Each file's content is checked on the first load in a process; later loads return copies of
    the parsed frames.

    Parameters
    ----------
    name : str
        One of ``list_datasets()["name"]``.
    cache_dir : path, optional
        The download cache (default :func:`default_cache_dir`); ignored when the mirror is set.

    Returns
    -------
    Dataset
        ``X`` (numeric DataFrame with the source's column names), ``y`` (Series ``"class"``
        with the source's labels, surrounding spaces removed: ``'w'``/``'n'`` for Wilt, 0/1 for
        Diabetic Retinopathy and Banknote, -1/1 for Phishing, ``'g'``/``'h'`` for MAGIC, land
        cover names for Urban Land Cover) and ``split`` (train rows first, then test, for Wilt
        and Urban Land Cover; None for the others).

    Raises
    ------
    ValueError
        Unknown name, or a file whose content differs from the UCI original (the message names
        the file and what differs); :class:`ChecksumMismatch` when the content checks pass but
        the file's sha256 is not the registry's (naming the file and both digests).
    DatasetUnavailable
        A UCI dataset with neither mirror nor cache; the message says to run ``make data``.

    Examples
    --------
    >>> ds = load_dataset("breast_cancer")
    >>> ds.X.shape, ds.y.value_counts().sort_index().tolist()
    ((569, 30), [212, 357])

    Benign tumours (class 1) outnumber malignant ones, so a classifier's precision for the
    malignant class is the harder number to keep high.
    """
    row = _registry_row(name)
    if row["loader"] == "sklearn":
        return _copied(_load_sklearn(name))
    directory = _uci_directory(name, cache_dir)
    stamp = tuple((directory / f.name).stat().st_mtime_ns for f in _UCI[name].files)
    return _copied(_load_uci(name, str(directory.resolve()), stamp))


def available_datasets(
    names: Iterable[str] | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    quiet: bool = False,
) -> list[str]:
    """Keep the names among ``names`` whose data can be loaded here, in the given order.

    scikit-learn's datasets are always available; a UCI dataset is when ``PRECMP_DATA_MIRROR``
    or the download cache holds its files. Unless ``quiet``, one line says which were left out
    and how to get them, so a notebook still runs (on fewer datasets) without the UCI files.

    Parameters
    ----------
    names : iterable of str, optional
        Registry names (default: all, in registry order).
    cache_dir : path, optional
        The download cache (default :func:`default_cache_dir`); ignored when the mirror is set.
    quiet : bool
        Print nothing about the datasets left out.

    Returns
    -------
    list of str
        The available names, in the order of ``names``. Only the files' presence is checked
        here; :func:`load_dataset` checks their content.

    Raises
    ------
    ValueError
        A name is not in the registry (the message lists the registry).
    DatasetUnavailable
        ``PRECMP_DATA_MIRROR`` is set to something that is not a directory.

    Examples
    --------
    >>> available_datasets(["iris", "wine"])
    ['iris', 'wine']
    """
    names = list(_registry()["name"]) if names is None else list(names)
    for name in names:
        _registry_row(name)  # unknown names raise, listing the registry
    missing = []
    for name in names:
        if _registry_row(name)["loader"] == "sklearn":
            continue
        try:
            _uci_directory(name, cache_dir)
        except DatasetUnavailable:
            missing.append(name)
    if missing and not quiet:
        print(f"UCI data not available here, left out: {', '.join(missing)} "
              "(run `make data` or set PRECMP_DATA_MIRROR to include them)")
    return [n for n in names if n not in missing]


def describe_datasets(
    names: Iterable[str] | None = None, *, cache_dir: str | os.PathLike | None = None
) -> pd.DataFrame:
    """Load each dataset and tabulate its shape; unavailable UCI sets get a row with a note.

    Parameters
    ----------
    names : iterable of str, optional
        Registry names (default: all, in registry order).
    cache_dir : path, optional
        Passed to :func:`load_dataset`.

    Returns
    -------
    DataFrame
        One row per dataset: ``name``, ``title``, ``loader``, ``available`` (bool), ``rows``,
        ``features``, ``classes``, ``n_train``, ``n_test`` (missing when not pre-split),
        ``minority_share`` (share of the rarest class), ``paper_rows`` (Table 4 of the paper)
        and ``note`` (why a dataset is unavailable, or how its rows differ from the paper's).
        Shapes are those of the loaded data, missing (``<NA>``) when it is unavailable.

    Raises
    ------
    ValueError
        A name is not in the registry, or a UCI file differs from the original (as for
        :func:`load_dataset`).

    Examples
    --------
    >>> describe_datasets(["iris", "breast_cancer"])[["name", "rows", "features", "classes"]]
                name  rows  features  classes
    0           iris   150         4        3
    1  breast_cancer   569        30        2
    """
    names = _registry()["name"].tolist() if names is None else list(names)
    records = [_describe_one(name, cache_dir) for name in names]
    out = pd.DataFrame.from_records(records)
    for col in ("rows", "features", "classes", "n_train", "n_test", "paper_rows"):
        out[col] = out[col].astype("Int64")
    return out


def _describe_one(name: str, cache_dir: str | os.PathLike | None) -> dict[str, object]:
    """Build the :func:`describe_datasets` row of one dataset, loading it when it is available."""
    row = _registry_row(name)
    rec: dict[str, object] = {
        "name": name,
        "title": row["title"],
        "loader": row["loader"],
        "available": False,
        "rows": pd.NA,
        "features": pd.NA,
        "classes": pd.NA,
        "n_train": pd.NA,
        "n_test": pd.NA,
        "minority_share": np.nan,
        "paper_rows": row["paper_rows"],
        "note": "",
    }
    try:
        ds = load_dataset(name, cache_dir=cache_dir)
    except DatasetUnavailable as exc:
        rec["note"] = str(exc)
        return rec
    counts = ds.y.value_counts()
    rec.update(
        available=True,
        rows=len(ds.X),
        features=ds.X.shape[1],
        classes=len(counts),
        minority_share=float(counts.min() / counts.sum()),
    )
    if ds.split is not None:
        rec.update(n_train=int((ds.split == "train").sum()), n_test=int((ds.split == "test").sum()))
    if not pd.isna(row["paper_rows"]) and row["paper_rows"] != len(ds.X):
        rec["note"] = f"the paper's Table 4 gives {row['paper_rows']} rows"
    return rec
