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
