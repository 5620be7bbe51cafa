"""py3langid's identifier with its byte walk compiled (`indexer._kernels.dfa_visits`).

py3langid walks the text's bytes through a finite automaton in a Python loop (`visit_counts`)
and counts the features it visits in a `Counter`: about 60% of its ~0.35 ms per 300-character
opening. The compiled walk returns the same features in the same order (first visit, as the
`Counter`'s keys) with the same counts, and the scores are computed by the same numpy
expression as py3langid's `_sparse_score`, so every probability is bit-identical
(tests/unit/test_kernels.py compares them). Everything else (encoding, normalisation, aliases,
the answer) is py3langid's own code.

The restricted table is kept row-major in float32 (`set_languages`): py3langid slices its
float16 table by column, which leaves it column-major, so gathering one feature's row reads
45 cache lines and the product converts float16 on the fly. Both conversions are exact
(float16 values are float32 values) and the product stays float32, so the scores stay
bit-identical (3,000 NHS openings compared) at 30 µs instead of 66 µs per opening, for 9 MB
more memory (18 MB in all).

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
        self._automaton = self._arrays()

    def _arrays(self) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64], Any]:
        """The automaton as the kernel reads it: a view of py3langid's own transition bytes
        (38 MB) and the two small tables as arrays."""
        return (
            np.frombuffer(self.tk_nextmove, dtype=np.uint32),
            np.asarray(self._rowbase, dtype=np.int64),
            np.asarray(self.tk_output, dtype=np.int32),
        )

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        """The slots without `_automaton`, rebuilt on load (`__setstate__`): pickled, its view
        was a second copy of the transitions in the disk cache and in every loading process
        (118 MB of cache file before, 87 MB after; 29 MiB less resident once loaded)."""
        _, slots = super().__getstate__()
        return None, {name: value for name, value in slots.items() if name != "_automaton"}

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        for name, value in state[1].items():
            object.__setattr__(self, name, value)
        self._automaton = self._arrays()

    def set_languages(self, langs: list[str] | None = None) -> None:
        """py3langid's restriction, its table then made row-major float32 (see above)."""
        super().set_languages(langs)
        table = np.ascontiguousarray(self.nb_ptc, dtype=np.float32)
        object.__setattr__(self, "nb_ptc", table)  # a slot of py3langid's class

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
