"""The demo world's items as Wikibase JSON, built from its SPARQL store: statements, ranks, qualifiers and references
as the Query Service's RDF writes them, merged with ``entities.json`` (revisions, sitelinks, statements the store
lacks). ``bot.demo.wikibase`` serves them and keeps the edits made to them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote

import requests

from bot.errors import ServiceError

JSON = dict[str, Any]
ENTITY = "http://www.wikidata.org/entity/"
START = "2024-01-01T00:00:00Z"
RANKS = {"NormalRank": "normal", "PreferredRank": "preferred", "DeprecatedRank": "deprecated"}
# A datatype -> the type of its datavalues (every other datatype's values are strings).
VALUE_TYPES = {"wikibase-item": "wikibase-entityid", "wikibase-property": "wikibase-entityid",
               "wikibase-lexeme": "wikibase-entityid", "wikibase-form": "wikibase-entityid",
               "wikibase-sense": "wikibase-entityid", "time": "time", "quantity": "quantity",
               "monolingualtext": "monolingualtext", "globe-coordinate": "globecoordinate"}
# wikibase:propertyType (local name) -> the datatype's name in Wikibase JSON.
DATATYPES = {"WikibaseItem": "wikibase-item", "WikibaseProperty": "wikibase-property",
             "WikibaseLexeme": "wikibase-lexeme", "WikibaseForm": "wikibase-form", "WikibaseSense": "wikibase-sense",
             "Time": "time", "Quantity": "quantity", "Monolingualtext": "monolingualtext",
             "GlobeCoordinate": "globe-coordinate", "Url": "url", "String": "string", "ExternalId": "external-id",
             "CommonsMedia": "commonsMedia", "Math": "math", "GeoShape": "geo-shape", "TabularData": "tabular-data",
             "MusicalNotation": "musical-notation", "EntitySchema": "entity-schema"}
# The properties of the references refbot writes, which the demo world's Turtle need not declare.
REFERENCE_TYPES = {"P854": "url", "P813": "time", "P1476": "monolingualtext", "P407": "wikibase-item",
                   "P1065": "url", "P2960": "time", "P1683": "monolingualtext"}
UNITLESS = ENTITY + "Q199"  # the RDF's unit of a quantity without one ("1" in Wikibase JSON)
EARTH = ENTITY + "Q2"
GREGORIAN = ENTITY + "Q1985727"
Term = dict[str, str]  # one binding of a SPARQL JSON result: type, value, datatype / xml:lang


PREFIXES = """PREFIX wikibase: <http://wikiba.se/ontology#>
PREFIX wd: <http://www.wikidata.org/entity/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX schema: <http://schema.org/>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX prov: <http://www.w3.org/ns/prov#>
"""
PROPERTY_TYPES_QUERY = "SELECT ?property ?type WHERE { ?property wikibase:propertyType ?type }"
# A statement without a ps: value is a "no value" statement in the Query Service's RDF.
STATEMENTS_QUERY = """SELECT ?entity ?statement ?rank ?property ?value ?node WHERE {
  ?property wikibase:claim ?claim ; wikibase:statementProperty ?ps .
  ?entity ?claim ?statement .
  FILTER(STRSTARTS(STR(?entity), STR(wd:Q)))
  ?statement wikibase:rank ?rank .
  OPTIONAL { ?statement ?ps ?value }
  OPTIONAL { ?property wikibase:statementValue ?psv . ?statement ?psv ?node }
}"""
QUALIFIERS_QUERY = """SELECT ?statement ?property ?value ?node WHERE {
  ?property wikibase:qualifier ?pq .
  ?statement ?pq ?value .
  OPTIONAL { ?property wikibase:qualifierValue ?pqv . ?statement ?pqv ?node }
}"""
REFERENCES_QUERY = """SELECT ?statement ?reference ?property ?value ?node WHERE {
  ?statement prov:wasDerivedFrom ?reference .
  ?property wikibase:reference ?pr .
  ?reference ?pr ?value .
  OPTIONAL { ?property wikibase:referenceValue ?prv . ?reference ?prv ?node }
}"""
VALUE_NODES_QUERY = """SELECT ?node ?key ?value WHERE {
  VALUES ?kind { wikibase:TimeValue wikibase:QuantityValue wikibase:GlobecoordinateValue }
  ?node a ?kind ; ?key ?value .
}"""
TERMS_QUERY = """SELECT ?entity ?kind ?text WHERE {
  VALUES (?predicate ?kind) { (rdfs:label "labels") (schema:description "descriptions") (skos:altLabel "aliases") }
  ?entity ?predicate ?text .
  FILTER(STRSTARTS(STR(?entity), STR(wd:)) && LANG(?text) != "")
}"""


def sparql_rows(endpoint: str, query: str) -> list[dict[str, Term]]:
    """The bindings of a SELECT query."""
    try:
        answer = requests.post(endpoint, data={"query": PREFIXES + query},
                               headers={"Accept": "application/sparql-results+json"}, timeout=30)
        answer.raise_for_status()
        return list(answer.json()["results"]["bindings"])
    except (requests.RequestException, ValueError, KeyError, TypeError) as error:
        raise ServiceError(f"could not read the demo world's items: {error}", service="Oxigraph",
                           url=endpoint) from error


def local_name(iri: str) -> str:
    """The last segment of an IRI: ``Q5`` of ``http://www.wikidata.org/entity/Q5``, ``Time`` of ``...#Time``."""
    return re.split(r"[/#]", iri)[-1]


