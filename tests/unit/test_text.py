"""Unit and property tests for indexer.text: cleaning, tokenising and the field keys."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer.text import (
    SCANNED_PLANES,
    block_key,
    clean,
    fold_accents,
    normalise_company,
    normalise_location,
    normalise_title,
    repair_encoding,
    strip_html,
    tokenize,
)
from tests.misdecoding import as_windows_1252
from tests.unit.support import DETERMINISTIC


def _script_of(ch: str) -> str:
    """First word of the Unicode name ("CYRILLIC", "GREEK", "LATIN", "DIGIT"...)."""
    return unicodedata.name(ch).split(" ")[0]


# --- HTML -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<p>Hello</p><p>World</p>", "hello world"),
        ("Hello<br>World", "hello world"),
        ("Hello<br/>World", "hello world"),
        ("<ul><li>Java</li><li>Python</li></ul>", "java python"),
        ("<div>Team</div><div>Lead</div>", "team lead"),
        ("<h2>Profil</h2>Ingenieur", "profil ingenieur"),
        ("<table><tr><td>Salary</td><td>40k</td></tr></table>", "salary 40k"),
        ('<P CLASS="x">Upper</P>case', "upper case"),
    ],
)
def test_clean_block_tags_separate_words(raw: str, expected: str) -> None:
    assert clean(raw) == expected


def test_strip_html_turns_block_tags_into_line_breaks() -> None:
    assert strip_html("<p>one</p><p>two</p>") == "\none\n\ntwo\n"
    assert strip_html("one<br>two") == "one\ntwo"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<script>var job = 'fake';</script>Nurse", "nurse"),
        ("<SCRIPT type='text/javascript'>\nalert(1)\n</SCRIPT>Nurse", "nurse"),
        ("Nurse<style>p { color: red }</style>", "nurse"),
        ("<style>\n.a{}\n</style><p>Nurse</p><script>x()</script>", "nurse"),
        ("Nurse<!-- internal: do not post -->Band 5", "nurse band 5"),
    ],
)
def test_clean_drops_script_style_and_comments(raw: str, expected: str) -> None:
    assert clean(raw) == expected


def test_clean_drops_inline_tags_but_keeps_their_text() -> None:
    assert clean('<a href="https://x.example/apply">Apply <b>now</b></a>') == "apply now"
    assert clean("<span style='x'>Berlin</span>") == "berlin"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("R&amp;D", "r d"),
        ("R&amp;amp;D", "r d"),  # double-escaped ampersand
        ("caf&eacute;", "cafe"),
        ("caf&amp;eacute;", "cafe"),  # double-escaped named entity
        ("Gr&#246;&#223;e", "grosse"),  # numeric entities, then ß -> ss
        ("na&iuml;ve&nbsp;approach", "naive approach"),
    ],
)
def test_clean_unescapes_entities_including_double_escaped(raw: str, expected: str) -> None:
    assert clean(raw) == expected


def test_strip_html_unescapes_twice() -> None:
    assert strip_html("Tom &amp;amp; Jerry") == "Tom & Jerry"
    assert strip_html("plain text, no markup") == "plain text, no markup"


# --- Unicode ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Ｊａｖａ Ｄｅｖｅｌｏｐｅｒ", "java developer"),  # full-width letters (NFKC)
        ("ﬁnance ofﬁcer", "finance officer"),  # ﬁ ligature (NFKC)
        ("Ｂａｎｄ ５", "band 5"),  # full-width digits
        ("Level²", "level2"),  # superscript digit
        ("Straße", "strasse"),  # casefold ß -> ss
        ("STRASSE", "strasse"),
        ("Résponsable Équipe", "responsable equipe"),  # accent folding
        ("Ingénieur développement", "ingenieur developpement"),
        ("Müller Çelik", "muller celik"),
        ("naïve", "naive"),
        ("e\u0301cole", "ecole"),  # already decomposed input folds the same way
    ],
)
def test_clean_normalises_unicode(raw: str, expected: str) -> None:
    assert clean(raw) == expected


def test_composed_and_decomposed_accents_clean_alike() -> None:
    composed = unicodedata.normalize("NFC", "Référent qualité")
    decomposed = unicodedata.normalize("NFD", "Référent qualité")
    assert composed != decomposed
    assert clean(composed) == clean(decomposed) == "referent qualite"


def test_cyrillic_compound_title_gives_two_cyrillic_tokens() -> None:
    tokens = tokenize("Инженер-программист")
    assert tokens == ["инженер", "программист"]
    assert all(_script_of(ch) == "CYRILLIC" for token in tokens for ch in token)


def test_greek_folds_tonos_but_stays_greek() -> None:
    tokens = tokenize("Μηχανικός")
    assert len(tokens) == 1
    (token,) = tokens
    assert "ο" in token and "ό" not in token  # tonos removed
    assert token.startswith("μηχανικο")
    assert all(_script_of(ch) == "GREEK" for ch in token)
    assert tokenize("ΜΗΧΑΝΙΚΟΣ") == tokens  # upper case without tonos: same key


def test_fold_accents_keeps_letters_without_decomposition() -> None:
    assert fold_accents("ø") == "ø"
    assert fold_accents("ß") == "ß"
    assert fold_accents("ı") == "ı"  # Turkish dotless i has no decomposition
    assert fold_accents("программист") == "программист"
    assert fold_accents("é") == "e"


# --- Punctuation and whitespace ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Hello,   world!!", "hello world"),
        ("  leading and trailing\t\n", "leading and trailing"),
        ("C++ / C# developer", "c c developer"),
        ("snake_case__words", "snake case words"),
        ("line\none\r\ntwo\tthree", "line one two three"),
        ("Ref: 12-345/B", "ref 12 345 b"),
        ("non\u00a0breaking\u2003spaces", "non breaking spaces"),
        ("«quoted» — “dash”", "quoted dash"),
    ],
)
def test_clean_punctuation_and_whitespace(raw: str, expected: str) -> None:
    assert clean(raw) == expected


@pytest.mark.parametrize("raw", ["", " ", "\t\n  \r\n", "\u00a0\u2003", "!!! ... ---", "<p></p>"])
def test_tokenize_of_empty_or_blank_input_is_empty(raw: str) -> None:
    assert clean(raw) == ""
    assert tokenize(raw) == []


def test_tokenize_splits_cleaned_words() -> None:
    assert tokenize("<p>Senior Nurse &ndash; Band 5</p>") == ["senior", "nurse", "band", "5"]


# --- Properties -------------------------------------------------------------------------------


@DETERMINISTIC
@given(st.text(max_size=200))
def test_clean_is_idempotent_and_canonical(raw: str) -> None:
    cleaned = clean(raw)
    assert clean(cleaned) == cleaned
    assert cleaned == cleaned.strip()
    assert "  " not in cleaned
    assert cleaned.casefold() == cleaned
    assert "\x1f" not in cleaned  # the shingle joiner must never occur inside a token


@DETERMINISTIC
@given(st.text(max_size=200))
def test_tokens_are_the_words_of_clean(raw: str) -> None:
    tokens = tokenize(raw)
    assert " ".join(tokens) == clean(raw)
    assert all(tokens)
    assert all(not any(ch.isspace() for ch in token) for token in tokens)


@DETERMINISTIC
@given(
    st.lists(st.sampled_from(["Senior", "Nurse", "Band", "5", "Straße", "Équipe"]), max_size=8),
    st.sampled_from(["<br>", "<p>", "</li><li>", " ", ",", " - ", "&nbsp;", "\n"]),
)
def test_separators_and_markup_do_not_change_tokens(words: list[str], separator: str) -> None:
    assert tokenize(separator.join(words)) == tokenize(" ".join(words))


# --- Title, company, location and block keys --------------------------------------------------


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Développeur Java (H/F)", "developpeur java"),
        ("Chef de projet F/H", "chef de projet"),
        ("Chef de projet (f/h)", "chef de projet"),
        ("Softwareentwickler m/w/d", "softwareentwickler"),
        ("Softwareentwickler (m/w/d)", "softwareentwickler"),
        ("Softwareentwickler (M/W/D)", "softwareentwickler"),
        ("Data Engineer (m/f/x)", "data engineer"),
        ("Data Engineer (m/f/d)", "data engineer"),
        ("Data Engineer (w/m/d)", "data engineer"),
        ("HR Manager (H/F) - CDI", "hr manager"),
        ("Staff Nurse - Band 5 (Permanent, Full Time)", "staff nurse band 5"),
    ],
)
def test_normalise_title_strips_decorations(title: str, expected: str) -> None:
    assert normalise_title(title) == expected


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Senior Software Engineer", "senior software engineer"),
        ("Junior Software Engineer", "junior software engineer"),
        ("Lead Developer", "lead developer"),
        ("Principal Consultant", "principal consultant"),
        ("Staff Nurse Band 5", "staff nurse band 5"),
        ("Staff Nurse Band 6", "staff nurse band 6"),
        ("Civil Servant Grade 7", "civil servant grade 7"),
        ("Chef de partie", "chef de partie"),  # "f" inside words is not a gender marker
        ("Head of Finance", "head of finance"),
    ],
)
def test_normalise_title_keeps_seniority_and_grades(title: str, expected: str) -> None:
    assert normalise_title(title) == expected


def test_normalise_title_distinguishes_grades_and_seniority() -> None:
    assert normalise_title("Staff Nurse Band 5 (m/w/d)") != normalise_title("Staff Nurse Band 6")
    assert normalise_title("Senior Engineer (H/F)") != normalise_title("Engineer (H/F)")
    assert normalise_title("Senior Engineer (H/F)") == normalise_title("SENIOR ENGINEER m/w/d")


@pytest.mark.parametrize(
    ("company", "expected"),
    [
        ("Siemens GmbH", "siemens"),
        ("Siemens AG", "siemens"),
        ("Philips B.V.", "philips"),
        ("Philips BV", "philips"),
        ("ASML N.V.", "asml"),
        ("Capgemini SAS", "capgemini"),
        ("Tesco Stores Ltd", "tesco stores"),
        ("Tesco Stores Limited", "tesco stores"),
        ("Barclays plc", "barclays"),
        ("Barclays PLC", "barclays"),
        ("Leeds Teaching Hospitals NHS Foundation Trust", "leeds teaching hospitals"),
        ("Acme, Inc.", "acme"),
        ("The Coca-Cola Company", "coca cola"),
        ("Nestlé SA", "nestle"),
        ("Société Générale", "societe generale"),
    ],
)
def test_normalise_company_strips_legal_forms(company: str, expected: str) -> None:
    assert normalise_company(company) == expected


def test_normalise_company_strips_dotted_sa_like_dotted_bv() -> None:
    assert normalise_company("Nestlé S.A.") == normalise_company("Nestlé SA") == "nestle"


@pytest.mark.parametrize("company", [None, "", "   "])
def test_normalise_company_of_missing_company_is_empty(company: str | None) -> None:
    assert normalise_company(company) == ""


def test_normalise_location() -> None:
    assert normalise_location("Paris (75)") == "paris 75"
    assert normalise_location("München, BY") == "munchen by"
    assert normalise_location(None) == ""
    assert normalise_location("") == ""


def test_block_key_joins_company_and_title_keys() -> None:
    assert block_key("Siemens GmbH", "Software Engineer (m/w/d)") == "siemens|software engineer"
    assert block_key("SIEMENS AG", "software engineer") == block_key(
        "Siemens GmbH", "Software Engineer (m/w/d)"
    )
    assert block_key(None, "Nurse Band 5") == "|nurse band 5"
    assert block_key("Acme Ltd", "Nurse Band 5") != block_key("Acme Ltd", "Nurse Band 6")
    assert block_key("Acme Ltd", "Nurse") != block_key("Other Ltd", "Nurse")


# --- Context independence ---------------------------------------------------------------------

_MARKED_WORDS = [
    "مُهَنْدِس",  # Arabic "engineer" with harakat
    "מְהַנְדֵּס",  # Hebrew "engineer" with niqqud
    "ч\u0483ас",  # Cyrillic with a combining titlo
]


@pytest.mark.parametrize("word", _MARKED_WORDS)
def test_marks_are_folded_whatever_else_the_text_contains(word: str) -> None:
    assert tokenize(word + " café")[:-1] == tokenize(word)
    assert len(tokenize(word)) == 1


_PIECES = st.text(
    alphabet=st.sampled_from(
        ["a", "b", "é", "ß", "ø", "ﬁ", "и", "й", "ά", " ", "-", ".", "م", "\u064f", "\u0651"]
    ),
    max_size=12,
)


@DETERMINISTIC
@given(_PIECES, _PIECES)
def test_tokens_of_a_concatenation_are_the_concatenated_tokens(left: str, right: str) -> None:
    assert tokenize(f"{left} {right}") == tokenize(left) + tokenize(right)


def test_the_planes_left_unscanned_hold_no_character_the_tables_map() -> None:
    """`_Tables` reads planes 0-3 and 14 only: every other code point must be unassigned or
    private use, or the cleaning tables would miss it (a newer Unicode database could assign
    one: then `SCANNED_PLANES` must grow)."""
    inside = {c for start, stop in SCANNED_PLANES for c in range(start, stop)}
    categories = {
        unicodedata.category(chr(c)) for c in range(sys.maxunicode + 1) if c not in inside
    }
    assert categories <= {"Cn", "Co"}


# --- Text mis-decoded by a feed (UTF-8 read as Windows-1252 or Latin-1) ------------------------


_ACCENTED = [
    "Vous êtes à la recherche d’un poste où l’exigence est au cœur du métier",  # fr
    "Sąmatininkas (-ė)",  # lt: a short title, which whole-text heuristics leave alone
    "CUSATOR PIESE DIN PIELE ŞI ÎNLOCUITORI, Timişoara",  # ro
    "SANITARNI/A TEHNIČAR/KA",  # hr
    "Инженер-конструктор, Пловдив",  # bg
    "Μηχανικός λογισμικού – Αθήνα",  # el
    "Salary £25,000 – £30,000 per annum, don’t miss it…",  # en: pound, dashes, quotes
    "Straße, Größe, Ärzte",  # de
    "Á Í Ï Ð Ý",  # the five letters whose second byte Windows-1252 leaves undefined
    unicodedata.normalize("NFD", "Data engineer confirmé.e"),  # accents as combining marks
]


@pytest.mark.parametrize("text", _ACCENTED)
def test_text_read_as_windows_1252_is_repaired(text: str) -> None:
    assert repair_encoding(as_windows_1252(text)) == text
    assert tokenize(as_windows_1252(text)) == tokenize(text)


@pytest.mark.parametrize("text", _ACCENTED)
def test_text_read_as_latin_1_is_repaired(text: str) -> None:
    assert repair_encoding(text.encode("utf-8").decode("latin-1")) == text


def test_text_mis_decoded_twice_is_repaired() -> None:
    assert repair_encoding(as_windows_1252(as_windows_1252("équipe"))) == "équipe"


@pytest.mark.parametrize(
    "text",
    [
        "GESTÃO DE PROJETOS, SÃO PAULO",  # pt: capitals with a tilde
        "ROMÂNIA, ÎN BUCUREŞTI",  # ro
        "ÎLE-DE-FRANCE, château, pâte, Côte d’Azur, Héloïse, naïf «bio»",  # fr
        "ESPAÑA, AÑOS",  # es
        "Ångström, ÄRZTE",  # sv, de
    ],
)
def test_legitimate_text_is_left_alone(text: str) -> None:
    assert repair_encoding(text) == text


_MIXED = st.text(
    alphabet=st.sampled_from(list("aéÉèàœ’–•·ŞşčąёλЖ£€ ÃÂÅÄÎÐÑï©ª¨\u00a0\u0081.,\n")),
    max_size=30,
)


@DETERMINISTIC
@given(_MIXED)
def test_repair_is_idempotent(text: str) -> None:
    once = repair_encoding(text)
    assert repair_encoding(once) == once


@DETERMINISTIC
@given(st.text(alphabet=st.sampled_from(list("aéèàïœ’–ŞčąёλЖ£€ .,\n")), max_size=30))
def test_any_mis_decoded_text_is_repaired(text: str) -> None:
    assert repair_encoding(as_windows_1252(text)) == text
