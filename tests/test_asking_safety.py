"""A query a model wrote is sent only when rdflib's SPARQL parser reads it as a read-only SELECT of ?item, with no
SERVICE, no other graph, only known ids, and a capped LIMIT: each refusal, and what is sent otherwise."""

from __future__ import annotations

import pytest

from bot.asking.safety import MAX_LENGTH, QueryRefused, check, ids, prologue

KNOWN = {"Q5", "Q213", "P27", "P31", "P166"}


@pytest.mark.parametrize("query, reason", [
    ("INSERT DATA { wd:Q5 wdt:P31 wd:Q5 }", "INSERT changes data"),
    ("PREFIX ex: <http://example.org/>\nDELETE WHERE { ?item ?p ?o }", "DELETE changes data"),
    ("LOAD <http://example.org/data.ttl>", "LOAD changes data"),
    ("CLEAR DEFAULT", "CLEAR changes data"),
    ("SELECT ?item WHERE { ?item wdt:P31 wd:Q5 } ; DROP ALL", "not valid SPARQL"),
    ("SELECT ?item ?itemLabel WHERE { ?item wdt:P31 wd:Q5 . "
     "SERVICE wikibase:label { bd:serviceParam wikibase:language 'en' } }", "SERVICE"),
    ("SELECT ?item WHERE { { SELECT ?item WHERE { SERVICE <http://example.org/sparql> { ?item ?p ?o } } } }",
     "SERVICE"),
    ("SELECT ?person WHERE { ?person wdt:P31 wd:Q5 }", "does not SELECT ?item"),
    ("SELECT * WHERE { ?item wdt:P31 wd:Q5 }", "must name ?item"),
    ("SELECT ?item FROM <http://example.org/graph> WHERE { ?item wdt:P31 wd:Q5 }", "FROM"),
    ("SELECT ?item FROM NAMED <http://example.org/graph> WHERE { ?item wdt:P31 wd:Q5 }", "FROM"),
    ("ASK { ?item wdt:P31 wd:Q5 }", "ASK queries are not run"),
    ("CONSTRUCT { ?item wdt:P31 wd:Q5 } WHERE { ?item wdt:P31 wd:Q5 }", "CONSTRUCT queries are not run"),
    ("DESCRIBE wd:Q5", "DESCRIBE queries are not run"),
    ("SELECT ?item WHERE { ?item wdt:P31 wd:Q999 }", "unknown Wikidata id(s) Q999"),
    ("SELECT ?item WHERE { ?item <http://www.wikidata.org/prop/direct/P1082> ?n }", "unknown Wikidata id(s) P1082"),
    ("SELECT ?item WHERE { ?item p:P31 ?s . ?s ps:P31 wd:Q6256 }", "Q6256"),
    ("SELECT ?item WHERE { ?item wdt:P31 }", "not valid SPARQL: Expected SelectQuery (line 1,"),
    ("SELECT ?item WHERE { ?item foo:P31 wd:Q5 }", "Unknown namespace prefix"),
    ("SELECT ?item WHERE { ?item wdt:P31 wd:Q5 }" + " " * MAX_LENGTH, "characters long"),
])
def test_an_unsafe_or_unchecked_query_is_refused_with_its_reason(query, reason):
    with pytest.raises(QueryRefused, match=None) as refused:
        check(query, limit=500, known=KNOWN)
    assert reason in str(refused.value)


def test_a_query_without_a_limit_gets_the_cap_and_the_standard_prefixes_it_uses():
    checked = check("SELECT ?item WHERE { ?item wdt:P31 wd:Q5 ; p:P166 ?s . "
                    "FILTER NOT EXISTS { ?s prov:wasDerivedFrom ?r } }", limit=500, known=KNOWN)
    assert checked.text.endswith("\nLIMIT 500") and checked.limit == 500
    assert checked.ids == ("P31", "P166", "Q5")
    declared = [line.split()[1] for line in checked.text.splitlines() if line.startswith("PREFIX")]
    assert declared == ["wd:", "wdt:", "p:", "prov:"]


def test_a_limit_above_the_cap_is_lowered_and_one_below_it_is_kept():
    high = check("SELECT ?item WHERE { ?item wdt:P31 wd:Q5 } ORDER BY ?item LIMIT 100000 OFFSET 30", limit=500,
                 known=KNOWN)
    assert high.limit == 500 and high.text.endswith("LIMIT 500 OFFSET 30")
    low = check("SELECT DISTINCT ?item (COUNT(?award) AS ?awards) WHERE { ?item wdt:P31 wd:Q5 ; wdt:P166 ?award } "
                "GROUP BY ?item LIMIT 10", limit=500, known=KNOWN)
    assert low.limit == 10 and low.text.endswith("LIMIT 10")


def test_a_limit_inside_a_subquery_does_not_stand_for_the_query():
    checked = check("SELECT ?item WHERE { { SELECT ?item WHERE { ?item wdt:P31 wd:Q5 } LIMIT 10 } }", limit=50,
                    known=KNOWN)
    assert checked.text.endswith("\nLIMIT 50")


def test_declared_prefixes_are_kept_and_full_iris_are_checked_like_prefixed_names():
    text = ("PREFIX wd: <http://www.wikidata.org/entity/>\n"
            "SELECT ?item WHERE { ?item <http://www.wikidata.org/prop/direct/P27> wd:Q213 }")
    checked = check(text, limit=5, known=KNOWN)
    assert checked.text.count("PREFIX wd:") == 1 and checked.ids == ("P27", "Q213")
    assert ids("SELECT ?item WHERE { ?item wdt:P31 wd:Q5 ; wdt:P166 wd:Q7191 }") == ["P31", "P166", "Q5", "Q7191"]
    assert ids("not a query") == []


def test_a_prefix_in_a_string_or_an_iri_is_not_taken_for_a_use():
    assert prologue('SELECT ?item WHERE { ?item rdfs:label "wd:Q5 wdt:P31" }') == (
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n")