def signed(number: str) -> str:
    """A decimal as Wikibase writes amounts: with its sign (Oxigraph drops the ``+``)."""
    return number if number.startswith(("+", "-")) else "+" + number


def wikibase_time(stamp: str, precision: int) -> str:
    """An xsd:dateTime as a Wikibase time: signed, with month and day 00 where the precision ends before them."""
    match = re.fullmatch(r"([+-]?)0*(\d{4,})-(\d\d)-(\d\d)(T.*)", stamp)
    if match is None:
        return stamp
    sign, year, month, day, rest = match.groups()
    month = month if precision >= 10 else "00"
    day = day if precision >= 11 else "00"
    return f"{sign or '+'}{year}-{month}-{day}{rest}"


def datavalue(datatype: str, value: Term, node: Mapping[str, Term]) -> JSON:
    """The Wikibase JSON datavalue of an RDF value, read from its full value node where it has one."""
    text = value["value"]
    kind = VALUE_TYPES.get(datatype, "string")
    if kind == "wikibase-entityid":
        entity_id = local_name(text)
        entity: JSON = {"entity-type": datatype.removeprefix("wikibase-")}
        if entity_id[1:].isdigit():
            entity["numeric-id"] = int(entity_id[1:])
        return {"value": {**entity, "id": entity_id}, "type": kind}
    if kind == "time":
        precision = int(node["timePrecision"]["value"]) if "timePrecision" in node else 11
        return {"value": {"time": wikibase_time(node.get("timeValue", value)["value"], precision),
                          "timezone": int(node["timeTimezone"]["value"]) if "timeTimezone" in node else 0,
                          "before": 0, "after": 0, "precision": precision,
                          "calendarmodel": node["timeCalendarModel"]["value"] if "timeCalendarModel" in node
                          else GREGORIAN}, "type": kind}
    if kind == "quantity":
        unit = node["quantityUnit"]["value"] if "quantityUnit" in node else "1"
        quantity = {"amount": signed(node.get("quantityAmount", value)["value"]), "unit": "1" if unit == UNITLESS
                    else unit}
        for bound, key in (("upperBound", "quantityUpperBound"), ("lowerBound", "quantityLowerBound")):
            if key in node:
                quantity[bound] = signed(node[key]["value"])
        return {"value": quantity, "type": kind}
    if kind == "monolingualtext":
        return {"value": {"text": text, "language": value.get("xml:lang", "und")}, "type": kind}
    if kind == "globecoordinate":
        point = re.findall(r"-?[\d.]+(?:[eE]-?\d+)?", text)
        latitude = float(node["geoLatitude"]["value"]) if "geoLatitude" in node else float(point[1])
        longitude = float(node["geoLongitude"]["value"]) if "geoLongitude" in node else float(point[0])
        resolution = float(node["geoPrecision"]["value"]) if "geoPrecision" in node else None
        return {"value": {"latitude": latitude, "longitude": longitude, "altitude": None, "precision": resolution,
                          "globe": node["geoGlobe"]["value"] if "geoGlobe" in node else EARTH}, "type": kind}
    if datatype == "commonsMedia" and "Special:FilePath/" in text:
        text = unquote(text.split("Special:FilePath/", 1)[1])
    elif datatype in ("geo-shape", "tabular-data") and "/data/main/" in text:
        text = unquote(text.split("/data/main/", 1)[1])
    return {"value": text, "type": "string"}


