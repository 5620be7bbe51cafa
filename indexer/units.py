"""Sketches built from a posting's units, so boilerplate and non-job sections can be left out.

The token stream of a description is cut into units (sentences, bullet lines; see
`indexer.sections`). Each word shingle is attributed to the unit where it starts, and the
MinHash minimums are taken per unit (`UnitProfile.mins`). MinHash of a union is the
slot-wise minimum of the parts' sketches, so the sketch of any subset of units costs one
vectorised minimum, and the choice of units (which depends on the index's boilerplate
statistics, known only inside the writer lock) no longer needs the shingles re-hashed. When
every unit is kept the sketch is exactly the plain sketch of the whole token stream.

Which units the index sketch keeps (`keep_units`), in order of preference:
1. the job-specific units (`indexer.sections.JOB_SECTIONS`: intro, tasks, profile) that are
   not boilerplate, if they carry at least `MIN_CORE_SHINGLES` shingles and `MIN_CORE_SHARE`
   of the ad's;
2. otherwise every unit that is not boilerplate, if any carries a shingle;
3. otherwise every unit (an ad made only of boilerplate still matches its exact copies).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from indexer._kernels import unit_minimums
from indexer.language import NO_SPACE_SCRIPT
from indexer.minhash import Sketch, SketchParams, permutations, to_signed
from indexer.sections import JOB_SECTIONS, Unit
from indexer.shingles import shingle_set, word_ngram_hashes

MIN_CORE_SHINGLES = 20
"""Job-specific shingles needed before company and legal sections are dropped: below this
(a snippet, an ad whose headings were not recognised) the sketch keeps them."""

MIN_CORE_SHARE = 0.25
"""...and the share of the ad's shingles they must hold: one misread heading early in an ad
turns the rest into "offer" or "apply", and a sketch of the first paragraph alone would then
miss most of the vacancy."""

_MAX = np.iinfo(np.uint64).max


@dataclass(frozen=True, eq=False)
class UnitProfile:
    """A posting's units with their per-unit MinHash minimums.

    `mins` has one row of M unsigned minimums per unit (all-max for a unit where no shingle
    starts); `shingles` are the shingle hashes and `owners` the unit index of each.
    """

    sections: tuple[str, ...]
    mins: npt.NDArray[np.uint64]
    shingles: npt.NDArray[np.uint64]
    owners: npt.NDArray[np.intp]
    distinct: int
    """Distinct shingles of all units (the shingle count when every unit is kept)."""
    job: npt.NDArray[np.bool_]
    """Which units are job-specific (`indexer.sections.JOB_SECTIONS`)."""
    per_unit: npt.NDArray[np.intp]
    """Shingles each unit owns. `job` and `per_unit` are what `keep_units` weighs at every
    boilerplate verdict, made once with the profile (in a preparation process when `ingest`
    has one) rather than in the deciding process at each verdict."""


def shingle_tokens(tokens: Sequence[str]) -> list[str]:
    """Tokens as shingled: words of scripts written without spaces (Chinese, Japanese, Thai,
    Lao, Khmer, Myanmar, Tibetan) are split into characters, so word shingles become
    character shingles exactly where word boundaries fail."""
    if "".join(tokens).isascii():
        return list(tokens)
    out: list[str] = []
    for token in tokens:
        if not token.isascii() and NO_SPACE_SCRIPT.search(token):
            out.extend(token)
        else:
            out.append(token)
    return out


def profile_units(units: Sequence[Unit], params: SketchParams) -> UnitProfile:
    """Shingle the concatenated units and take each unit's minimums under `params`."""
    per_unit = [shingle_tokens(u.tokens) for u in units]
    if params.shingle_kind == "word":
        shingles, owners = _stream_shingles(per_unit, params.shingle_size)
    else:
        shingles, owners = _unit_shingles(per_unit, params)
    sections = tuple(u.section for u in units)
    return UnitProfile(
        sections=sections,
        mins=_unit_minimums(shingles, owners, len(units), params),
        shingles=shingles,
        owners=owners,
        distinct=distinct_count(shingles),
        job=np.array([s in JOB_SECTIONS for s in sections], dtype=bool),
        per_unit=np.bincount(owners, minlength=len(units))[: len(units)],
    )


