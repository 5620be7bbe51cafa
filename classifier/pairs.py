"""Training pairs: real look-alikes and re-posts from the corpora, plus synthetic re-posts and
vacancy-changing mutations of real ads. Reproducible: one seeded `random.Random` drives every
choice, and everything it iterates over is sorted first.

Families (the `kind` of a pair), with the labelling rule of each:
- `real_*`: NHS pairs of one employer that the index would compare (sharing an LSH band,
  overlap >= 0.2) or in one exact-description group, labelled by what differs: another
  normalised title, place of work, salary, grade or contract → not a duplicate; same title,
  place, salary and (nearly) the same text → a re-advertisement, a duplicate. Pairs where the
  fields do not decide (a town written two ways, a retitle of nearly the same text) are
  dropped rather than guessed. Same description at several sites *that the text itself
  lists* is one vacancy offered at any of them, as gold-dev labels it.
- `pos_synthetic`: an ad and a re-post of it (`variants.repost`).
- `pos_occupation_title`: an ad and its job centre's relay under the occupation label the ad
  carries, where that label is not already its title (French ads; `RELABELLED`).
- `mut_*`: an ad made into another vacancy (`mutations`), then re-posted like positives.
- `boilerplate`: two ads of one employer padded with the same boilerplate; `random`: easy.
- `other_text_same_title`: an ad against another real ad of the same normalised title whose
  text shares almost nothing, of any employer (`SAME_TITLE_SHARE`).
- `pos_stub_relay`, `mut_stub_other_*`: a job centre's stub ("En bref : <title>, <keywords>")
  of the ad, or of another vacancy: another title of the employer, the title at another
  site, or another real ad of the title (`STUB_SHARE`; `classifier.stub_relays`).
Cosmetic re-posting is applied to both labels at the same rates, so "was transformed" is no
evidence of duplication; only the vacancy-defining fields are.
"""

from __future__ import annotations

import itertools
import logging
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from classifier import board_habits, mutations, stub_relays, variants
from classifier.corpora import Ad
from classifier.features import contract_comparison, same_pay
from classifier.fields import PostingFields, extract_fields
from classifier.lexicon import ENGAGEMENT, STRONG_CONTRACT
from indexer.minhash import estimate_jaccard, overlap_from_jaccard
from indexer.prepare import PreparedPosting
from indexer.shingles import word_ngram_hashes
from indexer.stub_keys import stub_phrases
from indexer.text import normalise_title, tokenize

logger = logging.getLogger(__name__)

Posting = dict[str, Any]


@dataclass(frozen=True)
class PairExample:
    """A labelled pair (1 = duplicate) with its family and the split groups of its sides."""

    a: Posting
    b: Posting
    label: int
    kind: str
    groups: tuple[str, str]


@dataclass(frozen=True)
class PairPlan:
    """How many pairs of each synthetic family to make per corpus."""

    positives: int
    mutations: int
    boilerplate: int
    random: int


