"""A statement's qualifiers as the Wikidata API gives them (``qualifiers`` and ``qualifiers-order`` of a statement in
``wbgetentities``/``wbgetclaims``, or pywikibot's ``Claim.toJSON()``), read into :class:`~bot.datamodel.Qualifier`
values rendered as the SPARQL selection renders them (``bot.selection.values``). Pure.

The API's JSON gives no labels: an item value, a unit and a property are shown by their labels where ``labels``
has them, by their ids otherwise. Unlike the RDF, a time is in its own calendar and writes BCE years as Wikibase
does (-0100 is 100 BCE), so it is not converted back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bot.datamodel import Qualifier, Value
from bot.selection.endpoint import Row, Term
from bot.selection.terms import Terms
from bot.selection.values import JULIAN, ENTITY_PREFIX, ValueSkipped, render_time, render_value

_TIME = re.compile(r"^([+-])(\d+)(-\d\d-\d\dT\d\d:\d\d:\d\dZ)$")


def statement_qualifiers(statement: Mapping[str, Any],
                         labels: Mapping[str, str] | None = None) -> tuple[Qualifier, ...]:
    """The qualifiers of a statement's Wikibase JSON, in ``qualifiers-order`` (then any property it does not list);
    a snak with no value or an unknown value, or a value this module cannot read, is left out."""
    labels = labels or {}
    groups = statement.get("qualifiers") or {}
    if not isinstance(groups, Mapping):
        return ()
    order = [p for p in statement.get("qualifiers-order") or () if p in groups]
    order += [p for p in groups if p not in order]
    found: list[Qualifier] = []
    for property_id in order:
        for snak in groups.get(property_id) or ():
            value = snak_value(snak, labels)
            if value is not None:
                found.append(Qualifier(property_id, labels.get(property_id, property_id), value))
    return tuple(found)


def snak_value(snak: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> Value | None:
    """A snak's value as the selection renders one (QuickStatements form and a text); None for no value, an unknown
    value, or a value in a form not known here."""
    if not isinstance(snak, Mapping) or snak.get("snaktype") != "value":
        return None
    datavalue = snak.get("datavalue") or {}
    datatype = snak.get("datatype") or _DATATYPE_OF_TYPE.get(datavalue.get("type", ""), "string")
    content = datavalue.get("value")
    try:
        if datatype == "time":
            return _time(content)
        row = _row(datatype, content)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if row is None:
        return None
    terms = {entity: Terms(label) for entity, label in (labels or {}).items()}
    try:
        return render_value(row, datatype, terms)
    except ValueSkipped:
        return None


# The datatype a snak without one (pywikibot's older JSON) most likely has, from its datavalue's type.
_DATATYPE_OF_TYPE = {"wikibase-entityid": "wikibase-item", "time": "time", "quantity": "quantity",
                     "monolingualtext": "monolingualtext", "globecoordinate": "globe-coordinate", "string": "string"}


def _time(content: Any) -> Value:
    match = _TIME.match(content["time"])
    if not match:
        raise ValueError(content["time"])
    sign, digits, rest = match.groups()
    precision = int(content.get("precision", 11))
    year = -int(digits) if sign == "-" else int(digits)
    # render_time reads the RDF's years (XSD 1.1: -0099 is 100 BCE at year precision and finer); the API's -0100 is.
    rdf_year = year + 1 if year < 0 and precision >= 9 else year
    text, raw = render_time(f"{'-' if rdf_year < 0 else ''}{abs(rdf_year):04d}{rest}", precision)
    if content.get("calendarmodel") == JULIAN:
        raw += "/J"
        text += " (Julian calendar)" if precision >= 10 else ""
    return Value("time", raw, text)


def _row(datatype: str, content: Any) -> Row | None:
    """The value as a row of the SPARQL selection, for ``render_value``."""
    if datatype.startswith("wikibase-") or datatype == "entity-schema":
        entity = str(content.get("id") or "") if isinstance(content, Mapping) else str(content)
        if not entity and isinstance(content, Mapping):
            entity = f"{'P' if content.get('entity-type') == 'property' else 'Q'}{content['numeric-id']}"
        return {"value": Term(ENTITY_PREFIX + entity)}
    if datatype == "quantity":
        row = {"value": Term(content["amount"], "literal"), "amount": Term(content["amount"], "literal")}
        for key, name in (("lowerBound", "lowerBound"), ("upperBound", "upperBound")):
            if content.get(key) is not None:
                row[name] = Term(content[key], "literal")
        if content.get("unit", "1") != "1":
            row["unit"] = Term(content["unit"])
        return row
    if datatype == "globe-coordinate":
        row = {"value": Term(f"Point({content['longitude']} {content['latitude']})", "literal"),
               "latitude": Term(str(content["latitude"]), "literal"),
               "longitude": Term(str(content["longitude"]), "literal")}
        if content.get("precision") is not None:
            row["geoPrecision"] = Term(str(content["precision"]), "literal")
        if content.get("globe"):
            row["globe"] = Term(content["globe"])
        return row
    if datatype == "monolingualtext":
        return {"value": Term(content["text"], "literal", lang=content["language"])}
    if isinstance(content, str):
        return {"value": Term(content, "literal")}
    return None
