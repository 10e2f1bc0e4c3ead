"""Corroboration from linked knowledge graphs: an item's authority records (GND, BnF, VIAF, … — any identifier
whose property has a formatter URI for RDF resource, P1921) read as RDF and weighed against a statement, before any
web search (GPT-LODS's cascade, FactGenius's validated relation picks).

Modules: ``identifiers`` (the properties and an item's identifiers, from the endpoint), ``records`` (fetching and
parsing a record), ``facts`` (its subject's triples, verbalised), ``matching`` (values compared by datatype, the
cascade), ``picking`` (the model's relation picks, validated), ``stage`` (one statement). ``make_corroborator``
wires them from the options.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bot.corroboration.stage import Corroboration, Corroborator, Finding, RecordCheck

if TYPE_CHECKING:
    from bot.corroboration.stage import Embed
    from bot.documents.fetching import Fetcher
    from bot.judge.backend import Backend
    from bot.options import Options
    from bot.selection.endpoint import SparqlEndpoint


def make_corroborator(options: Options, endpoint: SparqlEndpoint, fetcher: Fetcher, *,
                      backend: Backend | None = None, embed: Embed | None = None) -> Corroborator:
    from bot.corroboration.identifiers import IdentifierCache
    from bot.redaction import redact_url
    from bot.selection import endpoint_url

    cache = IdentifierCache(Path(options.properties_cache), options.properties_cache_days) \
        if options.properties_cache_days > 0 else None
    return Corroborator(endpoint, fetcher, backend=backend, embed=embed, languages=options.languages, cache=cache,
                        endpoint_name=redact_url(endpoint_url(options.sparql_endpoint), service=True),
                        top=options.check_kg_top, max_records=options.check_kg_records)


__all__ = ["Corroboration", "Corroborator", "Finding", "RecordCheck", "make_corroborator"]
