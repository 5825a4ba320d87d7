"""Download the paper's six UCI data sets into the cache, each file checked before it is kept.

``make data`` runs ``python -m precmp_lib.course.download download [NAME ...]``;
:func:`download_datasets` does the same from Python. The files the registry
(:func:`precmp_lib.list_datasets`) names are fetched from the UCI repository, or from the base
URL in ``PRECMP_DATA_URL``, into the cache folder that :func:`precmp_lib.load_dataset` reads
(``PRECMP_DATA``, else the platform's cache folder; see
:func:`precmp_lib.sources.datasets.default_cache_dir`). Zip archives (Wilt, Urban Land Cover)
are unpacked to their member files. A download is written to a temporary folder and moved into
the cache only after the content and sha256 checks of
:func:`precmp_lib.sources.datasets.check_uci_files` pass, so a half-written or wrong file never
stays there. Loading needs none of this: the registry, the offline mirror and the cache are read
by :mod:`precmp_lib.sources.datasets`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterable, Sequence
from http.client import HTTPException
from pathlib import Path

from ..sources.datasets import (
    CACHE_ENV,
    cache_folder,
    check_uci_files,
    list_datasets,
    uci_files,
)

__all__ = ["DownloadError", "download_datasets"]

#: Where the registry's ``download`` URLs point; ``PRECMP_DATA_URL`` or ``base_url=`` replace it.
UCI_BASE_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases"
URL_ENV = "PRECMP_DATA_URL"


class DownloadError(OSError):
    """A download failed (HTTP error, no connection, a file cut short, a damaged archive)."""


def _remote_path(name: str) -> str:
    url = list_datasets().set_index("name").loc[name, "download"]
    prefix = UCI_BASE_URL + "/"
    if not url.startswith(prefix):
        raise ValueError(
            f"registry: the download URL of {name!r} must start with {prefix}; got {url!r}"
        )
    return url[len(prefix) :]


def _fetch(url: str, dest: Path, *, label: str, progress: bool, timeout: float) -> None:
    """Stream ``url`` into ``dest`` with a progress bar; DownloadError on any failure."""
    from tqdm.auto import tqdm

    request = urllib.request.Request(url, headers={"User-Agent": "precmp (python urllib)"})
    received = 0
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp, dest.open("wb") as fh:
            length = resp.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            with tqdm(
                total=total,
                desc=label,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                disable=not progress,
                leave=False,
            ) as bar:
                while chunk := resp.read(1 << 16):
                    fh.write(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
    except urllib.error.HTTPError as exc:
        raise DownloadError(f"{label}: {url} answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, HTTPException, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise DownloadError(f"{label}: could not download {url} ({reason})") from None
    if total is not None and received != total:
        raise DownloadError(
            f"{label}: the download of {url} was cut short ({received} of {total} bytes)"
        )


def _extract(archive: Path, members: Sequence[str], staging: Path, label: str) -> None:
    """Copy the named members (matched by file name, wherever they sit) out of a zip archive."""
    try:
        with zipfile.ZipFile(archive) as zf:
            entries = [
                i
                for i in zf.infolist()
                if not i.is_dir()
                and "__MACOSX" not in i.filename
                and not Path(i.filename).name.startswith("._")
            ]
            for member in members:
                found = [i for i in entries if Path(i.filename).name == member]
                if len(found) != 1:
                    listed = ", ".join(i.filename for i in entries) or "nothing"
                    what = "no" if not found else "more than one"
                    raise DownloadError(
                        f"{label}: the archive has {what} member {member!r} (it holds {listed})"
                    )
                with zf.open(found[0]) as src, (staging / member).open("wb") as dst:
                    shutil.copyfileobj(src, dst)
    except (zipfile.BadZipFile, EOFError) as exc:
        raise DownloadError(f"{label}: not a readable zip archive ({exc})") from None


def _download_one(
    name: str, base_url: str, cache_root: Path, *, progress: bool, timeout: float
) -> Path:
    files = uci_files(name)
    remote = _remote_path(name)
    url = base_url.rstrip("/") + "/" + remote
    label = f"{name}: {urllib.parse.unquote(remote.rsplit('/', 1)[-1])}"
    cache_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.partial-", dir=cache_root))
    try:
        raw = staging / ".download"
        _fetch(url, raw, label=label, progress=progress, timeout=timeout)
        if remote.lower().endswith(".zip"):
            _extract(raw, files, staging, label)
        else:
            raw.rename(staging / files[0])
        try:
            check_uci_files(name, staging)
        except ValueError as exc:  # ChecksumMismatch keeps its type
            raise type(exc)(
                f"{exc} (downloaded from {url}; nothing was written to the cache)"
            ) from None
        target = cache_root / name
        target.mkdir(parents=True, exist_ok=True)
        for file in files:
            os.replace(staging / file, target / file)
        return target
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def download_datasets(
    names: Iterable[str] | None = None,
    *,
    base_url: str | None = None,
    cache_dir: str | os.PathLike | None = None,
    force: bool = False,
    progress: bool = True,
    timeout: float = 60.0,
) -> dict[str, Path]:
    """Download UCI datasets into the cache, checking each file's content before keeping it.

    A dataset already in the cache whose files pass the content check is not fetched again
    (unless ``force``). Zip archives (Wilt, Urban Land Cover) are unpacked to their member files.

    Parameters
    ----------
    names : iterable of str, optional
        UCI registry names (default: all six).
    base_url : str, optional
        Replaces ``https://archive.ics.uci.edu/ml/machine-learning-databases`` in the registry's
        download URLs (default: ``PRECMP_DATA_URL`` if set, else UCI). ``file://`` URLs work too.
    cache_dir : path, optional
        Default :func:`~precmp_lib.sources.datasets.default_cache_dir` (``PRECMP_DATA``, else
        the platform's cache folder); each dataset goes to ``cache_dir/<name>/``. A folder
        inside the installed package is refused.
    force : bool
        Download even when the cache already holds a good copy.
    progress : bool
        Show a progress bar per file.
    timeout : float
        Seconds to wait for the server before giving up.

    Returns
    -------
    dict
        Dataset name -> its folder in the cache.

    Raises
    ------
    DownloadError
        HTTP error, no connection, a transfer cut short or a damaged archive (names the dataset
        and the URL).
    ValueError
        The downloaded content differs from the UCI original (names the dataset, the file and
        what differs), or its sha256 does
        (:class:`~precmp_lib.sources.datasets.ChecksumMismatch`, naming the file, the expected
        and the found digest), or ``cache_dir`` lies inside the package. Nothing is left in the
        cache in any case.

    Examples
    --------
    >>> download_datasets(["banknote"])  # doctest: +SKIP
    {'banknote': PosixPath('.../.cache/precmp/banknote')}

    The file is now in the cache and :func:`precmp_lib.load_dataset` reads it without the network.
    """
    registry = list_datasets()
    uci = registry.loc[registry["loader"] == "uci", "name"].tolist()
    names = uci if names is None else list(names)
    for name in names:
        if isinstance(name, str) and name in set(registry["name"]) and name not in uci:
            raise ValueError(
                f"names must be UCI datasets ({', '.join(uci)}); {name!r} ships "
                "with scikit-learn and needs no download"
            )
        uci_files(name)  # an unknown name raises, listing the registry
    base = base_url or os.environ.get(URL_ENV, "").strip() or UCI_BASE_URL
    cache_root = cache_folder(cache_dir)
    done = {}
    for name in names:
        if not force and _cached_ok(name, cache_root):
            done[name] = cache_root / name
        else:  # missing, or a damaged copy: fetch it (again)
            done[name] = _download_one(name, base, cache_root, progress=progress, timeout=timeout)
    return done


def _cached_ok(name: str, cache_root: Path) -> bool:
    """Whether the cache holds every file of ``name`` and they pass the content check."""
    target = cache_root / name
    if not all((target / file).is_file() for file in uci_files(name)):
        return False
    try:
        check_uci_files(name, target)
    except ValueError:
        return False
    return True


def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m precmp_lib.course.download",
        description="Download the UCI datasets of the paper into the cache folder "
        f"(${CACHE_ENV}, else the platform's cache folder), checked by content and sha256.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    dl = sub.add_parser("download", help="download (default: all six UCI datasets)")
    dl.add_argument("names", nargs="*", help="registry names (default: all UCI datasets)")
    dl.add_argument("--base-url", help=f"instead of {UCI_BASE_URL} (or set {URL_ENV})")
    dl.add_argument("--cache-dir", help=f"instead of ${CACHE_ENV} or the platform's cache folder")
    dl.add_argument("--force", action="store_true", help="download even if already cached")
    dl.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    reg = list_datasets().set_index("name")
    names = args.names or reg.index[reg["loader"] == "uci"].tolist()
    failed = 0
    for name in names:
        cached = not args.force and _cached_ok(name, cache_folder(args.cache_dir))
        try:
            (path,) = download_datasets(
                [name],
                base_url=args.base_url,
                cache_dir=args.cache_dir,
                force=args.force,
                progress=not args.no_progress,
            ).values()
        except (ValueError, OSError) as exc:
            print(f"make data: {exc}", file=sys.stderr)
            failed += 1
            continue
        how = "already in the cache" if cached else "downloaded"
        print(f"{name}: {how}, {reg.loc[name, 'rows']} rows x {reg.loc[name, 'columns']} features, "
              f"checked: {path}")
    if failed:
        print(f"make data: {failed} of {len(names)} datasets failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(_main())
