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
    from bot.options import Options


def plan_from(options: Options) -> Plan:
    return Plan(source=options.check_source, all_sources=options.check_all_sources,
                strategy=Strategy(options.check_strategy, options.check_top, options.check_require_mention,
                                  options.check_require_subject, options.check_unnamed,
                                  considered=options.check_paragraphs),
                documents=options.check_documents, search_results=options.search_results,
                allow_domains=options.search_allow_domains, deny_domains=options.search_deny_domains,
                fetch_workers=options.fetch_workers)


__all__ = ["Plan", "Strategy", "Tools", "plan_from"]
