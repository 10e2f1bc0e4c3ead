"""Corroboration from authority records (bot.corroboration): values compared by datatype, GPT-LODS's cascade, the
model's relation picks validated (FactGenius), and the whole stage against the demo world — its Oxigraph store with
identifier properties carrying P1921/P1629, and its authority sites serving records in Turtle, RDF/XML and JSON-LD,
a malformed one and a missing one, over real HTTP on loopback."""

from __future__ import annotations

import os
import time
from datetime import date
from pathlib import Path

import pytest
import requests

from bot.clock import fixed_clock
from bot.corroboration import Corroborator, Finding
from bot.corroboration.facts import Fact, words
from bot.corroboration.identifiers import IdentifierCache, IdentifierProperty, format_url
from bot.corroboration.matching import Agreement, cascade, compare, names_relation
from bot.corroboration.picking import pick_relations, validate
from bot.corroboration.records import ACCEPT
from bot.corroboration.stage import stated_in
from bot.datamodel import Statement, Value
from bot.demo.world import DemoWorld
from bot.documents.fetching import Fetcher, FetchRules
from bot.judge.scripted import ScriptedBackend
from bot.references import quickstatements
from bot.selection.endpoint import SparqlEndpoint

XSD_DATE = "http://www.w3.org/2001/XMLSchema#date"
GNDO = "https://d-nb.info/standards/elementset/gnd#"


def time_value(raw: str, text: str = "") -> Value:
    return Value("time", raw, text or raw)


def literal(relation: str, text: str, datatype: str = "", predicate: str = "") -> Fact:
    return Fact(predicate or f"http://example.org/{relation.replace(' ', '_')}", relation, text, text, False, datatype)


# -- values compared by datatype ----------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, written, datatype, agreement, how", [
    ("+1968-02-11T00:00:00Z/11", "1968-02-11", XSD_DATE, Agreement.SAME, "day"),
    ("+1968-02-11T00:00:00Z/11", "11.02.1968", "", Agreement.SAME, "day"),
    ("+1968-02-11T00:00:00Z/11", "1968-02-12", XSD_DATE, Agreement.OTHER, "day"),
    ("+1968-02-11T00:00:00Z/11", "1968", "http://www.w3.org/2001/XMLSchema#gYear", Agreement.COARSER, "year"),
    ("+1968-02-11T00:00:00Z/11", "1967", "http://www.w3.org/2001/XMLSchema#gYear", Agreement.OTHER, "year"),
    ("+1968-00-00T00:00:00Z/9", "1968-02-11", XSD_DATE, Agreement.SAME, "year"),
    ("+1960-00-00T00:00:00Z/8", "1968-02-11", XSD_DATE, Agreement.SAME, "decade"),
    ("+1968-02-00T00:00:00Z/10", "1968-03-01", XSD_DATE, Agreement.OTHER, "month"),
    # A Julian-calendar day is not compared with a Gregorian one: the month decides.
    ("+1700-02-11T00:00:00Z/11/J", "1700-02-22", XSD_DATE, Agreement.SAME, "month"),
])
def test_dates_compare_at_the_precision_both_give(raw, written, datatype, agreement, how):
    comparison = compare(time_value(raw), literal("date of birth", written, datatype), lambda uri: [])
    assert (comparison.agreement, comparison.how) == (agreement, how)


def test_a_text_that_is_not_a_date_is_not_compared_as_one():
    comparison = compare(time_value("+1968-02-11T00:00:00Z/11"), literal("note", "born in winter"), lambda uri: [])
    assert comparison.agreement is Agreement.UNRELATED


@pytest.mark.parametrize("raw, written, agreement", [
    ("+12480", "12480", Agreement.SAME), ("+12480", "12481", Agreement.OTHER),
    ("+1.96~0.01U11573", "1.97", Agreement.SAME), ("+1.96~0.01U11573", "1.98", Agreement.OTHER),
    ("+12480", "many", Agreement.UNRELATED),
])
def test_amounts_compare_within_the_statements_bounds(raw, written, agreement):
    value = Value("quantity", raw, raw)
    assert compare(value, literal("population", written), lambda uri: []).agreement is agreement


