"""Reading that stops at a limit on the bytes produced, whatever a header declares.

A zip archive declares each member's size, and a gzip stream declares nothing: a member that
says 100 bytes may inflate to gigabytes. Every reader here counts the bytes it has produced
and stops one byte past the limit, so a file costs at most the limit however it lies.

Parsed JSON costs more than its bytes: ``{},`` repeated takes about 25 bytes of memory per
byte, and a text holding one character beyond U+FFFF takes four bytes per character.
:func:`json_cost` estimates what :func:`json.loads` will hold at its peak, so a document can
be refused before it is parsed.

>>> json_cost(b'["ab", "cd"]') < json_cost(b"[{}, {}, {}, {}]")
True
"""

from __future__ import annotations

import bz2
import functools
import io
import os
import struct
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, Any, cast

from .limits import LIMITS, LimitError, limit
from .text import clip_for_message

__all__ = ["PARSE_FACTOR", "ZIP_ZSTANDARD", "check_directory", "check_json_cost", "check_members",
           "inflate_member", "json_cost", "read_file", "stream_size"]

ZIP_ZSTANDARD = 93  # the zip method inspect_ai writes its .eval members with
_CHUNK = 1 << 16
# What json.loads holds per container, element or key, beyond the bytes of its texts: measured
# with tracemalloc on CPython 3.11 (``{},`` 38 bytes per ``{`` or ``,``, ``"ab",`` 65 per
# ``,``, distinct keys ``"k1":0,`` 88 per ``,``, ``{"a":1},`` 67 per ``{``, ``:`` or ``,``),
# rounded up.
_PER_VALUE = 100
_BASE = 4096  # the parser's own state, for a small document
# A document is parsed only when its estimated cost is at most this many times the member
# limit: its bytes, its decoded text and its values, each about the size of the bytes.
PARSE_FACTOR = 3


def _refuse(where: str, count: int, name: str = "member") -> LimitError:
    entry = LIMITS[name]
    return LimitError(f"{where}: more than {limit(name):,} {entry.counts} (at least {count:,}); "
                      f"raise it with --limit {name}=N or {entry.variable}=N")


