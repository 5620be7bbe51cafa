"""From a posting's fields to everything the index compares: units, sketch, keys, content hash.

Pure and deterministic. The pipeline prepares a posting once, before taking the writer lock,
so the CPU-heavy part of a request (cleaning, sectioning, shingling, per-unit minimums) runs
outside it. Inside the lock, `with_boilerplate` only picks units: the index's boilerplate
statistics decide which units the final sketch is made of (see `indexer.units`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from indexer.anchor_keys import PostingAnchors, posting_anchors, stored_keys
from indexer.boilerplate import UnitCounter, Witnesses, unit_hash
from indexer.language import stop_words
from indexer.lookup_keys import bare_title, bare_title_key, lead_changed, lookup_keys
from indexer.minhash import Sketch, SketchParams, band_keys
from indexer.reading import Reading, read_document
from indexer.sections import Unit, split_units
from indexer.store import StoredPosting
from indexer.stub_keys import index_keys as stub_index_keys
from indexer.stub_keys import search_keys as stub_search_keys
from indexer.stub_keys import stub_phrases
from indexer.text import keys_block, normalise_company, normalise_title, tokenize
from indexer.units import UnitProfile, keep_units, profile_units, sketch_units

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class PreparedPosting:
    """A posting ready for candidate search and scoring (not yet assigned to a cluster)."""

    id: str
    posted_at: datetime
    title: str
    company: str | None
    source: str | None
    title_key: str
    company_key: str
    block_key: str
    sketch: Sketch
    shingle_count: int
    band_keys: list[int]
    lookup_keys: list[int]
    """Keys indexed beside the band keys (`indexer.lookup_keys`): lead fingerprints, which find
    snippets and partial copies, the company-title key, which finds company variants, and
    the bare-title key, which finds titles decorated with the place or a code."""
    content_hash: str
    document: dict[str, Any]
    reading: Reading
    """Language and anchor words (`indexer.reading`), read once here: the classifier's fields
    of this posting take them instead of reading the text again."""
    anchors: PostingAnchors
    """Language and anchor hashes (`indexer.anchor_keys`): what finds this posting's
    translations."""
    profile: UnitProfile
    unit_hashes: tuple[int | None, ...]
    boilerplate: tuple[bool, ...]
    bare_title: str
    """The title key without the place words of the location and requisition codes
    (`indexer.lookup_keys.bare_title`): what the bare-title key hashes, and what a hit found
    through it is compared on (`service.pipeline`)."""
    stub_phrases: tuple[str, ...]
    """The title keys of its description's phrases if it is a stub (`indexer.stub_keys`):
    what its stub keys hash, and what a hit found through them is compared on."""
    fixed_search_keys: tuple[int, ...]
    """Its stub search keys (`indexer.stub_keys.search_keys`)."""
    fixed_index_keys: tuple[int, ...]
    """Its stub index keys, then its language and anchor keys (`indexer.anchor_keys`).

    Both are made by `prepare` (in a preparation process when `ingest` has one): unlike the
    band and lookup keys they never depend on the boilerplate statistics, and making them in
    the deciding process cost it 36 µs a posting (py-spy, the 14,842 NHS ads)."""

    @property
    def bare_key(self) -> int | None:
        """The bare-title key (`indexer.lookup_keys.bare_title_key`)."""
        return bare_title_key(self.company_key, self.bare_title)

    @property
    def search_keys(self) -> list[int]:
        """The keys a candidate search looks up: band keys, lookup keys, then stub keys
        (`indexer.stub_keys.search_keys`)."""
        return [*self.band_keys, *self.lookup_keys, *self.fixed_search_keys]

    @property
    def index_keys(self) -> list[int]:
        """Every key the posting is indexed under: band and lookup keys, its stub keys
        (`indexer.stub_keys.index_keys`: a stub searches with keys of other domains than it
        is indexed under), then its language and anchor keys, which only an anchor search in
        another language looks up (`indexer.anchor_keys`). The stores index one list of
        signed 64-bit keys; their hash domains keep them apart."""
        return [*self.band_keys, *self.lookup_keys, *self.fixed_index_keys]

    @property
    def witnesses(self) -> Witnesses:
        """Who this posting counts as in the boilerplate statistics."""
        return Witnesses(self.company_key, self.title_key)


def posting_units(title: str, description: str) -> list[Unit]:
    """The description's units, or one unit of the title's tokens if it has no words."""
    units = split_units(description)
    if any(u.tokens for u in units):
        return units
    tokens = tuple(tokenize(title))
    return [Unit(tokens=tokens, section="intro", heading=False)] if tokens else []


def posting_tokens(title: str, description: str) -> list[str]:
    """The tokens that get shingled: the description's, or the title's if it has none.

    The description is shingled alone: titles are compared through the block key (and later
    by the classifier), because re-posts retitle ("Data Engineer (H/F)").
    """
    return tokenize(description) or tokenize(title)


def content_hash(document: dict[str, Any]) -> str:
    """SHA-256 of the posting as the client sent it (canonical JSON, keys sorted).

    Used for idempotency: the same id with the same hash is `unchanged`. The document must be
    the received form, before defaults such as posted_at = receipt time are filled in, or every
    retry would look like an update.
    """
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def prepare(
    *,
    posting_id: str,
    title: str,
    units: Sequence[Unit],
    company: str | None,
    source: str | None,
    posted_at: datetime,
    document: dict[str, Any],
    received: dict[str, Any],
    params: SketchParams,
) -> PreparedPosting:
    """Take the minimums of a posting's units (see `posting_units`) and compute its keys; the
    sketch keeps
    the job-specific units (no boilerplate statistics yet: `with_boilerplate` adds them).

    `document` is what is stored and shown (defaults filled in); `received` is what the
    client sent, the basis of the content hash.
    """
    profile = profile_units(units, params)
    reading = read_document(document)
    title_key, company_key = normalise_title(title), normalise_company(company)
    unit_hashes = tuple(unit_hash(u.tokens) for u in units)
    boilerplate = (False,) * len(units)
    location = document.get("location")
    place = location if isinstance(location, str) else None
    bare = bare_title(title, place, title_key, stop_words(reading.language or ""))
    sketch, count = sketch_units(profile, keep_units(profile, boilerplate), params)
    phrases = stub_phrases(str(document.get("description") or ""))
    anchors = posting_anchors(reading)
    return PreparedPosting(
        id=posting_id,
        posted_at=posted_at,
        title=title,
        company=company,
        source=source,
        title_key=title_key,
        company_key=company_key,
        block_key=keys_block(company_key, title_key),
        sketch=sketch,
        shingle_count=count,
        band_keys=band_keys(sketch, params),
        lookup_keys=lookup_keys(profile, boilerplate, company_key, title_key, bare),
        content_hash=content_hash(received),
        document=document,
        reading=reading,
        anchors=anchors,
        profile=profile,
        unit_hashes=unit_hashes,
        boilerplate=boilerplate,
        bare_title=bare,
        stub_phrases=phrases,
        fixed_search_keys=tuple(stub_search_keys(bare, phrases, title_key)),
        fixed_index_keys=(
            *stub_index_keys(bare, phrases, title_key),
            *stored_keys(anchors),
        ),
    )


def with_boilerplate(
    prepared: PreparedPosting, boilerplate: Sequence[bool], params: SketchParams
) -> PreparedPosting:
    """The posting re-sketched without the units judged boilerplate (no re-hashing: a
    minimum over the kept units' rows), its lead fingerprints taken again without them.
    Unchanged if nothing is boilerplate."""
    mask = tuple(bool(b) for b in boilerplate)
    if mask == prepared.boilerplate:
        return prepared
    sketch, count = sketch_units(prepared.profile, keep_units(prepared.profile, mask), params)
    return replace(
        prepared,
        sketch=sketch,
        shingle_count=count,
        band_keys=band_keys(sketch, params),
        lookup_keys=(
            lookup_keys(
                prepared.profile,
                mask,
                prepared.company_key,
                prepared.title_key,
                prepared.bare_title,
            )
            if lead_changed(prepared.profile.sections, prepared.boilerplate, mask)
            else prepared.lookup_keys
        ),
        boilerplate=mask,
    )


def prepare_corpus(
    documents: Sequence[dict[str, Any]], params: SketchParams, default_time: datetime | None = None
) -> list[PreparedPosting]:
    """Prepare postings outside an index, with boilerplate statistics learned from these
    postings themselves (all of them, so every posting is judged by the same statistics):
    how `evaluate` and training see what the index would see once it holds such a corpus."""
    prepared = [prepare_document(d, params, default_time) for d in documents]
    counter = UnitCounter()
    for posting in prepared:
        counter.observe(posting.witnesses, posting.unit_hashes)
    result: list[PreparedPosting] = []
    for posting in prepared:
        witnesses = posting.witnesses
        counts = counter.unit_counts(witnesses.scopes(), posting.unit_hashes)
        result.append(
            with_boilerplate(posting, witnesses.mask(posting.unit_hashes, counts), params)
        )
    return result


def prepare_document(
    document: dict[str, Any], params: SketchParams, default_time: datetime | None = None
) -> PreparedPosting:
    """Prepare a posting given as a plain dict in the API's posting schema (already valid).

    For offline work (evaluation, training) where postings are compared pairwise rather than
    through the index. `posted_at` may be an ISO date or datetime string; a missing one takes
    `default_time` (or the Unix epoch, so that results do not depend on the clock).
    """
    posted_at = parse_time(document.get("posted_at")) or default_time or _EPOCH
    return prepare(
        posting_id=str(document["id"]),
        title=str(document.get("title", "")),
        units=posting_units(str(document.get("title", "")), str(document.get("description", ""))),
        company=document.get("company"),
        source=document.get("source"),
        posted_at=posted_at,
        document={**document, "posted_at": posted_at.isoformat()},
        received=document,
        params=params,
    )


def parse_time(value: object) -> datetime | None:
    """An ISO date or datetime (a string; "Z" accepted, naive read as UTC) or a datetime as
    an aware datetime; None for anything else or an empty string. ValueError if the string
    is not ISO."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str) and value:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    else:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def to_stored(
    prepared: PreparedPosting, cluster_id: str, decision: dict[str, Any] | None = None
) -> StoredPosting:
    """The record to index for a prepared posting once its cluster is decided."""
    return StoredPosting(
        id=prepared.id,
        content_hash=prepared.content_hash,
        posted_at=prepared.posted_at,
        title=prepared.title,
        company=prepared.company,
        source=prepared.source,
        company_key=prepared.company_key,
        block_key=prepared.block_key,
        sketch=prepared.sketch,
        shingle_count=prepared.shingle_count,
        cluster_id=cluster_id,
        document=prepared.document,
        decision=decision or {},
        language=prepared.reading.language or "",
    )
