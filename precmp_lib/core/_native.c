/*
 * precmp_lib.core._native: label coding loops in C, optional.
 *
 * Each code_* function codes every row of one column against a small perfect hash of the
 * labels guessed from a sample of its rows (factorize._key_table): a row's 64-bit key goes to
 * slot (key * multiplier) >> shift, and the row is coded as positions[slot] when the label
 * stored in that slot is the row's. The key is the text itself for short labels (code_keys,
 * code_ucs4, code_text: up to 8 bytes packed into one word, compared as one word) and a hash
 * of the text for any other (code_texts, code_rows: the text then compared byte for byte).
 * The numpy kernels in factorize.py do the short-label work in several passes over each
 * block; here it is one pass, with no temporary arrays.
 *
 * Every code_* function returns
 *   0  every row coded (codes written to `out`),
 *   1  a row cannot be read as a key (text over 8 bytes or holding a NUL byte, a character
 *      above U+00FF, or offsets outside the data),
 *   2  a row's label is not in the table (the sample missed a label),
 * and stops at the first row that is not coded; the caller then takes its general path. The
 * GIL is released while rows are coded. Built when a C compiler is present; without it the
 * numpy kernels and hashing give the same codes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { CODED = 0, UNPACKABLE = 1, MISSED = 2 };

/* LOW_BYTES[n] keeps the low n bytes of a word (a table, so no branch on the length). */
static const uint64_t LOW_BYTES[9] = {
    0, 0xFFULL, 0xFFFFULL, 0xFFFFFFULL, 0xFFFFFFFFULL, 0xFFFFFFFFFFULL, 0xFFFFFFFFFFFFULL,
    0xFFFFFFFFFFFFFFULL, 0xFFFFFFFFFFFFFFFFULL,
};

/* The 8 bytes at p as a little-endian word (byte j at bits 8j). */
static inline uint64_t load8(const unsigned char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
#if PY_BIG_ENDIAN
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* The k <= 8 bytes at p, zero-padded to a word as load8 reads it; `avail` bytes from p exist. */
static inline uint64_t tail8(const unsigned char *p, int64_t k, int64_t avail) {
    if (avail >= 8) {
        return load8(p) & LOW_BYTES[k];
    }
    unsigned char word[8] = {0};
    memcpy(word, p, (size_t)k);
    return load8(word);
}

/* One read of a value another thread may change: the checks and the use see the same value. */
static inline int64_t read_once(const int64_t *p) { return *(const volatile int64_t *)p; }

typedef struct {
    uint64_t multiplier;
    int shift;
    const uint64_t *keys;
    const int8_t *positions;
} Table;

/* Buffers held for the length of one call. */
typedef struct {
    Py_buffer views[8]; /* at most eight buffers a call */
    int held;
} Held;

static void release_all(Held *held) {
    for (int i = 0; i < held->held; i++) {
        PyBuffer_Release(&held->views[i]);
    }
    held->held = 0;
}

/* Take a C-contiguous buffer of `itemsize`-byte items (writable if asked); NULL on error. */
static Py_buffer *take_buffer(Held *held, PyObject *obj, Py_ssize_t itemsize, int writable,
                              const char *what) {
    Py_buffer *view = &held->views[held->held];
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        return NULL;
    }
    held->held++;
    if (view->itemsize != itemsize || view->len % itemsize != 0) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd-byte items; got %zd-byte items", what,
                     itemsize, view->itemsize);
        return NULL;
    }
    return view;
}

/* Read multiplier and shift, and check that `positions` has a slot for every hash value
   (their number to `size`); -1 with an exception on error. */
