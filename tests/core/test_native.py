"""The optional C label-coding loops (precmp_lib/core/_native.c) against the numpy kernels.

Every label column is coded twice, by the C loops and with them switched off (the numpy kernels
in ``precmp_lib.core.factorize``), and both must equal the reference: the same labels as Python strings in an
object array, coded by ``pd.factorize``. The C functions are also called directly with broken
arguments, which must raise or stop, never read outside their buffers.
"""

from __future__ import annotations

import contextlib
import shutil
import sysconfig
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from precmp_lib.core import factorize
from precmp_lib.core.labels import encode_labels

pa = pytest.importorskip("pyarrow")

native = factorize._native
needs_native = pytest.mark.skipif(native is None, reason="precmp_lib.core._native was not built "
                                  "(no C compiler when the package was installed)")


def _compiler() -> str | None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


def test_the_c_loops_are_built_where_a_compiler_is():
    # The build marks the module optional, so a failed compile would pass unnoticed: where the
    # compiler Python was built with is present, the module must be there.
    if _compiler() is None:
        pytest.skip("no C compiler on this machine")
    assert native is not None, "a C compiler is present but precmp_lib.core._native is not built"


@contextlib.contextmanager
def numpy_kernels():
    """Code labels with the numpy kernels only, as where the C module is not built."""
    saved = factorize._native
    factorize._native = None
    try:
        yield
    finally:
        factorize._native = saved


def _both(y, preds):
    """encode_labels with the C loops and with the numpy kernels."""
    with_c = encode_labels(y, preds)
    with numpy_kernels():
        without = encode_labels(y, preds)
    return with_c, without


def _assert_equal(enc, reference):
    assert enc.classes.tolist() == reference.classes.tolist()
    np.testing.assert_array_equal(enc.y, reference.y)
    np.testing.assert_array_equal(enc.preds, reference.preds)


def _arrow(values, kind, chunks):
    bounds = np.linspace(0, len(values), chunks + 1).astype(int)
    return pd.arrays.ArrowStringArray(
        pa.chunked_array([pa.array(list(values[a:b]), kind) for a, b in pairwise(bounds)], kind))


def _containers(values: list[str], chunks: int) -> dict[str, object]:
    # numpy text only holds what it can store: it drops trailing NUL characters
    out: dict[str, object] = {
        "large_string": _arrow(values, pa.large_string(), chunks),
        "string": _arrow(values, pa.string(), chunks),
        "shared-objects": np.array(values, dtype=object),
        "list": list(values),  # a Python list keeps every character, NULs included
    }
    if not any(v.endswith("\x00") for v in values):
        out["unicode"] = np.array(values)
    return out


# Labels that pack (short, Latin-1), and every way out of packing: over 8 bytes, a NUL byte,
# a character above U+00FF (one byte in UTF-8 for Arrow up to U+007F, more above), the empty text.
ALPHABET = ["", "a", "b", "é", "ÿ", "日本", "a\x00", "\x00a", "12345678", "123456789",
            "building", "asphalt", "tree"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=60),
       st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=60),
       st.integers(1, 3))
def test_c_loops_and_numpy_kernels_code_every_container_alike(y, pred, chunks):
    # short columns: every row is a tail row of the eight-character reads; reference: object
    # arrays of the same labels coded by hashing (pd.factorize)
    n = min(len(y), len(pred))
    y, pred = y[:n], pred[:n]
    reference = encode_labels(np.array([s + "" for s in y], dtype=object),
                              {"m": np.array([s + "" for s in pred], dtype=object)})
    for name, cy in _containers(y, chunks).items():
        cp = _containers(pred, chunks).get(name, np.array(pred, dtype=object))
        with_c, without = _both(cy, {"m": cp})
        _assert_equal(with_c, reference)
        _assert_equal(without, reference)


