"""The compiled kernels against the Python and numpy code they replaced, on the shared corpora.

    python bench/kernels.py [--ads 3000]

Prints one table: for each kernel (`indexer/_kernels.pyx`), how many inputs were compared,
how many results differ (must be 0: the kernels are meant to be bit-identical), and the
mean time per input of the old code and of the kernel, measured alternately twice in this
process. Inputs: the per-unit shingles of the first --ads NHS ads (MinHash minimums), the
300-character openings `detect_language` reads of every string field longer than 40
characters in every JSONL corpus of ../shared/data (language identification: py3langid's
own `LanguageIdentifier` against `indexer.language_model.CompiledIdentifier`, both restricted
to our languages), and the key index of those NHS ads (committed 256 at a time, as ingest
does) searched with each ad's keys and its anchors keyed in Welsh, what the translation
search counts (`run_matches` and `count_live` in `BandIndex.spans` and `count`, against the
numpy code they replaced: a pair of binary searches per run, every holder's time read), and
the layout of every description of the corpora (`layout_marks` against the regular
expression it replaced, `REGEX_LAYOUT`), the glued words of those descriptions
(`glued_words` against `REGEX_GLUED`), and the anchor words of every ad of the corpora
whose joined title, company and description are ASCII (`ascii_anchor_words` against the
Python it replaced, `python_ascii_anchor_words`). Never run as a test.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import re
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
from classifier.corpora import GoldExclusions, load_eures, load_french, load_nhs  # noqa: E402
from classifier.fields import LAYOUT_CHARS, layout  # noqa: E402
from classifier.translations import load_translations  # noqa: E402
from indexer._kernels import ascii_anchor_words, glued_words  # noqa: E402
from indexer.anchor_keys import anchor_keys, language_key  # noqa: E402
from indexer.glue import _CLASSES, _LOWER, _UPPER  # noqa: E402
from indexer.language import CANDIDATE_LANGUAGES, DETECT_PREFIX_CHARS  # noqa: E402
from indexer.minhash import SketchParams, permutations  # noqa: E402
from indexer.prepare import posting_units  # noqa: E402
from indexer.reading import field_text  # noqa: E402
from indexer.stores.sqlite.band_index import BandIndex  # noqa: E402
from indexer.text import plain, strip_html  # noqa: E402
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


I64 = npt.NDArray[np.int64]


def numpy_spans(index: BandIndex, keys: Sequence[int]) -> list[list[I64]]:
    """`BandIndex.spans` before the kernel: two binary searches of every key in every run."""
    query = np.asarray(list(keys), dtype=np.int64)
    spans: list[list[I64]] = [[] for _ in range(len(query))]
    for run_keys, run_rids in index._runs:
        starts = np.searchsorted(run_keys, query, side="left")
        stops = np.searchsorted(run_keys, query, side="right")
        for i in np.flatnonzero(stops > starts).tolist():
            spans[i].append(run_rids[starts[i] : stops[i]])
    return spans


def numpy_count(index: BandIndex, spans: list[list[I64]], since: int, until: int) -> list[int]:
    """Every holder's posted_at read, the live ones in the window counted (exact)."""
    counts = []
    for held in spans:
        if not held:
            counts.append(0)
            continue
        posted = index._visible[np.concatenate(held)]
        counts.append(int(np.count_nonzero((posted >= since) & (posted <= until))))
    return counts


def _key_index(ads: int) -> tuple[BandIndex, list[list[int]]]:
    """The key index of the first `ads` NHS ads and one search per ad: its own keys, then its
    anchors keyed in Welsh (absent keys, as most of a translation search's are)."""
    from datetime import UTC, datetime

    from service.preparation import prepare_posting
    from service.schemas import Posting

    index, queries = BandIndex(), []
    now = datetime.now(UTC)
    for n, row in enumerate(nhs_postings(limit=ads), 1):
        prepared, _ = prepare_posting(Posting.model_validate(row).core(), SketchParams(), now)
        keys = list(dict.fromkeys(prepared.index_keys))
        posted = int(prepared.posted_at.timestamp() * 1_000_000)
        index.stage_add(index.allocate_rid(), posted, keys)
        if n % 256 == 0:
            index.commit()
        welsh = anchor_keys(prepared.anchors.hashes, "cy")
        queries.append([language_key("en"), *keys, *welsh])
    index.commit()
    return index, queries


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


REGEX_LAYOUT = re.compile(r"[.,;:!?()]|[0-9]+|\n+|(?<!\S)-(?=\s)")
"""`classifier.fields.layout` as first written (the shipped model's feature was computed so)."""


def regex_layout(text: str) -> str:
    marks = REGEX_LAYOUT.findall(text)[:LAYOUT_CHARS]
    return "".join("0" if m[0].isdigit() else "|" if m[0] == "\n" else m[0] for m in marks)


REGEX_GLUED = re.compile(rf"(?<![{_UPPER}{_LOWER}0-9])[{_LOWER}]{{3,}}[{_UPPER}][{_LOWER}]")
"""The words `indexer.glue.glued` counted with before `glued_words`: a word starting with
three lowercase letters or more, then a capital and a lowercase letter."""


