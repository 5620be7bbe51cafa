"""The sentence stating a cover post, and whether the other ad kept it
(classifier.cover_sentences, feature cover_sentence_kept)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from classifier.cover_sentences import cover_sentences, is_cut, kept_share
from classifier.features import FEATURE_NAMES, pair_features
from classifier.fields import extract_fields
from classifier.words import sorted_unique, trigram_hashes, words
from tests.classifier.postings import NURSE_EN

NOT_CUT = np.empty(0, dtype=np.int64)
"""The tail of a text that ends its last sentence (`PostingFields.tail_grams`)."""

OPENING = (
    "An exciting opportunity has arisen for a Band 5 Staff Nurse to join our busy surgical "
    "ward at Riverside Hospital."
)


def _kept(a: dict[str, Any], b: dict[str, Any]) -> float:
    return float(pair_features(a, b)[FEATURE_NAMES.index("cover_sentence_kept")])


def _with(description: str) -> dict[str, Any]:
    return {**NURSE_EN, "id": "cover", "description": description}


def test_the_sentence_is_found_and_its_cover_phrase_left_out() -> None:
    text = "We are a friendly team. We seek a nurse to cover maternity leave in our ward. Apply."
    ((grams, opening),) = cover_sentences(text)
    sentence = words("We seek a nurse to cover maternity leave in our ward")
    every = set(trigram_hashes(sentence).tolist())
    outside = set(trigram_hashes(sentence[:5]).tolist()) | set(
        trigram_hashes(sentence[8:]).tolist()
    )
    assert set(grams.tolist()) <= every
    assert set(grams.tolist()) >= outside
    assert len(grams) == len(every) - 4  # the 3-grams holding "maternity" or "leave"
    assert np.all(np.diff(grams) > 0)
    # the opening: the 3-grams that end before "maternity", "to cover" included
    assert set(opening.tolist()) == set(trigram_hashes(sentence[:6]).tolist())


def test_numbered_phrases_count_and_a_bare_phrase_is_no_sentence() -> None:
    assert len(cover_sentences("The role is offered on a 12 months contract within our team.")) == 1
    assert cover_sentences("Fixed term - 3 months.\nWe are a friendly team.") == ()
    assert cover_sentences("A permanent post in a friendly team, full time.") == ()


def test_kept_share_is_the_best_sentence_and_nan_without_one() -> None:
    other = sorted_unique(trigram_hashes(words("we seek a nurse to join our ward")))
    kept = cover_sentences("We seek a nurse to join our ward on a fixed term basis.")
    assert 0.5 < kept_share(kept, other, NOT_CUT) <= 1.0
    assert math.isnan(kept_share((), other, NOT_CUT))


def test_a_copy_cut_inside_the_sentence_lost_it_one_ending_a_sentence_there_edited_it() -> None:
    """An aggregator's snippet ends mid-sentence, before the cover phrase: it kept the
    sentence's opening only, which is no edit (share 0). A copy that ends a sentence there
    ("… to join our ward.") edited it, as before."""
    sentences = cover_sentences("We seek a nurse to join our ward on a fixed term basis.")
    snippet = "We seek a nurse to join our…"
    grams = sorted_unique(trigram_hashes(words(snippet)))
    assert 0.3 < kept_share(sentences, grams, NOT_CUT) < 1.0  # read without where it ends
    assert kept_share(sentences, grams, extract_fields(_with(snippet)).tail_grams) == 0.0
    edited = "We seek a nurse to join our ward."
    assert extract_fields(_with(edited)).tail_grams.size == 0
    assert is_cut(snippet) and is_cut("We seek a nurse to join our ...") and not is_cut(edited)


def test_an_aggregator_s_snippet_cut_before_the_cover_phrase_keeps_nothing() -> None:
    full = _with(
        NURSE_EN["description"].replace(OPENING, OPENING[:-1] + " to cover maternity leave.")
    )
    cut_at = full["description"].index(" to cover maternity leave")
    snippet = _with(full["description"][:cut_at] + "…")
    assert _kept(full, snippet) == 0.0
    assert _kept(snippet, full) == 0.0
    assert _kept(full, _with(full["description"][:cut_at] + ".")) >= 0.6  # an edit


def test_fields_read_the_sentences_only_of_ads_stating_a_cover() -> None:
    assert extract_fields(NURSE_EN).cover_sentences == ()
    edited = _with(
        NURSE_EN["description"].replace("Hospital.", "Hospital to cover maternity leave.", 1)
    )
    assert len(extract_fields(edited).cover_sentences) == 1


def test_an_edited_announcement_keeps_the_sentence_a_lost_sentence_does_not() -> None:
    edited = _with(
        NURSE_EN["description"].replace(OPENING, OPENING[:-1] + " to cover maternity leave.")
    )
    assert _kept(edited, NURSE_EN) >= 0.6
    assert _kept(NURSE_EN, edited) == _kept(edited, NURSE_EN)
    added = _with(
        NURSE_EN["description"] + "\n\nThis post is offered to cover maternity leave until March."
    )
    assert _kept(added, NURSE_EN) <= 0.1  # the silent ad is the re-post that lost it


def test_nan_when_no_side_states_a_cover_alone() -> None:
    assert math.isnan(_kept(NURSE_EN, NURSE_EN))
    both = _with(NURSE_EN["description"] + " This post is a maternity cover for a year of leave.")
    assert math.isnan(_kept(both, both))


def test_a_side_stating_a_permanent_post_is_no_silence() -> None:
    """ "Staff Nurse - Permanent" against the fixed-term version of one text states two
    contracts (`contract_conflict`); read as a silence, the fixed-term sentence the permanent
    ad lacks looked like a re-post's lost sentence (FEATURE_VERSION 50)."""
    fixed = _with(
        NURSE_EN["description"] + "\n\nThis post is offered to cover maternity leave until March."
    )
    fixed["title"] = "Staff Nurse - Fixed Term"
    silent = {**NURSE_EN, "title": "Staff Nurse"}
    permanent = {**NURSE_EN, "title": "Staff Nurse - Permanent"}
    assert _kept(fixed, silent) <= 0.1  # the silent copy lost the sentence, as before
    assert math.isnan(_kept(fixed, permanent))
    assert math.isnan(_kept(permanent, fixed))
    row = dict(zip(FEATURE_NAMES, pair_features(fixed, permanent).tolist(), strict=True))
    assert row["contract_conflict"] == 1.0 and math.isnan(row["cover_one_sided_full"])
    # a side that offers the post "permanent or fixed term" keeps the silence reading
    either = {**fixed, "title": "Staff Nurse - Permanent or Fixed Term"}
    assert _kept(either, permanent) <= 0.1


