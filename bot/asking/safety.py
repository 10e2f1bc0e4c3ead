"""Whether a query a model wrote may be sent to an endpoint, and the exact text that is sent. Pure.

A candidate is sent only when it parses as SPARQL 1.1 (rdflib's parser, not a pattern of ours), is a ``SELECT``
that projects ``?item``, calls no ``SERVICE``, reads no other graph (``FROM``, ``FROM NAMED``), names only Wikidata
ids that are known to exist (the linked terms, or those the endpoint confirmed), and ends with a ``LIMIT`` no larger
than the cap (one is added, or lowered). An update (``INSERT``, ``DELETE``, ``LOAD``, ``CLEAR``, ``DROP`` …) is not
a query and does not parse as one. The standard Wikidata prefixes are declared for the model's convenience, as the
Wikidata Query Service predeclares them; any other prefix must be declared in the query.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from bot.selection.binding import without_comments

ENTITY = "http://www.wikidata.org/entity/"
PREFIXES = {
    "wd": ENTITY, "wdt": "http://www.wikidata.org/prop/direct/", "p": "http://www.wikidata.org/prop/",
    "ps": "http://www.wikidata.org/prop/statement/", "pq": "http://www.wikidata.org/prop/qualifier/",
    "pr": "http://www.wikidata.org/prop/reference/", "psv": "http://www.wikidata.org/prop/statement/value/",
    "pqv": "http://www.wikidata.org/prop/qualifier/value/", "wikibase": "http://wikiba.se/ontology#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "schema": "http://schema.org/", "skos": "http://www.w3.org/2004/02/skos/core#",
    "prov": "http://www.w3.org/ns/prov#", "xsd": "http://www.w3.org/2001/XMLSchema#",
}
# The namespaces whose local names are Wikidata ids (longest first: prop/statement/value/ before prop/).
ID_NAMESPACES = sorted((iri for name, iri in PREFIXES.items() if iri.startswith("http://www.wikidata.org/")),
                       key=len, reverse=True)
ID = re.compile(r"[QP][1-9][0-9]{0,11}")
MAX_LENGTH = 20_000  # characters: a model's query is a few hundred


class QueryRefused(Exception):
    """Why a candidate is not sent (a sentence for the model, when it is asked to repair it, and for --explain)."""


@dataclass(frozen=True)
class Checked:
    text: str  # what is sent: the standard prefixes the query did not declare, then the query with its LIMIT
    ids: tuple[str, ...]  # the Wikidata ids it names, sorted
    limit: int


def prologue(text: str) -> str:
    """The standard prefix declarations ``text`` needs and does not make itself."""
    declared = {match.group(1) for match in re.finditer(r"\bPREFIX\s+([A-Za-z][\w.-]*)?:", without_comments(text),
                                                        re.IGNORECASE)}
    bare = re.sub(r'<[^<>\s]*>|"[^"\n]*"|\'[^\'\n]*\'', " ", without_comments(text))  # no IRIs, no strings
    used = {match.group(1) for match in re.finditer(r"(?<![\w:?$])([A-Za-z][\w-]*):", bare)}
    return "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in PREFIXES.items()
                   if name in used and name not in declared)


def check(text: str, *, limit: int, known: Iterable[str] = ()) -> Checked:
    """The query to send for ``text``, or QueryRefused. ``known``: the ids that exist; every other id is refused
    (see :func:`ids` to ask the endpoint about them first)."""
    from pyparsing import ParseException
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    if len(text) > MAX_LENGTH:
        raise QueryRefused(f"the query is {len(text):,} characters long; at most {MAX_LENGTH:,} are taken")
    declarations = prologue(text)
    text = declarations + text.strip()
    try:
        parsed = parseQuery(text)
    except ParseException as error:
        update = re.match(r"\s*(INSERT|DELETE|LOAD|CLEAR|DROP|CREATE|ADD|MOVE|COPY|WITH)\b",
                          _body(without_comments(text)), re.IGNORECASE)
        if update:
            raise QueryRefused(f"{update.group(1).upper()} changes data: only SELECT queries are run") from None
        raise QueryRefused(f"not valid SPARQL: {_parse_message(error, declarations.count(chr(10)))}") from None
    except Exception as error:  # noqa: BLE001 (rdflib raises others for bad prefixes and IRIs)
        raise QueryRefused(f"not valid SPARQL: {error}") from None
    query = parsed[1]
    if query.name != "SelectQuery":
        kind = query.name.removesuffix("Query").upper()
        raise QueryRefused(f"{kind} queries are not run: only SELECT queries that list ?item")
    # (rdflib's CompValue.get answers a missing key with the key's name: ask with ``in``)
    if "projection" not in query:  # SELECT *
        raise QueryRefused("SELECT * : the query must name ?item in its SELECT clause")
    names = {str(part["var"] if "var" in part else part["evar"] if "evar" in part else "")
             for part in query["projection"]}
    if "item" not in names:
        raise QueryRefused("the query does not SELECT ?item (the items of the worklist)")
    if "datasetClause" in query:
        raise QueryRefused("FROM / FROM NAMED: the query may read the endpoint's default graph only")
    if any(node == "ServiceGraphPattern" for node in _names(query)):
        raise QueryRefused("SERVICE: the query may not call other services (labels are looked up by refbot)")
    given = query["limitoffset"]["limit"] if "limitoffset" in query and "limit" in query["limitoffset"] else None
    try:
        named = _ids(translateQuery(parsed).algebra)
    except Exception as error:  # noqa: BLE001 (an undeclared prefix, an IRI rdflib cannot resolve)
        raise QueryRefused(f"not valid SPARQL: {error}") from None
    allowed = set(known)
    unknown = [found for found in named if found not in allowed]
    if unknown:
        raise QueryRefused(f"unknown Wikidata id(s) {', '.join(unknown)}: only linked or existing ids may appear")
    if given is None:
        text = f"{text}\nLIMIT {limit}"
    elif int(given) > limit:
        text, count = re.subn(r"(\bLIMIT\s+)(\d+)(\s*(?:OFFSET\s+\d+\s*)?)$", rf"\g<1>{limit}\g<3>", text.rstrip(),
                              flags=re.IGNORECASE)
        if count != 1:
            raise QueryRefused(f"LIMIT {given} is above {limit} and could not be lowered: put LIMIT at the end")
    sent = parseQuery(text)[1]
    final = int(sent["limitoffset"]["limit"]) if "limitoffset" in sent and "limit" in sent["limitoffset"] else None
    if final is None or final > limit:  # never sent unless the cap holds on what is sent
        raise QueryRefused(f"the query's LIMIT could not be set to {limit}")
    return Checked(text, tuple(named), final)


def ids(text: str) -> list[str]:
    """The Wikidata ids a query names (after the standard prefixes); [] when it does not parse."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        return _ids(translateQuery(parseQuery(prologue(text) + text)).algebra)
    except Exception:  # noqa: BLE001 (check() says why)
        return []


