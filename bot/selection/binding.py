"""The one place where query text changes: parameters bound into a query file's ``VALUES`` blocks and LIMIT.

A query file is runnable as it is (paste it into the Wikidata Query Service or QLever); each parameter is a
single-variable ``VALUES ?name { … }`` block in it, and a page size is its final ``LIMIT``. Binding replaces
a block's contents with terms built here from validated identifiers and language codes — never from raw
user text — so nothing a user types can change a query's shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bot.assets import query_text
from bot.datamodel import LANGUAGE_PATTERN, PID_PATTERN, QID_PATTERN
from bot.errors import ConfigError, InputError

ENTITY_PREFIX = "http://www.wikidata.org/entity/"

# Each parameter our queries declare, and what may be bound to it.
PARAMETERS = {
    "item": "item", "after": "item", "property": "property", "referenceProperty": "property",
    "entity": "entity", "language": "language", "text": "text", "identifier": "identifier", "domain": "domain",
}
# A name to look up as a label: words, digits and the punctuation names have; never quotes, backslashes, braces.
TEXT_PATTERN = re.compile(r"^[\w .,'’&()/-]{1,120}$")
# An external identifier (GND 4008233-0, ORCID 0000-0002-1825-0097, an ARK ark:/12148/cb11889551x): no quotes,
# backslashes, spaces or braces.
IDENTIFIER_PATTERN = re.compile(r"^[\w.:/+-]{1,200}\Z")
# A web domain (example.org, www.bbc.co.uk, an IDN's Unicode labels): labels of letters, digits and hyphens.
DOMAIN_PATTERN = re.compile(r"^(?=.{1,253}\Z)(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)*[^\W_](?:[\w-]{0,61}[^\W_])?\Z")


@dataclass(frozen=True)
class Query:
    """A query's text and the name errors and traces call it by (a file in queries/ or a user's path)."""

    name: str
    text: str


def load_query(name: str) -> Query:
    return Query(name, query_text(name))


def read_query_file(path: Path) -> Query:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read the query: {error.strerror}", path=str(path)) from None
    except UnicodeDecodeError:
        raise InputError("the query is not UTF-8 text", path=str(path)) from None
    if not re.search(r"\bSELECT\b", without_comments(text), re.IGNORECASE):
        raise InputError("not a SPARQL SELECT query", path=str(path),
                         hint="the query must SELECT an ?item column of Wikidata items")
    return Query(str(path), text)


def _term(kind: str, value: str) -> str:
    if kind == "text":
        if not TEXT_PATTERN.match(value) or value != value.strip():
            raise InputError(f"cannot look up {value!r} as a label", hint="use words, digits, spaces and . , ' - only")
        return f'"{value}"'
    if kind == "identifier":
        if not IDENTIFIER_PATTERN.match(value):
            raise InputError(f"cannot look up {value[:60]!r} as an identifier",
                             hint="identifiers hold letters, digits and . : _ / + - only")
        return f'"{value}"'
    if kind == "domain":
        if not DOMAIN_PATTERN.match(value):
            raise InputError(f"not a web domain: {value[:60]!r}", hint="give a host name such as example.org")
        return f'"{value.lower()}"'
    if kind == "language":
        if not LANGUAGE_PATTERN.match(value):
            raise ConfigError(f"not a language code: {value!r}", hint="use codes such as en, de, pt-br, mul")
        return f'"{value}"'
    patterns = {"item": QID_PATTERN, "property": PID_PATTERN}
    pattern = patterns.get(kind)
    if not (pattern.match(value) if pattern else QID_PATTERN.match(value) or PID_PATTERN.match(value)):
        raise InputError(f"not a Wikidata {kind} id: {value!r}", hint="ids look like Q42 (items) or P166 (properties)")
    return f"<{ENTITY_PREFIX}{value}>"


def without_comments(text: str) -> str:
    # Comments run from '#' to the end of the line, except inside IRIs and strings, which never span lines.
    return re.sub(r'(<[^<>\s]*>|"[^"\n]*")|#[^\n]*', lambda m: m.group(1) or "", text)


def bind(query: Query, *, limit: int | None = None, **values: Iterable[str] | None) -> Query:
    """``bind(load_query("worklist"), property=["P166"], after=None, limit=50)``.

    A parameter given ``None`` keeps the file's default block; an empty list binds no value (no solution
    joins with it).
    """
    text = query.text
    for name, given in values.items():
        if given is None:
            continue
        if name not in PARAMETERS:
            raise ValueError(f"unknown query parameter ?{name}")
        terms = " ".join(_term(PARAMETERS[name], value) for value in given)
        block = re.compile(r"VALUES\s+\?" + name + r"\s*\{[^{}]*\}")
        if len(block.findall(text)) != 1:
            raise ConfigError(f"query {query.name} has no single `VALUES ?{name} {{ … }}` block to bind",
                              hint="see queries/README.md for how parameters are declared")
        text = block.sub(lambda _: f"VALUES ?{name} {{ {terms} }}", text)
    if limit is not None:
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"a LIMIT must be a positive integer, not {limit!r}")
        body = without_comments(text).rstrip()  # a commented-out LIMIT is not the query's
        final = re.search(r"\bLIMIT\s+\d+$", body, re.IGNORECASE)
        if not final:
            raise ConfigError(f"query {query.name} does not end with a LIMIT to set the page size")
        text = body[: final.start()] + f"LIMIT {limit}\n"
    return Query(query.name, text)


def entity_order(entity: str) -> tuple[str, int, str]:
    """Sort key putting ids of one kind in numeric order (Q2 before Q10)."""
    return entity[0], int(entity[1:]) if entity[1:].isdigit() else 0, entity


def entity_id(iri: str) -> str:
    """``http://www.wikidata.org/entity/Q42`` → ``Q42``; anything else is returned unchanged."""
    return iri[len(ENTITY_PREFIX):] if iri.startswith(ENTITY_PREFIX) else iri