def test_the_habit_reads_the_same_in_french() -> None:
    """The same two habits in a French ad: "CDD de 6 mois" put into the announcement, and a
    re-post that lost a whole sentence stating it."""
    base = {
        "id": "fr",
        "title": "Aide-soignant (H/F)",
        "description": (
            "Nous recherchons un aide-soignant pour rejoindre notre équipe de soins à la "
            "clinique du parc.\nVous assurerez les soins d'hygiène et de confort des patients, "
            "en lien avec les infirmiers.\nDiplôme d'État d'aide-soignant exigé."
        ),
        "location": "Lyon",
    }
    edited = {
        **base,
        "id": "fr-edited",
        "description": base["description"].replace(
            "clinique du parc.", "clinique du parc en CDD de 6 mois pour un remplacement."
        ),
    }
    lost = {
        **base,
        "id": "fr-lost",
        "description": base["description"]
        + "\nLe poste est proposé en CDD de 6 mois au sein du pôle de chirurgie.",
    }
    assert _kept(edited, base) >= 0.6
    assert _kept(lost, base) <= 0.1
    # an aggregator's snippet of the lost sentence's ad, cut before "en CDD"
    cut_at = lost["description"].index(" en CDD de 6 mois")
    snippet = {**base, "id": "fr-snippet", "description": lost["description"][:cut_at] + "..."}
    assert _kept(lost, snippet) == 0.0