static int read_hash(Held *held, PyObject *multiplier, int shift, PyObject *positions,
                     Table *table, Py_ssize_t *size) {
    int bits = 64 - shift;
    if (bits < 1 || bits > 16) {
        PyErr_Format(PyExc_ValueError, "shift must be 48 to 63; got %d", shift);
        return -1;
    }
    table->multiplier = PyLong_AsUnsignedLongLong(multiplier);
    if (PyErr_Occurred()) {
        return -1;
    }
    Py_buffer *p = take_buffer(held, positions, 1, 0, "positions");
    if (p == NULL) {
        return -1;
    }
    *size = (Py_ssize_t)1 << bits;
    if (p->len != *size) {
        PyErr_Format(PyExc_ValueError, "positions must have %zd slots", *size);
        return -1;
    }
    table->shift = shift;
    table->keys = NULL;
    table->positions = (const int8_t *)p->buf;
    return 0;
}

/* Read the table (multiplier, shift, keys, positions); -1 with an exception on error. */
static int read_table(Held *held, PyObject *multiplier, int shift, PyObject *keys,
                      PyObject *positions, Table *table) {
    Py_ssize_t size;
    if (read_hash(held, multiplier, shift, positions, table, &size) < 0) {
        return -1;
    }
    Py_buffer *k = take_buffer(held, keys, 8, 0, "keys");
    if (k == NULL) {
        return -1;
    }
    if (k->len / 8 != size) {
        PyErr_Format(PyExc_ValueError, "keys must have %zd slots", size);
        return -1;
    }
    table->keys = (const uint64_t *)k->buf;
    return 0;
}

static inline int lookup(Table table, uint64_t key, int8_t *code) {
    size_t slot = (size_t)((key * table.multiplier) >> table.shift);
    if (table.keys[slot] != key) {
        return 0;
    }
    *code = table.positions[slot];
    return 1;
}

/* code_keys(keys, multiplier, shift, table_keys, positions, out): 64-bit keys as they are. */
static PyObject *code_keys(PyObject *self, PyObject *args) {
    PyObject *keys_obj, *multiplier, *table_keys, *positions, *out_obj;
    int shift;
    if (!PyArg_ParseTuple(args, "OOiOOO", &keys_obj, &multiplier, &shift, &table_keys,
                          &positions, &out_obj)) {
        return NULL;
    }
    Held held = {.held = 0};
    Table table;
    Py_buffer *keys = take_buffer(&held, keys_obj, 8, 0, "keys");
    Py_buffer *out = keys ? take_buffer(&held, out_obj, 1, 1, "out") : NULL;
    if (out == NULL || read_table(&held, multiplier, shift, table_keys, positions, &table) < 0) {
        release_all(&held);
        return NULL;
    }
    Py_ssize_t n = keys->len / 8;
    if (out->len != n) {
        release_all(&held);
        return PyErr_Format(PyExc_ValueError, "out must have %zd rows", n);
    }
    const uint64_t *restrict k = (const uint64_t *)keys->buf;
    int8_t *restrict codes = (int8_t *)out->buf;
    int status = CODED;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!lookup(table, k[i], &codes[i])) {
            status = MISSED;
            break;
        }
    }
    Py_END_ALLOW_THREADS
    release_all(&held);
    return PyLong_FromLong(status);
}

/* The key of one <U row of `width` characters; 0 when a character is above U+00FF. */
static inline int ucs4_key(const uint32_t *c, int width, uint64_t *key) {
    uint64_t packed = 0;
    uint32_t wide = 0;
    for (int j = 0; j < width; j++) {
        wide |= c[j];
        packed |= (uint64_t)(c[j] & 0xFF) << (8 * j);
    }
    *key = packed;
    return wide <= 0xFF;
}

/* Rows first..n-1 of code_ucs4, a character at a time. */
static int ucs4_rows(const uint32_t *c, Py_ssize_t first, Py_ssize_t n, int width, Table table,
                     int8_t *restrict codes) {
    for (Py_ssize_t i = first; i < n; i++) {
        uint64_t key;
        if (!ucs4_key(c + i * width, width, &key)) {
            return UNPACKABLE;
        }
        if (!lookup(table, key, &codes[i])) {
            return MISSED;
        }
    }
    return CODED;
}

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>

