"""The proposed reference, its snaks for a live page, an archived copy and an authority record, and its
QuickStatements line: written so that QuickStatements reads back exactly the text, or refused with the reason."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

import pytest

from bot.checking.statement import propose
from bot.datamodel import Statement, Value
from bot.documents.fetching import Fetched, Outcome as FetchOutcome
from bot.references import (LANGUAGE_ITEMS, LANGUAGE_NAMES, ProposedReference, StatedIn, quickstatements,
                            quickstatements_hazard, wayback_date)
from test_trace import STATEMENT, supported_check

AWARD = Statement("Q36233", "Václav Havel", "Q36233$A1B2", "P166", "award received",
                  Value("wikibase-item", "Q2537841", "Prince of Asturias Award for Communication and Humanities"))
DEAD = "http://herald.example/2019/06/brno-innovation-award-novotna.html"
WAYBACK = f"https://web.archive.org/web/20190612083015/{DEAD}"


def snaks(reference: ProposedReference | StatedIn) -> list[tuple[str, str, str]]:
    return [(s.property_id, s.value, s.text) for s in reference.snaks()]


def test_a_live_english_page_gives_url_retrieved_title_language_by_name_and_the_quotation_verbatim():
    reference = ProposedReference("https://news.example.org/1997/havel", date(2026, 11, 21),
                                  title="Havel honoured with Asturias prize", language="en",
                                  quotation='Havel has been awarded the "Prince of Asturias Award".')
    assert snaks(reference) == [
        ("P854", '"https://news.example.org/1997/havel"', "https://news.example.org/1997/havel"),
        ("P813", "+2026-11-21T00:00:00Z/11", "2026-11-21"),
        ("P1476", 'en:"Havel honoured with Asturias prize"', "Havel honoured with Asturias prize"),
        ("P407", "Q1860", "English"),
        ("P1683", 'en:"Havel has been awarded the "Prince of Asturias Award"."',
         'Havel has been awarded the "Prince of Asturias Award".')]
    assert quickstatements(AWARD, reference, "refbot 0.1.0: reference checked by an LLM */ x") == "\t".join([
        "Q36233", "P166", "Q2537841", "S854", '"https://news.example.org/1997/havel"', "S813",
        "+2026-11-21T00:00:00Z/11", "S1476", 'en:"Havel honoured with Asturias prize"', "S407", "Q1860",
        "S1683", 'en:"Havel has been awarded the "Prince of Asturias Award"."',
        "/* refbot 0.1.0: reference checked by an LLM x */"])


def test_an_archived_copy_keeps_the_citations_access_date_as_retrieved_or_has_none():
    accessed = ProposedReference(DEAD, date(2019, 6, 14), title="The Brno chemist", language="en",
                                 archive_url=WAYBACK, archive_date=wayback_date("20190612083015"))
    assert [(p, v) for p, v, _ in snaks(accessed)] == [
        ("P854", f'"{DEAD}"'), ("P813", "+2019-06-14T00:00:00Z/11"), ("P1476", 'en:"The Brno chemist"'),
        ("P407", "Q1860"), ("P1065", f'"{WAYBACK}"'), ("P2960", "+2019-06-12T00:00:00Z/11")]
    undated = replace(accessed, retrieved=None, title="Výsledky\tankety | 1968", language="")
    values = {p: v for p, v, _ in snaks(undated)}
    assert list(values) == ["P854", "P1476", "P1065", "P2960"], "no P813: refbot did not read the page itself"
    assert values["P1476"] == 'und:"Výsledky ankety | 1968"' and wayback_date("2019") is None


def archived_check(access_date: date | None):
    """supported_check's document, its live page dead and the Wayback copy (12 June 2019) read instead."""
    check = supported_check()
    document = check.documents[0]
    live = Fetched(DEAD, FetchOutcome.IRRETRIEVABLE, status=404, retrieved="2026-11-27T02:13:59Z")
    copy = replace(document.retrieved.live, url=WAYBACK, archive_url=WAYBACK, archive_timestamp="20190612083015",
                   retrieved="2026-11-27T02:13:59Z")
    return replace(document, candidate=replace(document.candidate, url=DEAD, origin="wikipedia",
                                               access_date=access_date),
                   retrieved=replace(document.retrieved, url=DEAD, live=live, archived=copy))


