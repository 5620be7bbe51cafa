"""py3langid's identifier with its byte walk compiled (`indexer._kernels.dfa_visits`).

py3langid walks the text's bytes through a finite automaton in a Python loop (`visit_counts`)
and counts the features it visits in a `Counter`: about 60% of its ~0.35 ms per 300-character
opening. The compiled walk returns the same features in the same order (first visit, as the
`Counter`'s keys) with the same counts, and the scores are computed by the same numpy
expression as py3langid's `_sparse_score`, so every probability is bit-identical
(tests/unit/test_kernels.py compares them). Everything else (encoding, normalisation, aliases,
the answer) is py3langid's own code.

Imported only when the model is built or read back (`indexer.language`), never at start-up.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import numpy.typing as npt
from py3langid.langid import LanguageIdentifier

from indexer._kernels import dfa_visits

_WORK = threading.local()


class CompiledIdentifier(LanguageIdentifier):  # type: ignore[misc]  # py3langid has no types
    """`LanguageIdentifier` whose `_raw_score` walks the automaton in compiled code."""

    __slots__ = ("_automaton",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._automaton = (
            np.frombuffer(self.tk_nextmove, dtype=np.uint32),
            np.asarray(self._rowbase, dtype=np.int64),
            np.asarray(self.tk_output, dtype=np.int32),
        )

    def _raw_score(self, text: bytes) -> npt.NDArray[np.float32]:
        features, counts = dfa_visits(*self._automaton, text, _seen(len(self.nb_ptc)))
        if not len(features):
            return super()._raw_score(text)  # type: ignore[no-any-return]  # featureless fill
        return np.log1p(counts) @ self.nb_ptc[features] + self.nb_pc  # type: ignore[no-any-return]


def _seen(features: int) -> npt.NDArray[np.int32]:
    """This thread's zeroed per-feature counter (the kernel zeroes what it used): threads of
    the API detect languages concurrently, and the walk runs without the GIL."""
    seen: npt.NDArray[np.int32] | None = getattr(_WORK, "seen", None)
    if seen is None or len(seen) < features:
        seen = np.zeros(features, dtype=np.int32)
        _WORK.seen = seen
    return seen