/*
 * Rows 0..n-1 of code_ucs4 with SSE2: eight characters are read at once (past the row's end
 * when it is shorter, so the caller keeps the last rows for ucs4_rows), the characters past
 * the row's end are zeroed, and the eight are narrowed to bytes by two saturating packs, exact
 * once every character is checked to be below 256.
 */
static int ucs4_rows_sse2(const uint32_t *c, Py_ssize_t n, int width, Table table,
                          int8_t *restrict codes) {
    int32_t lanes[8];
    for (int j = 0; j < 8; j++) {
        lanes[j] = j < width ? -1 : 0;
    }
    const __m128i keep_lo = _mm_loadu_si128((const __m128i *)lanes);
    const __m128i keep_hi = _mm_loadu_si128((const __m128i *)(lanes + 4));
    const __m128i above = _mm_set1_epi32((int32_t)0xFFFFFF00);
    const __m128i zero = _mm_setzero_si128();
    for (Py_ssize_t i = 0; i < n; i++, c += width) {
        __m128i lo = _mm_and_si128(_mm_loadu_si128((const __m128i *)c), keep_lo);
        __m128i hi = _mm_and_si128(_mm_loadu_si128((const __m128i *)(c + 4)), keep_hi);
        __m128i wide = _mm_and_si128(_mm_or_si128(lo, hi), above);
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(wide, zero)) != 0xFFFF) {
            return UNPACKABLE;
        }
        __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(lo, hi), zero);
        uint64_t key = (uint64_t)_mm_cvtsi128_si64(bytes);
        if (!lookup(table, key, &codes[i])) {
            return MISSED;
        }
    }
    return CODED;
}
#endif

/* Every row of code_ucs4. */
static int ucs4_all(const uint32_t *c, Py_ssize_t n, int width, Table table,
                    int8_t *restrict codes) {
    Py_ssize_t first = 0;
#if defined(__SSE2__) && defined(__x86_64__)
    /* the rows whose eight characters read from their start lie inside the buffer: all but
       the last ceil(8 / width) - 1 = 7 / width */
    Py_ssize_t inside = n - 7 / width;
    if (inside > 0) {
        int status = ucs4_rows_sse2(c, inside, width, table, codes);
        if (status != CODED) {
            return status;
        }
        first = inside;
    }
#endif
    return ucs4_rows(c, first, n, width, table, codes);
}

/*
 * code_ucs4(chars, width, multiplier, shift, table_keys, positions, out): numpy <U text of
 * `width` (1 to 8) characters a row, as 32-bit characters. Character j of a row becomes byte j
 * (from the low end) of its key, which needs every character below 256.
 */
static PyObject *code_ucs4(PyObject *self, PyObject *args) {
    PyObject *chars_obj, *multiplier, *table_keys, *positions, *out_obj;
    int width, shift;
    if (!PyArg_ParseTuple(args, "OiOiOOO", &chars_obj, &width, &multiplier, &shift, &table_keys,
                          &positions, &out_obj)) {
        return NULL;
    }
    if (width < 1 || width > 8) {
        return PyErr_Format(PyExc_ValueError, "width must be 1 to 8; got %d", width);
    }
    Held held = {.held = 0};
    Table table;
    Py_buffer *chars = take_buffer(&held, chars_obj, 4, 0, "chars");
    Py_buffer *out = chars ? take_buffer(&held, out_obj, 1, 1, "out") : NULL;
    if (out == NULL || read_table(&held, multiplier, shift, table_keys, positions, &table) < 0) {
        release_all(&held);
        return NULL;
    }
    Py_ssize_t n = out->len;
    if (chars->len != n * width * 4) {
        release_all(&held);
        return PyErr_Format(PyExc_ValueError, "chars must hold %zd rows of %d characters", n,
                            width);
    }
    const uint32_t *c = (const uint32_t *)chars->buf;
    int8_t *restrict codes = (int8_t *)out->buf;
    int status = CODED;
    Py_BEGIN_ALLOW_THREADS
    status = ucs4_all(c, n, width, table, codes);
    Py_END_ALLOW_THREADS
    release_all(&held);
    return PyLong_FromLong(status);
}

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/*
 * code_text(offsets, data, multiplier, shift, table_keys, positions, out): Arrow text, row i
 * being bytes offsets[i] .. offsets[i+1] of data (64-bit offsets). Byte j of a row becomes
 * byte j (from the low end) of its key, the bytes after its end 0: exact for texts of at most
 * 8 bytes and no NUL byte, which are checked. Offsets outside the data also stop the loop.
 */