def regex_glued_words(text: str, at_most: int) -> int:
    """`glued_words` by `REGEX_GLUED`."""
    found = REGEX_GLUED.finditer(text)
    return sum(1 for _ in itertools.islice(found, at_most))


_ASCII_SPLIT = bytes(c if c < 128 and (chr(c).isalnum() or c == 95) else 32 for c in range(256))
_DIGIT = re.compile(r"\d")


def python_ascii_anchor_words(text: str, names: bool) -> set[str]:
    """The Python that `ascii_anchor_words` replaced in `indexer.anchor_words.anchors`: the
    text split by `bytes.translate`, each token tested by string methods."""
    tokens = text.encode("ascii").translate(_ASCII_SPLIT).decode("ascii").split()
    found: set[str] = set()
    for token in tokens:
        if len(token) < 2 or (token.islower() and not names):
            continue
        if names or token != token.lower() or _DIGIT.search(token):
            found.add(token)
    return {token.casefold().replace("_", "") for token in found}


def _corpus_documents() -> list[dict[str, Any]]:
    """Every ad of the shared corpora as the training loaders read them (NHS, EURES, the
    French boards; gold-dev ads kept)."""
    data, keep_all = SHARED / "data", GoldExclusions(frozenset(), frozenset())
    ads = [*load_nhs(data, keep_all), *load_eures(data, keep_all), *load_french(data, keep_all)]
    return [ad.document for ad in ads]


def _descriptions(documents: Sequence[dict[str, Any]]) -> list[str]:
    """Every description of `documents` and both texts of the EURES translations, as
    `extract_fields` hands them to `layout`."""
    texts = [field_text(document, "description") for document in documents]
    for row in load_translations(SHARED / "data", GoldExclusions(frozenset(), frozenset())):
        texts += [row["description_original"], row["description_en_mt"]]
    return [plain(strip_html(t)) for t in texts]


def _anchor_texts(documents: Sequence[dict[str, Any]]) -> list[str]:
    """Title, company and description of each document, joined as
    `indexer.reading.read_text` joins them for `anchors`."""
    return [
        "\n".join(
            (
                field_text(document, "title"),
                field_text(document, "company"),
                plain(strip_html(field_text(document, "description"))),
            )
        )
        for document in documents
    ]


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

    index, queries = _key_index(args.ads)
    everything, cap = (-(2**63) + 1, 2**63 - 1), 50

    def numpy_search(keys: list[int]) -> list[int]:
        counts = numpy_count(index, numpy_spans(index, keys), *everything)
        return [min(n, cap + 1) for n in counts]

    def kernel_search(keys: list[int]) -> list[int]:
        return index.count(index.spans(keys), *everything, cap)

    differ = sum(numpy_search(q) != kernel_search(q) for q in queries)
    old, new = [], []
    for _ in range(2):
        old.append(_timed(lambda: [numpy_search(q) for q in queries], len(queries)))
        new.append(_timed(lambda: [kernel_search(q) for q in queries], len(queries)))
    name = "key index: holders of each key of a search, counted to 50 (NHS keys)"
    rows.append(_row(name, len(queries), differ, old, new))

    documents = _corpus_documents()
    texts = _descriptions(documents)
    differ = sum(regex_layout(t) != layout(t) for t in texts)
    old, new = [], []
    for _ in range(2):
        old.append(_timed(lambda: [regex_layout(t) for t in texts], len(texts)))
        new.append(_timed(lambda: [layout(t) for t in texts], len(texts)))
    rows.append(_row("layout of a description (all corpora)", len(texts), differ, old, new))

    ads = [t for t in _anchor_texts(documents) if t.isascii()]
    differ = sum(
        python_ascii_anchor_words(t, names) != ascii_anchor_words(t, names)
        for t in ads
        for names in (False, True)
    )
    old, new = [], []
    for _ in range(2):
        old.append(_timed(lambda: [python_ascii_anchor_words(t, False) for t in ads], len(ads)))
        new.append(_timed(lambda: [ascii_anchor_words(t, False) for t in ads], len(ads)))
    name = "anchor words of an ad in ASCII (all corpora; compared with and without `names`)"
    rows.append(_row(name, len(ads), differ, old, new))

    differ = sum(regex_glued_words(t, 1) != glued_words(t, _CLASSES, 1) for t in texts)
    differ += sum(regex_glued_words(t, 9) != glued_words(t, _CLASSES, 9) for t in texts)
    old, new = [], []
    for _ in range(2):
        old.append(_timed(lambda: [regex_glued_words(t, 1) for t in texts], len(texts)))
        new.append(_timed(lambda: [glued_words(t, _CLASSES, 1) for t in texts], len(texts)))
    name = "glued words of a description (all corpora; compared up to 1 and up to 9)"
    rows.append(_row(name, len(texts), differ, old, new))

    print("| kernel | inputs | results that differ | old (ms each) | kernel (ms each) | speed-up |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
