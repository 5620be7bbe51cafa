"""Language of a posting, its stop words, and whether its script separates words with spaces.

Multilingual boards mix EU languages (and some others) in one index; knowing the language lets
the caller drop stop words that would otherwise make unrelated ads look alike, and knowing that
a text is Chinese, Japanese or Thai lets it switch to character shingles, since those scripts
put no spaces between words and `indexer.text.tokenize` would yield whole phrases as "words".

Everything is deterministic and does no network access. The only I/O is reading the data the
two packages ship inside their wheels, once per process, on first use: the py3langid model
(about 1 s to build; a process grows by 101 MiB reading it back from the disk cache,
numpy included, measured here) and the stopwords-iso lists.
Nothing is loaded at import time.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Protocol, cast

from indexer.disk_cache import cached, fingerprint
from indexer.text import strip_html, tokenize

DETECT_PREFIX_CHARS = 300
"""Characters of (HTML-stripped) text the identifier reads. Its cost grows with the bytes it
walks, so a bound keeps every posting's cost bounded. Measured on 1,500 NHS ads and the 2,372
EURES ads: at 100 characters 70 NHS ads got no answer, at 200 two, at 300 none; at 300 the
answer matched the whole text's on 98% of EURES ads (the rest are Cypriot ads whose Greek
opening is followed by English boilerplate) and was right for every ad written in its
country's language; 500 characters gained nothing and cost 0.49 ms per ad instead of 0.31."""

MIN_LETTERS = 3
"""Fewer letters than this (in the prefix) and there is nothing to identify: None."""

MIN_CONFIDENCE = 0.5
"""Normalised probability the best language needs; below it, None. At 0.5 the winner outweighs
every other candidate together. Measured on ad prefixes of 15-100 characters, accuracy of the
answers kept plateaus from 0.5 upwards (0.95-0.98) while coverage keeps falling, because the
remaining errors are confident ones (a title in another language than the body); below 0.5
accuracy drops fast (single words such as "Nurse" or "Java developer" score 0.07-0.13)."""

CANDIDATE_LANGUAGES: tuple[str, ...] = (
    # The 24 official languages of the EU.
    *("bg", "cs", "da", "de", "el", "en", "es", "et", "fi", "fr", "ga", "hr"),
    *("hu", "it", "lt", "lv", "mt", "nl", "pl", "pt", "ro", "sk", "sl", "sv"),
    # Regional and EEA languages that job boards in Europe carry.
    *("ca", "eu", "gl", "cy", "is", "no", "sq", "tr", "uk", "ru"),
    # Major languages of workers and employers from elsewhere.
    *("ar", "zh", "ja", "ko", "hi", "th", "vi", "id", "fa", "he"),
    # py3langid's "not a language" class (numbers, markup, identifiers): answered with None.
    "zxx",
)
"""Languages the identifier may answer, a subset of py3langid's 139.

Why restrict (measured with `detect_language` as it is): with all 139, 135 of 265 Croatian
EURES ads came out as Bosnian ("bs") and 21 more got no answer, and 8 of 1,500 NHS ads got no
answer. With this set, Bosnian, Serbian and Macedonian (near-identical siblings of hr and bg)
and Luxembourgish (a de/nl look-alike: "Verpleegkundige" scores 0.22 "lb") left out, every one
of the 1,979 ads from PL LV HR EE PT HU RO LT BG written in the country's language got that
language but one whose opening is a URL (None), and the other 106 (English, German, French,
Swedish ads) got theirs. It also keeps answers ISO 639-1: the full model has 3-letter codes
("pcm", "ary", "ltg")."""


class _Identifier(Protocol):
    """The part of py3langid's `LanguageIdentifier` used here (the package has no types)."""

    def classify(self, text: str) -> tuple[str, float]: ...


_NO_LANGUAGE = "zxx"
_LOCK = threading.Lock()
_identifier: _Identifier | None = None

