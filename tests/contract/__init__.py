"""One behavioural suite run against every `IndexStore` adapter (see conftest.STORE_FACTORIES)."""
