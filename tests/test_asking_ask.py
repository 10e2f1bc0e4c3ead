"""From a question's linked terms to a chosen query, against a real Oxigraph store: candidates written by a scripted
model (its answers are the input here; the real model is exercised in test_asking_cli), refused ones repaired once,
equal ones run once, candidates written until two answers agree, and the choice — the simplest of those that
agree, the only candidate with items, or the model's letter among different ones. Nothing reaches the endpoint
that the checker refused."""

from __future__ import annotations

import pytest

from bot.asking.ask import Asker, extracted, fill
from bot.asking.fragment import Triple
from bot.asking.linking import Link
from bot.demo.world import free_port
from bot.judge.prompts import ASK_SPARQL
from bot.judge.scripted import ScriptedBackend
from bot.selection.endpoint import SparqlEndpoint

TURTLE = """\
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix p: <http://www.wikidata.org/prop/> .
@prefix ps: <http://www.wikidata.org/prop/statement/> .
@prefix s: <http://www.wikidata.org/entity/statement/> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

wd:P27 wikibase:directClaim wdt:P27 .
wd:P31 wikibase:directClaim wdt:P31 .
wd:P17 wikibase:directClaim wdt:P17 .
wd:P279 wikibase:directClaim wdt:P279 .
wd:P166 wikibase:claim p:P166 .
wd:P1082 wikibase:claim p:P1082 .
wd:Q3957 rdfs:label "town"@en ; wdt:P279 wd:Q486972 .
wd:Q2001 rdfs:label "Brno"@en ; wdt:P31 wd:Q3957 ; wdt:P17 wd:Q213 ; p:P1082 s:t1 .
s:t1 ps:P1082 380000 ; wikibase:rank wikibase:NormalRank .
wd:Q2002 rdfs:label "Zlin"@en ; wdt:P31 wd:Q3957 ; wdt:P17 wd:Q213 ; p:P1082 s:t2 .
s:t2 ps:P1082 75000 ; wikibase:rank wikibase:NormalRank ; prov:wasDerivedFrom <http://example.org/ref/2> .
wd:Q1001 rdfs:label "Ada"@en ; wdt:P31 wd:Q5 ; wdt:P27 wd:Q213 ; p:P166 s:a1 .
s:a1 ps:P166 wd:Q77 ; wikibase:rank wikibase:NormalRank .
wd:Q1002 rdfs:label "Bea"@en ; wdt:P31 wd:Q5 ; wdt:P27 wd:Q213 ; p:P166 s:b1 .
s:b1 ps:P166 wd:Q77 ; wikibase:rank wikibase:NormalRank ; prov:wasDerivedFrom <http://example.org/ref/1> .
wd:Q1003 rdfs:label "Cyril"@en ; wdt:P31 wd:Q5 ; wdt:P27 wd:Q36 ; p:P166 s:c1 .
s:c1 ps:P166 wd:Q77 ; wikibase:rank wikibase:NormalRank .
wd:Q1004 rdfs:label "Dana"@en ; wdt:P31 wd:Q5 ; wdt:P27 wd:Q213 ; p:P166 s:d1 .
s:d1 ps:P166 wd:Q77 ; wikibase:rank wikibase:DeprecatedRank .
"""
LINKS = [Link("property", "P166", "award received", "award or recognition received", "awards", 1.0, True),
         Link("property", "P27", "country of citizenship", "the object is a country", "citizens", 0.95),
         Link("entity", "Q213", "Czechia", "country in Central Europe", "Czech", 1.0)]
TRIPLES = {"Q213": [Triple("Q213", "P31", "Q6256", "country")]}
UNSOURCED_CZECH = """```sparql
SELECT DISTINCT ?item WHERE {
  ?item wdt:P27 wd:Q213 .
  ?item p:P166 ?statement .
  ?statement wikibase:rank ?rank .
  FILTER(?rank != wikibase:DeprecatedRank)
  FILTER NOT EXISTS { ?statement prov:wasDerivedFrom ?reference . }
}
```"""
ALL_CZECH = "```sparql\nSELECT DISTINCT ?item WHERE { ?item wdt:P27 wd:Q213 . ?item p:P166 ?statement . }\n```"


