"""Values as pages write them: dates, amounts and strings found in English, Czech and German text."""

from __future__ import annotations

import pytest

from bot.datamodel import Paragraph, Statement, Value
from bot.ranking import rank, supporting_sentence
from bot.values import AMOUNT, DATE, LITERAL, STRING, value_finder
from bot.values.amounts import parse_amount, readings
from bot.values.dates import WikibaseTime, parse_time

BORN = Value("time", "+1943-01-14T00:00:00Z/11", "1943-01-14")


@pytest.mark.parametrize("text, form", [
    ("Marta Novotná (born January 14, 1943, in Brno) is a chemist.", "January 14, 1943"),
    ("She was born on 14 January 1943 in Brno.", "14 January 1943"),
    ("on the 14th of January, 1943", "14th of January, 1943"),
    ("Narodila se 14. ledna 1943 v Brně.", "14. ledna 1943"),
    ("Sie wurde am 14. Januar 1943 in Brünn geboren.", "14. Januar 1943"),
    ("* 14.1.1943 in Brünn", "14.1.1943"),
    ("nar. 14. 1. 1943", "14. 1. 1943"),
    ("Born 14 Jan. 1943", "14 Jan. 1943"),
    ("date_of_birth: 1943-01-14", "1943-01-14"),
    ("born 14/01/1943", "14/01/1943"),
])
def test_a_day_is_found_however_the_page_writes_it(text, form):
    found = value_finder(BORN)(text)
    assert found is not None and (found.form, found.how) == (form, DATE)
    assert text[found.start:found.end] == form


@pytest.mark.parametrize("text", [
    "She was born in 1943 in Brno.",  # a year states less than a day
    "born January 15, 1943",
    "1943-01-15",
    "14.1.19430",
    "born 01/04/1943",  # day and month cannot be told apart
])
def test_a_day_is_not_found_in_another_day_or_a_bare_year(text):
    assert value_finder(BORN)(text) is None


@pytest.mark.parametrize("value, text, form", [
    (Value("time", "+1943-00-00T00:00:00Z/9", "1943"), "He died in 1943.", "1943"),
    (Value("time", "+1943-00-00T00:00:00Z/9", "1943"), "died 14 January 1943", "1943"),
    (Value("time", "+1936-10-00T00:00:00Z/10", "October 1936"), "im Oktober 1936 gegründet", "Oktober 1936"),
    (Value("time", "+1936-10-00T00:00:00Z/10", "October 1936"), "založen v říjnu 1936, tj. 1936-10", "1936-10"),
    (Value("time", "+1940-00-00T00:00:00Z/8", "1940s"), "popular in the 1940s", "1940s"),
    (Value("time", "+1850-00-00T00:00:00Z/7", "19th century"), "postaven v 19. století", "19. století"),
    (Value("time", "-0044-03-15T00:00:00Z/11", "15 March 44 BCE"), "murdered on 15 March 44 BC", "15 March 44 BC"),
])
def test_coarser_values_and_eras(value, text, form):
    found = value_finder(value)(text)
    assert found is not None and found.form == form


@pytest.mark.parametrize("value, text", [
    (Value("time", "+1943-00-00T00:00:00Z/9", "1943"), "a 19431-seat stadium, 1943.5 km away"),
    (Value("time", "+1943-00-00T00:00:00Z/9", "1943"), "founded in 1943 BC"),
    (Value("time", "+1936-10-00T00:00:00Z/10", "October 1936"), "founded in 1936"),
    (Value("time", "+1850-00-00T00:00:00Z/7", "19th century"), "in the 20th century"),
])
def test_a_value_is_not_found_in_what_only_looks_like_it(value, text):
    assert value_finder(value)(text) is None


def test_the_value_as_refbot_select_shows_it_is_parsed_when_there_is_no_quickstatements_form():
    assert parse_time("1943-01-14", "1943-01-14") == WikibaseTime(1943, 1, 14, 11)
    assert parse_time("October 1936", "October 1936") == WikibaseTime(1936, 10, 0, 10)
    assert parse_time("1943", "1943") == WikibaseTime(1943, 0, 0, 9)
    assert parse_time("19th century", "19th century") == WikibaseTime(1900, 0, 0, 7)
    assert parse_time("+1543-05-24T00:00:00Z/11/J", "24 May 1543 (Julian calendar)") == WikibaseTime(1543, 5, 24, 11)
    assert parse_time("whenever", "whenever") is None


TONNAGE = Value("quantity", "85868U1", "85868 gross tonnage")


