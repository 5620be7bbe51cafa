"""The boilerplate rules: distinct titles per employer, distinct employers overall."""

from __future__ import annotations

from indexer.boilerplate import (
    COMPANY_TITLES,
    GLOBAL_EMPLOYERS,
    GLOBAL_SCOPE,
    MIN_UNIT_TOKENS,
    UnitCounter,
    Witnesses,
    unit_hash,
    with_added,
)

INTRO = ("acme", "is", "a", "leading", "provider", "of", "widgets")
EEO = ("we", "are", "an", "equal", "opportunity", "employer")
TASKS = ("you", "will", "maintain", "the", "billing", "pipeline")


def verdicts(
    counter: UnitCounter, company: str, title: str, units: list[tuple[str, ...]]
) -> list[bool]:
    """Boilerplate verdict per unit for a posting, then record it (the pipeline's order)."""
    witnesses = Witnesses(company, title)
    hashes = [unit_hash(u) for u in units]
    mask = witnesses.mask(hashes, counter.unit_counts(witnesses.scopes(), hashes))
    counter.observe(witnesses, hashes)
    return mask


def test_short_units_are_never_counted() -> None:
    assert unit_hash(("apply", "now")) is None
    assert unit_hash(INTRO[:MIN_UNIT_TOKENS]) is not None
    assert unit_hash(INTRO) != unit_hash(EEO)


def test_company_text_becomes_boilerplate_at_the_third_distinct_title() -> None:
    counter = UnitCounter()
    assert verdicts(counter, "acme", "data engineer", [INTRO, TASKS]) == [False, False]
    assert verdicts(counter, "acme", "accountant", [INTRO]) == [False]
    assert COMPANY_TITLES == 3
    assert verdicts(counter, "acme", "nurse", [INTRO, TASKS]) == [True, False]


def test_reposts_of_one_job_never_make_its_text_boilerplate() -> None:
    counter = UnitCounter()
    for _ in range(10):
        assert verdicts(counter, "acme", "data engineer", [INTRO, TASKS]) == [False, False]


def test_other_companies_do_not_count_towards_company_scope() -> None:
    counter = UnitCounter()
    verdicts(counter, "acme", "data engineer", [TASKS])
    verdicts(counter, "globex", "accountant", [TASKS])
    assert verdicts(counter, "initech", "nurse", [TASKS]) == [False]


def test_text_shared_by_many_employers_is_global_boilerplate() -> None:
    counter = UnitCounter()
    employers = [f"employer {i}" for i in range(GLOBAL_EMPLOYERS)]
    results = [verdicts(counter, e, "same title", [EEO]) for e in employers]
    assert results[:-1] == [[False]] * (GLOBAL_EMPLOYERS - 1)
    assert results[-1] == [True]
    # and from then on for any employer, including one seen for the first time
    assert verdicts(counter, "brand new", "porter", [EEO]) == [True]


def test_postings_without_company_count_as_their_own_employer_by_title() -> None:
    counter = UnitCounter()
    for title in ("porter", "porter", "porter", "cleaner", "driver"):
        mask = verdicts(counter, "", title, [EEO])
    assert mask == [False]  # three distinct titles < GLOBAL_EMPLOYERS
    assert verdicts(counter, "", "chef", [EEO]) == [True]


def test_statistics_stop_growing_at_the_threshold() -> None:
    witnesses = Witnesses("acme", "chef")
    unit = unit_hash(INTRO)
    assert unit is not None
    company = witnesses.scopes()[1][0]
    saturated_company = {(company, unit): (COMPANY_TITLES, False)}
    assert witnesses.observations([unit], saturated_company) == [(0, unit, witnesses.employer)]
    # a unit that is boilerplate for every employer needs no more rows in any scope
    assert witnesses.observations([unit], {(0, unit): (GLOBAL_EMPLOYERS, False)}) == []


def test_with_added_predicts_the_counts_a_store_will_answer_after_the_writes() -> None:
    """The read-ahead of a group folds the witnesses its earlier postings will write into the
    counts read before the group: it must give what the statistics answer once they are
    written, up to and past the caps, for every posting of a sequence sharing units."""
    postings: list[tuple[str, str, list[tuple[str, ...]]]] = [
        ("acme", "data engineer", [INTRO, EEO, TASKS]),
        ("acme", "accountant", [INTRO, EEO]),
        ("acme", "data engineer", [INTRO, TASKS]),  # a re-post: no new title witness
        ("globex", "analyst", [EEO, INTRO]),
        ("acme", "tester", [INTRO, EEO]),
        ("initech", "analyst", [EEO]),
        ("", "cleaner", [EEO, TASKS]),  # no company: no company scope
        ("umbrella", "nurse", [EEO, INTRO]),
        ("acme", "porter", [INTRO, EEO, TASKS]),
    ]
    before, live = UnitCounter(), UnitCounter()  # the store before the group; as it goes
    for counter in (before, live):
        counter.observe(Witnesses("acme", "chef"), [unit_hash(INTRO)])
    added: dict[tuple[int, int], set[int]] = {}
    for company, title, units in postings:
        witnesses = Witnesses(company, title)
        hashes = [unit_hash(u) for u in units]
        predicted = with_added(
            before.unit_counts(witnesses.scopes(), hashes), added, witnesses.scopes(), hashes
        )
        actual = live.unit_counts(witnesses.scopes(), hashes)
        assert predicted == actual, (company, title)
        assert witnesses.mask(hashes, predicted) == witnesses.mask(hashes, actual)
        rows = witnesses.observations(hashes, predicted)
        live.record(rows)
        for scope, unit, witness in rows:
            added.setdefault((scope, unit), set()).add(witness)
    eeo = unit_hash(EEO)
    assert eeo is not None
    assert live.unit_counts([(GLOBAL_SCOPE, 0)], [eeo])[(GLOBAL_SCOPE, eeo)][0] == GLOBAL_EMPLOYERS
