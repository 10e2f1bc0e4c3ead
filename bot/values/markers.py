"""Where a number a page writes ends, footnote markers glued to it left out: "1871[2]", "1871[note 1]", "1871[a]",
"1871*", "1871²", and a note's number glued after the full stop that ends the sentence, "born on 3 May 1871.2"
(a page's superscript note lost its markup). Pure.

Brackets and asterisks never made a number longer; a superscript digit is a word character to ``re``, so a year
is whole before one (``WORD_END``). A full stop and a digit are a decimal part ("1871.25" is an amount, not a
year), except where a year cannot have one (``YEAR_END``: after a day or a month, "3 May 1871.2") or where a new
sentence follows the note (``FREE_YEAR_END``: "in 1826.6 Atropine was …", not "1871.2 Million"). A year followed
by another digit ("18712") is never that year: the note's markup is gone, and the number is another one.
"""

from __future__ import annotations

SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
# A word character that a number cannot run on into: a superscript digit after it is a note.
WORD_END = rf"(?![^\W{SUPERSCRIPT_DIGITS}])"
# Capitals and small letters of the Latin, Greek and Cyrillic scripts: a new sentence is a capitalised word.
_UPPER = "".join(chr(code) for code in range(0x41, 0x530) if chr(code).isalpha() and chr(code).isupper())
_LOWER = "".join(chr(code) for code in range(0x41, 0x530) if chr(code).isalpha() and chr(code).islower())
# Capitalised words that go on the number ("1871.2 Million"), not a new sentence.
_SCALES = r"(?i:million|millionen|billion|milliarden|thousand|mio|mrd)(?!\w)"
# A note's number (or several, "1871.2,3") glued after the sentence's full stop.
_NOTE = r"\.\d{1,3}(?:,\d{1,3})*(?![\w.,])"
_NEW_SENTENCE = rf"\s+(?!{_SCALES})(?-i:[{_UPPER}][{_LOWER}])"


def _number_end(note: str) -> str:
    """No digit follows, nor a decimal part unless it is ``note``."""
    return rf"(?!\d)(?!(?!{note})[.,]\d)"


# The end of a year a day or a month leads ("3 May 1871", "14.1.1943"): a decimal part there is a note.
YEAR_END = _number_end(_NOTE)
# The end of a year standing alone: a decimal part is a note only when a new sentence follows it.
FREE_YEAR_END = _number_end(_NOTE + f"(?={_NEW_SENTENCE})")