@pytest.mark.parametrize("width", range(1, 9))
@pytest.mark.parametrize("where", ["second", "middle", "last"])
def test_a_character_above_u00ff_in_any_row_is_found(width, where):
    # 50 000 rows of numpy text of `width` characters, every 12th sampled: a wide character in
    # one row the sample skips, at its last position, sends the column to the binary search;
    # rows before it read it as past their end (and must not); reference: pd.factorize
    rng = np.random.default_rng(width)
    labels = np.array(["a" * width, "é" * width, "b" * max(width - 1, 1)])
    y = labels[rng.integers(0, 3, 50_000)]
    row = {"second": 1, "middle": 25_001, "last": 49_999}[where]
    assert row not in factorize._sample_rows(len(y))
    y[row] = "c" * (width - 1) + "日"
    with_c, without = _both(y, {"m": y[::-1]})
    codes, uniques = pd.factorize(y, sort=True)
    for enc in (with_c, without):
        assert enc.classes.tolist() == uniques.tolist()
        np.testing.assert_array_equal(enc.y, codes)


@pytest.mark.parametrize("width", range(1, 9))
def test_characters_past_a_short_rows_end_are_not_read_as_its_own(width):
    # 20 rows alternating "a…" and "b…": the eight characters read from a short row's start
    # include the next row's, which must be ignored; then a row holding a character above
    # U+00FF after 19 good rows stops the loop. Direct calls of the C loop; reference: the
    # alternating codes 0, 1, 0, ...
    if native is None:
        pytest.skip("precmp_lib.core._native was not built")
    chars = np.zeros((20, width), dtype=np.uint32)
    chars[0::2] = ord("a")
    chars[1::2] = ord("b")
    keys = [int.from_bytes(c * width, "little") for c in (b"a", b"b")]
    m, shift, positions, table = factorize._key_table(np.array(keys, dtype=np.uint64))
    out = np.full(20, -1, dtype=np.int8)
    assert native.code_ucs4(chars, width, int(m), int(shift), table, positions, out) == 0
    assert out.tolist() == [0, 1] * 10
    chars[19, -1] = 0x65E5  # 日
    assert native.code_ucs4(chars, width, int(m), int(shift), table, positions, out) == 1


# --------------------------------------------------------------------------------------------
# Direct calls: statuses, and broken arguments
# --------------------------------------------------------------------------------------------


def _table(labels: list[bytes]):
    keys = np.array(sorted(int.from_bytes(b, "little") for b in labels), dtype=np.uint64)
    m, shift, positions, table = factorize._key_table(keys)
    return int(m), int(shift), table, positions


def _text(values: list[bytes]):
    offsets = np.cumsum([0] + [len(v) for v in values]).astype(np.int64)
    return offsets, np.frombuffer(b"".join(values), dtype=np.uint8)


@needs_native
def test_code_text_statuses():
    m, shift, table, positions = _table([b"", b"car", b"tree"])
    values = [b"tree", b"car", b"", b"car"]
    offsets, data = _text(values)
    out = np.empty(4, dtype=np.int8)
    assert native.code_text(offsets, data, m, shift, table, positions, out) == 0
    assert out.tolist() == [2, 1, 0, 1]  # positions in the sorted keys: "", "car", "tree"
    for bad, status in (([b"car", b"bus"], 2), ([b"car", b"ca\x00"], 1),
                        ([b"car", b"123456789"], 1), ([b"\x00"], 1)):
        offsets, data = _text(bad)
        out = np.empty(len(bad), dtype=np.int8)
        assert native.code_text(offsets, data, m, shift, table, positions, out) == status, bad


@needs_native
def test_code_text_reads_rows_that_end_the_buffer_exactly():
    # data buffers shorter than 8 bytes, and rows in the last 8 bytes: the key is read from the
    # bytes that exist only
    m, shift, table, positions = _table([b"a", b"bc", b"defgh"])
    for values in ([b"a"], [b"bc", b"a"], [b"defgh", b"a", b"bc"], [b"a"] * 9 + [b"defgh"]):
        offsets, data = _text(values)
        data = np.array(data)  # a buffer of exactly these bytes
        out = np.empty(len(values), dtype=np.int8)
        assert native.code_text(offsets, data, m, shift, table, positions, out) == 0
        assert out.tolist() == [{b"a": 0, b"bc": 1, b"defgh": 2}[v] for v in values]


