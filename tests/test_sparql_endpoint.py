"""The SPARQL client's manners, proven against a local endpoint that answers from a script."""

from __future__ import annotations

import threading
import time
from email.utils import formatdate

import pytest

from bot import __version__
from bot.errors import ConfigError, QueryError
from bot.options import Options
from bot.selection.binding import Query, bind, load_query
from bot.selection.endpoint import SparqlEndpoint, parse_retry_after
from bot.wiring import Wiring
from conftest import free_port
from servers import Reply, sparql_json

ONE_ROW = sparql_json([{"item": {"type": "uri", "value": "http://www.wikidata.org/entity/Q42"}}])
SHORT = Query("short", "SELECT ?item WHERE { VALUES ?item { <http://www.wikidata.org/entity/Q42> } }")


def endpoint_for(server, **settings) -> SparqlEndpoint:
    settings = {"timeout": 5.0, "retries": 2, "backoff": 0.05} | settings
    return SparqlEndpoint(server.url + "/sparql", "refbot/test (ops@example.org) SPARQLWrapper/2", **settings)


def scripted(server, *replies: Reply) -> None:
    """Answer the n-th request with the n-th reply, and every later one with the last."""
    def script(request):
        return replies[min(len(server.requests), len(replies)) - 1]
    server.script = script


def test_the_user_agent_names_tool_version_and_contact(recording_server):
    scripted(recording_server, ONE_ROW)
    options = Options.flat(sparql_endpoint=recording_server.url + "/sparql", contact="ops@example.org")
    endpoint = Wiring(options).endpoint
    assert endpoint.select(SHORT)[0]["item"].value == "http://www.wikidata.org/entity/Q42"
    agent = recording_server.requests[0].headers["User-Agent"]
    assert agent.startswith(f"refbot/{__version__} (ops@example.org) SPARQLWrapper/")
    assert "application/sparql-results+json" in recording_server.requests[0].headers["Accept"]


def test_short_queries_go_by_get_and_long_ones_by_post(recording_server):
    scripted(recording_server, ONE_ROW)
    endpoint = endpoint_for(recording_server, post_above=2000)
    endpoint.select(SHORT)
    many = bind(load_query("unsourced-statements"), item=[f"Q{n}" for n in range(1, 400)])
    endpoint.select(many)
    short, long = recording_server.requests
    assert short.method == "GET" and short.params["query"] == [SHORT.text]
    assert long.method == "POST" and long.params["query"] == [many.text]


def test_429_waits_as_long_as_retry_after_says(recording_server):
    scripted(recording_server, Reply(429, "slow down", {"Retry-After": "1"}), ONE_ROW)
    endpoint_for(recording_server).select(SHORT)
    first, second = recording_server.requests
    assert second.started - first.finished >= 0.95


def test_a_retry_after_beyond_the_patience_limit_is_an_error_not_a_wait(recording_server):
    scripted(recording_server, Reply(429, "banned for now", {"Retry-After": "3600"}))
    with pytest.raises(QueryError) as error:
        endpoint_for(recording_server, max_wait=300).select(SHORT)
    assert "asks to wait 3600 s" in str(error.value) and "(HTTP 429)" in str(error.value)
    assert len(recording_server.requests) == 1


def test_5xx_is_retried_with_bounded_backoff_then_named(recording_server):
    scripted(recording_server, Reply(503, "maintenance"), Reply(500, "oops"), ONE_ROW)
    assert len(endpoint_for(recording_server).select(SHORT)) == 1
    assert len(recording_server.requests) == 3

    recording_server.requests.clear()
    scripted(recording_server, Reply(502, "bad gateway"))
    with pytest.raises(QueryError) as error:
        endpoint_for(recording_server, retries=2, backoff=0.2).select(SHORT)
    message = str(error.value)
    assert message.startswith(f"query short at {recording_server.url}/sparql (HTTP 502)")
    assert "gave up after 3 attempts" in message
    assert len(recording_server.requests) == 3
    gaps = [b.started - a.finished for a, b in zip(recording_server.requests, recording_server.requests[1:])]
    assert gaps[1] > gaps[0] * 1.5  # the wait doubles


def test_a_query_that_ran_out_of_the_servers_time_is_not_resent(recording_server):
    scripted(recording_server, Reply(500, "java.util.concurrent.TimeoutException"))
    with pytest.raises(QueryError) as error:
        endpoint_for(recording_server).select(SHORT)
    assert "TimeoutException" in str(error.value) and "smaller --page-size" in str(error.value)
    assert len(recording_server.requests) == 1


