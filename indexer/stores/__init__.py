"""Store adapters: the implementations of the ports in `indexer.store`.

`sqlite`: the embedded index (one file per data directory, the zero-setup default).
`elastic`: Elasticsearch or OpenSearch through the engine's own client (production).
Only the composition root (`service.factory`) names an adapter; the pipeline and the
routes see the ports.
"""
