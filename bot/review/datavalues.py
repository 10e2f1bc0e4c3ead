"""Values between the two forms refbot meets them in: QuickStatements' text (in the trace) and Wikibase JSON
(what the API reads and writes). Pure.

``reference_snaks`` turns a proposal's snaks into the JSON ``wbsetreference`` takes; ``snak_disagreement`` tells
whether a snak's text (what a curator reads) says what its value (what is written) says; ``same_value`` tells whether
a statement's value on the wiki is still the value that was checked; ``same_url`` compares reference URLs as
people mean them (scheme, ``www.``, default port, a trailing slash and a fragment do not matter).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit

from bot.references import LANGUAGE_ITEMS, LANGUAGE_NAMES, Snak, quoted

GREGORIAN = "http://www.wikidata.org/entity/Q1985727"
JULIAN = "http://www.wikidata.org/entity/Q1985786"
ENTITY = "http://www.wikidata.org/entity/"
# The datatypes of the properties a proposed reference uses (../shared/docs/wikidata.md, "Writing references").
REFERENCE_DATATYPES = {"P854": "url", "P813": "time", "P1476": "monolingualtext", "P407": "wikibase-item",
                       "P1065": "url", "P2960": "time", "P1683": "monolingualtext", "P248": "wikibase-item"}
_TIME = re.compile(r"^([+-])(\d+)-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z(?:/(\d+))?(/J)?$")
_QUANTITY = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?\d+)?)(?:~([0-9.]+)|\[([^,\]]+),([^\]]+)\])?(?:U(\d+))?$")
_MONOLINGUAL = re.compile(r'^([a-z][a-z0-9-]*):"(.*)"$', re.S)
_ITEM = re.compile(r"^Q[1-9][0-9]*$")
# A language's item by its name (what P407 shows) or its code (what traces before names showed).
_LANGUAGE_BY_TEXT = LANGUAGE_ITEMS | {LANGUAGE_NAMES[code]: item for code, item in LANGUAGE_ITEMS.items()}


class ValueFormError(ValueError):
    """A value in a form this module does not read."""


def _unquote(raw: str) -> str:
    if len(raw) < 2 or not raw.startswith('"') or not raw.endswith('"'):
        raise ValueFormError(f"not a quoted string: {raw!r}")
    return raw[1:-1].replace('\\"', '"')


def _time(raw: str) -> dict[str, Any]:
    match = _TIME.match(raw)
    if not match:
        raise ValueFormError(f"not a time: {raw!r}")
    sign, year, month, day, hh, mi, ss, precision, julian = match.groups()
    return {"time": f"{sign}{int(year):04d}-{month}-{day}T{hh}:{mi}:{ss}Z", "timezone": 0, "before": 0, "after": 0,
            "precision": int(precision or 11), "calendarmodel": JULIAN if julian else GREGORIAN}


def datavalue(datatype: str, raw: str, text: str = "") -> dict[str, Any]:
    """The Wikibase JSON datavalue of a value in QuickStatements form (``text``: the value as read, used for
    strings and texts, which the QuickStatements form may have had to alter)."""
    if datatype in ("wikibase-item", "wikibase-property"):
        kind = "item" if raw.startswith("Q") else "property"
        return {"type": "wikibase-entityid",
                "value": {"entity-type": kind, "numeric-id": int(raw[1:]), "id": raw}}
    if datatype == "time":
        return {"type": "time", "value": _time(raw)}
    if datatype == "monolingualtext":
        match = _MONOLINGUAL.match(raw)
        if not match:
            raise ValueFormError(f"not a monolingual text: {raw!r}")
        return {"type": "monolingualtext", "value": {"text": text or _unquote(f'"{match.group(2)}"'),
                                                     "language": match.group(1)}}
    if datatype in ("url", "string", "external-id"):
        return {"type": "string", "value": text or _unquote(raw)}
    raise ValueFormError(f"refbot does not write {datatype} values")


def reference_snaks(snaks: tuple[Snak, ...]) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """The ``snaks`` and ``snaks-order`` of ``wbsetreference`` for a proposed reference."""
    result: dict[str, list[dict[str, Any]]] = {}
    for snak in snaks:
        datatype = snak.datatype or REFERENCE_DATATYPES.get(snak.property_id)
        if datatype is None:
            raise ValueFormError(f"{snak.property_id} is not a property refbot proposes in references")
        result.setdefault(snak.property_id, []).append(
            {"snaktype": "value", "property": snak.property_id, "datatype": datatype,
             "datavalue": datavalue(datatype, snak.value, snak.text)})
    return result, list(result)


def snak_disagreement(snak: Snak) -> str:
    """Why a reference snak's text, which the review page shows, and its value, which `refbot apply` writes, do not
    say the same ("" when they do). refbot writes both from one value; they differ only in a trace changed since.
    An item's text is its label, which only a language's (P407: its name, or its code in traces before names) can be
    checked against offline."""
    known = REFERENCE_DATATYPES.get(snak.property_id)
    datatype = snak.datatype or known
    if datatype is None:
        return "refbot proposes no such property in references"
    if known is not None and snak.datatype and snak.datatype != known:
        return f"its datatype {snak.datatype} is not {snak.property_id}'s ({known})"
    if datatype in ("url", "string", "external-id"):
        expected = quoted(snak.text)
    elif datatype == "monolingualtext":
        language = _MONOLINGUAL.match(snak.value)
        expected = f"{language.group(1)}:{quoted(snak.text)}" if language else f'LANGUAGE:{quoted(snak.text)}'
    elif datatype == "time":
        expected = f"+{snak.text}T00:00:00Z/11"
    elif datatype == "wikibase-item":
        if not _ITEM.match(snak.value):
            return f"its value {snak.value} is not an item"
        expected = (_LANGUAGE_BY_TEXT.get(snak.text) if snak.property_id == "P407" else None) or snak.value
    else:
        return f"refbot does not write {datatype} values"
    if snak.value not in (expected, _as_once_quoted(expected)):
        return f"it shows “{snak.text}” but its value is {snak.value} (“{snak.text}” is {expected})"
    return ""


def _as_once_quoted(value: str) -> str:
    """A quoted value as traces written before quotations were verbatim have it: its inner straight quotes made ”
    (the text, which apply writes, kept them)."""
    head, quote, rest = value.partition('"')
    if not quote or not rest.endswith('"'):
        return value
    return f'{head}"{rest[:-1].replace(chr(34), "”")}"'


def _decimal(text: Any) -> Decimal:
    try:
        return Decimal(str(text))
    except InvalidOperation:
        raise ValueFormError(f"not a number: {text!r}") from None


def _key(datatype: str, value: Any) -> tuple[Any, ...]:
    """A comparable key of a Wikibase JSON datavalue's ``value``."""
    if isinstance(value, dict) and "entity-type" in value:
        return ("entity", value.get("id") or f"{'Q' if value['entity-type'] == 'item' else 'P'}{value['numeric-id']}")
    if datatype == "time":
        match = _TIME.match(value["time"])
        if not match:
            raise ValueFormError(f"not a time: {value['time']!r}")
        sign, year, month, day = match.groups()[:4]
        precision = int(value.get("precision", 11))
        return ("time", int(sign + year), int(month) if precision >= 10 else 0, int(day) if precision >= 11 else 0,
                precision, value.get("calendarmodel") == JULIAN)
    if datatype == "quantity":
        unit = value.get("unit", "1")
        bounds = [_decimal(value[name]) if value.get(name) is not None else None
                  for name in ("lowerBound", "upperBound")]
        return ("quantity", _decimal(value["amount"]), *bounds, "" if unit == "1" else unit.rsplit("/", 1)[-1])
    if datatype == "globe-coordinate":
        return ("point", round(float(value["latitude"]), 6), round(float(value["longitude"]), 6))
    if datatype == "monolingualtext":
        return ("text", value["language"], value["text"])
    return ("string", str(value).replace("_", " "))


