"""Checking statements end to end. Modules: ``records`` (what a check produced), ``candidates`` (which documents),
``judging`` (which paragraphs, in what order), ``statement`` (one statement), ``items`` (an item's revision and
article), ``batch`` (a bounded pool of statements). :func:`plan_from` reads the options; the clients in
:class:`Tools` are built in ``bot.wiring``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.checking.judging import Strategy
from bot.checking.statement import Plan, Tools

if TYPE_CHECKING:
    from bot.options import CheckOptions, SearchOptions


def plan_from(check: CheckOptions, search: SearchOptions, fetch_workers: int) -> Plan:
    return Plan(source=check.source, all_sources=check.all_sources,
                strategy=Strategy(check.strategy, check.top, check.require_mention, check.require_subject,
                                  check.unnamed, considered=check.paragraphs, naming=check.naming,
                                  across=check.across, value_words=check.value_words),
                documents=check.documents, search_results=search.results, allow_domains=search.allow_domains,
                deny_domains=search.deny_domains, fetch_workers=fetch_workers)


__all__ = ["Plan", "Strategy", "Tools", "plan_from"]
