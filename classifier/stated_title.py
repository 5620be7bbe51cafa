"""The employer's title an ad's text states in its opening lines ("POSTE : Business
Developer H/F", "Job Title: Staff Nurse"), read where a board's title field is not the
employer's.

A job centre relays partner boards' ads under its occupation label: 255 of the 1,450 Pôle
emploi partner ads open with "POSTE : <the employer's title>" under a label that is, in all
but 12, another wording ("Responsable du développement commercial" over "POSTE : Business
Developer H/F"; "Cuisiniste" over "POSTE : Technicien Commande H/F"). Two such relays under
one label are two vacancies when their texts state two titles: the French export joined a
job centre's "Business Developer" and "Business Developer Solutions" at each of 24 towns
(model 9d1f18856ea4, 0.473 against the threshold 0.471), labels equal and texts sharing
their profile paragraph. NHS texts do it too ("Job Title: Biomedical Scientist", 183 of the
14,842 ads, 91 of them in other words than the title field), and 19 of the 1,584 France
Travail ones. Pure.
"""

from __future__ import annotations

import re

from classifier.gender_forms import fold_gender_forms
from indexer.text import normalise_title

_STATED = re.compile(
    r"^[ \t\-•*]*(?:job\s+title|post\s+title|title\s+of\s+post|poste|intitul[ée]"
    r"(?:\s+du\s+poste)?|titre\s+du\s+poste)[ \t]*:[ \t]*"
    r"(\S[^\n]{0,118}?)[ \t]*(?=$|\s(?:profil|description)\s*:)",
    re.IGNORECASE | re.MULTILINE,
)
"""A line opening with a title's label, the title after it, to the line's end or to the next
field's label where a feed glued the lines ("POSTE : Data Analyst H/F PROFIL : …"). French
"Poste :" is that label in the corpora's opening lines (not a contract: "Type de poste"
never opens a line there); "Position:" is left out, NHS texts write "Position: Full time"."""

OPENING_CHARS = 400
"""How far into the text the line may start: a title stated further down is a paragraph's
("Poste : vous assurez…" in a duties list), not the ad's heading."""


def stated_title(text: str) -> str:
    """The title key (`indexer.text.normalise_title`, gender forms folded, as the title
    field's) of the title the text's opening lines state; empty when they state none."""
    match = _opening(text)
    return normalise_title(fold_gender_forms(match[1])) if match else ""


def restate(text: str, title: str) -> str:
    """`text` with the title its opening lines state replaced by `title`: what an employer's
    template filled in for another role says (training's other-role negatives); `text`
    itself when it states none."""
    match = _opening(text)
    if match is None:
        return text
    return text[: match.start(1)] + title + text[match.end(1) :]


def _opening(text: str) -> re.Match[str] | None:
    """The stated-title line within `OPENING_CHARS`, whole (not cut at that bound)."""
    head = text[:OPENING_CHARS]
    match = _STATED.search(head)
    if match is None or (match.end(1) == len(head) and len(text) > len(head)):
        return None
    return match
