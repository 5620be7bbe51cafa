"""Deduplicator: clean → sketch → candidates → score → assign cluster → persist.

The one place where a posting's verdict is decided; the HTTP API and the CLI both call it. The
CPU-heavy preparation runs outside the store's writer lock; candidate search, scoring and the
write run inside it, so a near-duplicate sent concurrently with its original always sees it.
Postings sent one per request are decided in groups of those in flight together, one commit
per group (`service.group_commit`); bulk ingest groups its stream the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from itertools import islice
from random import random
from time import perf_counter, sleep
from typing import TypeVar

from classifier.kinds import duplicate_type
from classifier.scoring import Candidate, PairScorer, Remember, candidate_for
from indexer import stub_keys
from indexer.anchor_keys import TranslationQuery
from indexer.boilerplate import with_added
from indexer.language import stop_words
from indexer.lookup_keys import (
    bare_title,
    block_company_title_key,
    company_title_key,
    company_word,
)
from indexer.minhash import band_keys
from indexer.posting import JobPosting
from indexer.prepare import PreparedPosting, to_stored, with_boilerplate
from indexer.store import (
    Assignment,
    CandidateQuery,
    ClusterFilter,
    ClusterInfo,
    ClusterPage,
    DuplicateStats,
    Feedback,
    IndexStore,
    Merge,
    StatsQuery,
    StoreContended,
    StoredPosting,
    StoreUnavailable,
    WriteSet,
)
from service.bridging import (
    label_pairs,
    placed_within,
    scored_under,
    told_apart_elsewhere,
    unbridged,
)
from service.cluster_policy import (
    ClusterPlan,
    First,
    Scored,
    choose,
    fresh_cluster_id,
    is_snippet,
    plan,
)
from service.decisions import Decision, PairVerdict, PipelineConfig, ScoredCandidate
from service.group_commit import GroupCommitter
from service.preparation import prepare_ahead, prepare_posting
from service.review import PairExplanation, ReviewQueue, explain_pair, review_queue

logger = logging.getLogger(__name__)

CONTAINMENT_MIN_OVERLAP = 0.4
"""Estimated overlap coefficient a hit found only through a lookup key must reach (a hit
sharing a band key or the block key needs `verify_min_overlap`, or nothing). Lookup keys
are for containment: a snippet's true overlap with its full ad is near 1. On 1,500 NHS ads
(median 298 sketched shingles) against their first 250, 350 and 500 characters, 98.1% of the
snippets shared a lead fingerprint with the ad and the estimate fell under 0.4 for 1.2-1.4%
of them (under 0.2, the general level, for 0.7-1.1%). Of the hits the
lookup keys alone brought on the first 4,000 NHS ads (0.31 per ad), 57% were ads of similar
size sharing a sentence or two (overlap 0.2-0.4), not containment. Which key found a hit is
not reported by the store: a hit below this level is kept if it shares a band key,
recomputed from its stored sketch (only for those few hits)."""

MAX_PARTIAL_CANDIDATES = 10
"""Verified candidates kept per posting whose shingle sets differ in size by more than
`PARTIAL_RATIO` (one side a snippet of the other), block-key hits aside: a snippet that holds
only an employer's intro contains the intro of every ad of that employer that kept it, and
must not bring dozens of them to scoring."""


_Item = tuple[PreparedPosting, dict[str, float]]
"""A prepared posting with its stage timings so far."""

READ_AHEAD = 64
"""Postings of a group whose store reads are announced together (`_read_ahead`) when the
store's reads are round trips: one multi-get, one multi-search and one more multi-get per 64
postings instead of about four requests per posting. Bounded, because the window's postings
are prepared before the first of them is decided (a /dedup/batch of 1,000 large postings
prepared at once peaked at 1.64 GB of RSS)."""


def _now() -> datetime:
    return datetime.now(UTC)


class Deduplicator:
    """Decides, for each posting, whether it is new or a duplicate, and keeps clusters."""

    def __init__(
        self,
        store: IndexStore,
        scorer: PairScorer,
        config: PipelineConfig | None = None,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        self.store = store
        self.scorer = scorer
        self.config = config or PipelineConfig()
        self._clock = clock
        self._committer: GroupCommitter[tuple[PreparedPosting, dict[str, float]], Decision] = (
            GroupCommitter(self._decide_group, lambda exc: isinstance(exc, StoreUnavailable))
        )

    @property
    def merge_threshold(self) -> float:
        """Score at which a posting that links two clusters merges them."""
        merge = self.config.merge_threshold
        return self.scorer.threshold if merge is None else max(merge, self.scorer.threshold)

    # -- the verbs ---------------------------------------------------------------------------

    def prepare(self, posting: JobPosting, timings: dict[str, float]) -> PreparedPosting:
        """Clean and sketch a posting (no store access); records stage timings."""
        prepared, spent = prepare_posting(posting, self.store.params, self._clock())
        timings.update(spent)
        return prepared

    def dedup(
        self, posting: JobPosting, *, dry_run: bool = False, explain: bool = False
    ) -> Decision:
        """Decide and (unless `dry_run`) persist one posting; committed when this returns.

        With `explain`, the decision carries the top feature contributions for its best
        candidate (computed after the write, outside the lock; not stored)."""
        timings: dict[str, float] = {}
        prepared = self.prepare(posting, timings)
        if dry_run:
            decision = self._decide_giving_way(prepared, timings, dry_run).decision
        else:  # decided and committed with the requests in flight beside it
            decision = self._committer.submit((prepared, timings))
        if explain and decision.candidates:
            best = max(decision.candidates, key=lambda c: c.score)
            other = self.store.get_posting(best.id)
            if other is not None:
                match = Candidate(other, best.jaccard, best.overlap)
                decision.explanation = self.scorer.explain(
                    prepared, match, remember="candidates" if dry_run else "all"
                )
        return decision

    def score_pair(self, a: JobPosting, b: JobPosting) -> PairVerdict:
        """Score two postings against each other (a as the new posting, b as the indexed
        one), with the service's preparation, scorer and type rules; nothing is read or
        written in the index."""
        now = self._clock()
        query, _ = prepare_posting(a, self.store.params, now)
        other, _ = prepare_posting(b, self.store.params, now)
        candidate = candidate_for(query, to_stored(other, other.id))
        # Neither side is indexed: nothing extracted here may take a place in the memo.
        probability = self.scorer.score(query, [candidate], remember="none")[0]
        duplicate = probability >= self.scorer.threshold
        return PairVerdict(
            probability=probability,
            duplicate=duplicate,
            duplicate_type=duplicate_type(query, candidate) if duplicate else None,
            jaccard=candidate.jaccard,
            overlap=candidate.overlap,
            contributions=self.scorer.explain(query, candidate, remember="none"),
        )

    def feedback(self, a_id: str, b_id: str, label: str) -> list[str]:
        """Store an analyst's label for two indexed postings; returns the ids not indexed
        (nothing is stored unless both are)."""
        sides = {pid: self.store.get_posting(pid) for pid in (a_id, b_id)}
        missing = [pid for pid, found in sides.items() if found is None]
        a, b = sides[a_id], sides[b_id]
        if missing or a is None or b is None:
            return missing
        self.store.add_feedback(Feedback(a_id, b_id, label, self._clock(), a.document, b.document))
        return []

    def dedup_stream(
        self,
        postings: Iterable[JobPosting],
        *,
        dry_run: bool = False,
        group: int = 256,
        executor: Executor | None = None,
    ) -> Iterator[Decision]:
        """Decisions for a stream of postings, in order, exactly as if sent one by one.

        For bulk ingest: each group of postings is decided in one store batch (one commit)
        and its decisions are yielded only after that commit, so nothing is acknowledged
        before it is durable. With an `executor` (a process pool), cleaning and sketching of
        the next postings run on other cores while this thread decides.
        """
        params, now = self.store.params, self._clock()
        if executor is None:
            prepared_iter: Iterable[tuple[PreparedPosting, dict[str, float]]] = (
                prepare_posting(p, params, now) for p in postings
            )
        else:
            prepared_iter = prepare_ahead(executor, postings, params, now)
        # Each posting is prepared when its turn comes, inside its group's transaction, so a
        # group holds one prepared posting at a time (plus the executor's window), not all of
        # them: a 61 MB batch of 1,000 postings prepared up front peaked at 1.64 GB of RSS.
        pending = iter(prepared_iter)
        while (first := next(pending, None)) is not None:
            rest = islice(pending, group - 1)
            size = self._window()
            asked, started = perf_counter(), datetime.now(UTC)
            with self.store.batch():
                waited = perf_counter() - asked
                written = self._decide_windows(_windows(first, rest, size), dry_run)
            yield from _waited(self._recheck(written, started), waited)

    def _decide_group(
        self, items: Sequence[tuple[PreparedPosting, dict[str, float]]]
    ) -> list[Decision]:
        """Decide and write prepared postings in order, as one store batch (one commit)."""
        size = self._window()
        asked, started = perf_counter(), datetime.now(UTC)
        with self.store.batch():
            waited = perf_counter() - asked
            windows = (list(items[start : start + size]) for start in range(0, len(items), size))
            written = self._decide_windows(windows, False)
        return _waited(self._recheck(written, started), waited)

    def _window(self) -> int:
        """Postings whose reads are announced to the store at once: `READ_AHEAD` for a store
        whose reads are round trips, else 1 (a posting is then prepared when its turn comes,
        so a group holds one prepared posting at a time)."""
        return READ_AHEAD if self.store.reads_ahead else 1

    def _decide_windows(
        self, windows: Iterator[list[tuple[PreparedPosting, dict[str, float]]]], dry_run: bool
    ) -> list[_Written]:
        """Decide and write the windows' postings in order inside the open batch. With a
        store that reads ahead, each window's reads are announced before the window before it
        is decided, so its candidate searches run on the engine while this thread decides
        (`IndexStore.search_ahead`); the statistics of the undecided window are folded into
        the prediction of the next one's keys (`_read_ahead`)."""
        decisions: list[_Written] = []
        window = next(windows, [])
        undecided: dict[tuple[int, int], set[int]] = {}
        ahead = self.store.reads_ahead
        if ahead and window:
            undecided = self._read_ahead([p for p, _ in window], dry_run, {})
        while window:
            upcoming = next(windows, [])
            if ahead and upcoming:
                following = self._read_ahead([p for p, _ in upcoming], dry_run, undecided)
            decisions += [self._decide_giving_way(p, t, dry_run) for p, t in window]
            window = upcoming
            if ahead and upcoming:
                undecided = following
        return decisions

    def _read_ahead(
        self,
        window: Sequence[PreparedPosting],
        dry_run: bool,
        undecided: Mapping[tuple[int, int], set[int]],
    ) -> dict[tuple[int, int], set[int]]:
        """Tell the store what deciding `window` will read: the postings' own records, their
        boilerplate statistics, then the candidate searches with the keys each posting will
        search with. Those depend on the statistics that the postings decided before them add
        (`undecided`: the witnesses of the window still to be decided before this one) and on
        those of the window's earlier postings, folded in as the writes will fold them
        (`indexer.boilerplate.with_added`); a search that still differs is made live
        (`IndexStore.search_ahead`). Returns the witnesses this window will add."""
        units = [
            (scope, unit)
            for prepared in window
            for scope, _ in prepared.witnesses.scopes()
            for unit in prepared.unit_hashes
            if unit is not None
        ]
        self.store.read_ahead([prepared.id for prepared in window], units)
        added = {key: set(witnesses) for key, witnesses in undecided.items()}
        own: dict[tuple[int, int], set[int]] = {}
        queries: list[CandidateQuery] = []
        for prepared in window:
            existing = self.store.get_posting(prepared.id)
            if existing is not None and existing.content_hash == prepared.content_hash:
                continue  # unchanged: decided without a search, writes nothing
            learned, observations = self._learn_boilerplate(prepared, added)
            queries.append(self._candidate_query(learned))
            if not dry_run:
                for scope, unit, witness in observations:
                    added.setdefault((scope, unit), set()).add(witness)
                    own.setdefault((scope, unit), set()).add(witness)
        self.store.search_ahead(queries)
        return own

    def _decide_giving_way(
        self, prepared: PreparedPosting, timings: dict[str, float], dry_run: bool
    ) -> _Written:
        """`_decide_and_write`, made again whenever the store gave way to an older write of
        another instance (`_giving_way`); the attempts lost count as `writer_wait`."""
        return self._giving_way(lambda: self._decide_and_write(prepared, timings, dry_run), timings)

    def _giving_way(self, step: Callable[[], _T], timings: dict[str, float] | None = None) -> _T:
        """Run `step`, again after each StoreContended (its store gave way to an older
        write of another instance; nothing of the step was written): the store first sends
        the batch's earlier work and lets go of its claims (`IndexStore.yield_writes`), then
        a jittered pause that doubles. Fails (a 503) after `GIVE_WAY_ATTEMPTS`."""
        for attempt in range(GIVE_WAY_ATTEMPTS):
            started = perf_counter()
            try:
                return step()
            except StoreContended:
                if attempt + 1 == GIVE_WAY_ATTEMPTS:
                    raise
                self.store.yield_writes()
                sleep(GIVE_WAY_PAUSE_S * (1 + random()) * 2 ** min(attempt, 6))
                if timings is not None:
                    lost = perf_counter() - started
                    timings["writer_wait"] = timings.get("writer_wait", 0.0) + lost
        raise AssertionError("unreachable")

    def _decide_and_write(
        self, prepared: PreparedPosting, timings: dict[str, float], dry_run: bool
    ) -> _Written:
        asked = perf_counter()
        # Re-entrant inside a batch (the group's wait is `_waited`); the posting is claimed
        # before it is read, so what it is decided against is what gets replaced.
        with self.store.writer([prepared.id]):
            timings["writer_wait"] = timings.get("writer_wait", 0.0) + perf_counter() - asked
            existing = self.store.get_posting(prepared.id)
            if existing is not None and existing.content_hash == prepared.content_hash:
                return _Written(self._unchanged(existing, timings), None, frozenset())
            started = perf_counter()
            prepared, observations = self._learn_boilerplate(prepared)
            found = self.store.find_candidates(self._candidate_query(prepared))
            translations = self._translations(prepared)
            candidates = self._verified(prepared, found, translations)
            scored = perf_counter()
            timings["candidates"] = scored - started
            remember: Remember = "candidates" if dry_run else "all"
            scores = (
                self.scorer.score(prepared, candidates, remember=remember) if candidates else []
            )
            timings["score"] = perf_counter() - scored
            across = frozenset(t.id for t in translations) - {p.id for p in found}
            decision, merges = self._decide(prepared, existing, candidates, scores, across)
            decision.timings = timings
            if dry_run:
                return _Written(decision, None, frozenset())
            started = perf_counter()
            record = to_stored(prepared, decision.cluster_id, decision.to_dict())
            self.store.apply(
                WriteSet(
                    upserts=[(record, prepared.index_keys)],
                    merges=merges,
                    unit_observations=observations,
                )
            )
            timings["persist"] = perf_counter() - started
        return _Written(decision, prepared, frozenset(p.id for p in found))

    # -- re-check for near-duplicates written at the same time elsewhere ----------------------

    def _recheck(self, written: list[_Written], since: datetime) -> list[Decision]:
        """After a group's write is searchable, search again for each of its postings and
        join it with verified near-duplicates that the first search did not return and
        that this group did not write: those written meanwhile by another instance (a
        store with `concurrent_writers` only). Of two near-duplicates written at once, each
        searches again only after its own write is searchable, so the one searching later
        finds the other (docs/concurrency.md). One multi-search of ids for the group; a
        posting found new is read and scored, and a merge is a write cycle like any other.

        The search is the first one again (same keys, window, limit): postings of earlier
        groups ranked below the first page then are still below it, postings of this group
        were decided with this one in view, so on a single instance nothing is ever new and
        the decisions are exactly those of the one-by-one order."""
        decisions = [item.decision for item in written]
        todo = [item for item in written if item.prepared is not None]
        if not todo or not self.store.concurrent_writers:
            return decisions
        started = perf_counter()
        queries = [self._candidate_query(item.prepared) for item in todo if item.prepared]
        found = self.store.recheck_ids(queries, since - RECHECK_MARGIN)
        news: list[tuple[_Written, list[str]]] = []
        for item, hits in zip(todo, found, strict=True):
            here = item.decision.cluster_id
            new = [pid for pid, cluster_id in hits if pid not in item.seen and cluster_id != here]
            if new:
                news.append((item, new))
        if news:
            with self.store.batch():
                for item, new in news:
                    self._giving_way(partial(self._recheck_one, item, new))
        spent = perf_counter() - started
        for decision in decisions:
            decision.timings["recheck"] = spent / len(decisions)
        return decisions

    def _recheck_one(self, item: _Written, new_ids: list[str]) -> None:
        """Join the posting with those of `new_ids` (written meanwhile elsewhere) that are
        verified near-duplicates scored over the threshold, by the rules of `_decide`."""
        prepared = item.prepared
        assert prepared is not None
        own = self.store.get_posting(prepared.id)
        here = None if own is None else self.store.resolve_cluster(own.cluster_id)
        if here is None:
            return
        others = [p for pid in new_ids if (p := self.store.get_posting(pid)) is not None]
        new = [
            c
            for c in self._verified(prepared, others)
            if self.store.resolve_cluster(c.posting.cluster_id) != here
        ]
        if not new:
            return
        scores = self.scorer.score(prepared, new, remember="all")
        choice = choose(
            prepared.shingle_count,
            [_scored(c, s) for c, s in zip(new, scores, strict=True)],
            self.scorer.threshold,
            self.merge_threshold,
        )
        if choice.match is None:
            return
        info = self.store.get_cluster(here)
        alone = info is None or [m.id for m in info.members] == [prepared.id]
        snippet = is_snippet(prepared.shingle_count, choice.match.shingle_count)
        if not alone and (snippet or choice.match.score < self.merge_threshold):
            return  # it joined a cluster already: linking another one is a merge (bridging rule)
        by_id = {c.posting.id: c for c in new}
        match = by_id[choice.match.id]
        linked = {here, match.posting.cluster_id}
        linkers = [by_id[s.id] for s in choice.linkers]
        linked |= self._unbridged_clusters(prepared, match, linkers, new)
        linked = {self.store.resolve_cluster(c) or c for c in linked}
        clusters = plan(linked, self._cluster_firsts(linked, prepared.id))
        if clusters.absorbed:
            self.store.apply(WriteSet(merges=_merges(clusters, prepared.id)))
        decision = item.decision
        decision.cluster_id = clusters.survivor
        if decision.status == "new":
            decision.status = "duplicate"
            decision.duplicate_of = clusters.duplicate_of
            decision.duplicate_type = duplicate_type(prepared, match)
            decision.score = round(choice.match.score, 6)
        logger.info(
            "re-check joined %s with %s written meanwhile (cluster %s)",
            prepared.id,
            match.posting.id,
            clusters.survivor,
        )

    def _learn_boilerplate(
        self, prepared: PreparedPosting, added: Mapping[tuple[int, int], set[int]] | None = None
    ) -> tuple[PreparedPosting, list[tuple[int, int, int]]]:
        """Re-sketch without the units the index's statistics call boilerplate, and the
        statistics rows this posting adds (written with its decision). `added`: witnesses
        not written yet that the statistics will hold by then (`_read_ahead`)."""
        if not self.config.boilerplate:
            return prepared, []
        witnesses = prepared.witnesses
        counts = self.store.unit_counts(witnesses.scopes(), prepared.unit_hashes)
        if added:
            counts = with_added(counts, added, witnesses.scopes(), prepared.unit_hashes)
        mask = witnesses.mask(prepared.unit_hashes, counts)
        return (
            with_boilerplate(prepared, mask, self.store.params),
            witnesses.observations(prepared.unit_hashes, counts),
        )

    def candidates(self, prepared: PreparedPosting) -> list[Candidate]:
        """Verified candidates: hits of the band keys, the lookup keys (lead fingerprints,
        company-title key) or the block key inside the time window whose estimated overlap
        coefficient reaches `verify_min_overlap`, or `CONTAINMENT_MIN_OVERLAP` for hits that
        share no band key (hits sharing the block key or the company-title key are always
        kept, `_same_company_title`), best overlap first, capped at
        `max_candidates`, of which at most `MAX_PARTIAL_CANDIDATES` in a partial relation (one
        side's shingle set under `PARTIAL_RATIO` of the other's).

        The overlap coefficient |A∩B| / min(|A|, |B|) is the containment of the smaller set,
        so a snippet found through a lead fingerprint passes verification although its
        Jaccard with the full ad is low; an employer's intro that one side left out of its
        sketch as boilerplate does not."""
        found = self.store.find_candidates(self._candidate_query(prepared))
        return self._verified(prepared, found, self._translations(prepared))

    def _translations(self, prepared: PreparedPosting) -> list[StoredPosting]:
        """Postings in other languages sharing rare anchors with this one, inside the time
        window (`indexer.anchor_keys`): how a translated re-post, which shares no band key,
        gets scored at all. Nothing is searched for a posting whose language is unknown, or
        while the window holds no posting of another language."""
        if prepared.anchors.language is None:
            return []
        window = timedelta(days=self.config.window_days)
        return self.store.find_translations(
            TranslationQuery(
                anchors=prepared.anchors,
                since=prepared.posted_at - window if self.config.window_days else None,
                until=prepared.posted_at + window if self.config.window_days else None,
                exclude_id=prepared.id,
                near=prepared.posted_at,
            )
        )

    def _verified(
        self,
        prepared: PreparedPosting,
        found: list[StoredPosting],
        translations: Sequence[StoredPosting] = (),
    ) -> list[Candidate]:
        """`candidates` of the postings a search found (see there), then the postings an
        anchor search found in other languages (`_translations`) that are not among them:
        those are kept unverified, since a translation's sketch shares nothing."""
        cfg = self.config
        verified: list[Candidate] = []
        bands: set[int] | None = None  # the query's band keys, built on first need
        loose: list[int | None] = []  # the query's company-title key, made on first need
        for other in found:
            candidate = candidate_for(prepared, other)
            if other.block_key != prepared.block_key:
                vouched = candidate.overlap >= cfg.verify_min_overlap
                if vouched and candidate.overlap < CONTAINMENT_MIN_OVERLAP:
                    bands = set(prepared.band_keys) if bands is None else bands
                    # else found through a lookup key only, and no containment
                    vouched = not bands.isdisjoint(band_keys(other.sketch, self.store.params))
                if not vouched:
                    if not loose:
                        loose.append(company_title_key(prepared.company_key, prepared.title_key))
                    if (
                        not _same_company_title(loose[0], other)
                        and not _same_bare_title(prepared, other)
                        and not self._stub_pair(prepared, other)
                    ):
                        continue
            verified.append(candidate)
        verified.sort(key=lambda c: (-c.overlap, c.posting.posted_at, c.posting.id))
        verified = _cap_partial(prepared, verified)[: cfg.max_candidates]
        kept = {c.posting.id for c in verified}
        verified += [candidate_for(prepared, t) for t in translations if t.id not in kept]
        wanted = self.scorer.wanted_documents(verified)
        return [self._with_document(c) if c.posting.id in wanted else c for c in verified]

    def _stub_pair(self, prepared: PreparedPosting, other: StoredPosting) -> bool:
        """Whether one side is a stub one of whose phrases is the other's title
        (`indexer.stub_keys`): kept unverified like a block-key hit, since a stub's dozen
        words give its sketch nothing to vouch with. The query's phrases are at hand; a
        hit's are read from its document, fetched only for a hit small enough to be a stub
        (its sketched shingles are fewer than a stub's words)."""
        if prepared.stub_phrases and stub_keys.names_title(
            prepared.stub_phrases,
            other.block_key.partition("|")[2],
            _bare_at_query(prepared, other),
        ):
            return True
        if not prepared.bare_title or other.shingle_count > stub_keys.STUB_MAX_WORDS:
            return False
        full = other if other.document else self.store.get_posting(other.id)
        description = full.document.get("description") if full is not None else None
        return isinstance(description, str) and stub_keys.names_title(
            stub_keys.stub_phrases(description), prepared.bare_title, prepared.title_key
        )

    def _candidate_query(self, prepared: PreparedPosting) -> CandidateQuery:
        """The store search behind `candidates`: keys, block key, window, limit."""
        cfg = self.config
        window = timedelta(days=cfg.window_days)
        return CandidateQuery(
            band_keys=prepared.search_keys,
            block_key=prepared.block_key,
            since=prepared.posted_at - window if cfg.window_days else None,
            until=prepared.posted_at + window if cfg.window_days else None,
            exclude_id=prepared.id,
            limit=cfg.max_candidates,
        )

    def _with_document(self, candidate: Candidate) -> Candidate:
        full = self.store.get_posting(candidate.posting.id)
        return candidate if full is None else Candidate(full, candidate.jaccard, candidate.overlap)

    # -- decision ----------------------------------------------------------------------------

    def _decide(
        self,
        prepared: PreparedPosting,
        existing: StoredPosting | None,
        candidates: list[Candidate],
        scores: list[float],
        across: frozenset[str] = frozenset(),
    ) -> tuple[Decision, list[Merge]]:
        """The verdict and the cluster merges it implies, by the cluster policy
        (`service.cluster_policy`: the threshold, merge threshold, snippet bridging and
        translation rules) and the bridging guard (`service.bridging`: no merge of clusters
        whose postings the index already told apart). This method only reads what they ask
        for: the judged-distinct evidence of the linkers, the linked clusters' earliest
        members, the ids in use when a cluster is opened. `across`: the candidates only the
        search across languages found."""
        reported = [
            ScoredCandidate(
                id=c.posting.id,
                score=round(s, 6),
                jaccard=round(c.jaccard, 6),
                overlap=round(c.overlap, 6),
                cluster_id=c.posting.cluster_id,
            )
            for c, s in zip(candidates, scores, strict=True)
        ]
        choice = choose(
            prepared.shingle_count,
            [_scored(c, s, across) for c, s in zip(candidates, scores, strict=True)],
            self.scorer.threshold,
            self.merge_threshold,
        )
        best = None if choice.best_score is None else round(choice.best_score, 6)

        def new() -> tuple[Decision, list[Merge]]:
            return (
                Decision(
                    id=prepared.id,
                    status="updated" if existing is not None else "new",
                    duplicate_of=None,
                    cluster_id=self._fresh_cluster_id(prepared.id, existing),
                    duplicate_type=None,
                    score=best,
                    candidates=reported,
                ),
                [],
            )

        if choice.match is None:
            return new()
        by_id = {c.posting.id: c for c in candidates}
        match = by_id[choice.match.id]
        if not match.posting.document:  # the type needs the location; fetched if not yet
            full = self.store.get_posting(match.posting.id)
            match = match if full is None else Candidate(full, match.jaccard, match.overlap)
        if self._through_wider_place(prepared, match, candidates, scores):
            return new()
        linked = {match.posting.cluster_id}
        linkers = [by_id[s.id] for s in choice.linkers]
        linked |= self._unbridged_clusters(prepared, match, linkers, candidates)
        clusters = plan(linked, self._cluster_firsts(linked, prepared.id))
        return (
            Decision(
                id=prepared.id,
                status="updated" if existing is not None else "duplicate",
                duplicate_of=clusters.duplicate_of,
                cluster_id=clusters.survivor,
                duplicate_type=duplicate_type(prepared, match),
                score=best,
                candidates=reported,
            ),
            _merges(clusters, prepared.id),
        )

    def _through_wider_place(
        self,
        prepared: PreparedPosting,
        match: Candidate,
        candidates: Sequence[Candidate],
        scores: Sequence[float],
    ) -> bool:
        """Whether the posting reaches its match's cluster only through a match listed at a
        wider place (`service.bridging.placed_within`), having told apart a member of that
        cluster listed elsewhere (`service.bridging.told_apart_elsewhere`). A member scored
        low that is shorter or longer enough to be a snippet still counts as told apart when
        the two share little text (estimated overlap under `CONTAINMENT_MIN_OVERLAP`; a
        snippet's with its full ad is near 1): two households' short ads are not a snippet
        of each other. Reads the members' documents only when the match's listing holds the
        posting's."""
        if not placed_within(match.posting.document.get("location"), prepared.document):
            return False
        score_of = {c.posting.id: s for c, s in zip(candidates, scores, strict=True)}
        told_apart = []
        for companion in _companions(candidates, match):
            if score_of[companion.posting.id] >= self.scorer.threshold:
                continue
            if _partial_pair(prepared, companion) and companion.overlap >= CONTAINMENT_MIN_OVERLAP:
                continue  # a snippet scores low against its own full ad; it shares its text
            full = companion.posting
            if not full.document:
                full = self.store.get_posting(full.id) or full
            told_apart.append(full.document)
        return told_apart_elsewhere(prepared.document, told_apart)

    def _unbridged_clusters(
        self,
        prepared: PreparedPosting,
        match: Candidate,
        linkers: list[Candidate],
        candidates: Sequence[Candidate],
    ) -> set[str]:
        """Clusters of `linkers` (best first) that may merge with `match`'s: not those placed
        inside the posting's wider place, nor those the index judged distinct from it, from
        the posting's other `candidates` in that cluster (companions) or from a stronger
        linker (`service.bridging`), nor those a linker's own decision told apart from a
        member of `match`'s cluster. Reads the few postings involved in full (their stored
        decisions) only when a posting links more than one cluster."""
        if not linkers:
            return set()
        companions = _companions(candidates, match)
        postings: list[StoredPosting] = []
        for candidate in (match, *companions, *linkers):
            full = candidate.posting
            if not full.decision:
                full = self.store.get_posting(full.id) or full
            postings.append(full)
        ours, theirs = postings[: 1 + len(companions)], postings[1 + len(companions) :]
        ours += self._told_apart_members(match.posting.cluster_id, theirs, ours)
        wider = prepared.document.get("location")
        inside = {p.cluster_id for p in theirs if placed_within(wider, p.document)}
        labels = self.store.feedback_labels(label_pairs([*ours, *theirs]))
        kept = unbridged(ours[0], theirs, self.scorer.threshold, labels, ours[1:])
        refused = {p.cluster_id for p in theirs if p not in kept} | inside
        # A cluster merges only if none of its linking members was told apart.
        return {posting.cluster_id for posting in kept} - refused

    def _told_apart_members(
        self, cluster_id: str, linkers: list[StoredPosting], known: list[StoredPosting]
    ) -> list[StoredPosting]:
        """Members of cluster `cluster_id`, beyond `known`, that a linker's stored decision
        scored under the threshold: the guard must weigh them although the posting being
        decided never saw them (its 50 candidates left them out). A campaign's département-
        level ad in a town's cluster, copied by the next scrape: the copy matched the ad and
        another town's ad, which had scored the first town's ad 0.06 (French corpora)."""
        low = set().union(*(scored_under(p.decision, self.scorer.threshold) for p in linkers))
        low -= {p.id for p in known}
        if not low:
            return []
        info = self.store.get_cluster(cluster_id)
        members = sorted(low & {m.id for m in info.members}) if info is not None else []
        return [p for pid in members if (p := self.store.get_posting(pid)) is not None]

    def _cluster_firsts(self, cluster_ids: set[str], exclude: str) -> dict[str, First]:
        """Earliest member (other than `exclude`) of each cluster, by (posted_at, id)."""
        firsts: dict[str, First] = {}
        canonicals = self.store.cluster_canonicals(sorted(cluster_ids))
        for cluster_id, canonical_id in canonicals.items():
            posting = self.store.get_posting(canonical_id) if canonical_id != exclude else None
            if posting is None:
                info = self.store.get_cluster(cluster_id)
                others = [m.id for m in info.members if m.id != exclude] if info else []
                posting = self.store.get_posting(others[0]) if others else None
            if posting is not None:
                firsts[cluster_id] = First(posting.id, posting.posted_at)
        return firsts

    def _fresh_cluster_id(self, posting_id: str, existing: StoredPosting | None) -> str:
        """`cluster_policy.fresh_cluster_id`: an updated posting alone in its cluster keeps it."""
        kept = None
        if existing is not None:
            info = self.store.get_cluster(existing.cluster_id)
            if info is not None and [m.id for m in info.members] == [posting_id]:
                kept = info.id
        return fresh_cluster_id(posting_id, kept, self.store.cluster_ids_in_use)

    def _unchanged(self, existing: StoredPosting, timings: dict[str, float]) -> Decision:
        stored = existing.decision
        canonical = self.store.cluster_canonicals([existing.cluster_id]).get(existing.cluster_id)
        return Decision(
            id=existing.id,
            status="unchanged",
            duplicate_of=canonical if canonical not in (None, existing.id) else None,
            cluster_id=existing.cluster_id,
            duplicate_type=stored.get("duplicate_type"),
            score=stored.get("score"),
            candidates=[ScoredCandidate(**c) for c in stored.get("candidates", [])],
            timings=timings,
        )

    # -- other verbs -------------------------------------------------------------------------

    def delete(self, posting_id: str) -> bool:
        """Remove a posting from the index and its cluster; False if it was not indexed."""
        with self.store.writer([posting_id]):
            if self.store.get_posting(posting_id) is None:
                return False
            self.store.apply(WriteSet(deletions=[posting_id]))
        logger.info("deleted posting id=%s", posting_id)
        return True

    def expire(self, before: datetime) -> int:
        """Delete every posting posted before `before` (retention); returns how many."""
        deleted = self.store.expire(before)
        logger.info("expired %d postings posted before %s", deleted, before.isoformat())
        return deleted

    def posting(self, posting_id: str) -> tuple[StoredPosting, str | None] | None:
        """An indexed posting and the current canonical of its cluster (None if itself)."""
        found = self.store.get_posting(posting_id)
        if found is None:
            return None
        canonical = self.store.cluster_canonicals([found.cluster_id]).get(found.cluster_id)
        return found, canonical if canonical != found.id else None

    def cluster(self, cluster_id: str) -> ClusterInfo | None:
        """A cluster by id or by the alias of a cluster merged into it."""
        return self.store.get_cluster(cluster_id)

    def clusters(self, filters: ClusterFilter, after: str | None, limit: int) -> ClusterPage:
        """A page of the cluster listing."""
        return self.store.list_clusters(filters, after, limit)

    def duplicate_stats(self, query: StatsQuery) -> DuplicateStats:
        """Postings, distinct vacancies and duplicates per period and board, and which boards
        share clusters (for `GET /stats` and `jobdedup stats`); a read beside the writer."""
        return self.store.duplicate_stats(query)

    def assignments(self) -> Iterator[Assignment]:
        """Every posting with its cluster and canonical as they stand now (for export)."""
        return self.store.iter_assignments()

    def explain_pair(self, a_id: str, b_id: str) -> PairExplanation | list[str]:
        """Two indexed postings side by side: `score_pair`'s verdict (the later-posted one as
        the new posting) with its reasons in words, the diffs of their texts and the pair's
        feedback label; or the ids of those not indexed (see `service.review`)."""
        return explain_pair(self.store, self.score_pair, a_id, b_id)

    def review_queue(self, limit: int, offset: int) -> ReviewQueue:
        """A page of the review queue of doubtful pairs, with progress (`service.review`)."""
        return review_queue(self.store, self.scorer.threshold, limit, offset)