NHS_PLAN = PairPlan(positives=8000, mutations=7000, boilerplate=800, random=800)
EURES_PLAN = PairPlan(positives=2200, mutations=2200, boilerplate=500, random=700)
"""Sizes chosen for about 30k pairs with about a third positive, generated in well under
two minutes on two cores; EURES gets a larger share than its size for language variety."""
FRENCH_PLAN = PairPlan(positives=2600, mutations=2600, boilerplate=300, random=400)
"""The French boards (about 2,900 ads) get about as many pairs as EURES."""
REAL_CAPS = {"real_role": 5500, "real_employer": 2000, "real_location": 2500}
"""Caps on the most frequent real families (the rest are kept whole): they are easy once a
few thousand are seen, and would otherwise push the positive share under a quarter."""
REAL_SAME_TITLE = 1500
LOCATION_LEFT_OUT = 0.03
"""Share of re-posted copies that leave their location out (`Synthesiser._maybe_without_place`)."""
RELABELLED = 0.25
"""Share of the synthetic re-posts of an ad carrying its job centre's occupation label
(French ads) that a job centre relays under that label (`board_habits.occupation_title`),
beyond the board habits every re-post may show. The `other_role` mutations teach the
same text under another title of the employer as another vacancy; without these the model
read the label as one too: 0.35 of the French ads re-titled with their label
(`bench/robustness.py --families occupation_title`) scored as duplicates. Only ads whose
label differs from their title are relayed (`board_habits.relabelled_title`), and a
mutation that changes the title drops the label from both sides
(`board_habits.without_occupation`). With 0.5 instead of 0.25 the relays gained (0.711 →
0.771 of that family) but campaign towns and two trades of one shop joined (gold-dev
precision 1.000 → 0.917). Tried again once `other_role` named its own role
(`mutations.other_role`, model 0cd49e288975): gold-dev held and the relays went 0.787 →
0.834 (`bench/robustness.py --limit 400 --seed 11`), but the real exports gained wrong
pairs: a bakery's "Boulanger" and "Pâtissier" on one text, one training centre's two
subjects, one text's dental nurse posts at Plymouth, Exeter and Truro, "Staff Nurse - Ward 6"
and "- Ward 7"."""
RELAY_VERBATIM = 0.5
"""Share of those relays (`RELABELLED`) whose two sides keep the ad's text as it is: a job
centre relays a board's ad under its label without editing it (the Pôle emploi partner
corpus: 616 of Meteojob's 639 ads under their label). Re-posted like every other pair,
28 of the 139 relays of one draw had one text on both sides, against 634 pairs of another
grade, seniority, specialty or role under one text, and the trees read one text under two
titles as two vacancies: 26 of the 100 relays of `bench/robustness.py --limit
100 --seed 13` (one text, the label as title) scored 0.05-0.44 with model 6025d85c992e."""
STUB_SHARE = 0.04
"""Stub relays (`classifier.stub_relays`) per synthetic positive, and as many stubs of
another vacancy (another title of the employer, or the title at another site): the habit
of 55 of the 1,450 Pôle emploi partner ads."""
SAME_TITLE_SHARE = 0.04
"""Ads against another ad of the same title with almost no shared text
(`Synthesiser._other_text_same_title`), per synthetic positive, half of them with a short
side. The stub relays teach that a short text under one title may relay an ad whose
words it barely shares; the index proposes every posting of a title to a stub
(`indexer.stub_keys`), so the trees must also see short ads of one title that are two
vacancies: with stub relays alone (model 7cd3bc9c34da) two households' "Garde d'enfant à
domicile (H/F)" ads of 60 and 38 words scored 0.714, and 17 of 373 short EURES pairs of this
kind were joined against 7 before."""
SAME_TITLE_MAX_JACCARD = 0.1
"""Word-trigram Jaccard under which two texts of one title are read as two vacancies."""
SHORT_WORDS = 80
MAX_PER_EXACT_GROUP = 30


def real_pairs(
    ads: Sequence[Ad],
    prepared: dict[str, PreparedPosting],
    exact_groups: Sequence[Sequence[str]],
    rng: random.Random,
) -> list[RawPair]:
    """Labelled real pairs (see the module docstring) from one corpus's ads: pairs sharing an
    LSH band or the (company, title) block key, as the index finds them, and pairs from the
    exact-description groups."""
    index = {str(ad.document["id"]): ad for ad in ads}
    candidates: set[tuple[str, str]] = set()
    buckets: dict[tuple[int, int] | str, list[str]] = defaultdict(list)
    for ad_id in sorted(prepared):
        for band, key in enumerate(prepared[ad_id].band_keys):
            buckets[(band, key)].append(ad_id)
        buckets[prepared[ad_id].block_key].append(ad_id)
    for members in buckets.values():
        if 1 < len(members) <= 100:
            candidates.update(itertools.combinations(sorted(members), 2))
    for group in exact_groups:
        members = sorted(m for m in group if m in index)
        combos = list(itertools.combinations(members, 2))
        candidates.update(rng.sample(combos, k=min(len(combos), MAX_PER_EXACT_GROUP)))
    by_kind: dict[str, list[tuple[RawPair, float]]] = defaultdict(list)
    fields: dict[str, PostingFields] = {}
    for left, right in sorted(candidates):
        first, second = prepared[left], prepared[right]
        jaccard = estimate_jaccard(first.sketch, second.sketch)
        overlap = overlap_from_jaccard(jaccard, first.shingle_count, second.shingle_count)
        if overlap < 0.2 and first.block_key != second.block_key:
            continue
        ad_a, ad_b = index[left], index[right]
        for ad_id, ad in ((left, ad_a), (right, ad_b)):
            if ad_id not in fields:
                fields[ad_id] = extract_fields(ad.document)
        verdict = label_real(ad_a, ad_b, fields[left], fields[right], jaccard)
        if verdict is not None:
            label, kind = verdict
            pair = RawPair(ad_a.document, ad_b.document, label, kind, ad_a, ad_b, redate=False)
            by_kind[kind].append((pair, jaccard))
    examples: list[RawPair] = []
    for kind, found in sorted(by_kind.items()):
        kept = rng.sample(found, k=min(REAL_CAPS.get(kind, len(found)), len(found)))
        examples += [pair for pair, _ in kept]
        if kind == "real_role":
            examples += _same_title(kept, rng)
    return examples