def test_items_compare_through_the_records_own_uri_mapped_back_and_else_by_name():
    value = Value("wikibase-item", "Q990223", "Brno", ("Brünn",))
    place = Fact(GNDO + "placeOfBirth", "place of birth", "http://dnb.example/gnd/4008233-0", "Brno", True)
    assert compare(value, place, lambda uri: ["Q990223"]).how == "item Q990223"
    assert compare(value, place, lambda uri: ["Q990223"]).agreement is Agreement.SAME
    assert compare(value, place, lambda uri: ["Q1085"]).agreement is Agreement.OTHER
    # A URI no item carries is compared by its label; a literal by its text, qualifier aside.
    assert compare(value, place, lambda uri: []).agreement is Agreement.SAME
    assert compare(value, literal("birth town", "Brünn"), lambda uri: []).agreement is Agreement.SAME
    assert compare(value, literal("birth town", "Brno (Czech Republic)"), lambda uri: []).agreement is Agreement.SAME
    assert compare(value, literal("birth town", "Bratislava"), lambda uri: []).agreement is Agreement.UNRELATED
    wikidata = Fact("http://schema.org/birthPlace", "birth place", "http://www.wikidata.org/entity/Q990223", "x", True)
    assert compare(value, wikidata, lambda uri: pytest.fail("a Wikidata URI needs no lookup")).agreement \
        is Agreement.SAME


def test_relations_are_recognised_by_declared_equivalence_or_by_label_only():
    names = ["date of birth", "born on", "birth date"]
    equivalents = ["http://schema.org/birthDate"]
    assert names_relation(literal("birth date", "1968", predicate="https://schema.org/birthDate/"), names,
                          equivalents) == "equivalent"
    assert names_relation(literal(words("dateOfBirth"), "1968"), names, equivalents) == "label"
    assert names_relation(literal(words("dateOfDeath"), "2021"), names, equivalents) == ""
    assert names_relation(literal("birth town", "Prague"), ["place of birth", "birthplace"], ()) == ""


# -- GPT-LODS's cascade ------------------------------------------------------------------------------------------

def test_the_cascade_takes_the_value_first_then_the_relation_then_every_fact_of_the_subject():
    value = time_value("+1968-02-11T00:00:00Z/11", "11 February 1968")
    names, equivalents = ["date of birth"], ["http://schema.org/birthDate"]
    born = literal("birth date", "1968-02-11", XSD_DATE, "http://schema.org/birthDate")
    died = literal("death date", "2021-03-03", XSD_DATE, "http://schema.org/deathDate")
    active = literal("active from", "1968-02-11", XSD_DATE)
    other_birth = literal("date of birth", "1969-05-01", XSD_DATE)
    name = literal("job", "chemist")
    claim = "Marta Novotná date of birth 11 February 1968"

    step, found = cascade([name, died, born, active], value, claim, "Novotná, Marta", names, equivalents,
                          lambda uri: [])
    assert step == "value" and {c.fact for c in found} == {born, active}
    assert all(c.comparison.agreement is Agreement.SAME for c in found)

    step, found = cascade([name, died, other_birth], value, claim, "Novotná, Marta", names, equivalents,
                          lambda uri: [])
    assert step == "relation" and [c.fact for c in found] == [other_birth]

    step, found = cascade([name, died], value, claim, "Novotná, Marta", names, equivalents, lambda uri: [], top=1)
    assert step == "subject" and len(found) == 1
    # Ranked by closeness to the statement, the cosine kept (here RapidFuzz's token-set ratio: no embedding model).
    assert found[0].fact == died and 0 < found[0].cosine <= 1


def test_the_cascade_ranks_by_the_embedding_cosine_when_it_has_a_model():
    value = time_value("+1968-02-11T00:00:00Z/11")
    facts = [literal("a", "1"), literal("b", "2"), literal("c", "3")]
    vectors = {"claim": [1.0, 0.0], "s a 1": [0.0, 1.0], "s b 2": [0.8, 0.6], "s c 3": [0.6, 0.8]}

    def embed(texts):
        return [vectors["claim" if index == 0 else text] for index, text in enumerate(texts)]

    step, found = cascade(facts, value, "claim", "s", [], (), lambda uri: [], embed=embed, top=2)
    assert step == "subject" and [(c.fact.relation, c.cosine) for c in found] == [("b", 0.8), ("c", 0.6)]


# -- FactGenius: the model's picks, validated ----------------------------------------------------------------------

