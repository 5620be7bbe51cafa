"""`find_translations` on the search engine: rare anchor keys counted and matched by the engine,
weighed and ranked here exactly as the embedded store does (`indexer.anchor_keys`).

The engine holds every index key of a posting in its `band_keys` keyword field (language and
anchor keys included, `indexer.anchor_keys.stored_keys`). That field has no doc values, so
document frequencies are counted by `filters` aggregations, one named `term` filter per key,
which the inverted index answers. A search is at most three round trips (step 3 pages on
past `HOLDERS_PAGE` holders, which keys of at most `MAX_ANCHOR_DF` postings rarely reach):

1. *Languages* (only when the store's memory of languages is older than `LANGUAGES_TTL_S`):
   the languages the whole index holds (to remember), and the window's postings per other
   language (to go on with).
2. *Key counts*: the window's postings holding each anchor key of the query in the other
   languages present (and, when step 1 did not run, each of those languages' language keys,
   so the totals are the window's, never the memory's).
3. *Holders*: the window's postings holding any key that weighs (held by 1 to
   `MAX_ANCHOR_DF` postings), with their keys; scored and ranked here. Summing the weights on
   the engine (`constant_score` boosts) would sum in float32, and near ties would rank
   otherwise than on the embedded store.

Most deployments hold one language. `LanguagesSeen` remembers which languages this store
has seen postings in (asked of the engine at first use and again once the memory is older
than `LANGUAGES_TTL_S`, plus those of the postings this store writes); when it names no
language but the query's own, nothing is asked at all. It never changes an answer
otherwise: the totals come from step 1 or 2, over the window, every time. The one answer it
may change: postings in a language this store has not seen yet, written by *another*
instance since its memory was last asked, are found once it is asked again (at most
`LANGUAGES_TTL_S` later).

Inside a batch, pending postings are counted and scored from the workspace (its inverted
index of pending keys) and the engine's copies of the postings the batch rewrites or
deletes are left out of every request, as `find_candidates` does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from indexer.anchor_keys import (
    SEARCHED_LANGUAGES,
    TranslationQuery,
    key_weights,
    language_key,
    languages_by_key,
    other_languages,
    ranked,
    searched_keys,
)
from indexer.store import StoredPosting
from indexer.stores.elastic.bodies import MAX_TERMS, from_micros, to_micros
from indexer.stores.elastic.client import EngineClient
from indexer.stores.elastic.docs import Source, posting_from_source
from indexer.stores.elastic.plan import Workspace

LANGUAGES_TTL_S = 60.0
"""Age after which the memory of languages seen is asked of the engine again."""
FILTERS_PER_SEARCH = 2_000
"""Named filters (buckets) per aggregation body, well under search.max_buckets (65,535 on
OpenSearch 2.x, 65,536 on Elasticsearch 8); more keys go in more bodies of one `_msearch`."""
HOLDERS_PAGE = 2_000
"""Holders fetched per page (a page costs their light documents: sketch and keys)."""
HOLDER_FIELDS = [
    "posting_id",
    "content_hash",
    "posted_at",
    "title",
    "company",
    "source",
    "company_key",
    "block_key",
    "sketch",
    "shingle_count",
    "cluster_id",
    "band_keys",
]
"""What scoring (`band_keys`) and `posting_from_source` read of a holder."""

WindowTarget = Callable[[int | None, int | None], str | None]
"""The indices a search of a posted_at window (µs) targets (None: the whole alias)."""


class LanguagesSeen:
    """The languages this store has seen postings in, and when the engine was last asked.
    A language once seen stays (forgetting it could only skip a search that finds it)."""

    def __init__(
        self, ttl_s: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._lock = threading.Lock()
        self._seen: frozenset[str] = frozenset()
        self._asked: float | None = None
        self._ttl_s = ttl_s  # None: `LANGUAGES_TTL_S` as it is when asked (tests lower it)
        self._clock = clock

    def now(self) -> float:
        return self._clock()

    def fresh(self) -> frozenset[str] | None:
        """The languages seen, or None when the engine should be asked first."""
        with self._lock:
            ttl = LANGUAGES_TTL_S if self._ttl_s is None else self._ttl_s
            if self._asked is None or self._clock() - self._asked >= ttl:
                return None
            return self._seen

    def learn(self, languages: Iterable[str], asked: float | None = None) -> None:
        """Add languages; `asked`: the engine's answer was asked for at that time."""
        with self._lock:
            self._seen = self._seen | frozenset(languages)
            if asked is not None and (self._asked is None or asked > self._asked):
                self._asked = asked

    def written(self, keys: Iterable[int]) -> None:
        """Add the language of a posting this store writes, from its index keys."""
        found = [lang for key in keys if (lang := languages_by_key().get(key)) is not None]
        if found and not set(found) <= self._seen:
            self.learn(found)


