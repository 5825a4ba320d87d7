"""Eval logs that lie about their sizes: every limit counts the bytes produced.

The archives are written here byte by byte (local headers, central directory, end record), as
the review's generators wrote them: a member declares 100 bytes and inflates to far more,
with each compression inspect and zip readers meet (stored, deflate, bzip2, zstd). The member
limit is lowered so that each bomb is a few megabytes inflated and a few kilobytes on disk;
every file is made in ``tmp_path``.
"""

from __future__ import annotations

import bz2
import json
import struct
import zipfile
import zlib
from pathlib import Path

import pytest

from precmp_lib import read_eval_logs
from precmp_lib._lib.bounded import json_cost

ZSTD = 93
HEADER = json.dumps({"version": 2, "status": "success",
                     "eval": {"task": "t", "model": "m", "created": "2025-01-01"}}).encode()


def _compress(data: bytes, method: int) -> bytes:
    if method == zipfile.ZIP_STORED:
        return data
    if method == zipfile.ZIP_DEFLATED:
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        return packer.compress(data) + packer.flush()
    if method == zipfile.ZIP_BZIP2:
        return bz2.compress(data, 9)
    import zstandard

    return zstandard.ZstdCompressor(level=3).compress(data)


def write_zip(path: Path, members: list[tuple], declare: dict[str, int] | None = None) -> Path:
    """Write a zip archive by hand: ``(name, data, method[, local name])`` per member.

    ``declare``: the uncompressed size some members claim (else their true size); the CRC-32
    is the true one, so only the size lies.
    """
    out, central = bytearray(), bytearray()
    for name, data, method, *local in members:
        packed = _compress(data, method)
        size = (declare or {}).get(name, len(data))
        crc = zlib.crc32(data)
        raw, raw_local = name.encode(), (local[0] if local else name).encode()
        offset = len(out)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0x800, method, 0, 0, crc,
                           len(packed), size, len(raw_local), 0) + raw_local + packed
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0x800, method, 0, 0, crc,
                               len(packed), size, len(raw), 0, 0, 0, 0, 0, offset) + raw
    out += central + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members),
                                 len(central), len(out), 0)
    path.write_bytes(bytes(out))
    return path


def sample(n: int, **extra) -> bytes:
    return json.dumps({"id": n, "epoch": 1, "scores": {"s": {"value": n % 2}}, **extra}).encode()


METHODS = {"stored": zipfile.ZIP_STORED, "deflate": zipfile.ZIP_DEFLATED,
           "bzip2": zipfile.ZIP_BZIP2, "zstd": ZSTD}
BOMB = 8 << 20  # what each bomb inflates to, eight times the member limit the tests set


@pytest.fixture
def small_member(monkeypatch):
    monkeypatch.setenv("PRECMP_MAX_MEMBER_BYTES", str(1 << 20))


@pytest.mark.parametrize("method", METHODS)
def test_a_member_declaring_100_bytes_stops_at_the_member_limit(tmp_path, small_member, method):
    bomb = b'{"id": 1, "pad": "' + b" " * BOMB + b'"}'
    for member in ["header.json", "samples/1_epoch_1.json"]:
        members = [("header.json", HEADER, METHODS[method]), ("samples/1_epoch_1.json",
                                                                sample(1), METHODS[method])]
        members = [(n, bomb if n == member else d, m) for n, d, m in members]
        path = write_zip(tmp_path / f"{method}.eval", members, declare={member: 100})
        if method != "stored":
            assert path.stat().st_size < 64 << 10  # kilobytes on disk
        # not "Bad CRC-32", which would mean the whole member was inflated first
        with pytest.raises(ValueError, match=rf"^{method}\.eval: {member}: more than 1,048,576 "
                           r"bytes in one JSON document or archive member \(at least 1,048,577\)"):
            read_eval_logs({"m": path})