_NON_LETTER = re.compile(r"[\W\d_]+")
# Scripts written without spaces between words: Thai, Lao, Tibetan, Myanmar, Khmer, CJK
# radicals and ideographs (with the iteration and numeral signs), Hiragana, Katakana (with
# its extensions and the half-width forms), CJK compatibility ideographs and extension planes.
NO_SPACE_SCRIPT = re.compile(
    "[\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\u2e80-\u2fdf\u3005-\u3007"
    "\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua9e0-\ua9ff\uaa60-\uaa7f\uf900-\ufaff\uff66-\uff9d"
    "\U00020000-\U0003134f]"
)


def _get_identifier() -> _Identifier:
    """The process's identifier, built on first use under a lock (double-checked), so that
    threads racing on the first call load the model once. After `set_languages` it is only
    read: `classify` allocates its score arrays per call, so sharing it between threads is
    safe."""
    global _identifier
    identifier = _identifier
    if identifier is None:
        with _LOCK:
            identifier = _identifier
            if identifier is None:
                key = fingerprint(
                    [Path(__file__), Path(__file__).with_name("language_model.py")],
                    ["py3langid", "numpy"],
                )
                _identifier = identifier = cached("language-model", key, _load_identifier)
    return identifier


def _load_identifier() -> _Identifier:
    """py3langid's model restricted to `CANDIDATE_LANGUAGES`, its byte walk compiled
    (`indexer.language_model`): 1.0 s to inflate (LZMA) and build, 0.13 s to read back from
    the disk cache (`indexer.disk_cache`, an 87 MB file)."""
    from py3langid.langid import MODEL_FILE

    from indexer.language_model import CompiledIdentifier

    model = CompiledIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    model.set_languages(list(CANDIDATE_LANGUAGES))
    return cast(_Identifier, model)


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of the language `text` is written in, or None when unsure.

    `text` is a raw title or description (HTML is stripped from the window read); pass it
    before accent folding, which removes much of the evidence. Only the first
    `DETECT_PREFIX_CHARS` characters of the stripped text are read, so the cost is bounded
    (median 0.35 ms, p99 0.6 ms per NHS or EURES ad on this machine). None when
    the prefix has fewer than `MIN_LETTERS` letters, looks like no language at all (numbers,
    codes, URLs), or the best language's normalised probability is below `MIN_CONFIDENCE`.
    """
    # Strip a window four times the prefix: markup in it shrinks to the visible text.
    sample = strip_html(text[: 4 * DETECT_PREFIX_CHARS])[:DETECT_PREFIX_CHARS]
    letters = _NON_LETTER.sub("", sample)
    if len(letters) < MIN_LETTERS:
        return None
    if 2 * sum(map(str.isupper, letters)) > len(letters):
        # The model knows mixed-case text; py3langid lowercases only text with no lowercase
        # letter at all, so one e-mail address left an all-caps ad unidentified.
        sample = sample.lower()
    language, confidence = _get_identifier().classify(sample)
    if language == _NO_LANGUAGE or confidence < MIN_CONFIDENCE:
        return None
    return language


def stop_words(language: str) -> frozenset[str]:
    """Stop words of an ISO 639-1 language ("fr", "FR" and "fr-BE" alike), folded into our
    tokens; empty for a language without a list.

    The lists come from stopwords-iso, passed through `indexer.text.tokenize`, so they match
    tokens as the index sees them: "être" gives "etre", "l'" gives "l", "aujourd'hui" gives
    "aujourd" and "hui". Note that the English list (1,298 words) is broad: it holds words
    such as "work", "information" or "research" that can matter in a job ad.
    """
    return _stop_words(language.strip().lower().replace("_", "-").split("-")[0])


@lru_cache(maxsize=256)  # bounded: the code comes from callers
def _stop_words(code: str) -> frozenset[str]:
    import stopwordsiso

    words: set[str] = set()
    for entry in stopwordsiso.stopwords(code):
        # The Greek list spells delta as U+2206 INCREMENT, a math symbol that tokenize splits on.
        words.update(tokenize(entry.replace("\u2206", "\u0394")))
    return frozenset(words)