static PyObject *code_text(PyObject *self, PyObject *args) {
    PyObject *offsets_obj, *data_obj, *multiplier, *table_keys, *positions, *out_obj;
    int shift;
    if (!PyArg_ParseTuple(args, "OOOiOOO", &offsets_obj, &data_obj, &multiplier, &shift,
                          &table_keys, &positions, &out_obj)) {
        return NULL;
    }
    Held held = {.held = 0};
    Table table;
    Py_buffer *offsets = take_buffer(&held, offsets_obj, 8, 0, "offsets");
    Py_buffer *data = offsets ? take_buffer(&held, data_obj, 1, 0, "data") : NULL;
    Py_buffer *out = data ? take_buffer(&held, out_obj, 1, 1, "out") : NULL;
    if (out == NULL || read_table(&held, multiplier, shift, table_keys, positions, &table) < 0) {
        release_all(&held);
        return NULL;
    }
    Py_ssize_t n = out->len;
    if (offsets->len / 8 != n + 1) {
        release_all(&held);
        return PyErr_Format(PyExc_ValueError, "offsets must have %zd entries", n + 1);
    }
    const int64_t *o = (const int64_t *)offsets->buf;
    const unsigned char *restrict bytes = (const unsigned char *)data->buf;
    int64_t size = (int64_t)data->len;
    int8_t *restrict codes = (int8_t *)out->buf;
    int status = CODED;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t start = read_once(o + i), end = read_once(o + i + 1);
        if (start < 0 || end < start || end - start > 8 || end > size) {
            status = UNPACKABLE;
            break;
        }
        int64_t length = end - start;
        uint64_t key = tail8(bytes + start, length, size - start);
        uint64_t mask = LOW_BYTES[length];
        /* a zero byte among the text's own bytes (the lowest flagged byte is always a zero) */
        if (((key - ONES) & ~key & HIGHS) & mask) {
            status = UNPACKABLE;
            break;
        }
        if (!lookup(table, key, &codes[i])) {
            status = MISSED;
            break;
        }
    }
    Py_END_ALLOW_THREADS
    release_all(&held);
    return PyLong_FromLong(status);
}

/*
 * The key of a text of any length (`avail` >= length bytes readable from p): its 8-byte words,
 * the last one zero-padded, each times its own odd constant, summed (independent products, so
 * long texts are hashed at one word a cycle), then mixed. Only ever compared with keys made by
 * the same function on the same machine, and only to pick a slot: the text itself is compared
 * after, so keys that collide only send the column to the general path.
 */
#define HASH_START 0x9E3779B97F4A7C15ULL
#define HASH_K0 0xBF58476D1CE4E5B9ULL
#define HASH_STEP 0x94D049BB133111EAULL /* even: every word's constant stays odd */

static inline uint64_t hash_finish(uint64_t h) {
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ULL;
    return h ^ (h >> 29);
}

static inline uint64_t text_hash(const unsigned char *p, int64_t length, int64_t avail) {
    uint64_t h = (uint64_t)length * HASH_START, k = HASH_K0;
    int64_t j = 0;
    for (; j + 8 <= length; j += 8, k += HASH_STEP) {
        h += load8(p + j) * k;
    }
    if (j < length) {
        h += tail8(p + j, length - j, avail - j) * k;
    }
    return hash_finish(h);
}

/* Texts of up to SHORT_WORDS words are read as that many words, those past the end zeroed
   (they add nothing to the key), so that no branch depends on the text's length. */
#define SHORT_WORDS 4

/* Bytes a label of `length` bytes takes in code_texts' labels: whole words, at least
   SHORT_WORDS of them. */
