"""Service configuration: one pydantic-settings class read from `JOBDEDUP_*` variables.

Built only by entry points (CLI commands, `create_app` callers), never at import time, so
tests construct their own `Settings(...)` and nothing reads the environment behind their back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from indexer.minhash import SketchParams
from indexer.shingles import ShingleKind


class Settings(BaseSettings):
    """All knobs of the service, the CLI and the pipeline (env prefix `JOBDEDUP_`)."""

    model_config = SettingsConfigDict(env_prefix="JOBDEDUP_", extra="ignore")

    data_dir: Path = Path("./var")
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    backend: Literal["sqlite", "elasticsearch", "opensearch"] = "sqlite"
    search_url: str | None = None
    search_index: str = Field(default="jobdedup", pattern=r"^[a-z0-9][a-z0-9_.-]{0,200}$")
    search_timeout: float = Field(default=10.0, gt=0, le=300)
    search_refresh: Literal["true", "wait_for"] = "true"
    search_shards: int = Field(default=1, ge=1, le=1024)  # primary shards of new indices
    # `month`: postings go to one index per posted_at month, which retention drops whole
    # (indexer/stores/elastic/partitions.py); `none`: one postings index (the default).
    search_partitions: Literal["none", "month"] = "none"

    scorer: Literal["lightgbm", "overlap"] = "lightgbm"
    model_dir: Path | None = None  # None: the model shipped in classifier/models/default
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    merge_threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    window_days: int = Field(default=60, ge=0, le=36_500)  # ± 100 years: no date overflow
    max_candidates: int = Field(default=50, ge=1, le=1000)
    verify_min_overlap: float = Field(default=0.2, ge=0.0, le=1.0)
    boilerplate: bool = True  # learn boilerplate units and leave them out of sketches
    # Memory for the classifier's memo of candidates' extracted fields (classifier/model.py):
    # a candidate not in it costs a field extraction (~1.75 ms per NHS ad).
    field_memo_mb: int = Field(default=55, ge=1, le=1_000_000)
    # Retention (service/retention.py): postings posted more than this many days ago are
    # deleted by `serve` (at start-up, then every `retention_every_s`) and after `ingest`.
    retention_days: int | None = Field(default=None, ge=1, le=36_500)
    retention_every_s: float = Field(default=3600.0, gt=0, le=86_400 * 7)

    seed: int = 1
    num_perm: int = Field(default=128, ge=8, le=1024)
    shingle_kind: ShingleKind = "word"
    shingle_size: int = Field(default=5, ge=1, le=16)
    skip: int = Field(default=0, ge=0, le=4)
    bands: int = Field(default=42, ge=1)
    rows: int = Field(default=3, ge=1)

    max_body_bytes: int = Field(default=1_000_000, ge=1024)
    max_batch_bytes: int = Field(default=64_000_000, ge=1024)
    log_level: str = "INFO"
    # /ready answers 503 below this much free space where the embedded index lives.
    min_free_bytes: int = Field(default=64_000_000, ge=0)

    # API keys (service/auth.py): comma-separated SCOPE:KEY, and/or a file of such lines.
    # `auto`: keys required when configured; without keys, only a loopback bind may serve.
    # `on`: keys required (start-up fails without any). `off`: anyone is answered, anywhere.
    api_keys: str | None = Field(default=None, repr=False)
    api_keys_file: Path | None = None
    auth: Literal["auto", "on", "off"] = "auto"

    @field_validator("rows")
    @classmethod
    def _bands_fit_sketch(cls, rows: int, info: ValidationInfo) -> int:
        """bands x rows slots must fit in the sketch: checked here so that a bad combination
        is a settings error (CLI exit 2) instead of a ValueError when the store opens."""
        num_perm, bands = info.data.get("num_perm"), info.data.get("bands")
        if num_perm is not None and bands is not None and bands * rows > num_perm:
            raise ValueError(f"bands * rows = {bands * rows} exceeds num_perm = {num_perm}")
        return rows

    def sketch_params(self) -> SketchParams:
        """The sketch parameters these settings select (checked against the index at open)."""
        return SketchParams(
            seed=self.seed,
            num_perm=self.num_perm,
            shingle_kind=self.shingle_kind,
            shingle_size=self.shingle_size,
            skip=self.skip,
            bands=self.bands,
            rows=self.rows,
        )
