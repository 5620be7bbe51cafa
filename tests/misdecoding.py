"""Text as a feed that read its UTF-8 bytes as Windows-1252 shows it ("é" -> "Ã©"): the habit
`indexer.text.repair_encoding` undoes, written here independently of it."""

from __future__ import annotations

UNDEFINED_IN_WINDOWS_1252 = frozenset({0x81, 0x8D, 0x8F, 0x90, 0x9D})


def as_windows_1252(text: str) -> str:
    """`text` mis-decoded; the five bytes Windows-1252 leaves undefined show as Latin-1 does
    (control characters), as such feeds' decoders commonly let them through."""
    return "".join(
        chr(byte) if byte in UNDEFINED_IN_WINDOWS_1252 else bytes([byte]).decode("cp1252")
        for byte in text.encode("utf-8")
    )
