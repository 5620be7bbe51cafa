"""The compiled kernels (`indexer/_kernels.pyx`) give bit for bit what the code they replace
gave: per-unit MinHash minimums as numpy computed them, and py3langid's scores as its own
Python byte walk computed them."""

from __future__ import annotations

import pickle
import re
import threading

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from bench.kernels import python_ascii_anchor_words, regex_glued_words
from indexer._kernels import (
    ascii_anchor_words,
    bucket_sort,
    glued_words,
    layout_marks,
    set_counts,
    unit_minimums,
)
from indexer.glue import _CLASSES
from indexer.language import CANDIDATE_LANGUAGES
from indexer.language_model import CompiledIdentifier
from indexer.minhash import SketchParams, permutations
from indexer.prepare import posting_units
from indexer.stores.sqlite.unit_stats import directory
from indexer.text import plain, strip_html
from indexer.units import profile_units
from tests.classifier.postings import BASE_POSTINGS
from tests.unit.test_language import ADS

U64 = npt.NDArray[np.uint64]


def numpy_minimums(shingles: U64, owners: npt.NDArray[np.intp], units: int) -> U64:
    """The numpy computation the kernel replaced: every permutation of every shingle, then
    the minimum over each unit's shingles."""
    xor, mul = permutations(1, 128)
    values = (shingles[:, None] ^ xor) * mul
    result = np.full((max(units, 1), 128), np.iinfo(np.uint64).max, dtype=np.uint64)
    for unit in range(units):
        mine = values[owners == unit]
        if len(mine):
            result[unit] = mine.min(axis=0)
    return result


@pytest.mark.parametrize("posting", BASE_POSTINGS, ids=lambda p: str(p["id"]))
def test_unit_minimums_of_real_ads_are_numpys(posting: dict[str, str]) -> None:
    units = posting_units(posting["title"], posting["description"])
    profile = profile_units(units, SketchParams())
    assert len(units) > 1 and len(profile.shingles) > 20
    expected = numpy_minimums(profile.shingles, profile.owners, len(units))
    assert np.array_equal(profile.mins, expected)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), max_size=300),
    st.integers(1, 12),
    st.randoms(use_true_random=False),
)
def test_unit_minimums_of_any_shingles_and_owners(
    values: list[int], units: int, rng: object
) -> None:
    """Owners in any order (a unit may own several runs), units without shingles, none."""
    shingles = np.array(values, dtype=np.uint64)
    owners = np.array(
        [rng.randrange(units) for _ in values],  # type: ignore[attr-defined]
        dtype=np.intp,
    )
    xor, mul = permutations(1, 128)
    got = unit_minimums(shingles, owners, units, xor, mul)
    assert np.array_equal(got, numpy_minimums(shingles, owners, units))


@pytest.fixture(scope="module")
def identifiers() -> tuple[LanguageIdentifier, CompiledIdentifier]:
    python = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    compiled = CompiledIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    for model in (python, compiled):
        model.set_languages(list(CANDIDATE_LANGUAGES))
    return python, compiled


TEXTS = [
    *ADS.values(),
    *(p["description"] for p in BASE_POSTINGS),
    "",
    "12345 67890",
    "STAFF NURSE - BAND 5 - FULL TIME",
    "Пловдив: шофьор на камион, международен транспорт",
    "東京都内のオフィスでソフトウェアエンジニアを募集しています",
    "\x00\xff\u200b\ufeff<b>mixed</b> ✓ 😀",
]


