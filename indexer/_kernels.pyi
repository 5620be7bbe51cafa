"""Types of the compiled kernels (`indexer/_kernels.pyx`)."""

from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

def unit_minimums(
    shingles: npt.NDArray[np.uint64],
    owners: npt.NDArray[np.intp],
    unit_count: int,
    xor: npt.NDArray[np.uint64],
    mul: npt.NDArray[np.uint64],
) -> npt.NDArray[np.uint64]: ...
def dfa_visits(
    nextmove: npt.NDArray[np.uint32],
    rowbase: npt.NDArray[np.int64],
    output: npt.NDArray[np.int32],
    data: bytes,
    seen: npt.NDArray[np.int32],
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]: ...
def mark_keys(bits: npt.NDArray[np.uint8], keys: npt.NDArray[np.int64]) -> None: ...
def run_matches(
    runs: list[npt.NDArray[np.int64]], query: npt.NDArray[np.int64], bits: npt.NDArray[np.uint8]
) -> list[tuple[int, int, int, int]]: ...
def count_live(
    spans: list[Sequence[npt.NDArray[np.int64]]],
    posted: npt.NDArray[np.int64],
    since: int,
    until: int,
    at_most: int,
) -> list[int]: ...
def set_counts(
    key_runs: list[npt.NDArray[np.int64]],
    witness_runs: list[npt.NDArray[np.int32]],
    directories: list[npt.NDArray[np.int64]],
    query: npt.NDArray[np.int64],
    own: npt.NDArray[np.int32],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8]]: ...

_Values = TypeVar("_Values", npt.NDArray[np.int32], npt.NDArray[np.int64])

def bucket_sort(
    keys: npt.NDArray[np.int64], values: _Values, bits: int
) -> tuple[npt.NDArray[np.int64], _Values, npt.NDArray[np.int64]]: ...
def layout_marks(text: str, limit: int) -> str: ...
def ascii_anchor_words(text: str, names: bool) -> set[str]: ...
def glued_words(text: str, classes: bytes, at_most: int) -> int: ...
