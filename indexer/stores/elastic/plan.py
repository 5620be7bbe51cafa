"""Turning a `WriteSet` into document writes, over pending writes the engine has not seen yet.

`Workspace` is the unit of work of the search-engine store: reads go to the pending writes
first, then to a cache of documents read from the engine (by real-time GET, so never stale),
then to the engine. `plan_apply` folds one `WriteSet` into the pending writes; the store then
sends them as one bulk (or, inside `batch()`, keeps folding and sends them when the batch
exits). Everything here is pure apart from the `Fetcher` and the `Claimer` the store passes
in; a write cycle's workspace claims what it writes before reading it, so its cached
copies of those documents stay true (nobody else writes them meanwhile).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from indexer.store import WriteSet
from indexer.stores.elastic.bodies import IndexNames, doc_id, state_id
from indexer.stores.elastic.claims import cluster_claim, posting_claim
from indexer.stores.elastic.client import Operation
from indexer.stores.elastic.docs import (
    Source,
    alias_source,
    member_of,
    merge_entry,
    new_cluster,
    posting_source,
    summarise_cluster,
)
from indexer.stores.elastic.partitions import (
    PARTITIONS_ID,
    Partitions,
    partition_index,
    registry_add,
)

SearchKey = tuple[tuple[int, ...], str | None, int | None, int | None, str | None, int]
"""A candidate search: sorted keys, block key, window (µs), excluded posting id, limit."""


class Claimer(Protocol):
    """Claims documents for the write cycle before they are read (`stores.elastic.claims`)."""

    def claim(self, names: Iterable[str], wait: bool = True) -> set[str]: ...


class Fetched(NamedTuple):
    """What one multi-get found, by kind (ids asked for and not found are absent)."""

    postings: dict[str, Source]
    clusters: dict[str, Source]
    aliases: dict[str, str]  # alias -> the cluster id it points at
    units: dict[str, frozenset[int]]  # unit key -> witnesses


class Fetcher(Protocol):
    """Real-time reads by id from the engine, all kinds in one round trip: postings and
    cluster documents by id, alias targets by alias, boilerplate statistics by unit key."""

    def fetch(
        self,
        postings: Sequence[str],
        clusters: Sequence[str],
        aliases: Sequence[str],
        units: Sequence[str] = (),
    ) -> Fetched: ...


@dataclass
class Pending:
    """Writes not yet sent: the last state of each document touched (None = delete).

    `repoints` moves postings that are not otherwise rewritten to another cluster (a merge)
    with a partial update, so a merge never has to read its members' full documents;
    `flags` sets the `canonical` field of such postings the same way (a merge or a deletion
    changed their cluster's canonical).

    Month indices (`indexer.stores.elastic.partitions`): `stored` is the month of the engine's copy
    of each posting this cycle replaces or deletes, `where` the month of each posting it
    changes by partial update (from its member entry); None is the write index.
    """

    postings: dict[str, Source | None] = field(default_factory=dict)
    repoints: dict[str, str] = field(default_factory=dict)
    flags: dict[str, bool] = field(default_factory=dict)
    stored: dict[str, str | None] = field(default_factory=dict)
    where: dict[str, str | None] = field(default_factory=dict)
    clusters: dict[str, Source | None] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    units: dict[str, frozenset[int]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(
            self.postings
            or self.repoints
            or self.flags
            or self.clusters
            or self.aliases
            or self.units
        )

    def operations(
        self,
        names: IndexNames,
        stamp: Source | None = None,
        dropping: frozenset[str] = frozenset(),
    ) -> list[Operation]:
        """Bulk operations, posting documents with `stamp` (who writes them, when). Every
        one is idempotent (whole documents, deletes, a partial update that sets one field,
        a set union), so a bulk replayed after a failure half way gives the same state as
        one that went through at once. A posting moved to another month is deleted from
        the old one; deletions from the months in `dropping` are left out (their index goes
        whole); each month written into is registered (`registry_add`)."""
        ops: list[Operation] = []
        months: set[str] = set()
        for pid, source in self.postings.items():
            old = self.stored.get(pid)
            new = None if source is None else source.get("partition")
            if (source is None or (pid in self.stored and old != new)) and old not in dropping:
                gone = {"_index": partition_index(names, old), "_id": doc_id(pid)}
                ops.append(({"delete": gone}, None))
            if source is not None:
                meta = {"_index": partition_index(names, new), "_id": doc_id(pid)}
                ops.append(({"index": meta}, {**source, **stamp} if stamp else source))
                if new is not None:
                    months.add(new)
        for pid in dict.fromkeys([*self.repoints, *self.flags]):
            if pid not in self.postings:
                meta = {"_index": partition_index(names, self.where.get(pid)), "_id": doc_id(pid)}
                change: Source = {}
                if pid in self.repoints:
                    change["cluster_id"] = self.repoints[pid]
                if pid in self.flags:
                    change["canonical"] = self.flags[pid]
                ops.append(({"update": meta}, {"doc": change}))
        for cid, source in self.clusters.items():
            meta = {"_index": names.clusters, "_id": state_id("cluster", cid)}
            ops.append(({"delete": meta}, None) if source is None else ({"index": meta}, source))
        for alias, target in self.aliases.items():
            meta = {"_index": names.clusters, "_id": state_id("alias", alias)}
            ops.append(({"index": meta}, alias_source(alias, target)))
        for key, witnesses in self.units.items():
            unit_meta: dict[str, Any] = {
                "_index": names.clusters,
                "_id": state_id("unit", key),
                "retry_on_conflict": UNIT_RETRIES,
            }
            ops.append(({"update": unit_meta}, unit_update(key, witnesses)))
        for month in sorted(months):
            registry_meta = {
                "_index": names.clusters,
                "_id": PARTITIONS_ID,
                "retry_on_conflict": UNIT_RETRIES,
            }
            ops.append(({"update": registry_meta}, registry_add(month)))
        return ops


class Workspace:
    """Pending writes over the engine's state, with a read cache (see the module docstring)."""

    def __init__(
        self,
        fetcher: Fetcher,
        claimer: Claimer | None = None,
        partitions: Partitions | None = None,
    ) -> None:
        self.pending = Pending()
        self._fetcher = fetcher
        self._claimer = claimer
        """A write cycle's workspace claims the clusters it reads and the postings it writes
        before reading them, so what it caches of them stays true while the cycle lasts;
        a reader's workspace (no claimer) claims nothing."""
        self._partitions = partitions  # where new postings go (month indices), if anywhere
        self._postings: dict[str, Source | None] = {}
        self._clusters: dict[str, Source | None] = {}
        self._aliases: dict[str, str | None] = {}
        self._units: dict[str, frozenset[int]] = {}
        self._absorbed_canonicals: set[str] = set()  # of clusters merged away by this apply
        self._by_key: dict[int, set[str]] = {}  # band/lookup key -> pending posting ids
        self._by_block: dict[str, set[str]] = {}  # block key -> pending posting ids
        self.searches: dict[SearchKey, tuple[frozenset[str], list[Source]]] = {}
        """Candidate searches run ahead (`ElasticStore.search_ahead`): the hits, and the
        posting ids the search excluded (pending then, or the asking posting)."""
        self.ahead: dict[SearchKey, Any] = {}
        """Searches run ahead and not folded in yet (the store's running batches)."""

    # -- reads (pending first, then cache, then the engine) --------------------------------

    def prefetch(
        self,
        postings: Iterable[str] = (),
        clusters: Iterable[str] = (),
        aliases: Iterable[str] = (),
        units: Iterable[str] = (),
    ) -> None:
        """Load what a plan will read in one multi-get instead of one GET per id (a write
        cycle claims the clusters and aliases first: `claim_clusters`). Unit keys are the
        boilerplate statistics its decisions will count (`units`)."""
        clusters, aliases = list(clusters), list(aliases)
        self.claim_clusters([*clusters, *aliases])
        want_postings = [p for p in dict.fromkeys(postings) if p not in self._postings]
        want_clusters = [c for c in dict.fromkeys(clusters) if c not in self._clusters]
        want_aliases = [a for a in dict.fromkeys(aliases) if a not in self._aliases]
        want_units = [
            k for k in dict.fromkeys(units) if k not in self.pending.units and k not in self._units
        ]
        if not (want_postings or want_clusters or want_aliases or want_units):
            return
        found = self._fetcher.fetch(want_postings, want_clusters, want_aliases, want_units)
        self._postings.update({pid: found.postings.get(pid) for pid in want_postings})
        self._clusters.update({cid: found.clusters.get(cid) for cid in want_clusters})
        self._aliases.update({alias: found.aliases.get(alias) for alias in want_aliases})
        self._units.update({k: found.units.get(k, frozenset()) for k in want_units})

    def claim_clusters(self, cluster_ids: Iterable[str], wait: bool = True) -> set[str]:
        """Claim clusters (with the aliases of their ids) before reading them; returns the
        ids claimed now. Without `wait`, ids held by another writer are skipped."""
        return self.claim((), cluster_ids, wait)[1]

    def claim_postings(self, posting_ids: Iterable[str], wait: bool = True) -> set[str]:
        """Claim postings this cycle will write or delete; a copy read before the claim
        (a candidate's, one read ahead) is read again."""
        return self.claim(posting_ids, (), wait)[0]

    def claim(
        self, posting_ids: Iterable[str], cluster_ids: Iterable[str], wait: bool = True
    ) -> tuple[set[str], set[str]]:
        """Claim postings and clusters together (one request); returns the posting ids and
        the cluster ids claimed now, whose copies read before (if any) are dropped."""
        if self._claimer is None:
            return set(), set()
        names = [*(posting_claim(p) for p in posting_ids)]
        names += [cluster_claim(c) for c in cluster_ids]
        got = self._claimer.claim(names, wait)
        postings = {name[2:] for name in got if name.startswith("p:")}
        clusters = {name[2:] for name in got if name.startswith("c:")}
        for pid in postings:
            self._postings.pop(pid, None)
        for cid in clusters:  # read before the claim (never by a cycle's reads): read again
            self._clusters.pop(cid, None)
            self._aliases.pop(cid, None)
        return postings, clusters

    def absorb(self, postings: Sequence[str], found: dict[str, Source]) -> None:
        """Cache posting documents read ahead (ids asked for and not found are cached as
        absent); what this workspace read or wrote since stays as it is. Clusters are never
        read ahead: a cycle reads a cluster only once it claimed it."""
        for pid in postings:
            self._postings.setdefault(pid, found.get(pid))

    def posting(self, posting_id: str) -> Source | None:
        """The posting's current document (with a pending move to another cluster applied)."""
        if posting_id in self.pending.postings:
            return self.pending.postings[posting_id]
        self.prefetch(postings=[posting_id])
        source = self._postings[posting_id]
        moved = self.pending.repoints.get(posting_id)
        if source is not None and moved is not None:
            source = {**source, "cluster_id": moved}
        return source

    def cluster(self, cluster_id: str) -> Source | None:
        """The cluster document (live or tombstone), or None."""
        if cluster_id in self.pending.clusters:
            return self.pending.clusters[cluster_id]
        self.prefetch(clusters=[cluster_id])
        return self._clusters[cluster_id]

    def alias_target(self, alias: str) -> str | None:
        """The cluster an alias points at, or None if the id is not an alias."""
        if alias in self.pending.aliases:
            return self.pending.aliases[alias]
        self.prefetch(aliases=[alias])
        return self._aliases[alias]

    def unalias(self, cluster_id: str) -> str:
        """Aliases are repointed at every merge, so one hop reaches the live id."""
        return self.alias_target(cluster_id) or cluster_id

    def units(self, keys: Iterable[str]) -> dict[str, frozenset[int]]:
        """Boilerplate statistics of unit keys: pending, then cached, then one multi-get."""
        wanted = list(dict.fromkeys(keys))
        missing = [k for k in wanted if k not in self.pending.units and k not in self._units]
        if missing:
            found = self._fetcher.fetch((), (), (), missing).units
            self._units.update({k: found.get(k, frozenset()) for k in missing})
        result = {k: self.pending.units.get(k, self._units.get(k, frozenset())) for k in wanted}
        return {k: v for k, v in result.items() if v}

    def add_units(self, rows: Iterable[tuple[int, int, int]]) -> None:
        """Fold (scope, unit, witness) rows into the pending statistics documents."""
        grouped: dict[str, set[int]] = {}
        for scope, unit, witness in rows:
            grouped.setdefault(unit_key(scope, unit), set()).add(witness)
        current = self.units(grouped)
        for key, witnesses in grouped.items():
            self.pending.units[key] = current.get(key, frozenset()) | witnesses

    # -- writes ---------------------------------------------------------------------------

    def _editable_cluster(self, cluster_id: str, create: bool) -> Source | None:
        doc = self.cluster(cluster_id)
        if doc is None and not create:
            return None
        doc = new_cluster(cluster_id) if doc is None else doc
        if self.pending.clusters.get(cluster_id) is not doc:
            doc = {**doc, "members": list(doc["members"]), "aliases": list(doc["aliases"])}
            doc["merges"] = list(doc["merges"])
            self.pending.clusters[cluster_id] = doc
        return doc

    def _leave_cluster(self, source: Source) -> str | None:
        doc = self._editable_cluster(source["cluster_id"], create=False)
        if doc is None:
            return None
        doc["members"] = [m for m in doc["members"] if m["id"] != source["posting_id"]]
        return str(doc["cluster_id"])

    def delete(self, posting_id: str) -> str | None:
        """Take a posting out of the index and its cluster; returns that cluster's id."""
        source = self.posting(posting_id)
        if source is None:
            return None
        if posting_id not in self.pending.postings:  # the engine's copy: where it lives
            self.pending.stored[posting_id] = source.get("partition")
        self._unindex(self.pending.postings.get(posting_id))
        self.pending.postings[posting_id] = None
        self.pending.repoints.pop(posting_id, None)
        self.pending.flags.pop(posting_id, None)
        return self._leave_cluster(source)

    def merge(self, absorbed: str, survivor: str, posting_id: str) -> str | None:
        """Fold cluster `absorbed` into `survivor` (both resolved first, so an alias never
        becomes a posting's cluster or another alias's target); returns the survivor."""
        absorbed, survivor = self.unalias(absorbed), self.unalias(survivor)
        if absorbed == survivor:
            return None
        gone = self.cluster(absorbed)
        target = self._editable_cluster(survivor, create=True)
        assert target is not None
        if gone is not None and gone["live"]:
            self._absorbed_canonicals.add(gone["canonical_id"])
        moved_aliases = [*(gone["aliases"] if gone else []), absorbed]
        for member in gone["members"] if gone else []:
            self._repoint(member["id"], survivor)
            self.pending.where[member["id"]] = member.get("partition")
            target["members"].append(member)
        target["aliases"] = [*target["aliases"], *moved_aliases]
        target["merges"] = [*target["merges"], merge_entry(absorbed, posting_id)]
        for alias in moved_aliases:
            self.pending.aliases[alias] = survivor
        self.pending.clusters[absorbed] = None
        return survivor

    def _repoint(self, posting_id: str, cluster_id: str) -> None:
        if posting_id in self.pending.postings:
            source = self.pending.postings[posting_id]
            if source is not None:
                self.pending.postings[posting_id] = {**source, "cluster_id": cluster_id}
        else:
            self.pending.repoints[posting_id] = cluster_id

    def upsert(self, source: Source) -> tuple[str | None, str]:
        """Write a posting document (replacing any with its id) into its cluster (unaliased);
        returns (the cluster it left, the cluster it joined)."""
        left = self.delete(source["posting_id"])
        cluster_id = self.unalias(source["cluster_id"])
        source = {**source, "cluster_id": cluster_id}
        month = self._partitions.target(source["posted_at"]) if self._partitions else None
        if month is not None:
            source["partition"] = month
        doc = self._editable_cluster(cluster_id, create=True)
        assert doc is not None
        doc["members"].append(member_of(source))
        self.pending.postings[source["posting_id"]] = source
        for key in source["band_keys"]:
            self._by_key.setdefault(key, set()).add(source["posting_id"])
        self._by_block.setdefault(source["block_key"], set()).add(source["posting_id"])
        return left, cluster_id

    def _unindex(self, source: Source | None) -> None:
        if source is not None:
            for key in source["band_keys"]:
                self._by_key[key].discard(source["posting_id"])
            self._by_block[source["block_key"]].discard(source["posting_id"])

    def pending_hits(self, keys: Iterable[int], block_key: str | None) -> dict[str, int]:
        """Pending postings sharing a key or the block key: id -> number of shared keys.
        From an inverted index of the pending keys (a scan of every pending posting per
        query made a 256-posting group quadratic: 2.4 s of 2,000 NHS ads)."""
        shared: dict[str, int] = {}
        for key in keys:
            for pid in self._by_key.get(key, ()):
                shared[pid] = shared.get(pid, 0) + 1
        if block_key:
            for pid in self._by_block.get(block_key, ()):
                shared.setdefault(pid, 0)
        return shared

    def finish(self, cluster_ids: Iterable[str]) -> None:
        """Recompute the statistics of touched clusters; an emptied cluster is deleted, or
        kept as a tombstone while aliases point at it (its id stays taken). Then the
        `canonical` field of the postings whose cluster's canonical changed follows."""
        touched = list(cluster_ids)
        previous = self._absorbed_canonicals | {
            doc["canonical_id"]
            for cid in touched
            if (doc := self.pending.clusters.get(cid)) is not None and doc["live"]
        }
        self._absorbed_canonicals = set()
        for cluster_id in touched:
            doc = self.pending.clusters.get(cluster_id)
            if doc is None:
                continue
            summarise_cluster(doc)
            if not doc["live"] and not doc["aliases"]:
                self.pending.clusters[cluster_id] = None
        now = {
            doc["canonical_id"]
            for cid in touched
            if (doc := self.pending.clusters.get(cid)) is not None and doc["live"]
        }
        self._flag_canonicals(previous, now)

    def _flag_canonicals(self, previous: set[str], now: set[str]) -> None:
        """Keep each posting's `canonical` field equal to "is its cluster's canonical".

        Only the canonicals of the clusters this apply touched (and absorbed) can change:
        `previous` before it, `now` after it. A posting written in this workspace gets the
        field in its document; another one a partial update, unless the engine holds the
        wanted value already (it flags the canonicals of its cluster documents, cached
        here unedited)."""
        engine: set[str] | None = None
        for pid in previous | now:
            wanted = pid in now
            if pid in self.pending.postings:
                source = self.pending.postings[pid]
                if source is not None and source.get("canonical") != wanted:
                    self.pending.postings[pid] = {**source, "canonical": wanted}
                continue
            if engine is None:
                engine = {
                    doc["canonical_id"]
                    for cid in self.pending.clusters
                    if (doc := self._clusters.get(cid)) is not None and doc["live"]
                }
            if wanted != (pid in engine):
                self.pending.flags[pid] = wanted
                self.pending.where[pid] = self._member_partition(pid)
            else:
                self.pending.flags.pop(pid, None)

    def _member_partition(self, posting_id: str) -> str | None:
        """The month index of a posting this cycle did not read, from its member entry in a
        cluster document it holds (a canonical is a member of the cluster it heads)."""
        for docs in (self.pending.clusters, self._clusters):
            for doc in docs.values():
                for member in (doc or {}).get("members", ()):
                    if member["id"] == posting_id:
                        month = member.get("partition")
                        return str(month) if month else None
        return None


def plan_apply(workspace: Workspace, changes: WriteSet) -> None:
    """Fold a WriteSet into the workspace: deletions, then merges, then upserts, then the
    statistics of every touched cluster (the order the port prescribes)."""
    upserts = [posting_source(p, keys, p.cluster_id) for p, keys in changes.upserts]
    ids = [*changes.deletions, *(s["posting_id"] for s in upserts)]
    named = [c for m in changes.merges for c in (m.absorbed, m.survivor)]
    named += [s["cluster_id"] for s in upserts]
    # Every claim is made here, before the first change: a claim that gives way
    # (StoreContended) leaves the workspace as it was.
    workspace.claim_postings(ids)
    workspace.prefetch(postings=ids, aliases=named, clusters=named)
    workspace.prefetch(
        clusters=[
            *(workspace.unalias(c) for c in named),
            *(s["cluster_id"] for p in ids if (s := workspace.posting(p)) is not None),
        ]
    )
    touched: set[str] = set()
    for posting_id in changes.deletions:
        if (left := workspace.delete(posting_id)) is not None:
            touched.add(left)
    for merge in changes.merges:
        if survivor := workspace.merge(merge.absorbed, merge.survivor, merge.posting_id):
            touched.add(survivor)
    for source in upserts:
        left, joined = workspace.upsert(source)
        touched.update(c for c in (left, joined) if c is not None)
    workspace.finish(sorted(touched))
    if changes.unit_observations:
        workspace.add_units(changes.unit_observations)


def unit_key(scope: int, unit: int) -> str:
    """The document key of a (scope, unit) statistic."""
    return f"{scope}:{unit}"


def unit_source(key: str, witnesses: frozenset[int]) -> Source:
    """The statistics document of one unit key."""
    return {"kind": "unit", "unit_key": key, "witnesses": sorted(witnesses)}


UNIT_RETRIES = 5  # an update of a statistics document racing another instance's is redone
ADD_WITNESSES = """
def have = new HashSet();
for (def w : ctx._source.witnesses) { have.add(((Number) w).longValue()); }
boolean added = false;
for (def w : params.witnesses) {
  long v = ((Number) w).longValue();
  if (have.add(v)) { ctx._source.witnesses.add(v); added = true; }
}
if (!added) { ctx.op = 'noop'; }
"""


def unit_update(key: str, witnesses: frozenset[int]) -> Source:
    """Add witnesses to a statistics document (created if absent) on the engine: a set
    union, so writers on several instances never lose each other's witnesses, and a replay
    changes nothing."""
    return {
        "script": {
            "source": ADD_WITNESSES,
            "lang": "painless",
            "params": {"witnesses": sorted(witnesses)},
        },
        "upsert": unit_source(key, witnesses),
    }


def overlay_matches(
    workspace: Workspace,
    keys: set[int],
    block_key: str | None,
    since_us: int | None,
    until_us: int | None,
    exclude_id: str | None,
) -> list[tuple[int, Source]]:
    """Pending postings that a candidate query would find, with their shared-key counts."""
    found: list[tuple[int, Source]] = []
    for pid, shared in workspace.pending_hits(keys, block_key).items():
        source = workspace.pending.postings[pid]
        if source is None or pid == exclude_id:
            continue
        when = source["posted_at"]
        if (since_us is not None and when < since_us) or (until_us is not None and when > until_us):
            continue
        found.append((shared, source))
    return found


def without_documents(source: Source) -> dict[str, Any]:
    """A light copy for candidate lists (as the engine returns them without documents)."""
    return {k: v for k, v in source.items() if k not in ("document", "decision", "band_keys")}
