"""The compiled kernels against the Python and numpy code they replaced, on the shared corpora.

    python bench/kernels.py [--ads 3000]

Prints one table: for each kernel (`indexer/_kernels.pyx`), how many inputs were compared,
how many results differ (must be 0: the kernels are meant to be bit-identical), and the
mean time per input of the old code and of the kernel, measured alternately twice in this
process. Inputs: the per-unit shingles of the first --ads NHS ads (MinHash minimums), and the
300-character openings `detect_language` reads of every string field longer than 40
characters in every JSONL corpus of ../shared/data (language identification: py3langid's
own `LanguageIdentifier` against `indexer.language_model.CompiledIdentifier`, both restricted
to our languages). Never run as a test.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.nhs import SHARED, nhs_postings  # noqa: E402
from indexer.language import CANDIDATE_LANGUAGES, DETECT_PREFIX_CHARS  # noqa: E402
from indexer.minhash import SketchParams, permutations  # noqa: E402
from indexer.prepare import posting_units  # noqa: E402
from indexer.text import strip_html  # noqa: E402
from indexer.units import _stream_shingles, _unit_minimums, shingle_tokens  # noqa: E402

U64 = npt.NDArray[np.uint64]
Profile = tuple[U64, npt.NDArray[np.intp], int]


def numpy_minimums(shingles: U64, owners: npt.NDArray[np.intp], units: int) -> U64:
    """The numpy code the kernel replaced (indexer/units.py before it): the permuted values
    of every shingle in one (shingles x M) block, then the minimum over each owner's run."""
    xor, mul = permutations(1, 128)
    result = np.full((max(units, 1), 128), np.iinfo(np.uint64).max, dtype=np.uint64)
    if not len(shingles):
        return result
    block = (shingles[:, None] ^ xor) * mul
    cuts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
    runs = owners[cuts]
    result[runs] = np.minimum(result[runs], np.minimum.reduceat(block, cuts, axis=0))
    return result


def _profiles(ads: int) -> list[Profile]:
    profiles = []
    for row in nhs_postings(limit=ads):
        units = posting_units(str(row["title"]), str(row["description"]))
        shingles, owners = _stream_shingles([shingle_tokens(u.tokens) for u in units], 5)
        profiles.append((shingles, owners, len(units)))
    return profiles


def _openings() -> list[str]:
    def strings() -> Iterator[str]:
        for path in sorted((SHARED / "data").glob("*/*.jsonl*")):
            opener: Any = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rt", encoding="utf-8") as handle:
                for line in handle:
                    row = json.loads(line)
                    if isinstance(row, dict):
                        yield from (v for v in row.values() if isinstance(v, str) and len(v) > 40)

    return [strip_html(t[: 4 * DETECT_PREFIX_CHARS])[:DETECT_PREFIX_CHARS] for t in strings()]


def _timed(run: Callable[[], object], count: int) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) / count * 1000.0


def _row(name: str, count: int, differ: int, old: Sequence[float], new: Sequence[float]) -> str:
    o, n = sum(old) / len(old), sum(new) / len(new)
    return f"| {name} | {count} | {differ} | {o:.3f} | {n:.3f} | {o / n:.1f}x |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ads", type=int, default=3000, help="NHS ads for the minimums")
    args = parser.parse_args()

    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    from indexer.language_model import CompiledIdentifier

    params = SketchParams()
    profiles = _profiles(args.ads)
    differ = sum(
        not np.array_equal(numpy_minimums(*p), _unit_minimums(*p, params)) for p in profiles
    )
    old: list[float] = []
    new: list[float] = []
    for _ in range(2):
        old.append(_timed(lambda: [numpy_minimums(*p) for p in profiles], len(profiles)))
        new.append(_timed(lambda: [_unit_minimums(*p, params) for p in profiles], len(profiles)))
    rows = [_row("per-unit MinHash minimums (NHS ads)", len(profiles), differ, old, new)]

    python = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    compiled = CompiledIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    for model in (python, compiled):
        model.set_languages(list(CANDIDATE_LANGUAGES))
    openings = _openings()
    differ = sum(python.classify(t) != compiled.classify(t) for t in openings)
    sample = openings[:: max(1, len(openings) // 10000)]
    old, new = [], []
    for _ in range(2):
        old.append(_timed(lambda: [python.classify(t) for t in sample], len(sample)))
        new.append(_timed(lambda: [compiled.classify(t) for t in sample], len(sample)))
    name = "language of a 300-character opening (all corpora)"
    rows.append(_row(name, len(openings), differ, old, new))

    print("| kernel | inputs | results that differ | old (ms each) | kernel (ms each) | speed-up |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