@needs_native
@pytest.mark.parametrize("offsets", [[0, 3, 2], [0, 3, 99], [-1, 2, 3], [0, 9, 10],
                                     [0, 3, -2**63], [2**63 - 9, 2**63 - 1, 2**63 - 1]],
                         ids=["negative-length", "past-the-data", "negative-start", "over-8",
                              "most-negative", "far-past-the-data"])
def test_code_text_stops_at_offsets_it_cannot_read(offsets):
    m, shift, table, positions = _table([b"car"])
    data = np.frombuffer(b"carcarca", dtype=np.uint8)
    out = np.empty(2, dtype=np.int8)
    status = native.code_text(np.array(offsets, dtype=np.int64), data, m, shift, table,
                              positions, out)
    assert status == 1


@needs_native
def test_broken_arguments_raise_instead_of_reading_out_of_bounds():
    m, shift, table, positions = _table([b"a", b"b"])
    keys = np.zeros(4, dtype=np.uint64)
    out = np.empty(4, dtype=np.int8)
    with pytest.raises(ValueError, match="keys must hold 8-byte items"):
        native.code_keys(keys.astype(np.uint32), m, shift, table, positions, out)
    with pytest.raises(ValueError, match="out must have 4 rows"):
        native.code_keys(keys, m, shift, table, positions, out[:3])
    with pytest.raises(ValueError, match="keys must have 16 slots"):
        native.code_keys(keys, m, shift, table[:8], positions, out)
    with pytest.raises(ValueError, match="shift must be 48 to 63; got 0"):
        native.code_keys(keys, m, 0, table, positions, out)
    readonly = np.zeros(4, dtype=np.int8)
    readonly.setflags(write=False)
    with pytest.raises((BufferError, ValueError), match="read-only"):
        native.code_keys(keys, m, shift, table, positions, readonly)
    with pytest.raises((BufferError, ValueError), match="contiguous"):
        native.code_keys(keys, m, shift, table, positions, np.zeros(8, dtype=np.int8)[::2])
    with pytest.raises(ValueError, match="width must be 1 to 8; got 9"):
        native.code_ucs4(np.zeros((4, 9), dtype=np.uint32), 9, m, shift, table, positions, out)
    with pytest.raises(ValueError, match="chars must hold 4 rows of 2 characters"):
        native.code_ucs4(np.zeros((4, 3), dtype=np.uint32), 2, m, shift, table, positions, out)
    with pytest.raises(ValueError, match="offsets must have 5 entries"):
        native.code_text(np.zeros(4, dtype=np.int64), np.zeros(8, dtype=np.uint8), m, shift,
                         table, positions, out)
    with pytest.raises(OverflowError):
        native.code_keys(keys, -1, shift, table, positions, out)


@needs_native
def test_code_keys_matches_the_numpy_kernel_on_many_rows():
    # 300 000 keys drawn from five, one key outside them in the last row: the numpy block loop
    # and the C loop give the same codes, and both report the outsider
    rng = np.random.default_rng(3)
    five = np.array([3, 10**6, 2**40, 2**63 + 5, 77], dtype=np.uint64)
    keys = five[rng.integers(0, 5, 300_000)]
    guess = np.sort(five)
    m, shift, positions, table = factorize._key_table(guess)
    out = np.empty(len(keys), dtype=np.int8)
    assert native.code_keys(keys, int(m), int(shift), table, positions, out) == 0
    expected = factorize._code_blocks(len(keys), guess, lambda lo, hi: keys[lo:hi])
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(guess[out], keys)
    keys[-1] = 4
    assert native.code_keys(keys, int(m), int(shift), table, positions, out) == 2
    assert factorize._code_blocks(len(keys), guess, lambda lo, hi: keys[lo:hi]) is None


