"""Strings and identifiers as pages write them: case, dashes, quotes and runs of spaces do not matter, nor a
footnote marker glued after them ("80/1968²"); a numbered act or instrument is also found with the other
separators registers write between its number and its year ("No. 57 of 1962" for "57/1962"). Pure."""

from __future__ import annotations

import re
import unicodedata

from bot.values.found import STRING, Found
from bot.values.markers import SUPERSCRIPT_DIGITS

DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")
QUOTES = dict.fromkeys(map(ord, "„“”«»‚‘’`´"), "'") | {ord('"'): "'"}


def normalised(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).translate(DASHES).translate(QUOTES).casefold()
    return " ".join(folded.split())


def find_normalised(needle: str, text: str) -> Found | None:
    """Case, dashes, quotes and runs of spaces do not matter; a short needle must be a whole word."""
    return find_normalised_pattern(re.compile(re.escape(needle)), text)


def find_normalised_pattern(pattern: re.Pattern[str], text: str) -> Found | None:
    """The first match of ``pattern`` (written for normalised text) in ``text``, normalised; a match that begins
    or ends with a letter or a digit must be a whole word, though a footnote's superscript digit may follow it."""
    haystack = unicodedata.normalize("NFKC", text).translate(DASHES).translate(QUOTES).casefold()
    aligned = len(haystack) == len(text)
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
    for match in pattern.finditer(joined):
        start, end = match.start(), match.end()
        before = joined[start - 1] if start else " "
        after = joined[end] if end < len(joined) else " "
        if aligned and end < len(joined) and text[positions[end]] in SUPERSCRIPT_DIGITS:
            after = " "  # a note's number: NFKC made "80/1968²" "80/19682"
        if (before.isalnum() and joined[start].isalnum()) or (after.isalnum() and joined[end - 1].isalnum()):
            continue
        first, last = positions[start], positions[end - 1] + 1
        if aligned:
            return Found(text[first:last], first, last, STRING)
        return Found(match.group(0), 0, 0, STRING)
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


# Registers number acts and instruments within a year and write the pair in several ways: "Act No. 57 of 1962",
# "57/1962", "57-1962"; "SI 2014 No. 3049" is also cited "S.I. 2014/3049". Between two groups of digits of an
# identifier, "/", "-" and a space are one separator; so are "of" before a year and "No." after one. Not "." or
# ",": "57.1962" and "3,4567" are numbers.
_BETWEEN_DIGITS = re.compile(r"(?<=\d)(?: ?[/.-] ?| of | no\.? | )(?=\d)")
_YEAR = re.compile(r"(?:1\d{3}|20\d{2})(?!\d)")
_YEAR_BEFORE = re.compile(r"(?<!\d)(?:1\d{3}|20\d{2})\Z")


def numbered_pattern(needle: str) -> re.Pattern[str] | None:
    """A pattern for a normalised identifier with any of the separators registers write between its groups of
    digits; None unless it has two groups and ``MIN_DIGITS`` digits."""
    if sum(char.isdigit() for char in needle) < MIN_DIGITS:
        return None
    parts, last = [], 0
    for separator in _BETWEEN_DIGITS.finditer(needle):
        year_after = bool(_YEAR.match(needle, separator.end()))
        year_before = bool(_YEAR_BEFORE.search(needle, 0, separator.start()))
        written = separator.group(0).strip()
        if (written == "of" and not year_after) or (written in ("no", "no.") and not year_before):
            continue  # words of the identifier's own
        alternatives = [r" ?[/-] ?", " ", *[" of "] * year_after, *[r" no\.? "] * year_before]
        parts += [re.escape(needle[last:separator.start()]), "(?:" + "|".join(alternatives) + ")"]
        last = separator.end()
    if not parts:
        return None
    return re.compile("".join(parts) + re.escape(needle[last:]))


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


# A name word as a text writes it: letters, with a hyphen or apostrophe inside, an initial's dot after.
_NAME_TOKEN = re.compile(r"[^\W\d_][\w'’-]*\.?")
# Middle names a text may write between two words of a personal name that its label leaves out.
MIDDLE_NAMES = 2


def written_out(value: str) -> re.Pattern[str] | None:
    """Where a text writes a personal name with what its label abbreviates or leaves out written out: "Allan Rex
    Sandage" for *Allan Sandage*, "John Fitzgerald Kennedy" for *John F. Kennedy* — its words in order, each initial
    of the label as a capitalised name of that letter, up to ``MIDDLE_NAMES`` capitalised names or initials before
    the family name; None for a label that does not read as a personal name (``personal_name_words``).

    The pattern matches the text's words separated by single spaces; ``find_written_out`` applies it."""
    words = personal_name_words(value)
    if not words:
        return None
    parts = []
    for word in words[:-1]:
        letters = word.rstrip(".")
        if len(letters) == 1:  # an initial: the name it stands for, or the initial
            parts.append(rf"{re.escape(letters)}(?:[^\W\d_][\w'’-]*|\.)")
        else:
            parts.append(re.escape(word))
    middle = rf"(?: [^\W\d_][\w'’-]*\.?){{0,{MIDDLE_NAMES}}}"
    return re.compile(" ".join(parts) + middle + " " + re.escape(words[-1]) + r"(?![\w'’-])")


