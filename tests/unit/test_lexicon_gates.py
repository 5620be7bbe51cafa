"""Shortcuts in front of costly text readings, each checked against the reading it skips:
a word gate may only skip texts the pattern cannot match, so every phrase the pattern matches
must hold one of its words (the client voice; the contract phrases with a number, whose
words around the number must all be in the text); `norm_each` folds only the words `norm`
would change."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from classifier import lexicon as lx
from classifier.fields import _scan, _tables
from classifier.gazetteer_data import norm, norm_each


@settings(max_examples=500, deadline=None)
@given(st.from_regex(lx.CLIENT_VOICE, fullmatch=True))
def test_every_client_voice_phrase_holds_a_gate_word(phrase: str) -> None:
    assert not lx.CLIENT_VOICE_WORDS.isdisjoint(phrase.split())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["we", "recruit", "for", "our", "a", "client", "group", "nurse"])),
    st.one_of(st.just(""), st.from_regex(lx.CLIENT_VOICE, fullmatch=True)),
)
def test_the_gated_search_reads_what_the_pattern_reads(words: list[str], phrase: str) -> None:
    padded = f" {' '.join(words)}{phrase.rstrip()} "
    tokens = frozenset(padded.split())
    assert lx.client_voice(padded, tokens) == (lx.CLIENT_VOICE.search(padded) is not None)


def test_a_text_without_the_words_is_not_searched() -> None:
    padded = " the team supports service users and their families "
    assert not lx.client_voice(padded, frozenset(padded.split()))
    padded = " nous recrutons pour le compte de notre client un technicien "
    assert lx.client_voice(padded, frozenset(padded.split()))


@settings(max_examples=300, deadline=None)
@given(
    st.sets(
        st.one_of(
            st.sampled_from(["saint", "sainte", "st", "hôpital", "straße", "œuvre", "ﬁle", "ward"]),
            st.text(alphabet=st.characters(categories=["Ll", "Lu", "Lo", "Nd"]), min_size=1),
        )
    )
)
def test_norm_each_is_norm_of_each_word(words: set[str]) -> None:
    assert norm_each(words) == {norm(w) for w in words}


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *("12", "6", "months", "month", "contract", "fixed", "term", "cdd", "de"),
                *("mois", "contrat", "mission", "a", "the", "permanent", "temps", "plein"),
            ]
        ),
        max_size=25,
    )
)
def test_the_numbered_phrases_gate_reads_what_the_pattern_reads(words: list[str]) -> None:
    padded = f" {' '.join(words)} "
    tokens = frozenset(words)
    for table in _tables():
        ungated = dataclasses.replace(table, numbered_parts=((),))  # every text searched
        assert _scan(padded, tokens, table) == _scan(padded, tokens, ungated)
