"""Other values a text gives for a property: the candidates for a contradiction (bot.values.others, pure)."""

from __future__ import annotations

import pytest

from bot.datamodel import Value
from bot.values import AMOUNT, DATE, STRING, other_values
from bot.values.date_mentions import find_dates
from bot.values.dates import WikibaseTime

BORN = Value("time", "+1943-01-14T00:00:00Z/11", "1943-01-14")
FOUNDED = Value("time", "+1943-00-00T00:00:00Z/9", "1943")
OPENED = Value("time", "+1943-01-00T00:00:00Z/10", "January 1943")
TONNAGE = Value("quantity", "85868U1", "85868 gross tonnage")
ISBN = Value("external-id", '"0-306-40615-2"', "0-306-40615-2")


def forms(value: Value, text: str, limit: int = 3) -> list[str]:
    return [found.form for found in other_values(value, text, limit)]


@pytest.mark.parametrize("value, text, expected", [
    (BORN, "Born 14 January 1943 (others say 12 March 1944 or Jan. 3, 1950), died in 2001.",
     ["12 March 1944", "Jan. 3, 1950", "2001"]),
    (BORN, "born 15.1.1943 in Brno", ["15.1.1943"]),
    (BORN, "born 1943-01-15, 14/01/1943", ["1943-01-15"]),
    (BORN, "nació el 3 de marzo de 1944", ["3 de marzo de 1944"]),
    (BORN, "born 01/04/1943", ["01/04/1943"]),  # neither reading is the value
    # A coarser date denies a day only as another month or year: "January 1943" and "1943/44" may hold it.
    (BORN, "born in January 1943, in the 1943/44 season, in 1943", []),
    (BORN, "born in January 1943, in 1944, in March 1943", ["1944", "March 1943"]),
    (OPENED, "opened in February 1943, not on 14 January 1943, but on 3 March 1943, or in 1944",
     ["February 1943", "3 March 1943", "1944"]),
    (FOUNDED, "Founded c. 1943 or in 1944; No. 1687, p. 1901, 1950 m high, 19431 seats, 1943.5 km away, 1951/52",
     ["1944", "1951/52"]),
    (FOUNDED, "the 1943/44 season, nineteen forty-three, 14 January 1943", []),
    (FOUNDED, "on 14 January 1944", ["14 January 1944"]),
    (FOUNDED, "founded in 44 BC", ["44 BC"]),
    (Value("time", "+1940-00-00T00:00:00Z/8", "1940s"), "in 1944, on 3 March 1950", []),
])
def test_other_dates_at_the_values_precision(value, text, expected):
    found = other_values(value, text)
    assert [item.form for item in found] == expected
    assert all(item.how == DATE and text[item.start:item.end] == item.form for item in found)


def test_the_same_day_in_the_other_calendar_is_the_value():
    julian = Value("time", "+1642-12-25T00:00:00Z/11/J", "25 December 1642 (Julian calendar)")
    assert forms(julian, "born 25 December 1642 (4 January 1643 NS), baptised 1 January 1643") == ["1 January 1643"]


def test_each_other_value_once_in_text_order_and_at_most_limit():
    text = "1950, 1950, 1951, 1952, 1953"
    assert forms(FOUNDED, text) == ["1950", "1951", "1952"]
    assert forms(FOUNDED, text, limit=2) == ["1950", "1951"]
    assert forms(FOUNDED, text, limit=0) == []
    assert forms(BORN, "3 May 1950 and 05/03/1950") == ["3 May 1950"]  # one reading of the second is the first