def hashed(snak: JSON) -> JSON:
    """The snak with its hash (of its content), in Wikibase's key order."""
    content = {key: value for key, value in snak.items() if key != "hash"}
    digest = hashlib.sha1(json.dumps(content, sort_keys=True).encode()).hexdigest()
    return {"snaktype": content["snaktype"], "property": content["property"], "hash": digest,
            **{key: value for key, value in content.items() if key not in ("snaktype", "property")}}


def snak(property_id: str, datatype: str, value: Term | None, node: Mapping[str, Term]) -> JSON:
    """A snak of the RDF: no value where there is none, some value for a blank node."""
    if value is None:
        return hashed({"snaktype": "novalue", "property": property_id, "datatype": datatype})
    if value["type"] == "bnode" or "/.well-known/genid/" in value["value"]:
        return hashed({"snaktype": "somevalue", "property": property_id, "datatype": datatype})
    return hashed({"snaktype": "value", "property": property_id, "datavalue": datavalue(datatype, value, node),
                   "datatype": datatype})


def property_order(property_id: str) -> tuple[int, str]:
    """Sort key of property ids: by number."""
    return (int(property_id[1:]) if property_id[1:].isdigit() else 0, property_id)


def snak_groups(snaks: Iterable[JSON]) -> tuple[JSON, list[str]]:
    """Snaks grouped by property (``snaks`` / ``qualifiers``) and the properties' order."""
    groups: JSON = {}
    for one in sorted(snaks, key=lambda s: (property_order(s["property"]), s["hash"])):
        groups.setdefault(one["property"], []).append(one)
    return groups, list(groups)


