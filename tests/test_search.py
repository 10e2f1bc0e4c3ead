"""Web search backends against a local SearXNG-shaped and Brave-shaped endpoint."""

from __future__ import annotations

import json

import pytest

from bot.datamodel import Statement, Value
from bot.documents.search import keep_results, search_query, web_search, SearchResult
from bot.errors import ConfigError, ServiceError
from bot.wiring import Wiring
from documents_world import world_options
from servers import Reply

HAVEL_AWARD = Statement("Q36233", "Václav Havel", "Q36233$1", "P166", "award received",
                        Value("wikibase-item", "Q2537841", "Prince of Asturias Award for Communication"))
QUERY = '"Václav Havel" award received Prince of Asturias Award for Communication -wikipedia'
FOUND = ["https://en.wikipedia.org/wiki/V%C3%A1clav_Havel", "https://www.fpa.es/en/laureates/havel/",
         "https://commons.wikimedia.org/wiki/File:Havel.jpg", "https://www.fpa.es/en/laureates/havel/#top",
         "https://news.example.org/1997/havel-asturias", "ftp://files.example.org/havel.txt",
         "https://spam.example.net/havel", "https://blog.spam.example.net/havel",
         "https://www.vaclavhavel.cz/en/biography", "https://archive.example.org/1997/06/havel",
         "https://www.wikidata.org/wiki/Q36233", "https://late.example.org/havel"]


def searxng_answer(request):
    results = [{"url": url, "title": f"Result {n}", "content": f"snippet {n}", "engines": ["duckduckgo", "brave"]}
               for n, url in enumerate(FOUND)]
    return Reply(200, json.dumps({"query": request.params["q"][0], "results": results}),
                 {"Content-Type": "application/json"})


def test_searxng_gets_the_published_query_and_wikimedia_hosts_are_excluded(recording_server):
    recording_server.script = searxng_answer
    options = world_options(search_backend="searxng", search_url=recording_server.url + "/", search_language="en",
                            search_deny_domains=("spam.example.net",))
    backend = Wiring(options).search
    query, results = web_search(backend, HAVEL_AWARD, options.search.results, allow=options.search.allow_domains,
                                deny=options.search.deny_domains)
    assert query == QUERY == search_query(HAVEL_AWARD)
    assert [r.url for r in results] == ["https://www.fpa.es/en/laureates/havel/",
                                        "https://news.example.org/1997/havel-asturias",
                                        "https://www.vaclavhavel.cz/en/biography",
                                        "https://archive.example.org/1997/06/havel", "https://late.example.org/havel"]
    assert results[0].title == "Result 1" and results[0].snippet == "snippet 1" and results[0].rank == 2
    assert results[0].engine == "duckduckgo,brave"
    (asked,) = recording_server.requests
    assert asked.path.startswith("/search?") and asked.params == {
        "q": [QUERY], "format": ["json"], "safesearch": ["0"], "language": ["en"]}
    assert asked.headers["User-Agent"].startswith("refbot/0.1.0 (tester@example.org)")


def test_an_allow_list_keeps_only_trusted_domains():
    results = [SearchResult(url, rank=n) for n, url in enumerate(FOUND, 1)]
    kept = keep_results(results, 5, allow=("fpa.es", "vaclavhavel.cz"))
    assert [r.url for r in kept] == ["https://www.fpa.es/en/laureates/havel/",
                                     "https://www.vaclavhavel.cz/en/biography"]
    assert len(keep_results(results, 2)) == 2


def test_an_engines_malformed_urls_are_dropped_not_a_crash():
    results = [SearchResult(url, rank=n) for n, url in enumerate(
        ["http://[::1", "https://x.example:99999999/a", "", "https://ok.example/a"], 1)]
    assert [r.url for r in keep_results(results, 5)] == ["https://ok.example/a"]


def test_brave_sends_its_key_in_a_header_and_never_stores_it(recording_server, tmp_path):
    recording_server.script = lambda request: Reply(200, json.dumps({"web": {"results": [
        {"url": "https://news.example.org/1997/havel-asturias", "title": "Havel wins", "description": "Oviedo"}]}}),
        {"Content-Type": "application/json"})
    options = world_options(search_backend="brave", search_url=recording_server.url + "/res/v1/web/search",
                            search_api_key="BSA-secret-key-123", fetch_cache=tmp_path / "cache.sqlite",
                            fetch_cache_days=1.0)
    backend = Wiring(options).search
    (result,) = backend.search(QUERY, 5)
    assert result.url == "https://news.example.org/1997/havel-asturias" and result.snippet == "Oviedo"
    (asked,) = recording_server.requests
    assert asked.headers["X-Subscription-Token"] == "BSA-secret-key-123"
    assert asked.params == {"q": [QUERY], "count": ["5"]}
    assert b"BSA-secret-key-123" not in (tmp_path / "cache.sqlite").read_bytes()
    assert "BSA-secret" not in repr(options) and "search_api_key" not in options.public()


def test_brave_without_a_key_and_searxng_without_a_url_are_configuration_errors():
    with pytest.raises(ConfigError, match="REFBOT_SEARCH_API_KEY"):
        options = world_options(search_backend="brave")
        Wiring(options).search
    with pytest.raises(ConfigError, match="search_url"):
        options = world_options(search_backend="searxng")
        Wiring(options).search
    with pytest.raises(ConfigError, match="not one of searxng, brave"):
        world_options(search_backend="google")


@pytest.mark.parametrize("reply, message", [
    (Reply(500, "engine crashed"), r"SearXNG at http://127\.0\.0\.1:\d+/search \(HTTP 500\)"),
    (Reply(403, "json format disabled"), r"\(HTTP 403\).*check the API key"),
    (Reply(200, "<html>search page</html>", {"Content-Type": "text/html"}), "is not JSON"),
    (Reply(200, json.dumps({"answers": []}), {"Content-Type": "application/json"}), "without a results list")])
def test_a_failing_search_engine_is_a_clear_error(recording_server, reply, message):
    recording_server.script = lambda request: reply
    options = world_options(search_backend="searxng", search_url=recording_server.url)
    backend = Wiring(options).search
    with pytest.raises(ServiceError, match=message):
        backend.search("havel", 5)
