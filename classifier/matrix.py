"""Feature matrices of many labelled pairs, as the service would compute them, in processes.

Used by training and by the gold-dev report. Boilerplate statistics are learned from the
postings of all the pairs first (the pairs' corpus stands in for the index), so a pair's
sketches leave out the units that recur across different jobs of that corpus, as they would
once the index holds such a corpus. Two passes: unit hashes of every distinct posting (cheap),
then the features per chunk of pairs with each posting's boilerplate mask shipped along.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from classifier.features import FEATURE_NAMES, TextSimilarity, feature_row
from classifier.fields import PostingFields, extract_fields
from classifier.pairs import PairExample
from indexer.boilerplate import UnitCounter, Witnesses, unit_hash
from indexer.minhash import SketchParams
from indexer.prepare import PreparedPosting, posting_units, prepare_document, with_boilerplate
from indexer.text import normalise_company, normalise_title

CHUNK = 500
Masks = Mapping[str, tuple[bool, ...]]


def feature_matrix(
    pairs: Sequence[PairExample], params: SketchParams, workers: int = 1, boilerplate: bool = True
) -> npt.NDArray[np.float64]:
    """Features of every pair (rows in pair order), with corpus-learned boilerplate (or, for
    comparison, without: `boilerplate=False`, as the service with JOBDEDUP_BOILERPLATE=false)."""
    documents = {str(d["id"]): d for pair in pairs for d in (pair.a, pair.b)}
    masks = boilerplate_masks(list(documents.values()), workers) if boilerplate else {}
    chunks = [pairs[i : i + CHUNK] for i in range(0, len(pairs), CHUNK)]
    jobs = [
        (
            chunk,
            {k: masks[k] for p in chunk for k in (str(p.a["id"]), str(p.b["id"])) if k in masks},
        )
        for chunk in chunks
    ]
    rows = parallel_map(partial(_chunk_features, params=params), jobs, workers)
    if not rows:
        return np.empty((0, len(FEATURE_NAMES)))
    return np.vstack(rows)


def boilerplate_masks(
    documents: Sequence[Mapping[str, Any]], workers: int = 1
) -> dict[str, tuple[bool, ...]]:
    """Per posting id, which of its units the corpus's statistics call boilerplate."""
    keyed = parallel_map(_unit_keys, list(documents), workers)
    counter = UnitCounter()
    for _, witnesses, units in keyed:
        counter.observe(witnesses, units)
    return {
        key: tuple(witnesses.mask(units, counter.unit_counts(witnesses.scopes(), units)))
        for key, witnesses, units in keyed
    }


def _unit_keys(document: Mapping[str, Any]) -> tuple[str, Witnesses, tuple[int | None, ...]]:
    title = str(document.get("title", ""))
    company = document.get("company")
    units = posting_units(title, str(document.get("description", "")))
    witnesses = Witnesses(
        normalise_company(company if isinstance(company, str) else None), normalise_title(title)
    )
    return str(document["id"]), witnesses, tuple(unit_hash(u.tokens) for u in units)


def _chunk_features(
    job: tuple[Sequence[PairExample], Masks], params: SketchParams
) -> npt.NDArray[np.float64]:
    """Feature rows of a chunk, each distinct posting prepared and extracted once."""
    chunk, masks = job
    prepared: dict[str, PreparedPosting] = {}
    fields: dict[str, PostingFields] = {}
    rows = np.empty((len(chunk), len(FEATURE_NAMES)), dtype=np.float64)
    for row, pair in enumerate(chunk):
        sides = []
        for document in (pair.a, pair.b):
            key = str(document["id"])
            if key not in prepared:
                plain = prepare_document(document, params)
                prepared[key] = with_boilerplate(plain, masks.get(key, plain.boilerplate), params)
                fields[key] = extract_fields(document)
            sides.append(key)
        similarity = TextSimilarity.between(
            prepared[sides[0]],
            prepared[sides[1]],
            dated=bool(pair.a.get("posted_at")) and bool(pair.b.get("posted_at")),
        )
        rows[row] = feature_row(fields[sides[0]], fields[sides[1]], similarity)
    return rows


def parallel_map(function: Callable[[Any], Any], items: Sequence[Any], workers: int) -> list[Any]:
    """`map` over processes when `workers` > 1 and there is enough work; order kept."""
    if workers <= 1 or len(items) < 2:
        return [function(item) for item in items]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(function, items, chunksize=max(1, len(items) // (workers * 8))))
