"""A page in another language than the run's labels is read by the subject's names in that language: looked up on a
real Oxigraph endpoint once per item and language, and used by `refbot check` to admit the page's paragraphs."""

from __future__ import annotations

import json
import logging

import pytest

from bot.checking.statement import Plan, Tools, check_statement
from bot.datamodel import Statement, Value
from bot.documents import paragraph_rules
from bot.judge.engine import Judge
from bot.judge.prompts import REFBOT
from bot.judge.scripted import ScriptedBackend
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.page_language import SubjectNames, with_names
from bot.selection.related import RelatedLookup
from bot.wiring import Wiring
from conftest import free_port
from documents_world import HTML, world_options
from servers import CountingEndpoint, Reply, routed, turtle_endpoint

# Invented items, shaped as the Query Service's RDF has them.
WORLD = """
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix wd: <http://www.wikidata.org/entity/> .

wd:Q9907001 rdfs:label "Lake Ryzhevo"@en, "Рыжево"@ru, "Ryzhevo-See"@de ; skos:altLabel "озеро Рыжево"@ru .
wd:Q9907002 rdfs:label "Ruritania"@en, "Руритания"@ru .
wd:Q9907003 rdfs:label "Lonely lake"@en .
"""

LAKE = Statement("Q9907001", "Lake Ryzhevo", "Q9907001$R1", "P17", "country",
                 Value("wikibase-item", "Q9907002", "Ruritania"))
PAGE = ('<html lang="ru"><head><title>Озёра Северного края</title></head><body><article><h1>Озёра Северного края</h1>'
        "<p>Рыжево — пресноводное озеро в Руритании, в трёх километрах от границы; его площадь около двух "
        "квадратных километров, а глубина достигает девяти метров.</p>"
        "<p>Соседнее озеро Белое находится в Руритании и в Ладонии, по обе стороны границы, и славится рыбой.</p>"
        "</article></body></html>")


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    yield from turtle_endpoint(tmp_path_factory, "lakes", WORLD)


def test_the_subjects_names_in_the_pages_language_are_added_once_per_item_and_language(lakes):
    endpoint = CountingEndpoint(lakes)
    names = SubjectNames(endpoint, ("en", "mul"))
    on_russian = names(LAKE, "ru-RU")
    assert on_russian.item_label == "Lake Ryzhevo" and on_russian.item_aliases == ("Рыжево", "озеро Рыжево")
    assert names(LAKE, "ru") == on_russian and len(endpoint.sent) == 1, "asked once for the item in that language"
    # A page in the run's languages, or in none identified, is read by the names the statement has; no query.
    assert names(LAKE, "en") is LAKE and names(LAKE, "") is LAKE and len(endpoint.sent) == 1
    assert names(LAKE, "de").item_aliases == ("Ryzhevo-See",)
    # An item without a name in the page's language keeps its own.
    lonely = Statement("Q9907003", "Lonely lake", "Q9907003$L1", "P17", "country", LAKE.value)
    assert names(lonely, "ru") == lonely


def test_a_name_the_statement_has_is_not_added_again():
    named = with_names(LAKE, ["lake ryzhevo", " Рыжево ", "Рыжево", ""])
    assert named.item_aliases == ("Рыжево",)


def test_an_endpoint_that_fails_leaves_the_names_as_they_are_and_says_so(caplog):
    down = SparqlEndpoint(f"http://127.0.0.1:{free_port()}/sparql", "refbot/test (ops@example.org)", timeout=2.0,
                          retries=0)
    with caplog.at_level(logging.WARNING):
        assert SubjectNames(down, ("en",))(LAKE, "ru") is LAKE
    assert "names of Q9907001 in 'ru' could not be read" in caplog.text


def check_lake(recording_server, lakes, *, names_in: bool):
    page = f"{recording_server.url}/ozera"
    recording_server.script = routed({
        "/search": Reply(200, json.dumps({"results": [{"url": page, "title": "Озёра"}]}),
                         {"Content-Type": "application/json"}),
        "/ozera": Reply(200, PAGE, HTML)})
    options = world_options(search_backend="searxng", search_url=recording_server.url)
    parts = Wiring(options, endpoint=lakes)
    # The judge confirms the paragraph on the lake itself, never its neighbour's.
    confirms = ScriptedBackend(lambda prompt: 0.95 if "пресноводное" in prompt else 0.05)
    tools = Tools(Judge(confirms, REFBOT, justify=False), parts.fetcher, paragraph_rules(options.paragraph),
                  search=parts.search, related=RelatedLookup(lakes, ("en", "mul")),
                  names_in=SubjectNames(lakes, ("en", "mul")) if names_in else None)
    return check_statement(LAKE, tools, Plan(source="web", fetch_workers=1))


def test_a_page_in_russian_supports_the_statement_when_read_by_the_subjects_russian_name(recording_server, lakes):
    check = check_lake(recording_server, lakes, names_in=True)
    document, = check.documents
    assert document.retrieved.document.language == "ru"
    assert check.outcome.value == "supported", check.reason
    supporting = document.supporting[0]
    assert supporting.ranked.paragraph.text.startswith("Рыжево — пресноводное озеро")
    assert supporting.judgement.written_form == "Руритании"  # the value's Russian label, declined
    # Without the subject's Russian names the page names no subject refbot knows: nothing is asked of the model.
    without = check_lake(recording_server, lakes, names_in=False)
    assert without.outcome.value != "supported"
    assert all(judged.judgement.prompt_tokens == 0 for judged in without.documents[0].judged)
