"""MinHash sketches, LSH band keys and similarity estimates from sketches.

A sketch is M minimums of the shingle set under M seeded permutations of the 64-bit hash
space, computed for all permutations at once with numpy. Each permutation is
``x -> (x XOR r_i) * a_i mod 2**64`` with a random r_i and a random odd a_i: a bijection on
64 bits, so equal slots estimate Jaccard similarity. Shingle hashes are already well mixed,
so two operations suffice: on generated sets the estimation error matched the binomial
standard error sqrt(J(1-J)/M) as closely as a four-operation mix did, at 2.4x the speed.
Sketch values and band keys leave this module as signed 64-bit ints because SQLite INTEGER
and Elasticsearch ``long`` are signed: this is the one place that converts.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from indexer.shingles import ShingleKind, mix, shingle_set
from indexer.text import NORMALISER_VERSION

Sketch = npt.NDArray[np.int64]
HASH_VERSION = 3
"""Version of the shingle hashing, the permutation family and the keys a posting is indexed
under (band keys and `indexer.lookup_keys`); bump on any change to them, so indexes built
before refuse to open instead of silently mis-comparing or missing candidates.
2: band keys combined in numpy (was xxhash per band: 42 calls per posting).
3: lead fingerprints and the company-title key indexed beside the band keys."""
_BAND_SEED = np.uint64(0xD6E8FEB86659FD93)  # mixes the band number in: keys are positional
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_CHUNK_ROWS = 2048  # bounds the temporary (rows x M) matrix to 2 MB per array for M=128


@dataclass(frozen=True)
class SketchParams:
    """Everything that decides the sketch of a text. Stored with every index and checked at open:
    a changed seed, M, shingle or normaliser rule silently breaks every comparison."""

    seed: int = 1
    num_perm: int = 128
    shingle_kind: ShingleKind = "word"
    shingle_size: int = 5
    skip: int = 0
    normaliser_version: int = NORMALISER_VERSION
    bands: int = 42
    rows: int = 3
    hash_version: int = HASH_VERSION

    def __post_init__(self) -> None:
        if self.shingle_kind not in ("word", "skip", "char"):
            raise ValueError(f"unknown shingle kind {self.shingle_kind!r}")
        if self.hash_version != HASH_VERSION:
            raise ValueError(f"hash version {self.hash_version} is not {HASH_VERSION}")
        if self.num_perm < 1 or self.shingle_size < 1 or self.skip < 0:
            raise ValueError("num_perm and shingle_size must be >= 1, skip >= 0")
        if self.bands < 1 or self.rows < 1 or self.bands * self.rows > self.num_perm:
            raise ValueError("bands * rows must be between 1 and num_perm")

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for storage (JSON / index metadata)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SketchParams:
        """Inverse of `to_dict`; unknown keys are an error so a newer index is not misread."""
        return cls(**data)


@lru_cache(maxsize=8)
def permutations(seed: int, num_perm: int) -> tuple[npt.NDArray[np.uint64], ...]:
    """The (xor, odd multiplier) pairs of the M permutations for a seed, built once."""
    rng = np.random.default_rng(seed)
    high = np.iinfo(np.uint64).max
    xor = rng.integers(0, high, size=num_perm, dtype=np.uint64, endpoint=True)
    mul = rng.integers(0, high, size=num_perm, dtype=np.uint64, endpoint=True) | np.uint64(1)
    return xor, mul


def sketch_hashes(hashes: npt.NDArray[np.uint64], params: SketchParams) -> Sketch:
    """MinHash sketch (M signed 64-bit ints) of a set of 64-bit shingle hashes.

    Vectorised over permutations: one (shingles x M) matrix per chunk of shingles, never a
    Python loop over permutations. An empty set gets all-max slots (matches nothing but
    another empty set).
    """
    xor, mul = permutations(params.seed, params.num_perm)
    result = np.full(params.num_perm, np.iinfo(np.uint64).max, dtype=np.uint64)
    for start in range(0, len(hashes), _CHUNK_ROWS):
        mixed = hashes[start : start + _CHUNK_ROWS, None] ^ xor
        mixed *= mul
        np.minimum(result, mixed.min(axis=0), out=result)
    return to_signed(result)


def sketch_tokens(tokens: list[str], params: SketchParams) -> tuple[Sketch, int]:
    """Sketch of a token sequence under `params`, with the size of its shingle set."""
    hashes = shingle_set(tokens, params.shingle_kind, params.shingle_size, params.skip)
    return sketch_hashes(hashes, params), len(hashes)


def to_signed(values: npt.NDArray[np.uint64]) -> Sketch:
    """Reinterpret unsigned 64-bit values as signed (same bits): storage-friendly."""
    return values.astype(np.uint64, copy=False).view(np.int64)


def to_unsigned(values: Sketch) -> npt.NDArray[np.uint64]:
    """Inverse of `to_signed`."""
    return values.astype(np.int64, copy=False).view(np.uint64)


def band_keys(sketch: Sketch, params: SketchParams) -> list[int]:
    """LSH band keys: one signed 64-bit hash per band of `rows` consecutive slots.

    The band number seeds the hash, so keys are positional: equal values in different bands
    never collide on purpose. All bands are hashed at once with a multiply-xor combination
    and a final avalanche (the shingle hash's construction), vectorised over bands. Two
    postings with Jaccard J share at least one key with probability 1 - (1 - J**rows) ** bands.
    """
    used = params.bands * params.rows
    slots = to_unsigned(np.asarray(sketch[:used])).reshape(params.bands, params.rows)
    acc = (np.arange(1, params.bands + 1, dtype=np.uint64) * _BAND_SEED) ^ _GOLDEN
    acc = mix(acc, (slots[:, row] for row in range(params.rows)))
    keys: list[int] = to_signed(acc).tolist()
    return keys


def candidate_probability(jaccard: float, params: SketchParams) -> float:
    """Probability that a pair with this Jaccard shares a band key (the LSH S-curve)."""
    return float(1.0 - (1.0 - jaccard**params.rows) ** params.bands)


def estimate_jaccard(a: Sketch, b: Sketch) -> float:
    """Estimated Jaccard |A∩B|/|A∪B|: the fraction of equal slots (same position only)."""
    if len(a) != len(b):
        raise ValueError("sketches of different sizes cannot be compared")
    return float(np.count_nonzero(a == b)) / len(a)


def overlap_from_jaccard(jaccard: float, size_a: int, size_b: int) -> float:
    """Overlap coefficient |A∩B| / min(|A|, |B|) from a Jaccard estimate and the set sizes.

    |A∩B| = J (|A| + |B|) / (1 + J); clamped to [0, 1] because J is an estimate.
    """
    smaller = min(size_a, size_b)
    if smaller <= 0:
        return 0.0
    intersection = jaccard * (size_a + size_b) / (1.0 + jaccard)
    return max(0.0, min(1.0, intersection / smaller))


def estimate_overlap(a: Sketch, b: Sketch, size_a: int, size_b: int) -> float:
    """Estimated overlap coefficient of two shingle sets from their sketches and sizes."""
    return overlap_from_jaccard(estimate_jaccard(a, b), size_a, size_b)