def json_cost(data: bytes | bytearray) -> int:
    r"""Estimate the peak memory, in bytes, of parsing ``data`` with :func:`json.loads`.

    The bytes themselves, the text they decode to and the texts parsed from it (one, two or
    four bytes a character, as the widest character needs), and ``_PER_VALUE`` bytes for
    every ``{``, ``[``, ``,`` and ``:`` (each starts a value or a key), and 4 KiB. An upper
    bound: measured on CPython 3.11 (tests/sources/test_evallogs_bombs.py), it is 1 to 3
    times the peak for dense objects, lists, texts, floats and keys (8 for small integers,
    which Python shares).

    >>> json_cost(b'"abc"'), json_cost(b"[0,0]")
    (4111, 4311)
    >>> json_cost('"\U0001F600"'.encode()) > json_cost(b'"abcd"')
    True
    """
    width = 1
    if not data.isascii():
        width = 4 if any(lead in data for lead in (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")) else 2
    if b"\\u" in data:
        width = 4 if (b"\\ud" in data or b"\\uD" in data) else max(width, 2)
    values = data.count(b"{") + data.count(b"[") + data.count(b",") + data.count(b":")
    return len(data) * (1 + 2 * width) + _PER_VALUE * values + _BASE


def check_json_cost(data: bytes | bytearray, where: str, error: type[ValueError] = LimitError) -> None:
    """Refuse a JSON document whose parsing would take more than ``PARSE_FACTOR`` × the member limit.

    >>> check_json_cost(b"[]", "x.json")
    """
    most = limit("member")
    if len(data) > most:
        raise error(str(_refuse(where, len(data))))
    # json_cost is at most 9 bytes a byte for the text and 100 a byte for the values (each
    # counted byte is one byte): a document below that bound is not counted (a log's
    # samples are many and small)
    if len(data) * (9 + _PER_VALUE) + _BASE <= PARSE_FACTOR * most:
        return
    cost = json_cost(data)
    if cost > PARSE_FACTOR * most:
        entry = LIMITS["member"]
        raise error(f"{where}: {len(data):,} bytes of JSON would take about {cost:,} bytes of "
                    f"memory to read, more than {PARSE_FACTOR} × the limit of {most:,} "
                    f"{entry.counts} (raise it with --limit member=N or {entry.variable}=N)")


def read_file(path: str | os.PathLike[str], where: str, name: str = "member") -> bytes:
    """Read a whole file, refusing it past the limit ``name`` (a file that grows is read no further).

    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile(delete=False); _ = f.write(b"{}"); f.close()
    >>> read_file(f.name, "x.json")
    b'{}'
    """
    most = limit(name)
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size  # a sparse file of gigabytes: refused unread
        if size > most:
            raise _refuse(where, size, name)
        data = fh.read(most + 1)
    if len(data) > most:
        raise _refuse(where, len(data), name)
    return data


class _Slice(io.RawIOBase):
    """``length`` bytes of an open file from ``start``: one member's compressed bytes."""

    def __init__(self, fp: IO[bytes], start: int, length: int) -> None:
        self._fp, self._at, self._left = fp, start, length

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = self._left if size is None or size < 0 else min(size, self._left)
        self._fp.seek(self._at)
        data = self._fp.read(size)
        self._at += len(data)
        self._left -= len(data)
        return data


_END = struct.Struct("<4s4H2LH")  # the end of central directory record
_END64_LOCATOR = struct.Struct("<4sLQL")
_END64 = struct.Struct("<4sQ2H2L4Q")


def directory_size(fp: IO[bytes]) -> int | None:
    """Return the size an archive's end record gives its central directory (None: no record).

    The record is the one zipfile takes: the last 22 bytes when they are a record without a
    comment, else the last ``PK 05 06`` (hex) within the file's last 65,557 bytes (22 and a
    comment of up to 65,535); a zip64 archive's own end record, found by its locator just before, gives
    the size when present. This is the size Python's :class:`zipfile.ZipFile` reads whole and
    parses into one object per entry, before any limit of ours could look at a member.
    """
    fp.seek(0, os.SEEK_END)
    size = fp.tell()
    start = max(0, size - _END.size - 65_535)
    fp.seek(start)
    tail = fp.read()
    # the record zipfile itself takes: the last 22 bytes when they are one without a comment,
    # else the last signature (which a field of the last 22 bytes may hold)
    last = len(tail) - _END.size
    if last >= 0 and tail[last:last + 4] == b"PK\x05\x06" and tail[-2:] == b"\x00\x00":
        at = last
    else:
        at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _END.size:
        return None
    cd_size = _END.unpack_from(tail, at)[5]
    if at >= _END64_LOCATOR.size and tail[at - _END64_LOCATOR.size:at - 16] == b"PK\x06\x07":
        offset = _END64_LOCATOR.unpack_from(tail, at - _END64_LOCATOR.size)[2]
        fp.seek(offset)
        record = fp.read(_END64.size)
        if len(record) == _END64.size and record[:4] == b"PK\x06\x06":
            cd_size = _END64.unpack(record)[8]
    return int(cd_size)


def check_directory(path: str | os.PathLike[str], where: str) -> None:
    """Refuse an archive whose directory, as its end record declares it, passes the limit.

    Python's zipfile reads the whole central directory and makes an object of each entry
    (about 550 bytes, for at least 47 bytes of directory) when the archive is opened: a file of
    a few megabytes declaring a directory of gigabytes, or millions of members, would take the
    memory before any member is looked at.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".eval", delete=False) as f:
    ...     with zipfile.ZipFile(f, "w") as w:
    ...         w.writestr("header.json", "{}")
    >>> check_directory(f.name, "x.eval")
    """
    with open(path, "rb") as fp:
        declared = directory_size(fp)
    if declared is not None and declared > limit("directory"):
        raise _refuse(where, declared, "directory")


def check_members(z: zipfile.ZipFile, where: str) -> dict[str, zipfile.ZipInfo]:
    """Return an archive's members by name; refuse a name held twice (readers differ on which wins).

    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as w:
    ...     w.writestr("a.json", "{}"); w.writestr("b.json", "[]")
    >>> sorted(check_members(zipfile.ZipFile(buf), "x.eval"))
    ['a.json', 'b.json']
    """
    out: dict[str, zipfile.ZipInfo] = {}
    for info in z.infolist():
        if info.filename in out:
            raise ValueError(f"{where}: the archive holds the member "
                             f"{clip_for_message(info.filename)!r} twice; readers "
                             "differ on which copy they take, so neither is read")
        out[info.filename] = info
    return out


def _local_start(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> int:
    """Return where a member's compressed bytes start; its local header must name it as the directory does."""
    fp = z.fp
    if fp is None:
        raise ValueError("the archive is closed")
    fp.seek(info.header_offset)
    head = fp.read(30)
    if len(head) != 30 or head[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"no local header for {clip_for_message(info.filename)!r}")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    raw = fp.read(name_len)
    local = raw.decode("utf-8" if info.flag_bits & 0x800 else "cp437", "replace")
    if local != info.orig_filename:
        raise zipfile.BadZipFile(f"the member {clip_for_message(info.orig_filename)!r} is named "
                                 f"{clip_for_message(local)!r} in its local header")
    return info.header_offset + 30 + name_len + extra_len


class _Inflater:
    """A deflate or bzip2 member as a stream: ``read(n)`` gives at most ``n`` bytes."""

    def __init__(self, source: _Slice, method: int) -> None:
        self._source = source
        self._pending = b""
        self._engine: Any = zlib.decompressobj(-15) if method == zipfile.ZIP_DEFLATED \
            else bz2.BZ2Decompressor()

    def read(self, size: int) -> bytes:
        while not self._engine.eof:
            if not self._pending and getattr(self._engine, "needs_input", True):
                self._pending = self._source.read(_CHUNK)
                if not self._pending:
                    return b""
            data = self._engine.decompress(self._pending, size)
            # zlib keeps what it did not take; bz2 keeps it inside until asked with b""
            self._pending = getattr(self._engine, "unconsumed_tail", b"")
            if data:
                return data
        return b""


@functools.cache
def _zstd_decompressor() -> Any:
    """Return one zstd decompression context, reused for every member of every archive.

    Making one per member was most of the time of inflating an archive of many small samples.
    """
    import zstandard

    return zstandard.ZstdDecompressor()


class _Zstd:
    """A zstd member (zip method 93, which Python's zipfile does not read before 3.14) as a stream."""

    def __init__(self, source: _Slice) -> None:
        import zstandard

        self._error = zstandard.ZstdError
        self._reader = _zstd_decompressor().stream_reader(
            cast(IO[bytes], source), read_across_frames=True)

    def read(self, size: int) -> bytes:
        try:
            return self._reader.read(size)
        except self._error as exc:
            raise zipfile.BadZipFile(f"zstd: {exc}") from None


def _stream(source: _Slice, method: int) -> Any:
    """Return an object whose ``read(n)`` gives a member's inflated bytes, ``n`` at most."""
    if method == zipfile.ZIP_STORED:
        return source
    if method == ZIP_ZSTANDARD:
        return _Zstd(source)
    if method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2):
        return _Inflater(source, method)
    raise NotImplementedError(f"compression method {method} is not read (inspect writes "
                              "zstd, deflate or stored members)")


def _chunks(source: _Slice, method: int, room: int) -> Iterator[bytes]:
    """Yield a member's inflated bytes, ``room`` at most in all (then one byte more, if there is one)."""
    reader = _stream(source, method)
    while room >= 0:
        data = reader.read(min(_CHUNK, room + 1))
        if not data:
            return
        room -= len(data)
        yield data


def inflate_member(z: zipfile.ZipFile, info: zipfile.ZipInfo, archive: str,
                   room: int | None = None) -> bytearray:
    """Inflate one member of an open archive, stopping one byte past the member limit.

    The member's local header must name it as the central directory does; its inflated bytes
    must match the size and CRC-32 the archive declares. Stored, deflate, bzip2 and zstd
    (method 93) members are read; an encrypted member or another method is refused.

    Parameters
    ----------
    z : zipfile.ZipFile
    info : zipfile.ZipInfo
    archive : str
        How messages name the archive (``"a.eval"``); the member is named after it.
    room : int, optional
        The bytes left under the archive's total (the ``log`` limit), when fewer than the
        member limit.

    Raises
    ------
    LimitError
        When the member inflates past the member limit (or past ``room``: the log limit).
    zipfile.BadZipFile
        For a damaged member (size, CRC-32, names that differ).

    Examples
    --------
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w", zipfile.ZIP_BZIP2) as w:
    ...     w.writestr("a.json", "[0]" * 4)
    >>> z = zipfile.ZipFile(buf)
    >>> inflate_member(z, z.getinfo("a.json"), "x.eval")
    bytearray(b'[0][0][0][0]')
    """
    where = f"{archive}: {clip_for_message(info.filename)}"
    if info.flag_bits & 0x1:
        raise ValueError(f"{where}: the member is encrypted")
    most = limit("member")
    name = "member"
    if room is not None and room < most:
        most, name = room, "log"
    start = _local_start(z, info)
    assert z.fp is not None
    out = bytearray()
    crc = 0
    for data in _chunks(_Slice(z.fp, start, info.compress_size), info.compress_type, most):
        out += data
        crc = zlib.crc32(data, crc)
        if len(out) > most:
            if name == "log":
                raise _refuse(f"{archive} (its members in total)",
                              limit("log") - room + len(out), "log")  # type: ignore[operator]
            raise _refuse(where, len(out))
    if len(out) != info.file_size or crc != info.CRC:
        raise zipfile.BadZipFile(f"Bad CRC-32 or size for file {clip_for_message(info.filename)!r}")
    return out  # no copy: json.loads reads a bytearray


def stream_size(path: str, where: str, error: type[ValueError] = LimitError) -> tuple[int, int]:
    r"""Inflate a ``.gz`` file as a stream, counting its bytes up to the ``inflated`` limit.

    Nothing is kept but the counts: the bytes produced and the length of the last line (its
    bytes after the last newline but one, the final newline aside).

    Returns
    -------
    size : int
        The bytes the file inflates to.
    last_line : int
        The bytes of its last line.

    Raises
    ------
    LimitError
        When the file inflates past the limit (or ``error``).

    Examples
    --------
    >>> import gzip, tempfile
    >>> f = tempfile.NamedTemporaryFile(suffix=".csv.gz", delete=False); f.close()
    >>> with gzip.open(f.name, "wb") as g:
    ...     _ = g.write(b"y,m\n1,1\n")
    >>> stream_size(f.name, "p.csv.gz")
    (8, 3)
    """
    import gzip

    most = limit("inflated")
    size = 0
    run = 0  # bytes since the last newline
    last = 0  # the bytes of the line the last newline ended, its ending aside
    before = b""  # the byte before this chunk
    with gzip.open(path, "rb") as fh:
        while True:
            data = fh.read(_CHUNK)
            if not data:
                break
            size += len(data)
            if size > most:
                raise error(str(_refuse(where + " inflated", size, "inflated")))
            cut = data.rfind(b"\n")
            if cut < 0:
                run += len(data)
            else:
                start = data.rfind(b"\n", 0, cut) + 1  # 0 when the line began before this chunk
                last = (run if start == 0 else 0) + cut - start
                if (data[cut - 1:cut] if cut else before) == b"\r":
                    last -= 1
                run = len(data) - cut - 1
            before = data[-1:]
    return size, (run if run else last)

