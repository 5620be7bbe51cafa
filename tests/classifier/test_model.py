"""Training on a tiny in-test fixture, the artifact round trip, its checks and the scorer."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from classifier.features import FEATURE_NAMES, FEATURE_VERSION, pair_features
from classifier.model import (
    METADATA_FILE,
    MODEL_FILE,
    ClassifierError,
    LightGBMScorer,
    ModelMismatch,
    ModelNotFound,
    load_model,
)
from classifier.pairs import PairExample, PairPlan, Synthesiser
from classifier.provenance import installed_versions
from classifier.scoring import Candidate, PairScorer, candidate_for
from classifier.train import FOLDS, choose_threshold, split, train
from indexer.minhash import SketchParams
from indexer.prepare import prepare_document, to_stored
from indexer.reading import Reading
from tests.classifier.postings import BASE_POSTINGS, NURSE_EN, synthetic_ads

PLAN = PairPlan(positives=120, mutations=120, boilerplate=15, random=25)


def _fixture_pairs(seed: int = 11) -> list[PairExample]:
    synthesiser = Synthesiser(synthetic_ads(24), random.Random(seed))
    return [synthesiser.finish(raw) for raw in synthesiser.build(PLAN)]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("classifier")
    feedback = [{"a": NURSE_EN, "b": {**NURSE_EN, "id": "fb"}, "label": "duplicate"}]
    metrics = train(
        root / "model",
        seed=3,
        pairs=_fixture_pairs(),
        data_dir=root,
        workers=1,
        feedback_pairs=feedback,
    )
    return root / "model", metrics


def test_training_writes_a_small_artifact_with_metadata(
    trained: tuple[Path, dict[str, Any]],
) -> None:
    directory, metrics = trained
    assert (directory / MODEL_FILE).stat().st_size < 1_000_000
    metadata = json.loads((directory / METADATA_FILE).read_text())
    assert metadata["feature_names"] == list(FEATURE_NAMES)
    assert metadata["feature_version"] == FEATURE_VERSION
    assert 0.0 < metadata["threshold"] < 1.0
    assert metadata["threshold_rule"]
    assert metadata["version"] == metrics["version"]
    assert len(metadata["training_data_sha256"]) == 64
    assert metadata["libraries"] == installed_versions()
    assert {"lightgbm", "pycountry", "reverse-geocode", "python"} <= set(metadata["libraries"])
    assert metrics["held_out"]["roc_auc"] > 0.8
    assert metrics["pairs"]["total"] == len(_fixture_pairs()) + 1


def test_training_is_reproducible(trained: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    directory, _ = trained
    feedback = [{"a": NURSE_EN, "b": {**NURSE_EN, "id": "fb"}, "label": "duplicate"}]
    train(
        tmp_path / "again",
        seed=3,
        pairs=_fixture_pairs(),
        data_dir=tmp_path,
        workers=1,
        feedback_pairs=feedback,
    )
    assert (tmp_path / "again" / MODEL_FILE).read_bytes() == (directory / MODEL_FILE).read_bytes()


def test_save_load_round_trip_gives_identical_predictions(
    trained: tuple[Path, dict[str, Any]],
) -> None:
    directory, _ = trained
    first, second = load_model(directory), load_model(directory)
    matrix = np.vstack([pair_features(a, b) for a in BASE_POSTINGS for b in BASE_POSTINGS])
    np.testing.assert_array_equal(first.predict(matrix), second.predict(matrix))
    assert first.version == second.version


def _candidates(
    query_doc: dict[str, Any], others: list[dict[str, Any]]
) -> tuple[Any, list[Candidate]]:
    params = SketchParams()
    query = prepare_document(query_doc, params)
    candidates = []
    for document in others:
        prepared = prepare_document(document, params)
        candidates.append(candidate_for(query, to_stored(prepared, prepared.id)))
    return query, candidates


def test_scorer_scores_all_candidates_in_one_predict(
    trained: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    scorer = load_model(trained[0])
    _: PairScorer = scorer  # satisfies the protocol
    assert scorer.name == "lightgbm"
    copy = {**NURSE_EN, "id": "copy", "title": "Staff Nurse - Band 5 (m/w/d)"}
    moved = {**NURSE_EN, "id": "moved", "location": "Hitchin SG5 1AB", "title": "Bank Nurse"}
    query, candidates = _candidates(NURSE_EN, [copy, moved, *BASE_POSTINGS[1:]])
    calls: list[int] = []
    predict = scorer.booster.predict

    def counting(data: Any, **kwargs: Any) -> Any:
        calls.append(len(data))
        return predict(data, **kwargs)

    monkeypatch.setattr(scorer.booster, "predict", counting)
    scores = scorer.score(query, candidates)
    assert calls == [len(candidates)]
    assert len(scores) == len(candidates)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores[0] == max(scores)
    assert scorer.score(query, []) == []


def test_a_candidate_found_in_the_field_memo_is_not_evicted_before_it_is_scored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pipeline loads a candidate's document only if `wanted_documents` asks for it, so a
    memoised candidate must survive the query's own fields entering a full memo (the shipped
    model: it reads the fields a document-less candidate would lack)."""
    monkeypatch.setattr("classifier.model.FIELD_CACHE_SIZE", 2)
    scorer = load_model()
    first, [candidate] = _candidates(NURSE_EN, [{**NURSE_EN, "id": "repost"}])
    scorer.score(first, [candidate])  # memo: first, repost
    scorer.fields(first)  # memo: repost, first (repost is now the oldest)
    second, [full] = _candidates({**NURSE_EN, "id": "second"}, [{**NURSE_EN, "id": "repost"}])
    bare = Candidate(replace(full.posting, document={}), full.jaccard, full.overlap)
    expected = load_model().score(second, [full])  # a fresh memo reads the document
    assert scorer.wanted_documents([bare]) == set()  # memoised: no document needed
    assert scorer.score(second, [bare]) == expected


