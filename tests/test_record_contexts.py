"""Every byte of an authority record comes through refbot's guarded fetcher: the JSON-LD contexts a record names,
in every form JSON-LD has (top level, in a node, property- and type-scoped, in a list, ``@import``, named by a
remote context), are fetched by refbot or the record is refused; rdflib loads nothing itself, whether the context
is on a port the guard refuses, at a link-local address, or a local file."""

from __future__ import annotations

import json
import time

import pytest
import rdflib

from bot.corroboration import parsing
from bot.corroboration.records import read_record
from bot.wiring import Wiring
from documents_world import world_options
from servers import RecordingServer, Reply, routed

SCHEMA = "http://schema.org/"
SUBJECT, FRIEND = "https://viaf.example/viaf/1", "https://viaf.example/viaf/2"
BIRTH = {"born": {"@id": SCHEMA + "birthDate"}}
FILE_TERMS = {"born": {"@id": "https://attacker.example/changed"}}
LD = {"Content-Type": "application/ld+json"}


def records(at: str) -> dict[str, tuple[dict, tuple]]:
    """Each form a context reference takes, naming ``at`` (a context document defining ``born``): the record and
    the triple it states once the context is applied."""
    born = (rdflib.URIRef(SUBJECT), rdflib.URIRef(SCHEMA + "birthDate"), rdflib.Literal("1968-02-11"))
    friend_born = (rdflib.URIRef(FRIEND), rdflib.URIRef(SCHEMA + "birthDate"), rdflib.Literal("1970-05-01"))
    knows = {"knows": {"@id": SCHEMA + "knows", "@context": at}}
    return {
        "top-level": ({"@context": at, "@id": SUBJECT, "born": "1968-02-11"}, born),
        "list": ({"@context": [at, {"name": SCHEMA + "name"}], "@id": SUBJECT, "born": "1968-02-11"}, born),
        "import": ({"@context": {"@version": 1.1, "@import": at}, "@id": SUBJECT, "born": "1968-02-11"}, born),
        "property-scoped": ({"@context": knows, "@id": SUBJECT,
                             "knows": {"@id": FRIEND, "born": "1970-05-01"}}, friend_born),
        "type-scoped": ({"@context": {"Person": {"@id": SCHEMA + "Person", "@context": at}},
                         "@id": SUBJECT, "@type": "Person", "born": "1968-02-11"}, born),
        "in-a-node": ({"@context": {"knows": SCHEMA + "knows"}, "@id": SUBJECT,
                       "knows": {"@context": at, "@id": FRIEND, "born": "1970-05-01"}}, friend_born),
        "in-a-graph": ({"@graph": [{"@context": at, "@id": SUBJECT, "born": "1968-02-11"}]}, born),
    }


FORMS = list(records("x"))


@pytest.fixture
def sites(tmp_path):
    """``allowed`` (the only port the guard admits) and ``refused`` (another loopback port)."""
    allowed, refused = RecordingServer(routed({})), RecordingServer(routed({}))
    yield allowed, refused
    allowed.close()
    refused.close()


def fetcher_for(allowed: RecordingServer):
    port = allowed.url.rsplit(":", 1)[1]
    options = world_options(fetch_allow_addresses=(f"127.0.0.1:{port}",))
    return Wiring(options).fetcher


@pytest.fixture
def booby_trapped_loader(monkeypatch):
    """rdflib's own context loader, in this process: any call is recorded and fails."""
    from rdflib.plugins.shared.jsonld import context

    calls: list[str] = []

    def loader(source, *args, **kwargs):
        calls.append(str(source))
        raise AssertionError(f"rdflib loaded {source} itself")

    monkeypatch.setattr(context, "source_to_json", loader)
    return calls


