"""What a finder answers: where a text writes a value, and how it was recognised. Pure."""

from __future__ import annotations

from dataclasses import dataclass

LITERAL = "label"  # an item's label
ALIAS = "alias"  # an item's alias
DATE = "date"
AMOUNT = "amount"
STRING = "normalised text"
WITHOUT_PREFIX = "identifier without its type's name"  # "No. 80/1968" for "S.I. No. 80/1968"
OTHER_SEPARATORS = "identifier with other separators"  # "No. 57 of 1962" for "57/1962"
SURNAME_FIRST = "name written surname first"  # "CRAWFORD, Fred Lewis" for "Fred Lewis Crawford"
INITIALS = "name with initials"  # "Murphy, R. C." for "Robert Cushman Murphy"
WRITTEN_OUT = "name written out"  # "Allan Rex Sandage" for "Allan Sandage", "John Fitzgerald Kennedy" for "John F."
WITHOUT_ARTICLE = "label without its article"  # "Yardbirds'ten" for "The Yardbirds"
WORDS_APART = "label's words apart"  # "Listed Building Category B" for "Category B listed building"
GENDERED = "gendered word"  # "he", "Mrs." for the values male and female of sex or gender (P21)


@dataclass(frozen=True)
class Found:
    """Where a text states the value: the words as written, their span, and how they were recognised."""

    form: str
    start: int
    end: int
    how: str
