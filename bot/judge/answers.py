"""Reading the option a model chose from its free-text answer.

The published scripts decided "a" when ``a\\)`` matched within the first 50 characters, which misreads answers
that restate the options, answer "Answer: c)", or start with a bare letter. Here an answer is read in order of
how explicit it is, and anything ambiguous is ``None`` — never support.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

OPTIONS = ("a", "b", "c")

# Key phrases of the published option texts, so an answer that quotes one option (and only one) is read.
OPTION_PHRASES = {
    "a": "can be directly verified",
    "b": "contains some indications",
    "c": "definitely cannot be inferred",
}

# Phrases that announce the chosen option; when an answer has several, its last one is its conclusion
# ("Option a) would need direct proof, so the answer is c)").
_DECISION = (
    r"(?:answer|réponse|respuesta|antwort|risposta|resposta|odpověď|odpoved|ответ|答案)\s*(?:is|would be|:|=|-)?"
    r"|(?:correct|right|best)\s+(?:option|choice)\s*(?:is|would be|:)?"
    r"|(?:i|we)\s+(?:would\s+)?(?:choose|chose|select|pick)"
    r"|(?:verdict)\s*(?:is|:)?"
)
_LETTER_END = r"(?=[\)\]\.:,;]|\s*$|\s*\n)"
_NEGATED = re.compile(r"(?:\bnot|n't|\bno)\s+(?:\w+\s+)?(?:option\s*)?\(?$", re.IGNORECASE)


def _normalise(answer: str) -> str:
    text = unicodedata.normalize("NFKC", answer)
    return re.sub(r"[*_`#]", "", text).strip()


def parse_option(answer: str, options: Sequence[str] = OPTIONS) -> str | None:
    """The option letter the answer chose, or ``None`` when it chose none, several, or only rejected some."""
    text = _normalise(answer)
    if not text:
        return None
    letters = "".join(options)
    decisions = re.findall(
        rf"(?:{_DECISION})\s*(?:option\s*)?[\(\[]?([{letters}])(?:[\)\]]|{_LETTER_END})", text, re.IGNORECASE)
    if decisions:
        return decisions[-1].lower()
    marked = {match.group(1).lower()
              for match in re.finditer(rf"(?<![A-Za-z0-9])\(?([{letters}])\)", text, re.IGNORECASE)
              if not _NEGATED.search(text[: match.start()])}
    rejected = {match.group(1).lower()
                for match in re.finditer(rf"(?<![A-Za-z0-9])\(?([{letters}])\)", text, re.IGNORECASE)
                if _NEGATED.search(text[: match.start()])}
    lead = re.match(rf"[\(\[]?([{letters}])(?:[\)\]\.:]|\s*$)", text, re.IGNORECASE)
    if lead and marked <= {lead.group(1).lower()} and lead.group(1).lower() not in rejected:
        return lead.group(1).lower()
    quoted = {option for option, phrase in OPTION_PHRASES.items()
              if option in options and phrase in text.lower()}
    if len(marked) == 1 and (not quoted or quoted == marked):
        return marked.pop()
    if not marked and not rejected and len(quoted) == 1:
        return quoted.pop()
    trailing = re.search(rf":\s*\(?([{letters}])\)?\.?\s*$", text, re.IGNORECASE)
    if trailing:
        return trailing.group(1).lower()
    return None


def published_option(answer: str) -> str | None:
    """The published scripts' rule, kept to compare against: "a" if ``a)`` is in the first 50 characters."""
    return "a" if re.search(r"a\)", answer[:50]) else None
