"""Garbage-collector settings for the long-running processes (`serve`, `ingest`, preparation
workers).

CPython's default collects the youngest generation every 700 net allocations and walks the
whole heap every 100 of those. A decision allocates thousands of short-lived dicts (engine
documents, bulk operations, feature rows) that reference counting frees anyway, while the
heap holds the model, gazetteers and caches loaded at start: the engine path ran ~4,700
collections for 3,000 postings, 14-17% of its time (`ingest` of 3,000 NHS ads in one
process: 45.3 and 44.0 s default, 37.6 s with the settings below; README, Architecture). The
objects alive after start-up are moved out of the collector's sight (`gc.freeze`), and the
youngest generation is collected every `GEN0_THRESHOLD` allocations. Reference cycles are
still collected, only less often: memory between collections grows by at most what that
many container objects hold.
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 50_000
"""Net container allocations between collections of the youngest generation (default 700);
the older generations keep their default ratios (10, 10)."""


def settle_heap() -> None:
    """Call once start-up is over (models loaded, store open): collect what start-up left,
    freeze the survivors, and collect the young generation less often."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, older, oldest)