def _same_title(kept: Sequence[tuple[RawPair, float]], rng: random.Random) -> list[RawPair]:
    """Two jobs of one employer advertised under the same generic title at the same site
    ("Staff Nurse" for two wards): only the text tells them apart. Made from real pairs of
    different roles whose texts differ enough (Jaccard < 0.6) to be two jobs."""
    sources = [pair for pair, jaccard in kept if jaccard < 0.6 and pair.other is not None]
    made: list[RawPair] = []
    for pair in rng.sample(sources, k=min(REAL_SAME_TITLE, len(sources))):
        first = pair.first
        second = {**pair.second, "title": first["title"], "location": first.get("location")}
        made.append(RawPair(first, second, 0, "real_same_title", pair.ad, pair.other, False))
    return made


def label_real(
    ad_a: Ad, ad_b: Ad, a: PostingFields, b: PostingFields, jaccard: float
) -> tuple[int, str] | None:
    """(label, kind) of a real pair from what differs, or None when the fields do not decide."""
    same_place = a.location_key == b.location_key
    reformatted_place = not same_place and (
        bool(a.postcodes & b.postcodes)
        or (bool(a.location_tokens) and a.location_tokens <= b.location_tokens)
        or (bool(b.location_tokens) and b.location_tokens <= a.location_tokens)
    )
    if ad_a.group != ad_b.group:
        if a.title_key == b.title_key and same_place and jaccard >= 0.9:
            return None  # one vacancy posted under two employer accounts, or a template
        return 0, "real_employer"
    if a.title_key != b.title_key:
        subset = a.title_tokens <= b.title_tokens or b.title_tokens <= a.title_tokens
        if subset and (same_place or reformatted_place) and jaccard >= 0.8:
            return None
        return 0, "real_role"
    if not same_place:
        if reformatted_place:
            return None
        listed = (
            bool(a.towns & b.description_tokens)
            and bool(b.towns & a.description_tokens)
            and bool(a.towns & a.description_tokens)
            and bool(b.towns & b.description_tokens)
        )
        if listed and jaccard >= 0.8:
            return 1, "real_multisite"
        return None if listed else (0, "real_location")
    salary_differs = (
        a.salary is not None
        and b.salary is not None
        and not (same_pay(a.salary[0], b.salary[0]) and same_pay(a.salary[1], b.salary[1]))
    )
    markers_a = a.title_contract | a.description_contract
    markers_b = b.title_contract | b.description_contract
    if (
        salary_differs
        or contract_comparison(a, b)[0] == 1.0
        or (a.title_contract ^ b.title_contract) & ENGAGEMENT
        or (a.grades and b.grades and a.grades.isdisjoint(b.grades))
    ):
        return 0, "real_grade_or_contract"
    if (markers_a ^ markers_b) & STRONG_CONTRACT:
        return None  # a fixed-term or bank sentence on one side only: cover, or a lost line
    if jaccard >= 0.8:
        return 1, "real_repost"
    if jaccard < 0.5:
        return 0, "real_role"
    return None