def test_propose_dates_a_live_page_by_its_fetch_and_an_archived_copy_by_the_citation():
    live = propose(STATEMENT, list(supported_check().documents))
    assert live is not None and live.retrieved == date(2026, 11, 21) and not live.archive_url

    archived = propose(STATEMENT, [archived_check(date(2019, 6, 14))])
    assert archived is not None
    assert [(p, t) for p, _, t in snaks(archived) if p in ("P854", "P813", "P1065", "P2960")] == [
        ("P854", DEAD), ("P813", "2019-06-14"), ("P1065", WAYBACK), ("P2960", "2019-06-12")]
    undated = propose(STATEMENT, [archived_check(None)])
    assert undated is not None and "P813" not in [p for p, _, _ in snaks(undated)]


def test_an_authority_records_reference_states_the_database_and_identifier():
    record = StatedIn("Q36578", "Integrated Authority File", "P227", "GND ID", "1099020101", date(2026, 11, 24),
                      "https://d-nb.info/gnd/1099020101/about/lds")
    assert snaks(record) == [("P248", "Q36578", "Integrated Authority File"), ("P227", '"1099020101"', "1099020101"),
                             ("P813", "+2026-11-24T00:00:00Z/11", "2026-11-24")]


def test_every_language_with_an_item_has_a_name():
    assert set(LANGUAGE_NAMES) == set(LANGUAGE_ITEMS)
    reference = ProposedReference("https://x.example/", date(2026, 1, 2), language="cs-CZ", quotation="slovo " * 200)
    assert ("P407", "Q9056", "Czech") in snaks(reference)


def test_long_quotations_are_clipped_at_a_word():
    reference = ProposedReference("https://x.example/", date(2026, 1, 2), language="cs-CZ", quotation="slovo " * 200)
    (quotation,) = [s for s in reference.snaks() if s.property_id == "P1683"]
    assert quotation.value.startswith('cs:"slovo') and quotation.text.endswith("slovo…") and len(quotation.text) <= 400


_STRING = re.compile(r'^(?:[a-z][a-z0-9-]*:)?"(.*)"$', re.S)


def read_back(line: str) -> list[str]:
    """The line's string values as QuickStatements reads them: the columns split on tabs, each string everything
    between its first and last double quote (magnus's QuickStatements and quickstatements_rs, no escapes)."""
    columns = line.split("\t")
    if columns[-1].startswith("/*") and columns[-1].endswith("*/"):
        columns.pop()  # the edit summary
    assert len(columns) % 2 == 1 and "\n" not in line
    return [match.group(1) for column in columns[4::2] if (match := _STRING.match(column))]


@pytest.mark.parametrize("title, quotation", [
    ('The "Brno" chemist', 'She said: "we want your yoghurt pots back".'),
    ('"Quoted" at both ends"', '"She said "yes""'),
    ("A title\twith a tab", "A quotation\nover\ttwo  lines"),
    ("Ends with a quote\"", "Back\\slash and an apostrophe's"),
])
def test_a_quickstatements_line_reads_back_as_exactly_the_text_apply_writes(title, quotation):
    reference = ProposedReference("https://x.example/a?b=1&c=2", date(2026, 1, 2), title=title, language="en",
                                  quotation=quotation)
    line = quickstatements(AWARD, reference, "refbot")
    texts = [s.text for s in reference.snaks() if s.property_id in ("P854", "P1476", "P1683")]
    assert read_back(line) == texts
    assert texts[1:] == [" ".join(title.split()), " ".join(quotation.split())]  # whitespace collapsed, nothing else
    assert all(quickstatements_hazard(s.value) == "" for s in reference.snaks())


@pytest.mark.parametrize("text, reason", [
    ("Výsledky | 1968", "holds |: older QuickStatements 3 reads every | as a column break"),
    ("the “patient” jury", "holds “: QuickStatements 3 turns typographic quotes into straight ones"),
    ("closing” only", "holds ”: QuickStatements 3 turns typographic quotes into straight ones"),
    ("a /* comment", "holds /*: QuickStatements reads /* … */ as the edit summary"),
    ("ends */ here", "holds */: QuickStatements reads /* … */ as the edit summary"),
    ('an escaped \\" quote', 'holds \\": QuickStatements has no escapes'),
    ("plain 'text' - fine", ""),
])
def test_a_string_quickstatements_would_change_is_named_with_what_it_would_do(text, reason):
    hazard = quickstatements_hazard(text)
    assert hazard.startswith(reason) and bool(hazard) == bool(reason)