@pytest.mark.parametrize("method", METHODS)
def test_honest_members_of_every_method_are_read(tmp_path, method):
    members = [("header.json", HEADER, METHODS[method])]
    members += [(f"samples/{n}_epoch_1.json", sample(n), METHODS[method]) for n in range(4)]
    frame = read_eval_logs({"m": write_zip(tmp_path / "a.eval", members)})
    assert frame["score"].tolist() == [0.0, 1.0, 0.0, 1.0]


def test_the_log_limit_counts_the_members_inflated_in_total(tmp_path, monkeypatch):
    monkeypatch.setenv("PRECMP_MAX_LOG_BYTES", str(1 << 20))
    pad = " " * (300 << 10)
    members = [("header.json", HEADER, ZSTD)]
    members += [(f"samples/{n}_epoch_1.json", sample(n, pad=pad), ZSTD) for n in range(3)]
    members.append(("samples/3_epoch_1.json", sample(3, pad=" " * BOMB), ZSTD))
    # 0.9 MiB declared in all, under the limit; the last member inflates past what is left
    path = write_zip(tmp_path / "a.eval", members, declare={"samples/3_epoch_1.json": 100})
    with pytest.raises(ValueError, match=r"^a\.eval \(its members in total\): more than "
                                         r"1,048,576 bytes of log to read"):
        read_eval_logs({"m": path})


def test_a_member_damaged_or_shorter_than_declared_is_refused(tmp_path):
    members = [("header.json", HEADER, zipfile.ZIP_DEFLATED),
               ("samples/1_epoch_1.json", sample(1), zipfile.ZIP_DEFLATED)]
    path = write_zip(tmp_path / "a.eval", members, declare={"header.json": 10_000})
    with pytest.raises(ValueError, match=r"^a\.eval: a damaged \.eval archive \(Bad CRC-32 or "
                                         "size for file 'header.json'"):
        read_eval_logs({"m": path})


@pytest.mark.parametrize("method", ["deflate", "zstd"])
def test_duplicate_members_and_names_that_differ_are_refused(tmp_path, method):
    m = METHODS[method]
    twice = [("header.json", HEADER, m), ("samples/1_epoch_1.json", sample(1), m),
             ("samples/1_epoch_1.json", sample(2), m)]
    with pytest.raises(ValueError, match=r"^a\.eval: the archive holds the member "
                                         r"'samples/1_epoch_1\.json' twice"):
        read_eval_logs({"m": write_zip(tmp_path / "a.eval", twice)})
    other = [("header.json", HEADER, m),
             ("samples/1_epoch_1.json", sample(1), m, "samples/9_epoch_1.json")]
    with pytest.raises(ValueError, match=r"^b\.eval: a damaged \.eval archive \(the member "
                                         r"'samples/1_epoch_1\.json' is named "
                                         r"'samples/9_epoch_1\.json' in its local header"):
        read_eval_logs({"m": write_zip(tmp_path / "b.eval", other)})


# Dense JSON: what json.loads holds is many times the bytes. Each pattern is refused before
# it is parsed once its estimated cost passes 3 x the member limit (1 MiB here).
DENSE = {"empty objects": b"{},", "empty lists": b"[],", "short texts": b'"ab",',
         "numbers": b"1.5,"}