def _raw_key(datatype: str, raw: str) -> tuple[Any, ...]:
    """The key of a value in QuickStatements form, as the trace records it."""
    if datatype.startswith("wikibase-") or datatype == "entity-schema":
        return ("entity", raw)
    if datatype == "time":
        return _key("time", _time(raw))
    if datatype == "quantity":
        match = _QUANTITY.match(raw)
        if not match:
            raise ValueFormError(f"not a quantity: {raw!r}")
        amount_text, spread, lower, upper, unit = match.groups()
        amount = _decimal(amount_text)
        low, high = (amount - _decimal(spread), amount + _decimal(spread)) if spread else \
            (_decimal(lower) if lower else None, _decimal(upper) if upper else None)
        return ("quantity", amount, low, high, f"Q{unit}" if unit else "")
    if datatype == "globe-coordinate":
        match = re.match(r"^@([-+0-9.eE]+)/([-+0-9.eE]+)$", raw)
        if not match:
            raise ValueFormError(f"not a coordinate: {raw!r}")
        return ("point", round(float(match.group(1)), 6), round(float(match.group(2)), 6))
    if datatype == "monolingualtext":
        match = _MONOLINGUAL.match(raw)
        if not match:
            raise ValueFormError(f"not a monolingual text: {raw!r}")
        return ("text", match.group(1), match.group(2).replace('\\"', '"'))
    return ("string", _unquote(raw).replace("_", " "))


