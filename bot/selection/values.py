"""Statement values rendered twice: as a page would state them (for the judge and for people) and as
QuickStatements writes them. Pure: takes the SPARQL row and the entity terms already looked up.

Values come from Wikidata's RDF, which converts Julian-calendar dates to Gregorian and, for year precision
and finer, writes BCE years as XSD 1.1 does (year 0 is 1 BCE, -0043 is 44 BCE); both are undone here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from urllib.parse import unquote

from bot.datamodel import PID_PATTERN, QID_PATTERN, Value
from bot.selection.binding import ENTITY_PREFIX, entity_id
from bot.selection.endpoint import Row
from bot.selection.terms import Terms

WIKIBASE = "http://wikiba.se/ontology#"
DATATYPES = {
    "WikibaseItem": "wikibase-item", "WikibaseProperty": "wikibase-property", "WikibaseLexeme": "wikibase-lexeme",
    "WikibaseForm": "wikibase-form", "WikibaseSense": "wikibase-sense", "EntitySchema": "entity-schema",
    "String": "string", "ExternalId": "external-id", "Url": "url", "CommonsMedia": "commonsMedia",
    "Time": "time", "Quantity": "quantity", "GlobeCoordinate": "globe-coordinate",
    "Monolingualtext": "monolingualtext", "Math": "math", "MusicalNotation": "musical-notation",
    "GeoShape": "geo-shape", "TabularData": "tabular-data",
}
GENID_PREFIX = "http://www.wikidata.org/.well-known/genid/"
JULIAN = ENTITY_PREFIX + "Q1985786"
EARTH = ENTITY_PREFIX + "Q2"
UNITLESS = ENTITY_PREFIX + "Q199"
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
UNKNOWN_VALUE = "unknown value (somevalue): there is nothing a document could be checked against"
NO_VALUE = "no value (novalue): the statement says the property has no value"


class ValueSkipped(Exception):
    """The statement's value cannot be looked for in a document; the message is the reason recorded."""


def datatype_of(property_type: str) -> str:
    """``http://wikiba.se/ontology#WikibaseItem`` → ``wikibase-item`` (Wikidata's JSON names)."""
    name = property_type[len(WIKIBASE):] if property_type.startswith(WIKIBASE) else property_type
    return DATATYPES.get(name, name)


def entities_to_label(row: Row) -> set[str]:
    """The item, property, item value, unit and non-Earth globe of a row: what needs a label."""
    wanted = {entity_id(row[name].value) for name in ("item", "property") if name in row}
    for name in ("value", "unit", "globe"):
        term = row.get(name)
        if term and term.kind == "uri" and term.value.startswith(ENTITY_PREFIX) \
                and term.value not in (UNITLESS, EARTH):
            wanted.add(entity_id(term.value))
    # Lexemes, forms, senses and entity schemas have no rdfs:label to look up; they are shown by their id.
    return {entity for entity in wanted if QID_PATTERN.match(entity) or PID_PATTERN.match(entity)}


def render_value(row: Row, datatype: str, terms: Mapping[str, Terms]) -> Value:
    value = row.get("value")
    if value is None:
        raise ValueSkipped(NO_VALUE)
    if value.kind == "bnode" or value.value.startswith(GENID_PREFIX):
        raise ValueSkipped(UNKNOWN_VALUE)
    if datatype.startswith("wikibase-") or datatype == "entity-schema":
        entity = entity_id(value.value)
        found = terms.get(entity)
        return Value(datatype, entity, found.label if found else entity, found.aliases if found else ())
    if datatype == "time":
        text, raw = render_time(value.value, _int(row.get("timePrecision"), 11), _text(row.get("timeCalendar")))
        return Value(datatype, raw, text)
    if datatype == "quantity":
        return _quantity(row, terms)
    if datatype == "globe-coordinate":
        return _coordinates(row, terms)
    if datatype == "monolingualtext":
        return Value(datatype, f"{value.lang}:{_quoted(value.value)}", value.value)
    if datatype == "commonsMedia":
        name = unquote(value.value.rsplit("Special:FilePath/", 1)[-1])
        return Value(datatype, _quoted(name), name)
    if datatype in ("geo-shape", "tabular-data"):
        name = unquote(value.value.rsplit("/data/main/", 1)[-1])
        return Value(datatype, _quoted(name), name)
    return Value(datatype, _quoted(value.value), value.value)


def _text(term) -> str:
    return term.value if term else ""


def _int(term, default: int) -> int:
    try:
        return int(term.value) if term else default
    except ValueError:
        return default


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _gregorian_to_julian(year: int, month: int, day: int) -> tuple[int, int, int]:
    """Via the Julian day number (astronomical years); the standard integer algorithms."""
    a = (14 - month) // 12
    y, m = year + 4800 - a, month + 12 * a - 3
    jdn = day + (153 * m + 2) // 5 + 365 * y + y // 4 - y // 100 + y // 400 - 32045
    c = jdn + 32082
    d = (4 * c + 3) // 1461
    e = c - 1461 * d // 4
    m = (5 * e + 2) // 153
    return d - 4800 + m // 10, m + 3 - 12 * (m // 10), e - (153 * m + 2) // 5 + 1


