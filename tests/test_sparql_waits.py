"""A SPARQL endpoint that asks the client to wait (429 with Retry-After, 5xx): the wait is said once, naming the
query, the endpoint (without its credentials) and the seconds, rather than a selection standing still in silence."""

from __future__ import annotations

from bot.selection.binding import Query
from bot.selection.endpoint import SparqlEndpoint
from servers import Reply, sparql_json

ONE_ROW = sparql_json([{"item": {"type": "uri", "value": "http://www.wikidata.org/entity/Q42"}}])
SHORT = Query("short", "SELECT ?item WHERE { VALUES ?item { <http://www.wikidata.org/entity/Q42> } }")


def test_each_wait_before_a_query_is_sent_again_is_said_once(recording_server, caplog):
    replies = iter([Reply(429, "slow down", {"Retry-After": "2"}), Reply(503, "busy"), ONE_ROW])
    recording_server.script = lambda request: next(replies)
    waits: list[float] = []
    url = recording_server.url.replace("://", "://ops:hunter2@") + "/sparql?key=SECRET"
    endpoint = SparqlEndpoint(url, "refbot/test (ops@example.org)", timeout=5.0, retries=2, backoff=0.5,
                              sleep=waits.append)
    with caplog.at_level("WARNING"):
        assert endpoint.select(SHORT)[0]["item"].value.endswith("Q42")
    shown = f"{recording_server.url}/sparql?key=…"
    assert waits == [2.0, 1.0]
    assert [record.getMessage() for record in caplog.records if record.levelname == "WARNING"] == [
        f"refbot: query short at {shown}: the endpoint answered 429 Too Many Requests; waiting 2 s (Retry-After) "
        "before sending it again",
        f"refbot: query short at {shown}: the endpoint answered 503 Service Unavailable; waiting 1 s before sending "
        "it again"]