def same_value(datatype: str, raw: str, mainsnak: dict[str, Any]) -> bool:
    """Whether a statement's main snak (Wikibase JSON) still holds the value the trace recorded. ValueFormError
    when either cannot be read (the caller does not write then)."""
    if mainsnak.get("snaktype") != "value" or "datavalue" not in mainsnak:
        return False
    return _key(datatype, mainsnak["datavalue"]["value"]) == _raw_key(datatype, raw)


def value_text(datatype: str, mainsnak: dict[str, Any]) -> str:
    """A short text of a main snak's value for a reason ("the value is now Q5")."""
    if mainsnak.get("snaktype") != "value":
        return f"{mainsnak.get('snaktype')} (no value given)"
    try:
        key = _key(datatype, mainsnak.get("datavalue", {}).get("value"))
    except (ValueFormError, KeyError, TypeError, AttributeError):
        return str(mainsnak.get("datavalue", {}).get("value"))[:80]
    return " ".join(str(part) for part in key[1:] if part not in (None, ""))[:80]


def normal_url(url: str) -> str:
    """A URL as people mean it: ``HTTPS://www.Example.org:443/a/#top`` → ``example.org/a``. The scheme, the host's
    case, ``www.``, a default port, a trailing slash and a plain fragment do not matter; the query and a routing
    fragment (``#/person/1``, ``#!/a``) do."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url.strip()
    host = (parts.hostname or "").lower().removeprefix("www.")
    if port is not None and port not in (80, 443):
        host += f":{port}"
    path = re.sub(r"/+$", "", parts.path or "")
    query = "&".join(sorted(part for part in parts.query.split("&") if part))
    fragment = parts.fragment if parts.fragment.startswith(("/", "!")) else ""
    return host + path + (f"?{query}" if query else "") + (f"#{fragment}" if fragment else "")


def same_url(one: str, other: str) -> bool:
    return normal_url(one) == normal_url(other)


def reference_urls(statement: dict[str, Any]) -> list[str]:
    """The reference URLs (P854) and archive URLs (P1065) of a statement's references (Wikibase JSON)."""
    urls = []
    for reference in statement.get("references") or []:
        for property_id in ("P854", "P1065"):
            for snak in (reference.get("snaks") or {}).get(property_id) or []:
                value = (snak.get("datavalue") or {}).get("value")
                if isinstance(value, str):
                    urls.append(value)
    return urls


def reference_values(statement: dict[str, Any], property_id: str) -> list[str]:
    """The string values of ``property_id`` in a statement's references (Wikibase JSON): an identifier a reference
    already cites."""
    values = []
    for reference in statement.get("references") or []:
        for snak in (reference.get("snaks") or {}).get(property_id) or []:
            value = (snak.get("datavalue") or {}).get("value")
            if isinstance(value, str):
                values.append(value)
    return values