class Recording:
    """The real endpoint, with the queries sent to it kept."""

    def __init__(self, endpoint: SparqlEndpoint) -> None:
        self.endpoint, self.sent, self.names, self.url = endpoint, [], [], endpoint.url

    def select(self, query):
        self.sent.append(query.text)
        self.names.append(query.name)
        return self.endpoint.select(query)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from servers import start_oxigraph

    directory = tmp_path_factory.mktemp("ask")
    (directory / "world.ttl").write_text(TURTLE, encoding="utf-8")
    server = start_oxigraph(directory / "world.ttl", directory / "store", free_port())
    yield SparqlEndpoint(server.url, "refbot/test (ops@example.org)", timeout=10.0, retries=0)
    server.stop()


NAMES = {"Q1001": "Ada", "Q1004": "Dana", "Q2001": "Brno"}  # the labels the endpoint has, as fetch_terms gives them


def asker(store, model: ScriptedBackend, candidates: int = 3) -> tuple[Asker, Recording]:
    endpoint = Recording(store)
    return Asker(model, endpoint, ASK_SPARQL, candidates=candidates, limit=50,
                 labels=lambda ids: {i: n for i, n in NAMES.items() if i in ids}), endpoint


def test_the_prompt_shows_the_fragment_and_the_queries_are_extracted_from_the_answers(store):
    model = ScriptedBackend(completions=[UNSOURCED_CZECH, "Here it is: SELECT ?item WHERE { ?item wdt:P27 wd:Q213 }",
                                         UNSOURCED_CZECH], usage=(100, 40))
    ask, endpoint = asker(store, model)
    answer = ask.ask("awards of Czech people that cite nothing", LINKS, TRIPLES)
    prompt = model.asked("complete")[0].messages[1]["content"]
    assert "Question: awards of Czech people that cite nothing" in prompt
    assert '- item Q213 "Czechia"' in prompt and "Q213 instance of (P31) Q6256 \"country\"" in prompt
    assert "its statements need a reference" in prompt and "LIMIT 50" in prompt
    first, second = (call.generation for call in model.asked("complete")[:2])
    assert first.temperature == 0.0 and second.temperature > 0
    assert answer.candidates[0].items == ["Q1001"], "referenced and deprecated statements are left out"
    assert answer.candidates[1].written.startswith("SELECT ?item") and answer.candidates[1].items
    assert answer.candidates[2].same_as == 1 and len(endpoint.sent) == 2, "an equal candidate is not run again"
    assert all(text.rstrip().endswith("LIMIT 50") for text in endpoint.sent)
    assert answer.prompt_tokens >= 300 and answer.completion_tokens == 120


def test_a_refused_candidate_is_repaired_once_with_the_reason_and_never_sent(store):
    unsafe = "```sparql\nDELETE WHERE { ?item ?p ?o }\n```"
    service = ("```sparql\nSELECT ?item WHERE { ?item wdt:P27 wd:Q213 . "
               "SERVICE wikibase:label { bd:serviceParam wikibase:language 'en' } }\n```")
    model = ScriptedBackend(completions=[unsafe, UNSOURCED_CZECH, service, service])
    ask, endpoint = asker(store, model, candidates=2)
    answer = ask.ask("awards of Czech people that cite nothing", LINKS, TRIPLES)
    first, second = answer.candidates
    assert first.repaired.startswith("DELETE changes data") and first.valid and not first.refused
    repair = model.asked("complete")[1].messages
    assert "DELETE changes data" in repair[-1]["content"] and repair[-2]["role"] == "assistant"
    assert second.refused.startswith("SERVICE") and not second.valid and second.items == []
    assert len(endpoint.sent) == 1 and "DELETE" not in endpoint.sent[0] and "SERVICE" not in endpoint.sent[0]
    assert answer.chosen is first and answer.why == "the only candidate that returned items"


def test_a_sample_repeating_a_refused_candidate_is_not_repaired_again(store):
    unsafe = "```sparql\nDELETE WHERE { ?item ?p ?o }\n```"
    service = ("```sparql\nSELECT ?item WHERE { ?item wdt:P27 wd:Q213 . "
               "SERVICE wikibase:label { bd:serviceParam wikibase:language 'en' } }\n```")
    model = ScriptedBackend(completions=[unsafe, service, unsafe, UNSOURCED_CZECH])
    answer = asker(store, model, candidates=3)[0].ask("awards of Czech people that cite nothing", LINKS, TRIPLES)
    first, second, third = answer.candidates
    assert first.refused.startswith("SERVICE") and second.same_as == 1 and second.refused == first.refused
    assert len(model.asked("complete")) == 4, "the greedy, its repair, the repeated sample alone, the third"
    assert third.items == ["Q1001"] and answer.chosen is third