static inline int64_t label_room(int64_t length) {
    int64_t words = (length + 7) / 8;
    return 8 * (words > SHORT_WORDS ? words : SHORT_WORDS);
}

/* The code of a text of at most 8 * SHORT_WORDS bytes with as many readable; -1 if none. */
static inline int short_text_code(const unsigned char *text, int64_t length, Table table,
                                  const int64_t *slot_start, const int64_t *slot_length,
                                  const unsigned char *label_bytes) {
    uint64_t w[SHORT_WORDS], h = (uint64_t)length * HASH_START, k = HASH_K0;
    for (int j = 0; j < SHORT_WORDS; j++, k += HASH_STEP) {
        int64_t left = length - 8 * j;
        w[j] = load8(text + 8 * j) & LOW_BYTES[left < 0 ? 0 : left > 8 ? 8 : left];
        h += w[j] * k;
    }
    size_t slot = (size_t)((hash_finish(h) * table.multiplier) >> table.shift);
    const unsigned char *label = label_bytes + slot_start[slot];
    uint64_t differ = (uint64_t)(slot_length[slot] != length);
    for (int j = 0; j < SHORT_WORDS; j++) {
        differ |= w[j] ^ load8(label + 8 * j);
    }
    return differ ? -1 : table.positions[slot];
}

/* Whether the text at p is the label at `label`, stored zero-padded to whole words. */
static inline int same_text(const unsigned char *p, int64_t length, int64_t avail,
                            const unsigned char *label) {
    int64_t j = 0;
    for (; j + 8 <= length; j += 8) {
        if (load8(p + j) != load8(label + j)) {
            return 0;
        }
    }
    return j == length || tail8(p + j, length - j, avail - j) == load8(label + j);
}

/* Bytes a label of `length` bytes takes, zero-padded to whole words. */
static inline int64_t padded(int64_t length) { return (length + 7) / 8 * 8; }

/* Check offsets of n rows against a data buffer of `size` bytes: 1 where all are readable. */
static int readable(const int64_t *o, Py_ssize_t n, int64_t size) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (o[i] < 0 || o[i + 1] < o[i] || o[i + 1] > size) {
            return 0;
        }
    }
    return 1;
}

/* hash_texts(offsets, data, out): the key of each text (rows as in code_text; out uint64). */
static PyObject *hash_texts(PyObject *self, PyObject *args) {
    PyObject *offsets_obj, *data_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOO", &offsets_obj, &data_obj, &out_obj)) {
        return NULL;
    }
    Held held = {.held = 0};
    Py_buffer *offsets = take_buffer(&held, offsets_obj, 8, 0, "offsets");
    Py_buffer *data = offsets ? take_buffer(&held, data_obj, 1, 0, "data") : NULL;
    Py_buffer *out = data ? take_buffer(&held, out_obj, 8, 1, "out") : NULL;
    if (out == NULL) {
        release_all(&held);
        return NULL;
    }
    Py_ssize_t n = out->len / 8;
    const int64_t *o = (const int64_t *)offsets->buf;
    if (offsets->len / 8 != n + 1 || !readable(o, n, (int64_t)data->len)) {
        release_all(&held);
        return PyErr_Format(PyExc_ValueError, "offsets must be %zd positions in the data", n + 1);
    }
    const unsigned char *bytes = (const unsigned char *)data->buf;
    uint64_t *keys = (uint64_t *)out->buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        keys[i] = text_hash(bytes + o[i], o[i + 1] - o[i], (int64_t)data->len - o[i]);
    }
    release_all(&held);
    Py_RETURN_NONE;
}

/*
 * code_texts(offsets, data, multiplier, shift, slot_starts, slot_lengths, labels, positions,
 * out): Arrow text of any length (rows as in code_text). The label in slot s is the
 * slot_lengths[s] bytes from slot_starts[s] of `labels`, stored zero-padded to whole words,
 * at least SHORT_WORDS of them (length -1: an empty slot); a row is coded when its text is
 * that label, byte for byte.
 */