def test_explain_lists_contributions(trained: tuple[Path, dict[str, Any]]) -> None:
    scorer = load_model(trained[0])
    query, candidates = _candidates(NURSE_EN, [{**NURSE_EN, "id": "c"}])
    explanation = scorer.explain(query, candidates[0], top=5)
    assert len(explanation) == 5
    assert all(item.feature in FEATURE_NAMES for item in explanation)
    magnitudes = [abs(item.contribution) for item in explanation]
    assert magnitudes == sorted(magnitudes, reverse=True)
    description_equal = next(
        (
            i
            for i in scorer.explain(query, candidates[0], top=len(FEATURE_NAMES))
            if i.feature == "description_equal"
        ),
    )
    assert description_equal.value == 1.0
    assert scorer.explain_pair(NURSE_EN, {**NURSE_EN, "id": "c"}, top=3)[0].feature in FEATURE_NAMES


def _copy_artifact(source: Path, target: Path, **changes: Any) -> Path:
    target.mkdir()
    (target / MODEL_FILE).write_bytes((source / MODEL_FILE).read_bytes())
    metadata = json.loads((source / METADATA_FILE).read_text())
    (target / METADATA_FILE).write_text(json.dumps({**metadata, **changes}))
    return target


def test_feature_mismatch_is_refused(trained: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    source = trained[0]
    renamed = [*FEATURE_NAMES[:-1], "something_else"]
    with pytest.raises(ModelMismatch, match="something_else"):
        load_model(_copy_artifact(source, tmp_path / "names", feature_names=renamed))
    with pytest.raises(ModelMismatch, match="feature version"):
        load_model(_copy_artifact(source, tmp_path / "version", feature_version=-1))
    reordered = [FEATURE_NAMES[1], FEATURE_NAMES[0], *FEATURE_NAMES[2:]]
    with pytest.raises(ModelMismatch):
        load_model(_copy_artifact(source, tmp_path / "order", feature_names=reordered))


def test_other_package_versions_than_trained_with_are_logged_at_load(
    trained: tuple[Path, dict[str, Any]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The artifact's features come partly from packages (the gazetteer from pycountry): a
    process running other versions says so once, and still loads the model."""
    source = trained[0]
    recorded = json.loads((source / METADATA_FILE).read_text())["libraries"]
    with caplog.at_level("WARNING", logger="classifier.model"):
        load_model(source)
    assert not caplog.records
    older = {**recorded, "pycountry": "22.3.5"}
    with caplog.at_level("WARNING", logger="classifier.model"):
        scorer = load_model(_copy_artifact(source, tmp_path / "older", libraries=older))
    assert isinstance(scorer, LightGBMScorer)
    [record] = caplog.records
    assert f"pycountry 22.3.5 -> {recorded['pycountry']}" in record.getMessage()


def test_missing_artifact(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFound):
        load_model(tmp_path)
    assert issubclass(ModelMismatch, ClassifierError)
    assert issubclass(ModelNotFound, ClassifierError)


def test_threshold_override(trained: tuple[Path, dict[str, Any]]) -> None:
    assert load_model(trained[0], threshold=0.9).threshold == 0.9
    assert isinstance(load_model(trained[0]), LightGBMScorer)


def test_split_keeps_groups_together() -> None:
    pairs = _fixture_pairs()
    train_idx, held_idx = split(pairs, seed=3)
    held_groups = {g for i in held_idx for g in pairs[i].groups}
    train_groups = {g for i in train_idx for g in pairs[i].groups}
    assert held_groups.isdisjoint(train_groups)
    assert set(train_idx).isdisjoint(held_idx)


def test_each_employer_is_held_out_by_exactly_one_fold() -> None:
    pairs = _fixture_pairs()
    held_by_fold = [set(split(pairs, seed=3, fold=f)[1]) for f in range(FOLDS)]
    assert split(pairs, seed=3, fold=0) == split(pairs, seed=3)
    groups_by_fold = [{g for i in held for g in pairs[i].groups} for held in held_by_fold]
    for f, groups in enumerate(groups_by_fold):
        assert groups, f"fold {f} holds out no employer"
        for other in groups_by_fold[f + 1 :]:
            assert groups.isdisjoint(other)

    def fold_of(group: str) -> int:
        alone = [replace(pairs[0], groups=(group, group))]
        return next(f for f in range(FOLDS) if split(alone, seed=3, fold=f)[1])

    whole = {i for i, p in enumerate(pairs) if len({fold_of(g) for g in p.groups}) == 1}
    assert set().union(*held_by_fold) == whole  # a pair across two folds' groups is never held


def test_the_threshold_is_chosen_on_every_folds_held_out_pairs(
    trained: tuple[Path, dict[str, Any]],
) -> None:
    pairs = _fixture_pairs()
    pooled = sum(len(split(pairs, seed=3, fold=f)[1]) for f in range(FOLDS))
    assert trained[1]["pairs"]["held_out"] == trained[1]["held_out"]["n"] == pooled
    assert pooled > len(split(pairs, seed=3)[1])
    assert trained[1]["pairs"]["train"] == trained[1]["pairs"]["total"]  # the artifact: all


def test_choose_threshold_maximises_f1() -> None:
    labels = np.array([0, 0, 0, 1, 1, 1])
    scores = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    threshold = choose_threshold(labels, scores)
    assert 0.3 < threshold <= 0.7
    assert threshold == pytest.approx(0.5)


def test_choose_threshold_takes_the_middle_of_a_flat_optimum() -> None:
    # 100 re-posts at 0.9, then a look-alike and a hard re-post twice (0.7 / 0.6, 0.3 / 0.2):
    # the thresholds 0.8, 0.45, 0.25 and 0.1 all reach within 0.005 of the best F1. The
    # edges of such a range move from one training run to the next; its middle is kept.
    labels = np.array([1] * 100 + [0, 1, 0, 1])
    scores = np.array([0.9] * 100 + [0.7, 0.6, 0.3, 0.2])
    assert choose_threshold(labels, scores) == pytest.approx(0.45)


def test_the_field_cache_is_bounded_by_the_tokens_it_holds() -> None:
    # Large ads must not pin gigabytes: entries are evicted by tokens held, not only count.
    from dataclasses import replace

    from classifier.fields import extract_fields
    from classifier.model import _FieldCache

    fields = extract_fields({"title": "Nurse", "description": "Band 5 nurse for our ward."})
    cache = _FieldCache(size=100, tokens=1_000)
    cache.put(("a", "1"), replace(fields, description_length=600))
    cache.put(("b", "1"), replace(fields, description_length=300))
    assert cache.get(("a", "1")) is not None
    cache.put(("c", "1"), replace(fields, description_length=300))  # 1,200 + overhead > 1,000
    assert cache.get(("b", "1")) is None  # least recently used goes first ("a" was read)
    assert cache.get(("a", "1")) is not None and cache.get(("c", "1")) is not None
    cache.put(("huge", "1"), replace(fields, description_length=50_000))
    assert cache.get(("huge", "1")) is not None  # the newest entry always stays
    assert cache.get(("a", "1")) is None


def test_the_memo_budget_comes_from_the_settings() -> None:
    from service.factory import build_scorer
    from service.settings import Settings

    default = build_scorer(Settings())
    larger = build_scorer(Settings(field_memo_mb=370))
    assert isinstance(default, LightGBMScorer) and isinstance(larger, LightGBMScorer)
    assert default._fields._tokens == 55_000_000 // 37
    assert larger._fields._tokens == 10_000_000 and larger._fields._size == 10_000_000 // 180


def test_the_query_fields_take_the_prepared_reading_and_candidates_read_their_own() -> None:
    """Language and anchors are read once where a posting is prepared (`indexer.reading`):
    the query's fields take them from the prepared posting, a candidate read back from the
    index reads its document, and both give the same fields for the same ad."""
    scorer = load_model()
    query, [candidate] = _candidates(NURSE_EN, [{**NURSE_EN, "id": "repost"}])
    mine, theirs = scorer.fields(query, remember=False), scorer.fields(candidate.posting, False)
    for name in mine.__dataclass_fields__:
        a, b = getattr(mine, name), getattr(theirs, name)
        assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b, name
    stated = Reading("de", frozenset({"berlin"}))
    fields = scorer.fields(replace(query, reading=stated), remember=False)
    assert (fields.language, fields.anchors) == ("de", frozenset({"berlin"}))
    assert scorer.fields(candidate.posting, remember=False).language == "en"


def test_a_candidate_stored_with_its_language_is_scored_without_identifying_it(
    trained: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`to_stored` keeps the reading's language; a candidate read back with it is scored as
    before, and the language identifier does not run for it."""
    query, [candidate] = _candidates(NURSE_EN, [{**NURSE_EN, "id": "repost", "title": "Nurse"}])
    assert candidate.posting.language == "en"
    expected = load_model(trained[0]).score(query, [candidate])

    def refuse(opening: str) -> str | None:
        raise AssertionError("the language was identified again")

    monkeypatch.setattr("indexer.reading._detected", refuse)
    scorer = load_model(trained[0])
    scorer.fields(query)  # the query's reading came with its preparation
    assert scorer.score(query, [candidate]) == expected