# --------------------------------------------------------------------------------------------
# Labels of any length: hashed to a slot, then compared byte for byte
# --------------------------------------------------------------------------------------------

# lengths around the 8-byte words (8, 9, 16, 17, 24 bytes), multi-byte UTF-8, a NUL inside,
# a character above U+00FF, the empty text
LONG = np.array(["", "12345678", "123456789", "abcdefghijklmnop", "abcdefghijklmnopq",
                 "impervious: asphalt", "naïve façade ünïcødé", "a\x00b", "日本語のラベル"])


@pytest.mark.parametrize("kind", ["large_string", "string"])
@pytest.mark.parametrize("chunks, start, stop", [(1, 0, None), (4, 11, -13)],
                         ids=["one-chunk", "chunked-sliced"])
def test_long_arrow_text_is_coded_alike_by_both(kind, chunks, start, stop):
    # 60 000 rows of 8 labels from LONG (at most 8 are coded through the table), chunked and
    # sliced; reference: the object array coded by hashing (pd.factorize)
    rng = np.random.default_rng(11)
    labels = LONG[:8]
    y = labels[rng.integers(0, 8, 60_000)]
    pred = np.where(rng.random(60_000) < 0.6, y, labels[rng.integers(0, 8, 60_000)])
    arrow = {"large_string": pa.large_string(), "string": pa.string()}[kind]
    sl = slice(start, stop)
    cy = pd.arrays.ArrowStringArray(_arrow(y, arrow, chunks).__arrow_array__()[sl])
    cp = pd.arrays.ArrowStringArray(_arrow(pred, arrow, chunks).__arrow_array__()[sl])
    reference = encode_labels(y[sl].astype(object), {"m": pred[sl].astype(object)})
    with_c, without = _both(cy, {"m": cp})
    _assert_equal(with_c, reference)
    _assert_equal(without, reference)


@pytest.mark.parametrize("labels", [LONG[[1, 2, 3, 4]], LONG[[5, 6, 8]], LONG[[0, 8]]],
                         ids=["latin-9-to-17", "wide-and-long", "empty-and-wide"])
@pytest.mark.parametrize("late", [None, "late label not sampled"])
def test_wide_numpy_text_is_coded_alike_by_both(labels, late):
    # 50 000 rows of numpy text wider than 8 characters or above U+00FF, with or without a label
    # in one row the sample skips (row 30 001; every 12th is sampled); reference: pd.factorize
    rng = np.random.default_rng(len(labels))
    y = labels.astype(f"<U{max(len(s) for s in LONG) + 4}")[rng.integers(0, len(labels), 50_000)]
    if late is not None:
        y[30_001] = late
    with_c, without = _both(y, {"m": y[::-1].copy()})
    codes, uniques = pd.factorize(y, sort=True)
    for enc in (with_c, without):
        assert enc.classes.tolist() == uniques.tolist()
        np.testing.assert_array_equal(enc.y, codes)
        np.testing.assert_array_equal(enc.preds[:, 0], codes[::-1])


