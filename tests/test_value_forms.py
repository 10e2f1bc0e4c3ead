"""Values as pages write them: dates, amounts and strings found in English, Czech and German text."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.datamodel import Paragraph, Statement, Value
from bot.checking.ranking import rank, supporting_sentence
from bot.values import (ALIAS, AMOUNT, COUNTRY_NAME, DATE, GENDERED, INITIALS, LITERAL, OTHER_SEPARATORS,
                        PLACE_IN_COUNTRY, STRING, SURNAME_FIRST, WITHOUT_ARTICLE, WITHOUT_PREFIX, WORDS_APART,
                        WRITTEN_OUT, statement_finder, value_finder)
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
    assert parse_time("+1543-05-24T00:00:00Z/11/J", "24 May 1543 (Julian calendar)") \
        == WikibaseTime(1543, 5, 24, 11, julian=True)
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
     ALIAS),
])
def test_strings_are_normalised_and_items_found_by_any_name(value, text, form, how):
    found = value_finder(value)(text)
    assert found is not None and (found.form, found.how) == (form, how)


def test_a_short_string_must_be_a_whole_word():
    assert value_finder(Value("string", '"AB"', "AB"))("ABBA and LAB") is None


@pytest.mark.parametrize("value, text, form", [
    (BORN, "born on the 14th of January 1943", "14th of January 1943"),
    (BORN, "born January 14th, 1943, in Brno", "January 14th, 1943"),
    (BORN, "born January the 14th, 1943", "January the 14th, 1943"),
    (BORN, "b. Jan. 14, 1943", "Jan. 14, 1943"),
    (BORN, "b. Jan 14 1943", "Jan 14 1943"),
    (BORN, "b. 14 Jan 1943", "14 Jan 1943"),
    (BORN, "nació el 14 de enero de 1943", "14 de enero de 1943"),
    (BORN, "nasceu em 14 de janeiro de 1943", "14 de janeiro de 1943"),
    (Value("time", "+1943-09-03T00:00:00Z/11", "1943-09-03"), "signed Sept. 3, 1943", "Sept. 3, 1943"),
    (Value("time", "+1943-09-03T00:00:00Z/11", "1943-09-03"), "signed 3 Sept 1943", "3 Sept 1943"),
    (Value("time", "+1943-09-03T00:00:00Z/11", "1943-09-03"), "signed Sep 3, 1943", "Sep 3, 1943"),
    (Value("time", "+1943-09-01T00:00:00Z/11", "1943-09-01"), "signé le 1er septembre 1943", "1er septembre 1943"),
    (Value("time", "+1936-10-00T00:00:00Z/10", "October 1936"), "fundada en octubre de 1936", "octubre de 1936"),
])
def test_ordinal_days_abbreviated_months_and_linking_words(value, text, form):
    found = value_finder(value)(text)
    assert found is not None and (found.form, found.how) == (form, DATE)


@pytest.mark.parametrize("value, text", [
    (BORN, "January 14th, 19431"),
    (BORN, "January 114, 1943"),
    (BORN, "the 15th of January 1943"),
    (BORN, "Jan. 15, 1943"),
    (BORN, "Bajan 14, 1943"),  # a month name only as a whole word
    # A digit glued to the year makes another number; a decimal part after a day is a footnote's number
    # (tests/test_footnote_markers.py).
    (Value("time", "+1943-09-03T00:00:00Z/11", "1943-09-03"), "Sept. 3, 19435"),
])
def test_ordinal_and_abbreviated_forms_of_another_day_do_not_count(value, text):
    assert value_finder(value)(text) is None


YEAR = Value("time", "+1943-00-00T00:00:00Z/9", "1943")
NEXT_YEAR = Value("time", "+1944-00-00T00:00:00Z/9", "1944")


@pytest.mark.parametrize("text, form", [
    ("built c. 1943", "1943"), ("built ca. 1943", "1943"), ("built circa 1943", "1943"),
    ("built about 1943", "1943"), ("built (c.1943)", "1943"),
])
def test_an_approximate_year_is_the_year(text, form):
    found = value_finder(YEAR)(text)
    assert found is not None and found.form == form


@pytest.mark.parametrize("text, first, second", [
    ("the 1943/44 season", "1943", "1943/44"),
    ("fiscal year 1943–44", "1943", "1943–44"),
    ("the 1943-44 season", "1943", "1943-44"),
    ("in 1943-1944", "1943", "1944"),
    ("in 1943/1944", "1943", "1944"),
])
def test_a_split_year_states_both_years(text, first, second):
    assert value_finder(YEAR)(text).form == first
    assert value_finder(NEXT_YEAR)(text).form == second


@pytest.mark.parametrize("value, text", [
    (BORN, "the 1943/44 season"),
    (BORN, "1943-1944"),
    (NEXT_YEAR, "1911-12-05, 1943/45, 1943/440, 19431/44, 1943/44.5, 1942/44"),
    (Value("time", "+1912-00-00T00:00:00Z/9", "1912"), "on 1911-12-05"),  # a day, not a season
])
def test_a_split_year_is_no_day_and_needs_the_next_year(value, text):
    assert value_finder(value)(text) is None


JULIAN_BIRTH = Value("time", "+1642-12-25T00:00:00Z/11/J", "25 December 1642 (Julian calendar)")
RUSSIAN_BIRTH = Value("time", "+1868-03-28T00:00:00Z/11", "1868-03-28")


@pytest.mark.parametrize("value, text, form", [
    (JULIAN_BIRTH, "Newton was born on 25 December 1642 (Old Style)", "25 December 1642"),
    (JULIAN_BIRTH, "Newton was born on 4 January 1643 (New Style)", "4 January 1643"),
    (RUSSIAN_BIRTH, "born 28 March 1868", "28 March 1868"),
    (RUSSIAN_BIRTH, "born 16 March 1868 (O.S.)", "16 March 1868"),
    (RUSSIAN_BIRTH, "narozen 16. 3. 1868 (podle juliánského kalendáře)", "16. 3. 1868"),
])
def test_a_day_is_found_in_either_calendar(value, text, form):
    found = value_finder(value)(text)
    assert found is not None and (found.form, found.how) == (form, DATE)


@pytest.mark.parametrize("value, text", [
    (JULIAN_BIRTH, "on 26 December 1642, on 5 January 1643"),
    (RUSSIAN_BIRTH, "on 17 March 1868"),
    (Value("time", "+1950-03-28T00:00:00Z/11", "1950-03-28"), "on 15 March 1950"),  # after 1923: Gregorian only
    # before the reform, a Julian day is never written as a Gregorian one
    (Value("time", "+1500-03-28T00:00:00Z/11/J", "28 March 1500 (Julian calendar)"), "on 7 April 1500"),
])
def test_other_days_and_calendars_out_of_use_do_not_count(value, text):
    assert value_finder(value)(text) is None


def test_the_calendar_is_read_from_either_form():
    assert parse_time("+1642-12-25T00:00:00Z/11/J").julian
    assert parse_time("", "25 December 1642 (Julian calendar)").julian
    assert not parse_time("+1642-12-25T00:00:00Z/11", "1642-12-25").julian


@pytest.mark.parametrize("text, form", [
    ("the class of nineteen forty-three", "nineteen forty-three"),
    ("in the year nineteen hundred and forty-three", "nineteen hundred and forty-three"),
    ("Nineteen Forty Three was a hard year", "Nineteen Forty Three"),
    ("one thousand nine hundred and forty-three", "one thousand nine hundred and forty-three"),
    ("im Jahre neunzehnhundertdreiundvierzig", "neunzehnhundertdreiundvierzig"),
    ("en mil novecientos cuarenta y tres", "mil novecientos cuarenta y tres"),
    ("l'an mille neuf cent quarante-trois", "mille neuf cent quarante-trois"),
    ("v roce tisíc devětset čtyřicet tři", "tisíc devětset čtyřicet tři"),
])
def test_a_year_in_words(text, form):
    found = value_finder(YEAR)(text)
    assert found is not None and (found.form, found.how) == (form, DATE)


@pytest.mark.parametrize("text", ["nineteen forty-two", "nineteen forty", "nineteen forty-four",
                                  "neunzehnhundertdreiundvierzigste"])
def test_another_year_in_words_does_not_count(text):
    assert value_finder(YEAR)(text) is None


@pytest.mark.parametrize("value, text, form", [
    (Value("quantity", "+3", "3"), "They had three children.", "three"),
    (Value("quantity", "+3", "3"), "Three children survived.", "Three"),
    (Value("quantity", "+12", "12"), "the twelve apostles", "twelve"),
    (Value("quantity", "+3", "3"), "Sie hatten drei Kinder.", "drei"),
    (Value("quantity", "+3", "3"), "Měli tři děti.", "tři"),
    (Value("quantity", "+43", "43"), "forty-three members", "forty-three"),
    (Value("quantity", "+43", "43"), "forty three members", "forty three"),
    (Value("quantity", "+3", "3"), "three, or 3", "three"),
    (Value("quantity", "+3", "3"), "3, or three", "3"),
])
def test_small_whole_amounts_in_words(value, text, form):
    found = value_finder(value)(text)
    assert found is not None and (found.form, found.how) == (form, AMOUNT)


@pytest.mark.parametrize("value, text", [
    (Value("quantity", "+3", "3"), "twenty-three children, twenty three, three hundred, three thousand"),
    (Value("quantity", "+3", "3"), "dreißig, Dreieck, threefold"),
    (Value("quantity", "+1", "1"), "one of the children"),  # "one", "ein", "un" are articles too
    (Value("quantity", "+2", "2"), "due to the rain"),  # Italian "due"
    (Value("quantity", "+100", "100"), "ten per cent"),  # French "cent"
    (Value("quantity", "+3.5", "3.5"), "three children"),
    (Value("quantity", "+300", "300"), "three hundred"),  # words only up to 100
])
def test_words_inside_other_words_numbers_or_languages_do_not_count(value, text):
    assert value_finder(value)(text) is None


GERMANY = Value("wikibase-item", "Q183", "Germany", ("FRG",),
                (("Deutschland", "label (de)"), ("West Germany", "predecessor Q713750")))


@pytest.mark.parametrize("text, form, how", [
    ("She lived in Germany.", "Germany", LITERAL),
    ("She lived in the FRG.", "FRG", ALIAS),
    ("Sie lebte in Deutschland.", "Deutschland", "label (de)"),
    ("She lived in West Germany.", "Germany", LITERAL),  # the label first
])
def test_items_are_found_by_label_alias_or_a_related_name_with_how(text, form, how):
    found = value_finder(GERMANY)(text)
    assert found is not None and (found.form, found.how) == (form, how)


def test_the_ranking_and_the_quotation_find_the_date_as_written():
    statement = Statement("Q1", "Marta Novotná", "Q1$1", "P569", "date of birth", BORN)
    paragraphs = [Paragraph("Novotná studied in Prague.", "u", 0),
                  Paragraph("Novotná was born on January 14, 1943 in Brno. She studied chemistry.", "u", 1)]
    best = rank(paragraphs, statement)[0]
    assert best.paragraph.position == 1 and best.object == 1.0 and "January 14, 1943" in best.matched
    assert supporting_sentence(paragraphs[1].text, statement) == "Novotná was born on January 14, 1943 in Brno."


def test_a_page_that_never_writes_the_value_is_judged_only_where_it_writes_another():
    from bot.checking.judging import Strategy, queue

    member = Statement("Q1", "Roger Cholmeley", "Q1$1", "P39", "position held",
                       Value("wikibase-item", "Q2", "Member of Parliament in the Parliament of England"))
    page = [Paragraph("Cholmeley sat for Middlesex in 1554 and was knighted.", "u", 0),
            Paragraph("The weather in London was cold that year.", "u", 1)]
    assert queue(page, member, Strategy(naming=0), title="CHOLMELEY, Roger") == []
    # An item may be named another way: the best paragraphs about the subject are judged, the model naming the words.
    assert [entry.paragraph.position for entry in queue(page, member, Strategy(naming=1), title="CHOLMELEY, Roger")] \
        == [0]
    born = Statement("Q1", "Roger Cholmeley", "Q1$1", "P569", "date of birth", BORN)
    dated = [Paragraph("Cholmeley was born on 3 March 1944 in London.", "u", 0),
             Paragraph("Cholmeley studied law.", "u", 1)]
    entry, = queue(dated, born, Strategy(), title="CHOLMELEY, Roger")
    assert entry.paragraph.position == 0 and entry.value_form == ""
    assert queue(dated, born, Strategy(unnamed=0), title="CHOLMELEY, Roger") == []
    # A place of death is single-valued: a page naming another place for it is judged, for a contradiction.
    died = Statement("Q1", "Roger Cholmeley", "Q1$1", "P20", "place of death", Value("wikibase-item", "Q84", "London"))
    placed = [Paragraph("Cholmeley studied law.", "u", 0), Paragraph("Cholmeley died at Highgate in 1565.", "u", 1)]
    assert queue(placed, died, Strategy(naming=0), title="CHOLMELEY, Roger") == []
    entry, = queue(placed, died, Strategy(naming=0), title="CHOLMELEY, Roger", single_valued=True)
    assert entry.paragraph.position == 1


@pytest.mark.parametrize("value, text, found", [
    ("S.I. No. 80/1968", "No. 80/1968- Restrictive Trade Practices Order, 1968.", "80/1968"),
    ("SI 2014 No. 3049", "The A590 Trunk Road Order 2014 No. 3049 URL", "2014 No. 3049"),
    ("ISBN 0-306-40615-2", "Printed as 0–306–40615–2 in 1999.", "0–306–40615–2"),
])
def test_an_identifier_is_found_without_the_name_of_its_type(value, text, found):
    hit = value_finder(Value("string", f'"{value}"', value))(text)
    assert hit is not None and hit.form == found and hit.how == WITHOUT_PREFIX


@pytest.mark.parametrize("value, text", [
    ("S.I. No. 80/1968", "No. 81/1968 revoked it."),  # another number is another identifier
    ("SI 2014 No. 3049", "2014 No. 3094"),
    ("Act No. 12", "No. 12"),  # too few digits left to carry the identifier
])
def test_without_its_type_an_identifier_must_still_be_written_whole(value, text):
    assert value_finder(Value("string", f'"{value}"', value))(text) is None


@pytest.mark.parametrize("value, text, found", [
    ("57/1962", "It repealed the Land Act No. 57 of 1962 in full.", "57 of 1962"),
    ("57/1962", "Act 57-1962, section 4", "57-1962"),
    ("57/1962", "Act 57 – 1962, section 4", "57 – 1962"),
    ("S.I. No. 80/1968", "Made under S.I. No. 80 of 1968.", "S.I. No. 80 of 1968"),
    ("S.I. No. 80/1968", "Order (No. 80 of 1968)", "80 of 1968"),
    ("SI 2014 No. 3049", "as amended by S.I. 2014/3049, art. 2", "2014/3049"),
    ("Act No. 57 of 1962", "See Act No. 57/1962.", "Act No. 57/1962"),
    ("0-306-40615-2", "ISBN 0 306 40615 2", "0 306 40615 2"),
])
def test_a_numbered_act_is_found_with_the_separators_registers_write(value, text, found):
    hit = value_finder(Value("external-id", f'"{value}"', value))(text)
    assert hit is not None and (hit.form, hit.how) == (found, OTHER_SEPARATORS)
    assert text[hit.start:hit.end] == found


@pytest.mark.parametrize("value, text", [
    ("57/1962", "No. 157 of 1962"),  # another number
    ("57/1962", "No. 57 of 19623"),
    ("57/1962", "No. 58 of 1962"),
    ("57/1962", "a ratio of 57.1962"),  # a decimal number
    ("57/1962", "pages 57, 1962"),
    ("57/1962", "No. 1962 of 57"),
    ("SI 2014 No. 3049", "No. 3049 of 2015"),
    ("12/34", "12 of 34"),  # "of" stands between a number and its year only; too few digits anyway
    ("4/567", "item 4 of 567"),
])
def test_other_separators_do_not_make_another_identifier_the_value(value, text):
    assert value_finder(Value("external-id", f'"{value}"', value))(text) is None


def test_a_personal_name_is_found_written_surname_first():
    name = Value("monolingualtext", 'en:"Fred Lewis Crawford"', "Fred Lewis Crawford")
    hit = value_finder(name)("Overview. CRAWFORD, Fred Lewis 1888 – 1957")
    assert hit is not None and hit.form == "CRAWFORD, Fred Lewis" and hit.how == SURNAME_FIRST
    assert value_finder(name)("CRAWFORD, Frederick 1888") is None


@pytest.mark.parametrize("raw, label, text, form", [
    ("Q6581097", "male", "Dr. Riccardi taught many subjects. He also led the lab.", "He"),
    ("Q6581072", "female", "Thanks to Mrs. Olson's lobbying, a bill was introduced.", "Mrs."),
    ("Q6581072", "weiblich", "She was born in Brno.", "She"),  # by its id, whatever the label's language
])
def test_male_and_female_are_found_by_the_pronouns_and_titles_texts_use(raw, label, text, form):
    hit = value_finder(Value("wikibase-item", raw, label))(text)
    assert hit is not None and hit.form == form and hit.how == GENDERED


def test_a_pronoun_is_no_form_of_another_value_nor_of_the_other_gender():
    assert value_finder(Value("wikibase-item", "Q6581072", "female"))("He was born in Brno; the theme was set.") is None
    assert value_finder(Value("wikibase-item", "Q5", "human"))("She was born in Brno.") is None


USA = Value("wikibase-item", "Q30", "United States of America")
INDIA = Value("wikibase-item", "Q668", "India")


@pytest.mark.parametrize("value, text, form, how", [
    (USA, "The Plum Bush Creek Bridge, near Last Chance, Colorado, is a concrete bridge.", "Colorado",
     f"{PLACE_IN_COUNTRY}: Colorado"),
    (USA, "a historic bridge in Philadelphia, Pennsylvania.", "Pennsylvania", f"{PLACE_IN_COUNTRY}: Pennsylvania"),
    (USA, "partners across the U.S. and abroad", "U.S.", COUNTRY_NAME),
    (USA, "Made in USA", "USA", COUNTRY_NAME),
    (USA, "a charity in the United States", "United States", COUNTRY_NAME),
    (INDIA, "It is located in TIRUR block of MALAPPURAM district of KERALA.", "KERALA", f"{PLACE_IN_COUNTRY}: KERALA"),
    (INDIA, "a school in Karnataka", "Karnataka", f"{PLACE_IN_COUNTRY}: Karnataka"),  # ISO: Karnātaka
])
def test_a_country_is_found_by_its_iso_names_and_the_places_in_it(value, text, form, how):
    found = value_finder(value, country=True)(text)
    assert found is not None and (found.form, found.how) == (form, how)
    assert text[found.start:found.end] == form


@pytest.mark.parametrize("value, text", [
    (USA, "Tbilisi, Georgia"),  # a state named like a country names neither
    (USA, "It was a good day for us"),  # the two-letter code only with its dots
    (USA, "colorado is a Spanish word"),  # a place's name as written, capitalised
    (INDIA, "a school in Colorado"),
])
def test_a_country_is_not_found_in_other_countries_places_or_common_words(value, text):
    assert value_finder(value, country=True)(text) is None


def test_places_in_a_country_count_only_for_a_property_that_takes_a_country():
    text = "a bridge near Last Chance, Colorado"
    assert value_finder(USA)(text) is None
    statement = Statement("Q1", "Plum Bush Creek Bridge", "Q1$1", "P17", "country", USA)
    assert statement_finder(statement)(text) is not None
    assert statement_finder(replace(statement, property_id="P1001"))(text) is None


@pytest.mark.parametrize("label, text, form, how", [
    ("Bret Easton Ellis", "Ellis, Bret Easton. American Psycho: A Novel.", "Ellis, Bret Easton", SURNAME_FIRST),
    ("Robert Cushman Murphy", "APA citation style: Murphy, R. C. (1915) The Penguins of South Georgia.",
     "Murphy, R. C.", INITIALS),
    ("Robert Cushman Murphy", "by R.C. Murphy, 1915", "R.C. Murphy", INITIALS),
    ("BBC Research & Development", "BBC Research and Development has a long tradition",
     "BBC Research & Development", LITERAL),
])
def test_a_person_is_found_as_catalogues_write_names_and_ampersands_read_as_and(label, text, form, how):
    found = value_finder(Value("wikibase-item", "Q1", label))(text)
    assert found is not None and (found.form, found.how) == (form, how)


@pytest.mark.parametrize("text", [
    "Murphy, R. J. (1915) The Penguins",  # other initials: another person
    "Murphy, C. R.",
    "Ellis, Bret",
])
def test_initials_of_another_person_do_not_count(text):
    assert value_finder(Value("wikibase-item", "Q1", "Robert Cushman Murphy"))(text) is None


@pytest.mark.parametrize("label, text, form", [
    ("Allan Sandage", "The cosmologist Allan Rex Sandage was his student.", "Allan Rex Sandage"),  # a middle name
    ("John F. Kennedy", "President John Fitzgerald Kennedy spoke in Berlin.", "John Fitzgerald Kennedy"),
    ("George W. Bush", "George Walker Bush was born in New Haven.", "George Walker Bush"),
])
def test_a_person_is_found_with_what_the_label_abbreviates_or_leaves_out_written_out(label, text, form):
    found = value_finder(Value("wikibase-item", "Q1", label))(text)
    assert found is not None and (found.form, found.how) == (form, WRITTEN_OUT)


@pytest.mark.parametrize("label, text", [
    ("George W. Bush", "George H. W. Bush was the 41st president."),  # another initial: his father
    ("Allan Sandage", "Allan and his brother met Sandage."),  # lower-case words between: not one name
    ("Allan Sandage", "Allan Rex Bernard Kowalski Sandage"),  # more middle names than a name has
])
def test_a_written_out_name_keeps_the_labels_initials_and_order(label, text):
    assert value_finder(Value("wikibase-item", "Q1", label))(text) is None


@pytest.mark.parametrize("label, text, form", [
    ("The Yardbirds", "Blues'a konsantre olmak için Yardbirds'ten ayrıldı.", "Yardbirds"),
    ("The Beatles", "Das erste Album der Beatles erschien 1963.", "Beatles"),
])
def test_a_name_opening_with_the_article_is_found_without_it(label, text, form):
    found = value_finder(Value("wikibase-item", "Q1", label))(text)
    assert found is not None and (found.form, found.how) == (form, WITHOUT_ARTICLE)


@pytest.mark.parametrize("label, text", [
    ("The Times", "He read it three times."),  # as written: capitalised
    ("The Who", "Who wrote it?"),  # too short to tell from a word
    ("The Yardbirds", "Yardbirdsongs, recorded in 1965."),  # a whole word
])
def test_without_its_article_a_name_must_be_written_whole_and_as_written(label, text):
    assert value_finder(Value("wikibase-item", "Q1", label))(text) is None


@pytest.mark.parametrize("label, text, form", [
    # a register's line puts the class before its grade
    ("Category B listed building", "Listed Building Category B. Date added 5 October 1971.",
     "Listed Building Category B"),
    # a film site lists genres by their first word
    ("action film", "The eighth film of the series. Directed by James Wan. Action, Crime, Thriller.",
     "film of the series. Directed by James Wan. Action"),
    ("film director", "She was the director of the film.", "director of the film"),
    ("Celtic music", "Their music is Celtic at heart.", "music is Celtic"),
])
def test_an_item_is_found_with_its_labels_words_apart(label, text, form):
    found = value_finder(Value("wikibase-item", "Q1", label))(text)
    assert found is not None and (found.form, found.how) == (form, WORDS_APART)


@pytest.mark.parametrize("label, text", [
    # one word of the label is not there
    ("Category B listed building", "Category B is the second grade of listing."),
    # the words too far apart to be one name
    ("film director", "The film opened in May; after years of quarrels with the studio and the press in "
                      "three countries, its director resigned."),
    # a capitalised word of the label is a name: "celtic" in lower case is not "Celtic"
    ("Celtic music", "The music of the celtic revival."),
    # a one-letter word of the label must stand beside another of its words
    ("Category B listed building", "A listed building in Category C, formerly B."),
    # a label of one word, or of more than four, is only found as it is written
    ("Royal Air Force Volunteer Reserve", "The Royal Air Force and its Volunteer Reserve."),
    # a proper name's words are one name only together
    ("Royal Collection", "The Royal Academy showed it in 1858; the Collection holds the sketch."),
])
def test_a_labels_words_apart_must_all_be_there_close_and_as_written(label, text):
    assert value_finder(Value("wikibase-item", "Q1", label))(text) is None