static PyObject *code_texts(PyObject *self, PyObject *args) {
    PyObject *offsets_obj, *data_obj, *multiplier, *starts_obj, *lengths_obj, *labels_obj,
        *positions, *out_obj;
    int shift;
    if (!PyArg_ParseTuple(args, "OOOiOOOOO", &offsets_obj, &data_obj, &multiplier, &shift,
                          &starts_obj, &lengths_obj, &labels_obj, &positions, &out_obj)) {
        return NULL;
    }
    Held held = {.held = 0};
    Table table;
    Py_ssize_t size;
    Py_buffer *offsets = take_buffer(&held, offsets_obj, 8, 0, "offsets");
    Py_buffer *data = offsets ? take_buffer(&held, data_obj, 1, 0, "data") : NULL;
    Py_buffer *out = data ? take_buffer(&held, out_obj, 1, 1, "out") : NULL;
    Py_buffer *starts = out ? take_buffer(&held, starts_obj, 8, 0, "slot_starts") : NULL;
    Py_buffer *lengths = starts ? take_buffer(&held, lengths_obj, 8, 0, "slot_lengths") : NULL;
    Py_buffer *labels = lengths ? take_buffer(&held, labels_obj, 1, 0, "labels") : NULL;
    if (labels == NULL || read_hash(&held, multiplier, shift, positions, &table, &size) < 0) {
        release_all(&held);
        return NULL;
    }
    Py_ssize_t n = out->len;
    if (starts->len / 8 != size || lengths->len / 8 != size || offsets->len / 8 != n + 1) {
        release_all(&held);
        return PyErr_Format(PyExc_ValueError, "slot_starts and slot_lengths must have %zd "
                            "slots inside labels, offsets %zd entries", size, n + 1);
    }
    /* The slots are copied before they are checked: the loop runs without the GIL, and
       another thread changing the caller's arrays meanwhile must not move a checked slot
       outside `labels`. The offsets are read once a row, checked and used as read. */
    int64_t *slot_start = PyMem_Malloc(2 * (size_t)size * sizeof(int64_t));
    if (slot_start == NULL) {
        release_all(&held);
        return PyErr_NoMemory();
    }
    int64_t *slot_length = slot_start + size;
    memcpy(slot_start, starts->buf, (size_t)size * sizeof(int64_t));
    memcpy(slot_length, lengths->buf, (size_t)size * sizeof(int64_t));
    int bad = 0;
    for (Py_ssize_t s = 0; s < size && !bad; s++) {
        bad = slot_length[s] >= 0 && (slot_start[s] < 0 || slot_start[s] > labels->len
                                      || label_room(slot_length[s]) > labels->len - slot_start[s]);
    }
    if (bad) {
        PyMem_Free(slot_start);
        release_all(&held);
        return PyErr_Format(PyExc_ValueError, "slot_starts and slot_lengths must have %zd "
                            "slots inside labels, offsets %zd entries", size, n + 1);
    }
    const int64_t *o = (const int64_t *)offsets->buf;
    const unsigned char *restrict bytes = (const unsigned char *)data->buf;
    const unsigned char *restrict label_bytes = (const unsigned char *)labels->buf;
    int8_t *restrict codes = (int8_t *)out->buf;
    int status = CODED;
    Py_BEGIN_ALLOW_THREADS
    int64_t size_bytes = (int64_t)data->len;
    if (!readable(o, n, size_bytes)) { /* no row is coded when some cannot be read ... */
        status = UNPACKABLE;
    }
    int64_t end = n > 0 ? read_once(o) : 0;
    for (Py_ssize_t i = 0; i < n && status == CODED; i++) {
        /* ... and each is checked again as it is read: another thread may change them */
        int64_t start = end;
        end = read_once(o + i + 1);
        if (start < 0 || end < start || end > size_bytes) {
            status = UNPACKABLE;
            break;
        }
        int64_t length = end - start, avail = size_bytes - start;
        const unsigned char *text = bytes + start;
        if (length <= 8 * SHORT_WORDS && avail >= 8 * SHORT_WORDS) {
            int code = short_text_code(text, length, table, slot_start, slot_length,
                                       label_bytes);
            if (code < 0) {
                status = MISSED;
                break;
            }
            codes[i] = (int8_t)code;
            continue;
        }
        uint64_t key = text_hash(text, length, avail);
        size_t slot = (size_t)((key * table.multiplier) >> table.shift);
        if (slot_length[slot] != length
            || !same_text(text, length, avail, label_bytes + slot_start[slot])) {
            status = MISSED;
            break;
        }
        codes[i] = table.positions[slot];
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(slot_start);
    release_all(&held);
    return PyLong_FromLong(status);
}

/*
 * code_rows(rows, width, multiplier, shift, slot_rows, positions, out): fixed-width rows of
 * `width` bytes (numpy <U and S text as they are stored). The label in slot s is the `width`
 * bytes from s * stride of slot_rows, stride being width zero-padded to whole words, and
 * positions[s] is -1 for an empty slot; a row is coded when its bytes are that label's.
 */
static PyObject *code_rows(PyObject *self, PyObject *args) {
    PyObject *rows_obj, *multiplier, *slots_obj, *positions, *out_obj;
    Py_ssize_t width;
    int shift;
    if (!PyArg_ParseTuple(args, "OnOiOOO", &rows_obj, &width, &multiplier, &shift, &slots_obj,
                          &positions, &out_obj)) {
        return NULL;
    }
    if (width < 1) {
        return PyErr_Format(PyExc_ValueError, "width must be at least 1; got %zd", width);
    }
    Held held = {.held = 0};
    Table table;
    Py_ssize_t size;
    Py_buffer *rows = take_buffer(&held, rows_obj, 1, 0, "rows");
    Py_buffer *out = rows ? take_buffer(&held, out_obj, 1, 1, "out") : NULL;
    Py_buffer *slots = out ? take_buffer(&held, slots_obj, 1, 0, "slot_rows") : NULL;
    if (slots == NULL || read_hash(&held, multiplier, shift, positions, &table, &size) < 0) {
        release_all(&held);
        return NULL;
    }
    Py_ssize_t n = out->len;
    Py_ssize_t stride = (Py_ssize_t)padded(width);
    if (rows->len / width != n || rows->len % width != 0 || slots->len != size * stride) {
        release_all(&held);
        return PyErr_Format(PyExc_ValueError, "rows must hold %zd rows and slot_rows %zd "
                            "of %zd bytes", n, size, width);
    }
    const unsigned char *restrict row = (const unsigned char *)rows->buf;
    const unsigned char *restrict slot_rows = (const unsigned char *)slots->buf;
    int8_t *restrict codes = (int8_t *)out->buf;
    int status = CODED;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++, row += width) {
        int64_t avail = (int64_t)(n - i) * width;
        size_t slot = (size_t)((text_hash(row, width, avail) * table.multiplier) >> table.shift);
        int8_t code = table.positions[slot];
        if (code < 0 || !same_text(row, width, avail, slot_rows + slot * stride)) {
            status = MISSED;
            break;
        }
        codes[i] = code;
    }
    Py_END_ALLOW_THREADS
    release_all(&held);
    return PyLong_FromLong(status);
}

static PyMethodDef methods[] = {
    {"code_keys", code_keys, METH_VARARGS, "Code 64-bit keys through a small perfect hash."},
    {"code_ucs4", code_ucs4, METH_VARARGS, "Code numpy <U text of up to 8 characters."},
    {"code_text", code_text, METH_VARARGS, "Code Arrow text of up to 8 bytes a row."},
    {"hash_texts", hash_texts, METH_VARARGS, "The keys code_texts and code_rows hash text to."},
    {"code_texts", code_texts, METH_VARARGS, "Code Arrow text of any length."},
    {"code_rows", code_rows, METH_VARARGS, "Code fixed-width rows (numpy text) of any width."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "precmp_lib.core._native",
    "Label coding loops in C (optional; factorize.py has the same kernels in numpy).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
