"""Does a record's fact state the statement's value, another value, or something not comparable? And which facts
are the candidates (GPT-LODS's cascade)? Pure: the reverse lookup of a record's URIs and the embedding model are
parameters.

Values compare by datatype:

- a **time** at the precision both give: the same day, month or year is ``same`` when the record is at least as
  precise as the statement, ``coarser`` when it is less precise (1968 for 11 February 1968 supports the year
  only); another date is ``other``. A Julian-calendar statement's day is not compared (records write Gregorian).
- a **quantity** within the statement's bounds (or equal, when it has none) is ``same``; another number ``other``.
- an **item** through the record's own URI for it, mapped back to Wikidata items by the identifier it carries
  (the reverse lookup), or a Wikidata URI; a URI that maps to another item is ``other``; a URI that maps to no
  item, and a literal, compare by name (the item's label or an alias, RapidFuzz ≥ 90): ``same`` or ``unrelated``.
- a **string** (an identifier, a URL, a text) as written, case and spacing aside: ``same`` or ``unrelated``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import Enum

from bot.corroboration.facts import Fact
from bot.datamodel import QID_PATTERN, Value
from bot.values.amounts import parse_amount
from bot.values.dates import parse_time

WIKIDATA_ENTITY = re.compile(r"^https?://(?:www\.)?wikidata\.org/(?:entity|wiki)/(Q[1-9][0-9]*)\Z")
NAME_THRESHOLD = 90.0
# A predicate whose label is this close to the property's label or an alias names the property (RapidFuzz).
RELATION_THRESHOLD = 90.0
# The cascade's relation step: a predicate whose label's embedding is this close to the property's.
RELATION_COSINE = 0.75
# What the embedding model sees of a record, however large: at most this many facts (more are ranked by RapidFuzz's
# token-set ratio alone) and relation names (those closest to the property's name by token-set ratio), and each
# verbalisation's first characters (the model reads 256 word pieces).
MAX_EMBEDDED = 64
MAX_TEXT = 300
XSD = "http://www.w3.org/2001/XMLSchema#"
_DATE = re.compile(r"^(-?\d{1,4})(?:-(\d\d)(?:-(\d\d))?)?(?:T[\d:.]+(?:Z|[+-]\d\d:\d\d)?)?\Z")
_DOTTED = re.compile(r"^(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{3,4})\Z")
_NUMBER = re.compile(r"^[+-]?\d+(?:[.,]\d+)?(?:[eE][+-]?\d+)?\Z")

ItemsFor = Callable[[str], Sequence[str]]
Embed = Callable[[list[str]], list[list[float]]]


class Agreement(str, Enum):
    SAME = "same"
    COARSER = "coarser"
    OTHER = "other"
    UNRELATED = "unrelated"


@dataclass(frozen=True)
class Comparison:
    agreement: Agreement
    how: str  # what was compared: "day", "year", "amount", "item Q990208", "name", …


@dataclass(frozen=True)
class Candidate:
    """A fact the cascade put forward: at which step, how close its verbalisation is to the statement's."""

    fact: Fact
    step: str  # "value", "relation" or "subject"
    cosine: float
    comparison: Comparison


def record_time(fact: Fact) -> tuple[int, int, int, int] | None:
    """(year, month, day, precision) of a literal written as a date: xsd:date, dateTime, gYear, gYearMonth or a
    plain ``1968-02-11``, ``1968-02``, ``1968``, ``11.02.1968``."""
    if fact.is_uri:
        return None
    text = fact.object.strip()
    match = _DATE.match(text)
    if match and (fact.datatype.startswith(XSD) or not fact.datatype):
        year, month, day = int(match.group(1)), int(match.group(2) or 0), int(match.group(3) or 0)
        if not (0 <= month <= 12 and 0 <= day <= 31) or (len(match.group(1).lstrip("-")) < 3 and not month):
            return None
        return year, month, day, 11 if day else (10 if month else 9)
    match = _DOTTED.match(text)
    if match:
        return int(match.group(3)), int(match.group(2)), int(match.group(1)), 11
    return None