def test_picks_are_kept_only_when_they_name_a_relation_of_the_record():
    relations = ["birth town", "alternate name", "description"]
    assert validate("birth town", relations) == (("birth town",), ())
    assert validate("- Birth Town: Prague\n", relations) == (("birth town",), ())
    assert validate("birth towns", relations) == (("birth town",), ())  # a slip is still that relation
    assert validate("place of residence", relations) == ((), ("place of residence",))
    assert validate("birth town, place of death", relations) == (("birth town",), ("place of death",))
    assert validate("None", relations) == ((), ())


def test_the_model_is_shown_the_relations_with_a_value_and_its_invented_relation_is_refused():
    # A model whose answer is given (what a model invents cannot be forced from a real one).
    model = ScriptedBackend(completions="place of residence", usage=(120, 6))
    picks = pick_relations(model, "place of birth", "most specific known birth location",
                           [("birth town", "Prague"), ("alternate name", "Helena Marková")])
    prompt = model.calls[0].prompt
    assert prompt.endswith("- birth town (Prague)\n- alternate name (Helena Marková)\n"
                           "Meaning: most specific known birth location\nRelations with that meaning:")
    assert picks.accepted == () and picks.refused == ("place of residence",)
    assert (picks.prompt_tokens, picks.completion_tokens, picks.model) == (120, 6, "scripted")


# -- identifiers -------------------------------------------------------------------------------------------------

def test_formatters_and_the_uris_a_database_gives_its_records():
    gnd = IdentifierProperty("P227", "GND ID", "https://d-nb.info/gnd/$1/about/lds", "https://d-nb.info/gnd/$1",
                             "Q36578", "Integrated Authority File")
    assert gnd.record_url("4008233-0") == "https://d-nb.info/gnd/4008233-0/about/lds"
    assert format_url("https://example.org/$1", "a b/c") == "https://example.org/a_b/c"
    assert gnd.identifier_of("https://d-nb.info/gnd/4008233-0") == "4008233-0"
    assert gnd.identifier_of("http://d-nb.info/gnd/4008233-0/") == "4008233-0"
    assert gnd.identifier_of("https://d-nb.info/gnd/4008233-0/about/lds") == "4008233-0"
    assert gnd.identifier_of("https://example.org/gnd/4008233-0") == ""
    assert gnd.identifier_of("https://d-nb.info/gnd/a\"b") == ""


def test_the_identifier_property_list_is_kept_on_disk_per_endpoint_and_age(tmp_path):
    cache = IdentifierCache(tmp_path, max_age_days=30)
    properties = {"P227": IdentifierProperty("P227", "GND ID", "https://d-nb.info/gnd/$1/about/lds")}
    cache.put(properties, date(2026, 11, 1), "https://query.wikidata.org/sparql")
    assert cache.get(date(2026, 11, 20), "https://query.wikidata.org/sparql") == properties
    assert cache.get(date(2026, 11, 20), "http://other/sparql") is None
    assert cache.get(date(2026, 12, 20), "https://query.wikidata.org/sparql") is None
    assert cache.get(date(2026, 12, 20), "https://query.wikidata.org/sparql", any_age=True) == properties
    cache.path.write_text("{", encoding="utf-8")
    assert cache.get(date(2026, 11, 20), "https://query.wikidata.org/sparql") is None


# -- the stage, against the demo world ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with DemoWorld(workdir=tmp_path_factory.mktemp("store")) as running:
        yield running


def corroborator(world, **settings) -> Corroborator:
    fetcher = Fetcher(requests.Session(), FetchRules(user_agent="refbot-test", retries=0),
                      clock=fixed_clock("2026-11-24T10:00:00Z"))
    return Corroborator(SparqlEndpoint(world.sparql_url, "refbot-test"), fetcher, **settings)


def statement(item, label, property_id, property_label, value) -> Statement:
    return Statement(item, label, f"{item}$TEST-{property_id}", property_id, property_label, value)


BORN_NOVOTNA = statement("Q990201", "Marta Novotná", "P569", "date of birth",
                         time_value("+1968-02-11T00:00:00Z/11", "11 February 1968"))


