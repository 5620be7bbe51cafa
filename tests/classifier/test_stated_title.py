"""The employer's title a text states in its opening lines (`classifier.stated_title`) and
`stated_title_agrees` (FEATURE_VERSION 36): a job centre relays partner boards' ads under its
occupation label, and the text's "POSTE :" line still names the employer's title."""

from __future__ import annotations

import math
import random

import pytest

from classifier.features import FEATURE_NAMES, pair_features
from classifier.mutations import Donors, other_role, other_specialty
from classifier.stated_title import OPENING_CHARS, restate, stated_title

PROFILE = (
    "PROFIL : Profil recherché :\nTitulaire d'un Bac +2/3, vous avez une expérience réussie "
    "d'au moins 3 ans en développement commercial B to B. Nous vous proposons un CDI."
)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        (f"POSTE : Business Developer H/F\n{PROFILE}", "business developer"),
        (f"POSTE : Business Developer Solutions H/F\n{PROFILE}", "business developer solutions"),
        # a feed that glued the lines: the next field's label ends the title
        (f"POSTE : Data Analyst H/F {PROFILE}", "data analyst"),
        ("Job Title: Biomedical Scientist\n\nLocation: Leeds\n\nBand 5", "biomedical scientist"),
        ("Intitulé du poste : Data Engineer (H/F) - CDI\nMissions : ...", "data engineer"),
        # no title line, a contract's "Position:", a title stated too far down
        (PROFILE, ""),
        ("Position: Full time, 37.5 hours\nJob Title follows below.", ""),
        ("x" * OPENING_CHARS + "\nPOSTE : Business Developer H/F", ""),
    ],
)
def test_the_title_an_opening_line_states(text: str, title: str) -> None:
    assert stated_title(text) == title


def test_a_title_line_cut_at_the_bound_is_not_read() -> None:
    text = "a" * (OPENING_CHARS - 20) + "\nPOSTE : Business Developer Solutions H/F\nPROFIL"
    assert stated_title(text) == ""


def test_restate_writes_another_title_in_the_line_and_leaves_other_texts() -> None:
    text = f"POSTE : Business Developer H/F\n{PROFILE}"
    assert restate(text, "Chef de projet (H/F)") == f"POSTE : Chef de projet (H/F)\n{PROFILE}"
    assert restate(PROFILE, "Chef de projet") == PROFILE


LABEL = "Responsable du développement commercial (H/F)"


def _agrees(text_a: str, text_b: str, title_b: str = LABEL) -> float:
    a = {"id": "a", "title": LABEL, "description": text_a, "location": "38 - GRENOBLE"}
    b = {**a, "id": "b", "title": title_b, "description": text_b}
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row["stated_title_agrees"])


def test_two_relays_under_one_label_stating_two_titles_disagree() -> None:
    one = f"POSTE : Business Developer H/F\n{PROFILE}"
    other = f"POSTE : Business Developer Solutions H/F\n{PROFILE}"
    assert _agrees(one, other) == 0.0
    assert _agrees(one, one) == 1.0


def test_one_stated_title_agrees_with_the_other_title_field_or_says_nothing() -> None:
    relay = f"POSTE : Business Developer H/F\n{PROFILE}"
    # the board's own ad under the employer's title, its text without the line
    assert _agrees(relay, PROFILE, title_b="Business Developer (H/F)") == 1.0
    # under another title: the other may be the job centre's label, so unknown
    assert math.isnan(_agrees(relay, PROFILE))
    assert math.isnan(_agrees(PROFILE, PROFILE))


def test_training_roles_of_one_template_state_their_own_titles() -> None:
    posting = {
        "id": "x",
        "title": LABEL,
        "description": f"POSTE : Business Developer H/F\n{PROFILE}",
    }
    donors = Donors(locations=(), titles=("Technicien de maintenance (H/F)",), employers=())
    pair = other_role(posting, random.Random(1), donors)
    assert pair is not None
    assert stated_title(pair[1]["description"]) == "technicien de maintenance"
    first, second = other_specialty(posting, random.Random(1), donors) or (posting, posting)
    assert stated_title(first["description"]) != stated_title(second["description"])
