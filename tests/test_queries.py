"""The query files: each parses, runs as it is on Oxigraph, and is what gets sent — changed only where
parameters are bound, from validated ids."""

from __future__ import annotations

import re

import pytest
import requests
from rdflib.plugins.sparql import prepareQuery

from bot.assets import asset_dir, asset_names, asset_path, query_text
from bot.errors import ConfigError, InputError
from bot.selection.binding import PARAMETERS, Query, bind, load_query, read_query_file, without_comments
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.unsourced import SelectionRules, unsourced_statements
from bot.selection.worklists import iter_worklist
from servers import sparql_json

QUERIES = asset_names("queries")
SAMPLE = {"item": ["Q36233"], "after": ["Q1"], "property": ["P166"], "referenceProperty": ["P143"],
          "entity": ["Q36233", "P166"], "language": ["en", "pt-br"],
          "text": ["Charles University", "charles university"], "identifier": ["118540238", "0000-0002-1825-0097"],
          "domain": ["bbc.co.uk"]}


def test_the_expected_queries_exist():
    assert QUERIES == ["citation-needed-properties", "defining-triples", "entity-search", "equivalent-properties",
                       "identifier-counts", "identifier-items", "item-identifiers", "labels", "oldest-references",
                       "property-index", "property-links", "rdf-identifier-properties", "referenced-statements",
                       "referenced-worklist", "same-value-properties", "statement-qualifiers", "statement-references",
                       "unsourced-statements", "value-names", "value-usage", "worklist"]


@pytest.mark.parametrize("name", QUERIES)
def test_every_query_parses_as_sparql_1_1(name):
    prepareQuery(query_text(name))


@pytest.mark.parametrize("name", QUERIES)
def test_every_query_runs_unchanged_and_bound_on_oxigraph(name, wikidata_world):
    text = query_text(name)
    declared = re.findall(r"VALUES\s+\?(\w+)\s*\{", text)
    assert set(declared) <= set(PARAMETERS)
    bound = bind(Query(name, text), **{parameter: SAMPLE[parameter] for parameter in declared})
    prepareQuery(bound.text)
    for query in (text, bound.text):
        answer = requests.post(wikidata_world, data={"query": query},
                               headers={"Accept": "application/sparql-results+json"}, timeout=30)
        assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("name", QUERIES)
def test_queries_use_no_vendor_extensions(name):
    text = without_comments(query_text(name))
    assert "SERVICE" not in text and "wikibase:label" not in text and "hint:" not in text and "bd:" not in text


def test_binding_changes_only_the_values_blocks_and_the_limit():
    original = load_query("worklist")
    bound = bind(original, property=["P166"], after=["Q5"], referenceProperty=[], limit=7)

    def skeleton(text: str) -> str:
        text = without_comments(text)
        text = re.sub(r"VALUES\s+\?(\w+)\s*\{[^{}]*\}", r"VALUES ?\1 {}", text)
        return re.sub(r"LIMIT\s+\d+\s*$", "LIMIT", text.rstrip())
    assert skeleton(bound.text) == skeleton(original.text)
    assert "VALUES ?property { <http://www.wikidata.org/entity/P166> }" in bound.text
    assert "VALUES ?after { <http://www.wikidata.org/entity/Q5> }" in bound.text
    assert bound.text.rstrip().endswith("LIMIT 7")


@pytest.mark.parametrize("parameter, value", [
    ("item", "Q1 } ?s ?p ?o . { "),
    ("item", "Q1>"),
    ("item", "Q1\n"),
    ("property", "Q5"),
    ("item", "P31"),
    ("language", 'en" . ?x ?y "'),
    ("language", "EN"),
    ("text", 'Charles" } ?s ?p ?o . { "'),
    ("text", "Charles\\"),
    ("text", "two\nlines"),
    ("text", " padded"),
])
def test_nothing_but_a_valid_id_or_language_code_is_bound(parameter, value):
    query = Query("test", "SELECT * WHERE { VALUES ?%s { } }" % parameter)
    with pytest.raises((InputError, ConfigError)):
        bind(query, **{parameter: [value]})


def test_binding_mistakes_in_query_files_are_named():
    with pytest.raises(ValueError, match="unknown query parameter"):
        bind(Query("t", "SELECT * WHERE { VALUES ?x { } }"), x=["Q1"])
    with pytest.raises(ConfigError, match=r"query t has no single `VALUES \?item"):
        bind(Query("t", "SELECT * WHERE { ?item ?p ?o }"), item=["Q1"])
    with pytest.raises(ConfigError, match="does not end with a LIMIT"):
        bind(Query("t", "SELECT * WHERE { ?item ?p ?o }"), limit=5)
    with pytest.raises(ConfigError, match="does not end with a LIMIT"):
        bind(Query("t", "SELECT * WHERE { ?item ?p ?o }\n# LIMIT 100\n"), limit=5)


def test_the_selection_sends_the_files_with_bound_parameters(recording_server):
    recording_server.script = lambda request: sparql_json([])
    endpoint = SparqlEndpoint(recording_server.url + "/sparql", "refbot/test")
    list(unsourced_statements(endpoint, ["Q36233", "Q42"], SelectionRules(), ["P166"]))
    list(iter_worklist(endpoint, "P569", ("P143",), page_size=10))
    sent = [request.params["query"][0] for request in recording_server.requests]
    rules = SelectionRules()
    assert sent == [
        bind(load_query("unsourced-statements"), item=["Q36233", "Q42"], property=["P166"],
             referenceProperty=rules.ignored_reference_properties).text,
        bind(load_query("worklist"), property=["P569"], referenceProperty=["P143"], limit=10).text,
    ]


def test_a_user_query_must_be_a_readable_select(tmp_path):
    construct = tmp_path / "graph.rq"
    construct.write_text("# SELECT in a comment does not count\nCONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }\n")
    with pytest.raises(InputError, match="graph.rq: not a SPARQL SELECT query"):
        read_query_file(construct)
    with pytest.raises(InputError, match="cannot read the query"):
        read_query_file(tmp_path / "missing.rq")


def test_assets_are_found_by_name_only():
    assert asset_path("queries", "worklist") == asset_dir("queries") / "worklist.rq"
    with pytest.raises(ConfigError, match="no queries asset named 'nope'.*known: citation-needed-properties"):
        asset_path("queries", "nope")
    with pytest.raises(ConfigError, match="not an asset name"):
        asset_path("queries", "../setup.cfg")


def test_an_installed_refbot_finds_the_queries_under_its_prefix(tmp_path, monkeypatch):
    import sys

    from bot import assets

    installed = tmp_path / "prefix" / "share" / "refbot" / "queries"
    installed.mkdir(parents=True)
    (installed / "worklist.rq").write_text(query_text("worklist"))
    monkeypatch.setattr(assets, "__file__", str(tmp_path / "site-packages" / "bot" / "assets.py"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "prefix"))
    assert asset_path("queries", "worklist") == installed / "worklist.rq"
    with pytest.raises(ConfigError, match="no queries asset named 'labels'"):
        asset_path("queries", "labels")
