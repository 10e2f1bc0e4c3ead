"""Is a paragraph about the statement's subject? Pure.

A page that gives the value for someone else is no reference: the Chronicle's paragraph on the students of a
university's guest studio names the university but not the architect who leads it, and a list page names the
value beside a thousand other people. A paragraph is admitted when it names the subject (its label, an alias,
the sound of either in another alphabet, or the family name of a personal name — not after another given name),
or when its page is about the subject (it is on the subject's official website, P856, or the page's title or its
opening paragraph names it, so that "she" and "the orchestra" further down still count). The rule that admitted
it is recorded in the trace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from bot.documents.sentences import sentence_spans
from bot.values.names import mentions
from bot.values.transcription import transcribed_finder

NAMED = "named"
FAMILY_NAME = "family name"
# Named by the sound of a name in Latin letters, in another alphabet ("Гэри Кон" for Gary Cohn:
# ``bot.values.transcription``).
TRANSCRIBED_NAME = "named in another alphabet"
TITLE = "page title"
OFFICIAL = "official website"
OPENING = "opening paragraph"
# The page is the reference a statement already cites (``refbot verify``) and names the subject somewhere: whoever
# cited it for the statement says it is about the subject, as an official website is.
CITED = "cited for the statement"
NO_LABEL = "subject has no label"

_SUFFIXES = frozenset({"Jr", "Sr", "II", "III", "IV"})
# Capitalised words that may stand before a family name without naming someone else: titles and the words that
# start a sentence. Any other capitalised word makes another name ("Václav Havel" is not Olga Havel, "Horní
# Lhota" is not Kamenná Lhota).
_BEFORE_A_NAME = frozenset("""mr mrs ms miss mx dr prof professor sir dame lady lord madame monsieur herr frau
    pan paní doc ing mgr judge justice president senator governor general colonel major captain lieutenant
    father sister brother saint st mayor minister dean rector chancellor director chairman chairwoman
    the a an this that these those in on at by for from with and but or as when while after before since of to
    according both neither like unlike under""".split())
_NAME_WORD = re.compile(r"[^\W\d_][\w'’.-]*")
_WORD_BEFORE = re.compile(r"([\w'’.-]+)[ \t\u00a0]+$")


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
    first — not where another given name stands before it; ("", "") otherwise."""
    for name in names:
        if name and mentions(name, text):
            return NAMED, name
    for name in names:
        find = transcribed_finder([(name, NAMED)]) if name else None
        if find is not None and find(text) is not None:
            return TRANSCRIBED_NAME, name
    surname = family_name(names[0]) if names else ""
    if not surname:
        return "", ""
    own = {word.casefold() for word in names[0].split()}
    # As names are written — capitalised, or in capitals, whole or in part ("GATTY, JULIANA HORATIA", "MacLEOD,
    # NORMAND"): "Haná Chamber Orchestra" is shaped like a personal name, and "the orchestra" must not count as
    # naming it.
    for match in re.finditer(rf"(?<!\w){re.escape(surname)}(?!\w)", text, re.IGNORECASE):
        if not match.group()[0].isupper():
            continue
        before = _WORD_BEFORE.search(text, 0, match.start())
        word = before.group(1) if before else ""
        if word[:1].isupper() and word.rstrip(".").casefold() not in _BEFORE_A_NAME | own and \
                not _middle_names(text, match.start(), names[0]):
            continue  # another given name or place-name word: someone or something else of that name
        return FAMILY_NAME, surname
    return "", ""


def named_somewhere(text: str, names: Sequence[str]) -> bool:
    """Whether ``text`` names the subject at all: by one of ``names``; by the family name of a personal name written
    as a name (capitalised), whatever stands before it; or by a name's own words without the place or the like a
    label adds after them (:func:`name_head`: "Park Staromiejski" for *Park Staromiejski w Łodzi*)."""
    if named_in(text, names)[0]:
        return True
    surname = family_name(names[0]) if names else ""
    if surname and any(match.group()[0].isupper() for match in
                       re.finditer(rf"(?<!\w){re.escape(surname)}(?!\w)", text, re.IGNORECASE)):
        return True
    heads = [head for head in (name_head(name) for name in names) if head]
    return bool(heads) and named_in(text, heads)[0] != ""


# A name's head: two or more capitalised words, before the first word in lower case that a label adds to tell it from
# others ("w Łodzi", "in Prague", "am Main"); short heads name too many things.
_HEAD = re.compile(r"^((?:[^\W\d_][\w'’.-]*\s+){1,5}?[^\W\d_][\w'’.-]*)\s+[^\W\d_A-Z]\w*\s+\S")
HEAD_MIN_CHARS = 8


def name_head(name: str) -> str:
    """The capitalised words a label begins with, when a word in lower case follows them ("Park Staromiejski w
    Łodzi" → "Park Staromiejski"); "" when it has no such head or the head is short or one word ("University of
    Oxford" → "")."""
    match = _HEAD.match(name.strip())
    if match is None:
        return ""
    head = match.group(1)
    words = head.split()
    if len(words) < 2 or len(head) < HEAD_MIN_CHARS or not all(word[0].isupper() for word in words) \
            or words[0].casefold() in _ARTICLES:
        return ""
    return head


