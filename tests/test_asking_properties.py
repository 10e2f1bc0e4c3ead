"""The property index `refbot select --ask` links words to: read with property-index.rq from a real Oxigraph
endpoint (labels, aliases, descriptions in one language, datatype, the citation needed constraint unless
deprecated), kept on disk, used offline when the endpoint fails."""

from __future__ import annotations

from datetime import date

import pytest

from bot.asking.properties import IndexCache, fetch_index, property_index
from bot.demo.world import free_port
from bot.errors import QueryError
from bot.selection.endpoint import SparqlEndpoint

TURTLE = """\
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix schema: <http://schema.org/> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .

wd:P166 a wikibase:Property ; wikibase:propertyType wikibase:WikibaseItem ;
  rdfs:label "award received"@en, "ocenění"@cs ; schema:description "award or recognition received"@en ;
  skos:altLabel "awards"@en, "prize received"@en, "vyznamenání"@cs ;
  p:P2302 wds:c166 .
wd:P1082 a wikibase:Property ; wikibase:propertyType wikibase:Quantity ; rdfs:label "population"@en ;
  p:P2302 wds:c1082 .
wd:P18 a wikibase:Property ; wikibase:propertyType wikibase:CommonsMedia ; rdfs:label "image"@en .
wd:P9999 a wikibase:Property ; wikibase:propertyType wikibase:ExternalId .
"""
CONSTRAINTS = """\
@prefix wds: <http://www.wikidata.org/entity/statement/> .
wds:c166 <http://www.wikidata.org/prop/statement/P2302> <http://www.wikidata.org/entity/Q54554025> ;
  <http://wikiba.se/ontology#rank> <http://wikiba.se/ontology#NormalRank> .
wds:c1082 <http://www.wikidata.org/prop/statement/P2302> <http://www.wikidata.org/entity/Q54554025> ;
  <http://wikiba.se/ontology#rank> <http://wikiba.se/ontology#DeprecatedRank> .
"""


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory):
    from servers import start_oxigraph

    directory = tmp_path_factory.mktemp("index")
    data = directory / "world.ttl"
    data.write_text("@prefix wds: <http://www.wikidata.org/entity/statement/> .\n" + TURTLE + CONSTRAINTS,
                    encoding="utf-8")
    server = start_oxigraph(data, directory / "store", free_port())
    yield SparqlEndpoint(server.url, "refbot/test (ops@example.org)", timeout=10.0, retries=0)
    server.stop()


def test_the_index_holds_each_property_in_one_language_and_its_citation_needed_constraint(endpoint):
    index = fetch_index(endpoint, "en", date(2026, 11, 23))
    assert [term.id for term in index.properties] == ["P18", "P166", "P1082", "P9999"]
    award = index.get("P166")
    assert award.label == "award received" and award.description == "award or recognition received"
    assert award.aliases == ("awards", "prize received") and award.datatype == "WikibaseItem"
    assert award.citation_needed and award.names() == ("award received", "awards", "prize received")
    assert not index.get("P1082").citation_needed, "a deprecated constraint statement does not count"
    assert index.get("P18").datatype == "CommonsMedia" and not index.get("P18").citation_needed
    assert index.get("P9999").label == "" and index.get("P9999").names() == ()
    czech = fetch_index(endpoint, "cs", date(2026, 11, 23))
    assert czech.get("P166").label == "ocenění" and czech.get("P166").aliases == ("vyznamenání",)


def test_the_index_is_kept_on_disk_and_an_old_one_serves_when_the_endpoint_fails(endpoint, tmp_path):
    cache = IndexCache(tmp_path / "properties", max_age_days=30)
    first = property_index(endpoint, cache, "en", date(2026, 11, 23))
    assert len(list((tmp_path / "properties").glob("index-en-*.json"))) == 1
    dead = SparqlEndpoint(f"http://127.0.0.1:{free_port()}/query", "refbot/test (ops@example.org)", timeout=2.0,
                          retries=0)
    assert property_index(endpoint, cache, "en", date(2026, 12, 1)) == first  # fresh: not asked again
    with pytest.raises(QueryError):
        property_index(dead, cache, "en", date(2026, 12, 1))  # another endpoint has no index of its own
    cache.put(first.__class__(first.properties, "en", dead.url, "2026-01-01"))
    stale = property_index(dead, cache, "en", date(2026, 12, 1))
    assert stale.retrieved == "2026-01-01" and stale.get("P166").citation_needed
    cache.path(dead.url, "en").write_text("{not json", encoding="utf-8")
    with pytest.raises(QueryError):
        property_index(dead, cache, "en", date(2026, 12, 1))
