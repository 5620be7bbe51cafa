"""Unit and property tests for indexer.shingles: n-grams, skip-grams, char n-grams, hashing."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer.shingles import (
    char_ngrams,
    hash_strings,
    shingle_set,
    skip_ngram_hashes,
    token_hashes,
    word_ngram_hashes,
)
from tests.processes import output_under_hash_seed
from tests.unit.support import DETERMINISTIC, fingerprint

TOKENS = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "job", "nurse", "ß"]), max_size=12)


def _gram(*tokens: str) -> int:
    """Hash of one n-gram, taken as the single shingle of exactly those n tokens."""
    (value,) = word_ngram_hashes(list(tokens), len(tokens))
    return int(value)


def _reference_skip_grams(tokens: Sequence[str], n: int, k: int) -> Counter[int]:
    """Independent definition: every in-order n-subsequence spanning at most n + k tokens."""
    return Counter(
        _gram(*(tokens[i] for i in idx))
        for idx in combinations(range(len(tokens)), n)
        if idx[-1] - idx[0] <= n - 1 + k
    )


def _ints(values: npt.NDArray[np.uint64]) -> list[int]:
    return [int(v) for v in values]


# --- token and word n-gram hashes -------------------------------------------------------------


def test_token_hashes_are_uint64_in_order() -> None:
    values = token_hashes(["b", "a", "b"])
    assert values.dtype == np.uint64
    assert values.shape == (3,)
    assert values[0] == values[2] != values[1]
    assert token_hashes([]).shape == (0,)


def test_token_hashes_golden_value() -> None:
    # Persisted format: xxhash64 of the UTF-8 token with the fixed shingle seed.
    assert _ints(token_hashes(["a"])) == [13486492739764216044]


def test_word_ngram_hashes_exact_positions() -> None:
    tokens = ["a", "b", "c", "d"]
    assert _ints(word_ngram_hashes(tokens, 2)) == [
        _gram("a", "b"),
        _gram("b", "c"),
        _gram("c", "d"),
    ]
    assert _ints(word_ngram_hashes(tokens, 3)) == [_gram("a", "b", "c"), _gram("b", "c", "d")]
    assert _ints(word_ngram_hashes(tokens, 1)) == [_gram(t) for t in tokens]


def test_word_ngram_hashes_are_order_and_boundary_sensitive() -> None:
    assert _gram("a", "b") != _gram("b", "a")
    assert _gram("a", "a") != _gram("a")
    assert _gram("ab", "c") != _gram("a", "bc")
    assert _gram("strasse") != _gram("straße")
    assert _gram("a", "b", "c") != _gram("a", "c", "b")


def test_word_ngram_hashes_count_repeats() -> None:
    tokens = ["la", "la", "la", "la"]
    values = word_ngram_hashes(tokens, 2)
    assert len(values) == 3
    assert len(set(_ints(values))) == 1
    assert len(shingle_set(tokens, "word", 2)) == 1


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_short_input_gives_one_shingle_of_all_tokens(count: int) -> None:
    tokens = ["senior", "nurse", "band", "5"][:count]
    assert _ints(word_ngram_hashes(tokens, 5)) == [_gram(*tokens)]
    assert len(shingle_set(tokens, "word", 5)) == 1
    assert len(shingle_set(tokens, "skip", 5, 2)) == 1


def test_short_inputs_stay_distinct() -> None:
    assert _ints(shingle_set(["nurse"], "word", 5)) != _ints(shingle_set(["nurse", "5"], "word", 5))


@pytest.mark.parametrize("n", [0, -1])
def test_word_ngram_hashes_reject_bad_size(n: int) -> None:
    with pytest.raises(ValueError):
        word_ngram_hashes(["a", "b"], n)


@DETERMINISTIC
@given(TOKENS.filter(bool), st.integers(1, 6))
def test_word_ngram_count_and_window(tokens: list[str], n: int) -> None:
    values = word_ngram_hashes(tokens, n)
    assert values.dtype == np.uint64
    if len(tokens) >= n:
        assert _ints(values) == [_gram(*tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    else:
        assert _ints(values) == [_gram(*tokens)]


# --- skip-grams -------------------------------------------------------------------------------


def test_skip_bigrams_with_one_skip_exact() -> None:
    got = _ints(skip_ngram_hashes(["a", "b", "c", "d"], 2, 1))
    expected = [_gram(*pair) for pair in ["ab", "ac", "bc", "bd", "cd"]]
    assert sorted(got) == sorted(expected)


def test_skip_trigrams_with_one_skip_exact() -> None:
    got = _ints(skip_ngram_hashes(["a", "b", "c", "d", "e"], 3, 1))
    expected = [_gram(*gram) for gram in ["abc", "abd", "acd", "bcd", "bce", "bde", "cde"]]
    assert sorted(got) == sorted(expected)


def test_skip_ngram_hashes_reject_negative_skip() -> None:
    with pytest.raises(ValueError):
        skip_ngram_hashes(["a", "b", "c"], 2, -1)


def test_skip_ngram_short_input_falls_back_to_one_shingle() -> None:
    assert _ints(skip_ngram_hashes(["a", "b"], 3, 2)) == [_gram("a", "b")]


@DETERMINISTIC
@given(TOKENS.filter(bool), st.integers(1, 5))
def test_skip_grams_with_zero_skip_equal_word_ngrams(tokens: list[str], n: int) -> None:
    assert _ints(skip_ngram_hashes(tokens, n, 0)) == _ints(word_ngram_hashes(tokens, n))


@DETERMINISTIC
@given(TOKENS, st.integers(1, 4), st.integers(0, 3))
def test_skip_grams_match_reference_definition(tokens: list[str], n: int, k: int) -> None:
    if len(tokens) < n:
        return
    got = Counter(_ints(skip_ngram_hashes(tokens, n, k)))
    assert got == _reference_skip_grams(tokens, n, k)


@DETERMINISTIC
@given(TOKENS.filter(bool), st.integers(1, 4), st.integers(0, 3))
def test_skip_grams_grow_with_skip(tokens: list[str], n: int, k: int) -> None:
    words = set(_ints(word_ngram_hashes(tokens, n)))
    smaller = set(_ints(skip_ngram_hashes(tokens, n, k)))
    larger = set(_ints(skip_ngram_hashes(tokens, n, k + 1)))
    assert words <= smaller <= larger


def test_skip_grams_tolerate_an_inserted_word() -> None:
    original = ["we", "hire", "nurses", "in", "leeds"]
    reworded = ["we", "urgently", "hire", "nurses", "in", "leeds"]
    plain = set(_ints(shingle_set(original, "word", 2))) & set(
        _ints(shingle_set(reworded, "word", 2))
    )
    skipped = set(_ints(shingle_set(original, "skip", 2, 1))) & set(
        _ints(shingle_set(reworded, "skip", 2, 1))
    )
    assert _gram("we", "hire") not in plain
    assert _gram("we", "hire") in skipped


# --- char n-grams -----------------------------------------------------------------------------


def test_char_ngrams_exact() -> None:
    assert char_ngrams("abcd", 2) == ["ab", "bc", "cd"]
    assert char_ngrams("abcd", 4) == ["abcd"]
    assert char_ngrams("ab", 3) == ["ab"]
    assert char_ngrams("инж", 2) == ["ин", "нж"]


@pytest.mark.parametrize("n", [0, -3])
def test_char_ngrams_reject_bad_size(n: int) -> None:
    with pytest.raises(ValueError):
        char_ngrams("abc", n)


@DETERMINISTIC
@given(st.text(min_size=1, max_size=40), st.integers(1, 6))
def test_char_ngrams_count(text: str, n: int) -> None:
    grams = char_ngrams(text, n)
    assert len(grams) == max(1, len(text) - n + 1)
    assert all(len(g) == min(n, len(text)) and g in text for g in grams)


# --- string hashing and shingle sets ----------------------------------------------------------


def test_hash_strings_dedups_and_sorts() -> None:
    values = hash_strings(["b", "a", "c", "a", "b"])
    assert values.dtype == np.uint64
    assert len(values) == 3
    assert np.all(np.diff(values) > 0)
    assert np.array_equal(values, hash_strings(["c", "b", "a"]))


def test_hash_strings_of_nothing_is_an_empty_uint64_array() -> None:
    values = hash_strings([])
    assert values.dtype == np.uint64
    assert values.shape == (0,)


def test_hash_strings_golden_value() -> None:
    # Persisted format: xxhash64 of the UTF-8 shingle with the fixed shingle seed.
    assert _ints(hash_strings(["a"])) == [13486492739764216044]


def test_hash_strings_distinguish_unicode() -> None:
    assert len(hash_strings(["strasse", "straße", "инженер", "инженер "])) == 4


@DETERMINISTIC
@given(st.lists(st.text(max_size=8), max_size=30))
def test_hash_strings_is_a_set_function(shingles: list[str]) -> None:
    values = hash_strings(shingles)
    assert values.dtype == np.uint64
    assert len(values) == len(set(shingles))
    assert np.all(np.diff(values) > 0)
    assert np.array_equal(values, hash_strings(reversed(shingles)))


@pytest.mark.parametrize(("kind", "skip"), [("word", 0), ("skip", 2), ("char", 0)])
def test_shingle_sets_are_unique_sorted_and_use_the_full_range(kind: str, skip: int) -> None:
    tokens = [f"w{i % 997}" for i in range(3000)]
    values = shingle_set(tokens, kind, 3, skip)  # type: ignore[arg-type]
    assert values.dtype == np.uint64
    assert np.all(np.diff(values) > 0)
    assert int(values.max()) >= 2**63  # would not fit int64: the signed conversion matters
    assert int(values.min()) < 2**63


def test_shingle_set_dispatches_on_kind() -> None:
    tokens = ["senior", "staff", "nurse", "band", "5", "senior", "staff", "nurse"]
    word = shingle_set(tokens, "word", 2)
    assert _ints(word) == sorted(set(_ints(word_ngram_hashes(tokens, 2))))
    assert len(word) == 5  # "senior staff" and "staff nurse" repeat
    skip = shingle_set(tokens, "skip", 2, 1)
    assert _ints(skip) == sorted(set(_ints(skip_ngram_hashes(tokens, 2, 1))))
    assert set(_ints(word)) < set(_ints(skip))
    char = shingle_set(tokens, "char", 4)
    assert np.array_equal(char, hash_strings(char_ngrams(" ".join(tokens), 4)))


@DETERMINISTIC
@given(TOKENS, st.sampled_from(["word", "skip", "char"]), st.integers(1, 4))
def test_shingle_sets_are_never_empty(tokens: list[str], kind: str, size: int) -> None:
    values = shingle_set(tokens, kind, size, 1)  # type: ignore[arg-type]
    assert len(values) >= 1
    assert np.all(np.diff(values) > 0)


# --- determinism across processes -------------------------------------------------------------

_TEXT = (
    "<p>Senior Staff Nurse &ndash; Band 5 (m/w/d)</p><ul><li>Инженер-программист</li>"
    "<li>Μηχανικός</li><li>Straße &amp;amp; café</li><li>we are hiring in leeds</li></ul>"
)
_CHILD = "import json, tests.unit.support as s; print(json.dumps(s.fingerprint({})))"


def test_hashes_sketch_and_band_keys_are_identical_across_processes() -> None:
    expected = fingerprint(_TEXT)
    assert expected["count"] == len(shingle_set(expected["tokens"], "word", 5)) > 1
    assert len(expected["bands"]) == 42
    for hash_seed in ("0", "12345"):
        assert json.loads(output_under_hash_seed(_CHILD.format(repr(_TEXT)), hash_seed)) == expected
