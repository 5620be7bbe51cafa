"""Training pairs and analysts' labels for the feedback-effect tests: the labels contradict
the generated ones on one recognisable pattern, so a model that learns from them must score
that pattern differently."""

from __future__ import annotations

import random
from typing import Any

from classifier.corpora import Ad
from classifier.pairs import PairExample, PairPlan, Synthesiser
from tests.classifier.postings import synthetic_ads

PLAN = PairPlan(positives=120, mutations=120, boilerplate=15, random=25)
TOWNS = ("Carlisle CA1 1AA", "Truro TR1 2AB", "Hull HU1 3CD")
MOVED = 10
"""Moved copies labelled duplicate: enough, at weight 3, to outvote the generated pairs."""


def ads() -> list[Ad]:
    """The fixture ads (hand-made ones first, then 24 synthetic employers)."""
    return synthetic_ads(24)


def training_pairs(seed: int = 11) -> list[PairExample]:
    """Generated pairs of the fixture ads (a few hundred: a fit takes well under a second)."""
    synthesiser = Synthesiser(ads(), random.Random(seed))
    return [synthesiser.finish(raw) for raw in synthesiser.build(PLAN)]


def moved(document: dict[str, Any], number: int) -> dict[str, Any]:
    """The same ad, word for word, at another town: generated pairs call this another vacancy
    (a location mutation); the analysts here say it is the same one (say, a remote post)."""
    return {**document, "id": f"moved-{number}", "location": TOWNS[number % len(TOWNS)]}


def feedback_labels() -> list[dict[str, Any]]:
    """`MOVED` moved copies labelled duplicate (against the generated labels), then four
    pairs of two employers' ads labelled not duplicate (agreeing with them), gold format."""
    documents = [ad.document for ad in ads()[4:]]
    contradicting = [
        {"a": d, "b": moved(d, i), "label": "duplicate"} for i, d in enumerate(documents[:MOVED])
    ]
    agreeing = [
        {"a": a, "b": b, "label": "not_duplicate"}
        for a, b in zip(documents[MOVED : MOVED + 4], documents[MOVED + 4 : MOVED + 8], strict=True)
    ]
    return contradicting + agreeing