# An article begins a title ("The Presentation of …"), not a name's own words.
_ARTICLES = frozenset("the a an der die das ein eine le la les un une el los las il lo gli i de het een".split())


# Middle names a text may write between a person's given name and family name ("Kenneth Harry Clarke" for
# Kenneth Clarke), at most.
MIDDLE_NAMES = 2


def _middle_names(text: str, end: int, label: str) -> bool:
    """The capitalised words ending at ``end`` are middle names after the label's first given name: at most
    ``MIDDLE_NAMES`` of them, right after that given name (not after another: "Jana Marie Novotná" is not Marta)."""
    given = label.split()[0].casefold()
    words = text[:end].split()[-(MIDDLE_NAMES + 1):]
    for count in range(1, MIDDLE_NAMES + 1):
        if len(words) < count + 1:
            break
        middle, first = words[-count:], words[-count - 1]
        if not all(word[:1].isupper() and _NAME_WORD.fullmatch(word) for word in middle):
            break
        if first.casefold() == given:
            return True
    return False


def page_rule(names: Sequence[str], *, title: str = "", opening: str = "", official: bool = False,
              heading: str = "", cited: bool = False) -> str:
    """Whether the page is about the subject (it is on the subject's official website, its title — the
    ``<title>`` or its main heading, ``heading`` — or else its opening paragraph names it): asked once per page;
    "" when it is not. A catalogue's ``<title>`` is often the catalogue's name, its heading the record's
    ("Russell, Henry Norris, 1877-1957")."""
    if official:
        return OFFICIAL
    if cited:
        return CITED
    if title and _title_names(title, names) or _heading_names(heading, names):
        return TITLE
    if opening and named_in(opening, names)[0]:
        return OPENING
    return ""


def page_context(names: Sequence[str], *, title: str = "", opening: str = "", heading: str = "") -> str:
    """The line of a page that names the subject — its title or main heading, else the first sentence of its
    opening paragraph that does — for the judge to read before a paragraph that only says "she" or "the
    orchestra"; "" if none."""
    if title and _title_names(title, names):
        return title
    if _heading_names(heading, names):
        return heading
    for start, end in sentence_spans(opening):
        if named_in(opening[start:end], names)[0]:
            return opening[start:end]
    return ""


# Words a name's parts are joined with, which a register may leave out or write otherwise.
_GLUE = frozenset("and of the in at on de la le du".split())
# A title that writes every word of a name of at least this many words names it, in whatever order: registers
# and catalogues write "INNERLEITHEN ROAD, PEEBLES HOTEL HYDRO LODGE" for "Peebles, Innerleithen Road, Hydro
# Hotel, Lodge".
REORDERED_WORDS = 3


def _title_names(title: str, names: Sequence[str]) -> bool:
    """The title names the subject (``named_in``), or writes every word of one of its names of at least
    ``REORDERED_WORDS`` words, in another order."""
    if named_in(title, names)[0]:
        return True
    written = set(re.findall(r"\w+", title.casefold()))
    for name in names:
        words = {word for word in re.findall(r"\w+", name.casefold()) if word not in _GLUE}
        if len(words) >= REORDERED_WORDS and words <= written:
            return True
    return False


def _heading_names(heading: str, names: Sequence[str]) -> bool:
    """The page's main heading names the subject as a title does; a heading shorter than a name does not write it
    (the fuzzy match reads the shorter text inside the longer: the heading "Water" is no page about distilled
    water)."""
    longest = len(heading) * 1.1
    return bool(heading) and _title_names(heading, [name for name in names if len(name) <= longest])


PAGE_RULES = frozenset({OFFICIAL, CITED, TITLE, OPENING})


def on_official_site(url: str, websites: Sequence[str]) -> bool:
    """Whether ``url`` is on one of the subject's official websites (P856): the same host, "www." aside, and
    within the website's path ("https://example.org/orchestra/" holds "/orchestra/about", not "/choir/")."""
    page = urlsplit(url)
    for website in websites:
        site = urlsplit(website)
        if _host(page.netloc) != _host(site.netloc) or not site.netloc:
            continue
        folder = site.path if site.path.endswith("/") else site.path.rsplit("/", 1)[0] + "/"
        if (page.path or "/").startswith(folder or "/"):
            return True
    return False


def _host(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1].casefold()
    return host[4:] if host.startswith("www.") else host


def admitting_rule(text: str, names: Sequence[str], page: str = "") -> tuple[str, str]:
    """Why a paragraph counts as about the subject, and the name it was found by in the paragraph itself
    (empty when the page made it count, ``page`` being ``page_rule``'s answer); ("", "") when it does not."""
    if not any(names):
        return NO_LABEL, ""
    rule, name = named_in(text, names)
    if rule:
        return rule, name
    return page, ""