def test_candidates_with_the_same_items_choose_the_simplest_and_different_ones_ask_the_model(store):
    same = "```sparql\nSELECT ?item WHERE { ?item wdt:P27 wd:Q213 ; p:P166 ?s . ?s wikibase:rank ?r . " \
           "FILTER(?r != wikibase:DeprecatedRank) FILTER NOT EXISTS { ?s prov:wasDerivedFrom ?x } }\n```"
    model = ScriptedBackend(completions=[UNSOURCED_CZECH, same])
    answer = asker(store, model, candidates=2)[0].ask("q", LINKS, TRIPLES)
    assert answer.chosen.number == 2 and "same items" in answer.why  # the shorter query

    model = ScriptedBackend(completions=[UNSOURCED_CZECH, ALL_CZECH], choices={"a": 0.2, "b": 0.8})
    answer = asker(store, model, candidates=2)[0].ask("awards of Czech people", LINKS, TRIPLES)
    assert answer.chosen.number == 2 and answer.chosen.items == ["Q1001", "Q1002", "Q1004"]
    assert "the model chose candidate 2" in answer.why
    options = model.questions[0]
    assert "a) 1 item(s): Ada (Q1001)" in options and "b) 3 item(s): Ada (Q1001), Q1002, Dana (Q1004)" in options

    tie = ScriptedBackend(completions=[UNSOURCED_CZECH, ALL_CZECH], choices={"a": 0.5, "b": 0.5})
    assert asker(store, tie, candidates=2)[0].ask("q", LINKS, TRIPLES).chosen.number == 2  # the simpler query


def test_no_items_or_no_valid_candidate_chooses_nothing_and_says_why(store):
    empty = "```sparql\nSELECT ?item WHERE { ?item wdt:P27 wd:Q213 ; wdt:P31 wd:Q6256 }\n```"
    answer = asker(store, ScriptedBackend(completions=[empty]), candidates=1)[0].ask("q", LINKS, TRIPLES)
    assert answer.chosen is None and answer.why == "no candidate returned items"
    unknown = "```sparql\nSELECT ?item WHERE { ?item wdt:P27 wd:Q999 }\n```"
    answer = asker(store, ScriptedBackend(completions=[unknown, unknown]), candidates=1)[0].ask("q", LINKS, TRIPLES)
    assert answer.chosen is None and answer.why == "no candidate could be run"
    assert answer.candidates[0].refused.startswith("unknown Wikidata id(s) Q999")


def test_templates_keep_sparql_braces_and_answers_yield_their_query():
    assert fill("{question} { ?item ?p ?o } LIMIT {limit}", question="q?", limit=5) == "q? { ?item ?p ?o } LIMIT 5"
    assert extracted("Sure!\n```sparql\nSELECT ?item WHERE {}\n```\nDone.") == "SELECT ?item WHERE {}"
    assert extracted("PREFIX x: <http://x/>\nSELECT ?item WHERE {}").startswith("PREFIX x:")
    assert extracted("```\nSELECT ?item WHERE {}") == "SELECT ?item WHERE {}"


def test_the_fragment_gives_each_property_its_patterns_and_each_item_its_defining_triples():
    from bot.asking.fragment import fragment_text, known_ids

    text = fragment_text(LINKS, TRIPLES)
    assert "    its statements without a reference: ?item p:P166 ?statement . ?statement wikibase:rank ?rank ." in text
    assert "    its value: ?item wdt:P27 ?value ." in text and "p:P27" not in text, "P27 needs no reference"
    assert '    Q213 instance of (P31) Q6256 "country"' in text
    assert known_ids(LINKS, TRIPLES) == {"P31", "P279", "P166", "P27", "Q213", "Q6256"}
    used = {"Q213": [*TRIPLES["Q213"], Triple("Q213", "P17", value_label="country", uses=120)]}
    assert '    it is the value of property P17 "country": ?item wdt:P17 wd:Q213 .' in fragment_text(LINKS, used)
    assert "P17" in known_ids(LINKS, used)


def test_the_properties_that_take_an_item_as_value_come_from_a_sample_of_its_uses(store):
    from bot.asking.fragment import value_usage

    uses = value_usage(store, ["Q213", "Q5"], {"P27": "country of citizenship"})
    assert uses["Q213"] == [Triple("Q213", "P27", value_label="country of citizenship", uses=3),
                            Triple("Q213", "P17", uses=2)]
    assert [(t.property_id, t.uses) for t in uses["Q5"]] == [("P31", 4)]


