"""Selecting the statements that need a reference, with portable SPARQL from ``queries/``.

Everything here takes the endpoint as a parameter; ``bot.wiring`` builds it from the options.
"""

from __future__ import annotations

from bot.options import Options
from bot.selection.unsourced import SelectionRules

# Names for the public endpoints; any other value of sparql_endpoint is a URL.
ENDPOINTS = {
    "wdqs": "https://query.wikidata.org/sparql",
    "scholarly": "https://query-scholarly.wikidata.org/sparql",
    "qlever": "https://qlever.cs.uni-freiburg.de/api/wikidata",
}


def endpoint_url(name_or_url: str) -> str:
    return ENDPOINTS.get(name_or_url, name_or_url)


def selection_rules(options: Options) -> SelectionRules:
    return SelectionRules(options.languages, options.ignored_reference_properties)
