"""The reference refbot proposes for a supported statement, and its QuickStatements line. Pure.

Properties (../shared/docs/wikidata.md, "Writing references"): P854 reference URL, P813 retrieved (day
precision), P1476 title (monolingual), P407 language of work (an item), P1065 archive URL and P2960 archive date
when the evidence came from an archived copy, P1683 quotation (the supporting sentence, monolingual, short).

P813 says when the page cited was read: the day refbot fetched a live page; for an archived copy (the live page
dead), the access date the Wikipedia citation gave, or none: refbot read the archive, whose date is P2960.

Strings are written as they are, whitespace collapsed: QuickStatements reads a string as everything between its
first and last double quote, with no escapes. A line QuickStatements would not write faithfully (see
:func:`quickstatements_hazard`) is for `refbot apply`, which writes the values verbatim.

A statement an authority record corroborates gets the reference editors add by hand for such facts
(:class:`StatedIn`): P248 stated in (the database's item, P1629 of the identifier's property), the identifier
property with the record's identifier, P813 retrieved, and P854 only when the record was not where the identifier
says (a redirect to a merged record): otherwise the identifier leads to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from bot.datamodel import Statement

# Items for the languages pages are most often written in; a page in another language gets no P407.
LANGUAGE_ITEMS = {
    "ar": "Q13955", "ca": "Q7026", "cs": "Q9056", "da": "Q9035", "de": "Q188", "el": "Q9129", "en": "Q1860",
    "es": "Q1321", "fi": "Q1412", "fr": "Q150", "he": "Q9288", "hu": "Q9067", "it": "Q652", "ja": "Q5287",
    "ko": "Q9176", "la": "Q397", "nb": "Q25167", "nl": "Q7411", "pl": "Q809", "pt": "Q5146", "ru": "Q7737",
    "sk": "Q9058", "sv": "Q9027", "tr": "Q256", "uk": "Q8798", "zh": "Q7850",
}
# Their English labels, which a curator reads beside the item (P407's text).
LANGUAGE_NAMES = {
    "ar": "Arabic", "ca": "Catalan", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek", "en": "English",
    "es": "Spanish", "fi": "Finnish", "fr": "French", "he": "Hebrew", "hu": "Hungarian", "it": "Italian",
    "ja": "Japanese", "ko": "Korean", "la": "Latin", "nb": "Norwegian Bokmål", "nl": "Dutch", "pl": "Polish",
    "pt": "Portuguese", "ru": "Russian", "sk": "Slovak", "sv": "Swedish", "tr": "Turkish", "uk": "Ukrainian",
    "zh": "Chinese",
}
# What QuickStatements does with characters a string may hold, the first found is the reason a line is not exported:
# magnus's QuickStatements and quickstatements_rs take a string as everything between its first and last double
# quote (an inner " survives); QuickStatements 3 turns typographic quotes into straight ones, and older releases of it
# read every | as a column break; all of them read /* … */ as the edit summary.
QUICKSTATEMENTS_HAZARDS = (
    ("|", "older QuickStatements 3 reads every | as a column break"),
    ("“", "QuickStatements 3 turns typographic quotes into straight ones"),
    ("”", "QuickStatements 3 turns typographic quotes into straight ones"),
    ("/*", "QuickStatements reads /* … */ as the edit summary"),
    ("*/", "QuickStatements reads /* … */ as the edit summary"),
    ('\\"', "QuickStatements has no escapes: it may read it as an escaped quote or as a backslash and a quote"),
)
QUOTATION_MAX = 400
TITLE_MAX = 400
_LANGUAGE = re.compile(r"^[a-z]{2,3}(-[a-z0-9]{1,8})*\Z")


@dataclass(frozen=True)
class Snak:
    property_id: str
    value: str  # as QuickStatements writes it
    text: str  # as a curator reads it
    label: str = ""  # the property's label, when the trace gave it
    # The property's datatype, for the properties a web reference does not use (the identifier's: external-id).
    datatype: str = ""

    @property
    def shown(self) -> str:
        """The text as a curator checks it before it is written: a monolingual text with its language
        (``Novotná honoured (language: en)``), an item with its id (``English (Q1860)``)."""
        return shown_text(self.value, self.text)


_MONOLINGUAL = re.compile(r'([a-z][a-z0-9-]*):"')


def snak_note(value: str, text: str) -> str:
    """What a snak's text alone hides: a monolingual text's language (``language: en``), an item's id; "" else."""
    language = _MONOLINGUAL.match(value)
    if language:
        return f"language: {language.group(1)}"
    if re.fullmatch(r"Q[1-9][0-9]*", value) and value not in text:
        return value
    return ""


def shown_text(value: str, text: str) -> str:
    """A snak's text with its :func:`snak_note`: ``Novotná honoured (language: en)``, ``English (Q1860)``."""
    note = snak_note(value, text)
    return f"{text} ({note})" if note else text