def test_qlevers_429_for_a_query_out_of_time_is_not_resent(recording_server):
    scripted(recording_server, Reply(429, '{"exception": "Query timed out after 60s and was cancelled"}'))
    with pytest.raises(QueryError) as error:
        endpoint_for(recording_server).select(SHORT)
    assert "(HTTP 429)" in str(error.value) and "smaller --page-size" in str(error.value)
    assert len(recording_server.requests) == 1


def test_a_result_of_the_wrong_shape_is_named(recording_server):
    scripted(recording_server, Reply(200, '{"results": {"bindings": [1]}}', {"Content-Type": "application/json"}))
    with pytest.raises(QueryError, match="not SPARQL JSON results for a SELECT"):
        endpoint_for(recording_server).select(SHORT)


def test_a_slow_answer_times_out_and_is_retried(recording_server):
    scripted(recording_server, Reply(200, "", delay=1.5), ONE_ROW)
    assert len(endpoint_for(recording_server, timeout=0.5).select(SHORT)) == 1
    assert len(recording_server.requests) == 2

    recording_server.requests.clear()
    scripted(recording_server, Reply(200, "", delay=1.0))
    with pytest.raises(QueryError) as error:
        endpoint_for(recording_server, timeout=0.3, retries=1).select(SHORT)
    assert "no answer within 0.3 s (gave up after 2 attempts)" in str(error.value)


def test_a_malformed_query_is_named_with_the_endpoints_message(recording_server):
    scripted(recording_server, Reply(400, "Parse error: unexpected '}' at line 3"))
    with pytest.raises(QueryError) as error:
        endpoint_for(recording_server).select(Query("my.rq", "SELECT * WHERE { } }"))
    assert str(error.value).startswith(f"query my.rq at {recording_server.url}/sparql (HTTP 400): Parse error")
    assert len(recording_server.requests) == 1


def test_an_unreachable_endpoint_is_named_at_once():
    endpoint = SparqlEndpoint(f"http://127.0.0.1:{free_port()}/sparql", "refbot/test", retries=3, backoff=10)
    started = time.monotonic()
    with pytest.raises(QueryError) as error:
        endpoint.select(SHORT)
    assert "cannot reach the endpoint" in str(error.value) and "--endpoint" in str(error.value)
    assert time.monotonic() - started < 5


def test_an_answer_that_is_not_sparql_json_is_named(recording_server):
    scripted(recording_server, Reply(200, "<html>Welcome</html>", {"Content-Type": "text/html"}))
    with pytest.raises(QueryError, match="not SPARQL JSON results"):
        endpoint_for(recording_server).select(SHORT)


def test_one_request_at_a_time_per_endpoint(recording_server):
    scripted(recording_server, Reply(200, ONE_ROW.body, ONE_ROW.headers, delay=0.2))
    endpoint = endpoint_for(recording_server)
    threads = [threading.Thread(target=endpoint.select, args=(SHORT,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(recording_server.requests) == 4
    assert recording_server.most_in_flight == 1


def test_retry_after_reads_seconds_and_dates():
    assert parse_retry_after("120") == 120
    assert parse_retry_after(formatdate(1_000_030, usegmt=True), now=1_000_000) == pytest.approx(30)
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


@pytest.mark.parametrize("endpoint", ["wdqs", "scholarly", "https://query.wikidata.org/bigdata/namespace/wdq/sparql"])
def test_wikimedia_endpoints_are_refused_without_a_contact(endpoint):
    with pytest.raises(ConfigError, match="without a contact.*REFBOT_CONTACT"):
        Wiring(Options.flat(sparql_endpoint=endpoint)).endpoint
    assert Wiring(Options.flat(sparql_endpoint=endpoint, contact="https://www.wikidata.org/wiki/User:Ops")).endpoint


def test_other_endpoints_need_no_contact_and_names_resolve():
    qlever = Wiring(Options.flat(sparql_endpoint="qlever")).endpoint
    assert qlever.url == "https://qlever.cs.uni-freiburg.de/api/wikidata"
    agent = Wiring(Options.flat(sparql_endpoint="qlever")).endpoint.user_agent
    assert agent.startswith(f"refbot/{__version__} SPARQLWrapper/")
    with pytest.raises(ConfigError, match="neither a URL nor one of"):
        Wiring(Options.flat(sparql_endpoint="wikidata")).endpoint