def _stream_shingles(
    per_unit: list[list[str]], size: int
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.intp]]:
    """Word shingles of the whole token stream, each owned by the unit it starts in."""
    tokens = [t for unit in per_unit for t in unit]
    shingles = word_ngram_hashes(tokens, size)
    starts = np.cumsum([0, *(len(u) for u in per_unit)])[:-1]
    positions = np.arange(len(shingles))
    owners = np.searchsorted(starts, positions, side="right") - 1
    return shingles, np.maximum(owners, 0).astype(np.intp)


def _unit_shingles(
    per_unit: list[list[str]], params: SketchParams
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.intp]]:
    """Skip-gram and character shingles, taken within each unit (the slower option kinds)."""
    parts = [
        shingle_set(tokens, params.shingle_kind, params.shingle_size, params.skip)
        for tokens in per_unit
        if tokens
    ]
    owners = [np.full(len(p), i, dtype=np.intp) for i, p in enumerate(parts)]
    if not parts:
        return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.intp)
    return np.concatenate(parts), np.concatenate(owners)


def _unit_minimums(
    shingles: npt.NDArray[np.uint64],
    owners: npt.NDArray[np.intp],
    unit_count: int,
    params: SketchParams,
) -> npt.NDArray[np.uint64]:
    """Per-unit minimum of every permutation: (units x M). Compiled (`indexer._kernels`,
    Cython): one pass over each unit's run of shingles per permutation. The numpy version
    (xor and multiply into a (shingles x M) block, then `minimum.reduceat` over the owners'
    runs) took 0.23-0.36 ms per NHS ad against ~0.1 ms; the results are bit-identical
    (tests/unit/test_kernels.py)."""
    xor, mul = permutations(params.seed, params.num_perm)
    return unit_minimums(shingles, owners, unit_count, xor, mul)


def distinct_count(values: npt.NDArray[np.uint64]) -> int:
    """Number of distinct values (a sort and a comparison: np.unique's hashing path took
    ten times as long on a few hundred shingles)."""
    if not len(values):
        return 0
    ordered = np.sort(values)
    return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def keep_units(profile: UnitProfile, boilerplate: Sequence[bool]) -> npt.NDArray[np.bool_]:
    """The units the index sketch is made of (rules in the module docstring)."""
    count = len(profile.sections)
    if not count:
        return np.zeros(0, dtype=bool)
    boiler = np.asarray(boilerplate, dtype=bool)
    per_unit, job = profile.per_unit, profile.job
    core: npt.NDArray[np.bool_] = job & ~boiler
    core_shingles = int(per_unit[core].sum())
    if core_shingles >= max(MIN_CORE_SHINGLES, MIN_CORE_SHARE * int(per_unit.sum())):
        return core
    plain: npt.NDArray[np.bool_] = ~boiler
    if (per_unit[plain] > 0).any():
        return plain
    return np.ones(count, dtype=bool)


def sketch_units(
    profile: UnitProfile, keep: npt.NDArray[np.bool_], params: SketchParams
) -> tuple[Sketch, int]:
    """Sketch of the kept units and the number of distinct shingles they own."""
    if not len(profile.sections) or keep.all():
        rows = profile.mins
        count = profile.distinct
    else:
        rows = profile.mins[: len(keep)][keep]
        count = distinct_count(profile.shingles[keep[profile.owners]])
    if not len(rows):
        return to_signed(np.full(params.num_perm, _MAX, dtype=np.uint64)), 0
    return to_signed(rows.min(axis=0)), count
