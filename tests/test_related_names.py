"""An item value's other names: what ``value-names.rq`` returns from a real Oxigraph store, and the rules that
choose among them (drops, caps, order)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rdflib.plugins.sparql import prepareQuery

from bot.datamodel import Statement, Value
from bot.selection import related
from bot.selection.binding import load_query
from bot.selection.endpoint import Row, Term
from bot.selection.related import fetch_related, related_names, with_related
from servers import CountingEndpoint, turtle_endpoint

ENTITY = "http://www.wikidata.org/entity/"

# Invented items (Q99051xx), shaped as the Query Service's RDF has them: rdfs:label, skos:altLabel, truthy wdt:.
WORLD = """
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .

wd:Q9905100 rdfs:label "Moravian town"@en, "moravské město"@cs, "mährische Stadt"@de, "ville morave"@fr, "Mo"@hu ;
  skos:altLabel "town in Moravia"@en, "Stadt in Mähren"@de, "MORAVIAN TOWN"@es ;
  wdt:P279 wd:Q9905101, wd:Q9905102, wd:Q35120 ;
  wdt:P131 wd:Q9905109 ;
  wdt:P1549 "Moravian"@en, "Mährer"@de .
wd:Q9905101 rdfs:label "town"@en, "Stadt"@de .
wd:Q9905102 rdfs:label "settlement"@en ; skos:altLabel "populated place"@en .
wd:Q35120 rdfs:label "entity"@en .
wd:Q9905109 rdfs:label "Moravia"@en .
wd:Q9905103 rdfs:label "Moravian market town"@en, "mährischer Marktflecken"@de ; wdt:P279 wd:Q9905100 .
wd:Q9905104 rdfs:label "moravian town"@en ; wdt:P279 wd:Q9905100 .
wd:Q9905105 rdfs:label "Hranice"@en, "Mährisch Weißkirchen"@de ; wdt:P131 wd:Q9905100 .

wd:Q9905200 rdfs:label "Silesian village"@en, "Slezská vesnice"@mul ;
  wdt:P279 wd:Q9905101 .
