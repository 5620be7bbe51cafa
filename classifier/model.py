"""The trained pair scorer: load/save of the LightGBM artifact, checks, scoring, explanations.

An artifact is a directory with `model.txt` (LightGBM's text format: diffable, portable
across platforms and library versions) and `metadata.json` (feature names and version,
threshold and how it was chosen, training data hash, metrics, library versions, seeds).
Loading refuses an artifact whose features differ from the code's: LightGBM reads columns by
position, so a renamed or reordered feature would silently score garbage.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import lightgbm as lgb
import numpy as np

from classifier import gazetteer
from classifier.features import (
    FEATURE_NAMES,
    FEATURE_VERSION,
    FeatureMatrix,
    candidate_features,
    pair_features,
)
from classifier.fields import PostingFields, extract_fields
from classifier.provenance import version_differences
from classifier.scoring import Candidate, Contribution, Remember
from indexer.minhash import SketchParams
from indexer.prepare import PreparedPosting
from indexer.store import StoredPosting

logger = logging.getLogger(__name__)

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent / "models" / "default"
MODEL_FILE = "model.txt"
METADATA_FILE = "metadata.json"
FIELD_CACHE_SIZE = 8192
"""Extracted fields kept per scorer: candidates recur across queries (an employer's open
vacancies are everyone's candidates), and extraction costs more than scoring."""
FIELD_CACHE_TOKENS = 1_500_000
"""...and at most this many description tokens behind them: an entry costs about 35 bytes per
token (token sets, shingle arrays: 0.33 MB for a 60 kB ad of 9,267 tokens, tracemalloc), so
8,192 entries of large ads held over 1 GB after one 61 MB batch. 1.5M tokens are about 55 MB,
3,800 NHS ads of median length (397 tokens)."""
_ENTRY_OVERHEAD_TOKENS = 50  # sets and arrays cost something even for a short ad
MEMO_BYTES_PER_TOKEN = 37
"""What a memoised description token costs in memory (`FIELD_CACHE_TOKENS`), to turn a
memory budget (`JOBDEDUP_FIELD_MEMO_MB`) into tokens, chosen so that the default 55 MB is the
former 1.5M tokens; 8M tokens added 284 MB of peak RSS in `bench/growth.py` (35.5 a token)."""
MEMO_TOKENS_PER_ENTRY = 180
"""Entries allowed per memo token budget: about half the median NHS ad (397 tokens), so the
token bound, not the entry count, is what binds."""


class ClassifierError(Exception):
    """Base class of every error the classifier package raises."""


class ModelNotFound(ClassifierError):
    """The model directory or one of its files does not exist."""


class ModelMismatch(ClassifierError):
    """The artifact was trained on other features than this code computes."""


class _FieldCache:
    """Least-recently-used map (posting id, content hash) -> extracted fields.

    Keyed by content hash, not by document, so a candidate already extracted needs no
    document at all (`wanted_documents`), and an updated posting is extracted afresh."""

    def __init__(self, size: int, tokens: int = FIELD_CACHE_TOKENS) -> None:
        self._size = size
        self._tokens = tokens
        self._held = 0  # description tokens (plus overhead) of the entries held
        self._items: OrderedDict[tuple[str, str], PostingFields] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _weight(value: PostingFields) -> int:
        return value.description_length + _ENTRY_OVERHEAD_TOKENS

    def get(self, key: tuple[str, str]) -> PostingFields | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def touch(self, key: tuple[str, str]) -> bool:
        """Whether the key is held, marking it recently used: a candidate found here must
        not be evicted before it is scored (the caller then skips loading its document)."""
        with self._lock:
            if key not in self._items:
                return False
            self._items.move_to_end(key)
            return True

    def put(self, key: tuple[str, str], value: PostingFields) -> None:
        with self._lock:
            previous = self._items.pop(key, None)
            if previous is not None:
                self._held -= self._weight(previous)
            self._items[key] = value
            self._held += self._weight(value)
            while len(self._items) > self._size or (
                self._held > self._tokens and len(self._items) > 1
            ):
                _, evicted = self._items.popitem(last=False)
                self._held -= self._weight(evicted)


class LightGBMScorer:
    """`PairScorer` backed by a LightGBM binary classifier over `FEATURE_NAMES`.

    Thread-safe: FastAPI calls `score` from its thread pool; the field cache and predictions
    each go through a lock (a Booster is not documented as safe for concurrent predicts).
    """

    name = "lightgbm"

    def __init__(
        self,
        booster: lgb.Booster,
        metadata: Mapping[str, Any],
        threshold: float | None = None,
        memo_tokens: int = FIELD_CACHE_TOKENS,
    ) -> None:
        self.booster = booster
        self.metadata = dict(metadata)
        self._threshold = float(metadata["threshold"] if threshold is None else threshold)
        self._lock = threading.Lock()
        self._fields = _FieldCache(
            max(FIELD_CACHE_SIZE, memo_tokens // MEMO_TOKENS_PER_ENTRY), memo_tokens
        )

    @property
    def version(self) -> str:
        """The artifact version (content hash prefix of model.txt)."""
        return str(self.metadata["version"])

    @property
    def threshold(self) -> float:
        """Probability at or above which a pair is a duplicate (from the metadata unless
        overridden)."""
        return self._threshold

    def fields(
        self, posting: PreparedPosting | StoredPosting, remember: bool = True
    ) -> PostingFields:
        """Extracted fields of a posting, memoised by (id, content hash) unless `remember`
        is False; a posting not in the memo must carry its document."""
        key = (posting.id, posting.content_hash)
        found = self._fields.get(key)
        if found is None:
            if not posting.document:
                raise ValueError(f"posting {posting.id}: fields not memoised and no document")
            if isinstance(posting, PreparedPosting):
                found = extract_fields(
                    posting.document, posting.reading, index_title_key=posting.title_key
                )
            else:
                found = extract_fields(
                    posting.document,
                    known_language=posting.language,
                    index_title_key=posting.block_key.partition("|")[2],
                )
            if remember:
                self._fields.put(key, found)
        return found

    def _extractor(
        self, query: PreparedPosting, remember: Remember
    ) -> Callable[[PreparedPosting | StoredPosting], PostingFields]:
        """`fields`, keeping only what `remember` names as indexed."""
        if remember == "all":
            return self.fields
        if remember == "none":
            return partial(self.fields, remember=False)
        return lambda posting: self.fields(posting, remember=posting is not query)

    def wanted_documents(self, candidates: Sequence[Candidate]) -> set[str]:
        """Candidates whose fields are not memoised yet."""
        return {
            c.posting.id
            for c in candidates
            if not self._fields.touch((c.posting.id, c.posting.content_hash))
        }

    def score(
        self,
        query: PreparedPosting,
        candidates: Sequence[Candidate],
        *,
        remember: Remember = "all",
    ) -> list[float]:
        """Duplicate probability of each candidate, from one predict call for all of them.
        Fields already memoised are used whatever `remember` says; only the postings it
        names as indexed are added."""
        if not candidates:
            return []
        matrix = candidate_features(query, candidates, self._extractor(query, remember))
        return [float(p) for p in self.predict(matrix)]

    def predict(self, matrix: FeatureMatrix) -> np.ndarray[Any, np.dtype[np.float64]]:
        """Probabilities for a feature matrix (rows in `FEATURE_NAMES` column order)."""
        with self._lock:
            result = self.booster.predict(matrix, num_threads=1)
        return np.asarray(result, dtype=np.float64)

    def explain(
        self,
        query: PreparedPosting,
        candidate: Candidate,
        top: int = 8,
        *,
        remember: Remember = "all",
    ) -> list[Contribution]:
        """The `top` features by absolute contribution to the candidate's log-odds (LightGBM's
        SHAP values, `pred_contrib=True`), largest first (`remember` as for `score`)."""
        row = candidate_features(query, [candidate], self._extractor(query, remember))
        return self._explain_row(row, top)

    def explain_pair(
        self,
        a: Mapping[str, Any],
        b: Mapping[str, Any],
        top: int = 8,
        params: SketchParams | None = None,
    ) -> list[Contribution]:
        """`explain` for two posting dicts (evaluation and debugging)."""
        return self._explain_row(pair_features(a, b, params).reshape(1, -1), top)

    def _explain_row(self, row: FeatureMatrix, top: int) -> list[Contribution]:
        with self._lock:
            contributions = np.asarray(
                self.booster.predict(row, pred_contrib=True, num_threads=1), dtype=np.float64
            )[0]
        order = np.argsort(-np.abs(contributions[: len(FEATURE_NAMES)]), kind="stable")
        return [
            Contribution(FEATURE_NAMES[i], float(row[0, i]), float(contributions[i]))
            for i in order[:top]
        ]


def load_model(
    directory: Path = DEFAULT_MODEL_DIR,
    threshold: float | None = None,
    memo_tokens: int = FIELD_CACHE_TOKENS,
) -> LightGBMScorer:
    """Load an artifact directory, checking its features against the code.

    Raises `ModelNotFound` if files are missing and `ModelMismatch` if the feature names,
    their order or `FEATURE_VERSION` differ from this code's.
    """
    model_file, metadata_file = directory / MODEL_FILE, directory / METADATA_FILE
    if not model_file.is_file() or not metadata_file.is_file():
        raise ModelNotFound(
            f"no model artifact in {directory} (need {MODEL_FILE}, {METADATA_FILE})"
        )
    metadata = json.loads(metadata_file.read_text(encoding="utf-8"))
    check_compatible(metadata)
    booster = lgb.Booster(model_file=str(model_file))
    if tuple(booster.feature_name()) != FEATURE_NAMES:
        raise ModelMismatch(f"{model_file} was trained on other feature columns than the code")
    differences = version_differences(metadata.get("libraries", {}))
    if differences:
        changed = (f"{name} {was} -> {now}" for name, (was, now) in sorted(differences.items()))
        logger.warning(
            "model %s was trained with other package versions than are installed (%s): its "
            "features may differ from training; `make install` installs the trained ones",
            metadata.get("version"),
            ", ".join(changed),
        )
    gazetteer.index()  # the place features need it: built now (about 1 s), not by a request
    return LightGBMScorer(booster, metadata, threshold, memo_tokens)


def check_compatible(metadata: Mapping[str, Any]) -> None:
    """Raise `ModelMismatch` unless the metadata's features are exactly the code's."""
    names = tuple(metadata.get("feature_names", ()))
    version = metadata.get("feature_version")
    if version != FEATURE_VERSION:
        raise ModelMismatch(
            f"model was trained with feature version {version}, the code computes version "
            f"{FEATURE_VERSION}: retrain with `make model`"
        )
    if names != FEATURE_NAMES:
        missing = sorted(set(FEATURE_NAMES) - set(names))
        extra = sorted(set(names) - set(FEATURE_NAMES))
        raise ModelMismatch(
            "model feature names differ from the code's "
            f"(missing {missing}, unexpected {extra}, or a different order): retrain"
        )


def save_model(booster: lgb.Booster, metadata: Mapping[str, Any], directory: Path) -> str:
    """Write `model.txt` and `metadata.json` into `directory` (created if needed); returns the
    artifact version, the first 12 hex digits of the model text's SHA-256, also recorded in
    the metadata (so /ready and metrics name the exact model)."""
    directory.mkdir(parents=True, exist_ok=True)
    model_text = booster.model_to_string()
    version = hashlib.sha256(model_text.encode("utf-8")).hexdigest()[:12]
    (directory / MODEL_FILE).write_text(model_text, encoding="utf-8")
    full = {**metadata, "version": version}
    text = json.dumps(full, indent=2, sort_keys=True, ensure_ascii=False)
    (directory / METADATA_FILE).write_text(text + "\n", encoding="utf-8")
    return version