@pytest.mark.parametrize("text, form", [
    ("Gross tonnage: 85,868 GT", "85,868"),
    ("Vermessung 85.868 BRZ", "85.868"),
    ("prostornost 85 868 BRT", "85 868"),
    ("GT 85868", "85868"),
])
def test_an_amount_is_found_with_any_grouping(text, form):
    found = value_finder(TONNAGE)(text)
    assert found is not None and (found.form, found.how) == (form, AMOUNT)


@pytest.mark.parametrize("value, text, form", [
    (Value("quantity", "271U11573", "271 metre"), "The tower is 271 m tall.", "271"),
    (Value("quantity", "1.96~0.01U11573", "1.96±0.01 metre"), "Er ist 1,96 m groß.", "1,96"),
    (Value("quantity", "1200000", "1200000"), "a city of 1.2 million people", "1.2 million"),
    (Value("quantity", "43.446U828224", "43.446 kilometre"), "26.996 mi (43.446 km)", "43.446"),
    (Value("quantity", "43.446U828224", "43.446 kilometre"), "about 43.4 km long", "43.4"),
])
def test_amounts_with_decimal_commas_scales_bounds_and_rounding(value, text, form):
    found = value_finder(value)(text)
    assert found is not None and found.form == form


@pytest.mark.parametrize("value, text", [
    (TONNAGE, "its sister ship of 85,869 GT"),
    (TONNAGE, "858,680 passengers"),
    (Value("quantity", "271U11573", "271 metre"), "271.9 m, 0.271 km, 2710 m"),
    (Value("quantity", "2.4", "2.4"), "2 rooms"),  # one digit states no more than "about 2"
])
def test_other_amounts_do_not_count(value, text):
    assert value_finder(value)(text) is None


def test_numbers_are_read_with_either_separator():
    assert readings("85,868") == {parse_amount("85868").value, parse_amount("85.868").value}
    assert readings("1.234,5") == {parse_amount("1234.5").value}
    assert parse_amount("", "1.96±0.01 metre") == parse_amount("1.96~0.01U11573")
    assert parse_amount("5[4,6]U11573").lower == parse_amount("4").value


@pytest.mark.parametrize("value, text, form, how", [
    (Value("external-id", '"0000-0002-1825-0097"', "0000-0002-1825-0097"), "ORCID 0000‑0002‑1825‑0097.",
     "0000‑0002‑1825‑0097", STRING),
    (Value("monolingualtext", 'cs:"Společný dům"', "Společný dům"), "the cooperative „SPOLEČNÝ  DŮM“ said",
     "SPOLEČNÝ  DŮM", STRING),
    (Value("wikibase-item", "Q1", "Czech Technical University in Prague", ("ČVUT",)), "studied at ČVUT", "ČVUT",
     LITERAL),
])
def test_strings_are_normalised_and_items_found_by_any_name(value, text, form, how):
    found = value_finder(value)(text)
    assert found is not None and (found.form, found.how) == (form, how)


def test_a_short_string_must_be_a_whole_word():
    assert value_finder(Value("string", '"AB"', "AB"))("ABBA and LAB") is None


def test_the_ranking_and_the_quotation_find_the_date_as_written():
    statement = Statement("Q1", "Marta Novotná", "Q1$1", "P569", "date of birth", BORN)
    paragraphs = [Paragraph("Novotná studied in Prague.", "u", 0),
                  Paragraph("Novotná was born on January 14, 1943 in Brno. She studied chemistry.", "u", 1)]
    best = rank(paragraphs, statement)[0]
    assert best.paragraph.position == 1 and best.object == 1.0 and "January 14, 1943" in best.matched
    assert supporting_sentence(paragraphs[1].text, statement) == "Novotná was born on January 14, 1943 in Brno."


def test_a_page_that_never_writes_the_value_has_its_best_paragraph_about_the_item_judged():
    from bot.checking.judging import Strategy, queue

    member = Statement("Q1", "Roger Cholmeley", "Q1$1", "P39", "position held",
                       Value("wikibase-item", "Q2", "Member of Parliament in the Parliament of England"))
    page = [Paragraph("Cholmeley sat for Middlesex in 1554 and was knighted.", "u", 0),
            Paragraph("The weather in London was cold that year.", "u", 1)]
    entry, = queue(page, member, Strategy(), title="CHOLMELEY, Roger")
    assert entry.paragraph.position == 0 and entry.object < 1.0 and entry.value_form == ""
    assert queue(page, member, Strategy(unnamed=0), title="CHOLMELEY, Roger") == []
    # A number a page would write is never paraphrased: without it, nothing is judged.
    numbered = Statement("Q1", "Roger Cholmeley", "Q1$1", "P39", "position held",
                         Value("wikibase-item", "Q3", "Member of the 1558 Parliament"))
    assert queue(page, numbered, Strategy(), title="CHOLMELEY, Roger") == []