def test_a_turtle_record_corroborates_a_date_with_the_conventional_stated_in_reference(world):
    world.requests.clear()
    found = corroborator(world).corroborate(BORN_NOVOTNA)

    assert found.finding is Finding.CORROBORATED
    gnd, bnf = found.records
    assert (gnd.finding, gnd.record.format_name, gnd.step) == (Finding.CORROBORATED, "Turtle", "value")
    assert gnd.chosen is not None and gnd.chosen.fact.predicate == GNDO + "dateOfBirth"
    assert dict(gnd.relations)["date of birth"] == "equivalent"
    assert (bnf.finding, bnf.record.status) == (Finding.SILENT, 404)
    assert "could not be read" in bnf.reason and "404" in bnf.reason
    reference = found.reference
    assert [(s.property_id, s.value, s.datatype) for s in reference.snaks()] == [
        ("P248", "Q36578", "wikibase-item"), ("P227", '"1099020101"', "external-id"),
        ("P813", "+2026-11-24T00:00:00Z/11", "")]
    assert quickstatements(BORN_NOVOTNA, reference).split("\t") == [
        "Q990201", "P569", "+1968-02-11T00:00:00Z/11", "S248", "Q36578", "S227", '"1099020101"',
        "S813", "+2026-11-24T00:00:00Z/11"]
    # Content negotiation: each record was asked for as RDF.
    asked = [r for r in world.requests if r.site in ("dnb", "bnf") and r.path != "/robots.txt"]
    assert {r.path for r in asked} == {"/gnd/1099020101/about/lds.ttl", "/ark/12148/cb169902011.rdf"}
    assert all(r.accept == ACCEPT for r in asked)


def test_a_place_named_by_the_records_own_uri_maps_back_to_the_item(world):
    place = statement("Q990201", "Marta Novotná", "P19", "place of birth", Value("wikibase-item", "Q990223", "Brno"))
    found = corroborator(world).corroborate(place)
    assert found.finding is Finding.CORROBORATED
    chosen = found.records[0].chosen
    assert chosen.fact.object == world.placed("{site:dnb}/gnd/4008233-0")
    assert chosen.comparison.how == "item Q990223"


def test_an_rdf_xml_record_that_states_another_date_is_a_contradiction_never_a_reference(world):
    born = statement("Q990202", "Tomáš Beneš", "P569", "date of birth", time_value("+1975-06-14T00:00:00Z/11"))
    found = corroborator(world).corroborate(born)
    assert found.finding is Finding.CONTRADICTED and found.reference is None
    (bnf,) = found.records
    assert bnf.record.format_name == "RDF/XML" and bnf.subject.endswith("#about")
    assert bnf.chosen.fact.object == "1974-06-14" and bnf.chosen.comparison.agreement is Agreement.OTHER
    assert dict(bnf.relations).get("date of birth") == "label"
    # The same record's year-only relation does not decide: the relation named as the property does.
    assert "1974-06-14" in found.reason


def test_a_json_ld_record_is_read_with_its_remote_context_fetched_through_refbots_fetcher(world):
    world.requests.clear()
    place = statement("Q990203", "Helena Marková", "P19", "place of birth", Value("wikibase-item", "Q990224", "Prague"))
    found = corroborator(world).corroborate(place)
    assert found.finding is Finding.CORROBORATED
    check = found.records[0]
    assert check.record.format_name == "JSON-LD" and check.chosen.comparison.how == "name"
    assert found.reference.snaks()[0].value == "Q54919"
    assert {r.path for r in world.requests if r.site == "viaf"} >= {"/viaf/99020301/viaf.jsonld",
                                                                    "/contexts/viaf.jsonld"}


def test_a_malformed_record_is_silent_with_the_parsers_reason(world):
    died = statement("Q990204", "Vojtěch Sládek", "P570", "date of death", time_value("+2021-03-03T00:00:00Z/11"))
    found = corroborator(world).corroborate(died)
    assert found.finding is Finding.SILENT and found.reference is None
    assert "not readable as Turtle" in found.records[0].reason


def test_a_value_under_a_relation_only_the_model_can_recognise_is_put_to_the_model_and_its_pick_validated(world):
    born = statement("Q990203", "Helena Marková", "P569", "date of birth", time_value("+1981-09-21T00:00:00Z/11"))
    assert corroborator(world).corroborate(born).finding is Finding.SILENT  # no model: nothing recognises "born"

    invented = ScriptedBackend(completions="date of birth")  # the property's own name: not a relation of the record
    found = corroborator(world, backend=invented).corroborate(born)
    check = found.records[0]
    assert found.finding is Finding.SILENT and check.picks.refused == ("date of birth",)
    assert "- born (1981-09-21)" in invented.calls[0].prompt
    assert "Meaning: date of birth\n" in invented.calls[0].prompt  # no description: meant by its label

    found = corroborator(world, backend=ScriptedBackend(completions="born")).corroborate(born)
    check = found.records[0]
    assert found.finding is Finding.CORROBORATED and dict(check.relations)["born"] == "model"
    assert check.chosen.fact.object_text == "1981-09-21"