_T = TypeVar("_T")
RECHECK_MARGIN = timedelta(seconds=60)
"""The re-check looks at postings other instances wrote from this long before its group
started: their clocks may differ from ours by that much (NTP keeps them far closer)."""
GIVE_WAY_ATTEMPTS = 50  # a decision that gave way to older writes this often fails (503)
GIVE_WAY_PAUSE_S = 0.005  # first pause after giving way (doubling, jittered)


@dataclass(frozen=True)
class _Written:
    """A decision and what its re-check needs: the posting as searched with (boilerplate
    learned; None when nothing was written) and the candidates its search returned."""

    decision: Decision
    prepared: PreparedPosting | None
    seen: frozenset[str]


def _windows(first: _Item, rest: Iterator[_Item], size: int) -> Iterator[list[_Item]]:
    """`first` and the rest of a group in windows of `size`, each taken when asked for."""
    yield [first, *islice(rest, size - 1)]
    while window := list(islice(rest, size)):
        yield window


def _waited(decisions: list[Decision], seconds: float) -> list[Decision]:
    """Record in each decision's timings how long its group waited for the store's writer
    (the in-process lock; on the engine also the claims and the decisions made again after
    giving way to another instance's older write):
    the `writer_wait` stage of `jobdedup_stage_seconds`, what `bench/instances.py` reads."""
    for decision in decisions:
        decision.timings["writer_wait"] = decision.timings.get("writer_wait", 0.0) + seconds
    return decisions


