"""Composition root: the only place that names concrete store adapters and scorers."""

from __future__ import annotations

from classifier.model import DEFAULT_MODEL_DIR, MEMO_BYTES_PER_TOKEN, load_model
from classifier.scoring import OverlapScorer, PairScorer
from indexer.store import IndexStore
from indexer.stores.sqlite.store import open_sqlite_store
from service.decisions import PipelineConfig
from service.pipeline import Deduplicator
from service.settings import Settings


class ConfigurationError(Exception):
    """The settings ask for something this build cannot provide."""


def build_store(settings: Settings, create: bool = True) -> IndexStore:
    """Open the configured index (raises IncompatibleIndex / StoreUnavailable); with
    `create=False` a missing index is an error instead of a new empty one."""
    if settings.backend in ("elasticsearch", "opensearch"):
        return _search_engine_store(settings, create)
    if settings.backend != "sqlite":
        raise ConfigurationError(
            f"JOBDEDUP_BACKEND={settings.backend} is not available in this version; "
            "use 'sqlite' (the embedded index), 'elasticsearch' or 'opensearch'"
        )
    store = open_sqlite_store(settings.data_dir, settings.sketch_params(), create=create)
    store.min_free_bytes = settings.min_free_bytes
    return store


def _search_engine_store(settings: Settings, create: bool) -> IndexStore:
    """The search-engine adapter through the engine's own client, its indices named after
    `search_index` (created on first use unless `create` is False). The engine modules are
    imported here: their clients cost 0.5 s of every embedded-index start-up otherwise."""
    from indexer.stores.elastic.client import EngineClient, Transport
    from indexer.stores.elastic.store import ElasticStore
    from indexer.stores.elastic.transports import (
        connect_elasticsearch,
        connect_opensearch,
    )

    if not settings.search_url:
        raise ConfigurationError(
            f"JOBDEDUP_BACKEND={settings.backend} needs JOBDEDUP_SEARCH_URL "
            "(e.g. http://localhost:9200)"
        )
    if settings.backend == "elasticsearch":
        transport: Transport = connect_elasticsearch(settings.search_url, settings.search_timeout)
    else:
        transport = connect_opensearch(settings.search_url, settings.search_timeout)
    try:
        return ElasticStore(
            EngineClient(transport),
            settings.sketch_params(),
            settings.search_index,
            refresh=settings.search_refresh,
            create=create,
            shards=settings.search_shards,
            partitions=settings.search_partitions,
        )
    except BaseException:
        transport.close()
        raise


def build_scorer(settings: Settings) -> PairScorer:
    """The configured pair scorer with its threshold: the trained LightGBM model (default;
    a model whose features do not match the code raises ModelMismatch at start-up) or the
    overlap baseline."""
    if settings.scorer == "overlap":
        if settings.threshold is None:
            return OverlapScorer()
        return OverlapScorer(threshold=settings.threshold)
    return load_model(
        settings.model_dir or DEFAULT_MODEL_DIR,
        threshold=settings.threshold,
        memo_tokens=settings.field_memo_mb * 1_000_000 // MEMO_BYTES_PER_TOKEN,
    )


def build_deduplicator(settings: Settings, create: bool = True) -> Deduplicator:
    """Store + scorer + pipeline configuration, as every entry point needs them."""
    config = PipelineConfig(
        window_days=settings.window_days,
        max_candidates=settings.max_candidates,
        verify_min_overlap=settings.verify_min_overlap,
        merge_threshold=settings.merge_threshold,
        boilerplate=settings.boilerplate,
    )
    return Deduplicator(build_store(settings, create=create), build_scorer(settings), config)
