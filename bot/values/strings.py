"""Strings and identifiers as pages write them: case, dashes, quotes and runs of spaces do not matter. Pure."""

from __future__ import annotations

import re
import unicodedata

from bot.values.found import STRING, Found

DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")
QUOTES = dict.fromkeys(map(ord, "„“”«»‚‘’`´"), "'") | {ord('"'): "'"}


def normalised(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).translate(DASHES).translate(QUOTES).casefold()
    return " ".join(folded.split())


def find_normalised(needle: str, text: str) -> Found | None:
    """Case, dashes, quotes and runs of spaces do not matter; a short needle must be a whole word."""
    haystack = unicodedata.normalize("NFKC", text).translate(DASHES).translate(QUOTES).casefold()
    # Map positions of the space-collapsed haystack back to the text.
    positions, collapsed, previous_space = [], [], False
    for index, char in enumerate(haystack):
        if char.isspace():
            if previous_space:
                continue
            char, previous_space = " ", True
        else:
            previous_space = False
        positions.append(index)
        collapsed.append(char)
    joined = "".join(collapsed)
    for match in re.finditer(re.escape(needle), joined):
        start, end = match.start(), match.end()
        before = joined[start - 1] if start else " "
        after = joined[end] if end < len(joined) else " "
        if (before.isalnum() and needle[0].isalnum()) or (after.isalnum() and needle[-1].isalnum()):
            continue
        first, last = positions[start], positions[end - 1] + 1
        if len(haystack) == len(text):
            return Found(text[first:last], first, last, STRING)
        return Found(needle, 0, 0, STRING)
    return None


# An identifier's leading words without digits ("S.I.", "SI", "ISBN", "DOI:") name its type; a page whose context
# already names the type writes the identifier without them ("No. 80/1968" for "S.I. No. 80/1968", "2014 No. 3049"
# for "SI 2014 No. 3049"). What is left must still carry the identifier: at least MIN_DIGITS digits.
MIN_DIGITS = 4
_PREFIX = re.compile(r"^(?:[^\W\d]+[.:]?\s*)+?(?=\S*\d)")


def without_type_prefix(value: str) -> str:
    """The identifier without the words before its first word holding a digit, when the rest keeps at least
    ``MIN_DIGITS`` digits and a prefix was there; else ""."""
    tokens = value.split()
    first = next((index for index, token in enumerate(tokens) if any(char.isdigit() for char in token)), 0)
    rest = " ".join(tokens[first:])
    if first == 0 or sum(char.isdigit() for char in rest) < MIN_DIGITS:
        return ""
    return rest


def surname_first(value: str) -> str:
    """"Crawford, Fred Lewis" for a personal name of two to four words of letters ("Fred Lewis Crawford"), as
    registers, catalogues and biographical dictionaries write it; else ""."""
    words = value.split()
    if not 2 <= len(words) <= 4 or not all(word.replace(".", "").replace("-", "").isalpha() for word in words):
        return ""
    return f"{words[-1]}, {' '.join(words[:-1])}"


def personal_name_words(value: str) -> list[str]:
    """The words of ``value`` when it reads as a personal name: two to four capitalised words of letters (a
    hyphen or an initial's dot allowed); else []."""
    words = value.split()
    if not 2 <= len(words) <= 4:
        return []
    if not all(word[0].isupper() and word.replace(".", "").replace("-", "").replace("'", "").isalpha()
               for word in words):
        return []
    return words


def initialled(value: str) -> tuple[str, ...]:
    """A personal name with its given names as initials, as catalogues and citations write authors: "R. C.
    Murphy", "Murphy, R. C." (also without the spaces between initials) for "Robert Cushman Murphy"; () for
    anything that does not read as a personal name."""
    words = personal_name_words(value)
    if not words:
        return ()
    initials = [f"{word[0]}." for word in words[:-1]]
    forms = []
    for joined in (" ".join(initials), "".join(initials)):
        forms += [f"{joined} {words[-1]}", f"{words[-1]}, {joined}"]
    return tuple(dict.fromkeys(forms))