@dataclass(frozen=True)
class ProposedReference:
    url: str
    retrieved: date | None  # when the page cited was read (None: an archived copy whose citation gave no date)
    title: str = ""
    language: str = ""  # the page's language code ("" when unknown)
    archive_url: str = ""
    archive_date: date | None = None
    quotation: str = ""

    @property
    def monolingual_code(self) -> str:
        """The code for P1476/P1683: the page's language, or ``und`` (undetermined) when it is unknown."""
        code = self.language.lower().split("-")[0] if self.language else ""
        return code if _LANGUAGE.match(code) else "und"

    def snaks(self) -> list[Snak]:
        snaks = [Snak("P854", quoted(self.url), self.url)]
        if self.retrieved is not None:
            snaks.append(Snak("P813", day(self.retrieved), self.retrieved.isoformat()))
        if self.title:
            title = clip(self.title, TITLE_MAX)
            snaks.append(Snak("P1476", f"{self.monolingual_code}:{quoted(title)}", title))
        item = LANGUAGE_ITEMS.get(self.monolingual_code)
        if item:
            snaks.append(Snak("P407", item, LANGUAGE_NAMES[self.monolingual_code]))
        if self.archive_url:
            snaks.append(Snak("P1065", quoted(self.archive_url), self.archive_url))
            if self.archive_date:
                snaks.append(Snak("P2960", day(self.archive_date), self.archive_date.isoformat()))
        if self.quotation:
            quotation = clip(self.quotation, QUOTATION_MAX)
            snaks.append(Snak("P1683", f"{self.monolingual_code}:{quoted(quotation)}", quotation))
        return snaks


@dataclass(frozen=True)
class StatedIn:
    """The "stated in" reference of a statement a database's record states."""

    database: str  # the database's item (P248); "" when the identifier's property names none (P1629)
    database_label: str
    identifier_property: str
    identifier_label: str
    identifier: str
    retrieved: date
    record_url: str  # where the record was read (the trace's link)
    moved_to: str = ""  # the record's URL when it is not the one the identifier gives (then P854)

    @property
    def url(self) -> str:
        return self.moved_to or self.record_url

    def snaks(self) -> list[Snak]:
        snaks = [Snak("P248", self.database, self.database_label or self.database, "stated in",
                      "wikibase-item")] if self.database else []
        snaks.append(Snak(self.identifier_property, quoted(self.identifier), self.identifier, self.identifier_label,
                          "external-id"))
        if self.moved_to or not self.database:
            snaks.append(Snak("P854", quoted(self.url), self.url))
        snaks.append(Snak("P813", day(self.retrieved), self.retrieved.isoformat()))
        return snaks


@dataclass(frozen=True)
class ArchivedCopy:
    """What a reference whose page died lacks (`refbot verify`): its archived copy, the archive URL (P1065) and the
    archive date (P2960), to be added to that reference — identified by its hash — and not beside it."""

    url: str  # the reference's page (its P854, or the page its identifier names)
    archive_url: str
    archive_date: date
    reference: str  # the hash of the reference to add them to

    def snaks(self) -> list[Snak]:
        return [Snak("P1065", quoted(self.archive_url), self.archive_url),
                Snak("P2960", day(self.archive_date), self.archive_date.isoformat())]


def wayback_date(timestamp: str) -> date | None:
    """``20190501000000`` → 2019-05-01."""
    try:
        return date(int(timestamp[:4]), int(timestamp[4:6]), int(timestamp[6:8]))
    except (ValueError, IndexError):
        return None


def day(when: date) -> str:
    return f"+{when.isoformat()}T00:00:00Z/11"


def quoted(text: str) -> str:
    """A QuickStatements string: the text as it is, its tabs and line breaks (QuickStatements' separators) and runs
    of spaces made one space. Nothing is replaced: QuickStatements takes everything between the first and the last
    double quote, so one inside stays."""
    return '"' + " ".join(text.split()) + '"'


def quickstatements_hazard(text: str) -> str:
    """Why QuickStatements would not write ``text`` as it is ("" when it would): the character and what
    QuickStatements does with it."""
    for characters, what in QUICKSTATEMENTS_HAZARDS:
        if characters in text:
            return f"holds {characters}: {what}"
    return ""


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "…"


def quickstatements(statement: Statement, reference: ProposedReference | StatedIn, summary: str = "") -> str:
    """One V1 command adding the reference to the statement with that value: tab-separated, since titles
    may hold ``|``. QuickStatements picks the statement by value, so a value that repeats on the item may
    get the reference on the wrong statement; curators see the GUID in the report."""
    columns = [statement.item, statement.property_id, statement.value.raw]
    for snak in reference.snaks():
        columns += ["S" + snak.property_id[1:], snak.value]
    line = "\t".join(columns)
    return f"{line}\t/* {' '.join(summary.replace('*/', '').split())} */" if summary else line
