/*
 * precmp_lib._native: label coding loops in C, optional.
 *
 * Each function codes every row of one column against a small perfect hash of the keys guessed
 * from a sample of its rows (validation._key_table): a row's 64-bit key goes to slot
 * (key * multiplier) >> shift, and the row is coded as positions[slot] when keys[slot] equals
 * its key. The numpy kernels in validation.py do the same work in several passes over each
 * block; here it is one pass, with no temporary arrays.
 *
 * Every function returns
 *   0  every row coded (codes written to `out`),
 *   1  a row cannot be packed into a key (text over 8 bytes or holding a NUL byte, or a
 *      character above U+00FF),
 *   2  a row's key is not in the table (the sample missed a label),
 * and stops at the first row that is not coded; the caller then takes its general path. The
 * GIL is released while rows are coded. Built when a C compiler is present; without it the
 * numpy kernels are used and give the same codes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { CODED = 0, UNPACKABLE = 1, MISSED = 2 };

typedef struct {
    uint64_t multiplier;
    int shift;
    const uint64_t *keys;
    const int8_t *positions;
} Table;

/* Buffers held for the length of one call. */
typedef struct {
    Py_buffer views[5]; /* at most five buffers a call */
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

/* Read the table (multiplier, shift, keys, positions); -1 with an exception on error. */
static int read_table(Held *held, PyObject *multiplier, int shift, PyObject *keys,
                      PyObject *positions, Table *table) {
    int bits = 64 - shift;
    if (bits < 1 || bits > 16) {
        PyErr_Format(PyExc_ValueError, "shift must be 48 to 63; got %d", shift);
        return -1;
    }
    table->multiplier = PyLong_AsUnsignedLongLong(multiplier);
    if (PyErr_Occurred()) {
        return -1;
    }
    Py_buffer *k = take_buffer(held, keys, 8, 0, "keys");
    if (k == NULL) {
        return -1;
    }
    Py_buffer *p = take_buffer(held, positions, 1, 0, "positions");
    if (p == NULL) {
        return -1;
    }
    Py_ssize_t size = (Py_ssize_t)1 << bits;
    if (k->len / 8 != size || p->len != size) {
        PyErr_Format(PyExc_ValueError, "keys and positions must have %zd slots", size);
        return -1;
    }
    table->shift = shift;
    table->keys = (const uint64_t *)k->buf;
    table->positions = (const int8_t *)p->buf;
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

/* LOW_BYTES[n] keeps the low n bytes of a word (a table, so no branch on the length). */
static const uint64_t LOW_BYTES[9] = {
    0, 0xFFULL, 0xFFFFULL, 0xFFFFFFULL, 0xFFFFFFFFULL, 0xFFFFFFFFFFULL, 0xFFFFFFFFFFFFULL,
    0xFFFFFFFFFFFFFFULL, 0xFFFFFFFFFFFFFFFFULL,
};

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
    const int64_t *restrict o = (const int64_t *)offsets->buf;
    const unsigned char *restrict bytes = (const unsigned char *)data->buf;
    int64_t size = (int64_t)data->len;
    int8_t *restrict codes = (int8_t *)out->buf;
    int status = CODED;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t start = o[i], end = o[i + 1];
        if (start < 0 || end < start || end - start > 8 || end > size) {
            status = UNPACKABLE;
            break;
        }
        int64_t length = end - start;
        uint64_t key = 0;
        if (start <= size - 8) {
            memcpy(&key, bytes + start, 8); /* an unaligned load; little-endian order below */
        } else if (start < size) {
            memcpy(&key, bytes + start, (size_t)(size - start));
        }
#if PY_BIG_ENDIAN
        key = __builtin_bswap64(key);
#endif
        uint64_t mask = LOW_BYTES[length];
        key &= mask;
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

static PyMethodDef methods[] = {
    {"code_keys", code_keys, METH_VARARGS, "Code 64-bit keys through a small perfect hash."},
    {"code_ucs4", code_ucs4, METH_VARARGS, "Code numpy <U text of up to 8 characters."},
    {"code_text", code_text, METH_VARARGS, "Code Arrow text of up to 8 bytes a row."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "precmp_lib._native",
    "Label coding loops in C (optional; validation.py has the same kernels in numpy).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