def test_among_the_target_propertys_items_an_item_is_reached_by_the_property_they_use(store):
    """"Czech" is P27 citizenship for people with awards and P17 country for towns with a population; a class
    reached only as a superclass there is matched with its subclasses' members."""
    from bot.asking.fragment import item_pattern, value_usage

    for among, expected in (("P166", "?item wdt:P27 wd:Q213 ."), ("P1082", "?item wdt:P17 wd:Q213 .")):
        uses = value_usage(store, ["Q213"], {}, among=among)["Q213"]
        assert {t.among for t in uses} == {among} and item_pattern("Q213", uses) == expected
    settlement = value_usage(store, ["Q486972"], {}, among="P1082")["Q486972"]
    assert [(t.property_id, t.among) for t in settlement] == [("P279", "")], "no town is P31 settlement itself"
    assert item_pattern("Q486972", settlement) == "?item wdt:P31/wdt:P279* wd:Q486972 ."
    assert item_pattern("Q9", []) is None


def test_the_model_starts_from_the_draft_and_may_name_existing_ids_the_prompt_does_not_list(store):
    from bot.asking.draft import draft

    links = [Link("property", "P1082", "population", "number of people", "population", 1.0, True, 0),
             Link("entity", "Q213", "Czechia", "country", "Czech", 1.0, start=3),
             Link("entity", "Q3957", "town", "settlement", "towns", 1.0, start=4)]
    triples = {"Q213": [Triple("Q213", "P17", uses=2, among="P1082")],
               "Q3957": [Triple("Q3957", "P31", uses=2, among="P1082")]}
    sketch = draft("population of Czech towns without a reference", links, triples, limit=50)
    with_p31 = ("```sparql\nSELECT ?item WHERE { ?item wdt:P17 wd:Q213 ; wdt:P31 wd:Q3957 ; p:P1082 ?s . "
                "?s wikibase:rank ?r . FILTER(?r != wikibase:DeprecatedRank) "
                "FILTER NOT EXISTS { ?s prov:wasDerivedFrom ?x } }\n```")
    named_town = with_p31.replace("wdt:P31 wd:Q3957", "wdt:P31 wd:Q3957 ; wdt:P1376 wd:Q2001")
    guessed = with_p31.replace("wd:Q3957", "wd:Q99999")
    model = ScriptedBackend(completions=[named_town, guessed, guessed, with_p31])
    ask, endpoint = asker(store, model)
    answer = ask.ask("population of Czech towns without a reference", links, triples, draft=sketch,
                     properties={"P1082", "P17", "P31", "P1376"})
    prompt = model.asked("complete")[0].messages[1]["content"]
    assert "Draft:\n```sparql\n" + sketch.text + "\n```" in prompt and answer.draft == sketch.text
    assert sketch.text.splitlines()[1:3] == ["  ?item wdt:P17 wd:Q213 .", "  ?item wdt:P31 wd:Q3957 ."]
    assert answer.candidates[0].valid, "P1376 is a property of the endpoint's; Q2001 has a label there"
    assert answer.candidates[1].refused.startswith("unknown Wikidata id(s) Q99999")
    assert answer.candidates[2].items == ["Q2001"], "Zlin's population is referenced"
    repair = model.asked("complete")[2].messages[-1]["content"]
    assert "Q3957" in repair and "P1376" not in repair, "the repair lists the fragment's ids, not every property"
    assert not any("Q99999" in text for text in endpoint.sent)


