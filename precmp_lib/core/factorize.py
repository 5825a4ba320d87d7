"""The factorizer: label columns to small integer codes, fast, in numpy or the C module.

The C loops (``_native.c``) are optional: where they were not built, the numpy kernels give
the same codes, more slowly.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from numbers import Real
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

_native: ModuleType | None
try:  # label coding loops in C (_native.c), built where a C compiler was found
    from . import _native
except ImportError:  # the numpy kernels below give the same codes, more slowly
    _native = None
def _first_missing(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


# Integer labels spanning at most this many values are encoded by table look-up (O(n), no sort).
_DENSE_RANGE = 1 << 16


def _missing_error(name: str, where: int, kind: str = "missing") -> ValueError:
    return ValueError(f"{name} must not contain {kind} labels; found one at position {where}")


def _number_text(value: Any) -> str | None:
    """Return the text a number is written as (1.0 -> "1"), or None for anything but a number."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
        return None
    if isinstance(value, float | np.floating):
        number = float(value)
        return str(int(number)) if number.is_integer() else str(number)
    return str(math.trunc(value))


def _check_one_form_per_label(uniques: Sequence[Any], name: str) -> None:
    """Raise when a label occurs both as text and as a number ("1" and 1).

    Such labels would otherwise be merged or split silently.
    """
    texts = {v for v in uniques if isinstance(v, str)}
    if not texts:
        return
    for v in uniques:
        text = _number_text(v)
        if text is not None and text in texts:
            raise ValueError(
                f"{name} holds the label {text!r} both as text ({text!r}) and as a number "
                f"({v!r}); write every label of a column one way"
            )


def shift_small_ints(a: np.ndarray, lo: int, dtype: type[np.signedinteger]) -> np.ndarray:
    """Return ``a - lo`` as ``dtype`` for integer labels in a small range starting at ``lo``.

    Exact for every width and sign: ``lo`` is the smallest label of several arrays, so it may
    lie outside ``a``'s own type (int8 labels beside int16 ones, int64 beside uint64), and the
    difference of the extremes of a narrow type may not fit that type (int8 127 - (-128)).

    Parameters
    ----------
    a : ndarray of int or uint
        Labels, each at least ``lo`` and less than ``lo`` plus the range ``dtype`` holds.
    lo : int
        The smallest label (of ``a`` and the arrays coded with it).
    dtype : numpy signed integer type
        The type of the result.

    Returns
    -------
    ndarray of ``dtype``
        The labels minus ``lo`` (0 for the smallest label).

    Examples
    --------
    >>> shift_small_ints(np.array([-128, 127], dtype=np.int8), -128, np.int32).tolist()
    [0, 255]
    >>> shift_small_ints(np.array([2**64 - 1], dtype=np.uint64), 2**64 - 3, np.int32).tolist()
    [2]
    """
    if lo >= 0:  # a >= lo >= 0: the difference fits a's own type
        shifted = a - a.dtype.type(lo) if lo else a
    else:  # lo < 0: every label is small, so int64 holds it whatever a's type
        shifted = a.astype(np.int64) - lo
    return shifted.astype(dtype, copy=False)


def _encode_dense_ints(arrays: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray] | None:
    """Fast path: integer labels within a small range, coded by table look-up."""
    lo = min(int(a.min()) for a in arrays)
    hi = max(int(a.max()) for a in arrays)
    if hi - lo >= _DENSE_RANGE:
        return None
    width = hi - lo + 1
    present = np.zeros(width, dtype=bool)
    shifted = []
    for a in arrays:
        s = shift_small_ints(a, lo, np.int32)
        present[np.bincount(s, minlength=width) > 0] = True
        shifted.append(s)
    values = np.flatnonzero(present)
    lookup = (np.cumsum(present) - 1).astype(_code_dtype(len(values)))
    if len(values) == width:  # every value in the range occurs: codes are the shifted labels
        codes = [s.astype(lookup.dtype, copy=False) for s in shifted]
    else:
        codes = [lookup[s] for s in shifted]
    return codes, small_int_labels(values, lo)


