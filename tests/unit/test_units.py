"""Sketches from units: exact when every unit is kept, and the unit-selection rules."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.minhash import SketchParams, permutations, sketch_hashes, sketch_tokens, to_signed
from indexer.prepare import prepare_document, with_boilerplate
from indexer.sections import Unit
from indexer.shingles import word_ngram_hashes
from indexer.units import (
    MIN_CORE_SHINGLES,
    keep_units,
    profile_units,
    shingle_tokens,
    sketch_units,
)

PARAMS = SketchParams()
WORDS = st.sampled_from(["data", "engineer", "python", "team", "remote", "salary", "x", "2"])


def units_of(parts: list[list[str]], sections: list[str] | None = None) -> list[Unit]:
    kinds = sections or ["intro"] * len(parts)
    return [
        Unit(tokens=tuple(p), section=k, heading=False) for p, k in zip(parts, kinds, strict=True)
    ]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(WORDS, min_size=0, max_size=12), min_size=1, max_size=8))
def test_keeping_every_unit_gives_the_plain_sketch_of_the_token_stream(
    parts: list[list[str]],
) -> None:
    units = units_of(parts)
    profile = profile_units(units, PARAMS)
    sketch, count = sketch_units(profile, np.ones(len(units), dtype=bool), PARAMS)
    want, want_count = sketch_tokens([t for p in parts for t in p], PARAMS)
    assert np.array_equal(sketch, want)
    assert count == want_count


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(WORDS, min_size=1, max_size=12), min_size=2, max_size=8),
    st.data(),
)
def test_a_subset_sketch_is_the_minimum_over_shingles_starting_in_kept_units(
    parts: list[list[str]], data: st.DataObject
) -> None:
    keep = np.array(data.draw(st.lists(st.booleans(), min_size=len(parts), max_size=len(parts))))
    if not keep.any():
        keep[0] = True
    units = units_of(parts)
    profile = profile_units(units, PARAMS)
    sketch, count = sketch_units(profile, keep, PARAMS)
    tokens = [t for p in parts for t in p]
    starts = np.cumsum([0, *(len(p) for p in parts)])
    shingles = word_ngram_hashes(tokens, PARAMS.shingle_size)
    owner = np.searchsorted(starts, np.arange(len(shingles)), side="right") - 1
    chosen = np.unique(shingles[keep[owner]])
    if len(chosen):
        assert np.array_equal(sketch, sketch_hashes(chosen, PARAMS))
    else:  # kept units where no shingle starts: an empty sketch
        xor, _ = permutations(PARAMS.seed, PARAMS.num_perm)
        assert np.array_equal(sketch, to_signed(np.full(len(xor), np.iinfo(np.uint64).max)))
    assert count == len(chosen)


def test_company_and_legal_sections_are_left_out_when_enough_job_text_remains() -> None:
    job = [f"task{i}" for i in range(MIN_CORE_SHINGLES + 4)]
    units = units_of([["about", "acme", "corp", "is", "great", "fun"], job], ["company", "tasks"])
    keep = keep_units(profile_units(units, PARAMS), [False, False])
    assert keep.tolist() == [False, True]


def test_short_job_text_keeps_the_company_sections() -> None:
    units = units_of(
        [["about", "acme", "corp", "is", "great", "fun"], ["nurse"]], ["company", "tasks"]
    )
    keep = keep_units(profile_units(units, PARAMS), [False, False])
    assert keep.tolist() == [True, True]


def test_boilerplate_units_are_left_out_and_all_boilerplate_keeps_everything() -> None:
    units = units_of(
        [["we", "are", "an", "equal", "employer"], ["you", "will", "code", "python", "daily"]]
    )
    profile = profile_units(units, PARAMS)
    assert keep_units(profile, [True, False]).tolist() == [False, True]
    assert keep_units(profile, [True, True]).tolist() == [True, True]


def test_unspaced_scripts_are_shingled_by_character() -> None:
    assert shingle_tokens(["数据工程师", "python"]) == ["数", "据", "工", "程", "师", "python"]
    assert shingle_tokens(["วิศวกร"])[0] == "ว"
    assert shingle_tokens(["инженер", "μηχανικοσ"]) == ["инженер", "μηχανικοσ"]


def test_with_boilerplate_resketches_without_the_masked_units() -> None:
    description = "\n".join(
        [
            "Acme builds payment software for hospitals across the north of England.",
            "You will build data pipelines in Python and maintain our billing warehouse.",
            "You will review code, mentor two junior engineers and own the on-call rota.",
        ]
    )
    plain = prepare_document(
        {"id": "a", "title": "Data Engineer", "description": description}, PARAMS
    )
    mask = [i == 0 for i in range(len(plain.unit_hashes))]
    masked = with_boilerplate(plain, mask, PARAMS)
    assert masked.shingle_count < plain.shingle_count
    assert masked.band_keys != plain.band_keys
    assert with_boilerplate(plain, plain.boilerplate, PARAMS) is plain


def test_a_misread_heading_early_in_an_ad_keeps_the_rest() -> None:
    intro = [f"intro{i}" for i in range(MIN_CORE_SHINGLES + 4)]
    rest = [f"duty{i}" for i in range(200)]
    units = units_of([intro, rest], ["intro", "offer"])
    assert keep_units(profile_units(units, PARAMS), [False, False]).tolist() == [True, True]
