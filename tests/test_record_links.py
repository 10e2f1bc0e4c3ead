"""An authority record is shown by its page for people (the identifier property's formatter URL, P1630) first and
the RDF refbot read second, in the trace and the report; a "stated in" reference links its database's item."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from lxml import etree

from bot.checking.records import Outcome, StatementCheck
from bot.corroboration.identifiers import Identifier, IdentifierProperty
from bot.corroboration.records import Record
from bot.corroboration.stage import Corroboration, Finding, RecordCheck
from bot.datamodel import Value
from bot.output import trace as traces
from bot.output.report import render
from bot.references import StatedIn, quickstatements
from test_trace import CONTEXT, STATEMENT, run_info

RDF = "https://d-nb.info/gnd/1099020101/about/lds.ttl"
PAGE = "https://d-nb.info/gnd/1099020101"


def corroborated(formatter: str) -> StatementCheck:
    prop = IdentifierProperty("P227", "GND ID", "https://d-nb.info/gnd/$1/about/lds.ttl", formatter, "Q36578",
                              "Integrated Authority File")
    record = RecordCheck(Identifier(prop, "1099020101"), Record(RDF, RDF, format="turtle"), Finding.CORROBORATED,
                         "states it: date of birth 1968-02-11")
    born = replace(STATEMENT, guid="Q990201$BORN-0001", property_id="P569", property_label="date of birth",
                   value=Value("time", "+1968-02-11T00:00:00Z/11", "11 February 1968"))
    reference = StatedIn("Q36578", "Integrated Authority File", "P227", "GND ID", "1099020101", date(2026, 11, 24),
                         RDF)
    return StatementCheck(born, Outcome.CORROBORATED, "an authority record states it", "2026-11-24T10:00:00Z", 0.4,
                          reference=reference, quickstatements=quickstatements(born, reference, "refbot"),
                          corroboration=Corroboration(Finding.CORROBORATED, "GND states it", (record,), reference))


def trace_and_page(check: StatementCheck):
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [traces.statement_element(CONTEXT, check)])])
    traces.validate(tree)
    return tree, etree.HTML(render(tree))


def links(element) -> list[tuple[str, str]]:
    return [(" ".join("".join(a.itertext()).split()), a.get("href")) for a in element.iter("a")]


def test_a_record_is_linked_by_its_page_for_people_then_its_rdf():
    tree, page = trace_and_page(corroborated("https://d-nb.info/gnd/$1"))
    (record,) = tree.iter(traces.tag("record"))
    assert (record.get("page"), record.get("url")) == (PAGE, RDF)
    (shown,) = page.xpath("//div[contains(@class, 'corroboration')]//p[starts-with(normalize-space(.), 'Record:')]")
    assert links(shown) == [("record page", PAGE), ("RDF", RDF)]

    (reference,) = page.xpath("//table[contains(@class, 'reference')]")
    assert links(reference)[:3] == [("Q36578", "https://www.wikidata.org/wiki/Q36578"), ("record page", PAGE),
                                    ("RDF", RDF)]


def test_a_record_whose_property_has_no_formatter_url_is_linked_by_its_rdf_alone():
    tree, page = trace_and_page(corroborated(""))
    (record,) = tree.iter(traces.tag("record"))
    assert record.get("page") is None
    (shown,) = page.xpath("//div[contains(@class, 'corroboration')]//p[starts-with(normalize-space(.), 'Record:')]")
    assert links(shown) == [("RDF", RDF)]
