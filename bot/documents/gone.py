"""Is a page that answered still the page a citation names? Pure.

A dead link does not always answer 404. Sites send a page they removed to their front page or to the section it
stood in, or serve a "page not found" page with status 200 (a *soft 404*); either way the words a citation pointed
at are gone, and its archived copy is what can still be read. Both follow from how sites are built, not from any
one site: a redirect that lands higher in the site than the page asked for, and a page whose title or main heading
says it was not found.
"""

from __future__ import annotations

import re
from posixpath import normpath
from urllib.parse import urlsplit

# The paths a site's front page is served at.
_FRONT_PAGES = frozenset({"", "/", "/index", "/index.html", "/index.htm", "/index.php", "/index.asp",
                          "/index.aspx", "/default.asp", "/default.aspx", "/home", "/home.html", "/start"})
# What a not-found page calls itself, in the languages refbot reads most. Matched in a title or main heading, which
# a real page about something uses to name that something.
_NOT_FOUND = re.compile(
    r"\b(?:page|file|document|article|resource|content|url|item|record)s?\s+(?:was\s+|is\s+)?"
    r"(?:not\s+found|(?:no\s+longer\s+|not\s+)available|unavailable|(?:does\s+not|doesn't|doesn’t)\s+exist"
    r"|(?:cannot|can't|can’t|could\s+not|couldn't)\s+be\s+found|missing|removed|has\s+been\s+removed)"
    r"|\b(?:error\s*)?(?:404|410)\b[\s:–—-]*(?:error|not\s+found|page|gone)?"
    r"|^\s*not\s+found\s*$|\bnot\s+found\s*[|:–—-]|[|:–—-]\s*not\s+found\s*$"
    r"|\bpage\s+you(?:'re|’re|\s+are|\s+were)?\s+(?:looking\s+for|requested|tried\s+to\s+(?:reach|open|access))"
    r"\s+(?:does\s+not|doesn't|doesn’t|did\s+not|cannot|can't|can’t|could\s+not|couldn't|is\s+not|isn't|was\s+not"
    r"|wasn't|no\s+longer)\b"
    r"|\b(?:can't|can’t|cannot|could\s+not|couldn't|couldn’t|unable\s+to)\s+(?:be\s+)?find\s+(?:that|this|the|your)"
    r"(?:\s+requested)?\s+page\b"
    r"|\bseite\s+nicht\s+gefunden\b|\bpage\s+introuvable\b|\bp[aá]gina\s+no\s+encontrada\b"
    r"|\bpagina\s+non\s+trovata\b|\bstr[aá]nka\s+nenalezena\b|\bstrona\s+nie\s+(?:zosta[lł]a\s+)?znaleziona\b"
    r"|\bp[aá]gina\s+n[aã]o\s+encontrada\b|\bpagina\s+niet\s+gevonden\b|\bsidan\s+hittades\s+inte\b",
    re.IGNORECASE)
# A title longer than this names a page's subject in full; a not-found page's is short.
_SHORT = 90


def moved_away(requested: str, final: str) -> str:
    """Why a redirect from ``requested`` to ``final`` left the page ("" when it did not): it lands on the site's
    front page, or on a page higher in the same site's path than the one asked for (its section)."""
    if not final or final == requested:
        return ""
    asked, landed = urlsplit(requested), urlsplit(final)
    asked_path, landed_path = _path(asked.path), _path(landed.path)
    if asked_path in _FRONT_PAGES and not asked.query:
        return ""  # the citation named the front page itself
    if landed_path in _FRONT_PAGES and not landed.query:
        return f"redirected to the site's front page ({final})"
    if landed.hostname == asked.hostname and not landed.query and asked_path.startswith(landed_path + "/") and \
            asked_path.count("/") > landed_path.count("/"):
        return f"redirected to a page higher in the site ({final})"
    return ""


def says_not_found(title: str, heading: str) -> str:
    """Why the page is a not-found page by its own words ("" when it is not): its ``<title>`` or main heading,
    when short, says the page was not found or no longer exists."""
    for where, text in (("title", title), ("main heading", heading)):
        shown = " ".join(text.split())
        if shown and len(shown) <= _SHORT and _NOT_FOUND.search(shown):
            return f'its {where} says it is not there ("{shown}")'
    return ""


def gone(requested: str, final: str, title: str = "", heading: str = "") -> str:
    """Why a page that answered is not the page cited (a soft 404 or a page moved away), "" when it is."""
    return moved_away(requested, final) or says_not_found(title, heading)


def _path(path: str) -> str:
    cleaned = normpath(path) if path else ""
    cleaned = "" if cleaned in (".", "/") else cleaned.rstrip("/")
    return cleaned.lower() if cleaned.lower() in _FRONT_PAGES else cleaned