@pytest.mark.parametrize("value, text, expected", [
    (TONNAGE, "Gross tonnage 85,868; later 90,000 GT, then 1.2 million tons, a 1990 refit, 12 January 1990, "
              "ISBN 0-306-40615-2, No. 70000, 100,000 and 85.868 and 17,000 and 500,000 and 90000",
     ["90,000", "100,000"]),
    (Value("quantity", "1200000", "1200000"), "1.2 million then 1.5 million", ["1.5 million"]),
    (Value("quantity", "+1500U11573", "1500 metre"), "1500 m high; the 1943 survey said 1600 m", ["1943", "1600"]),
    (Value("quantity", "+3", "3"), "three children; 4 children; 2 sons; 30 years; at 13:30; in 1943", ["4", "2"]),
    (Value("quantity", "+271U11573", "271 metre"), "271 m (889 ft), 271.3 m, 300 m", ["889", "271.3", "300"]),
    (Value("quantity", "+0", "0"), "1 or 2", []),
])
def test_other_amounts_near_the_value(value, text, expected):
    found = other_values(value, text)
    assert [item.form for item in found] == expected
    assert all(item.how == AMOUNT for item in found)


@pytest.mark.parametrize("value, text, expected", [
    (ISBN, "ISBN 0-306-40615-2, ISBN 0–306–40615–3, 978-0-306-40615-7, 1-234-56789-X, 1-234-56789-0",
     ["0–306–40615–3", "1-234-56789-0"]),
    (Value("external-id", '"nm0000123"', "nm0000123"), "IMDb NM0000123, nm0000124, nm00001234, xnm0000125",
     ["nm0000124"]),
    (Value("string", '"Hello"', "Hello"), "World", []),  # no digit: a name is not an identifier
    (Value("external-id", '"1234"', "1234"), "1235 and 1943", []),  # too short to tell from a number
])
def test_other_identifiers_of_the_same_shape(value, text, expected):
    found = other_values(value, text)
    assert [item.form for item in found] == expected
    assert all(item.how == STRING for item in found)


def test_items_and_other_kinds_have_none():
    assert other_values(Value("wikibase-item", "Q5", "human"), "a human, a dog, 1943") == []
    assert other_values(Value("globe-coordinate", "@50/14", "50°N, 14°E"), "51°N") == []


def test_dates_are_read_with_every_reading():
    mention, = find_dates("on 01/04/1943")
    assert mention.readings == (WikibaseTime(1943, 4, 1, 11), WikibaseTime(1943, 1, 4, 11))
    season, = find_dates("the 1951/52 season")
    assert season.readings == (WikibaseTime(1951), WikibaseTime(1952))
    # Czech "led" (January) is also a word: abbreviations count with their dot only
    assert [(mention.form, mention.readings) for mention in find_dates("led 1943, pro 1950, led. 1943")] == [
        ("1943", (WikibaseTime(1943),)), ("1950", (WikibaseTime(1950),)),
        ("led. 1943", (WikibaseTime(1943, 1, 0, 10),))]
    assert [mention.form for mention in find_dates("31 February 1943, 30 Feb. 1943")] == ["February 1943", "Feb. 1943"]


def test_the_proper_names_a_text_writes_are_the_other_values_of_a_named_item():
    from bot.values import other_names

    panama = Value("wikibase-item", "Q804", "Panama", ("Republic of Panama",))
    text = ("Rating: Ramble On (IMO: 1002342) is a Yacht registered under the flag of Bermuda. During May 2020 "
            "she sailed from the Isle of Man to Panama and on to Rue de la Couronne.")
    found = other_names(panama, text, limit=6, exclude=["Ramble On"])
    # Not "Rating", "During", "IMO" (one capitalised word where a sentence, a heading or a bracket begins), not a
    # month, not the subject, not the value.
    assert [hit.form for hit in found] == ["Yacht", "Bermuda", "Isle of Man", "Rue de la Couronne"]
    assert all(text[hit.start:hit.end] == hit.form for hit in found)
    assert other_names(panama, text, limit=2, exclude=["Ramble On"])[-1].form == "Bermuda"
    # A value written lower case has no names to tell in a text; nor has a date.
    assert other_names(Value("wikibase-item", "Q49757", "poet"), "He met Rilke in Prague.") == []
    assert other_names(Value("time", "+1943-01-14T00:00:00Z/11", "1943-01-14"), "He met Rilke in Prague.") == []
