"""Values as a page states them and as QuickStatements writes them; labels by preference (pure)."""

from __future__ import annotations

import pytest

from bot.selection.endpoint import Term
from bot.selection.terms import Terms, choose_terms
from bot.selection.unsourced import guid_of
from bot.selection.values import (NO_VALUE, UNKNOWN_VALUE, ValueSkipped, datatype_of, entities_to_label,
                                  render_time, render_value)

WD = "http://www.wikidata.org/entity/"
GREGORIAN, JULIAN = WD + "Q1985727", WD + "Q1985786"


@pytest.mark.parametrize("value, precision, calendar, text, raw", [
    ("1936-10-05T00:00:00Z", 11, GREGORIAN, "1936-10-05", "+1936-10-05T00:00:00Z/11"),
    ("1936-10-01T00:00:00Z", 10, GREGORIAN, "October 1936", "+1936-10-00T00:00:00Z/10"),
    ("1936-01-01T00:00:00Z", 9, GREGORIAN, "1936", "+1936-00-00T00:00:00Z/9"),
    ("1936-01-01T00:00:00Z", 8, GREGORIAN, "1930s", "+1936-00-00T00:00:00Z/8"),
    ("1936-01-01T00:00:00Z", 7, GREGORIAN, "20th century", "+1936-00-00T00:00:00Z/7"),
    ("1900-01-01T00:00:00Z", 7, GREGORIAN, "19th century", "+1900-00-00T00:00:00Z/7"),
    ("2000-01-01T00:00:00Z", 6, GREGORIAN, "2nd millennium", "+2000-00-00T00:00:00Z/6"),
    ("2011-12-18T13:30:00Z", 13, GREGORIAN, "2011-12-18", "+2011-12-18T13:30:00Z/13"),
    # XSD 1.1 years in RDF: 0000 is 1 BCE, -0043 is 44 BCE
    ("0000-01-01T00:00:00Z", 9, JULIAN, "1 BCE", "-0001-00-00T00:00:00Z/9/J"),
    ("-0043-03-13T00:00:00Z", 11, JULIAN, "15 March 44 BCE (Julian calendar)", "-0044-03-15T00:00:00Z/11/J"),
    ("-0043-01-01T00:00:00Z", 10, JULIAN, "January 44 BCE (Julian calendar)", "-0044-01-00T00:00:00Z/10/J"),
    # coarser than a year, RDF keeps the Wikibase year: -0500 at century precision is the 5th century BCE
    ("-0500-01-01T00:00:00Z", 7, JULIAN, "5th century BCE", "-0500-00-00T00:00:00Z/7/J"),
    ("-1000-01-01T00:00:00Z", 6, JULIAN, "1st millennium BCE", "-1000-00-00T00:00:00Z/6/J"),
    ("-0449-01-01T00:00:00Z", 8, JULIAN, "440s BCE", "-0449-00-00T00:00:00Z/8/J"),
    # the Gregorian reform: Julian 4 October 1582 was followed by Gregorian 15 October 1582
    ("1582-10-14T00:00:00Z", 11, JULIAN, "1582-10-04 (Julian calendar)", "+1582-10-04T00:00:00Z/11/J"),
    ("-13798000000-01-01T00:00:00Z", 3, GREGORIAN, "around 13,798,000,000 BCE", "-13798000000-00-00T00:00:00Z/3"),
])
def test_dates_read_as_their_precision_says(value, precision, calendar, text, raw):
    assert render_time(value, precision, calendar) == (text, raw)


def row(**terms: Term) -> dict[str, Term]:
    return {"item": Term(WD + "Q1"), "property": Term(WD + "P2048"), **terms}


