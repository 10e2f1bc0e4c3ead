"""Footnote markers glued to a value: the value is still found, by the finder of the statement's value and by
the finder of other values alike (bot.values.markers, pure)."""

from __future__ import annotations

import pytest

from bot.datamodel import Value
from bot.values import AMOUNT, DATE, other_values, value_finder
from bot.values.date_mentions import find_dates

BORN = Value("time", "+1871-05-03T00:00:00Z/11", "1871-05-03")
BORN_IN = Value("time", "+1871-00-00T00:00:00Z/9", "1871")
FOUNDED = Value("time", "+1902-00-00T00:00:00Z/9", "1902")
TONNAGE = Value("quantity", "85868U1", "85868 gross tonnage")
REGISTERED = Value("external-id", '"80/1968"', "80/1968")


@pytest.mark.parametrize("text, form", [
    ("The painter was born on 3 May 1871.2 His father kept an inn.", "3 May 1871"),
    ("The painter was born on 3 May 1871.2", "3 May 1871"),  # the paragraph ends with the note
    ("born on 3 May 1871[2] in a village", "3 May 1871"),
    ("born on 3 May 1871² in a village", "3 May 1871"),
    ("born on 3 May 1871[note 1]", "3 May 1871"),
    ("born on May 3, 1871.14 She moved", "May 3, 1871"),
    ("narozen 3. května 1871.2", "3. května 1871"),
    ("born 3.5.1871.2 He", "3.5.1871"),
])
def test_a_day_is_found_before_a_footnote_marker(text, form):
    found = value_finder(BORN)(text)
    assert found is not None and (found.form, found.how) == (form, DATE)
    assert [mention.form for mention in find_dates(text)] == [form]


@pytest.mark.parametrize("text, form", [
    ("The painter was born in 1871[2] in a village.", "1871"),
    ("born in 1871[a], the son of an innkeeper", "1871"),
    ("born in 1871² in a village", "1871"),
    ("born in 1871* in a village", "1871"),
    ("Records of the parish go back to 1871.6 The church was rebuilt later.", "1871"),
    ("The painter was born on 3 May 1871.2", "1871"),  # a month leads the year: ".2" can only be a note
    ("born in May 1871.2", "1871"),
])
def test_a_year_is_found_before_a_footnote_marker(text, form):
    found = value_finder(BORN_IN)(text)
    assert found is not None and found.form == form
    assert text[found.start:found.end] == form


@pytest.mark.parametrize("text", [
    "The index stood at 1871.25",  # a number with decimals
    "The index stood at 1871.2",  # no new sentence follows: an amount as likely as a note
    "a yield of 1871.2 tonnes",
    "a loss of 1871.2 Million",  # a capitalised scale word goes on the number
    "born in 18712",  # a digit glued without a separator makes another number
    "born on 3 May 18712",
    "catalogue 1871.2.4 Second entry",  # a version or a section number, not a note
])
def test_what_follows_a_number_without_a_marker_keeps_it_another_number(text):
    assert value_finder(BORN_IN)(text) is None
    assert value_finder(BORN)(text) is None
    assert all(reading.year != 1871 for mention in find_dates(text) for reading in mention.readings)


def test_a_decade_and_a_season_end_before_a_superscript_marker():
    decade = Value("time", "+1870-00-00T00:00:00Z/8", "1870s")
    assert value_finder(decade)("a style of the 1870s² that lasted").form == "1870s"
    assert value_finder(BORN_IN)("the 1870/71² season").form == "1870/71"


@pytest.mark.parametrize("text, form", [
    ("Her gross tonnage is 85,868[3] GT.", "85,868"),
    ("Her gross tonnage is 85,868² GT.", "85,868"),
    ("Her gross tonnage is 85 868[note 2] GT.", "85 868"),
])
def test_an_amount_is_found_before_a_footnote_marker(text, form):
    found = value_finder(TONNAGE)(text)
    assert found is not None and (found.form, found.how) == (form, AMOUNT)


@pytest.mark.parametrize("text, form", [
    ("Registered under No. 80/1968[4] in the register.", "80/1968"),
    ("Registered under No. 80/1968² in the register.", "80/1968"),
    ("Registered under No. 80/1968.4 The order lapsed.", "80/1968"),
])
def test_an_identifier_is_found_before_a_footnote_marker(text, form):
    found = value_finder(REGISTERED)(text)
    assert found is not None and found.form == form


def test_an_identifier_with_a_digit_glued_to_it_is_another_identifier():
    assert value_finder(REGISTERED)("Registered under No. 80/19684 in the register.") is None


def test_another_year_before_a_marker_is_a_candidate_contradiction_and_the_value_is_not():
    text = "The school opened in 1907.3 Its founder had bought the land in 1902[4]."
    assert [found.form for found in other_values(FOUNDED, text)] == ["1907"]
    assert [found.form for found in other_values(BORN, "He was born on 3 May 1871.2 He died in 1950².")] == \
        ["1950"]
