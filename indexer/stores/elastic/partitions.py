"""Monthly posting indices (`JOBDEDUP_SEARCH_PARTITIONS=month`): retention drops a month's
index in one request instead of deleting its postings one by one.

Layout: a posting document goes to the index of its `posted_at` month
(`{prefix}-postings-m2024-03`), which joins the postings alias, so every search (candidates,
re-checks, listing, statistics) covers all months as before. Its `partition` field and the
member entry its cluster document keeps for it name that month, so a later write (the
posting re-sent, a merge moving it to another cluster, a canonical flag) addresses the right
index without searching for it. Postings written without partitions (and every posting of
an index made before them) live in the alias's write index and carry no `partition`.

Reads by id must stay real-time multi-gets, and a multi-get cannot go through an alias that
covers several indices, so a reader asks every live month for each id. It learns which
months exist from the registry document (`partitions`, in the clusters index), read in the
same multi-get: a writer registers a month in the bulk that writes its first posting there,
under that posting's claim, so a reader that claims the posting afterwards sees the month
(and asks it again in a second multi-get if it was new to it).

Dropping a month (`ElasticStore.expire`, every month wholly before the cut-off):
1. the registry marks it `dropping`: writers that read the registry from then on put
   postings dated in that month in the write index instead (the next pass expires them one
   by one);
2. its postings leave their clusters through the ordinary deletion path (claims, cluster
   documents, canonical flags), page by page, except that nothing is sent to the month's
   own index;
3. a last page finds postings written there since the mark (by a write cycle that read the
   registry before it) and treats them alike, after waiting out such cycles (`grace_s`,
   skipped when no other store holds a writer ticket: then only this process's own cycles
   can be such, and they end before its writer lock is free);
4. the index is deleted in one request; then the registry forgets the month.
A pass interrupted anywhere is finished by the next one (the registry still names the
month, and re-deleting a posting that already left its cluster changes nothing).
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any, Literal

from indexer.stores.elastic.bodies import IndexNames, from_micros, state_id

PartitionScheme = Literal["none", "month"]
PARTITIONS_ID = state_id("partitions")
LIVE, DROPPING = "live", "dropping"

ADD_PARTITION = (
    "if (ctx._source.partitions == null) { ctx._source.partitions = new HashMap(); } "
    "if (ctx._source.partitions.containsKey(params.p)) { ctx.op = 'none'; } "
    "else { ctx._source.partitions.put(params.p, 'live'); }"
)
SET_STATE = (
    "if (ctx._source.partitions == null) { ctx._source.partitions = new HashMap(); } "
    "if (params.state == null) { ctx._source.partitions.remove(params.p); } "
    "else { ctx._source.partitions.put(params.p, params.state); }"
)


def _month(year: int, month: int) -> str:
    return f"m{year:04d}-{month:02d}"


def partition_of(posted_us: int, scheme: PartitionScheme) -> str | None:
    """The partition of a posting posted at `posted_us` (epoch µs), None without partitions."""
    if scheme == "none":
        return None
    moment = from_micros(posted_us)
    return _month(moment.year, moment.month)


def registered(registry: dict[str, Any] | None) -> dict[str, str]:
    """Month -> state, as the registry document's source holds them (None: no document)."""
    return dict((registry or {}).get("partitions") or {})


MAX_WINDOW_MONTHS = 24  # a wider window searches the alias instead of naming its months


def window_months(since_us: int, until_us: int) -> list[str] | None:
    """The month partitions a posted_at window overlaps, oldest first (None beyond
    `MAX_WINDOW_MONTHS`)."""
    first, last = from_micros(since_us), from_micros(until_us)
    count = (last.year - first.year) * 12 + last.month - first.month + 1
    if count > MAX_WINDOW_MONTHS:
        return None
    months = []
    for step in range(max(count, 0)):
        year, month = divmod(first.month - 1 + step, 12)
        months.append(_month(first.year + year, month + 1))
    return months


