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

_DECISION_WORDS = (
    r"answer|option|choice|choose|chose|select|pick|verdict|"
    r"antwort|réponse|respuesta|risposta|resposta|odpověď|odpoved|ответ|答案"
)
_LETTER_END = r"(?=[\)\]\.:,;]|\s*$|\s*\n)"


def _normalise(answer: str) -> str:
    text = unicodedata.normalize("NFKC", answer)
    return re.sub(r"[*_`#]", "", text).strip()


def parse_option(answer: str, options: Sequence[str] = OPTIONS) -> str | None:
    """The option letter the answer chose, or ``None`` when it chose none or several."""
    text = _normalise(answer)
    if not text:
        return None
    letters = "".join(options)
    decision = re.search(
        rf"(?:{_DECISION_WORDS})\s*(?:is|would be|=|:|-)?\s*(?:option\s*)?[\(\[]?([{letters}])(?:[\)\]]|{_LETTER_END})",
        text, re.IGNORECASE)
    if decision:
        return decision.group(1).lower()
    marked = {m.lower() for m in re.findall(rf"(?<![A-Za-z0-9])\(?([{letters}])\)", text, re.IGNORECASE)}
    lead = re.match(rf"[\(\[]?([{letters}])(?:[\)\]\.:]|\s*$)", text, re.IGNORECASE)
    if lead and marked <= {lead.group(1).lower()}:
        return lead.group(1).lower()
    quoted = {option for option, phrase in OPTION_PHRASES.items()
              if option in options and phrase in text.lower()}
    if len(marked) == 1 and (not quoted or quoted == marked):
        return marked.pop()
    if not marked and len(quoted) == 1:
        return quoted.pop()
    trailing = re.search(rf":\s*\(?([{letters}])\)?\.?\s*$", text, re.IGNORECASE)
    if trailing:
        return trailing.group(1).lower()
    return None


def published_option(answer: str) -> str | None:
    """The published scripts' rule, kept to compare against: "a" if ``a)`` is in the first 50 characters."""
    return "a" if re.search(r"a\)", answer[:50]) else None