def test_quantities_with_bounds_and_units():
    terms = {"Q11573": Terms("metre"), "Q828224": Terms("kilometre")}
    assert render_value(row(value=Term("+5", "literal"), amount=Term("+5", "literal"),
                            lowerBound=Term("+4", "literal"), upperBound=Term("+7", "literal"),
                            unit=Term(WD + "Q828224")), "quantity", terms).text == "5 (4–7) kilometre"
    value = render_value(row(value=Term("-0.50", "literal"), amount=Term("-0.50", "literal"),
                             unit=Term(WD + "Q11573")), "quantity", terms)
    assert (value.text, value.raw) == ("-0.50 metre", "-0.50U11573")
    unlabelled = render_value(row(value=Term("+3", "literal"), amount=Term("+3", "literal"),
                                  unit=Term(WD + "Q4")), "quantity", {})
    assert unlabelled.text == "3 Q4"


def test_coordinates_from_the_wkt_literal_when_there_is_no_value_node():
    value = render_value(row(value=Term("Point(-0.1454 51.5665)", "literal")), "globe-coordinate", {})
    assert (value.text, value.raw) == ("51.5665°N, 0.1454°W", "@51.5665/-0.1454")


def test_unknown_and_no_value_are_skipped_with_the_reason():
    with pytest.raises(ValueSkipped, match="unknown value"):
        render_value(row(value=Term("b0", "bnode")), "wikibase-item", {})
    with pytest.raises(ValueSkipped) as why:
        render_value(row(value=Term("http://www.wikidata.org/.well-known/genid/0a1b")), "time", {})
    assert str(why.value) == UNKNOWN_VALUE
    with pytest.raises(ValueSkipped) as why:
        render_value(row(), "string", {})
    assert str(why.value) == NO_VALUE


def test_item_values_carry_label_and_aliases_and_fall_back_to_the_id():
    value = render_value(row(value=Term(WD + "Q38104")), "wikibase-item",
                         {"Q38104": Terms("Nobel Prize in Physics", aliases=("Physics Nobel",))})
    assert (value.raw, value.text, value.aliases, value.display) == (
        "Q38104", "Nobel Prize in Physics", ("Physics Nobel",), "Nobel Prize in Physics (Q38104)")
    bare = render_value(row(value=Term(WD + "Q38104")), "wikibase-item", {})
    assert (bare.text, bare.display) == ("Q38104", "Q38104")


def test_strings_are_quoted_for_quickstatements():
    value = render_value(row(value=Term('The "Garden Party"', "literal")), "string", {})
    assert value.raw == '"The \\"Garden Party\\""'
    value = render_value(row(value=Term("Zahradní slavnost", "literal", lang="cs")), "monolingualtext", {})
    assert value.raw == 'cs:"Zahradní slavnost"'


def test_what_needs_a_label():
    wanted = entities_to_label(row(value=Term(WD + "Q5"), unit=Term(WD + "Q199"), globe=Term(WD + "Q2")))
    assert wanted == {"Q1", "P2048", "Q5"}  # not the unit "1" nor Earth


def test_datatypes_use_wikidatas_names():
    assert datatype_of("http://wikiba.se/ontology#WikibaseItem") == "wikibase-item"
    assert datatype_of("http://wikiba.se/ontology#GlobeCoordinate") == "globe-coordinate"
    assert datatype_of("http://wikiba.se/ontology#ExternalId") == "external-id"


def test_statement_iris_become_api_guids():
    assert guid_of("http://www.wikidata.org/entity/statement/Q42-F078E5B3-F9A8-480E-B7AC-D97778CBBEF9") \
        == "Q42$F078E5B3-F9A8-480E-B7AC-D97778CBBEF9"


def term_rows(*entries: tuple[str, str, str]) -> list[dict[str, Term]]:
    return [{"term": Term(term, "literal"), "text": Term(text, "literal", lang=lang)} for term, lang, text in entries]


def test_terms_follow_the_preference_list():
    rows = term_rows(("label", "de", "Prag"), ("label", "en", "Prague"), ("alias", "en", "Praha"),
                     ("description", "de", "Hauptstadt Tschechiens"), ("alias", "de", "Praha"))
    assert choose_terms("Q1085", rows, ["en", "de"]) == Terms("Prague", "Hauptstadt Tschechiens",
                                                              ("Praha", "Prag"), "en")
    assert choose_terms("Q1085", rows, ["fr"]) == Terms("Q1085")