def test_records_the_statement_does_not_concern_are_silent_and_the_model_is_not_asked(world):
    award = statement("Q990201", "Marta Novotná", "P166", "award received",
                      Value("wikibase-item", "Q990211", "Purkyně Prize for Chemistry"))
    model = ScriptedBackend(completions="date of birth")
    found = corroborator(world, backend=model).corroborate(award)
    assert found.finding is Finding.SILENT and model.calls == []
    assert found.records[0].step == "subject"


def test_each_record_and_identifier_list_is_read_once_for_the_statements_of_an_item(world):
    world.requests.clear()
    reader = corroborator(world)
    reader.corroborate(BORN_NOVOTNA)
    reader.corroborate(statement("Q990201", "Marta Novotná", "P19", "place of birth",
                                 Value("wikibase-item", "Q990223", "Brno")))
    records = [r.path for r in world.requests if r.site == "dnb" and r.path.endswith(".ttl")]
    assert records == ["/gnd/1099020101/about/lds.ttl"]


def test_a_record_moved_elsewhere_gets_its_url_in_the_reference():
    from bot.corroboration.identifiers import Identifier
    from bot.corroboration.records import Record
    from bot.corroboration.stage import RecordCheck

    prop = IdentifierProperty("P214", "VIAF ID", "https://viaf.org/viaf/$1/viaf.jsonld", "https://viaf.org/viaf/$1",
                              "Q54919", "Virtual International Authority File")
    record = Record("https://viaf.org/viaf/1/viaf.jsonld", "https://viaf.org/viaf/2/viaf.jsonld", "json-ld",
                    retrieved="2026-11-20T10:00:00Z")
    check = RecordCheck(Identifier(prop, "1"), record, Finding.CORROBORATED, "states it")
    reference = stated_in(check, date(2026, 11, 24))
    assert [(s.property_id, s.text) for s in reference.snaks()] == [
        ("P248", "Virtual International Authority File"), ("P214", "1"),
        ("P854", "https://viaf.org/viaf/2/viaf.jsonld"), ("P813", "2026-11-20")]


