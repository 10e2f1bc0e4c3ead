"""Does a snippet name an entity? Exact for short labels, fuzzy (rapidfuzz) for longer ones.

A snippet that never names the claim's object cannot state the claim directly, so the judge answers "c"
without asking the model: it is cheaper and avoids the small models' habit of answering yes anyway. The
subject is not required, since a paragraph often refers to it as "she" or "the company".
"""

from __future__ import annotations

import re

SHORT_LABEL = 4


def mentions(label: str, text: str, *, threshold: float = 90.0) -> bool:
    """True when ``label`` occurs in ``text``: as a whole word when it is short ("RA", "GR"), else with a
    fuzzy partial match of at least ``threshold`` (FactGenius used 90), which tolerates inflection and typos."""
    needle = " ".join(label.casefold().split())
    if not needle:
        return False
    haystack = " ".join(text.casefold().split())
    if len(needle) <= SHORT_LABEL:
        return re.search(rf"(?<![\w]){re.escape(needle)}(?![\w])", haystack) is not None
    if needle in haystack:
        return True
    from rapidfuzz import fuzz

    return fuzz.partial_ratio(needle, haystack, score_cutoff=threshold) >= threshold