@dataclass(frozen=True)
class RawPair:
    """A pair before finishing: sides as made by its family, with the ads they came from."""

    first: Posting
    second: Posting
    label: int
    kind: str
    ad: Ad
    other: Ad | None = None
    redate: bool = True
    stub: bool = False
    """The second side is a stub (`classifier.stub_relays`): not re-posted again, since
    re-posting habits (boilerplate added, a paragraph dropped) would make it no stub."""
    verbatim: bool = False
    """Neither side is re-posted: a job centre's relay of a board's ad keeps its text
    (`RELAY_VERBATIM`)."""


_CONTACT = re.compile(r"@|https?:|www\.|\d[\d ()-]{7,}\d")
"""Paragraphs with contacts are not boilerplate: borrowed into another ad they would give a
duplicate pair two conflicting phone numbers."""


def _other_text(ad: Ad, other: Ad) -> bool:
    """Whether two ads' texts share almost nothing (`SAME_TITLE_MAX_JACCARD`)."""
    texts = (str(x.document["description"]) for x in (ad, other))
    return _trigram_jaccard(*texts) < SAME_TITLE_MAX_JACCARD


def _trigram_jaccard(a: str, b: str) -> float:
    """Jaccard of two texts' word trigrams (`indexer.shingles.word_ngram_hashes` over
    `indexer.text.tokenize`: a text of fewer than three words is one shingle)."""
    grams = [set(word_ngram_hashes(tokenize(text), 3).tolist()) for text in (a, b)]
    union = grams[0] | grams[1]
    return len(grams[0] & grams[1]) / len(union) if union else 1.0


