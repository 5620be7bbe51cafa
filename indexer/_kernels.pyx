# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled inner loops of the preparation step and of the in-memory key index (typed by
`_kernels.pyi`). Each gives exactly the answers of the Python or numpy code it replaced; tests
compare them on real ads (preparation) and against brute-force scans (key index)."""

import numpy as np

cimport numpy as cnp
from cpython.unicode cimport Py_UNICODE_ISSPACE
from libc.stdint cimport INT64_MIN, int32_t, int64_t, uint32_t, uint64_t

cnp.import_array()


def unit_minimums(
    const uint64_t[::1] shingles,
    const Py_ssize_t[::1] owners,
    Py_ssize_t unit_count,
    const uint64_t[::1] xor,
    const uint64_t[::1] mul,
):
    """(units x M) minimum of (shingle ^ xor[j]) * mul[j] (mod 2**64) over each unit's
    shingles; all-max for a unit without one."""
    cdef Py_ssize_t m = xor.shape[0]
    cdef Py_ssize_t n = shingles.shape[0]
    result = np.full((max(unit_count, 1), m), np.iinfo(np.uint64).max, dtype=np.uint64)
    cdef uint64_t[:, ::1] out = result
    cdef Py_ssize_t i, j, start, end, unit
    cdef uint64_t v, low
    start = 0
    with nogil:
        while start < n:
            unit = owners[start]
            end = start + 1
            while end < n and owners[end] == unit:
                end += 1
            for j in range(m):
                low = out[unit, j]
                for i in range(start, end):
                    v = (shingles[i] ^ xor[j]) * mul[j]
                    if v < low:
                        low = v
                out[unit, j] = low
            start = end
    return result


def dfa_visits(
    const uint32_t[::1] nextmove,
    const int64_t[::1] rowbase,
    const int32_t[::1] output,
    const unsigned char[::1] data,
    int32_t[::1] seen,
):
    """The features a byte string visits in a langid DFA and how often, in order of first
    visit (what `collections.Counter` of py3langid's `visit_counts` holds). `seen` is a
    zeroed work array of one slot per feature, zeroed again before returning."""
    cdef Py_ssize_t n = data.shape[0]
    features_array = np.empty(n, dtype=np.intp)
    counts_array = np.empty(n, dtype=np.float32)
    cdef Py_ssize_t[::1] features = features_array
    cdef float[::1] counts = counts_array
    cdef Py_ssize_t k = 0, i
    cdef int64_t state = 0
    cdef int32_t f
    with nogil:
        for i in range(n):
            state = nextmove[rowbase[state] + data[i]]
            f = output[state]
            if f >= 0:
                if seen[f] == 0:
                    features[k] = f
                    k += 1
                seen[f] += 1
        for i in range(k):
            counts[i] = seen[features[i]]
            seen[features[i]] = 0
    return features_array[:k], counts_array[:k]


cdef inline Py_ssize_t _lower(const int64_t[::1] keys, Py_ssize_t lo, int64_t key) noexcept nogil:
    """First position in keys[lo:] whose key is >= `key` (keys ascending). A plain binary
    search: interpolation on these evenly spread hashes, tried, was no faster (23-27 µs for
    45 keys in three runs holding 493k entries, the cost of the cache misses either way)."""
    cdef Py_ssize_t hi = keys.shape[0], mid
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline Py_ssize_t _upper(const int64_t[::1] keys, Py_ssize_t lo, int64_t key) noexcept nogil:
    """First position in keys[lo:] whose key is > `key` (keys ascending)."""
    cdef Py_ssize_t hi = keys.shape[0], mid
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if keys[mid] <= key:
            lo = mid + 1
        else:
            hi = mid
    return lo


def mark_keys(unsigned char[::1] bits, const int64_t[::1] keys):
    """Set each key's bit in `bits` (a power of two bytes long), the bit its low bits name:
    the presence filter `run_matches` reads."""
    cdef uint64_t mask = (<uint64_t>bits.shape[0]) * 8 - 1
    cdef uint64_t h
    cdef Py_ssize_t i
    with nogil:
        for i in range(keys.shape[0]):
            h = (<uint64_t>keys[i]) & mask
            bits[h >> 3] |= <unsigned char>(1 << (h & 7))


def run_matches(list runs, const int64_t[::1] query, const unsigned char[::1] bits):
    """Where each run (an ascending int64 key array) holds the keys of `query` (ascending):
    (run index, query index, start, stop) for every key found, runs in order, then keys in
    order. Sorted keys walk each run forwards, so a search starts where the last one began.
    A key whose bit in `bits` (`mark_keys` of every key of the runs) is unset is in no run
    and is not searched: most keys a query holds are in none (92% of an NHS ingest's), and
    each search of a run costs its cache misses."""
    cdef Py_ssize_t r, q, i, lo, hi, n = query.shape[0], kept = 0
    cdef uint64_t mask = (<uint64_t>bits.shape[0]) * 8 - 1
    cdef uint64_t h
    cdef const int64_t[::1] keys
    wanted_array = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] wanted = wanted_array
    with nogil:
        for q in range(n):
            h = (<uint64_t>query[q]) & mask
            if bits[h >> 3] & (1 << (h & 7)):
                wanted[kept] = q
                kept += 1
    found = []
    if kept == 0:
        return found
    for r in range(len(runs)):
        keys = runs[r]
        lo = 0
        for i in range(kept):
            q = wanted[i]
            lo = _lower(keys, lo, query[q])
            if lo == keys.shape[0]:
                break
            if keys[lo] == query[q]:
                hi = _upper(keys, lo, query[q])
                found.append((r, q, lo, hi))  # lo stays: `query` may repeat a key
    return found


def count_live(
    list spans, const int64_t[::1] posted, int64_t since, int64_t until, Py_ssize_t at_most
):
    """Per key of `spans` (a list of sequences of rid arrays), the rids whose `posted` time lies in
    [since, until] (a rid past the array, or holding the minimum int64, is not live), counted
    from the newest array and entry backwards and stopped once past `at_most`: exact up to
    `at_most`, `at_most + 1` beyond."""
    cdef Py_ssize_t i, a, j, found, size = posted.shape[0]
    cdef const int64_t[::1] rids
    cdef int64_t t, rid, absent = INT64_MIN
    counts = []
    for i in range(len(spans)):
        held = spans[i]
        found = 0
        for a in range(len(held) - 1, -1, -1):
            rids = held[a]
            j = rids.shape[0] - 1
            while j >= 0 and found <= at_most:
                rid = rids[j]
                if 0 <= rid < size:
                    t = posted[rid]
                    if t != absent and since <= t <= until:
                        found += 1
                j -= 1
            if found > at_most:
                break
        counts.append(found)
    return counts


def set_counts(
    list key_runs,
    list witness_runs,
    list directories,
    const int64_t[::1] query,
    const int32_t[::1] own,
):
    """For each key of `query` (any order): how many entries the runs (ascending key
    arrays, each with its witness array) hold for it, and whether those entries' witnesses
    include `own[q]` (the boilerplate statistics of `indexer.stores.sqlite.unit_stats`,
    counted without a Python step per set). Each run has a directory
    (`indexer.stores.sqlite.unit_stats.directory`): entry i is where the keys whose top bits
    (sign flipped) are i begin, so a search starts in a bucket of a few keys instead of
    walking a binary search through cold cache lines."""
    cdef Py_ssize_t n = query.shape[0], r, q, j, end, buckets
    cdef const int64_t[::1] keys
    cdef const int32_t[::1] witnesses
    cdef const int64_t[::1] starts
    cdef uint64_t bucket
    cdef int shift
    counts = np.zeros(n, dtype=np.int32)
    flags = np.zeros(n, dtype=np.uint8)
    cdef int32_t[::1] c = counts
    cdef unsigned char[::1] f = flags
    for r in range(len(key_runs)):
        keys = key_runs[r]
        witnesses = witness_runs[r]
        starts = directories[r]
        buckets = starts.shape[0] - 1
        shift = 64
        while buckets > 1:
            buckets >>= 1
            shift -= 1
        with nogil:
            for q in range(n):
                bucket = (<uint64_t>query[q]) ^ (<uint64_t>1 << 63)
                bucket = 0 if shift == 64 else bucket >> shift
                j = starts[bucket]
                end = starts[bucket + 1]
                while j < end and keys[j] < query[q]:
                    j += 1
                while j < end and keys[j] == query[q]:
                    c[q] += 1
                    if witnesses[j] == own[q]:
                        f[q] = 1
                    j += 1
    return counts, flags


ctypedef fused value_t:
    int32_t
    int64_t


cdef Py_ssize_t SMALL_BUCKET = 64
"""Buckets of at most this many records are insertion-sorted in the compiled loop; larger ones
(a key held by many postings, or several such keys sharing top bits) by numpy's stable sort,
so no bucket costs quadratic time."""


def bucket_sort(const int64_t[::1] keys, const value_t[::1] values, int bits):
    """(keys ascending, their values, directory) of records given in any order, in the order
    numpy's stable argsort gives (equal keys keep their input order): a counting sort by the
    top `bits` bits of each key (sign flipped), then each bucket sorted, by insertion when it
    holds a few keys (`bits` is chosen so: `indexer.stores.sqlite.unit_stats.directory`), by a
    stable numpy sort when it holds more than `SMALL_BUCKET`. Values are int32 (boilerplate
    witnesses) or int64 (the key index's rids). Linear where numpy's argsort of 5.4M records
    took 1.2 s; the directory is `indexer.stores.sqlite.unit_stats.directory` of the keys."""
    cdef Py_ssize_t n = keys.shape[0], i, j, b, buckets = (<Py_ssize_t>1) << bits
    cdef int shift = 64 - bits
    cdef uint64_t sign = (<uint64_t>1) << 63
    out_keys = np.empty(n, dtype=np.int64)
    out_values = np.empty(n, dtype=np.int32 if value_t is int32_t else np.int64)
    starts_array = np.zeros(buckets + 1, dtype=np.int64)
    cursor_array = np.empty(buckets, dtype=np.int64)
    cdef int64_t[::1] ok = out_keys
    cdef value_t[::1] ov = out_values
    cdef int64_t[::1] starts = starts_array
    cdef int64_t[::1] cursor = cursor_array
    cdef int64_t key
    cdef value_t value
    cdef Py_ssize_t large = 0
    with nogil:
        for i in range(n):
            b = 0 if bits == 0 else <Py_ssize_t>(((<uint64_t>keys[i]) ^ sign) >> shift)
            starts[b + 1] += 1
        for b in range(buckets):
            starts[b + 1] += starts[b]
            cursor[b] = starts[b]
        for i in range(n):
            b = 0 if bits == 0 else <Py_ssize_t>(((<uint64_t>keys[i]) ^ sign) >> shift)
            ok[cursor[b]] = keys[i]
            ov[cursor[b]] = values[i]
            cursor[b] += 1
        for b in range(buckets):
            if starts[b + 1] - starts[b] > SMALL_BUCKET:
                large += 1
                continue
            for i in range(starts[b] + 1, starts[b + 1]):
                key = ok[i]
                value = ov[i]
                j = i - 1
                while j >= starts[b] and ok[j] > key:
                    ok[j + 1] = ok[j]
                    ov[j + 1] = ov[j]
                    j -= 1
                ok[j + 1] = key
                ov[j + 1] = value
    if large:
        sizes = np.diff(starts_array)
        for b in np.flatnonzero(sizes > SMALL_BUCKET).tolist():
            lo, hi = starts_array[b], starts_array[b + 1]
            order = np.argsort(out_keys[lo:hi], kind="stable")
            out_keys[lo:hi] = out_keys[lo:hi][order]
            out_values[lo:hi] = out_values[lo:hi][order]
    return out_keys, out_values, starts_array


def layout_marks(str text, Py_ssize_t limit):
    """The marks `classifier.fields.layout` keeps, one character each, at most `limit`:
    ". , ; : ! ? ( )" as they are, "0" per run of ASCII digits, "|" per run of line breaks,
    "-" per dash with whitespace (or the text's start) before it and whitespace after it.
    Exactly the regular expression it replaced (`bench/kernels.py` keeps it), in one pass
    over the text instead of four alternatives tried at every character (`python
    bench/kernels.py`: 0.17-0.20 against ~0.02 ms per description of the corpora)."""
    cdef Py_ssize_t n = len(text)
    cdef Py_ssize_t i
    cdef Py_UCS4 c, previous = u" "  # the text's start counts as whitespace before it
    cdef list out = []
    cdef bint in_digits = False, in_lines = False
    for i in range(n):
        if len(out) >= limit:
            break
        c = text[i]
        if c == u"." or c == u"," or c == u";" or c == u":" or c == u"!" or c == u"?" \
                or c == u"(" or c == u")":
            out.append(c)
        elif u"0" <= c <= u"9":
            if not in_digits:
                out.append(u"0")
        elif c == u"\n":
            if not in_lines:
                out.append(u"|")
        elif c == u"-":
            if Py_UNICODE_ISSPACE(previous) and i + 1 < n \
                    and Py_UNICODE_ISSPACE(text[i + 1]):
                out.append(u"-")
        in_digits = u"0" <= c <= u"9"
        in_lines = c == u"\n"
        previous = c
    return u"".join(out)


def ascii_anchor_words(str text, bint names):
    """The anchor words of an ASCII text as `indexer.anchor_words.anchors` takes them, lower
    case, "_" removed: tokens are runs of ASCII letters, digits and "_" (what its
    `bytes.translate` split keeps) of two characters or more; a token all of whose letters
    are lower case (`str.islower`: at least one letter) is left out unless `names`; of the
    others, one with a capital or a digit is kept, or any with `names`. One pass over the
    text's bytes, each kept token lower-cased into a buffer and made a string once, instead
    of a translated copy, a split and three string methods per token (`python
    bench/kernels.py`). The caller makes sure `text` is ASCII."""
    cdef bytes data = text.encode("ascii")
    cdef const unsigned char* p = data
    cdef Py_ssize_t n = len(data)
    cdef Py_ssize_t i = 0, j, start, size
    cdef unsigned char c
    cdef bint lower, upper, digit
    cdef set found = set()
    cdef bytearray buffer = bytearray(64)
    cdef unsigned char* out
    while i < n:
        c = p[i]
        if not (97 <= c <= 122 or 65 <= c <= 90 or 48 <= c <= 57 or c == 95):
            i += 1
            continue
        start = i
        lower = upper = digit = False
        while i < n:
            c = p[i]
            if 97 <= c <= 122:
                lower = True
            elif 65 <= c <= 90:
                upper = True
            elif 48 <= c <= 57:
                digit = True
            elif c != 95:
                break
            i += 1
        if i - start < 2 or (lower and not upper and not names):
            continue
        if not (names or upper or digit):
            continue
        if i - start > len(buffer):
            buffer = bytearray(i - start)
        out = buffer
        size = 0
        for j in range(start, i):
            c = p[j]
            if c == 95:
                continue
            out[size] = c + 32 if 65 <= c <= 90 else c
            size += 1
        found.add(out[:size].decode("ascii"))
    return found


def glued_words(str text, const unsigned char[::1] classes, Py_ssize_t at_most):
    """How many words of `text`, up to `at_most`, are glued the way `indexer.glue` looks
    for: a word starting in three lowercase letters or more, then a capital and a lowercase
    letter ("travailVous"). `classes[c]` is 1 for a lowercase letter, 2 for a capital, 3 for
    an ASCII digit and 0 for anything else, for every code point below `len(classes)`;
    code points above count as 0. Exactly the regular expression it replaced (`bench/kernels.py`
    keeps it: "a word" starts after a character of class 0 or at the text's start) in one
    pass over the text, instead of the expression's attempt at every character (`python
    bench/kernels.py`)."""
    cdef Py_ssize_t n = len(text), size = classes.shape[0]
    cdef Py_ssize_t i, found = 0
    cdef Py_ssize_t run = 0  # lowercase letters since a word's start; -1: not such a word
    cdef Py_UCS4 c
    cdef unsigned char kind, following
    for i in range(n):
        c = text[i]
        kind = classes[c] if c < <Py_UCS4>size else 0
        if kind == 1:
            if run >= 0:
                run += 1
        elif kind == 2:
            if run >= 3 and i + 1 < n:
                c = text[i + 1]
                following = classes[c] if c < <Py_UCS4>size else 0
                if following == 1:
                    found += 1
                    if found >= at_most:
                        break
            run = -1
        elif kind == 3:
            run = -1
        else:
            run = 0
    return found