def small_int_labels(offsets: np.ndarray, lo: int) -> np.ndarray:
    """Return the labels ``offsets + lo``: int64, or uint64 where they lie beyond int64.

    Parameters
    ----------
    offsets : ndarray of int
        Labels minus ``lo``, small and non-negative (as :func:`shift_small_ints` gives them).
    lo : int
        The smallest label.

    Returns
    -------
    ndarray of int64 or uint64

    Examples
    --------
    >>> small_int_labels(np.array([0, 2]), 2**63).tolist()
    [9223372036854775808, 9223372036854775810]
    >>> small_int_labels(np.array([0, 255]), -128).dtype
    dtype('int64')
    """
    hi = lo + int(offsets.max(initial=0))
    label_type = np.uint64 if hi >= 2**63 else np.int64
    return offsets.astype(label_type) + label_type(lo)


def _code_dtype(n_classes: int) -> type[np.signedinteger]:
    return np.int8 if n_classes <= 127 else np.int32


@dataclass(frozen=True)
class _Factorized:
    """One array's labels as codes into its own dictionary (``uniques``).

    ``present`` marks the dictionary entries that occur (a categorical may declare
    categories it never uses).
    """

    codes: np.ndarray
    uniques: list[Any]
    present: np.ndarray


# Rows sampled to guess a column's dictionary before every row is coded against it.
_SAMPLE_ROWS = 4096

# An object column whose rows point to at most this many distinct objects is coded by
# object identity (a few shared ``str`` objects, as lists and NumPy take of repeated labels).
_SHARED_OBJECTS = 256

# A column whose sampled rows hold at most this many distinct labels is coded through a small
# perfect hash of them, each row checked against its slot: a few vectorised passes beat a
# general hash table.
_FEW_KEYS = 8

# The same, where the C loops code the rows: one look-up a row whatever the number of labels,
# up to as many as a table of at most 2**14 slots separates (and int8 codes hold).
_NATIVE_KEYS = 64


