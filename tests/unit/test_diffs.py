"""Word-level diffs: the segments give back both texts exactly, and mark what changed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.diffs import DiffSegment, diff_texts, tokens


def joined(segments: list[DiffSegment]) -> tuple[str, str]:
    return "".join(s.a for s in segments), "".join(s.b for s in segments)


def test_tokens_keep_every_character() -> None:
    text = "  Staff Nurse,\tband 5 —\n\nWard 3. "
    assert tokens(text) == [
        "  ",
        "Staff ",
        "Nurse",
        ",\t",
        "band ",
        "5 ",
        "—\n\n",
        "Ward ",
        "3",
        ". ",
    ]
    assert "".join(tokens(text)) == text


def test_a_changed_word_is_one_replace_between_equal_runs() -> None:
    diff = diff_texts("Staff nurse in Leeds, band 5.", "Staff nurse in York, band 5.")
    assert [(s.op, s.a, s.b) for s in diff.segments] == [
        ("equal", "Staff nurse in ", "Staff nurse in "),
        ("replace", "Leeds", "York"),
        ("equal", ", band 5.", ", band 5."),
    ]
    assert not diff.truncated


def test_rewrapped_text_is_equal_with_each_side_s_own_whitespace() -> None:
    diff = diff_texts("one two\nthree", "one  two three")
    assert [(s.op, s.a, s.b) for s in diff.segments] == [
        ("equal", "one two\nthree", "one  two three")
    ]


def test_inserted_and_deleted_words() -> None:
    diff = diff_texts("a b c", "a x b")
    assert [(s.op, s.a, s.b) for s in diff.segments] == [
        ("equal", "a ", "a "),
        ("insert", "", "x "),
        ("equal", "b ", "b"),
        ("delete", "c", ""),
    ]


def test_long_texts_are_compared_up_to_the_cap_and_still_reassemble() -> None:
    a = " ".join(f"w{i}" for i in range(50))
    b = " ".join(f"w{i}" for i in range(40)) + " tail"
    diff = diff_texts(a, b, max_tokens=10)
    assert diff.truncated
    assert diff.segments[0].op == "equal" and diff.segments[-1].op == "replace"
    assert joined(diff.segments) == (a, b)


@given(st.text(max_size=200), st.text(max_size=200))
def test_segments_reassemble_into_both_texts(a: str, b: str) -> None:
    diff = diff_texts(a, b, max_tokens=30)
    assert joined(diff.segments) == (a, b)
    for segment in diff.segments:
        assert (segment.op == "insert") == (segment.a == "" and segment.b != "")
        assert (segment.op == "delete") == (segment.b == "" and segment.a != "")
    assert all(x.op != y.op for x, y in zip(diff.segments, diff.segments[1:], strict=False))