def test_select_json_rows_say_how_many_identifiers_with_rdf_records_the_item_has(world, tmp_path, capsys):
    import json

    from bot.cli import main
    from bot.options import ini_text

    config = tmp_path / "refbot.ini"
    config.write_text(ini_text(world.options()), encoding="utf-8")
    assert main(["--config", str(config), "--quiet", "select", "Q990201", "Q990202", "Q990205", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    counts = {row["item"]: row["rdf_identifiers"] for row in rows}
    assert counts == {"Q990201": 2, "Q990202": 1, "Q990205": 0}
    from bot.datamodel import Statement as Read

    assert Read.from_json(rows[0]).item == rows[0]["item"]  # the rows still read back as statements


def test_a_model_pick_named_like_one_of_the_propertys_contrasts_is_refused():
    """A record that lists the prize under "nominated for" does not say she received it, whatever the model picks."""
    from bot.corroboration.picking import Picks
    from bot.corroboration.stage import _contrasts, _without_contrasts
    from bot.properties.profile import Contrast, PropertyProfile

    profile = PropertyProfile("P166", "award received", "received",
                              contrasts=(Contrast("P1411", "nominated for", "was nominated for"),))
    picks = _without_contrasts(Picks("nominated for\nhonours", ("nominated for", "honours")), _contrasts(profile))
    assert picks.accepted == ("honours",)
    assert picks.refused == ("nominated for (a contrasting relation: nominated for, P1411)",)


def test_a_model_pick_far_from_the_property_by_embedding_is_refused():
    from bot.corroboration.picking import Picks
    from bot.corroboration.stage import _close_to

    vectors = {"occupation": [1.0, 0.0], "job title": [0.6, 0.8], "field of study": [0.2, 0.98]}
    picks = _close_to(Picks("job title\nfield of study", ("job title", "field of study")), "occupation",
                      lambda texts: [vectors[text] for text in texts])
    assert picks.accepted == ("job title",)
    assert picks.refused == ("field of study (too far from occupation: cosine 0.20)",)
    assert _close_to(Picks("x", ("x",)), "occupation", None).accepted == ("x",)  # no embedding model: no guard


def test_a_long_run_keeps_only_the_latest_records_in_memory(world, monkeypatch):
    from bot.corroboration import stage

    monkeypatch.setitem(stage.KEEP, "record", 1)
    reader = corroborator(world)
    first = reader.record(world.placed("{site:dnb}/gnd/1099020101/about/lds.ttl"))
    reader.record(world.placed("{site:bnf}/ark/12148/cb169902021.rdf"))
    kept = [key for key in reader._memo if key[0] == "record"]
    assert kept == [("record", world.placed("{site:bnf}/ark/12148/cb169902021.rdf"))]
    assert first.ok  # what was handed out stays usable


def test_a_parser_that_fails_on_refbots_own_sample_too_is_refbots_fault_not_the_records(world, monkeypatch):
    """A record rdflib cannot read is the record's outcome; an rdflib that reads nothing is a broken install.
    (The parse runs here, in this process, as the bounded child runs it, so that rdflib can be broken for it.)"""
    import rdflib

    from bot.corroboration import parsing, records
    from bot.errors import InternalError

    assert all(parsing.parser_works(kind) for kind in parsing.SAMPLES)
    fetcher = Fetcher(requests.Session(), FetchRules(user_agent="refbot-test", retries=0))
    url = world.placed("{site:dnb}/gnd/1099020101/about/lds.ttl")
    malformed = parsing.parse_or_refuse(b"<https://example.org/r> <unterminated", "turtle", "https://example.org/r")
    assert isinstance(malformed, parsing.Refused) and "not readable as Turtle" in malformed.reason

    def broken(self, *args, **kwargs):  # as a half-installed plugin fails: on every input alike
        raise ValueError("no parser plugin for turtle")

    monkeypatch.setattr(rdflib.Graph, "parse", broken)
    assert not parsing.parser_works("turtle")
    assert isinstance(parsing.parse_or_refuse(parsing.SAMPLES["turtle"], "turtle", "https://e.org/r"), parsing.Broken)
    with pytest.raises(InternalError, match="refbot's own Turtle sample.*no parser plugin") as raised:
        records.read_record(fetcher, url, parser=parsing.parse_or_refuse)
    assert raised.value.component == "authority records"


def _children_of(pid: int) -> list[int]:
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def test_a_record_parser_that_dies_by_a_signal_is_refbots_error_never_the_records_outcome():
    """The bounded parser's process killed by SIGSEGV while it reads a record (as a crash in a native library kills
    it) is refbot's own failure, named with the signal, not "the record could not be read"."""
    import signal
    import threading
    from multiprocessing import forkserver

    from bot.corroboration import parsing
    from bot.errors import InternalError

    parser = parsing.BoundedParser(parsing.ParseBounds(seconds=120, max_triples=10**7, memory_mb=4096))
    try:
        assert isinstance(parser(parsing.SAMPLES["turtle"], "turtle", "https://e.org/r", {}), parsing.Parsed)
        server = forkserver._forkserver._forkserver_pid
        idle = {pid: _cpu_seconds(pid) for pid in _children_of(server)}  # (other tests' parsers may be alive too)
        body = "".join(f"<https://e.org/s{n}> <https://e.org/p> \"value {n}\" .\n" for n in range(400_000)).encode()
        raised: list[BaseException] = []
        reading = threading.Thread(target=lambda: raised.append(_raises(parser, body)))
        reading.start()
        deadline, busy = time.monotonic() + 30, []
        while not busy and time.monotonic() < deadline:
            time.sleep(0.05)  # until one is reading the record (400,000 triples take it several seconds): ours
            busy = [pid for pid, before in idle.items() if _alive_cpu(pid) > before + 0.5]
        assert len(busy) == 1, (busy, idle)
        workers = busy
        os.kill(workers[0], signal.SIGSEGV)
        reading.join(60)
        assert len(raised) == 1 and isinstance(raised[0], InternalError), raised
        assert "died by SIGSEGV while reading a turtle record" in str(raised[0])
        assert raised[0].component == "authority records"
    finally:
        parser.close()


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _alive_cpu(pid: int) -> float:
    try:
        return _cpu_seconds(pid)
    except OSError:
        return 0.0


def _raises(parser, body: bytes) -> BaseException | None:
    try:
        parser(body, "turtle", "https://e.org/r", {})
    except BaseException as error:  # noqa: B902 (what it raised is the test's to judge)
        return error
    return None