def test_candidates_are_written_one_at_a_time_until_two_answers_agree(store):
    """Adaptive consistency: the greedy query, then samples, until two candidates — or a candidate and the draft,
    built from the linked terms without the model — return the same items; with every candidate written, the choice
    is made as before (the model's pick among different answers)."""
    from bot.asking.draft import Draft

    sketch = Draft(UNSOURCED_CZECH.split("\n", 1)[1].rsplit("\n```", 1)[0], LINKS[0])
    same = "```sparql\nSELECT ?item WHERE { ?item wdt:P27 wd:Q213 ; p:P166 ?s . ?s wikibase:rank ?r . " \
           "FILTER(?r != wikibase:DeprecatedRank) FILTER NOT EXISTS { ?s prov:wasDerivedFrom ?x } }\n```"
    everyone = "```sparql\nSELECT ?item WHERE { ?item p:P166 ?s }\n```"
    model = ScriptedBackend(completions=[same, ALL_CZECH, ALL_CZECH])
    ask, endpoint = asker(store, model)
    answer = ask.ask("awards of Czech people that cite nothing", LINKS, TRIPLES, draft=sketch)
    assert len(model.asked("complete")) == 1, "the greedy query returned the draft's items: no sample is written"
    assert [c.number for c in answer.candidates] == [1] and answer.chosen is answer.candidates[0]
    assert answer.why == ("candidate 1 and the draft built from the linked terms returned the same 1 item(s): no "
                          "further candidate written")
    assert endpoint.names == ["the draft of refbot select --ask", "candidate 1 of refbot select --ask"]

    model = ScriptedBackend(completions=[ALL_CZECH, same, everyone], choices={"a": 0.9, "b": 0.1})
    answer = asker(store, model)[0].ask("awards of Czech people that cite nothing", LINKS, TRIPLES, draft=sketch)
    assert len(model.asked("complete")) == 2 and not model.asked("choose"), "the first sample agreed with the draft"
    assert answer.chosen.number == 2 and answer.chosen.items == ["Q1001"]

    shorter = "```sparql\nSELECT DISTINCT ?item WHERE { ?item wdt:P27 wd:Q213 ; p:P166 ?statement . }\n```"
    model = ScriptedBackend(completions=[ALL_CZECH, shorter, everyone])
    answer = asker(store, model)[0].ask("awards of Czech people", LINKS, TRIPLES, draft=sketch)
    assert len(model.asked("complete")) == 2 and not model.asked("choose"), "the first sample agreed with the greedy"
    assert answer.chosen.number == 2 and answer.why == ("candidates 1 and 2 returned the same 3 item(s); the simplest "
                                                        "query: no further candidate written")

    model = ScriptedBackend(completions=[ALL_CZECH, everyone, ALL_CZECH], choices={"a": 0.2, "b": 0.8})
    answer = asker(store, model)[0].ask("awards of Czech people", LINKS, TRIPLES, draft=sketch)
    assert len(model.asked("complete")) == 3 and model.asked("choose"), \
        "with every candidate written, the model chooses among the answers, as when none stops early"
    assert answer.chosen.number == 2 and "the model chose candidate 2" in answer.why

    assert asker(store, ScriptedBackend(completions=[same]), candidates=1)[0].ask(
        "q", LINKS, TRIPLES, draft=sketch).why == "the only candidate that returned items", \
        "one candidate asked for: the draft is run only as a fallback"


def test_when_no_candidate_returns_items_the_draft_is_checked_run_and_chosen_as_candidate_0(store):
    from bot.asking.draft import Draft

    empty = "```sparql\nSELECT ?item WHERE { ?item wdt:P27 wd:Q213 ; wdt:P31 wd:Q6256 }\n```"
    sketch = Draft(UNSOURCED_CZECH.split("\n", 1)[1].rsplit("\n```", 1)[0], LINKS[0])
    ask, endpoint = asker(store, ScriptedBackend(completions=[empty]), candidates=1)
    answer = ask.ask("awards of Czech people that cite nothing", LINKS, TRIPLES, draft=sketch)
    assert answer.chosen.number == 0 and answer.chosen.items == ["Q1001"]
    assert answer.why == "no candidate returned items, so the draft built from the linked terms"
    assert [c.number for c in answer.candidates] == [1, 0] and endpoint.sent[-1].rstrip().endswith("LIMIT 50")
    nothing = Draft("SELECT ?item WHERE { ?item wdt:P27 wd:Q36 ; wdt:P31 wd:Q6256 }", None)
    ask = asker(store, ScriptedBackend(completions=[empty]), candidates=1)[0]
    answer = ask.ask("q", LINKS, TRIPLES, draft=nothing)
    assert answer.chosen is None and answer.why == "no candidate returned items", "a draft with no items neither"
    unsafe = Draft("SELECT ?item WHERE { ?item wdt:P27 wd:Q4242 }", None)
    ask, endpoint = asker(store, ScriptedBackend(completions=[empty]), candidates=1)
    assert ask.ask("q", LINKS, TRIPLES, draft=unsafe).chosen is None and len(endpoint.sent) == 1, \
        "the draft passes the same checker: an unknown id is never sent"