def test_two_labels_with_the_same_key_fall_back_to_the_binary_search():
    # Two 16-byte labels built so that their keys are equal: the key sums each 8-byte word
    # times an odd constant (k0, then k0 + step), so adding k0 to the second word and taking
    # k0 + step from the first keeps the sum. No table can separate them; the column is coded
    # by the binary search instead, with the same codes; reference: pd.factorize.
    if native is None:
        pytest.skip("precmp_lib.core._native was not built")
    k0, step = 0xBF58476D1CE4E5B9, 0x94D049BB133111EA
    first = b"abcdefgh" + b"ijklmnop"
    w0, w1 = (int.from_bytes(first[i:i + 8], "little") for i in (0, 8))
    w0b, w1b = (w0 - (k0 + step)) % 2**64, (w1 + k0) % 2**64
    second = w0b.to_bytes(8, "little") + w1b.to_bytes(8, "little")
    assert second[-1] != 0 and second != first  # a 16-byte label numpy keeps whole
    pair = np.array([first, second], dtype="S16")
    keys = np.empty(2, dtype=np.uint64)
    native.hash_texts(np.array([0, 16, 32], dtype=np.int64), np.frombuffer(pair.tobytes(),
                                                                       dtype=np.uint8), keys)
    assert keys[0] == keys[1]
    y = pair[np.random.default_rng(0).integers(0, 2, 20_000)]
    assert factorize._factorize_fixed_rows(y) is None
    enc = encode_labels(y, {"m": y[::-1].copy()})
    codes, uniques = pd.factorize(y, sort=True)
    assert enc.classes.tolist() == uniques.tolist()
    np.testing.assert_array_equal(enc.y, codes)


@needs_native
def test_broken_arguments_to_the_any_length_loops_raise():
    offsets = np.array([0, 3, 5], dtype=np.int64)
    data = np.frombuffer(b"abcde", dtype=np.uint8)
    keys = np.empty(2, dtype=np.uint64)
    with pytest.raises(ValueError, match="offsets must be 3 positions in the data"):
        native.hash_texts(np.array([0, 3, 9], dtype=np.int64), data, keys)
    with pytest.raises(ValueError, match="out must hold 8-byte items"):
        native.hash_texts(offsets, data, np.empty(2, dtype=np.int8))
    positions = np.full(16, -1, dtype=np.int8)
    starts, lengths = np.zeros(16, dtype=np.int64), np.full(16, -1, dtype=np.int64)
    out = np.empty(2, dtype=np.int8)
    lengths[3] = 9  # a label running past the labels' 8 bytes
    with pytest.raises(ValueError, match="slot_starts and slot_lengths must have 16 slots"):
        native.code_texts(offsets, data, 1, 60, starts, lengths, np.zeros(8, dtype=np.uint8),
                          positions, out)
    with pytest.raises(ValueError, match="positions must have 16 slots"):
        native.code_texts(offsets, data, 1, 60, starts, lengths, np.zeros(16, dtype=np.uint8),
                          positions[:8], out)
    with pytest.raises(ValueError, match="rows must hold 2 rows and slot_rows 16 of 3 bytes"):
        native.code_rows(np.zeros(6, dtype=np.uint8), 3, 1, 60, np.zeros(16 * 3, dtype=np.uint8),
                         positions, out)
    with pytest.raises(ValueError, match="width must be at least 1; got 0"):
        native.code_rows(np.zeros(6, dtype=np.uint8), 0, 1, 60, np.zeros(16, dtype=np.uint8),
                         positions, out)
    # offsets outside the data stop code_texts before any row is read
    lengths[3] = -1
    assert native.code_texts(np.array([0, 3, 99], dtype=np.int64), data, 1, 60, starts, lengths,
                             np.zeros(8, dtype=np.uint8), positions, out) == 1


@pytest.mark.parametrize("n_labels", [9, 50, 70], ids=["9", "50", "70-over-the-C-limit"])
@pytest.mark.parametrize("long", [False, True], ids=["short", "long"])
def test_many_labels_are_coded_alike_by_both(n_labels, long):
    # The C loops take up to 64 labels (the numpy kernels 8, then hashing): 9 and 50 labels
    # through the C table, 70 by hashing; short (up to 8 bytes) and long labels, in Arrow
    # and numpy text; reference: pd.factorize of the object array
    rng = np.random.default_rng(n_labels)
    stem = "class number " if long else "c"
    labels = np.array([f"{stem}{i}" for i in range(n_labels)])
    y = labels[rng.integers(0, n_labels, 40_000)]
    reference = encode_labels(y.astype(object), {"m": y[::-1].astype(object)})
    for cy in (pd.Series(y, dtype="str"), y):
        with_c, without = _both(cy, {"m": cy[::-1].copy()})
        _assert_equal(with_c, reference)
        _assert_equal(without, reference)
    if native is not None and n_labels <= 50:  # the C table was used, not the fallbacks
        text = factorize._ArrowText.of(factorize._arrow_text_chunks(pd.Series(y, dtype="str")
                                                                      .array))
        coded = (factorize._factorize_long_text(text, len(y)) if long
                 else factorize._factorize_arrow_text(pd.Series(y, dtype="str").array))
        assert coded is not None and coded[0].dtype == np.int8
        assert factorize._factorize_fixed_rows(y) is not None


