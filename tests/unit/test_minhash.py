"""Unit and property tests for indexer.minhash: params, sketches, estimates and LSH band keys."""

from __future__ import annotations

import dataclasses
import itertools
import json
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer.minhash import (
    HASH_VERSION,
    SketchParams,
    band_keys,
    candidate_probability,
    estimate_jaccard,
    estimate_overlap,
    overlap_from_jaccard,
    sketch_hashes,
    sketch_tokens,
    to_signed,
    to_unsigned,
)
from indexer.shingles import ShingleKind, shingle_set
from indexer.text import NORMALISER_VERSION
from tests.unit.support import DETERMINISTIC, SetPair, distinct_uint64, make_pair

DEFAULT = SketchParams()
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
U64_MAX = 2**64 - 1


def _sk(values: npt.NDArray[np.uint64], params: SketchParams = DEFAULT) -> npt.NDArray[np.int64]:
    return sketch_hashes(values, params)


def _shares_band(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> bool:
    return any(x == y for x, y in zip(band_keys(a, DEFAULT), band_keys(b, DEFAULT), strict=True))


# --- SketchParams -----------------------------------------------------------------------------


def test_default_params() -> None:
    assert DEFAULT.num_perm == 128
    assert DEFAULT.bands * DEFAULT.rows <= DEFAULT.num_perm
    assert DEFAULT.normaliser_version == NORMALISER_VERSION


@pytest.mark.parametrize(
    "changes",
    [
        {"num_perm": 0},
        {"num_perm": -1},
        {"shingle_size": 0},
        {"skip": -1},
        {"bands": 0},
        {"rows": 0},
        {"bands": 43, "rows": 3},  # 129 > 128
        {"num_perm": 64},  # default 42 x 3 no longer fits
        {"num_perm": 16, "bands": 4, "rows": 5},
    ],
)
def test_params_validation_rejects(changes: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        SketchParams(**changes)


@pytest.mark.parametrize(
    "changes",
    [
        {"num_perm": 126},  # bands * rows == num_perm is allowed
        {"num_perm": 1, "bands": 1, "rows": 1},
        {"num_perm": 256, "bands": 64, "rows": 4},
        {"shingle_kind": "skip", "shingle_size": 2, "skip": 2},
        {"shingle_kind": "char", "shingle_size": 5},
    ],
)
def test_params_validation_accepts(changes: dict[str, Any]) -> None:
    params = SketchParams(**changes)
    for key, value in changes.items():
        assert getattr(params, key) == value


def test_params_round_trip_through_dict_and_json() -> None:
    params = SketchParams(seed=7, num_perm=64, shingle_kind="skip", skip=1, bands=16, rows=4)
    data = params.to_dict()
    assert data == {
        "seed": 7,
        "num_perm": 64,
        "shingle_kind": "skip",
        "shingle_size": 5,
        "skip": 1,
        "normaliser_version": NORMALISER_VERSION,
        "bands": 16,
        "rows": 4,
        "hash_version": HASH_VERSION,
    }
    assert SketchParams.from_dict(data) == params
    assert SketchParams.from_dict(json.loads(json.dumps(data))) == params
    assert SketchParams.from_dict(DEFAULT.to_dict()) == DEFAULT


def test_params_from_dict_rejects_unknown_keys_and_bad_values() -> None:
    with pytest.raises(TypeError):
        SketchParams.from_dict({**DEFAULT.to_dict(), "permutation_family": "v2"})
    with pytest.raises(ValueError):
        SketchParams.from_dict({**DEFAULT.to_dict(), "rows": 4})  # 42 * 4 > 128


def test_params_reject_unknown_shingle_kind() -> None:
    with pytest.raises(ValueError):
        SketchParams.from_dict({**DEFAULT.to_dict(), "shingle_kind": "words"})


def test_params_are_frozen_and_hashable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.seed = 2  # type: ignore[misc]
    assert hash(SketchParams()) == hash(DEFAULT)
    assert SketchParams(seed=2) != DEFAULT


# --- signed 64-bit conversion -----------------------------------------------------------------


def test_signed_conversion_edge_values() -> None:
    unsigned = np.array([0, 1, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1], dtype=np.uint64)
    signed = to_signed(unsigned)
    assert signed.dtype == np.int64
    assert signed.tolist() == [0, 1, 2**63 - 1, -(2**63), -2, -1]
    back = to_unsigned(signed)
    assert back.dtype == np.uint64
    assert back.tolist() == unsigned.tolist()


def test_unsigned_conversion_edge_values() -> None:
    signed = np.array([I64_MIN, -1, 0, I64_MAX], dtype=np.int64)
    assert to_unsigned(signed).tolist() == [2**63, U64_MAX, 0, 2**63 - 1]


@DETERMINISTIC
@given(st.lists(st.integers(0, U64_MAX), max_size=50))
def test_signed_round_trip_from_unsigned(values: list[int]) -> None:
    unsigned = np.array(values, dtype=np.uint64)
    signed = to_signed(unsigned)
    assert signed.tolist() == [v - 2**64 if v >= 2**63 else v for v in values]
    assert to_unsigned(signed).tolist() == values


@DETERMINISTIC
@given(st.lists(st.integers(I64_MIN, I64_MAX), max_size=50))
def test_signed_round_trip_from_signed(values: list[int]) -> None:
    signed = np.array(values, dtype=np.int64)
    assert to_signed(to_unsigned(signed)).tolist() == values
    assert to_unsigned(signed).tolist() == [v % 2**64 for v in values]


# --- sketches ---------------------------------------------------------------------------------


@pytest.mark.parametrize("num_perm", [1, 16, 128, 256])
def test_sketch_shape_and_dtype(num_perm: int) -> None:
    params = SketchParams(num_perm=num_perm, bands=1, rows=1)
    sketch = _sk(distinct_uint64(np.random.default_rng(0), 300), params)
    assert sketch.shape == (num_perm,)
    assert sketch.dtype == np.int64


def test_sketch_tokens_returns_sketch_and_shingle_count() -> None:
    tokens = ["we", "are", "hiring", "a", "senior", "staff", "nurse", "for", "our", "ward"]
    sketch, count = sketch_tokens(tokens, DEFAULT)
    assert count == len(tokens) - DEFAULT.shingle_size + 1
    assert np.array_equal(sketch, _sk(shingle_set(tokens, "word", DEFAULT.shingle_size)))


def test_sketch_golden_values() -> None:
    # Persisted format: the permutation family (numpy PCG64, seed 1) and band hashing. Neither
    # is in SketchParams, so a change silently breaks existing indexes: update only on purpose,
    # with HASH_VERSION (band keys changed with version 2).
    values = np.arange(1, 101, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    sketch = _sk(values)
    assert sketch[:4].tolist() == [
        97423835686047351,
        22599565558167823,
        61957604651518327,
        184177239960891831,
    ]
    assert band_keys(sketch, DEFAULT)[:3] == [
        -2759567755139396992,
        3425040125927292301,
        6506395531772477512,
    ]


def test_sketch_of_empty_set_is_all_max() -> None:
    empty = _sk(np.array([], dtype=np.uint64))
    assert empty.shape == (DEFAULT.num_perm,)
    assert empty.dtype == np.int64
    assert to_unsigned(empty).tolist() == [U64_MAX] * DEFAULT.num_perm
    assert estimate_jaccard(empty, empty) == 1.0
    some = _sk(distinct_uint64(np.random.default_rng(1), 10))
    assert estimate_jaccard(empty, some) == 0.0


def test_sketch_ignores_order_and_duplicates() -> None:
    values = distinct_uint64(np.random.default_rng(2), 500)
    shuffled = values[::-1].copy()
    doubled = np.concatenate([values, values[:100]])
    assert np.array_equal(_sk(values), _sk(shuffled))
    assert np.array_equal(_sk(values), _sk(doubled))


@pytest.mark.parametrize("size", [1, 2047, 2048, 2049, 5000])
def test_sketch_of_union_is_slotwise_min(size: int) -> None:
    # Crosses the internal chunk size: chunked and unchunked minimums must agree.
    values = distinct_uint64(np.random.default_rng(size), size + 3000)
    a, b = values[:size], values[size:]
    union = to_unsigned(_sk(values))
    assert np.array_equal(union, np.minimum(to_unsigned(_sk(a)), to_unsigned(_sk(b))))


def test_sketch_slots_differ_and_depend_on_seed() -> None:
    values = distinct_uint64(np.random.default_rng(3), 200)
    sketch = _sk(values)
    assert len(set(sketch.tolist())) > DEFAULT.num_perm * 0.9  # permutations are not all alike
    other_seed = _sk(values, SketchParams(seed=2))
    assert estimate_jaccard(sketch, other_seed) < 0.1


def test_estimate_jaccard_rejects_different_sizes() -> None:
    values = distinct_uint64(np.random.default_rng(4), 50)
    small = SketchParams(num_perm=64, bands=16, rows=4)
    with pytest.raises(ValueError):
        estimate_jaccard(_sk(values), _sk(values, small))


@DETERMINISTIC
@given(st.lists(st.integers(0, U64_MAX), min_size=1, max_size=60, unique=True))
def test_identical_sets_have_jaccard_one(values: list[int]) -> None:
    hashes = np.array(values, dtype=np.uint64)
    assert estimate_jaccard(_sk(hashes), _sk(hashes.copy())) == 1.0
    assert estimate_overlap(_sk(hashes), _sk(hashes), len(values), len(values)) == 1.0


@DETERMINISTIC
@given(st.integers(1, 300), st.integers(1, 300), st.integers(0, 2**32))
def test_disjoint_sets_never_share_a_slot(size_a: int, size_b: int, seed: int) -> None:
    # Each slot is a bijection of the 64-bit space, so disjoint sets cannot have equal minimums.
    pair = make_pair(np.random.default_rng(seed), size_a, size_b, 0)
    assert estimate_jaccard(_sk(pair.a), _sk(pair.b)) == 0.0


@DETERMINISTIC
@given(st.integers(0, 2**32), st.integers(1, 128), st.integers(0, 2**32))
def test_sequential_hashes_differ_only_where_they_must(seed: int, size: int, base: int) -> None:
    # Structured (consecutive) inputs, the worst case for weak mixing, still never collide.
    a = np.arange(base, base + size, dtype=np.uint64)
    b = a + np.uint64(size)
    assert estimate_jaccard(_sk(a, SketchParams(seed=seed)), _sk(b, SketchParams(seed=seed))) == 0


# --- estimates against exact similarities -----------------------------------------------------


@DETERMINISTIC
@given(
    size_a=st.integers(20, 400),
    size_b=st.integers(20, 400),
    share=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32),
)
def test_jaccard_estimate_within_tolerance(
    size_a: int, size_b: int, share: float, seed: int
) -> None:
    pair = make_pair(
        np.random.default_rng(seed), size_a, size_b, round(share * min(size_a, size_b))
    )
    estimate = estimate_jaccard(_sk(pair.a), _sk(pair.b))
    assert abs(estimate - pair.jaccard) <= 0.15


@DETERMINISTIC
@given(
    size_a=st.integers(40, 400),
    ratio=st.floats(1.0, 1.5),
    share=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32),
)
def test_overlap_estimate_within_tolerance(
    size_a: int, ratio: float, share: float, seed: int
) -> None:
    # Overlap amplifies Jaccard error by (|A|+|B|)/min/(1+J)^2, so sizes stay within 1.5x here.
    size_b = round(size_a * ratio)
    pair = make_pair(np.random.default_rng(seed), size_a, size_b, round(share * size_a))
    estimate = estimate_overlap(_sk(pair.a), _sk(pair.b), size_a, size_b)
    assert abs(estimate - pair.overlap) <= 0.2


def _many_pairs(count: int, seed: int) -> list[SetPair]:
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(count):
        size_a, size_b = (int(x) for x in rng.integers(50, 400, size=2))
        shared = int(rng.integers(0, min(size_a, size_b) + 1))
        pairs.append(make_pair(rng, size_a, size_b, shared))
    return pairs


def test_estimates_are_unbiased_on_average() -> None:
    pairs = _many_pairs(300, seed=20240601)
    jaccard_errors = []
    overlap_errors = []
    for pair in pairs:
        sa, sb = _sk(pair.a), _sk(pair.b)
        jaccard_errors.append(estimate_jaccard(sa, sb) - pair.jaccard)
        overlap_errors.append(estimate_overlap(sa, sb, len(pair.a), len(pair.b)) - pair.overlap)
    j_err = np.array(jaccard_errors)
    o_err = np.array(overlap_errors)
    assert np.mean(np.abs(j_err)) <= 0.04
    assert abs(np.mean(j_err)) <= 0.01  # no systematic bias
    assert np.mean(np.abs(o_err)) <= 0.07
    assert np.max(np.abs(j_err)) <= 0.2


@pytest.mark.parametrize(("kind", "skip"), [("word", 0), ("skip", 1), ("char", 0)])
def test_estimates_on_real_shingle_sets(kind: ShingleKind, skip: int) -> None:
    # End to end through the real shingle hashing: edited copies of generated token texts.
    rng = np.random.default_rng(5)
    vocabulary = [f"w{i}" for i in range(300)]
    errors = []
    for _ in range(60):
        original = [str(t) for t in rng.choice(vocabulary, size=int(rng.integers(60, 300)))]
        edited = list(original)
        for position in rng.integers(0, len(original), size=len(original) // 8):
            edited[position] = str(rng.choice(vocabulary))
        a = shingle_set(original, kind, 5, skip)
        b = shingle_set(edited, kind, 5, skip)
        exact = len(np.intersect1d(a, b)) / len(np.union1d(a, b))
        errors.append(estimate_jaccard(_sk(a), _sk(b)) - exact)
    assert np.mean(np.abs(errors)) <= 0.05
    assert abs(np.mean(errors)) <= 0.02


def test_estimate_improves_with_more_permutations() -> None:
    pairs = _many_pairs(60, seed=99)
    wide = SketchParams(num_perm=512, bands=128, rows=4)

    def mae(params: SketchParams) -> float:
        errors = [
            abs(estimate_jaccard(_sk(p.a, params), _sk(p.b, params)) - p.jaccard) for p in pairs
        ]
        return float(np.mean(errors))

    assert mae(wide) < mae(DEFAULT)
    assert mae(wide) <= 0.025


# --- overlap from Jaccard ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("jaccard", "size_a", "size_b", "expected"),
    [
        (0.25, 10, 40, 1.0),  # A ⊂ B
        (0.25, 40, 10, 1.0),  # B ⊂ A
        (1.0, 25, 25, 1.0),  # equal sets
        (0.0, 30, 50, 0.0),  # disjoint
        (1 / 3, 10, 10, 0.5),  # 5 shared of 10 + 10
        (0.2, 20, 40, 0.5),  # 10 shared of 20 + 40: J = 10/50
        (1.0, 10, 40, 1.0),  # impossible J with unequal sizes is clamped
        (0.5, 0, 10, 0.0),  # empty side
        (0.5, 0, 0, 0.0),
    ],
)
def test_overlap_from_jaccard_exact(
    jaccard: float, size_a: int, size_b: int, expected: float
) -> None:
    assert overlap_from_jaccard(jaccard, size_a, size_b) == pytest.approx(expected)


@DETERMINISTIC
@given(st.integers(1, 1000), st.integers(1, 1000), st.floats(0.0, 1.0))
def test_overlap_from_exact_jaccard_is_exact(size_a: int, size_b: int, share: float) -> None:
    shared = round(share * min(size_a, size_b))
    jaccard = shared / (size_a + size_b - shared)
    got = overlap_from_jaccard(jaccard, size_a, size_b)
    assert got == pytest.approx(shared / min(size_a, size_b), abs=1e-9)
    assert 0.0 <= got <= 1.0


@DETERMINISTIC
@given(st.floats(0.0, 1.0), st.integers(0, 1000), st.integers(0, 1000))
def test_overlap_from_any_jaccard_is_clamped(jaccard: float, size_a: int, size_b: int) -> None:
    assert 0.0 <= overlap_from_jaccard(jaccard, size_a, size_b) <= 1.0


# --- LSH band keys ----------------------------------------------------------------------------


def test_band_keys_shape_type_range_and_determinism() -> None:
    sketch = _sk(distinct_uint64(np.random.default_rng(5), 300))
    keys = band_keys(sketch, DEFAULT)
    assert len(keys) == DEFAULT.bands
    assert all(type(k) is int for k in keys)
    assert all(I64_MIN <= k <= I64_MAX for k in keys)
    assert keys == band_keys(sketch.copy(), DEFAULT)
    assert len(set(keys)) == len(keys)


def test_band_keys_cover_the_signed_range() -> None:
    keys = [
        k
        for seed in range(10)
        for k in band_keys(_sk(distinct_uint64(np.random.default_rng(seed), 50)), DEFAULT)
    ]
    assert min(keys) < 0 < max(keys)


def test_band_keys_are_positional() -> None:
    sketch = _sk(distinct_uint64(np.random.default_rng(6), 300))
    keys = band_keys(sketch, DEFAULT)
    rows = DEFAULT.rows
    swapped = sketch.copy()
    swapped[0:rows], swapped[rows : 2 * rows] = sketch[rows : 2 * rows], sketch[0:rows]
    swapped_keys = band_keys(swapped, DEFAULT)
    assert swapped_keys[0] != keys[1]
    assert swapped_keys[1] != keys[0]
    assert not set(swapped_keys[:2]) & set(keys)
    assert swapped_keys[2:] == keys[2:]
    # The same slot values in every band still give a different key per band.
    constant = np.zeros(DEFAULT.num_perm, dtype=np.int64)
    assert len(set(band_keys(constant, DEFAULT))) == DEFAULT.bands


@pytest.mark.parametrize("slot", [0, 2, 3, 64, 125])
def test_band_keys_change_only_in_the_band_of_a_changed_slot(slot: int) -> None:
    sketch = _sk(distinct_uint64(np.random.default_rng(7), 300))
    changed = sketch.copy()
    changed[slot] += 1
    before, after = band_keys(sketch, DEFAULT), band_keys(changed, DEFAULT)
    differing = [i for i, (x, y) in enumerate(zip(before, after, strict=True)) if x != y]
    assert differing == [slot // DEFAULT.rows]


def test_band_keys_ignore_slots_beyond_the_bands() -> None:
    assert DEFAULT.bands * DEFAULT.rows < DEFAULT.num_perm
    sketch = _sk(distinct_uint64(np.random.default_rng(8), 300))
    changed = sketch.copy()
    changed[DEFAULT.bands * DEFAULT.rows :] += 1
    assert band_keys(changed, DEFAULT) == band_keys(sketch, DEFAULT)


def test_band_keys_follow_params() -> None:
    sketch = _sk(distinct_uint64(np.random.default_rng(9), 300))
    other = SketchParams(bands=32, rows=4)
    assert len(band_keys(sketch, other)) == 32
    assert band_keys(sketch, other)[0] != band_keys(sketch, DEFAULT)[0]


# --- candidate probability --------------------------------------------------------------------


@pytest.mark.parametrize(
    "params", [DEFAULT, SketchParams(bands=32, rows=4), SketchParams(bands=128, rows=1)]
)
def test_candidate_probability_is_the_s_curve(params: SketchParams) -> None:
    grid = np.linspace(0.0, 1.0, 101)
    probabilities = [candidate_probability(float(j), params) for j in grid]
    expected = 1.0 - (1.0 - grid**params.rows) ** params.bands
    assert probabilities == pytest.approx(expected.tolist(), abs=1e-12)
    assert probabilities[0] == 0.0
    assert probabilities[-1] == 1.0
    steps = list(itertools.pairwise(probabilities))
    assert all(later > earlier for earlier, later in steps if later < 1.0)  # strictly, until 1.0
    assert all(later >= earlier for earlier, later in steps)


def test_candidate_probability_default_values() -> None:
    assert candidate_probability(0.37, DEFAULT) == pytest.approx(0.8875, abs=1e-3)
    assert candidate_probability(0.1, DEFAULT) == pytest.approx(1 - 0.999**42, abs=1e-12)
    assert candidate_probability(0.8, DEFAULT) > 0.999999


@DETERMINISTIC
@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_candidate_probability_is_monotone(x: float, y: float) -> None:
    low, high = min(x, y), max(x, y)
    assert candidate_probability(low, DEFAULT) <= candidate_probability(high, DEFAULT)


def test_empirical_band_sharing_rate_matches_candidate_probability() -> None:
    rng = np.random.default_rng(37)
    size, shared = 100, 54  # J = 54 / 146 ≈ 0.37
    jaccard = shared / (2 * size - shared)
    trials = 200
    hits = 0
    for _ in range(trials):
        pair = make_pair(rng, size, size, shared)
        hits += _shares_band(_sk(pair.a), _sk(pair.b))
    rate = hits / trials
    assert rate > 0.5  # most such pairs become candidates
    assert abs(rate - candidate_probability(jaccard, DEFAULT)) <= 0.1


def test_dissimilar_pairs_rarely_share_a_band() -> None:
    rng = np.random.default_rng(38)
    trials = 200
    hits = sum(
        _shares_band(_sk(pair.a), _sk(pair.b))
        for pair in (make_pair(rng, 100, 100, 10) for _ in range(trials))  # J ≈ 0.053
    )
    assert hits / trials <= candidate_probability(10 / 190, DEFAULT) + 0.05
