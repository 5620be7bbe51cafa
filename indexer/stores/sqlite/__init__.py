"""The embedded SQLite index: `store.SqliteStore` and the modules it is made of."""