@pytest.mark.parametrize("pattern", DENSE)
def test_dense_json_is_refused_before_it_is_parsed(tmp_path, small_member, pattern):
    body = b'{"samples": [' + DENSE[pattern] * ((1 << 20) // 6) + b"0]}"
    assert len(body) < 1 << 20  # under the member limit in bytes
    log = tmp_path / "a.json"
    log.write_bytes(b'{"version": 2, "status": "success", "eval": {"task": "t"}, "x": ' + body
                    + b"}")
    with pytest.raises(ValueError, match=r"^a\.json: [\d,]+ bytes of JSON would take about "
                                         r"[\d,]+ bytes of memory to read, more than 3 × the "
                                         "limit of 1,048,576"):
        read_eval_logs({"m": log})
    # the same document inside an archive, as a zstd member
    path = write_zip(tmp_path / "a.eval", [("header.json", HEADER, ZSTD),
                                           ("samples/1_epoch_1.json", body, ZSTD)])
    with pytest.raises(ValueError, match=r"^a\.eval: samples/1_epoch_1\.json: [\d,]+ bytes of "
                                         "JSON would take about"):
        read_eval_logs({"m": path})


def test_the_cost_estimate_bounds_what_parsing_holds():
    """json_cost is at least the peak tracemalloc sees while json.loads parses (CPython 3.11)."""
    import tracemalloc

    docs = [b"[" + p * 20_000 + b"0]" for p in DENSE.values()]
    docs += [b'["' + b"a" * 200_000 + b'"]', '["\U0001F600'.encode() + b"a" * 200_000 + b'"]',
             b"{" + b",".join(b'"k%d":0' % i for i in range(20_000)) + b"}",
             b"[" + b'{"a":1},' * 20_000 + b"0]", b"[" + b'{"a":[]},' * 20_000 + b"0]"]
    for doc in docs:
        tracemalloc.start()
        value = json.loads(doc)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        del value
        assert peak + len(doc) <= json_cost(doc) <= 3 * (peak + len(doc)), doc[:12]
    # small integers are shared by Python: the estimate is an upper bound, 8 times the peak
    doc = b"[" + b"0," * 20_000 + b"0]"
    tracemalloc.start()
    value = json.loads(doc)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(value) == 20_001
    assert peak + len(doc) <= json_cost(doc) <= 10 * (peak + len(doc))


def test_sparse_json_logs_and_results_are_refused_unread(tmp_path, small_member):
    log = tmp_path / "a.json"
    with open(log, "wb") as fh:  # a sparse file: 6 GiB of size, no blocks
        fh.write(b'{"version": 2, "status": "success", "samples": [')
        fh.truncate(6 << 30)
    with pytest.raises(ValueError, match=r"^a\.json: more than 1,048,576 bytes in one JSON "
                                         r"document or archive member \(at least 6,442,450,944\)"):
        read_eval_logs({"m": log})
    folder = tmp_path / "lm"
    folder.mkdir()
    stamp = "2025-01-01T00-00-00"
    (folder / f"samples_t_{stamp}.jsonl").write_text(
        json.dumps({"doc_id": 0, "metrics": ["acc"], "acc": 1}) + "\n")
    with open(folder / f"results_{stamp}.json", "wb") as fh:
        fh.write(b'{"model_name": "m"')
        fh.truncate(6 << 30)
    from precmp_lib.sources.evallogs import logs_by_model

    with pytest.raises(ValueError, match=rf"^results_{stamp}\.json: more than 1,048,576 bytes"):
        logs_by_model([folder])


def test_documents_below_the_bound_need_no_count(monkeypatch):
    """check_json_cost skips the count for a document of n bytes when n (9 + 100) + 4096 is
    within the budget: json_cost never exceeds that, whatever the bytes (the worst: every byte
    a counted bracket or comma, a four-byte character, a \\ud escape)."""
    from precmp_lib._lib.bounded import _BASE, _PER_VALUE, PARSE_FACTOR, check_json_cost

    worst = [b"[" * 5_000, b"{:,[" * 2_000 + "\U0001F600".encode() + b"\\ud800" * 100,
             ("\U0001F600" * 3_000).encode(), b"\\uD83D" * 2_000, b"", b"0"]
    for doc in worst:
        assert json_cost(doc) <= len(doc) * (9 + _PER_VALUE) + _BASE, doc[:12]
    # at the limit, a document just past the bound is counted and refused as before
    most = 1 << 20
    monkeypatch.setenv("PRECMP_MAX_MEMBER_BYTES", str(most))
    n = (PARSE_FACTOR * most - _BASE) // (9 + _PER_VALUE) + 2_000  # 103 n + 4096 > 3 MiB
    with pytest.raises(ValueError, match="bytes of JSON would take about"):
        check_json_cost(b"[" * n, "x.json")
    check_json_cost(b"[" * ((PARSE_FACTOR * most - _BASE) // (9 + _PER_VALUE)), "x.json")


def _many_members(path: Path, n: int) -> int:
    """Write an archive of a header and ``n`` tiny samples; return its directory's real size."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as w:
        w.writestr("header.json", HEADER)
        for i in range(n):
            w.writestr(f"samples/{i}_epoch_1.json", b"{}")
    with zipfile.ZipFile(path) as z:  # 46 bytes an entry, then its name, extra and comment
        return sum(46 + len(i.filename.encode()) + len(i.extra) + len(i.comment)
                   for i in z.infolist())


@pytest.mark.parametrize("n", [300, 70_000])  # 70,000 members: a zip64 end record
def test_an_archive_directory_past_the_limit_is_refused_before_it_is_read(tmp_path, monkeypatch, n):
    """The directory's size is read from the end record (the zip64 one past 65,535 members)
    and refused in one line before zipfile reads it whole (an object per entry, ~550 bytes)."""
    from precmp_lib._lib.bounded import directory_size

    path = tmp_path / "a.eval"
    real = _many_members(path, n)
    with open(path, "rb") as fp:
        assert directory_size(fp) == real  # what zipfile itself reads
    monkeypatch.setenv("PRECMP_MAX_DIRECTORY_BYTES", str(real - 1))
    with pytest.raises(ValueError, match=rf"^a\.eval: more than {real - 1:,} bytes of an "
                                         rf"archive's directory \(its list of members\) \(at "
                                         rf"least {real:,}\); raise it with --limit directory=N"):
        read_eval_logs({"m": path})
    monkeypatch.setenv("PRECMP_MAX_DIRECTORY_BYTES", str(real))
    with pytest.raises(ValueError, match=r"^a\.eval sample 0: no 'id'$"):  # read on: its samples are {}
        read_eval_logs({"m": path})


def test_a_forged_end_record_is_refused_unread(tmp_path):
    """An end record declaring a directory of 2^35 bytes (zip64) in a file of a few hundred:
    refused on the declaration, whatever zipfile would make of it."""
    path = tmp_path / "a.eval"
    _many_members(path, 1)
    data = bytearray(path.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    zip64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, 2, 2, 1 << 35, 0)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, end, 1)
    path.write_bytes(bytes(data[:end]) + zip64 + locator + bytes(data[end:]))
    with pytest.raises(ValueError, match=r"^a\.eval: more than 33,554,432 bytes of an archive's "
                                         r"directory \(its list of members\) \(at least "
                                         r"34,359,738,368\)"):
        read_eval_logs({"m": path})


def test_an_end_record_whose_fields_spell_its_signature_is_still_read(tmp_path, monkeypatch):
    """Entry counts of 0x4B50 and 0x0605 write ``PK 05 06`` inside the end record itself; the
    record zipfile takes (the last 22 bytes, no comment) is the one measured, so the check is
    not skipped."""
    from precmp_lib._lib.bounded import directory_size

    path = tmp_path / "a.eval"
    real = _many_members(path, 3)
    data = bytearray(path.read_bytes())
    end = len(data) - 22
    assert data[end:end + 4] == b"PK\x05\x06"
    data[end + 8:end + 12] = struct.pack("<2H", 0x4B50, 0x0605)  # the counts, which zipfile ignores
    path.write_bytes(bytes(data))
    assert bytes(data).rfind(b"PK\x05\x06") == end + 8
    with zipfile.ZipFile(path) as z:  # zipfile still reads it
        assert len(z.infolist()) == 4
    with open(path, "rb") as fp:
        assert directory_size(fp) == real
    monkeypatch.setenv("PRECMP_MAX_DIRECTORY_BYTES", str(real - 1))
    with pytest.raises(ValueError, match=r"^a\.eval: more than .* bytes of an archive's directory"):
        read_eval_logs({"m": path})