class Synthesiser:
    """Makes the synthetic families for one corpus and finishes every pair (see the module
    docstring): fresh ids, cosmetic re-posting at label-independent rates, re-dating of
    synthetic pairs, and the `language` field on both sides or neither."""

    REPOST_FIRST = 0.5
    REPOST_SECOND = 0.9

    def __init__(self, ads: Sequence[Ad], rng: random.Random):
        self.ads = list(ads)
        self.rng = rng
        self.by_group: dict[str, list[Ad]] = defaultdict(list)
        for ad in self.ads:
            self.by_group[ad.group].append(ad)
        self.counter = itertools.count()
        self.small_communes = board_habits.small_communes(ad.document for ad in self.ads)
        self._partners: dict[int, list[Ad]] | None = None

    def build(self, plan: PairPlan) -> list[RawPair]:
        """All synthetic pairs of `plan`, in a reproducible order."""
        rng = self.rng
        pairs: list[RawPair] = []
        for _ in range(plan.positives):
            ad = rng.choice(self.ads)
            first, second = ad.document, ad.document
            roll = rng.random()
            if roll < 0.04:
                second = variants.via_recruiter(second, rng, self._context(ad))
            elif roll < 0.08:
                sites = self._multisite(ad)
                if sites is not None:
                    first, second = sites
            elif roll < 0.08 + RELABELLED and board_habits.relabelled_title(ad.document):
                second = board_habits.occupation_title(second, rng, self._context(ad))
                verbatim = rng.random() < RELAY_VERBATIM
                pairs.append(
                    RawPair(first, second, 1, "pos_occupation_title", ad, verbatim=verbatim)
                )
                continue
            pairs.append(RawPair(first, second, 1, "pos_synthetic", ad))
        made = 0
        while made < plan.mutations:
            ad = rng.choice(self.ads)
            mutated = mutations.mutate(ad.document, rng, self._donors(ad))
            if mutated is not None:
                name, first, second = mutated
                if first.get("title") != second.get("title"):
                    # the label was given for one of the two titles only
                    first = board_habits.without_occupation(first)
                    second = board_habits.without_occupation(second)
                pairs.append(RawPair(first, second, 0, f"mut_{name}", ad))
                made += 1
        for _ in range(plan.boilerplate):
            ad = rng.choice(self.ads)
            other = rng.choice(self.by_group[ad.group] if rng.random() < 0.7 else self.ads)
            if other is ad:
                continue
            padded = variants.add_boilerplate(ad.document, rng, self._context(ad))
            extra = padded["description"].replace(ad.document["description"], "").strip()
            text = other.document["description"]
            other_padded = {**other.document, "description": f"{text}\n\n{extra}"}
            pairs.append(RawPair(padded, other_padded, 0, "boilerplate", ad, other, False))
        pairs += self._intro_snippets(plan.boilerplate // 2)
        pairs += self._stubs(round(plan.positives * STUB_SHARE))
        pairs += self._other_text_same_title(round(plan.positives * SAME_TITLE_SHARE))
        for _ in range(plan.random):
            ad, other = rng.sample(self.ads, k=2)
            pairs.append(RawPair(ad.document, other.document, 0, "random", ad, other, False))
        return pairs

    def finish(self, raw: RawPair) -> PairExample:
        """The training pair made of a raw pair (see the class docstring)."""
        rng = self.rng
        number = next(self.counter)
        ctx = self._context(raw.ad)
        other_ctx = ctx if raw.other is None else self._context(raw.other)
        first, second = raw.first, raw.second
        places = not any(word in raw.kind for word in ("location", "base", "multisite"))
        if rng.random() < self.REPOST_FIRST and not raw.verbatim:
            written = str(first.get("title") or "")
            first = variants.repost(first, rng, ctx)
            first = board_habits.with_habits(first, rng, ctx, places, written)
            first = self._maybe_without_place(first, places)
        if rng.random() < self.REPOST_SECOND and not (raw.stub or raw.verbatim):
            written = str(second.get("title") or "")
            second = variants.repost(second, rng, other_ctx)
            second = board_habits.with_habits(second, rng, other_ctx, places, written)
            second = self._maybe_without_place(second, places)
        first = {**first, "id": f"{raw.ad.document['id']}~{number}a"}
        second = {**second, "id": f"{(raw.other or raw.ad).document['id']}~{number}b"}
        if raw.redate:
            second = variants.redate(second, rng, first.get("posted_at"))
        if rng.random() < 0.3 and raw.ad.language:
            first["language"] = raw.ad.language
            second["language"] = (raw.other or raw.ad).language or raw.ad.language
        groups = (raw.ad.group, (raw.other or raw.ad).group)
        return PairExample(first, second, raw.label, raw.kind, groups)

    def _stubs(self, count: int) -> list[RawPair]:
        """`count` stub relays of ads against their ads, and `count` stubs of another
        vacancy against an ad (`classifier.stub_relays`), alternately another title of the
        employer and the title at another of its sites, then half as many stubs of another
        ad of the title (`_stubs_of_other_vacancies`)."""
        rng = self.rng
        made: list[RawPair] = []
        for _ in range(count):
            ad = rng.choice(self.ads)
            relayed = stub_relays.relay(ad.document, rng, self._context(ad))
            made.append(RawPair(ad.document, relayed, 1, "pos_stub_relay", ad, stub=True))
        negatives = 0
        for attempt in range(count * 3):
            if negatives >= count:
                break
            ad = rng.choice(self.ads)
            kind, make = (
                ("mut_stub_other_role", stub_relays.other_role)
                if attempt % 2
                else ("mut_stub_other_site", stub_relays.other_site)
            )
            other = make(ad.document, rng, self._context(ad), self._donors(ad))
            if other is not None:
                made.append(RawPair(ad.document, other, 0, kind, ad, stub=True))
                negatives += 1
        return made + self._stubs_of_other_vacancies(count // 2)

    def _stubs_of_other_vacancies(self, count: int) -> list[RawPair]:
        """`count` stub relays of an ad against another ad of the same title whose text
        shares almost nothing (`SAME_TITLE_MAX_JACCARD`), listed half the time at a coarser
        level (`board_habits.coarser_location`: its county, region or country): the stub
        names the title, the listings may contain each other, and only the stub's other
        phrases tell the two vacancies apart (`features._stub_phrases_in_text`). The index
        proposes every ad of a title to a stub; without these pairs model c1bc8f12ca36
        accepted all 26 of `bench/robustness.py`'s teaser_other_vacancy pairs."""
        rng = self.rng
        partners = self._title_partners()
        pool = [ad for ad in self.ads if partners.get(id(ad))]
        made: list[RawPair] = []
        for _ in range(count * 3):
            if len(made) >= count or not pool:
                break
            ad = rng.choice(pool)
            other = rng.choice(partners[id(ad)])
            if not _other_text(ad, other):
                continue
            relayed = stub_relays.relay(other.document, rng, self._context(other))
            first = ad.document
            if rng.random() < 0.5:
                first = board_habits.coarser_location(first, rng, self._context(ad))
            made.append(RawPair(first, relayed, 0, "mut_stub_other_vacancy", ad, other, stub=True))
        return made

    def _other_text_same_title(self, count: int) -> list[RawPair]:
        """`count` ads against another ad of the same normalised title whose text shares
        almost nothing (`SAME_TITLE_MAX_JACCARD`), every other one drawn from ads of at most
        `SHORT_WORDS` words (see `SAME_TITLE_SHARE`).

        Of any employer: another employer's ad of the title is the pair a title key proposes
        to a stub, and the employer's own is the pair its (company, title) block proposes
        (two households under "Particulier Employeur"; in gold-dev every pair of one
        employer and title whose word-trigram Jaccard is under 0.3 is two vacancies). Both
        ads name their employer (an ad without one is its own split group) and neither is a
        stub: a stub of one title may be the other ad's relay."""
        rng = self.rng
        partners = self._title_partners()
        pool = [ad for ad in self.ads if partners.get(id(ad))]
        short = [ad for ad in pool if len(str(ad.document["description"]).split()) <= SHORT_WORDS]
        made: list[RawPair] = []
        for attempt in range(count * 3):
            if len(made) >= count or not pool:
                break
            ad = rng.choice(short if short and attempt % 2 else pool)
            other = rng.choice(partners[id(ad)])
            if not _other_text(ad, other):
                continue
            made.append(
                RawPair(ad.document, other.document, 0, "other_text_same_title", ad, other, False)
            )
        return made

    def _title_partners(self) -> dict[int, list[Ad]]:
        """For each ad (by `id`), the other ads of its normalised title, among ads that name
        their employer and are no stub (see `_other_text_same_title`); read once."""
        if self._partners is None:
            by_title: dict[str, list[Ad]] = defaultdict(list)
            for ad in self.ads:
                description = str(ad.document["description"])
                if ad.document.get("company") and not stub_phrases(description):
                    by_title[normalise_title(str(ad.document["title"]))].append(ad)
            by_title.pop("", None)
            self._partners = {
                id(ad): [other for other in ads if other is not ad]
                for ads in by_title.values()
                for ad in ads
            }
        return self._partners

    def _intro_snippets(self, count: int) -> list[RawPair]:
        """An aggregator snippet holding only an employer's intro (the opening it shares with
        another of its ads) against that other vacancy: shared text, other title; such a
        snippet once linked two vacancies of one employer and merged their clusters."""
        rng = self.rng
        made: list[RawPair] = []
        for _ in range(count * 3):
            if len(made) >= count:
                break
            ad = rng.choice(self.ads)
            text = str(ad.document["description"])
            others = [
                s
                for s in self.by_group[ad.group]
                if s is not ad
                and str(s.document["description"])[:200] == text[:200]
                and s.document["title"] != ad.document["title"]
            ]
            if not others or len(text) < 600:
                continue
            cut = text.rfind(" ", 0, rng.randint(250, 500))
            teaser = {**ad.document, "description": text[: max(cut, 200)].rstrip() + "…"}
            other = rng.choice(others)
            made.append(RawPair(teaser, other.document, 0, "snippet_intro", ad, other, False))
        return made

    def _multisite(self, ad: Ad) -> tuple[Posting, Posting] | None:
        """One vacancy offered at two bases, listed by each board under one of them."""
        moved = mutations.other_location(ad.document, self.rng, self._donors(ad))
        if moved is None:
            return None
        first, second = moved
        town_a = variants.town(first.get("location"))
        town_b = variants.town(second.get("location"))
        if not town_a or not town_b:
            return None
        templates = variants.MULTISITE_SENTENCES.get(
            ad.language, variants.MULTISITE_SENTENCES["en"]
        )
        sentence = self.rng.choice(templates).format(a=town_a, b=town_b)
        text = f"{sentence}\n\n{ad.document['description']}"
        return {**first, "description": text}, {**second, "description": text}

    def _maybe_without_place(self, posting: Posting, places: bool) -> Posting:
        """A re-posted copy without its location at `LOCATION_LEFT_OUT`, for pairs of either
        label that are not told apart by their places (`places`): a feed without the field,
        an API client that sends none. Without them no training pair lacked a place (1 of
        44,836 in a draw), so the trees' branch for a missing place was never trained:
        model 83255bb57bfe scored an identical re-post without any location 0.377
        (d35a9d548f41 0.572, by chance), and an ad of a campaign without a place against the
        campaign's copies under the threshold (`tests/api/test_concurrency.py`,
        `test_merges.py`)."""
        if not places or not posting.get("location") or self.rng.random() >= LOCATION_LEFT_OUT:
            return posting
        return {key: value for key, value in posting.items() if key != "location"}

    def _context(self, ad: Ad) -> variants.Context:
        siblings = [s for s in self.by_group[ad.group] if s is not ad]
        paragraphs: list[str] = []
        if siblings:
            sibling = self.rng.choice(siblings)
            parts = variants.paragraphs(sibling.document["description"])
            title = str(sibling.document.get("title") or "")
            paragraphs = [
                p
                for p in (parts[:1] + parts[-1:])
                if 40 < len(p) < 1200
                and not _CONTACT.search(p)
                and not board_habits.states_its_vacancy(p, title)
            ]
        return variants.Context(
            language=ad.language,
            employer_paragraphs=paragraphs,
            small_communes=self.small_communes,
            pay=str(ad.document.get("salary") or "") or None,
        )

    def _donors(self, ad: Ad) -> mutations.Donors:
        siblings = self.by_group[ad.group]
        pool = (
            siblings if len(siblings) > 3 else self.rng.sample(self.ads, k=min(20, len(self.ads)))
        )
        return mutations.Donors(
            locations=sorted({str(s.document.get("location") or "") for s in pool} - {""}),
            titles=sorted({str(s.document["title"]) for s in siblings} - {ad.document["title"]}),
            employers=[
                (
                    str(other.document.get("company") or ""),
                    str(other.document.get("location") or ""),
                )
                for other in self.rng.sample(self.ads, k=min(10, len(self.ads)))
                if other.group != ad.group and other.document.get("company")
            ],
        )


def build_pairs(
    nhs: Sequence[Ad],
    eures: Sequence[Ad],
    prepared: dict[str, PreparedPosting],
    nhs_groups: Sequence[Sequence[str]],
    seed: int,
    nhs_plan: PairPlan = NHS_PLAN,
    eures_plan: PairPlan = EURES_PLAN,
    french: Sequence[Ad] = (),
    french_plan: PairPlan = FRENCH_PLAN,
) -> list[PairExample]:
    """Every training pair of the corpora, finished, in a reproducible order.

    `prepared` holds the prepared (sketched) form of every ad by id; it finds the real pairs
    the way the index would. The French boards give synthetic pairs only: half their ads
    name no employer, so the real-pair rules (which read "another employer" as another
    vacancy) cannot label them.
    """
    rng = random.Random(seed)
    examples: list[PairExample] = []
    corpora = ((nhs, nhs_plan, nhs_groups, True), (eures, eures_plan, (), True))
    for ads, plan, groups, with_real in (*corpora, (french, french_plan, (), False)):
        if not ads:
            continue
        own = {str(ad.document["id"]): prepared[str(ad.document["id"])] for ad in ads}
        raw = real_pairs(ads, own, groups, rng) if with_real else []
        synthesiser = Synthesiser(ads, rng)
        raw += synthesiser.build(plan)
        examples += [synthesiser.finish(pair) for pair in raw]
        logger.info("%d pairs from %d ads", len(raw), len(ads))
    return examples
