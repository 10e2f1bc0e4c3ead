"""Entities for linking come from the Wikidata API's wbsearchentities — here the demo world's stand-in on loopback,
which searches labels and aliases as the search box does — each n-gram asked once."""

from __future__ import annotations

import pytest
import requests

from bot.asking.entities import EntitySearch, candidates
from bot.demo.world import DemoWorld
from bot.documents.services import ServiceClient
from bot.errors import ServiceError


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with DemoWorld(workdir=tmp_path_factory.mktemp("demo")) as running:
        yield running


@pytest.fixture
def search(world):
    client = ServiceClient(requests.Session(), user_agent="refbot/test", contact="ops@example.org", retries=0)
    return EntitySearch(client, f"{world.base('wikidata')}/w/api.php", "en")


def test_the_search_finds_items_by_label_prefix_alias_and_without_accents(search, world):
    assert [c.id for c in search("Charles University")] == ["Q990215"]
    assert search("Charles")[0].label == "Charles University"
    assert [c.id for c in search("marta novotna")] == ["Q990201"]
    assert {c.id for c in search("Czech")} >= {"Q990217", "Q990219", "Q990220"}
    assert search("square kilometre")[0].id == "Q712226" and search("km2")[0].matched == "km2"
    czech = search("Ceske vysoke uceni")
    assert czech == [], "a Czech label is not an English one"
    asked = [r for r in world.requests if r.params.get("action") == "wbsearchentities"]
    search("Charles")
    assert len([r for r in world.requests if r.params.get("action") == "wbsearchentities"]) == len(asked)
    assert {r.params["language"] for r in asked} == {"en"} and {r.params["type"] for r in asked} == {"item"}


def test_an_error_answer_names_the_service():
    with pytest.raises(ServiceError, match="badvalue"):
        candidates({"error": {"code": "badvalue", "info": "Unrecognized value"}}, "http://127.0.0.1/w/api.php")
    answer = {"search": [{"id": "P31", "label": "instance of"},
                         {"id": "Q5", "label": "human", "match": {"text": "person"}}]}
    assert candidates(answer, "http://127.0.0.1/w/api.php")[0].matched == "person"


class Counting:
    """The real endpoint, counting the queries sent."""

    def __init__(self, endpoint) -> None:
        self.endpoint, self.sent = endpoint, 0

    def select(self, query):
        self.sent += 1
        return self.endpoint.select(query)


def test_with_no_api_the_endpoints_labels_and_aliases_name_the_items_in_any_case(world):
    """[ask] entities = endpoint: exact labels or aliases in the question's language, however the question cases
    them; nothing for a label in another language, a partial name, or text no label could hold."""
    from bot.asking.entities import EndpointSearch
    from bot.selection.endpoint import SparqlEndpoint

    endpoint = Counting(SparqlEndpoint(world.sparql_url, "refbot/test (ops@example.org)", timeout=10.0, retries=0))
    labels = EndpointSearch(endpoint, "en")
    found = labels("charles university")
    assert [(c.id, c.label, c.matched) for c in found] == [("Q990215", "Charles University", "Charles University")]
    assert labels("ctu")[0].matched == "CTU", "an alias"
    assert labels("České vysoké učení technické v Praze") == [] and labels("Charles") == [], "a Czech label; a part"
    assert labels("education") == [], "an alias of P69: properties come from the property index, not this lookup"
    sent = endpoint.sent
    assert labels('Charles" } ?s ?p ?o { "') == [] and endpoint.sent == sent, "not a name: never bound into a query"
    assert labels("charles university")[0].id == "Q990215" and endpoint.sent == sent, "each n-gram asked once"