def window_query(
    since_us: int | None, until_us: int | None, skipped: Sequence[str]
) -> dict[str, Any]:
    """Postings posted within [since, until] (µs, inclusive), but for the `skipped` ids."""
    if len(skipped) > MAX_TERMS:
        raise ValueError(f"{len(skipped)} skipped ids in one query; at most {MAX_TERMS}")
    bounds: dict[str, int] = {}
    if since_us is not None:
        bounds["gte"] = since_us
    if until_us is not None:
        bounds["lte"] = until_us
    query: dict[str, Any] = {"filter": [{"range": {"posted_at": bounds}}] if bounds else []}
    if skipped:
        query["must_not"] = [{"terms": {"posting_id": list(skipped)}}]
    return {"bool": query}


def _key_filters(keys: Sequence[int]) -> dict[str, Any]:
    """A `filters` aggregation counting the documents holding each key (`k<i>`: `keys[i]`)."""
    named = {f"k{i}": {"term": {"band_keys": key}} for i, key in enumerate(keys)}
    return {"filters": {"filters": named}}


def languages_body(
    others: Sequence[str], since_us: int | None, until_us: int | None, skipped: Sequence[str]
) -> dict[str, Any]:
    """Step 1: every searched language's postings in the whole index (`seen`: which to
    remember) and the `others`' postings in the window (`window`)."""
    every = [language_key(language) for language in SEARCHED_LANGUAGES]
    return {
        "size": 0,
        "track_total_hits": False,
        "query": {"match_all": {}},
        "aggs": {
            "seen": _key_filters(every),
            "window": {
                "filter": window_query(since_us, until_us, skipped),
                "aggs": {"keys": _key_filters([language_key(lang) for lang in others])},
            },
        },
    }


def key_counts_body(
    keys: Sequence[int], since_us: int | None, until_us: int | None, skipped: Sequence[str]
) -> dict[str, Any]:
    """Step 2: the window's postings holding each key (bucket `k<i>` for `keys[i]`)."""
    return {
        "size": 0,
        "track_total_hits": False,
        "query": window_query(since_us, until_us, skipped),
        "aggs": {"keys": _key_filters(keys)},
    }


def holders_body(
    keys: Sequence[int],
    since_us: int | None,
    until_us: int | None,
    skipped: Sequence[str],
    size: int,
    after: str | None,
) -> dict[str, Any]:
    """Step 3: one page of the window's postings holding any of `keys`, by posting id."""
    if len(keys) > MAX_TERMS:
        raise ValueError(f"{len(keys)} keys in one query; at most {MAX_TERMS}")
    query = window_query(since_us, until_us, skipped)
    query["bool"]["filter"].append({"terms": {"band_keys": list(keys)}})
    body: dict[str, Any] = {
        "query": query,
        "sort": [{"posting_id": "asc"}],
        "size": size,
        "track_total_hits": False,
        "_source": {"includes": HOLDER_FIELDS},
    }
    if after is not None:
        body["search_after"] = [after]
    return body


def _bucket_counts(keys: Sequence[int], agg: dict[str, Any]) -> dict[int, int]:
    buckets = agg["buckets"]
    return {key: int(buckets[f"k{i}"]["doc_count"]) for i, key in enumerate(keys)}


