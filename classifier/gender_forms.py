"""Job titles written in both grammatical genders, folded to one form for comparison.

Job centres and their relays write occupation titles with both forms ("Vendeur / Vendeuse en
équipement de la maison", "Conducteur collecteur / Conductrice collectrice de lait", "Aide
ménager / ménagère à domicile": France Travail's ROME labels), German boards "Verkäufer/in"
or "Ingenieur/-in", while the employer's own ad says "Vendeur H/F" or "Ménagère/ménager".
`indexer.text.normalise_title` removes gender *markers* ("(H/F)", "m/w/d", "Entwickler*in",
"Chargé(e)"); the second *word* of a double form stays, and made an occupation title look like
another role to the classifier: of 300 French ads re-titled with their job centre's
occupation label (the ads' `extra.appellation`, same text), 0.66 scored as duplicates
(0.43 of the France Travail ones).

Only the classifier's fields fold (`classifier.fields.extract_fields`): the index's title key
is persisted in block keys and stays as it is.

A word after a "/" is dropped when it is the other gender of a word in the segment before the
"/" (or that word is dropped, when it is the longer form): the shorter form, nearly always
the masculine, stays where the first form stood, so "Ménagère/ménager" and "ménager /
ménagère" both read "ménager". Forms are recognised by French endings (-eur/-euse/-rice/
-eresse, -er/-ère, -ien/-ienne, -f/-ve, -x/-se, a final -e, -le, -ne, -te, -sse), those of the
other EURES languages (Spanish and Portuguese -a and -o/-a, German -in, Croatian -ica and
-nik/-nica: "Vendedor / Vendedora", "Verkäufer / Verkäuferin", "SAVJETNIK/SAVJETNICA") and the
German "/in", "/-in", "/innen" when they end the word ("Nurse/In-Patients" stays); nothing
else is touched ("Manager / Management" stays). Labels write the whole phrase twice, so the
second form may repeat the first's words that have one form for both genders ("Secrétaire
administratif / Secrétaire administrative") and continues past a compound's hyphen
("Conducteur-receveur / Conductrice-receveuse").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from indexer.text import fold_accents

_SLASH = re.compile(r"(\s*/\s*-?)")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_GERMAN_FEMININE = frozenset({"in", "innen"})
_MIN_STEM = 3


def fold_gender_forms(title: str) -> str:
    """`title` with the second form of each double-gender word removed (see the module
    docstring); every other "/" and what follows it kept as written."""
    if "/" not in title:
        return title
    pieces = _SLASH.split(title)
    out = pieces[0]
    for separator, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        merged, rest = _merge(out, piece)
        if merged is None:
            out = f"{out}{separator}{piece}"
        else:
            out = f"{merged} {rest}" if rest else merged
    return out


def doubled_words(title: str, folded: str | None = None) -> tuple[str, ...]:
    """The words `title` writes in both genders, each once, as `fold_gender_forms` keeps it
    ("Infirmier / Infirmière de soins généraux" -> ("Infirmier",), "Verkäufer/in" ->
    ("Verkäufer",)); () when it writes none. `folded` is `fold_gender_forms(title)` when the
    caller has it. Job centres write their occupation labels so (France Travail's
    "Vendeur / Vendeuse ...", the Bundesagentur's "(Callcenteragent/in)" that EURES appends
    to German ads' titles), and these are the label's occupation words: what an employer's
    title for the same job names too."""
    folded = fold_gender_forms(title) if folded is None else folded
    if folded == title:
        return ()
    kept = [m.group(0) for m in _WORD.finditer(folded)]
    removed = [m.group(0) for m in _WORD.finditer(title)]
    for word in kept:
        if word in removed:
            removed.remove(word)
    doubled = [w for w in kept if any(is_other_gender(w, r) for r in removed)]
    doubled += [m.group(1) for m in _GERMAN_PAIR.finditer(title)]
    return tuple(dict.fromkeys(doubled))


_GERMAN_PAIR = re.compile(
    rf"([^\W\d_]+)\s*/\s*-?(?:{'|'.join(sorted(_GERMAN_FEMININE, key=len, reverse=True))})"
    r"(?![\w'’-])",
    re.IGNORECASE,
)
"""A word and its German feminine ending after a slash ("Ingenieur/in - Maschinenbau",
"Manager/-in"), as `_merge` reads them; not "Nurse/In-Patients"."""


def _merge(before: str, after: str) -> tuple[str | None, str]:
    """(`before` with any longer form replaced by its shorter one, what is left of `after`
    once its leading other-gender words are taken out); (None, `after`) when `after` does
    not start with one. The second form may repeat words of the first that have one form
    for both genders ("Secrétaire administratif / Secrétaire administrative", "Technico-
    commercial / Technico-commerciale"): they go with it, but only up to its last word
    that is another gender's, so "Data Analyst / Data Scientist" stays whole."""
    words_before = list(_WORD.finditer(before))
    position = taken = 0
    while True:
        match = _WORD.match(after, position)
        if match is None:
            break
        word = match.group(0)
        if (
            words_before
            and position == 0
            and word.casefold() in _GERMAN_FEMININE
            and not after[match.end() : match.end() + 1].startswith(("-", "'", "’"))
        ):  # "/in", not the first part of a compound word ("Nurse/In-Patients")
            position = taken = _next_word(after, match.end())
            continue
        partner = next(
            (m for m in reversed(words_before) if is_other_gender(m.group(0), word)), None
        )
        if partner is None:
            if any(_plain(m.group(0)) == _plain(word) for m in words_before):
                position = _next_word(after, match.end())  # a word of both forms
                continue
            break
        if len(word) < len(partner.group(0)):  # keep the shorter form where the first stood
            before = before[: partner.start()] + word + before[partner.end() :]
            words_before = list(_WORD.finditer(before))
        position = taken = _next_word(after, match.end())
    if taken == 0:
        return None, after
    return before.rstrip(), after[taken:].strip()


def _next_word(text: str, position: int) -> int:
    """Where the word after the one ending at `position` starts: past the spaces, or past
    the hyphen of a compound ("Conductrice-receveuse")."""
    if text[position : position + 1] == "-" and text[position + 1 : position + 2].isalpha():
        return position + 1
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def one_gender(words: Sequence[str], others: Sequence[str]) -> tuple[list[str], list[str]]:
    """Two titles' words with each word that is the other gender of a word of the other
    title replaced by the shorter form: an employer writes "Aide ménagère", the job centre's
    label "Aide ménager / ménagère", folded to "Aide ménager"; one gender on each side is
    the same occupation, and no stemmer joins "ménagère" and "ménager"."""
    shorter: dict[str, str] = {}
    for word in words:
        for other in others:
            if is_other_gender(word, other):
                short, long = sorted((word, other), key=len)
                shorter[long] = short
    if not shorter:
        return list(words), list(others)
    return [shorter.get(w, w) for w in words], [shorter.get(w, w) for w in others]


@lru_cache(maxsize=65536)  # bounded: title words recur, and the title features ask per pair
def is_other_gender(first: str, second: str) -> bool:
    """Whether two words are the two genders of one occupation word, in either order:
    French ("vendeur"/"vendeuse", "ménagère"/"ménager", "technicien"/"technicienne"),
    Spanish and Portuguese ("vendedor"/"vendedora", "enfermeiro"/"enfermeira"), German
    ("Verkäufer"/"Verkäuferin", "Koch"/"Köchin") and Croatian ("savjetnik"/"savjetnica",
    "konobar"/"konobarica"): the endings of the EURES languages' feminine forms."""
    a, b = _plain(first), _plain(second)
    if a == b or not a or not b:
        return False
    short, long = sorted((a, b), key=len)
    if len(short) < _MIN_STEM:
        return False
    added = long[len(short) :] if long.startswith(short) else None
    if added in _FRENCH_ADDED:
        return True
    if len(short) < _MIN_FOREIGN_STEM:  # "CFO/CFA" is two acronyms
        return False
    if added in _OTHER_ADDED:
        return True
    if len(long) == len(short) and short[:-1] == long[:-1]:
        return {short[-1], long[-1]} in _SWAPPED_ENDINGS  # "enfermeiro"/"enfermeira"
    if short.endswith("eur"):
        stem = short[:-3]
        return long in {stem + "euse", stem + "rice", stem + "eresse", stem + "eure"}
    if short.endswith("er"):  # "ménager"/"ménagère", a loan's "manager"/"manageuse"
        return long in {short[:-2] + "ere", short[:-2] + "euse"}
    if short.endswith("f"):
        return long == short[:-1] + "ve"
    if short.endswith("x"):
        return long == short[:-1] + "se"
    if short.endswith("k"):
        return long == short[:-1] + "ca"  # Croatian "-nik" / "-nica"
    return False


_FRENCH_ADDED = frozenset({"e", "ne", "le", "te", "sse"})
"""French feminine forms made by adding to the masculine: -e, after a doubled consonant."""

_OTHER_ADDED = frozenset({"a", "in", "ica"})
"""Feminine forms made by adding to the masculine: Spanish and Portuguese -a, German -in,
Croatian -ica."""

_MIN_FOREIGN_STEM = 4
"""Shortest masculine form for the endings of the other languages (one letter apart from
the masculine, they would also join two acronyms)."""

_SWAPPED_ENDINGS = ({"o", "a"}, {"e", "a"})
"""Feminine forms made by changing the masculine's last vowel (Spanish, Portuguese, Italian)."""


def _plain(word: str) -> str:
    return fold_accents(word.casefold())