def _body(text: str) -> str:
    """The text after the PREFIX and BASE declarations."""
    return re.sub(r"^\s*((PREFIX\s+[\w.-]*:\s*<[^>]*>|BASE\s+<[^>]*>)\s*)*", "", text, flags=re.IGNORECASE)


def _parse_message(error: Any, added_lines: int) -> str:
    """The parser's message, its line counted in the model's text (without the prefixes added before it)."""
    line = getattr(error, "lineno", None)
    where = f"line {line - added_lines}, column {getattr(error, 'col', '?')}" if isinstance(line, int) else "?"
    return f"{getattr(error, 'msg', error)} ({where})"


def _walk(node: Any) -> Iterator[Any]:
    """Every value in a parsed query (rdflib's CompValue are dicts; pyparsing's results are lists)."""
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, (list, tuple)) or type(node).__name__ == "ParseResults":
        for value in node:
            yield from _walk(value)


def _names(query: Any) -> Iterator[str]:
    for node in _walk(query):
        name = getattr(node, "name", None)
        if isinstance(name, str):
            yield name


def _ids(algebra: Any) -> list[str]:
    """The Wikidata ids among the IRIs of a query's algebra (prefixed names resolved), sorted."""
    from rdflib.term import URIRef

    found = set()
    for node in _walk(algebra):
        if isinstance(node, URIRef):
            iri = str(node)
            for namespace in ID_NAMESPACES:
                if iri.startswith(namespace) and ID.fullmatch(iri[len(namespace):]):
                    found.add(iri[len(namespace):])
                    break
    return sorted(found, key=lambda i: (i[0], int(i[1:])))


def statement_properties(text: str) -> list[str]:
    """The properties whose statement nodes a query reaches (``p:P166``), in id order; [] when it does not parse."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery
    from rdflib.term import URIRef

    try:
        algebra = translateQuery(parseQuery(prologue(text) + text)).algebra
    except Exception:  # noqa: BLE001 (check() says why)
        return []
    namespace = PREFIXES["p"]
    found = {str(node)[len(namespace):] for node in _walk(algebra)
             if isinstance(node, URIRef) and str(node).startswith(namespace)}
    return sorted((pid for pid in found if re.fullmatch(r"P[1-9][0-9]{0,11}", pid)), key=lambda pid: int(pid[1:]))
