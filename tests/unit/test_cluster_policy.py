"""The cluster policy's rules, without a store (service.cluster_policy)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from service.cluster_policy import (
    Choice,
    First,
    Scored,
    choose,
    fresh_cluster_id,
    is_snippet,
    plan,
)

DAY0 = datetime(2026, 1, 5, tzinfo=UTC)
THRESHOLD, MERGE = 0.5, 0.8


def scored(
    pid: str, score: float, cluster: str = "", day: int = 0, shingles: int = 100, **kw: bool
) -> Scored:
    return Scored(pid, cluster or f"c-{pid}", score, DAY0 + timedelta(days=day), shingles, **kw)


def test_without_candidates_the_posting_opens_a_cluster() -> None:
    assert choose(100, [], THRESHOLD, MERGE) == Choice(None, None)


def test_below_the_threshold_it_opens_a_cluster_and_reports_the_best_score() -> None:
    choice = choose(100, [scored("a", 0.2), scored("b", 0.49)], THRESHOLD, MERGE)
    assert choice == Choice(None, 0.49)


def test_it_joins_the_best_scoring_candidate() -> None:
    choice = choose(100, [scored("a", 0.6), scored("b", 0.9), scored("c", 0.5)], THRESHOLD, MERGE)
    assert choice.match is not None and choice.match.id == "b"
    assert choice.best_score == 0.9


def test_equal_scores_go_to_the_earliest_posted() -> None:
    choice = choose(100, [scored("late", 0.7, day=3), scored("early", 0.7, day=1)], 0.5, 0.8)
    assert choice.match is not None and choice.match.id == "early"


def test_other_clusters_link_at_the_merge_threshold_best_first() -> None:
    candidates = [
        scored("match", 0.95, "c1"),
        scored("weak", 0.79, "c2"),  # joins nothing: under the merge threshold
        scored("at", 0.8, "c3"),
        scored("strong", 0.9, "c4"),
        scored("same", 0.9, "c1"),  # the match's own cluster is not a link
    ]
    choice = choose(100, candidates, THRESHOLD, MERGE)
    assert [s.id for s in choice.linkers] == ["strong", "at"]


def test_a_merge_threshold_under_the_threshold_is_raised_to_it() -> None:
    candidates = [scored("match", 0.9, "c1"), scored("b", 0.45, "c2"), scored("c", 0.55, "c3")]
    choice = choose(100, candidates, THRESHOLD, 0.1)
    assert [s.id for s in choice.linkers] == ["c"]


def test_a_snippet_joins_its_match_and_links_nothing() -> None:
    """A posting under PARTIAL_RATIO of its match's shingles bridges no clusters."""
    candidates = [scored("full", 0.99, "c1", shingles=300), scored("other", 0.95, "c2")]
    choice = choose(100, candidates, THRESHOLD, MERGE)
    assert choice.match is not None and choice.match.id == "full"
    assert choice.linkers == ()


def test_a_candidate_the_posting_is_a_snippet_of_links_nothing() -> None:
    candidates = [
        scored("match", 0.99, "c1"),
        scored("long", 0.95, "c2", shingles=300),
        scored("peer", 0.9, "c3", shingles=120),
    ]
    choice = choose(100, candidates, THRESHOLD, MERGE)
    assert [s.id for s in choice.linkers] == ["peer"]


def test_candidates_only_found_across_languages_never_bridge() -> None:
    across_match = [scored("t", 0.99, "c1", across=True), scored("b", 0.95, "c2")]
    choice = choose(100, across_match, THRESHOLD, MERGE)
    assert choice.match is not None and choice.match.id == "t" and choice.linkers == ()
    across_linker = [scored("a", 0.99, "c1"), scored("t", 0.95, "c2", across=True)]
    assert choose(100, across_linker, THRESHOLD, MERGE).linkers == ()


def test_snippet_boundary_is_partial_ratio() -> None:
    assert is_snippet(59, 100) and not is_snippet(60, 100) and not is_snippet(100, 59)


def test_the_oldest_cluster_survives() -> None:
    firsts = {
        "c2": First("p2", DAY0 + timedelta(days=2)),
        "c1": First("p1", DAY0 + timedelta(days=1)),
        "c3": First("p3", DAY0 + timedelta(days=3)),
    }
    result = plan({"c3", "c1", "c2"}, firsts)
    assert (result.survivor, result.absorbed, result.duplicate_of) == ("c1", ("c2", "c3"), "p1")