def entities_from_store(endpoint: str) -> dict[str, JSON]:
    """Wikibase JSON of the store's items (those with statements or terms) and properties (datatype and terms)."""
    types = {local_name(row["property"]["value"]): DATATYPES.get(local_name(row["type"]["value"]), "string")
             for row in sparql_rows(endpoint, PROPERTY_TYPES_QUERY)}
    nodes: dict[str, dict[str, Term]] = {}
    for row in sparql_rows(endpoint, VALUE_NODES_QUERY):
        nodes.setdefault(row["node"]["value"], {})[local_name(row["key"]["value"])] = row["value"]

    def snak_of(row: dict[str, Term]) -> JSON:
        property_id = local_name(row["property"]["value"])
        node = nodes.get(row["node"]["value"], {}) if "node" in row else {}
        return snak(property_id, types.get(property_id, "string"), row.get("value"), node)

    qualifiers: dict[str, list[JSON]] = {}
    for row in sparql_rows(endpoint, QUALIFIERS_QUERY):
        qualifiers.setdefault(row["statement"]["value"], []).append(snak_of(row))
    references: dict[str, dict[str, list[JSON]]] = {}
    for row in sparql_rows(endpoint, REFERENCES_QUERY):
        references.setdefault(row["statement"]["value"], {}).setdefault(row["reference"]["value"], []).append(
            snak_of(row))
    entities: dict[str, JSON] = {}
    for row in sparql_rows(endpoint, STATEMENTS_QUERY):
        node_iri = row["statement"]["value"]
        statement: JSON = {"mainsnak": snak_of(row), "type": "statement"}
        if node_iri in qualifiers:
            statement["qualifiers"], statement["qualifiers-order"] = snak_groups(qualifiers[node_iri])
        # The statement node's IRI writes the GUID's "$" as "-": Q990201-FD23… is Q990201$FD23….
        statement["id"] = "$".join(local_name(node_iri).split("-", 1))
        statement["rank"] = RANKS.get(local_name(row["rank"]["value"]), "normal")
        if node_iri in references:
            statement["references"] = []
            for reference_iri, reference_snaks in sorted(references[node_iri].items()):
                grouped, order = snak_groups(reference_snaks)
                statement["references"].append({"hash": local_name(reference_iri), "snaks": grouped,
                                                "snaks-order": order})
        item = entities.setdefault(local_name(row["entity"]["value"]), {"type": "item", "claims": {}})
        item["claims"].setdefault(statement["mainsnak"]["property"], []).append(statement)
    for item in entities.values():
        item["claims"] = {pid: sorted(item["claims"][pid], key=lambda s: s["id"])
                          for pid in sorted(item["claims"], key=property_order)}
    for property_id, datatype in types.items():
        entities[property_id] = {"type": "property", "datatype": datatype, "claims": {}}
    for row in sparql_rows(endpoint, TERMS_QUERY):
        entity_id = local_name(row["entity"]["value"])
        if entity_id not in entities and re.fullmatch(r"Q[1-9]\d*", entity_id):
            entities[entity_id] = {"type": "item", "claims": {}}  # an item that is only a value, or only named
        if entity_id in entities:
            term = {"language": row["text"]["xml:lang"], "value": row["text"]["value"]}
            terms = entities[entity_id].setdefault(row["kind"]["value"], {})
            if row["kind"]["value"] == "aliases":
                terms.setdefault(term["language"], []).append(term)
            else:
                terms[term["language"]] = term
    return entities


def merge_entities(store: Mapping[str, JSON], extra: Mapping[str, JSON]) -> dict[str, JSON]:
    """The store's entities completed by ``extra`` (``entities.json``: revisions, sitelinks, further statements)."""
    merged = copy.deepcopy(dict(store))
    for entity_id, data in extra.items():
        entity = merged.setdefault(entity_id, {"type": data.get("type", "item"), "claims": {}})
        for key, value in data.items():
            if key == "claims":
                for property_id, statements in value.items():
                    present = entity["claims"].setdefault(property_id, [])
                    known = {statement["id"] for statement in present}
                    present.extend({**copy.deepcopy(s), "mainsnak": hashed(s["mainsnak"])}
                                   for s in statements if s["id"] not in known)
            elif key in ("labels", "descriptions", "aliases", "sitelinks"):
                entity[key] = {**entity.get(key, {}), **copy.deepcopy(value)}
            else:
                entity[key] = copy.deepcopy(value)
    for property_id, datatype in REFERENCE_TYPES.items():
        merged.setdefault(property_id, {"type": "property", "datatype": datatype, "claims": {}})
    for number, (entity_id, entity) in enumerate(sorted(merged.items()), start=1):
        entity.update(id=entity_id, pageid=entity.get("pageid", number),
                      ns=120 if entity["type"] == "property" else 0,
                      title=f"Property:{entity_id}" if entity["type"] == "property" else entity_id,
                      modified=entity.get("modified", START))
        for key in ("labels", "descriptions", "aliases", "claims"):
            entity.setdefault(key, {})
        if entity["type"] == "item":
            entity.setdefault("sitelinks", {})
    first = max((e["lastrevid"] for e in merged.values() if isinstance(e.get("lastrevid"), int)), default=1000)
    for entity in merged.values():
        entity.setdefault("lastrevid", first)
    return merged
