"""A statement's qualifiers read from the Wikidata API's JSON (bot.review.qualifiers), rendered as the SPARQL
selection renders them."""

from __future__ import annotations

import pytest
import requests

from bot.datamodel import Qualifier, Value
from bot.demo.world import DemoWorld
from bot.review.qualifiers import snak_value, statement_qualifiers
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.unsourced import SelectionRules, unsourced_statements

GREGORIAN = "http://www.wikidata.org/entity/Q1985727"
JULIAN = "http://www.wikidata.org/entity/Q1985786"


def snak(property_id: str, datatype: str, kind: str, value, snaktype: str = "value") -> dict:
    """A snak as wbgetentities writes it."""
    body = {"snaktype": snaktype, "property": property_id, "hash": "0" * 40, "datatype": datatype}
    if snaktype == "value":
        body["datavalue"] = {"value": value, "type": kind}
    return body


def time(text: str, precision: int, calendar: str = GREGORIAN) -> dict:
    return {"time": text, "timezone": 0, "before": 0, "after": 0, "precision": precision, "calendarmodel": calendar}


# Marta Novotná's award received: Purkyně Prize for Chemistry, as wbgetentities answers it, with qualifiers of
# every kind the reader knows (the order follows qualifiers-order, not the mapping's).
STATEMENT = {
    "mainsnak": snak("P166", "wikibase-item", "wikibase-entityid",
                     {"entity-type": "item", "numeric-id": 990211, "id": "Q990211"}),
    "type": "statement", "id": "Q990201$FD23D3AF-2C9B-4A49-A6AB-C6A9F40FEBC2", "rank": "normal",
    "qualifiers": {
        "P1027": [snak("P1027", "wikibase-item", "wikibase-entityid",
                       {"entity-type": "item", "numeric-id": 990299, "id": "Q990299"})],
        "P585": [snak("P585", "time", "time", time("+2021-00-00T00:00:00Z", 9))],
        "P1114": [snak("P1114", "quantity", "quantity", {"amount": "+500000", "unit": "1"})],
        "P2043": [snak("P2043", "quantity", "quantity",
                       {"amount": "+1.73", "unit": "http://www.wikidata.org/entity/Q11573",
                        "upperBound": "+1.74", "lowerBound": "+1.72"})],
        "P1545": [snak("P1545", "string", "string", "3")],
        "P1476": [snak("P1476", "monolingualtext", "monolingualtext", {"text": "Purkyňova cena", "language": "cs"})],
        "P580": [snak("P580", "time", "time", None, snaktype="somevalue"),
                 snak("P580", "time", "time", time("+1650-03-01T00:00:00Z", 11, JULIAN))],
        "P582": [snak("P582", "time", "time", None, snaktype="novalue")],
    },
    "qualifiers-order": ["P585", "P1027", "P1114", "P2043", "P1545", "P1476", "P580", "P582"],
}


def test_the_qualifiers_of_an_api_statement_in_their_order():
    qualifiers = statement_qualifiers(STATEMENT, {"P585": "point in time", "Q990299": "Purkyně Foundation",
                                                  "Q11573": "metre"})
    assert qualifiers == (
        Qualifier("P585", "point in time", Value("time", "+2021-00-00T00:00:00Z/9", "2021")),
        Qualifier("P1027", "P1027", Value("wikibase-item", "Q990299", "Purkyně Foundation")),
        Qualifier("P1114", "P1114", Value("quantity", "500000", "500000")),
        Qualifier("P2043", "P2043", Value("quantity", "1.73~0.01U11573", "1.73±0.01 metre")),
        Qualifier("P1545", "P1545", Value("string", '"3"', "3")),
        Qualifier("P1476", "P1476", Value("monolingualtext", 'cs:"Purkyňova cena"', "Purkyňova cena")),
        # the unknown start time and the "no value" end time are left out; a Julian date is not converted
        Qualifier("P580", "P580", Value("time", "+1650-03-01T00:00:00Z/11/J", "1650-03-01 (Julian calendar)")),
    )


def test_an_item_without_a_known_label_is_shown_by_its_id():
    assert statement_qualifiers(STATEMENT)[1].value == Value("wikibase-item", "Q990299", "Q990299")


def test_times_as_the_api_writes_them():
    assert snak_value(snak("P585", "time", "time", time("+2021-06-00T00:00:00Z", 10))) == \
        Value("time", "+2021-06-00T00:00:00Z/10", "June 2021")
    assert snak_value(snak("P585", "time", "time", time("+2021-06-14T00:00:00Z", 11))) == \
        Value("time", "+2021-06-14T00:00:00Z/11", "2021-06-14")
    # The API writes 100 BCE as -0100 (the RDF as -0099)
    assert snak_value(snak("P585", "time", "time", time("-0100-00-00T00:00:00Z", 9))) == \
        Value("time", "-0100-00-00T00:00:00Z/9", "100 BCE")


def test_a_statement_without_qualifiers_or_with_unreadable_ones_has_none():
    assert statement_qualifiers({"mainsnak": STATEMENT["mainsnak"]}) == ()
    assert statement_qualifiers({"qualifiers": {"P585": [snak("P585", "time", "time", {"time": "2021"})]}}) == ()
    assert statement_qualifiers({"qualifiers": []}) == ()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with DemoWorld(workdir=tmp_path_factory.mktemp("store")) as running:
        yield running


def test_the_api_and_the_query_service_give_a_statement_the_same_qualifiers(world):
    """The demo world's Wikidata API serves the store's qualifiers as wbgetentities writes them; read from there
    (labels asked of the API), they are the ones the SPARQL selection attaches to the statement."""
    api = f"{world.base('wikidata')}/w/api.php"
    entities = requests.get(api, params={"action": "wbgetentities", "ids": "Q990201|Q990207|P585", "format": "json"},
                            timeout=10).json()["entities"]
    labels = {entity_id: entity["labels"]["en"]["value"] for entity_id, entity in entities.items()}
    selected = {statement.guid: statement for selection in unsourced_statements(
        SparqlEndpoint(world.sparql_url, "refbot/test"), ["Q990201", "Q990207"], SelectionRules())
        for statement in selection.statements}
    for item, guid, year in (("Q990201", "Q990201$FD23D3AF-2C9B-4A49-A6AB-C6A9F40FEBC2", "2021"),
                             ("Q990201", "Q990201$E3079FD3-74F2-4226-A9F1-CA27692B5767", "2019"),
                             ("Q990207", "Q990207$6817B70B-A25D-4E24-93A9-8623B5E932D6", "2021")):
        statement = next(c for claims in entities[item]["claims"].values() for c in claims if c["id"] == guid)
        read = statement_qualifiers(statement, labels)
        assert [q.display for q in read] == [f"point in time: {year}"]
        assert read == selected[guid].qualifiers
    assert selected["Q990201$B6C2B84D-6CC2-431B-8F79-CA1BC893485E"].qualifiers == ()