@pytest.mark.parametrize("text", TEXTS)
def test_language_scores_are_py3langids_bit_for_bit(
    identifiers: tuple[LanguageIdentifier, CompiledIdentifier], text: str
) -> None:
    python, compiled = identifiers
    encoded = python._encode(text)
    assert compiled._raw_score(encoded).tobytes() == python._raw_score(encoded).tobytes()
    assert compiled.classify(text) == python.classify(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_language_answers_of_any_text_are_py3langids(
    identifiers: tuple[LanguageIdentifier, CompiledIdentifier], text: str
) -> None:
    python, compiled = identifiers
    assert compiled.classify(text) == python.classify(text)


def test_the_pickled_identifier_scores_bit_for_bit_and_shares_its_automaton(
    identifiers: tuple[LanguageIdentifier, CompiledIdentifier],
) -> None:
    """The disk cache holds the identifier pickled without its automaton's arrays, rebuilt
    on load as views of the model's own transitions (not a second copy of them)."""
    python, compiled = identifiers
    loaded = pickle.loads(pickle.dumps(compiled, protocol=pickle.HIGHEST_PROTOCOL))
    assert loaded._automaton[0].base.obj is loaded.tk_nextmove  # a view, not a copy
    assert loaded.nb_ptc.flags["C_CONTIGUOUS"] and loaded.nb_ptc.dtype == np.float32
    for text in TEXTS:
        encoded = python._encode(text)
        assert loaded._raw_score(encoded).tobytes() == python._raw_score(encoded).tobytes()
        assert loaded.classify(text) == python.classify(text)


def test_threads_walking_at_once_get_their_own_answers(
    identifiers: tuple[LanguageIdentifier, CompiledIdentifier],
) -> None:
    """The walk runs without the GIL on a per-thread work array: concurrent threads (the
    API's) must not mix their counts."""
    python, compiled = identifiers
    expected = {text: python.classify(text) for text in ADS.values()}
    wrong: list[str] = []

    def detect() -> None:
        for _ in range(30):
            for text, answer in expected.items():
                if compiled.classify(text) != answer:
                    wrong.append(text)

    threads = [threading.Thread(target=detect) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


_INT64 = st.integers(-(2**63), 2**63 - 1)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_INT64, min_size=1, max_size=8).map(lambda pool: [*pool, -(2**63), 2**63 - 1]),
    st.lists(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 3)), max_size=80), max_size=3),
    st.lists(st.tuples(st.integers(0, 9), st.integers(0, 3)), max_size=12),
    _INT64,
)
def test_set_counts_count_and_find_the_own_witness_as_a_scan_does(
    pool: list[int],
    runs: list[list[tuple[int, int]]],
    asked: list[tuple[int, int]],
    absent: int,
) -> None:
    """Keys drawn from a small pool of any int64 (the extremes included), so sets of several
    witnesses over several runs, buckets of the directory holding several keys, repeated
    query keys in any order and absent keys all occur; the answer is a brute-force scan's."""
    as_records = [sorted(((pool[k % len(pool)], w) for k, w in run)) for run in runs]
    keys = [np.array([k for k, _ in run], dtype=np.int64) for run in as_records]
    witnesses = [np.array([w for _, w in run], dtype=np.int32) for run in as_records]
    questions = [(pool[k % len(pool)], w) for k, w in asked] + [(absent, 0)]
    query = np.array([k for k, _ in questions], dtype=np.int64)
    own = np.array([w for _, w in questions], dtype=np.int32)
    counts, flags = set_counts(keys, witnesses, [directory(k) for k in keys], query, own)
    records = [record for run in as_records for record in run]
    assert counts.tolist() == [sum(k == key for k, _ in records) for key, _ in questions]
    assert flags.tolist() == [int((key, mine) in records) for key, mine in questions]