def partition_end(partition: str) -> datetime:
    """The first instant after a month partition (`m2024-03` -> 2024-04-01T00:00Z)."""
    year, month = int(partition[1:5]), int(partition[6:8])
    return datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)


def partition_index(names: IndexNames, partition: str | None) -> str:
    """The index a posting of this partition lives in: its month's, or (None) the alias,
    which writes to its write index."""
    return names.postings if partition is None else f"{names.postings}-{partition}"


def partition_pattern(names: IndexNames) -> str:
    """Every month index of a store (also one the registry lost track of)."""
    return f"{names.postings}-m*"


def partition_from_index(names: IndexNames, index: str) -> str | None:
    """The partition a month index holds, None for another index."""
    prefix = f"{names.postings}-"
    tail = index[len(prefix) :] if index.startswith(prefix) else ""
    if len(tail) == 8 and tail[0] == "m" and tail[5] == "-" and tail[1:5].isdigit():
        return tail if tail[6:8].isdigit() else None
    return None


def create_partition_body(alias: str, shards: int) -> dict[str, Any]:
    """A month index: in the postings alias (not its write index), mappings and settings from
    the template but for the primary shards (`JOBDEDUP_SEARCH_SHARDS`)."""
    return {"aliases": {alias: {}}, "settings": {"number_of_shards": shards}}


def registry_add(partition: str) -> dict[str, Any]:
    """Partial-update body registering a month as live (a no-op when it is registered:
    writers send it with every bulk that writes into the month, so a replay changes nothing
    and a month marked `dropping` stays so)."""
    return {
        "script": {"source": ADD_PARTITION, "lang": "painless", "params": {"p": partition}},
        "upsert": {"kind": "partitions", "partitions": {partition: LIVE}},
    }


def registry_set(partition: str, state: str | None) -> dict[str, Any]:
    """Partial-update body setting a month's state (`dropping`), or forgetting it (None)."""
    return {
        "script": {
            "source": SET_STATE,
            "lang": "painless",
            "params": {"p": partition, "state": state},
        },
        "upsert": {"kind": "partitions", "partitions": {} if state is None else {partition: state}},
    }


def partition_page_query(
    after: str | None, size: int, written_since_us: int | None
) -> dict[str, Any]:
    """A page of a month index's postings (ids and nothing else) in id order; with
    `written_since_us`, only those written since (the last page of a drop)."""
    filters: list[dict[str, Any]] = []
    if written_since_us is not None:
        filters.append({"range": {"written_us": {"gte": written_since_us}}})
    body: dict[str, Any] = {
        "query": {"bool": {"filter": filters}} if filters else {"match_all": {}},
        "sort": [{"posting_id": "asc"}],
        "size": size,
        "track_total_hits": False,
        "_source": {"includes": ["posting_id"]},
    }
    if after is not None:
        body["search_after"] = [after]
    return body


class Partitions:
    """What this process knows of the registry: month -> state, as the last registry read
    (by any thread of the store) found it. Readers use it to choose which months to ask and
    correct for what it missed (`EngineFetcher.fetch`); writers, to keep postings out of a
    month being dropped."""

    def __init__(self, scheme: PartitionScheme) -> None:
        self.scheme: PartitionScheme = scheme
        self._states: dict[str, str] = {}
        self._lock = threading.Lock()

    def known(self) -> list[str]:
        with self._lock:
            return sorted(self._states)

    def learn(self, registry: dict[str, Any] | None) -> None:
        """Take the registry document's months as they are (a month it no longer names was
        dropped: asking for it would ask an index that is gone)."""
        found = registered(registry)
        with self._lock:
            self._states = found

    def target(self, posted_us: int) -> str | None:
        """Where a posting posted then is written: its month, or the write index (None)
        without partitions or while its month is being dropped."""
        partition = partition_of(posted_us, self.scheme)
        with self._lock:
            if partition is not None and self._states.get(partition) == DROPPING:
                return None
        return partition