def test_a_cluster_without_another_member_goes_last() -> None:
    """The posting's own cluster (nobody else in it) is absorbed by one with older members."""
    result = plan({"mine", "theirs"}, {"theirs": First("t", DAY0)})
    assert (result.survivor, result.absorbed, result.duplicate_of) == ("theirs", ("mine",), "t")
    alone = plan({"mine"}, {})
    assert (alone.survivor, alone.absorbed, alone.duplicate_of) == ("mine", (), None)


def test_ties_between_clusters_go_by_id_and_between_members_by_id() -> None:
    firsts = {"cb": First("pb", DAY0), "ca": First("pz", DAY0)}
    result = plan({"cb", "ca"}, firsts)
    assert (result.survivor, result.absorbed, result.duplicate_of) == ("ca", ("cb",), "pb")


@given(
    st.dictionaries(
        st.text("abc", min_size=1, max_size=3),
        st.one_of(st.none(), st.integers(0, 5)),
        min_size=1,
        max_size=8,
    )
)
def test_a_plan_covers_every_linked_cluster_once(days: dict[str, int | None]) -> None:
    firsts = {
        c: First(f"p-{c}", DAY0 + timedelta(days=d)) for c, d in days.items() if d is not None
    }
    result = plan(days, firsts)
    assert sorted((result.survivor, *result.absorbed)) == sorted(days)
    if firsts:
        assert result.survivor in firsts
        oldest = min(f.posted_at for f in firsts.values())
        assert firsts[result.survivor].posted_at == oldest


def test_a_fresh_cluster_takes_the_posting_id_or_a_free_suffix() -> None:
    taken = {"p", "p~2"}
    assert fresh_cluster_id("q", None, taken.__contains__) == "q"
    assert fresh_cluster_id("p", None, taken.__contains__) == "p~3"
    assert fresh_cluster_id("p", "p", taken.__contains__) == "p"


def test_a_posting_joins_no_cluster_holding_a_candidate_it_told_apart() -> None:
    """The join guard: "hub" matches, but the posting scored "town", a member of the same
    cluster, clearly under the threshold; the next joinable candidate decides."""
    hub_only = [scored("hub", 0.95, "c1"), scored("town", 0.01, "c1")]
    assert choose(100, hub_only, THRESHOLD, MERGE) == Choice(None, 0.95)
    elsewhere = [*hub_only, scored("other", 0.7, "c2")]
    choice = choose(100, elsewhere, THRESHOLD, MERGE)
    assert choice.match is not None and choice.match.id == "other"
    assert choice.best_score == 0.95


def test_a_member_scored_just_under_the_threshold_does_not_bar_its_cluster() -> None:
    """Only a clear verdict counts: well under the threshold (`APART` of it)."""
    candidates = [scored("hub", 0.95, "c1"), scored("doubtful", 0.35, "c1")]
    choice = choose(100, candidates, THRESHOLD, MERGE)
    assert choice.match is not None and choice.match.id == "hub"


def test_a_campaign_town_scored_at_half_the_threshold_bars_its_cluster() -> None:
    """A campaign's ads at two communes the gazetteer lacks score about half the threshold
    against each other and high against the campaign's ad at the département: that ad's
    match must not carry the second commune's ad into the first one's cluster."""
    candidates = [scored("departement", 0.8, "c1"), scored("commune", 0.26, "c1")]
    assert choose(100, candidates, THRESHOLD, MERGE) == Choice(None, 0.8)


def test_a_snippet_scored_low_does_not_bar_its_cluster() -> None:
    """A snippet scores low against its full ad by nature, either way round."""
    for shingles in (20, 600):
        candidates = [scored("full", 0.95, "c1"), scored("cut", 0.01, "c1", shingles=shingles)]
        choice = choose(100, candidates, THRESHOLD, MERGE)
        assert choice.match is not None and choice.match.id == "full"


def test_a_told_apart_cluster_is_linked_by_no_other_member() -> None:
    candidates = [
        scored("match", 0.95, "c1"),
        scored("linker", 0.9, "c2"),
        scored("apart", 0.05, "c2"),
    ]
    assert choose(100, candidates, THRESHOLD, MERGE).linkers == ()


def test_a_translation_scored_low_does_not_bar_its_cluster() -> None:
    """A cluster holding the ad and its translation into a third language: the translation,
    found only across languages, scores low against the posting; the ad decides."""
    candidates = [scored("ad", 0.9, "c1"), scored("translated", 0.05, "c1", across=True)]
    choice = choose(100, candidates, THRESHOLD, MERGE)
    assert choice.match is not None and choice.match.id == "ad"
