"""Checking statements end to end. Modules: ``records`` (what a check produced), ``candidates`` (which documents),
``judging`` (which paragraphs, in what order), ``statement`` (one statement), ``items`` (an item's revision and
article), ``batch`` (a bounded pool of statements). The factories below wire the clients from the options.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bot.checking.judging import Strategy
from bot.checking.statement import Plan, Tools
from bot.clock import Clock, system_clock

if TYPE_CHECKING:
    import requests

    from bot.documents.services import ServiceClient
    from bot.options import Options
    from bot.selection.endpoint import SparqlEndpoint


def plan_from(options: Options) -> Plan:
    return Plan(source=options.check_source, all_sources=options.check_all_sources,
                strategy=Strategy(options.check_strategy, options.check_top, options.check_require_mention,
                                  options.check_require_subject, options.check_unnamed,
                                  considered=options.check_paragraphs),
                documents=options.check_documents, search_results=options.search_results,
                allow_domains=options.search_allow_domains, deny_domains=options.search_deny_domains,
                fetch_workers=options.fetch_workers)


def make_tools(options: Options, session: requests.Session, services: ServiceClient,
               endpoint: SparqlEndpoint | None = None, clock: Clock = system_clock) -> Tools:
    """The judge (its model loaded), the fetcher, the archive, the search engine, the embedding model, and the
    property profiles (looked up on ``endpoint``; offline, from the catalogue and the cache). ``clock`` stamps
    what the tools record."""
    from bot.documents import make_fetcher, make_search, make_wayback, paragraph_rules
    from bot.checking.embedding import make_embedder
    from bot.judge import make_judge
    from bot.properties import make_profiles

    from bot.options import uses

    if uses(options.check_source, "web") and not options.search_backend:
        from bot.errors import ConfigError

        raise ConfigError("no web search engine is configured",
                          hint="set [search] backend and url (searxng or brave), or check --source kg or wikipedia")
    judge = make_judge(options)
    if options.check_strategy == "paper":
        # The published method asks the model about every paragraph; refbot's shortcut (a paragraph that does
        # not name the value is answered without the model) is a pre-ranking of its own.
        judge.template = replace(judge.template, require_object_mention=False)
    kg = uses(options.check_source, "kg") and endpoint is not None
    embed = make_embedder(options) if options.check_strategy == "ranked" or kg else None
    fetcher = make_fetcher(options, session, services.politeness, clock)
    corroborator = None
    if kg and endpoint is not None:
        from bot.corroboration import make_corroborator

        corroborator = make_corroborator(options, endpoint, fetcher, backend=judge.backend, embed=embed)
    related = None
    if endpoint is not None:
        from bot.selection.related import RelatedLookup

        related = RelatedLookup(endpoint, options.languages)
    return Tools(judge, fetcher, paragraph_rules(options), make_wayback(options, services),
                 make_search(options, services) if uses(options.check_source, "web") else None,
                 embed if options.check_strategy == "ranked" else None, make_profiles(options, endpoint),
                 corroborator, clock, related)


__all__ = ["Plan", "Strategy", "Tools", "make_tools", "plan_from"]