def render_time(value: str, precision: int, calendar: str = "") -> tuple[str, str]:
    """An RDF xsd:dateTime with a Wikibase precision → (``October 1936``, ``+1936-10-00T00:00:00Z/10``)."""
    match = re.match(r"^([+-]?)(\d+)-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)", value)
    if not match:
        return value, _quoted(value)
    sign, digits, month_s, day_s, hh, mi, ss = match.groups()
    year = -int(digits) if sign == "-" else int(digits)
    month, day = int(month_s), int(day_s)
    julian = calendar == JULIAN
    if julian and precision >= 11:
        year, month, day = _gregorian_to_julian(year, month, day)
    # Wikibase has no year 0 (-1 is 1 BCE); its RDF shifts BCE years by one only at year precision and finer.
    historical = year - 1 if year <= 0 and precision >= 9 else year
    era, number = (" BCE", -historical) if historical < 0 else ("", historical)
    shown_month = f"{month:02d}" if precision >= 10 else "00"
    shown_day = f"{day:02d}" if precision >= 11 else "00"
    clock = f"{hh}:{mi}:{ss}" if precision > 11 else "00:00:00"
    raw = f"{'-' if historical < 0 else '+'}{number:04d}-{shown_month}-{shown_day}T{clock}Z/{precision}"
    raw += "/J" if julian else ""
    month_name = MONTHS[month - 1] if 1 <= month <= 12 else ""
    if precision >= 11:
        text = f"{day} {month_name} {number}{era}" if era else f"{number:04d}-{month:02d}-{day:02d}"
    elif precision == 10:
        text = f"{month_name} {number}{era}"
    elif precision == 9:
        text = f"{number}{era}"
    elif precision == 8:
        text = f"{number // 10 * 10}s{era}"
    elif precision == 7:
        text = f"{_ordinal((number - 1) // 100 + 1)} century{era}"
    elif precision == 6:
        text = f"{_ordinal((number - 1) // 1000 + 1)} millennium{era}"
    else:
        unit = 10 ** (9 - precision) if 0 <= precision <= 5 else 1
        text = f"around {round(number / unit) * unit:,}{era or ' CE'}"
    if julian and precision >= 10:
        text += " (Julian calendar)"
    return text, raw


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except (InvalidOperation, TypeError):
        return None


def _plain(number: Decimal) -> str:
    return format(number.normalize() if number == number.to_integral() else number, "f")


def _quantity(row: Row, terms: Mapping[str, Terms]) -> Value:
    amount = _number(_text(row.get("amount")) or row["value"].value)
    if amount is None:
        return Value("quantity", row["value"].value, row["value"].value)
    lower, upper = _number(_text(row.get("lowerBound"))), _number(_text(row.get("upperBound")))
    unit = _text(row.get("unit"))
    unit_label = ""
    if unit and unit != UNITLESS:
        found = terms.get(entity_id(unit))
        unit_label = found.label if found else entity_id(unit)
    text, raw = _plain(amount), _plain(amount)
    if lower is not None and upper is not None:
        if upper - amount == amount - lower:
            text += f"±{_plain(upper - amount)}"
            raw += f"~{_plain(upper - amount)}"
        else:
            text += f" ({_plain(lower)}–{_plain(upper)})"
            raw += f"[{_plain(lower)},{_plain(upper)}]"
    if unit_label:
        text += f" {unit_label}"
        raw += f"U{entity_id(unit)[1:]}"
    return Value("quantity", raw, text)


def _coordinates(row: Row, terms: Mapping[str, Terms]) -> Value:
    latitude, longitude = _number(_text(row.get("latitude"))), _number(_text(row.get("longitude")))
    if latitude is None or longitude is None:
        point = re.search(r"Point\(\s*([-+0-9.eE]+)\s+([-+0-9.eE]+)\s*\)", row["value"].value)
        if not point:
            return Value("globe-coordinate", _quoted(row["value"].value), row["value"].value)
        longitude, latitude = Decimal(point.group(1)), Decimal(point.group(2))
    precision = _number(_text(row.get("geoPrecision")))
    decimals = 4 if not precision or precision <= 0 else max(0, min(8, math.ceil(-math.log10(float(precision)))))
    text = (f"{abs(latitude):.{decimals}f}°{'S' if latitude < 0 else 'N'}, "
            f"{abs(longitude):.{decimals}f}°{'W' if longitude < 0 else 'E'}")
    globe = _text(row.get("globe"))
    if globe and globe != EARTH:
        found = terms.get(entity_id(globe))
        text += f" on {found.label if found else entity_id(globe)}"
    return Value("globe-coordinate", f"@{_plain(latitude)}/{_plain(longitude)}", text)