wd:Q9905300 rdfs:label "Lonely item"@en .
"""


@pytest.fixture(scope="module")
def names_world(tmp_path_factory):
    yield from turtle_endpoint(tmp_path_factory, "value-names", WORLD)


def test_the_query_parses_as_sparql_1_1_and_declares_its_parameters():
    text = load_query("value-names").text
    prepareQuery(text)
    assert "VALUES ?entity { }" in text and "VALUES ?language {" in text
    # Places located in the value are asked for, never the value's own region.
    body = text.split("PREFIX", 1)[1]
    assert "SERVICE" not in text and "?other wdt:P131 ?entity" in body and "?entity wdt:P131" not in body


def test_fetch_related_through_a_real_endpoint(names_world, monkeypatch):
    monkeypatch.setattr(related, "BATCH", 2)
    endpoint = CountingEndpoint(names_world)
    found = fetch_related(endpoint, ["Q9905300", "Q9905100", "Q9905200", "Q9905100"], ("en", "mul"))
    assert len(endpoint.sent) == 2  # three ids, two per query
    assert found["Q9905100"] == (
        ("moravské město", "label (cs)"),
        ("mährische Stadt", "label (de)"),
        ("ville morave", "label (fr)"),
        ("Stadt in Mähren", "alias (de)"),
        ("Moravian market town", "more specific item Q9905103: Moravian market town"),
        ("Moravian", "demonym (en)"),
        # A place located in the value names it; the value's own region (its P131, "Moravia") does not.
        ("Hranice", "place in it Q9905105: Hranice"),
    )
    # "mul" is preferred here, so its label is the value's own name; Q9905300 has no other name.
    # A more general item is no name of the value: "town" does not state "Moravian town".
    assert found["Q9905200"] == ()
    assert found["Q9905300"] == ()


def test_the_preferred_languages_decide_what_is_other(names_world):
    found = fetch_related(names_world, ["Q9905100", "Q9905200"], ("de",))
    q9905100 = found["Q9905100"]
    assert ("Moravian town", "label (en)") in q9905100 and ("town in Moravia", "alias (en)") in q9905100
    assert ("mährischer Marktflecken", "more specific item Q9905103: mährischer Marktflecken") in q9905100
    assert q9905100[-2:] == (("Mährer", "demonym (de)"),
                             ("Mährisch Weißkirchen", "place in it Q9905105: Mährisch Weißkirchen"))
    assert not any(name in ("mährische Stadt", "Stadt in Mähren", "town", "Moravia", "entity") for name, _ in q9905100)
    assert found["Q9905200"][0] == ("Slezská vesnice", "label (mul)")


def test_no_ids_no_query(names_world):
    endpoint = CountingEndpoint(names_world)
    assert fetch_related(endpoint, [], ("en",)) == {} and endpoint.sent == []


def row(kind: str, text: str, lang: str, other: str = "", entity: str = "Q1") -> Row:
    found = {"entity": Term(ENTITY + entity), "kind": Term(kind, "literal"), "text": Term(text, "literal", lang)}
    if other:
        found["other"] = Term(ENTITY + other)
    return found


def test_mul_comes_first_among_other_languages_then_labels_before_aliases():
    rows = [row("alias", "Alpha-Alias", "de"), row("label", "Zeta", "zh"), row("label", "Beta", "de"),
            row("label", "Mul name", "mul"), row("label", "Own", "en")]
    assert related_names("Q1", rows, ("en",), ["Own"]) == (
        ("Mul name", "label (mul)"), ("Beta", "label (de)"), ("Zeta", "label (zh)"), ("Alpha-Alias", "alias (de)"))


def test_short_own_repeated_and_other_values_names_are_dropped():
    rows = [row("label", "Ab", "de"), row("label", "  own name ", "fr"), row("label", "Gamma", "it"),
            row("alias", "gamma", "nl"), row("specific", "GAMMA", "en", "Q7"),
            row("label", "Elsewhere", "de", entity="Q2")]
    # "Gamma" in Italian and the more specific item "GAMMA" are one name: the linked item's way of naming it wins.
    assert related_names("Q1", rows, ("en",), ["Own Name"]) == (("GAMMA", "more specific item Q7: GAMMA"),)


def test_top_level_classes_are_never_names():
    rows = [row("specific", "entity", "en", "Q35120"), row("specific", "human", "en", "Q5"),
            row("specific", "person", "en", "Q215627"), row("specific", "novelist", "en", "Q6625963"),
            row("specific", "physical object", "en", "Q223557"), row("general", "writer", "en", "Q36180")]
    assert related_names("Q1", rows, ("en",), ["writer"]) == (("novelist", "more specific item Q6625963: novelist"),)
    assert {"Q35120", "Q488383", "Q5", "Q215627", "Q151885", "Q16887380", "Q7184903", "Q223557", "Q1190554",
            "Q99527517"} == related.TOP_LEVEL_CLASSES


def test_linked_items_keep_only_preferred_languages_in_their_order():
    rows = [row("specific", "Stadt", "de", "Q3"), row("specific", "town", "en", "Q3"),
            row("specific", "ville", "fr", "Q3"),
            row("demonym", "Mährer", "de"), row("demonym", "Moravian", "en"), row("demonym", "morave", "fr")]
    assert related_names("Q1", rows, ("en", "de"), []) == (
        ("town", "more specific item Q3: town"), ("Stadt", "more specific item Q3: Stadt"),
        ("Moravian", "demonym (en)"), ("Mährer", "demonym (de)"))


def test_at_most_twenty_more_specific_items_the_lowest_ids_first():
    rows = [row("specific", f"kind {n}", "en", f"Q{n}") for n in range(130, 100, -1)]
    names = related_names("Q1", rows, ("en",), [])
    assert len(names) == related.MOST_SPECIFIC_ITEMS
    assert names[0] == ("kind 101", "more specific item Q101: kind 101")
    assert names[-1] == ("kind 120", "more specific item Q120: kind 120")
    numeric = related_names("Q1", [row("specific", "ten", "en", "Q10"), row("specific", "nine", "en", "Q9")], ("en",),
                            [])
    assert [name for name, _ in numeric] == ["nine", "ten"]


def test_at_most_forty_names_in_the_order_of_their_kinds_other_languages_leaving_room_for_the_rest():
    rows = [row("label", f"name {n:02}", f"x{n:02}") for n in range(35)]
    rows += [row("general", "general class", "en", "Q9"), row("demonym", "Somewhere-ian", "en")]
    rows += [row("specific", f"special {n}", "en", f"Q{100 + n}") for n in range(11)]
    names = related_names("Q1", rows, ("en",), [])
    assert len(names) == related.MOST_NAMES
    assert names[27] == ("name 27", "label (x27)")  # 40 less the 12 linked names and demonyms
    assert names[28] == ("special 0", "more specific item Q100: special 0")
    assert not any(how.startswith("more general") for _, how in names)
    assert names[-1] == ("Somewhere-ian", "demonym (en)")
    # However many those are, labels in other languages keep MOST_FOREIGN places.
    many = rows + [row("specific", f"other {n}", "en", f"Q{200 + n}") for n in range(10)]
    assert sum(how.startswith("label (") for _, how in related_names("Q1", many, ("en",), [])) == \
        related.MOST_FOREIGN


def test_the_answer_order_does_not_matter():
    rows = [row("label", "Beta", "de"), row("alias", "Delta", "fr"), row("general", "gamma", "en", "Q12"),
            row("general", "alpha", "en", "Q2"), row("specific", "eps", "en", "Q5000")]
    assert related_names("Q1", rows, ("en",), []) == related_names("Q1", rows[::-1], ("en",), [])


def statement(value: Value) -> Statement:
    return Statement("Q42", "Douglas Adams", "Q42$1", "P19", "place of birth", value)


def test_with_related_sets_an_item_values_names_and_leaves_others_alone():
    names = {"Q9905100": (("ville morave", "label (fr)"), ("Town in Moravia", "alias (de)"),
                          ("town", "more general item Q9905101: town"))}
    item = statement(Value("wikibase-item", "Q9905100", "Moravian town", ("town in Moravia",)))
    updated = with_related(item, names)
    assert updated.value.related == (("ville morave", "label (fr)"), ("town", "more general item Q9905101: town"))
    assert updated.value.text == "Moravian town" and updated.guid == item.guid
    other = statement(Value("wikibase-item", "Q9905300", "Lonely item"))
    assert with_related(other, names) is other
    text = statement(Value("string", '"Q9905100"', "Q9905100"))
    assert with_related(text, names) is text


def test_a_name_linked_through_the_statements_own_subject_is_no_name_of_its_value():
    """The unsourced statement "Q42 is located in Q9905100" makes Q42 a place in Q9905100: its own label must not
    count as naming the value, or every page about Q42 would write it."""
    names = {"Q9905100": (("Hranice", "place in it Q9905105: Hranice"),
                          ("Douglas Adams", "place in it Q42: Douglas Adams"),
                          ("Adams house", "more specific item Q42: Adams house"))}
    located = Statement("Q42", "Douglas Adams", "Q42$1", "P131", "located in the administrative territorial entity",
                        Value("wikibase-item", "Q9905100", "Moravian town"))
    assert with_related(located, names).value.related == (("Hranice", "place in it Q9905105: Hranice"),)
    assert with_related(replace(located, item="Q4"), names).value.related == names["Q9905100"]


def test_a_run_looks_each_value_up_once_and_a_failing_endpoint_leaves_the_statement_to_its_own_names(names_world):
    from bot.errors import QueryError
    from bot.selection.related import RelatedLookup

    endpoint = CountingEndpoint(names_world)
    lookup = RelatedLookup(endpoint, ("en",))
    town = statement(Value("wikibase-item", "Q9905100", "Moravian town"))
    first, again = lookup(town), lookup(town)
    assert first == again and len(endpoint.sent) == 1
    assert ("Moravian market town", "more specific item Q9905103: Moravian market town") in first.value.related
    assert lookup(statement(Value("time", "+1943-01-14T00:00:00Z/11", "1943-01-14"))).value.related == ()
    assert len(endpoint.sent) == 1  # no query for a value that is no item

    class Failing:
        def select(self, query):
            raise QueryError("the endpoint timed out", query="value-names", endpoint="http://127.0.0.1:9")

    assert RelatedLookup(Failing(), ("en",))(town) == town


def test_a_label_in_each_language_refbot_reads_is_kept_however_many_languages_label_the_value():
    # A country is labelled in hundreds of languages; a page in Russian or Turkish names it as its language does.
    codes = [f"b{n:02}" for n in range(60)] + ["ar", "de", "ru", "tr", "zh"]
    rows = [row("label", f"name in {code}", code) for code in codes] + [row("alias", "Danmark", "da")]
    names = dict((how, name) for name, how in related_names("Q1", rows, ("en",), []))
    assert names["label (ru)"] == "name in ru" and names["label (tr)"] == "name in tr"
    # The other languages' labels fill the room the other kinds leave (all of it here), before their aliases.
    assert sum(how.startswith("label (b") for how in names) == related.MOST_NAMES
    assert "alias (da)" not in names
    assert [how for how in names][:5] == ["label (ar)", "label (de)", "label (ru)", "label (tr)", "label (zh)"]
