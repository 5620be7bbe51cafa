"""Cut a job ad into units (sentences, bullet lines, headings) and label each with its section.

Most of an ad is not about the job: company intros, benefits, equal-opportunity and legal text
and "how to apply" blocks repeat across every ad of an employer. Units are what gets hashed and
counted across the corpus to learn that boilerplate; section labels let the job-specific parts
(tasks, profile) weigh more than company or legal text. Rules (details at each helper):

* Units are cut from the text of `strip_html` (block tags already turned into line breaks)
  before tokenisation, only at whitespace or right after punctuation, so ``tokenize`` of each
  unit, concatenated, is ``tokenize(description)``: no token is lost, duplicated or reordered.
* Lines are first glued back into logical lines so that a re-wrapped re-post gives the same
  units (`_logical_lines`); logical lines are then cut at sentence ends, inline bullets and
  inline "Heading:" phrases (`_pieces`).
* A heading (`_heading`: short line, lexicon phrase, ":" or all caps) sets the section of the
  units after it, until the next heading of known kind; equal-opportunity and legal sentences
  are labelled one by one wherever they stand, without changing their neighbours.

Pure and deterministic (tokenisation is memoised); the lexicon is built on first use.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from indexer.section_lexicon import EEO_PHRASES, LEGAL_PHRASES, LEXICON, WHO
from indexer.text import strip_html, tokenize

SECTION_KINDS = (
    "intro", "company", "tasks", "profile", "offer", "equal_opportunity", "apply", "legal", "other"
)  # fmt: skip
"""Every value `Unit.section` can take. "intro" is the text before the first recognised heading;
"other" is a recognised heading that is none of the rest ("Additional information")."""

JOB_SECTIONS = frozenset({"intro", "tasks", "profile"})
"""The kinds that describe this vacancy. "intro" is included because most ads open with the
job summary, and an ad without headings is all intro: leaving it out would give such ads no
job-specific text at all. Employer boilerplate inside an intro is left to corpus counts."""

MAX_HEADING_WORDS = 10
"""A heading line has at most this many whitespace-separated words (NHS list intros such as
"To be successful as Staff Nurse 4, you'll need:" have nine)."""

MIN_WRAP_WIDTH = 40
"""The narrowest line width whose re-wrapping is undone; re-posts wrap at about 70–80."""

# EEO and legal sentences have at most 49 tokens in 3,000 NHS ads; a longer unit is a run-on
# paragraph (a flattened ad) that merely mentions GDPR or diversity among the duties.
_MAX_SPECIAL_TOKENS = 60
_SYMBOLS = "•·▪◦●■□►▸▹➢➤➔→✓✔☑"  # always bullets; "-", "*", "1." or "a)" may be mid-sentence
_BULLET = re.compile(rf"(?:[{_SYMBOLS}*+\-–—]|\d{{1,2}}[.)]|[a-zA-Z]\)|\(\w{{1,2}}\))(?=\s|$)")
# One pattern per end mark: a literal first character lets the regex engine skip ahead fast.
_SENTENCE_ENDS = tuple(
    (mark, re.compile(re.escape(mark) + r"[\"'”’»)\]]*(\s*)(?=[\"'“‘«(\[]?(\w)(\w?))"))
    for mark in ".!?…"
)
_INLINE_BULLET = re.compile(r"(?<=\s)[•▪●·](?=\s)")
_COLON = re.compile(r"\s?:(?=\s)")
_WORD = re.compile(r"\S+")
_OPENERS = "\"'“‘«(["
_TRAILERS = " -–—"
# Words that end in "." inside a sentence ("e.g. Python", "Dr. Smith", "z.B. Excel"). "etc."
# and "usw." are left out on purpose: followed by a capital they end the sentence far more often.
_ABBREVIATION_LIST = (
    "e.g|eg|i.e|ie|z.b|bzw|ggf|inkl|evtl|ca|u.a|d.h|vs|cf|incl|approx|dr|mr|mrs|ms|prof|st|no|nr"
    "|tel|min|max|dept|jr|sr|mme|mlle|dipl|ing|mgr|inż|dott|sig|sra|dhr|mevr|bijv|o.a|evt|p.ex"
    "|resp|ref"
)
_ABBREVIATIONS = frozenset(_ABBREVIATION_LIST.split("|"))


def _compile_phrases(spec: str) -> tuple[re.Pattern[str], set[str], list[str]]:
    """The regex of a phrase list, with what a unit must hold for it to be worth running: one
    of the triggers (the longest whole word of a phrase, the rarest) or, for a phrase that is
    one "word*", its stem anywhere in the ad."""
    alternatives, triggers, stems = [], set(), []
    for phrase in spec.split("|"):
        words = phrase.split()
        whole = [w for w in words if w.isalpha()]
        if whole:
            triggers.add(max(whole, key=len))
        else:
            stems.append(words[0][:-1])
        alternatives.append(
            " ".join(
                WHO if w == "<who>" else re.escape(w.rstrip("*")) + ("\\w*" * w.endswith("*"))
                for w in words
            )
        )
    return re.compile(f"(?:^| )(?:{'|'.join(alternatives)})(?= |$)"), triggers, stems


@dataclass(frozen=True, slots=True)
class Unit:
    """One sentence, bullet line or heading of an ad.

    `tokens` is exactly `tokenize` of the unit's text, so it can be hashed and counted across the
    corpus; `section` is one of `SECTION_KINDS`; `heading` says the unit is itself a heading.
    """

    tokens: tuple[str, ...]
    section: str
    heading: bool


@dataclass(frozen=True, slots=True)
class _Lexicon:
    phrases: dict[tuple[str, ...], str]  # whole phrase → kind
    sizes: dict[str, tuple[int, ...]]  # first token → lengths of its phrases, longest first
    sentences: tuple[tuple[re.Pattern[str], str], ...]  # EEO and legal phrases, with their kind
    triggers: frozenset[str]  # see `_compile_phrases`
    stems: tuple[str, ...]


@lru_cache(maxsize=1)
def _lexicon() -> _Lexicon:
    phrases = {
        tuple(text.split()): kind for kind, spec in LEXICON.items() for text in spec.split("|")
    }
    sizes: dict[str, set[int]] = {}
    for phrase in phrases:
        sizes.setdefault(phrase[0], set()).add(len(phrase))
    legal, legal_triggers, legal_stems = _compile_phrases(LEGAL_PHRASES)
    eeo, eeo_triggers, eeo_stems = _compile_phrases(EEO_PHRASES)
    sentences = ((legal, "legal"), (eeo, "equal_opportunity"))  # the last match wins
    by_size = {first: tuple(sorted(found, reverse=True)) for first, found in sizes.items()}
    triggers = frozenset(legal_triggers | eeo_triggers)
    return _Lexicon(phrases, by_size, sentences, triggers, (*legal_stems, *eeo_stems))


def _lexicon_match(tokens: tuple[str, ...], last: bool = False) -> tuple[str, int, int] | None:
    """Kind, length and end of the longest lexicon phrase in `tokens`, the last one on a tie
    (the head noun of "Skills/Responsibilities" comes last); with `last`, the phrase that ends
    last, as a list intro names its list at the end ("… you will have these benefits:")."""
    lexicon = _lexicon()
    best: tuple[str, int, int] | None = None
    for i, token in enumerate(tokens):
        for size in lexicon.sizes.get(token, ()):
            kind = lexicon.phrases.get(tokens[i : i + size]) if i + size <= len(tokens) else None
            if kind is not None:
                if best is None or (i + size > best[2] if last else size >= best[1]):
                    best = (kind, size, i + size)
                break
    return best


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[str, ...]:
    """`tokenize`, memoised: a line is tokenised for the heading test and again as a unit, and
    boilerplate lines recur across all ads of an employer. Bounded (a few MB at most)."""
    return tuple(tokenize(text))


@dataclass(frozen=True, slots=True)
class _Head:
    kind: str  # "" = a heading of unknown kind: it does not change the section
    strong: bool


def _heading(line: str, caps_alone: bool) -> _Head | None:
    """Whether a stripped line is a heading, and of which kind ("" when unknown).

    A heading has at most `MAX_HEADING_WORDS` words, does not end like a sentence (. , ; !) and
    has no "label: value" colon inside. It is *marked* when it ends with ":" or is two or more
    words in all caps (and its neighbours in the block are not, so an all-caps paragraph is not
    a stack of headings); a marked heading may have an unknown kind. Otherwise it needs a
    lexicon phrase: anywhere in a question ("Why join us?"), or covering all its words but two
    ("About our benefits"). Only an exact lexicon phrase is `strong`: a wrapped line never
    swallows it, while it may swallow any other. HTML needs no rule of its own: `strip_html`
    puts <h2> or <li><strong> text on a line of its own, judged like any other.
    A longer line ending with ":" is a heading when a lexicon phrase ends among its last four
    tokens: it introduces a list of that kind.
    """
    end = _end(line)
    if end in ".,;!" or len(line) > 300 or ":" in line.rstrip(_TRAILERS)[:-1]:
        return None
    if ". " in line or "? " in line or "! " in line:  # two sentences ("Why us? We offer…")
        return None
    words = len(line.split())
    if words > (2 * MAX_HEADING_WORDS + 5 if end == ":" else MAX_HEADING_WORDS):
        return None
    tokens = _tokens(line)
    if not tokens:
        return None
    if words > MAX_HEADING_WORDS:  # a list intro: "… we offer a range of benefits including:"
        match = _lexicon_match(tokens, last=True)
        return _Head(match[0], False) if match and match[2] >= len(tokens) - 4 else None
    match = _lexicon_match(tokens)
    caps = caps_alone and words > 1 and end != "?" and line.isupper()  # not "NHS?"
    exact = match is not None and match[1] == len(tokens)
    if end == ":" or caps:
        return _Head(match[0] if match else "", exact)
    if end == "?":  # a question may be the end of a wrapped paragraph: never strong
        return _Head(match[0], False) if match else None
    if match is None or len(tokens) - match[1] > 2:
        return None
    return _Head(match[0], exact)


def _end(line: str) -> str:
    """The last character of a line, trailing dashes aside ("please contact:-")."""
    return (line.rstrip(_TRAILERS) or " ")[-1]


def _starts_upper(line: str) -> bool:
    return line.lstrip(_OPENERS)[:1].isupper()


def _wrapped(prev: str, line: str, width: int) -> bool:
    """Whether the break between two lines of a block looks like a re-wrap: the previous line
    does not end with ":" or ";" and the next line's first word would not have fitted on it
    within `width` (the block's longest line) or `MIN_WRAP_WIDTH`, whichever is larger.

    Every break of a paragraph greedily wrapped at any width W ≥ `MIN_WRAP_WIDTH` passes, since
    W is at least both; a list of short lines ("Salary - £36,500" / "Location - Cambridge")
    does not, because its lines are far shorter than a wrap width."""
    next_word = len(line.split(None, 1)[0])
    return _end(prev) not in ":;" and len(prev) + 1 + next_word > max(width, MIN_WRAP_WIDTH)


def _logical_lines(lines: list[str]) -> Iterator[tuple[str, _Head | None]]:
    """Glue the non-blank, stripped lines of one block (text between blank lines) into logical
    lines, each with its heading verdict.

    A line continues the previous one when that is a bare bullet marker ("-" alone, common in
    scraped lists). Otherwise it never does when it is a bullet itself or the previous line is
    a strong heading; it does when it starts with anything but a capital (lowercase, digit,
    symbol), or, starting with a capital, when it is no strong heading and the break looks
    like a re-wrap (`_wrapped`). A weak heading that is continued was no heading; a dash or a
    number after a re-wrapped line ("ab dem\n1. Oktober") is text, not a bullet.
    """
    width = max(map(len, lines))
    caps = [False, *(line.isupper() for line in lines), False]
    parts: list[str] = []
    head: _Head | None = None
    prev, prev_bare, prev_bullet = "", False, False
    for i, line in enumerate(lines):
        bullet = _BULLET.match(line)
        open_end = bool(parts) and (head is None or not head.strong)
        if open_end and bullet and line[0] not in _SYMBOLS and not prev_bullet:
            bullet = None if _wrapped(prev, line, width) else bullet
        new_head = None
        if parts and prev_bare:
            glue = True
        elif bullet is not None:
            glue = False
        elif open_end and not _starts_upper(line):
            glue = True
        else:
            new_head = _heading(line, not (caps[i] or caps[i + 2]))
            weak = new_head is None or not new_head.strong
            glue = open_end and weak and _wrapped(prev, line, width)
        if glue:
            parts.append(line)
            head = None  # a weak heading that goes on was the start of a wrapped sentence
        else:
            if parts:
                yield _logical(parts, head)
            parts, head = [line], new_head
            prev_bullet = bullet is not None
        prev, prev_bare = line, bullet is not None and bullet.end() == len(line)
    if parts:
        yield _logical(parts, head)


def _logical(parts: list[str], head: _Head | None) -> tuple[str, _Head | None]:
    """Join the lines of a logical line; one that was wrapped and ends with ":" is judged as a
    heading again as a whole, like the unwrapped line would be ("… we offer:")."""
    line = " ".join(parts)
    if head is None and len(parts) > 1 and _end(line) == ":" and not _BULLET.match(line):
        head = _heading(line, False)
    return line, head


def _inline_headings(line: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of lexicon phrases written as "Phrase:" inside a line, as in flattened
    ads ("Zakres obowiązków: … Wymagania: - …"). The phrase must start with a capital and be
    exactly a lexicon phrase of up to four words, so "good communication skills: a must" is no
    heading."""
    phrases = _lexicon().phrases
    for colon in _COLON.finditer(line):
        words = list(_WORD.finditer(line, max(0, colon.start() - 60), colon.start()))[-4:]
        if colon.start() > 60:
            words = words[1:]  # the first one may be cut
        for word in words:
            if line[word.start()].isupper():
                kind = phrases.get(_tokens(line[word.start() : colon.start()]))
                if kind is not None:
                    yield word.start(), colon.end(), kind
                    break


def _sentence_ends(line: str, stop: re.Match[str], mark: str) -> bool:
    """Whether an end mark found by `_SENTENCE_ENDS` ends a sentence (see `_pieces`)."""
    if not stop.group(2).isupper():
        return False
    if not stop.group(1) and not (line[stop.start() - 1].islower() and stop.group(3).islower()):
        return False  # "team.Also" is a lost space; "ASP.NET" or "3.5" are not sentence ends
    if mark != ".":
        return True
    word = line[line.rfind(" ", 0, stop.start()) + 1 : stop.start()].lstrip(_OPENERS).lower()
    short = (len(word) == 1 and word.isalpha()) or (len(word) <= 2 and word.isdigit())
    return not short and word not in _ABBREVIATIONS


def _pieces(line: str) -> list[tuple[str, _Head | None]]:
    """Cut a logical line that is not a heading at sentence ends, inline bullets and inline
    headings. A sentence ends at . ! ? or … (closing quotes allowed) followed by whitespace and
    a capital in any script, except after a known abbreviation, a single letter ("J. Smith") or
    a one- or two-digit number ("zum 1. März"); a lost space ("team.Also", lowercase on both
    sides of a capital) ends one too, while "3.5" or "ASP.NET" never do."""
    inner = line[:-1]
    bullets = "•" in line or "▪" in line or "●" in line or "·" in line
    if not (bullets or "." in inner or "?" in inner or "!" in inner or "…" in inner or ":" in line):
        return [(line, None)]  # the common case, a one-sentence line: no regex scan
    cuts: dict[int, _Head | None] = {0: None}
    for mark, pattern in _SENTENCE_ENDS:
        if mark in inner:
            for stop in pattern.finditer(line):
                if _sentence_ends(line, stop, mark):
                    cuts[stop.end()] = None
    for bullet in _INLINE_BULLET.finditer(line) if bullets else ():
        cuts[bullet.start()] = None
    if ":" in line:
        for start, end, kind in _inline_headings(line):
            cuts[start] = _Head(kind, True)
            cuts.setdefault(end, None)
            for cut in [c for c in cuts if start < c < end]:
                del cuts[cut]
    starts = sorted(cuts)
    ends = [*starts[1:], len(line)]
    return [(line[start:end], cuts[start]) for start, end in zip(starts, ends, strict=True)]


def split_units(description: str) -> list[Unit]:
    """Split a job description (plain text or HTML, as received) into labelled units.

    Units without tokens (a lone "-") are dropped. The tokens of all units, in order, are
    exactly `tokenize(description)`. In the rare text that still holds markup after
    `strip_html` (triple-escaped entities, tags nested in tags) a piece would tokenise
    differently on its own, so the whole ad is returned as one "intro" unit instead.
    """
    text = strip_html(description)
    pieces: list[tuple[str, _Head | None]] = []
    block: list[str] = []
    for raw_line in [*text.splitlines(), ""]:
        line = raw_line.strip()
        if line:
            block.append(line)
            continue
        if len(block) == 1:  # most blocks: a paragraph or list item between blank lines
            line = block[0]
            head = None if _BULLET.match(line) else _heading(line, True)
            pieces.extend(_pieces(line) if head is None else [(line, head)])
        elif block:
            for logical, head in _logical_lines(block):
                pieces.extend(_pieces(logical) if head is None else [(logical, head)])
        block = []
    if ("<" in text or "&" in text) and any(
        ("<" in p or "&" in p) and strip_html(p) != p for p, _ in pieces
    ):
        tokens = tuple(tokenize(description))
        return [Unit(tokens, "intro", False)] if tokens else []
    return _label(pieces, text)


def _label(pieces: list[tuple[str, _Head | None]], text: str) -> list[Unit]:
    """Tokenise the pieces and give each its section: a heading of known kind opens a section
    that runs to the next one; equal-opportunity and legal sentences are labelled alone.
    `text` is the whole ad, where the phrase stems are looked for once, in any case of their
    first letter only (casefolding the ad would cost more than all the rest of the labelling)."""
    units: list[Unit] = []
    section = "intro"
    lexicon = _lexicon()
    triggers = lexicon.triggers
    stems = [stem for stem in lexicon.stems if stem[1:] in text]  # any case of the first letter
    for piece, head in pieces:
        tokens = _tokens(piece)
        if not tokens:
            continue
        if head is not None:
            section = head.kind or section
            units.append(Unit(tokens, section, True))
        elif (triggers.isdisjoint(tokens) and not stems) or len(tokens) > _MAX_SPECIAL_TOKENS:
            units.append(Unit(tokens, section, False))  # the common case: no phrase to look for
        else:
            kind, joined = section, " ".join(tokens)
            for pattern, special in lexicon.sentences:
                if pattern.search(joined):
                    kind = special
            units.append(Unit(tokens, kind, False))
    return units
