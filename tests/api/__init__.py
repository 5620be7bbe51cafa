"""API tests: the app built with create_app(Settings(...)) on a real SqliteStore, over HTTP."""