PARSERS = {"in a bounded child": None, "in this process": parsing.parse_or_refuse}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("where", list(PARSERS))
def test_a_context_in_every_form_is_fetched_by_refbot_through_its_fetcher(sites, booby_trapped_loader, form,
                                                                          where):
    allowed, _ = sites
    nested = allowed.url + "/contexts/outer.jsonld"  # imports the context that defines the terms: two levels
    record, expected = records(nested)[form]
    allowed.script = routed({
        "/record": Reply(200, json.dumps(record), LD),
        "/contexts/outer.jsonld": Reply(200, json.dumps({"@context": {"@import": "inner.jsonld",
                                                                      "@base": "https://attacker.example/"}}), LD),
        "/contexts/inner.jsonld": Reply(200, json.dumps({"@context": BIRTH}), LD)})

    found = read_record(fetcher_for(allowed), allowed.url + "/record", parser=PARSERS[where])

    assert found.ok, found.error
    assert expected in found.graph
    asked = [request.path for request in allowed.requests]
    assert asked == ["/robots.txt", "/record", "/contexts/outer.jsonld", "/contexts/inner.jsonld"]
    assert all(request.headers["User-Agent"].startswith("refbot/") for request in allowed.requests)
    assert booby_trapped_loader == []


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("target", ["another port", "a link-local address", "a local file", "nested, another port"])
def test_a_context_the_guard_refuses_is_never_read_and_the_record_is_refused(sites, tmp_path, form, target):
    allowed, refused = sites
    local = tmp_path / "terms.jsonld"
    local.write_text(json.dumps({"@context": FILE_TERMS}))
    refused.script = routed({"/ctx.jsonld": Reply(200, json.dumps({"@context": FILE_TERMS}), LD)})
    at = {"another port": refused.url + "/ctx.jsonld", "a link-local address": "http://169.254.169.254/ctx.jsonld",
          "a local file": local.as_uri(), "nested, another port": allowed.url + "/outer.jsonld"}[target]
    record, _ = records(at)[form]
    allowed.script = routed({
        "/record": Reply(200, json.dumps(record), LD),
        "/outer.jsonld": Reply(200, json.dumps({"@context": {"@import": refused.url + "/ctx.jsonld"}}), LD)})

    found = read_record(fetcher_for(allowed), allowed.url + "/record")

    assert not found.ok and found.graph is None
    assert "JSON-LD context" in found.error and ("blocked" in found.error or "unsupported" in found.error)
    assert refused.requests == [], "nothing asked of a port the guard refuses"


def test_a_context_server_that_never_answers_ends_at_the_fetchers_timeout(sites):
    allowed, _ = sites
    allowed.script = routed({
        "/record": Reply(200, json.dumps({"@context": {"knows": {"@id": SCHEMA + "knows", "@context": "/slow"}},
                                          "@id": SUBJECT, "knows": {"@id": FRIEND}}), LD),
        "/slow": Reply(200, "{}", LD, delay=6.0)})
    started = time.monotonic()
    found = read_record(fetcher_for(allowed), allowed.url + "/record")
    assert not found.ok and "/slow could not be read" in found.error and "irretrievable" in found.error
    assert time.monotonic() - started < 5.0  # the read timeout is 2 s


def test_a_record_naming_more_contexts_than_the_cap_is_refused_after_the_cap(sites):
    allowed, _ = sites
    chain = {f"/c{n}": Reply(200, json.dumps({"@context": [f"/c{n + 1}", BIRTH]}), LD) for n in range(10)}
    allowed.script = routed({"/record": Reply(200, json.dumps({"@context": "/c0", "@id": SUBJECT}), LD), **chain})
    found = read_record(fetcher_for(allowed), allowed.url + "/record")
    assert not found.ok and "more than 4 remote JSON-LD contexts" in found.error
    assert [r.path for r in allowed.requests if r.path.startswith("/c")] == ["/c0", "/c1", "/c2", "/c3"]


def test_contexts_that_include_each_other_are_refused():
    documents = {"https://c.example/a": b'{"@context": "https://c.example/b"}',
                 "https://c.example/b": b'{"@context": ["https://c.example/a"]}'}
    outcome = parsing.parse_or_refuse(b'{"@context": "https://c.example/a", "@id": "https://e.org/r"}', "json-ld",
                                      "https://e.org/r", documents)
    assert isinstance(outcome, parsing.Refused) and "includes itself" in outcome.reason