def _factorize_fixed_width(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Code fixed-width text (numpy ``<U``/``S``) against a dictionary guessed from a sample.

    Every row is coded by binary search and verified; None when the sample missed a label.
    """
    guess = np.unique(arr[:: max(1, len(arr) // _SAMPLE_ROWS)])
    codes = np.searchsorted(guess, arr)
    np.minimum(codes, len(guess) - 1, out=codes)
    if not np.array_equal(guess[codes], arr):
        return None
    return codes, guess


# Rows coded per block: a block's keys and temporaries stay in cache while each key is compared.
_BLOCK_ROWS = 1 << 15

# _LOW_BYTES[n] keeps the low n bytes of a 64-bit word (the first n bytes of packed text).
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)

# The integer keys of rows lo..hi of a column (a view or a block packed on demand).
_KeyBlock = Callable[[int, int], np.ndarray]

# Ranks a column's few keys by their labels, given the keys and a row holding each.
_KeyOrder = Callable[[np.ndarray, np.ndarray], np.ndarray]

# Codes every row of a column in C through a small perfect hash: called with the hash's
# multiplier and shift, its keys and positions (:func:`_key_table`) and the int8 codes to fill;
# returns a status of _native (0 coded, 1 a row cannot be packed, 2 a key outside the table).
_NativeCoder = Callable[[int, int, np.ndarray, np.ndarray, np.ndarray], int]
_CODED, _UNPACKABLE = 0, 1


# Odd 64-bit multipliers tried in turn to hash a column's few keys into a small table.
_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93)


def _key_table(guess: np.ndarray) -> tuple[np.uint64, np.uint64, np.ndarray, np.ndarray] | None:
    """Return a perfect hash of a few keys into a small table.

    A key's slot is ``(key * m) >> shift`` (multiplicative hashing into 16 to 16 384 slots);
    ``positions[slot]`` is the key's position in ``guess`` and ``keys[slot]`` the key itself.
    An empty slot holds ``guess[0]``, which hashes to another slot, so no key that hashes to
    an empty slot equals the key stored there (a 0 there would let the key 0, the empty text,
    pass as the key at position 0). None when none of the multipliers tried separates the keys.
    """
    for bits in (4, 6, 8, 10, 12, 14):
        shift = np.uint64(64 - bits)
        for m in _MULTIPLIERS:
            slots = ((guess * np.uint64(m)) >> shift).astype(np.intp)
            if len(np.unique(slots)) == len(guess):
                positions = np.zeros(1 << bits, dtype=np.int8)
                positions[slots] = np.arange(len(guess))
                keys = np.full(1 << bits, guess[0], dtype=np.uint64)
                keys[slots] = guess
                return np.uint64(m), shift, positions, keys
    return None


def _code_blocks(n: int, guess: np.ndarray, block: _KeyBlock,
                 native: _NativeCoder | None = None) -> np.ndarray | None:
    """Code rows 0..n-1 as positions in ``guess`` (a few keys), block by block.

    Each key is hashed into a small table (:func:`_key_table`) and the key found there is
    compared with it. Returns int8 codes, or None when some row holds a key outside
    ``guess`` (or no hash separates the keys). ``native``, when given, codes all the rows in
    one pass in C instead (it raises ``_Unpackable`` as ``block`` would).
    """
    found = _key_table(guess.astype(np.uint64))
    if found is None:
        return None
    m, shift, positions, table_keys = found
    codes = np.empty(n, dtype=np.int8)
    if native is not None:
        status = native(int(m), int(shift), table_keys, positions, codes)
        if status == _UNPACKABLE:
            raise _Unpackable
        return codes if status == _CODED else None
    for lo in range(0, n, _BLOCK_ROWS):
        hi = min(lo + _BLOCK_ROWS, n)
        keys = block(lo, hi)
        slots = keys * m
        slots >>= shift
        at = slots.view(np.int64)
        if not np.array_equal(np.take(table_keys, at), keys):
            return None
        np.take(positions, at, out=codes[lo:hi])
    return codes


def _factorize_blocks(n: int, sample: tuple[np.ndarray, np.ndarray], block: _KeyBlock, *,
                      order: _KeyOrder | None = None, native: _NativeCoder | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Code integer keys: return the codes, the distinct keys and one row holding each.

    ``sample`` holds the keys of some rows and those rows. When it holds at most
    ``_FEW_KEYS`` distinct keys (``_NATIVE_KEYS`` with ``native``), every row is coded against them block by block
    (:func:`_code_blocks`, with no array of all the keys when ``block`` packs them on
    demand); otherwise, or when the sample missed a key, all the keys are hashed.

    ``order`` ranks the sampled keys (given them and a row holding each) by their labels:
    the rows are then coded in label order, which is usually the class codes already (no
    second pass to re-code them). ``native`` is passed on to :func:`_code_blocks`.
    """
    guess, at = np.unique(sample[0], return_index=True)
    if order is not None:
        ranked = order(guess, sample[1][at])
        guess, at = guess[ranked], at[ranked]
    if len(guess) <= (_FEW_KEYS if native is None else _NATIVE_KEYS):
        codes = _code_blocks(n, guess, block, native)
        if codes is not None:
            return codes, guess, sample[1][at]
    keys = block(0, n)
    hashed, uniques = pd.factorize(keys)
    rows = np.full(len(uniques), -1, dtype=np.intp)
    rows[hashed[sample[1]][::-1]] = sample[1][::-1]
    if (rows < 0).any():  # keys the sample missed: their first rows
        rare = np.flatnonzero(rows[hashed] < 0)
        rows[hashed[rare][::-1]] = rare[::-1]
    return hashed, np.asarray(uniques), rows


def _sample_rows(n: int) -> np.ndarray:
    return np.arange(0, n, max(1, n // _SAMPLE_ROWS))


def _factorize_keys(keys: np.ndarray, order: _KeyOrder | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Code an array of integer keys (see :func:`_factorize_blocks`)."""
    rows = _sample_rows(len(keys))
    native = None
    if _native is not None and keys.dtype.itemsize == 8 and keys.flags.c_contiguous:
        def native(m: int, shift: int, table: np.ndarray, positions: np.ndarray,
                   out: np.ndarray) -> int:
            return _native.code_keys(keys, m, shift, table, positions, out)
    return _factorize_blocks(len(keys), (keys[rows], rows), lambda lo, hi: keys[lo:hi],
                             order=order, native=native)


def _text_order(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Rank text packed first byte lowest: by its bytes first to last, the order of the text."""
    return np.argsort(np.asarray(keys, dtype="<u8").byteswap(), kind="stable")


def _unpack_text(keys: np.ndarray, encoding: str) -> list[str]:
    """Return the texts of packed keys (first byte lowest, NUL bytes after the end)."""
    raw = np.asarray(keys, dtype="<u8").view(np.uint8).reshape(-1, 8)
    return [bytes(row).rstrip(b"\x00").decode(encoding) for row in raw]


class _Unpackable(Exception):
    """Raised by a block of text that cannot be packed (too long, a NUL, a wide character)."""


def _pack_chars(chars: np.ndarray) -> np.ndarray:
    """Pack rows of at most 8 characters (32-bit, each below 256) one byte per character."""
    if chars.max(initial=0) > 0xFF:
        raise _Unpackable
    if chars.shape[1] == 8:
        packed = chars.astype(np.uint8)
    else:
        packed = np.zeros((len(chars), 8), dtype=np.uint8)
        packed[:, : chars.shape[1]] = chars
    return packed.view("<u8").ravel()


def _factorize_packed_text(arr: np.ndarray) -> tuple[np.ndarray, list[str]] | None:
    """Code numpy ``<U`` text of at most 8 characters below U+0100 as 64-bit integers.

    Every row is packed into one integer (one byte per character, the first character
    lowest), a block at a time, and the integers are coded instead of the text; each block
    is checked for wider characters while it is packed, so the text is read once.

    A ``<U`` row is its characters as 32-bit integers padded with zeros, so equal labels
    give equal integers and the packing is exact. None for longer or wider text.
    """
    width = arr.dtype.itemsize // 4
    if arr.dtype.kind != "U" or not 0 < width <= 8:
        return None
    chars = np.ascontiguousarray(arr).view(np.uint32).reshape(len(arr), width)
    rows = _sample_rows(len(arr))
    native = None
    if _native is not None:
        def native(m: int, shift: int, table: np.ndarray, positions: np.ndarray,
                   out: np.ndarray) -> int:
            return _native.code_ucs4(chars, width, m, shift, table, positions, out)
    try:
        codes, keys, _ = _factorize_blocks(len(arr), (_pack_chars(chars[rows]), rows),
                                           lambda lo, hi: _pack_chars(chars[lo:hi]),
                                           order=_text_order, native=native)
    except _Unpackable:
        return None
    return codes, _unpack_text(keys, "latin-1")


def _arrow_text_chunks(arr: Any) -> list[Any] | None:
    """Return the Arrow chunks of a pandas string array stored by pyarrow, else None."""
    dtype = getattr(arr, "dtype", None)
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return None
    import pyarrow as pa  # present whenever pandas stores strings with it

    stored = arr.__arrow_array__()  # the Arrow data itself (pandas' Arrow protocol), no copy
    chunks = stored.chunks if isinstance(stored, pa.ChunkedArray) else [stored]
    if not all(pa.types.is_string(c.type) or pa.types.is_large_string(c.type) for c in chunks):
        return None
    return chunks


def _unaligned_words(data: np.ndarray) -> np.ndarray:
    """Return the 8 bytes starting at every position of ``data`` as little-endian words.

    A strided view (stride one byte), not a copy; positions ``0 .. len(data) - 8``.
    """
    return np.ndarray((max(len(data) - 7, 0),), dtype="<u8", buffer=data, strides=(1,))


class _ArrowText:
    """Rows of Arrow string arrays packed into 64-bit integers on demand, a block at a time.

    Byte j of a row's UTF-8 text becomes byte j (from the low end) of its integer, the bytes
    after its end 0, read straight from each array's offsets and data buffers (a sliced
    array starts at its own offset). Distinct texts give distinct integers when no text is
    longer than 8 bytes or holds a NUL byte (else "a" and "a" followed by a NUL would be one
    integer): :meth:`block` checks its rows for both and raises ``_Unpackable``, so every
    row is checked once, while it is packed.
    """

    def __init__(self, chunks: list[Any], offsets: list[np.ndarray], data: list[np.ndarray]
                 ) -> None:
        self.chunks = chunks
        self.offsets = offsets
        self.data = data
        # Each chunk's data as aligned 64-bit words, and the same words one further on: a
        # row starting r bytes into word q is (word q >> 8r) | (word q+1 << (64 - 8r)).
        self.words = [(w, w[1:]) for w in
                      (np.frombuffer(d[: len(d) // 8 * 8], dtype="<u8") for d in data)]
        # Rows that start less than 16 bytes before the end of their buffer are read from a
        # zero-padded copy of its last bytes.
        self.tails = []
        for d in data:
            tail = np.zeros(32, dtype=np.uint8)
            base = max(len(d) - 16, 0)
            tail[: len(d) - base] = d[base:]
            self.tails.append((base, _unaligned_words(tail)))
        self.starts = np.cumsum([0] + [len(o) - 1 for o in offsets])

    @classmethod
    def of(cls, chunks: list[Any]) -> _ArrowText | None:
        """Read the buffers of ``chunks``; None when one holds a missing value."""
        import pyarrow as pa

        offsets, data = [], []
        for chunk in chunks:
            if chunk.null_count:
                return None
            _, offset_buffer, data_buffer = chunk.buffers()
            width = 8 if pa.types.is_large_string(chunk.type) else 4
            offsets.append(np.frombuffer(offset_buffer, dtype=f"<i{width}", count=len(chunk) + 1,
                                         offset=chunk.offset * width).astype(np.int64, copy=False))
            data.append(np.frombuffer(data_buffer if data_buffer is not None else b"",
                                      dtype=np.uint8))
        return cls(chunks, offsets, data)

    def _pack(self, c: int, at: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Pack the rows of chunk ``c`` starting at bytes ``at`` (increasing) of ``lengths``."""
        if lengths.max(initial=0) > 8:
            raise _Unpackable
        keys = np.take(_LOW_BYTES, lengths)
        cut = int(np.searchsorted(at, len(self.data[c]) - 16, side="right"))
        word, next_word = self.words[c]
        q = at[:cut] >> 3
        r = (at[:cut] & 7).view(np.uint64)
        r <<= np.uint64(3)
        inner = word[q] >> r
        inner |= next_word[q] << (np.uint64(64) - r)  # numpy shifts by 64 give 0
        keys[:cut] &= inner
        if cut < len(at):
            base, tail = self.tails[c]
            keys[cut:] &= tail[at[cut:] - base]
        return keys

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """Pack the given rows (increasing positions in the whole column); lengths checked."""
        chunk = np.searchsorted(self.starts, rows, side="right") - 1
        out = []
        for c, o in enumerate(self.offsets):
            mine = rows[chunk == c] - self.starts[c]
            out.append(self._pack(c, o[mine], o[mine + 1] - o[mine]))
        return np.concatenate(out)

    def texts(self, rows: np.ndarray) -> set[bytes]:
        """Return the distinct texts of the given rows (positions in the column), as UTF-8."""
        import pyarrow as pa

        taken = pa.chunked_array(self.chunks).take(pa.array(rows))
        return {t.encode("utf-8") for t in taken.to_pylist()}

    def code(self, m: int, shift: int, table: np.ndarray, positions: np.ndarray,
             out: np.ndarray) -> int:
        """Code every row in C, chunk by chunk (a ``_NativeCoder``; needs ``_native``)."""
        native = _native
        if native is None:
            raise RuntimeError("precmp_lib.core._native was not built")
        for c, (offsets, data) in enumerate(zip(self.offsets, self.data, strict=True)):
            rows = out[self.starts[c]: self.starts[c + 1]]
            status = native.code_text(offsets, data, m, shift, table, positions, rows)
            if status != _CODED:
                return int(status)
        return _CODED

    def block(self, lo: int, hi: int) -> np.ndarray:
        """Pack rows lo..hi-1 of the whole column, checking them for length and NUL bytes."""
        out = []
        first = int(np.searchsorted(self.starts, lo, side="right")) - 1
        for c in range(first, len(self.offsets)):
            if self.starts[c] >= hi:
                break
            a, b = max(lo, self.starts[c]) - self.starts[c], min(hi, self.starts[c + 1]) - self.starts[c]
            if a >= b:  # an empty chunk
                continue
            o = self.offsets[c][a: b + 1]
            if not self.data[c][o[0]:o[-1]].all():
                raise _Unpackable
            out.append(self._pack(c, o[:-1], np.diff(o)))
        return out[0] if len(out) == 1 else np.concatenate(out)


def _factorize_arrow_text(arr: Any) -> tuple[np.ndarray, list[str]] | None:
    """Code a pandas string column stored by Arrow whose texts are at most 8 bytes long.

    Each row is packed into one 64-bit integer from the Arrow buffers (:class:`_ArrowText`)
    and the integers are coded as packed numpy text is. None for other arrays, longer texts
    and texts holding a NUL byte: the caller hashes those.
    """
    chunks = _arrow_text_chunks(arr)
    text = None if chunks is None else _ArrowText.of(chunks)
    if text is None:
        return None
    rows = _sample_rows(len(arr))
    try:
        codes, keys, _ = _factorize_blocks(len(arr), (text.rows(rows), rows), text.block,
                                           order=_text_order,
                                           native=text.code if _native is not None else None)
    except _Unpackable:
        return _factorize_long_text(text, len(arr))
    return codes, _unpack_text(keys, "utf-8")


# The key of a text of any length is a hash of it (``_native.hash_texts``): a perfect hash of
# a few labels' keys, as :func:`_key_table` finds it, with each label's slot.
_HashedLabels = tuple[int, int, np.ndarray, np.ndarray]

# ``_native.code_texts`` reads a text of up to this many 8-byte words as that many, and so
# wants each label zero-padded to whole words, at least this many (SHORT_WORDS in _native.c).
_SHORT_WORDS = 4


def _hashed_labels(data: bytes, offsets: np.ndarray) -> _HashedLabels | None:
    """Hash a few labels (bytes ``offsets[i] .. offsets[i+1]`` of ``data``) into a table.

    Returns the multiplier, the shift, the positions (-1 in empty slots) and each label's slot;
    None when two labels share a key or no multiplier separates them.
    """
    if _native is None:
        return None
    keys = np.empty(len(offsets) - 1, dtype=np.uint64)
    _native.hash_texts(offsets, np.frombuffer(data, dtype=np.uint8), keys)
    found = _key_table(keys)
    if found is None:
        return None
    m, shift, table_positions, _ = found
    slots = ((keys * m) >> shift).astype(np.intp)
    positions = np.full(len(table_positions), -1, dtype=np.int8)
    positions[slots] = np.arange(len(slots))
    return int(m), int(shift), positions, slots


def _factorize_long_text(text: _ArrowText, n: int) -> tuple[np.ndarray, list[str]] | None:
    """Code Arrow text of a few labels of any length (or with NUL bytes) in C.

    The labels are guessed from the sampled rows; each row's text is hashed to a slot and
    compared with the label there byte for byte (``_native.code_texts``). None without the C
    module, with many labels, or when a row holds a label the sample missed.
    """
    if _native is None:
        return None
    labels = sorted(text.texts(_sample_rows(n)))  # UTF-8 byte order: the text's order
    if len(labels) > _NATIVE_KEYS:
        return None
    offsets = np.cumsum([0, *map(len, labels)], dtype=np.int64)
    hashed = _hashed_labels(b"".join(labels), offsets)
    if hashed is None:
        return None
    m, shift, positions, slots = hashed
    words = [b.ljust(max(-(-len(b) // 8), _SHORT_WORDS) * 8, b"\0") for b in labels]
    starts = np.zeros(len(positions), dtype=np.int64)
    starts[slots] = np.cumsum([0, *map(len, words[:-1])])
    lengths = np.full(len(positions), -1, dtype=np.int64)
    lengths[slots] = np.diff(offsets)
    data = np.frombuffer(b"".join(words), dtype=np.uint8)
    codes = np.empty(n, dtype=np.int8)
    for c, (o, d) in enumerate(zip(text.offsets, text.data, strict=True)):
        out = codes[text.starts[c]: text.starts[c + 1]]
        if _native.code_texts(o, d, m, shift, starts, lengths, data, positions, out) != _CODED:
            return None
    return codes, [b.decode("utf-8") for b in labels]


def _factorize_fixed_rows(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Code numpy text (``<U``, ``S``) of a few labels of any width in C.

    The labels are guessed from the sampled rows; each row's stored bytes are hashed to a slot
    and compared with the label there (``_native.code_rows``; equal text is equal bytes, as
    numpy pads with NULs). None without the C module, with many labels, or when a row holds a
    label the sample missed.
    """
    width = arr.dtype.itemsize
    if _native is None or width == 0:
        return None
    guess = np.unique(arr[_sample_rows(len(arr))])
    if len(guess) > _NATIVE_KEYS:
        return None
    label_bytes = np.ascontiguousarray(guess).tobytes()
    hashed = _hashed_labels(label_bytes, np.arange(len(guess) + 1, dtype=np.int64) * width)
    if hashed is None:
        return None
    m, shift, positions, slots = hashed
    slot_rows = np.zeros((len(positions), -(-width // 8) * 8), dtype=np.uint8)  # whole words
    slot_rows[slots, :width] = np.frombuffer(label_bytes, dtype=np.uint8).reshape(-1, width)
    codes = np.empty(len(arr), dtype=np.int8)
    rows = np.ascontiguousarray(arr).view(np.uint8)
    if _native.code_rows(rows, width, m, shift, slot_rows, positions, codes) != _CODED:
        return None
    return codes, guess


class _Addresses:
    """The element pointers of an object array, as unsigned integers (array interface).

    A read-only view of the same buffer; it holds the array, so the objects and their
    addresses stay alive.
    """

    def __init__(self, arr: np.ndarray) -> None:
        self.array = arr
        self.__array_interface__ = {
            "shape": arr.shape, "strides": arr.strides, "typestr": np.dtype(np.uintp).str,
            "data": (arr.__array_interface__["data"][0], True), "version": 3,
        }


def _factorize_shared_objects(arr: np.ndarray) -> tuple[np.ndarray, list[Any]] | None:
    """Code an object column of a few shared ``str`` objects by the objects' addresses.

    Addresses are integers (no Python call per row); they are then merged by value (two
    equal strings at two addresses are one label). None when the rows hold many distinct
    objects (built one by one) or anything but strings: the caller hashes the values.
    """
    addresses = np.asarray(_Addresses(arr))
    if len(np.unique(addresses[:: max(1, len(arr) // _SAMPLE_ROWS)])) > _SHARED_OBJECTS // 4:
        return None

    def by_text(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
        objects = arr[rows].tolist()
        if not all(isinstance(v, str) for v in objects):
            return np.arange(len(objects))
        return np.array(sorted(range(len(objects)), key=objects.__getitem__), dtype=np.intp)

    codes, unique_addresses, rows = _factorize_keys(addresses, by_text)
    if len(unique_addresses) > _SHARED_OBJECTS:
        return None
    objects = arr[rows].tolist()
    if not all(isinstance(v, str) for v in objects):
        return None
    position: dict[Any, int] = {}
    table = np.array([position.setdefault(v, len(position)) for v in objects], dtype=np.intp)
    if len(position) < len(objects):
        codes = table[codes]
    return codes, list(position)


def _categories_present(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Mark the categories that occur.

    They are counted on the first rows, and only the categories not seen there are
    searched for in the rest (usually none, so the codes are not read again).
    """
    present = np.bincount(codes[:65536], minlength=n_categories) > 0
    for k in np.flatnonzero(~present):
        present[k] = bool(np.any(codes == k))
    return present


def _factorize(arr: Any, name: str) -> _Factorized:
    """Code one label array against its own dictionary, touching each row once.

    An object array is checked here (missing values are code -1, the text-and-number check
    needs only the dictionary).
    """
    if isinstance(arr, pd.Categorical):
        codes = np.asarray(arr.codes)
        present = _categories_present(codes, len(arr.categories))
        return _Factorized(codes, np.asarray(arr.categories, dtype=object).tolist(), present)
    fast = _factorize_fast(arr) if isinstance(arr, np.ndarray) else _factorize_arrow_text(arr)
    if fast is not None:
        return _Factorized(fast[0], fast[1], np.ones(len(fast[1]), dtype=bool))
    codes, found = pd.factorize(arr)
    uniques = np.asarray(found, dtype=object).tolist()
    if isinstance(arr, np.ndarray) and arr.dtype == object:
        if (codes < 0).any():
            raise _missing_error(name, _first_missing(codes < 0))
        _check_one_form_per_label(uniques, name)
    uniques = [_python_label(v) for v in uniques]
    return _Factorized(np.asarray(codes), uniques, np.ones(len(uniques), dtype=bool))


def _factorize_fast(arr: np.ndarray) -> tuple[np.ndarray, list[Any]] | None:
    """Code numpy text or shared-string object columns without hashing a Python object per row.

    Returns the codes and the plain labels; None where only hashing the values will do.
    """
    found: tuple[np.ndarray, Any] | None = None
    if arr.dtype == object:
        found = _factorize_shared_objects(arr)
    elif arr.dtype.kind in "US":
        found = (_factorize_packed_text(arr) or _factorize_fixed_rows(arr)
                 or _factorize_fixed_width(arr))
    if found is None:
        return None
    codes, uniques = found
    return np.asarray(codes), [_python_label(v) for v in np.asarray(uniques, dtype=object).tolist()]


def _python_label(value: Any) -> Any:
    """Return a dictionary entry as a plain Python value; whole-number floats as ints."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer() and abs(value) < 2.0**53:
        return int(value)
    return value


# Columns of at least this many rows are coded side by side, a thread each, on as many threads
# as the process may use: the C loops release the GIL for the whole column.
_PARALLEL_ROWS = 1 << 20


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _factorize_columns(arrays: Sequence[Any], names: Sequence[str]) -> list[_Factorized]:
    """Code each array once (an array given twice, the same object, once), in column order.

    Large columns are coded in a thread pool when the C loops are built; an error is that of
    the first failing column, as one after another would give.
    """
    distinct: dict[int, tuple[Any, str]] = {}  # each array once, with its first name
    for a, n in zip(arrays, names, strict=True):
        distinct.setdefault(id(a), (a, n))
    workers = min(len(distinct), _usable_cores())
    if _native is None or workers < 2 or min(len(a) for a in arrays) < _PARALLEL_ROWS:
        coded = {key: _factorize(a, n) for key, (a, n) in distinct.items()}
    else:
        with ThreadPoolExecutor(workers) as pool:
            futures = {key: pool.submit(_factorize, a, n) for key, (a, n) in distinct.items()}
            coded = {key: f.result() for key, f in futures.items()}
    return [coded[id(a)] for a in arrays]
