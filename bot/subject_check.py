"""Is a paragraph about the statement's subject? Pure.

A page that gives the value for someone else is no reference: the Chronicle's paragraph on the students of a
university's guest studio names the university but not the architect who leads it, and a list page names the
value beside a thousand other people. A paragraph is admitted when it names the subject (its label, an alias,
or the family name of a personal name), or when its page is about the subject (the page's title or its opening
paragraph names it, so that "she" and "the company" further down still count). The rule that admitted it is
recorded in the trace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.values.names import mentions

NAMED = "named"
FAMILY_NAME = "family name"
TITLE = "page title"
OPENING = "opening paragraph"
NO_LABEL = "subject has no label"

_SUFFIXES = frozenset({"Jr", "Sr", "II", "III", "IV"})
_NAME_WORD = re.compile(r"[^\W\d_][\w'’.-]*")


def family_name(label: str) -> str:
    """The last word of a label shaped like a personal name ("Marta Novotná" → "Novotná"), else "".

    Two to four capitalised words and nothing else: "Czech Technical University in Prague" has a lowercase word,
    "Q990201" a digit, so neither is cut down to a part that names other things too."""
    words = label.replace(",", " ").split()
    while len(words) > 2 and words[-1].strip(".") in _SUFFIXES:
        words = words[:-1]
    if not 2 <= len(words) <= 4:
        return ""
    if not all(_NAME_WORD.fullmatch(word) and word[0].isupper() for word in words):
        return ""
    last = words[-1].strip(".")
    return last if len(last) >= 3 else ""


def named_in(text: str, names: Sequence[str]) -> tuple[str, str]:
    """(rule, the name found) when ``text`` names the subject by one of ``names`` or by the family name of the
    first; ("", "") otherwise."""
    for name in names:
        if name and mentions(name, text):
            return NAMED, name
    surname = family_name(names[0]) if names else ""
    if surname and re.search(rf"(?<!\w){re.escape(surname)}(?!\w)", text, re.IGNORECASE):
        return FAMILY_NAME, surname
    return "", ""


def page_rule(names: Sequence[str], *, title: str = "", opening: str = "") -> str:
    """Whether the page is about the subject (its title, else its opening paragraph names it): asked once per
    page; "" when it is not."""
    if title and named_in(title, names)[0]:
        return TITLE
    if opening and named_in(opening, names)[0]:
        return OPENING
    return ""


def admitting_rule(text: str, names: Sequence[str], page: str = "") -> tuple[str, str]:
    """Why a paragraph counts as about the subject, and the name it was found by in the paragraph itself
    (empty when the page made it count, ``page`` being ``page_rule``'s answer); ("", "") when it does not."""
    if not any(names):
        return NO_LABEL, ""
    rule, name = named_in(text, names)
    if rule:
        return rule, name
    return page, ""
