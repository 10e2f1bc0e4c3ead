"""A question's words linked to properties (the index) and entities (a lookup), longest n-gram first, each word
used once, on constructed labels."""

from __future__ import annotations

from bot.asking.linking import Candidate, fold, link, ngrams, similarity, words
from bot.asking.properties import PropertyIndex, PropertyTerm

INDEX = PropertyIndex((
    PropertyTerm("P166", "award received", "award or recognition received", ("awards", "prize received"),
                 "WikibaseItem", True),
    PropertyTerm("P570", "date of death", "date on which the subject died", ("death date", "died"), "Time", True),
    PropertyTerm("P569", "date of birth", "", ("born",), "Time", True),
    PropertyTerm("P1082", "population", "number of people inhabiting the place", ("inhabitants",), "Quantity", True),
    PropertyTerm("P27", "country of citizenship", "", ("citizenship", "nationality"), "WikibaseItem", False),
    PropertyTerm("P1083", "maximum capacity", "", ("population capacity",), "Quantity", False),
    PropertyTerm("P8000", "population", "a duplicate label without the constraint", (), "Quantity", False),
), "en", "http://127.0.0.1/sparql", "2026-11-23")

ENTITIES = {
    "czech": [Candidate("Q9056", "Czech", "West Slavic language"), Candidate("Q213", "Czechia", "country", "Czech")],
    "presidents": [Candidate("Q30461", "president", "head of state")],
    "painters": [Candidate("Q1028181", "painter", "person who paints")],
    "moravian towns": [],
    "moravian": [Candidate("Q43266", "Moravia", "historical region", "Moravian")],
    "town": [Candidate("Q3957", "town", "type of settlement")],
    "award": [Candidate("Q618779", "award", "something given in recognition")],
}
ASKED: list[str] = []


def lookup(text: str) -> list[Candidate]:
    ASKED.append(text)
    return ENTITIES.get(text.casefold(), [])


def test_ngrams_come_longest_first_and_never_start_or_end_on_a_stop_word():
    tokens = words("dates of death of Czech painters")
    spans = ngrams(tokens, longest=3)
    assert [" ".join(tokens[a:b]) for a, b in spans] == [
        "dates of death", "death of Czech", "dates of", "death of", "Czech painters", "dates", "death", "Czech",
        "painters"]


def test_folding_and_similarity_ignore_case_accents_and_punctuation():
    assert fold("Ocenění — Award!") == "oceneni award"
    assert similarity("DATE of death", "date of death") == 1.0
    assert 0.9 < similarity("dates of death", "date of death") < 1.0


def test_properties_are_linked_by_label_alias_or_plural_and_words_are_used_once():
    ASKED.clear()
    links = link("awards of Czech presidents that cite nothing", INDEX, lookup)
    assert [(item.kind, item.id, item.words) for item in links] == [
        ("property", "P166", "awards"), ("entity", "Q9056", "Czech"), ("entity", "Q30461", "presidents")]
    assert "awards" not in ASKED, "a word a property took is not looked up as an entity"
    died = link("dates of death of Czech painters without a reference", INDEX, lookup)
    assert died[0].id == "P570" and died[0].words == "dates of death" and 0.9 < died[0].score < 1.0
    assert [item.id for item in died[1:]] == ["Q9056", "Q1028181"]


def test_equal_scores_prefer_the_property_that_needs_references_and_the_lookups_first_entity():
    links = link("population figures of Moravian towns that need a source", INDEX, lookup)
    assert [(item.id, item.citation_needed) for item in links if item.kind == "property"] == [("P1082", True)]
    assert [item.id for item in links if item.kind == "entity"] == ["Q43266", "Q3957"]
    assert "towns" in ASKED and "town" in ASKED, "a plural the search does not know is asked in the singular"
    # "Czech" is the label of the language and an alias of the country: both score 1, the lookup's first wins.
    assert link("Czech", INDEX, lookup)[0].id == "Q9056"


def test_nothing_links_below_the_threshold_and_without_a_lookup_only_properties_link():
    assert link("populous citizens", INDEX, lookup) == []
    assert [item.id for item in link("awards of Czech presidents", INDEX)] == ["P166"]


def test_the_words_that_open_a_question_before_whose_name_a_class_not_a_property():
    links = link("awards whose date of death is unsourced", INDEX, lookup)
    assert [(item.kind, item.id, item.start) for item in links] == [("entity", "Q618779", 0), ("property", "P570", 2)]
    assert link("awards of Czech presidents", INDEX, lookup)[0].id == "P166", "elsewhere the property"
    negated = link("painters without any awards whose date of birth is unsourced", INDEX, lookup)
    assert [item.id for item in negated] == ["Q1028181", "P166", "P569"], "only the question's opening words"