def _scored(candidate: Candidate, score: float, across: frozenset[str] = frozenset()) -> Scored:
    """A scored candidate as the cluster policy sees it."""
    posting = candidate.posting
    return Scored(
        posting.id,
        posting.cluster_id,
        score,
        posting.posted_at,
        posting.shingle_count,
        posting.id in across,
    )


def _companions(candidates: Sequence[Candidate], match: Candidate) -> list[Candidate]:
    """The posting's other candidates in its match's cluster: what the bridging guard also
    checks a linker against (`service.bridging.unbridged`)."""
    return [
        c
        for c in candidates
        if c.posting.cluster_id == match.posting.cluster_id and c.posting.id != match.posting.id
    ]


def _merges(clusters: ClusterPlan, posting_id: str) -> list[Merge]:
    """The store's merges for a cluster plan."""
    return [
        Merge(absorbed=c, survivor=clusters.survivor, posting_id=posting_id)
        for c in clusters.absorbed
    ]


def _partial_pair(prepared: PreparedPosting, candidate: Candidate) -> bool:
    """Either side is a snippet of the other."""
    small, large = sorted((prepared.shingle_count, candidate.posting.shingle_count))
    return is_snippet(small, large)


def _same_company_title(key: int | None, other: StoredPosting) -> bool:
    """Whether a hit shares the query's company-title key (`key`, None without one): the
    same title under another form of the employer's name ("Groupe Acme", "Acme France").
    Kept unverified like a block-key hit, because the sketch cannot vouch for it: an
    aggregator's snippet of a board's ad often holds only the employer's intro, which the
    full ad's sketch leaves out as a company section (the snippet has nothing to call it so),
    so the estimated overlap of the two is near 0 however exactly one copies the other."""
    return key is not None and block_company_title_key(other.block_key) == key


