"""The dates a page gives about itself, not about what it is about. Pure.

A page carries its own dates: when it was published, updated, posted, retrieved or archived, its copyright, a news
article's dateline ("LONDON, June 14 (Reuters) –", "June 14, 1987 —" opening it) and, in wiki markup copied into
a page, the parameters of a citation (``archivedate = …``, ``access-date=…``, ``|date=`` in a cited work). They
date the page or a work it cites, not an event of its subject: an obituary is dated days after the death it
reports. ``page_date`` says which of these a date written in a text is, by how pages are built: a label before it
on its line, its place at the start of a line with a dash after it, a markup key before it.
"""

from __future__ import annotations

import re

# Labels that always date the page or a copy of it, wherever they stand and however they are cased.
_PAGE_CUES = (r"retrieved|accessed|access(?:ed)?[\s-]+(?:on|date)|date\s+accessed|archived|archive\s+date|"
              r"last\s+(?:modified|updated|edited|reviewed|revised|changed)|copyright|©|\(c\)")
# Labels that date the page where they stand as a label (capitalised): "Published: 14 June 1987", "Posted by …
# on June 14, 2010", "Updated 14:23 BST, 14 June 2010"; lower case in a sentence they may tell of a work.
_LABEL_CUES = r"published|first\s+published|date\s+published|publication\s+date|updated|posted|date\s+posted|modified"
_CUE = re.compile(rf"(?<![\w-])(?:(?P<page>(?i:{_PAGE_CUES}))|(?P<label>(?i:{_LABEL_CUES})))(?!\w)")
# What may stand between a label and its date: a few words on the same line ("from the original on", "by Jane
# Doe on", a time "14:23 BST,"), no sentence end (an initial's period aside).
GAP_WORDS = 8
_GAP = re.compile(r"(?:[^\S\n]|[:|,@–—-]|\b[A-Z]\.|[\w'’]+(?![\w'’]))*\Z")
# A dateline: the date opens its line, after a place in capitals or capitalised words and a comma ("LONDON,",
# "Washington, D.C.,"), and a news agency in brackets and a dash follow it ("(Reuters) –"); a bare date opening a
# line is one only with the dash after it ("June 14, 1987 —").
_PLACE = re.compile(r"\A[^\S\n]*(?:[A-Z][\w.'’-]*(?:[^\S\n]+[A-Z][\w.'’-]*){0,3},(?:[^\S\n]*[A-Z][\w.'’-]*,)?)?"
                    r"[^\S\n]*\Z")
# After the dash no second date: "Novotná, Marta, 3 March 1921 – 9 May 1990" is a life span.
_AFTER_DATELINE = re.compile(r"[^\S\n]*(?:\([^()\n]{1,40}\)[^\S\n]*)?[–—-]{1,2}\s"
                             r"(?![^\S\n]*(?:\d|[^\W\d_]{3,}\.?\s+\d))")
# A citation parameter right before the date: "| archivedate = ", "|access-date=", "{{cite web |date=".
_PARAMETER = re.compile(r"[|{][^\S\n]*(?P<key>[A-Za-z][\w-]*(?:[ _][A-Za-z][\w-]*)?)[^\S\n]*=[^\S\n]*\[*\Z")
_OWN_KEYS = frozenset("access accessed archive archived retrieved publication published pub orig original "
                      "update updated modified".split())
_CITATION = re.compile(r"\{\{[^\S\n]*(?:cite|citation)\b|[|][^\S\n]*(?:url|title|publisher|work)[^\S\n]*=",
                       re.IGNORECASE)
# An article's byline: "By" and its author's name of two to four capitalised words, the date right after it.
_BYLINE = re.compile(r"(?:^|[\s|•·])By[^\S\n]+(?:[A-Z][\w.'’-]*[^\S\n]+){2,4}(?:[|•·,–—-][^\S\n]*)?\Z")
BYLINE = "byline"
TEMPLATE_REACH = 600  # characters looked back for the citation template a bare "date =" stands in
DATELINE = "dateline"


def page_date(text: str, start: int, end: int) -> str:
    """What ``text[start:end]``, a date, dates when it is one of the page's own dates — the label before it,
    folded ("published", "retrieved", "last modified", "©"), the markup key ("archivedate", "date"), or
    ``DATELINE`` — and "" when it is a date the text gives for something else."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    parameter = _PARAMETER.search(before)
    if parameter is not None:
        return _citation_key(text, line_start + parameter.start(), parameter.group("key"))
    if _PLACE.match(before) and _AFTER_DATELINE.match(text, end) and (before.strip() or _has_day_or_month(
            text[start:end]) or text[end:].lstrip().startswith("(")):
        return DATELINE
    return _label(before)


def _citation_key(text: str, at: int, key: str) -> str:
    """The key of a citation's parameter, folded ("archivedate"), when it dates the page, a copy of it or the cited
    work: an access, archive or publication date anywhere; a bare "date" or "year" inside a citation template (an
    infobox's "| date = 1066" dates its subject)."""
    folded = re.sub(r"[-_ ]", "", key.casefold())
    if folded in ("date", "year"):
        opened = text.rfind("{{", max(0, at - TEMPLATE_REACH), at + 1)
        closed = text.rfind("}}", max(0, at - TEMPLATE_REACH), at)
        cited = opened >= 0 and closed < opened and _CITATION.search(text, opened, at + TEMPLATE_REACH)
        return folded if cited else ""
    own = folded in _OWN_KEYS or folded.endswith("date") and folded[:-4] in _OWN_KEYS
    return key.casefold() if own else ""


def _label(before: str) -> str:
    """The label before a date on its line that makes it the page's, folded ("byline" for an author's name before
    it: "By Jane Doe Aug. 6, 2011"); "" when none stands there."""
    if _BYLINE.search(before):
        return BYLINE
    for cue in reversed(list(_CUE.finditer(before))):
        gap = before[cue.end():]
        if len(re.findall(r"[\w'’]+", gap)) > GAP_WORDS or not _GAP.match(gap):
            continue
        if cue.group("label") is not None and not cue.group(0)[0].isupper():
            continue  # "her novel was published on …" tells of a work; "Published:" labels the page
        return " ".join(cue.group(0).casefold().split())
    return ""


def _has_day_or_month(form: str) -> bool:
    """A date finer than a year: at least two parts ("June 14", "1987-06-14"); a year opening a line with a dash
    is a chronology's entry ("1921 – born in Brno"), not a dateline."""
    return len(re.findall(r"\d+|[^\W\d_]{3,}", form)) >= 2
