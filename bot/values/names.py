"""Does a snippet name an entity? Exact for short labels, fuzzy (rapidfuzz) for longer ones.

A snippet that never names the claim's object cannot state the claim directly, so the judge answers "c"
without asking the model: it is cheaper and avoids the small models' habit of answering yes anyway. The
subject is not required here, since a paragraph often refers to it as "she" or "the company"; whether a
paragraph is about the subject at all is ``bot.checking.subject_check``'s question, asked before the judge.
"""

from __future__ import annotations

import re

SHORT_LABEL = 4


def similarity(label: str, text: str, *, threshold: float = 90.0) -> float:
    """1.0 when ``label`` occurs in ``text``: as a whole word when it is short ("RA", "GR"), else exactly or with
    a fuzzy partial match of at least ``threshold`` (FactGenius used 90), which tolerates inflection and typos.
    Otherwise the best partial similarity / 100 (0.0 for short labels, which must match whole)."""
    needle = _ampersand(" ".join(label.casefold().split()))
    if not needle:
        return 0.0
    haystack = _ampersand(" ".join(text.casefold().split()))
    if len(needle) <= SHORT_LABEL:
        return 1.0 if re.search(rf"(?<![\w]){re.escape(needle)}(?![\w])", haystack) else 0.0
    if needle in haystack:
        return 1.0
    from rapidfuzz import fuzz

    ratio = fuzz.partial_ratio(needle, haystack)
    return 1.0 if ratio >= threshold else ratio / 100.0


def _ampersand(text: str) -> str:
    """"BBC Research & Development" and "BBC Research and Development" are the same name."""
    return text.replace(" & ", " and ") if " & " in text else text


def mentions(label: str, text: str, *, threshold: float = 90.0) -> bool:
    """True when ``label`` occurs in ``text`` (see ``similarity``)."""
    return similarity(label, text, threshold=threshold) == 1.0


# The values male (Q6581097) and female (Q6581072) of sex or gender (P21), which English texts state by the
# pronouns and titles they use for a person rather than by the words "male" and "female". The judge still
# decides whether the person the words refer to is the subject.
GENDERED_WORDS = {
    "Q6581097": r"\b(?:he|him|his|himself|Mr|Sir)\b\.?",
    "Q6581072": r"\b(?:she|her|hers|herself|Mrs|Ms|Miss|Madam)\b\.?",
}
_GENDER_LABELS = {"male": "Q6581097", "female": "Q6581072"}


def gendered_pattern(raw: str, label: str) -> re.Pattern[str] | None:
    """The words a text states the value male or female with (by its id, else its English label); None for any
    other value."""
    qid = raw if raw in GENDERED_WORDS else _GENDER_LABELS.get(label.strip().casefold(), "")
    return re.compile(GENDERED_WORDS[qid], re.IGNORECASE) if qid else None
