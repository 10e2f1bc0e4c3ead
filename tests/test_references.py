"""The proposed reference and its QuickStatements line."""

from __future__ import annotations

from datetime import date

from bot.datamodel import Statement, Value
from bot.references import ProposedReference, quickstatements, wayback_date

AWARD = Statement("Q36233", "Václav Havel", "Q36233$A1B2", "P166", "award received",
                  Value("wikibase-item", "Q2537841", "Prince of Asturias Award for Communication and Humanities"))


def test_a_live_english_page_gives_url_retrieved_title_language_and_quotation():
    reference = ProposedReference("https://news.example.org/1997/havel", date(2026, 11, 21),
                                  title="Havel honoured with Asturias prize", language="en",
                                  quotation='Havel has been awarded the "Prince of Asturias Award".')
    assert [(s.property_id, s.value) for s in reference.snaks()] == [
        ("P854", '"https://news.example.org/1997/havel"'), ("P813", "+2026-11-21T00:00:00Z/11"),
        ("P1476", 'en:"Havel honoured with Asturias prize"'), ("P407", "Q1860"),
        ("P1683", 'en:"Havel has been awarded the ”Prince of Asturias Award”."')]
    assert quickstatements(AWARD, reference, "refbot 0.1.0: reference checked by an LLM */ x") == "\t".join([
        "Q36233", "P166", "Q2537841", "S854", '"https://news.example.org/1997/havel"', "S813",
        "+2026-11-21T00:00:00Z/11", "S1476", 'en:"Havel honoured with Asturias prize"', "S407", "Q1860",
        "S1683", 'en:"Havel has been awarded the ”Prince of Asturias Award”."',
        "/* refbot 0.1.0: reference checked by an LLM x */"])


def test_an_archived_page_adds_archive_url_and_date_and_unknown_languages_are_und():
    reference = ProposedReference("http://dead.example.org/a", date(2026, 11, 21), title="Výsledky\tankety | 1968",
                                  language="", archive_url="https://web.archive.org/web/20190501000000/http://dead"
                                  ".example.org/a", archive_date=wayback_date("20190501000000"))
    values = {s.property_id: s.value for s in reference.snaks()}
    assert values["P1476"] == 'und:"Výsledky ankety | 1968"' and "P407" not in values
    assert values["P1065"] == '"https://web.archive.org/web/20190501000000/http://dead.example.org/a"'
    assert values["P2960"] == "+2019-05-01T00:00:00Z/11"
    assert "\t" not in values["P1476"] and wayback_date("2019") is None


def test_long_quotations_are_clipped_at_a_word():
    reference = ProposedReference("https://x.example/", date(2026, 1, 2), language="cs-CZ", quotation="slovo " * 200)
    (quotation,) = [s for s in reference.snaks() if s.property_id == "P1683"]
    assert quotation.value.startswith('cs:"slovo') and quotation.text.endswith("slovo…") and len(quotation.text) <= 400
    assert ("P407", "Q9056") in [(s.property_id, s.value) for s in reference.snaks()]