def find_written_out(pattern: re.Pattern[str], label: str, text: str) -> tuple[int, int] | None:
    """The span of the first place ``text`` writes the name ``pattern`` (``written_out``) stands for, its middle
    names capitalised, and not as the label writes it (that is the label's own match)."""
    tokens = [(match.start(), match.end(), match.group()) for match in _NAME_TOKEN.finditer(text)]
    joined = " ".join(token for _, _, token in tokens)
    starts, at = [], 0
    for _, _, token in tokens:
        starts.append(at)
        at += len(token) + 1
    label_words = [word.casefold() for word in label.split()]
    for match in pattern.finditer(joined):
        if match.start() not in starts or (match.start() and joined[match.start() - 1] != " "):
            continue
        first = starts.index(match.start())
        count = match.group().count(" ") + 1
        written = [token for _, _, token in tokens[first:first + count]]
        if not all(token[0].isupper() for token in written):
            continue
        if [token.casefold() for token in written] == label_words:
            continue
        return tokens[first][0], tokens[first + count - 1][1]
    return None


# An item's label written with its words apart ("Listed Building Category B" for Category B listed building,
# "Action, Crime, Thriller" beside "film" for action film, "the director of the film" for film director): every
# word of a label of two to ``APART_MOST_WORDS`` words (besides the glue words below) within ``APART_WINDOW``
# words of the text. The label must have a word in lower case (a common noun, the kind of thing it is): a proper
# name's words are one name only together ("George H. W. Bush" is not George W. Bush). A capitalised word of the
# label is matched as written (or in capitals), a lowercase one in any case and also with a plural's "s"; a word of
# one or two letters ("B", "II") only right beside another of them.
APART_WINDOW = 12
APART_MOST_WORDS = 4
_APART_GLUE = frozenset("a an and of the in at on for to".split())
_APART_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
# Words of the label this short are matched only this many words from another of its words.
_SHORT_WORD = 2
_BESIDE = 2


def find_words_apart(label: str, text: str) -> tuple[int, int] | None:
    """The span from the first to the last of the label's words where the text writes them all within
    ``APART_WINDOW`` words, in any order; None where it does not, or the label has one word, more than
    ``APART_MOST_WORDS`` or none in lower case."""
    words = list(dict.fromkeys(word for word in _APART_WORD.findall(label) if word.casefold() not in _APART_GLUE))
    if not 2 <= len(words) <= APART_MOST_WORDS or not any(word.islower() for word in words):
        return None
    tokens = [(match.start(), match.end(), match.group(0)) for match in _APART_WORD.finditer(text)]
    places = [[index for index, (_, _, token) in enumerate(tokens) if _agrees(token, word)] for word in words]
    if not all(places):
        return None
    for first in sorted({index for found in places for index in found}):
        chosen = [next((index for index in found if first <= index <= first + APART_WINDOW), None)
                  for found in places]
        if None in chosen:
            continue
        at = [index for index in chosen if index is not None]
        if all(len(word) > _SHORT_WORD or any(0 < abs(index - other) <= _BESIDE for other in at)
               for word, index in zip(words, at)):
            return tokens[min(at)][0], tokens[max(at)][1]
    return None


def _agrees(token: str, word: str) -> bool:
    if not word.islower():
        return token == word or token == word.upper()
    folded = token.casefold()
    return folded == word or folded == f"{word}s" or folded == f"{word}es"


# A name that opens with the English article is written without it by other languages and in lists ("Yardbirds'ten",
# "die Beatles", "Hague" in "Den Haag/Hague"); what is left must be this long, and is matched as written, capital
# and all ("three times" is not The Times).
_ARTICLE = re.compile(r"The\s+(?=[A-Z])")
ARTICLE_LESS_LETTERS = 5


def without_article(label: str) -> re.Pattern[str] | None:
    """A pattern for the label without its opening "The", as written and as a whole word; None for a label without
    one or with fewer than ``ARTICLE_LESS_LETTERS`` letters after it ("The Who")."""
    article = _ARTICLE.match(label)
    rest = label[article.end():].strip() if article else ""
    if sum(char.isalpha() for char in rest) < ARTICLE_LESS_LETTERS:
        return None
    return re.compile(rf"(?<!\w){re.escape(rest)}(?!\w)")
