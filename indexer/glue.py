"""Words a feed glued together where it dropped a line break: "fournisseursSolutionner",
"MissionsEn tant que", "CDIVos missions", "Lille, FranceDescription de l'entreprise".

France Travail's API relays employers' and partner boards' ads with the line breaks of
their lists and headings deleted, not replaced by anything, and aggregators flatten text
the same way (Trabajo.org's copy of a Talan ad begins "Lille, FranceDescription de
l'entrepriseLe Groupe Talan"). The board's own copy has those lines, so every glued
boundary is one token neither copy shares with the other, five 5-word shingles lost, and
the headings and list items that cut an ad into units (`indexer.sections`) run together:
the Jooble and Trabajo.org copies of that Talan ad in `../shared/data` scored 0.44 against
the threshold 0.45. A glued word is in 222 of the 3,067 French training ads, 2,523 of the
14,431 NHS ads (NHS Jobs also loses the space around inline tags: "contactHayley Baker")
and 8 of the 2,372 EURES ads.

Only a text that shows the habit is repaired: one holding a word made of a lowercase word
of three letters or more and a capitalised one ("travailVous"), which written text hardly
holds ("iPhone", "eLearning" have one letter before the capital).
Elsewhere the names written in camel case ("DevOps", "JavaScript", "SharePoint") stay one
word, as another board writing "Devops" or "Javascript" reads them, and titles, companies
and places, which the index keys, keep their tokens. In such a text a line break goes back
between three lowercase letters and a capitalised word ("MissionsEn", "ProfilQue"), two
capitals and a capitalised word of three letters or more ("CDIVos", "RGPDDescription"; not
"PDFs"), a digit and such a word ("2 x 8Lieu"; not "3D"), a sentence's end and the next
("technologie.Depuis"). A glued heading looks like a camel-case name, so the names of a
glued text whose first part has three lowercase letters are parted with it ("Java
Script"); "DevOps", "BigQuery" (two) are not.

A line break rather than a space, because the feeds dropped line breaks: the headings and
list items come back as units. Where the space lost was a space ("contactHayley"), the line
is cut mid-sentence in every copy alike. Repairing twice changes nothing, and the repair of
a text holds the repair of each of its parts (`indexer.sections.split_units` tokenises an
ad's pieces apart), since a repaired boundary is no longer one.

The index's tokens change only for glued text, so `indexer.text.NORMALISER_VERSION` stays:
an index built before keeps those postings' sketches, and a glued ad sent again after the
upgrade still joins its first copy (all 2,781 glued French and NHS ads of `../shared/data`,
indexed by the previous code and sent again to this one).
"""

from __future__ import annotations

import re
import unicodedata

from indexer._kernels import glued_words

GLUED_TEXT_EVIDENCE = 1
"""Glued words (`glued`) a text must hold to be repaired. One, so that a snippet is
repaired whenever the ad it was cut from is: with 2, the 262-character aggregator snippet
of a glued Veolia ad held one ("entrepriseVous") and stayed glued while its source was
repaired, and their score fell from 0.67 to 0.34 (`bench/robustness.py`, seed 13). Of the
1,457 training ads holding exactly one, the words read are glue ("Job titleClinical Lead",
"attractiveDiplôme"); the few names among them ("typeScript", "devOps", "dataViz") part a
name every copy of that ad parts alike."""


_SCRIPTS = ((0x41, 0x250), (0x370, 0x400), (0x400, 0x530))
"""The Latin, Greek and Cyrillic blocks: the scripts with case of the corpora's languages."""


def _letters(category: str) -> str:
    """The letters of a Unicode category ("Lu", "Ll") in `_SCRIPTS`, as a character-class
    body."""
    return "".join(
        re.escape(chr(code))
        for start, stop in _SCRIPTS
        for code in range(start, stop)
        if unicodedata.category(chr(code)) == category
    )


def _classes() -> bytes:
    """The table `glued_words` reads: 1 for a lowercase letter of `_SCRIPTS`, 2 for a
    capital, 3 for an ASCII digit, 0 for any other code point below the last block's end."""
    table = bytearray(_SCRIPTS[-1][1])
    for start, stop in _SCRIPTS:
        for code in range(start, stop):
            table[code] = {"Ll": 1, "Lu": 2}.get(unicodedata.category(chr(code)), 0)
    table[ord("0") : ord("9") + 1] = b"\x03" * 10
    return bytes(table)


_UPPER = _letters("Lu")
_LOWER = _letters("Ll")
_CLASSES = _classes()
_BOUNDARY = re.compile(
    rf"(?<=[{_LOWER}]{{3}})(?=[{_UPPER}][{_LOWER}])"
    rf"|(?<=[{_UPPER}]{{2}})(?=[{_UPPER}][{_LOWER}]{{2}})"
    rf"|(?<=[0-9])(?=[{_UPPER}][{_LOWER}]{{2}})"
    rf"|(?<=[{_LOWER}][.!?])(?=[{_UPPER}][{_LOWER}])"
)
"""Where a glued text's lines meet (see the module's docstring)."""


def glued(text: str) -> bool:
    """Whether `text` holds `GLUED_TEXT_EVIDENCE` glued words or more: words starting in
    three lowercase letters or more, then a capital and a lowercase letter ("travailVous",
    "l'entrepriseLe"), counted in one compiled pass (`indexer._kernels.glued_words`; the
    regular expression it replaced took 0.04 ms per NHS ad, a few per cent of ingest, since
    every reader of a description strips it)."""
    return glued_words(text, _CLASSES, GLUED_TEXT_EVIDENCE) >= GLUED_TEXT_EVIDENCE


def unglue(text: str) -> str:
    """`text` with a line break at each boundary its feed dropped, if it shows the habit
    (`glued`); otherwise `text` itself."""
    if not glued(text):
        return text
    return _BOUNDARY.sub("\n", text)
