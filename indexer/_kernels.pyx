# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled inner loops of the preparation step (see `indexer.kernels`, which documents and
types them). Each is bit-identical to the Python or numpy code it replaces; tests compare them
on real ads."""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

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
    cdef uint64_t x, v, low
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