def compare_time(value: Value, fact: Fact) -> Comparison:
    stated = parse_time(value.raw, value.text)
    found = record_time(fact)
    if stated is None or found is None:
        return Comparison(Agreement.UNRELATED, "not a date")
    year, month, day, precision = found
    common = min(stated.precision, precision)
    if value.raw.endswith("/J") and common == 11:
        common = 10 if stated.month and month else 9  # a Julian day is not a Gregorian one
    if common <= 9:
        step = {9: 1, 8: 10, 7: 100, 6: 1000}.get(common, 1000)
        same = _period(stated.year, step) == _period(year, step)
        how = {9: "year", 8: "decade", 7: "century"}.get(common, "millennium")
    elif common == 10:
        same, how = (stated.year, stated.month) == (year, month), "month"
    else:
        same, how = (stated.year, stated.month, stated.day) == (year, month, day), "day"
    if not same:
        return Comparison(Agreement.OTHER, how)
    return Comparison(Agreement.SAME if precision >= stated.precision else Agreement.COARSER, how)


def _period(year: int, step: int) -> int:
    # Wikidata's decades and centuries: 1960s is 1960–1969; the 20th century 1901–2000.
    return (year - 1) // step if step >= 100 else year // step


def compare_amount(value: Value, fact: Fact) -> Comparison:
    amount = parse_amount(value.raw, value.text)
    text = fact.object.strip().replace(",", ".") if not fact.is_uri else ""
    if amount is None or not _NUMBER.match(text):
        return Comparison(Agreement.UNRELATED, "not a number")
    try:
        number = Decimal(text)
    except InvalidOperation:
        return Comparison(Agreement.UNRELATED, "not a number")
    lower = amount.lower if amount.lower is not None else amount.value
    upper = amount.upper if amount.upper is not None else amount.value
    return Comparison(Agreement.SAME if lower <= number <= upper else Agreement.OTHER, "amount")


def compare_item(value: Value, fact: Fact, items_for: ItemsFor) -> Comparison:
    if fact.is_uri:
        direct = WIKIDATA_ENTITY.match(fact.object)
        items = [direct.group(1)] if direct else list(items_for(fact.object))
        if value.raw in items:
            return Comparison(Agreement.SAME, f"item {value.raw}")
        if items:
            return Comparison(Agreement.OTHER, "item " + ", ".join(items[:3]))
    return compare_name(value, fact)


def compare_name(value: Value, fact: Fact) -> Comparison:
    """The whole name, or the name before a qualifier ("Brno (Czech Republic)", "Brno, Moravia")."""
    names = [name for name in (value.text, *value.aliases) if name and not QID_PATTERN.match(name)]
    written = {fact.object_text, re.split(r"\s*[(,;]", fact.object_text, maxsplit=1)[0]}
    best = max((_ratio(name, text) for name in names for text in written if text), default=0.0)
    return Comparison(Agreement.SAME if best >= NAME_THRESHOLD else Agreement.UNRELATED, "name")


def compare_string(value: Value, fact: Fact) -> Comparison:
    stated = value.text if value.datatype == "monolingualtext" else value.raw.strip('"')
    same = " ".join(stated.split()).casefold() == " ".join(fact.object_text.split()).casefold()
    return Comparison(Agreement.SAME if same else Agreement.UNRELATED, "text")


def compare(value: Value, fact: Fact, items_for: ItemsFor) -> Comparison:
    if value.datatype == "time":
        return compare_time(value, fact)
    if value.datatype == "quantity":
        return compare_amount(value, fact)
    if value.datatype == "wikibase-item":
        return compare_item(value, fact, items_for)
    if value.datatype in ("string", "external-id", "url", "monolingualtext"):
        return compare_string(value, fact)
    return Comparison(Agreement.UNRELATED, f"{value.datatype} values are not compared")


def contradicts(datatype: str) -> bool:
    """Whether another value of the same relation denies the statement: for dates and amounts. A record listing
    other occupations or awards does not deny this one, nor does another spelling of a name."""
    return datatype in ("time", "quantity")


def _ratio(left: str, right: str) -> float:
    from rapidfuzz import fuzz, utils

    return float(fuzz.ratio(left, right, processor=utils.default_process))


