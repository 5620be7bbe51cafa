"""Board re-post habits (classifier.board_habits) and the both-sided hard negatives."""

from __future__ import annotations

import random

import pytest

from classifier import board_habits, mutations, variants
from classifier.features import contract_comparison
from classifier.fields import extract_fields
from indexer.text import normalise_title
from tests.classifier.postings import DEVELOPER_FR, NURSE_EN

FR = variants.Context(language="fr")
EN = variants.Context(language="en")


@pytest.mark.parametrize("seed", range(12))
def test_contract_in_title_keeps_the_key_and_never_contradicts_the_text(seed: int) -> None:
    decorated = board_habits.contract_in_title(DEVELOPER_FR, random.Random(seed), FR)
    assert decorated["title"] != DEVELOPER_FR["title"]
    assert normalise_title(decorated["title"]) == normalise_title(DEVELOPER_FR["title"])
    conflict, _ = contract_comparison(extract_fields(decorated), extract_fields(DEVELOPER_FR))
    assert conflict != 1.0  # the ad says CDI, temps plein: "(CDD)" or "Temps partiel" never


def test_contract_in_title_skips_what_a_fixed_term_text_contradicts() -> None:
    cdd = {**DEVELOPER_FR, "description": "Un CDD de 6 mois, temps partiel. " * 5}
    assert board_habits.contract_in_title(cdd, random.Random(1), FR) == cdd


def test_coarser_location_names_an_area_holding_the_town() -> None:
    ad = {**DEVELOPER_FR, "location": "07 - ANNONAY"}
    seen = {
        board_habits.coarser_location(ad, random.Random(seed), FR)["location"] for seed in range(30)
    }
    assert {"Ardeche", "Auvergne Rhone Alpes", "France"} <= {s.split(",")[0] for s in seen}


INTRO = (
    "Riverside NHS Trust provides acute and community care to half a million people, and "
    "we are proud of what our teams achieve together."
)


def test_rewrite_intro_keeps_the_job_text() -> None:
    posting = {**NURSE_EN, "description": f"{INTRO}\n\n{NURSE_EN['description']}"}
    rewritten = board_habits.rewrite_intro(posting, random.Random(3), EN)
    old = variants.paragraphs(posting["description"])
    new = variants.paragraphs(rewritten["description"])
    assert new[0] != old[0]
    assert new[1:] == old[1:]


def test_rewrite_intro_keeps_a_first_paragraph_stating_the_vacancy() -> None:
    # "An exciting opportunity has arisen for a Band 5 Staff Nurse ...": a grade and the
    # title, no intro; nor is "The post can be based at Maidstone or Canterbury."
    assert board_habits.rewrite_intro(NURSE_EN, random.Random(3), EN) == NURSE_EN
    bases = "The post can be based at Maidstone or Canterbury."
    posting = {**NURSE_EN, "description": f"{bases}\n\n{NURSE_EN['description']}"}
    assert board_habits.rewrite_intro(posting, random.Random(3), EN) == posting


def test_rewrite_intro_leaves_a_text_whose_first_paragraph_is_the_ad() -> None:
    # single-spaced lines with boilerplate appended: the "first paragraph" is the whole ad
    ad_text = "\n".join(variants.paragraphs(str(NURSE_EN["description"])))
    text = f"{ad_text}\n\nWe are an equal opportunities employer.\n\nWe offer a pension."
    padded = {**NURSE_EN, "description": text}
    assert board_habits.rewrite_intro(padded, random.Random(3), EN) == padded


def test_unnamed_employer_drops_the_company_field_only() -> None:
    assert NURSE_EN.get("company")
    unnamed = board_habits.unnamed_employer(NURSE_EN, random.Random(0), EN)
    assert "company" not in unnamed
    assert unnamed == {k: v for k, v in NURSE_EN.items() if k != "company"}
    assert board_habits.unnamed_employer(unnamed, random.Random(0), EN) == unnamed


def test_habits_leave_some_copies_without_an_employer() -> None:
    """`classifier.pairs` passes positives and hard negatives alike through `with_habits`,
    so one side without an employer is seen with both labels; about 12% of copies."""
    kept = [
        "company" in board_habits.with_habits(NURSE_EN, random.Random(seed), EN)
        for seed in range(200)
    ]
    assert 0 < kept.count(False) < 60


def test_salary_line_is_added_only_where_no_pay_is_stated() -> None:
    no_pay = {**NURSE_EN, "description": "Join our ward team. " * 10}
    no_pay.pop("salary", None)
    added = board_habits.drop_sentence_add_salary(no_pay, random.Random(2), EN)
    assert "Salary" in added["description"]
    stated = board_habits.drop_sentence_add_salary(DEVELOPER_FR, random.Random(2), FR)
    assert stated["description"].count("€") == DEVELOPER_FR["description"].count("€")


def test_two_copies_of_one_ad_state_one_salary() -> None:
    """Drawn afresh for each copy, the line gave one vacancy two salaries ("£46,000"
    against "£31,000"): 108 re-posts of one training draw, 43 of them missed."""
    no_pay = {**NURSE_EN, "description": "Join our ward team. " * 10}
    no_pay.pop("salary", None)
    lines = {
        board_habits.drop_sentence_add_salary(no_pay, random.Random(seed), EN)["description"].split(
            "\n"
        )[-1]
        for seed in range(8)
    }
    assert len(lines) == 1 and extract_fields({**no_pay, "description": lines.pop()}).salary