def test_a_directory_buckets_hashes_evenly_and_in_order() -> None:
    """Every key of 100,000 random hashes lies in the bucket its top bits name, and no
    bucket holds more than a few dozen."""
    keys = np.sort(np.random.default_rng(3).integers(-(2**63), 2**63 - 1, 100_000))
    starts = directory(keys)
    bits = (len(starts) - 1).bit_length() - 1
    buckets = (keys.view(np.uint64) ^ np.uint64(1 << 63)) >> np.uint64(64 - bits)
    index = np.arange(len(keys))
    assert np.all(starts[buckets] <= index) and np.all(index < starts[buckets + np.uint64(1)])
    assert int(np.diff(starts).max()) < 32


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_INT64, min_size=1, max_size=8).map(lambda pool: [*pool, -(2**63), 2**63 - 1]),
    st.lists(st.tuples(st.integers(0, 9), st.integers(0, 2**31 - 1)), max_size=200),
)
def test_bucket_sort_orders_records_and_builds_the_directory(
    pool: list[int], drawn: list[tuple[int, int]]
) -> None:
    """Records of any int64 keys (repeated, extremes included) come out as numpy's sort
    orders them, each witness still beside its key, with `directory`'s directory."""
    keys = np.array([pool[k % len(pool)] for k, _ in drawn], dtype=np.int64)
    witnesses = np.array([w for _, w in drawn], dtype=np.int32)
    bits = max(0, (len(keys) // 4).bit_length() - 1)
    out_keys, out_witnesses, starts = bucket_sort(keys, witnesses, bits)
    order = np.argsort(keys, kind="stable")  # equal keys keep their input order
    assert out_keys.tolist() == keys[order].tolist()
    assert out_witnesses.tolist() == witnesses[order].tolist()
    assert starts.tolist() == directory(out_keys).tolist()


@settings(max_examples=100, deadline=None)
@given(
    st.lists(_INT64, min_size=2, max_size=6, unique=True),
    st.lists(st.integers(0, 5), min_size=150, max_size=600),
    st.integers(0, 2),
)
def test_bucket_sort_of_rids_is_numpys_stable_sort_even_with_crowded_buckets(
    pool: list[int], drawn: list[int], bits: int
) -> None:
    """int64 values (the key index's rids), and buckets far over `SMALL_BUCKET` (a few keys
    repeated hundreds of times, few buckets): the same arrays as numpy's stable argsort."""
    keys = np.array([pool[k % len(pool)] for k in drawn], dtype=np.int64)
    rids = np.arange(len(keys), dtype=np.int64)[::-1].copy()
    out_keys, out_rids, starts = bucket_sort(keys, rids, bits)
    order = np.argsort(keys, kind="stable")
    assert out_rids.dtype == np.int64
    assert out_keys.tolist() == keys[order].tolist()
    assert out_rids.tolist() == rids[order].tolist()
    assert starts.tolist() == directory(out_keys, bits).tolist()


def test_a_crowded_bucket_keeps_each_rid_beside_its_key() -> None:
    """Two keys interleaved 100 times in one bucket (over `SMALL_BUCKET`)."""
    keys = np.array([5, 3] * 100, dtype=np.int64)
    rids = np.arange(200, dtype=np.int64)
    out_keys, out_rids, _ = bucket_sort(keys, rids, 0)
    assert out_keys.tolist() == [3] * 100 + [5] * 100
    assert out_rids.tolist() == list(range(1, 200, 2)) + list(range(0, 200, 2))


_LAYOUT_REFERENCE = re.compile(r"[.,;:!?()]|[0-9]+|\n+|(?<!\S)-(?=\s)")
"""The regular expression `layout_marks` replaced, the one the shipped model's
`layout_ratio` was first computed with."""


def regex_layout(text: str, limit: int) -> str:
    marks = _LAYOUT_REFERENCE.findall(text)[:limit]
    return "".join("0" if m[0].isdigit() else "|" if m[0] == "\n" else m[0] for m in marks)


_LAYOUT_ALPHABET = st.sampled_from(
    [*".,;:!?()-0123456789\n\t \u00a0\u2003\r|/'\"", "a", "Z", "é", "ж", "\u0662"]
)
"""Marks, digits, whitespace of several kinds, letters and an Arabic-Indic digit (not [0-9])."""


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(st.text(_LAYOUT_ALPHABET, max_size=60), st.text(max_size=60)),
    st.integers(min_value=0, max_value=70),
)
def test_layout_marks_equal_the_regular_expression(text: str, limit: int) -> None:
    assert layout_marks(text, limit) == regex_layout(text, limit)


def test_layout_marks_of_real_ads() -> None:
    for posting in BASE_POSTINGS:
        text = str(posting.get("description", ""))
        assert layout_marks(text, 2000) == regex_layout(text, 2000)
        assert layout_marks(text, 2000)  # every fixture ad has some punctuation


_ANCHOR_PIECES = st.sampled_from([*"aZzA09_ -.,\n\t/'@[`{", "Ab", "NHS", "x1", "__", "B7"])
"""Letters of both cases at the ranges' edges and the characters just outside them ("@[`{"),
digits, "_", separators and a few words."""


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.lists(_ANCHOR_PIECES, max_size=25).map("".join),
        st.text(st.characters(max_codepoint=127), max_size=60),
    ),
    st.booleans(),
)
def test_ascii_anchor_words_equal_the_python_they_replaced(text: str, names: bool) -> None:
    assert ascii_anchor_words(text, names) == python_ascii_anchor_words(text, names)


def test_ascii_anchor_words_of_real_ads() -> None:
    texts = [  # as `indexer.reading.read_text` joins them: typography made plain first
        "\n".join(
            plain(strip_html(str(p.get(field, ""))))
            for field in ("title", "company", "description")
        )
        for p in BASE_POSTINGS
    ]
    ascii_texts = [t for t in texts if t.isascii()]
    assert len(ascii_texts) >= 2  # the English and Dutch fixture ads
    for text in ascii_texts:
        for names in (False, True):
            assert ascii_anchor_words(text, names) == python_ascii_anchor_words(text, names)
        assert ascii_anchor_words(text, False)


_GLUE_PIECES = st.sampled_from(
    [
        *"abzAZé É'’-_0 9\n.",
        "abc",
        "1abc",
        "ß",
        "ǅ",
        "ʼ",
        "ʰ",
        "ɐ",
        "Ω",
        "ω",
        "Ж",
        "ж",
        "ӿ",
        "Ԁ",
        "中",
        "x1",
        "Vous",
    ]
)
"""Letters of both cases in each script's block and at the blocks' edges ("ɐ" just past the
Latin table, "Ԁ" past the Cyrillic one), a titlecase and modifier letters (neither case),
digits, apostrophes, separators and a capitalised word."""


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(st.lists(_GLUE_PIECES, max_size=30).map("".join), st.text(max_size=60)),
    st.integers(min_value=1, max_value=4),
)
def test_glued_words_equal_the_regular_expression(text: str, at_most: int) -> None:
    assert glued_words(text, _CLASSES, at_most) == regex_glued_words(text, at_most)


def test_glued_words_of_real_ads() -> None:
    texts = [strip_html(str(p.get("description", ""))) for p in BASE_POSTINGS]
    texts.append("".join(re.sub(r"[.:]?\s*\n\s*", "", t) for t in texts))  # lines glued
    for text in texts:
        assert glued_words(text, _CLASSES, 50) == regex_glued_words(text, 50)
    assert glued_words(texts[-1], _CLASSES, 50) > 3