def _same_bare_title(prepared: PreparedPosting, other: StoredPosting) -> bool:
    """Whether a hit is the query's employer under the query's title once both are read
    without the query's place words, requisition codes and a board's lead-in
    (`indexer.lookup_keys.bare_title`: "Employé(e) de ménage H/F - Largentière" and
    "Employé(e) de ménage H/F" at Largentière). Kept unverified like a block-key hit, for
    the block key's reason: an employer that posts one text in many towns under titles
    naming each town makes that text boilerplate (units recurring under different titles),
    so the sketches no longer vouch for the re-post of one of them, and only its title can.
    A hit at another town keeps that town's name in its title and is not kept this way.
    The employer is the same when the company keys are, or, as for the company-title key,
    their first distinctive words ("Talan" / "Talan France"), or when one side names none
    (an aggregator's snippet without the employer, found through an opening key: the bare
    title and the opening text it shares are all that relates the two)."""
    if other.company_key != prepared.company_key and other.company_key and prepared.company_key:
        word = company_word(prepared.company_key)
        if not word or company_word(other.company_key) != word:
            return False
    return _bare_at_query(prepared, other) == prepared.bare_title


def _bare_at_query(prepared: PreparedPosting, other: StoredPosting) -> str:
    """A hit's title read without the query's place words and requisition codes
    (`indexer.lookup_keys.bare_title`)."""
    location = prepared.document.get("location")
    place = location if isinstance(location, str) else None
    title_key = other.block_key.partition("|")[2]  # its normalised title, as stored
    stop = stop_words(prepared.reading.language or "")
    return bare_title(other.title, place, title_key, stop)


def _cap_partial(prepared: PreparedPosting, verified: list[Candidate]) -> list[Candidate]:
    """`verified` (best first) with at most `MAX_PARTIAL_CANDIDATES` partial-relation
    candidates that are not block-key hits; the others keep their order."""
    kept: list[Candidate] = []
    partial = 0
    for candidate in verified:
        if candidate.posting.block_key != prepared.block_key and _partial_pair(prepared, candidate):
            partial += 1
            if partial > MAX_PARTIAL_CANDIDATES:
                continue
        kept.append(candidate)
    return kept