class TranslationSearch:
    """The engine's side of `find_translations` for one store (see the module docstring)."""

    def __init__(self, client: EngineClient, alias: str, languages: LanguagesSeen) -> None:
        self._client, self._alias, self.languages = client, alias, languages

    def find(
        self, query: TranslationQuery, workspace: Workspace, target: WindowTarget
    ) -> list[StoredPosting]:
        """Postings in other languages sharing rare anchor keys with the query, best first,
        the workspace's pending writes included (`IndexStore.find_translations`)."""
        others = other_languages(query)
        if not others:
            return []
        since = None if query.since is None else to_micros(query.since)
        until = None if query.until is None else to_micros(query.until)
        pending = _Pending(workspace, since, until)
        window = target(since, until)
        seen = self.languages.fresh()
        totals: dict[str, int] | None = None
        if seen is None:
            totals = self._ask_languages(others, since, until, pending)
            candidates = [lang for lang in others if totals.get(lang)]
        else:
            candidates = [lang for lang in others if lang in seen]
        if not candidates:
            return []
        keys = searched_keys(query, candidates)
        wanted = keys if totals is not None else keys + [language_key(x) for x in candidates]
        counted = self._count(wanted, since, until, pending.skipped, window)
        if totals is None:
            totals = {
                lang: n
                for lang in candidates
                if (n := counted[language_key(lang)] + pending.count(language_key(lang)))
            }
        keys = searched_keys(query, [x for x in candidates if totals.get(x)])
        weights = key_weights(
            query, {key: counted[key] + pending.count(key) for key in keys}, totals
        )
        if not weights:
            return []
        holders = pending.holders(weights)
        bound = sum(counted[key] for key in weights)  # distinct engine holders: at most this
        if bound:
            skipped = pending.skipped
            if query.exclude_id is not None:
                skipped = [*skipped, query.exclude_id]
            for source in self._holders(list(weights), since, until, skipped, bound, window):
                moved = workspace.pending.repoints.get(source["posting_id"])
                holders.setdefault(
                    source["posting_id"], {**source, "cluster_id": moved or source["cluster_id"]}
                )
        scores = {
            pid: (_score(weights, source["band_keys"]), from_micros(source["posted_at"]))
            for pid, source in holders.items()
            if pid != query.exclude_id
        }
        return [
            posting_from_source(_light(holders[pid]))
            for pid in ranked(scores, query.limit, query.near)
        ]

    def _ask_languages(
        self, others: Sequence[str], since: int | None, until: int | None, pending: _Pending
    ) -> dict[str, int]:
        """Step 1: remember the languages the index holds; the window's postings per other
        language (pending ones included), languages without any left out."""
        asked = self.languages.now()
        body = languages_body(others, since, until, pending.skipped)
        (answer,) = self._client.msearch_responses(self._alias, [body])
        aggs = answer["aggregations"]
        every = [language_key(language) for language in SEARCHED_LANGUAGES]
        held = _bucket_counts(every, aggs["seen"])
        self.languages.learn((languages_by_key()[k] for k, n in held.items() if n), asked)
        window = _bucket_counts([language_key(lang) for lang in others], aggs["window"]["keys"])
        return {
            lang: n
            for lang in others
            if (n := window[language_key(lang)] + pending.count(language_key(lang)))
        }

    def _count(
        self,
        keys: Sequence[int],
        since: int | None,
        until: int | None,
        skipped: Sequence[str],
        window: str | None,
    ) -> dict[int, int]:
        """Step 2: the engine's postings in the window holding each key, one `_msearch`."""
        unique = list(dict.fromkeys(keys))
        chunks = [
            unique[i : i + FILTERS_PER_SEARCH] for i in range(0, len(unique), FILTERS_PER_SEARCH)
        ]
        bodies = [key_counts_body(chunk, since, until, skipped) for chunk in chunks]
        answers = self._client.msearch_responses(self._alias, bodies, [window] * len(bodies))
        counted: dict[int, int] = {}
        for chunk, answer in zip(chunks, answers, strict=True):
            counted.update(_bucket_counts(chunk, answer["aggregations"]["keys"]))
        return counted

    def _holders(
        self,
        keys: Sequence[int],
        since: int | None,
        until: int | None,
        skipped: Sequence[str],
        bound: int,
        window: str | None,
    ) -> list[Source]:
        """Step 3: the engine's postings in the window holding any of `keys`: at most
        `bound` of them when step 2 counted, so one page of one more tells it is all (more
        only if other instances wrote since: pages go on)."""
        found: list[Source] = []
        size = min(bound + 1, HOLDERS_PAGE)
        after: str | None = None
        while True:
            body = holders_body(keys, since, until, skipped, size, after)
            (hits,) = self._client.msearch(self._alias, [body], [window])
            found += [hit["_source"] for hit in hits]
            if len(hits) < size:
                return found
            after = hits[-1]["_source"]["posting_id"]


class _Pending:
    """The workspace's pending postings as the three steps see them: their ids skipped on
    the engine, and what they hold in the window counted here."""

    def __init__(self, workspace: Workspace, since: int | None, until: int | None) -> None:
        self._workspace, self._since, self._until = workspace, since, until
        self.skipped = list(workspace.pending.postings)

    def _sources(self, key: int) -> Iterable[tuple[str, Source]]:
        postings = self._workspace.pending.postings
        for pid in self._workspace.pending_hits([key], None):
            source = postings.get(pid)
            if source is None:
                continue
            when = source["posted_at"]
            if (self._since is None or when >= self._since) and (
                self._until is None or when <= self._until
            ):
                yield pid, source

    def count(self, key: int) -> int:
        """Pending postings in the window holding `key`."""
        if not self.skipped:
            return 0
        return sum(1 for _ in self._sources(key))

    def holders(self, keys: Iterable[int]) -> dict[str, Source]:
        """Pending postings in the window holding any of `keys`, by id."""
        found: dict[str, Source] = {}
        if self.skipped:
            for key in keys:
                found.update(self._sources(key))
        return found


def _score(weights: dict[int, float], held: Iterable[int]) -> float:
    """The summed weights of the keys a posting holds, in the order of `weights` (the
    searched keys' order, as the embedded store sums them)."""
    have = {int(key) for key in held}
    total = 0.0
    for key, weight in weights.items():
        if key in have:
            total += weight
    return total


def _light(source: Source) -> Source:
    """A holder as `find_candidates` returns postings: no document, decision or keys."""
    return {k: v for k, v in source.items() if k not in ("document", "decision", "band_keys")}