# Run in a child process: the old loop read freed-up offsets and crashed the process (SIGSEGV).
CHANGED_MEANWHILE = """
import sys, threading, time
import numpy as np
from precmp_lib.core import factorize

native = factorize._native
labels = sorted(b"label-%02d-" % i + b"x" * (i % 5) for i in range(6))
offsets_l = np.cumsum([0, *map(len, labels)], dtype=np.int64)
m, shift, positions, slots = factorize._hashed_labels(b"".join(labels), offsets_l)
words = [b.ljust(max(-(-len(b) // 8), 4) * 8, b"\\0") for b in labels]
starts = np.zeros(len(positions), dtype=np.int64)
starts[slots] = np.cumsum([0, *map(len, words[:-1])])
lengths = np.full(len(positions), -1, dtype=np.int64)
lengths[slots] = np.diff(offsets_l)
label_data = np.frombuffer(b"".join(words), dtype=np.uint8)
rng = np.random.default_rng(0)
rows = [labels[i] for i in rng.integers(0, len(labels), 500_000)]
offsets = np.cumsum([0, *map(len, rows)], dtype=np.int64)
data = np.frombuffer(b"".join(rows), dtype=np.uint8)
out = np.empty(len(rows), dtype=np.int8)
good = (offsets.copy(), starts.copy(), lengths.copy())
go, broke, done = threading.Event(), threading.Event(), threading.Event()
quit_ = False

def mutate():
    i = 0
    while True:
        go.wait()
        go.clear()
        if quit_:
            return
        time.sleep(0.0005 * (i % 4))  # the coding loop is under way, its checks passed
        k = len(offsets) - 1 - i % 1000
        offsets[k] = [2**40, -2**40, 2**62][i % 3]
        starts[:] = 2**40
        lengths[:] = 1 << 20
        broke.set()
        i += 1

t = threading.Thread(target=mutate)
t.start()
statuses = []
try:
    for _ in range(int(sys.argv[1])):
        offsets[:], starts[:], lengths[:] = good
        broke.clear()
        go.set()
        try:
            statuses.append(native.code_texts(offsets, data, m, shift, starts, lengths,
                                              label_data, positions, out))
        except ValueError:
            statuses.append("refused")
        broke.wait()
finally:
    quit_ = True
    go.set()
    t.join()
print({s: statuses.count(s) for s in set(statuses)})
"""


@needs_native
def test_code_texts_survives_another_thread_changing_its_arrays(tmp_path):
    # code_texts checks its slots and offsets, then releases the GIL: another thread sets an
    # offset far outside the data and every slot outside the labels while the rows are coded.
    # The copied slots and the offsets read once a row keep every read inside the buffers: each
    # call stops at the changed offset (status 1), is refused at its checks, or (when the other
    # thread is scheduled late) has coded every row before the change (status 0). The old code
    # crashed the process (SIGSEGV), which the return code catches.
    import subprocess
    import sys

    script = tmp_path / "changed_meanwhile.py"
    script.write_text(CHANGED_MEANWHILE)
    run = subprocess.run([sys.executable, str(script), "30"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    statuses = eval(run.stdout.strip())  # a dict literal printed by the script
    assert set(statuses) <= {0, 1, "refused"} and sum(statuses.values()) == 30
