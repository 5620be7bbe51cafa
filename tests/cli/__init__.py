"""CLI tests: `jobdedup ingest | export` in-process and as the installed console script."""
