"""A verify run's findings for others to query: one record per reference verified, as JSON Lines or as RDF
(Turtle), read from the trace elements the run ledger keeps. Pure but for :func:`recorded`, which reads the ledger.

Each record names the statement (its GUID, and in RDF Wikidata's own statement IRI), the reference (its hash, and
Wikidata's reference IRI), the finding, the judge's support, the day it was checked and the page read, so that a
SPARQL query — federated with the Wikidata Query Service — can build a worklist from them ("statements whose
reference is dead with an archived copy", "references that give another value").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDF, XSD

from bot.errors import InputError
from bot.output import trace as traces
from bot.ledger.ledger import RunLedger

# refbot's own terms; Wikidata's statements and references keep Wikidata's IRIs.
REFBOT = Namespace("https://www.wikidata.org/wiki/Wikidata:refbot/verify#")
STATEMENT = "http://www.wikidata.org/entity/statement/"
REFERENCE = "http://www.wikidata.org/reference/"
ENTITY = Namespace("http://www.wikidata.org/entity/")
FORMS = ("jsonl", "rdf")


def records(items: Iterable[tuple[Any, Sequence[Any]]], run_id: int) -> list[dict[str, Any]]:
    """(item element, its verification elements) → one record per reference, in the order given."""
    found = []
    for item, verifications in items:
        for element in verifications:
            if element.tag != traces.tag("verification"):
                continue
            cited = element.find(traces.tag("cited"))
            document = element.find(traces.tag("document"))
            support = element.get("support")
            found.append({
                "run": run_id, "item": item.get("id"), "item_label": item.get("label"),
                "statement": element.get("guid"), "property": element.get("property"),
                "value": element.get("value"), "value_text": element.get("value-text"),
                "reference": element.get("reference"), "url": cited.get("url") if cited is not None else "",
                "via": cited.get("via") if cited is not None else "",
                "finding": element.get("outcome"), "archived": element.get("archived"),
                "support": float(support) if support is not None else None,
                "checked": (element.get("started") or "")[:10],
                "read": (document.get("archive-url") or document.get("final-url") or document.get("url"))
                if document is not None else None,
                "sentence": element.findtext(traces.tag("sentence")), "other_value": element.findtext(
                    traces.tag("other-value")), "reason": element.findtext(traces.tag("reason"))})
    return found


def jsonl(found: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps({key: value for key, value in record.items() if value is not None},
                              ensure_ascii=False) + "\n" for record in found)


def statement_iri(guid: str) -> URIRef:
    """``Q42$F078…`` → ``http://www.wikidata.org/entity/statement/Q42-F078…``, as the Query Service names it."""
    return URIRef(STATEMENT + guid.replace("$", "-", 1))


def turtle(found: Iterable[Mapping[str, Any]]) -> str:
    """The records as RDF: each a ``refbot:ReferenceCheck`` of a statement and a reference (Wikidata's IRIs)."""
    graph = Graph()
    graph.bind("refbot", REFBOT)
    graph.bind("wd", ENTITY)
    graph.bind("wds", Namespace(STATEMENT))
    graph.bind("wdref", Namespace(REFERENCE))
    for record in found:
        node = BNode()
        graph.add((node, RDF.type, REFBOT.ReferenceCheck))
        graph.add((node, REFBOT.statement, statement_iri(record["statement"])))
        graph.add((node, REFBOT.reference, URIRef(REFERENCE + record["reference"])))
        graph.add((node, REFBOT.item, ENTITY[record["item"]]))
        graph.add((node, REFBOT.property, ENTITY[record["property"]]))
        graph.add((node, REFBOT.finding, REFBOT[record["finding"]]))
        if record.get("archived"):
            graph.add((node, REFBOT.archivedCopy, REFBOT[record["archived"]]))
        if record.get("support") is not None:
            graph.add((node, REFBOT.support, Literal(record["support"], datatype=XSD.decimal)))
        if record.get("checked"):
            graph.add((node, REFBOT.checked, Literal(record["checked"], datatype=XSD.date)))
        if record.get("url"):
            graph.add((node, REFBOT.page, URIRef(record["url"])))
        if record.get("read"):
            graph.add((node, REFBOT.read, URIRef(record["read"])))
        if record.get("sentence"):
            graph.add((node, REFBOT.sentence, Literal(record["sentence"])))
        if record.get("other_value"):
            graph.add((node, REFBOT.otherValue, Literal(record["other_value"])))
        graph.add((node, REFBOT.run, Literal(record["run"], datatype=XSD.integer)))
    return graph.serialize(format="turtle")


def recorded(ledger: RunLedger, run_id: int) -> list[dict[str, Any]]:
    """The run's records from the ledger; InputError when the run is not there or is no verify run."""
    record = ledger.run(run_id)
    if record is None:
        raise InputError(f"the ledger {ledger.path} has no run {run_id}",
                         hint="pass the run id `refbot verify` printed")
    items = [(traces.from_string(element), [traces.from_string(text) for _, text in checks])
             for _, element, checks in ledger.items(record)]
    if any(element.tag == traces.tag("statement") for _, elements in items for element in elements):
        raise InputError(f"run {run_id} is a check run, not a verify run",
                         hint="export --jsonl/--rdf publishes what `refbot verify` found; a check run's proposals "
                              "go to --quickstatements")
    return records(items, run_id)