def test_a_copy_that_left_the_salary_field_out_gains_no_other_salary() -> None:
    """The ad states its pay in its field; the copy that lost the field (`restate_fields`)
    still advertises that pay, so a line of another amount would contradict the other copy."""
    copy = {**NURSE_EN, "description": "Join our ward team. " * 10}
    copy.pop("salary", None)
    ctx = variants.Context(language="en", pay="£24,907 - £30,615 per annum")
    added = board_habits.drop_sentence_add_salary(copy, random.Random(2), ctx)
    assert extract_fields(added).salary is None


@pytest.mark.parametrize(
    "salary",
    [
        "£43,000 per annum (£20 per hour)",
        "£31,365 - £37,890 pa + £2,162 LW",
        "£34,500.00 plus £5,000 Welcome Bonus",
        "£11.20 per hour",
        "£14.49 per hour with 20% night enhancement",
        "£24,907 - £30,615 per annum",
    ],
)
def test_a_restated_salary_is_the_same_pay(salary: str) -> None:
    """`restate_fields` re-wrote "£38,890 - £44,503 pro rata + 5% HCAS" as "£38890 -
    £44503 - £5 a year" and "£11.20 per hour" as "£11.20 a year": 146 re-posts of one draw
    stated two salaries."""
    pay = extract_fields({**NURSE_EN, "salary": salary}).salary
    checked = 0
    for seed in range(40):
        ad = {**NURSE_EN, "salary": salary}
        restated = variants.restate_fields(ad, random.Random(seed), EN)
        if restated.get("salary"):
            assert extract_fields(restated).salary == pay, restated["salary"]
            checked += 1
    assert checked  # the salary was kept (restated or as written) on some seeds


@pytest.mark.parametrize("seed", range(12))
def test_other_contract_states_terms_on_both_sides(seed: int) -> None:
    donors = mutations.Donors(locations=(), titles=(), employers=())
    made = mutations.other_contract(NURSE_EN, random.Random(seed), donors)
    assert made is not None
    a, b = (extract_fields(p) for p in made)
    conflict, _ = contract_comparison(a, b)
    engagement = (a.title_contract ^ b.title_contract) & {"bank", "locum", "agency", "volunteer"}
    assert conflict == 1.0 or engagement


@pytest.mark.parametrize("seed", range(8))
def test_other_seniority_states_two_levels(seed: int) -> None:
    donors = mutations.Donors(locations=(), titles=(), employers=())
    made = mutations.other_seniority(NURSE_EN, random.Random(seed), donors)
    assert made is not None
    a, b = (extract_fields(p) for p in made)
    assert a.seniority and b.seniority and a.seniority != b.seniority


@pytest.mark.parametrize("seed", range(20))
def test_other_seniority_states_each_level_once_in_a_stated_title_line(seed: int) -> None:
    """A text opening with "Job Title: <title>" gets each side's title there once, also when
    the text's other mentions of the title are raised too (no "Senior Senior Staff Nurse")."""
    donors = mutations.Donors(locations=(), titles=(), employers=())
    posting = {
        **NURSE_EN,
        "title": "Staff Nurse",
        "description": "Job Title: Staff Nurse\nWe need a Staff Nurse for our ward.\n"
        + str(NURSE_EN["description"]),
    }
    made = mutations.other_seniority(posting, random.Random(seed), donors)
    assert made is not None
    for side in made:
        first_line = str(side["description"]).split("\n", 1)[0]
        assert first_line == f"Job Title: {side['title']}"


def test_relabelled_title_only_where_the_label_is_not_already_the_title() -> None:
    labelled = {**DEVELOPER_FR, "extra": {"occupation": "Développeur / Développeuse web"}}
    assert board_habits.relabelled_title(labelled) == "Développeur / Développeuse web"
    relayed = {**labelled, "title": "DEVELOPPEUR / DEVELOPPEUSE WEB (H/F)"}
    assert board_habits.relabelled_title(relayed) is None  # already the relay's title
    assert board_habits.relabelled_title(DEVELOPER_FR) is None  # no label


def test_without_occupation_drops_only_the_label() -> None:
    labelled = {**DEVELOPER_FR, "extra": {"occupation": "Développeur web", "other": 1}}
    assert board_habits.without_occupation(labelled)["extra"] == {"other": 1}
    assert board_habits.without_occupation(DEVELOPER_FR) == DEVELOPER_FR


def test_habits_read_the_place_in_the_title_the_employer_wrote() -> None:
    """A copy whose title a board decorated with its listing's town ("Data analyst -
    Noisiel") over a text naming no place stays under that town or an area holding it;
    read from the decorated title, `nearby_commune` moved it to a neighbouring town."""
    from classifier import gazetteer

    copy = {"id": "x", "title": "Data analyst - Noisiel", "description": "Vous analysez.",
            "location": "Noisiel"}  # fmt: skip

    def towns(written: str | None) -> set[str]:
        found = set()
        for seed in range(300):
            moved = board_habits.with_habits(copy, random.Random(seed), FR, True, written)
            place = gazetteer.resolve(str(moved["location"]))
            if place is not None and place.level in ("town", "district"):
                found.add(place.name)
        return found

    assert towns("Data analyst") == {"Noisiel"}
    assert towns(None) - {"Noisiel"}  # the copy's own title: moved
