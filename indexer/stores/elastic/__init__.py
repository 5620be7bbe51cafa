"""The search-engine index (Elasticsearch or OpenSearch): `store.ElasticStore` and its parts."""