def names_relation(fact: Fact, names: Sequence[str], equivalents: Sequence[str]) -> str:
    """``equivalent`` when the predicate is one Wikidata declares equivalent to the property (P1628), ``label``
    when its label is the property's label or an alias (RapidFuzz ≥ 90), else ""."""
    if _same_uri(fact.predicate, equivalents):
        return "equivalent"
    if any(_ratio(fact.relation, name) >= RELATION_THRESHOLD for name in names if name):
        return "label"
    return ""


def _same_uri(uri: str, others: Sequence[str]) -> bool:
    bare = re.sub(r"^https?://", "", uri).rstrip("/")
    return any(re.sub(r"^https?://", "", other).rstrip("/") == bare for other in others)


def cascade(facts: Sequence[Fact], value: Value, claim_text: str, subject: str, names: Sequence[str],
            equivalents: Sequence[str], items_for: ItemsFor, *, embed: Embed | None = None,
            top: int = 5) -> tuple[str, list[Candidate]]:
    """GPT-LODS's order: the facts whose object is the statement's value; else those whose relation is the
    statement's (declared equivalent, the same label, or a label whose embedding is close); else every fact of
    the subject. The step's facts ranked by the cosine of their verbalisation to ``claim_text`` (RapidFuzz's
    token-set ratio without an embedding model, or for more than ``MAX_EMBEDDED`` facts), the best ``top`` kept.
    Returns the step and its candidates."""
    compared = [(fact, compare(value, fact, items_for)) for fact in facts]
    step, chosen = "value", [(f, c) for f, c in compared if c.agreement in (Agreement.SAME, Agreement.COARSER)]
    if not chosen:
        related = _related(compared, names, equivalents, embed)
        step, chosen = ("relation", related) if related else ("subject", compared)
    if not chosen:
        return "subject", []
    texts = [fact.verbalised(subject)[:MAX_TEXT] for fact, _ in chosen]
    if embed is not None and len(texts) <= MAX_EMBEDDED:
        vectors = embed([claim_text, *texts])
        scores = [_cosine(vectors[0], vector) for vector in vectors[1:]]
    else:
        scores = [_token_set(claim_text, text) for text in texts]
    ranked = sorted(zip(chosen, scores), key=lambda pair: (-pair[1], pair[0][0].relation, pair[0][0].object))
    return step, [Candidate(fact, step, round(score, 4), comparison) for (fact, comparison), score in ranked[:top]]


def _related(compared: list[tuple[Fact, Comparison]], names: Sequence[str], equivalents: Sequence[str],
             embed: Embed | None) -> list[tuple[Fact, Comparison]]:
    related = [(f, c) for f, c in compared if names_relation(f, names, equivalents)]
    if related or embed is None or not names or not compared:
        return related
    relations = sorted({fact.relation[:MAX_TEXT] for fact, _ in compared})
    relations = [relations[index] for index in _closest(names[0], relations, MAX_EMBEDDED)]
    vectors = embed([names[0], *relations])
    close = {relation for relation, vector in zip(relations, vectors[1:]) if _cosine(vectors[0], vector)
             >= RELATION_COSINE}
    return [(f, c) for f, c in compared if f.relation[:MAX_TEXT] in close]


def _closest(query: str, texts: Sequence[str], limit: int) -> list[int]:
    """The indexes of the ``limit`` texts closest to ``query`` by token-set ratio, in their order; all of them when
    there are no more."""
    if len(texts) <= limit:
        return list(range(len(texts)))
    from rapidfuzz import fuzz, process, utils

    best = process.extract(query, texts, scorer=fuzz.token_set_ratio, processor=utils.default_process, limit=limit)
    return sorted(index for _, _, index in best)


def _cosine(left: Sequence[float], right: Sequence[float]) -> float:
    return float(sum(a * b for a, b in zip(left, right)))  # the vectors are L2-normalised


def _token_set(left: str, right: str) -> float:
    from rapidfuzz import fuzz, utils

    return float(fuzz.token_set_ratio(left, right, processor=utils.default_process)) / 100.0
