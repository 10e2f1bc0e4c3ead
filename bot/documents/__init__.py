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
    from bot.options import FetchOptions, ParagraphOptions


def fetch_rules(fetch: FetchOptions, contact: str) -> FetchRules:
    import requests

    from bot.documents.fetching import FetchRules

    return FetchRules(user_agent=user_agent(contact, f"requests/{requests.__version__}"),
                      connect_timeout=fetch.connect_timeout, read_timeout=fetch.read_timeout,
                      max_seconds=fetch.max_seconds, max_bytes=fetch.max_bytes, max_redirects=fetch.max_redirects,
                      retries=fetch.retries, backoff=fetch.backoff, robots=fetch.robots)


def paragraph_rules(paragraph: ParagraphOptions) -> ParagraphRules:
    from bot.documents.paragraphs import ParagraphRules

    return ParagraphRules(paragraph.min_chars, paragraph.max_chars)
