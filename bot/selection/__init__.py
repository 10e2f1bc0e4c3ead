"""Selecting the statements that need a reference, with portable SPARQL from ``queries/``.

``make_endpoint(options)`` wires the polite client from the options; everything else takes the endpoint as
a parameter.
"""

from __future__ import annotations

from bot.etiquette import require_contact, user_agent
from bot.options import Options
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.unsourced import SelectionRules

# Names for the public endpoints; any other value of sparql_endpoint is a URL.
ENDPOINTS = {
    "wdqs": "https://query.wikidata.org/sparql",
    "scholarly": "https://query-scholarly.wikidata.org/sparql",
    "qlever": "https://qlever.cs.uni-freiburg.de/api/wikidata",
}


def endpoint_url(name_or_url: str) -> str:
    return ENDPOINTS.get(name_or_url, name_or_url)


def make_endpoint(options: Options) -> SparqlEndpoint:
    import SPARQLWrapper

    from bot.errors import ConfigError

    url = endpoint_url(options.sparql_endpoint)
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"sparql endpoint {options.sparql_endpoint!r} is neither a URL nor one of "
                          f"{', '.join(ENDPOINTS)}", hint="set --endpoint or [sparql] endpoint")
    require_contact(url, options.contact, "the SPARQL endpoint")
    return SparqlEndpoint(url, user_agent(options.contact, f"SPARQLWrapper/{SPARQLWrapper.__version__}"),
                          timeout=options.sparql_timeout, retries=options.sparql_retries,
                          backoff=options.sparql_backoff, max_wait=options.sparql_max_wait,
                          post_above=options.sparql_post_above)


def selection_rules(options: Options) -> SelectionRules:
    return SelectionRules(options.languages, options.ignored_reference_properties)