def test_an_id_the_endpoint_has_no_label_for_is_not_confirmed_by_the_labels_lookup(store):
    from bot.asking.questions import endpoint_labels

    labels = endpoint_labels(store, ("en", "mul"))
    assert labels(["Q2001", "Q99999", "Q213"]) == {"Q2001": "Brno"}, "Q213 is only a value there, Q99999 nothing"
    guessed = "```sparql\nSELECT ?item WHERE { ?item wdt:P27 wd:Q99999 }\n```"
    echoed = Asker(ScriptedBackend(completions=[guessed, guessed]), Recording(store), ASK_SPARQL, candidates=1,
                   limit=50, labels=lambda ids: {i: i for i in ids})  # a lookup that gives each id back as its label
    refused = echoed.ask("q", LINKS, TRIPLES).candidates[0]
    assert refused.refused.startswith("unknown Wikidata id(s) Q99999") and not refused.valid


def test_select_ask_sends_no_candidate_naming_an_id_the_endpoint_does_not_have(store, tmp_path):
    from bot.asking.questions import answer_question
    from bot.options import load_options
    from bot.wiring import Wiring

    (tmp_path / "empty.ini").write_text("")
    options = load_options(tmp_path / "empty.ini", {}, {
        "sparql_endpoint": store.url, "ask_entities": "endpoint", "contact": "ops@example.org",
        "properties_cache": tmp_path / "properties", "ask_limit": 50})
    guessed = "```sparql\nSELECT ?item WHERE { ?item wdt:P31 wd:Q3957 ; wdt:P279 wd:Q99999 }\n```"
    named = "```sparql\nSELECT ?item WHERE { ?item wdt:P31 wd:Q3957 . FILTER(?item != wd:Q2002) }\n```"
    endpoint = Recording(store)
    answer = answer_question(options, "towns in Czechia", endpoint=endpoint,
                             backend=ScriptedBackend(completions=[guessed, guessed, named]),
                             search=Wiring(options, endpoint=endpoint).entity_search, candidates=2)
    first, second = answer.candidates
    assert first.refused.startswith("unknown Wikidata id(s) Q99999") and not first.valid
    assert second.valid and second.items == ["Q2001"], "Q2002 has a label on the endpoint: it exists"
    candidates = [text for name, text in zip(endpoint.names, endpoint.sent) if name.startswith("candidate")]
    assert len(candidates) == 1 and not any("Q99999" in text for text in candidates)


def test_a_complete_draft_is_taken_without_the_model_unless_it_returns_nothing_or_is_not_to_be_taken(store):
    """A draft that reads every word of the question (bot.asking.draft) says all there is to say: it is checked,
    run and chosen as candidate 0, and no model is loaded — the backend, given as a function, is never called. A
    complete draft with no items, or ``take_complete_draft=False``, leaves the question to the model."""
    from bot.asking.draft import Draft

    body = UNSOURCED_CZECH.split("\n", 1)[1].rsplit("\n```", 1)[0]
    complete = Draft(body, LINKS[0], unread=())
    loads: list[str] = []

    def load() -> ScriptedBackend:
        loads.append("model")
        return ScriptedBackend(completions=[ALL_CZECH, ALL_CZECH])

    endpoint = Recording(store)
    answer = Asker(load, endpoint, ASK_SPARQL, candidates=3, limit=50).ask(
        "awards of Czech people that cite nothing", LINKS, TRIPLES, draft=complete)
    assert not loads, "no model loaded for a complete draft"
    assert answer.chosen is answer.candidates[0] and answer.chosen.number == 0 and answer.chosen.items == ["Q1001"]
    assert answer.why == "the draft built from the linked terms reads every word of the question: no candidate written"
    assert endpoint.names == ["the draft of refbot select --ask"] and answer.prompt_tokens == 0

    nothing = Draft("SELECT DISTINCT ?item WHERE { ?item wdt:P27 wd:Q36 ; wdt:P31 wd:Q6256 }", LINKS[0], unread=())
    answer = Asker(load, Recording(store), ASK_SPARQL, candidates=3, limit=50).ask(
        "awards of Czech people that cite nothing", LINKS, TRIPLES, draft=nothing)
    assert loads == ["model"] and answer.chosen.number == 1, "a complete draft that returns nothing: the model writes"

    model = ScriptedBackend(completions=[ALL_CZECH, ALL_CZECH])
    answer = Asker(model, Recording(store), ASK_SPARQL, candidates=3, limit=50, take_complete_draft=False).ask(
        "awards of Czech people that cite nothing", LINKS, TRIPLES, draft=complete)
    assert model.asked("complete") and answer.chosen.number == 1
