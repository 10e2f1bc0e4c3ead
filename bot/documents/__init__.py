"""Grounding documents: fetching, paragraphs, archives, web search and Wikipedia's cited sources.

Modules, one stage each: ``addresses`` (refusing private networks), ``politeness`` (per-host pacing, robots),
``fetching`` (one fetch → one outcome), ``decoding`` and ``paragraphs`` and ``sentences`` (bytes → paragraphs,
pure), ``archive`` (Wayback), ``retrieval`` (fetch + paragraphs + archive fallback), ``services`` (the web APIs),
``search`` (web search backends), ``citations`` (Wikipedia HTML → cited paragraphs, pure), ``wikipedia``
(sitelink and article). The settings below come from the options; the clients are built in ``bot.wiring``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.etiquette import user_agent

if TYPE_CHECKING:
    from bot.documents.fetching import FetchRules
    from bot.documents.paragraphs import ParagraphRules
    from bot.options import Options


def fetch_rules(options: Options) -> FetchRules:
    import requests

    from bot.documents.fetching import FetchRules

    return FetchRules(user_agent=user_agent(options.contact, f"requests/{requests.__version__}"),
                      connect_timeout=options.fetch_connect_timeout, read_timeout=options.fetch_read_timeout,
                      max_seconds=options.fetch_max_seconds, max_bytes=options.fetch_max_bytes,
                      max_redirects=options.fetch_max_redirects, retries=options.fetch_retries,
                      backoff=options.fetch_backoff, robots=options.fetch_robots)


def paragraph_rules(options: Options) -> ParagraphRules:
    from bot.documents.paragraphs import ParagraphRules

    return ParagraphRules(options.paragraph_min_chars, options.paragraph_max_chars)
