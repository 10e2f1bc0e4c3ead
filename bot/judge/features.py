"""What a judgement computed, as numbers that mean the same for every property and language. Pure.

A learned verdict (``bot.judge.learned``) decides on these instead of hand-set thresholds on one score: the model's
P(yes), how the relations' summaries weigh the claimed relation against its neighbours (its share and its margin
in log-probability), how the text writes the value (exactly, by an alias, declined, transcribed, named by the
model…), the kind of value, whether the text names the subject, and the text's language and alphabet. None of them
names a property or a site, so what is learned on some properties carries to others — measured with whole
properties held out (``bot.evaluation.folds.by_property``).

A judgement the model was not asked for (the text does not write the value, or writes it for someone else) has no
features: its verdict stays the rule's.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from typing import Any

from bot.judge.calibration import kind_of
from bot.judge.naming import NAMED
from bot.values import (ALIAS, AMOUNT, COMMON_NAME, COUNTRY_NAME, DATE, GENDERED, INFLECTED, INITIALS, LITERAL,
                        OTHER_SEPARATORS, PLACE_IN_COUNTRY, STRING, SURNAME_FIRST, TRANSCRIBED, WITHOUT_ARTICLE,
                        WITHOUT_PREFIX, WORDS_APART, WRITTEN_OUT)
from bot.values.names import mentions

# How a text writes the value (``Judgement.written``), in groups a model can learn from a few hundred rows.
WRITTEN = ("exact", "alias", "linked", "declined", "other alphabet", "common name", "named by the model",
           "across alphabets", "other")
KINDS = ("item", "time", "quantity", "text", "all")
NAMES = ("p_yes", "share", "margin", "contrasts", "support", "subject named", "english", "latin letters",
         "parts", "focused", "length") + tuple(f"written: {w}" for w in WRITTEN) + tuple(f"kind: {k}" for k in KINDS)
# How ``bot.values`` writes a value found as given (its label, also in another language: "label (de)").
EXACT = (LITERAL, DATE, AMOUNT, STRING, WITHOUT_PREFIX, OTHER_SEPARATORS, SURNAME_FIRST, INITIALS, WRITTEN_OUT,
         WITHOUT_ARTICLE, WORDS_APART, GENDERED)
# How a judgement asked of a text in another alphabet that cannot write the item value's names records it
# (``bot.values.names_beyond_reach``): the model read the text without refbot finding the value in it.
ACROSS_ALPHABETS = "asked across alphabets"
LOGIT_LIMIT = 12.0  # |logit| beyond this carries no more information (P within 6e-6 of 0 or 1)


def written_group(written: str) -> str:
    """The group of ``Judgement.written`` (how ``bot.values`` found the value; a "how" may combine several)."""
    if written.startswith(NAMED):
        return "named by the model"
    if written.startswith(ACROSS_ALPHABETS):
        return "across alphabets"
    if TRANSCRIBED in written:
        return "other alphabet"
    if INFLECTED in written:
        return "declined"
    if any(name in written for name in (COMMON_NAME, COUNTRY_NAME, PLACE_IN_COUNTRY)):
        return "common name"
    if written.startswith(ALIAS):
        return "alias"
    if " item" in written or written.startswith("item"):  # a name Wikidata links to it: "more general item Q515"
        return "linked"
    if written.startswith(EXACT):
        return "exact"
    return "other"


def features(record: Mapping[str, Any], *, subject: str, text: str, datatype: str | None,
             language: str | None) -> dict[str, float] | None:
    """The features of one judgement (a ``Judgement`` as a dict: ``dataclasses.asdict`` or an eval ledger's
    record) of the claim about ``subject`` on ``text``; None where the model was not asked about the claim."""
    p_yes = record.get("p_yes")
    if p_yes is None:
        p_yes = _p_yes_of_answer(str(record.get("answer", "")))
    if p_yes is None:
        return None
    compared = list(record.get("compared") or ())
    share = float(compared[0]["share"]) if compared else 1.0
    if len(compared) > 1:
        margin = float(compared[0]["score"]) - max(float(other["score"]) for other in compared[1:])
    else:
        margin = 0.0
    values: dict[str, float] = dict.fromkeys(NAMES, 0.0)
    values.update({
        "p_yes": _logit(float(p_yes)), "share": _logit(share), "margin": max(-20.0, min(20.0, margin)),
        "contrasts": float(max(0, len(compared) - 1)), "support": _logit(float(record.get("support", 0.0))),
        "subject named": float(mentions(subject, text)),
        "english": float(language in (None, "", "en") or str(language).startswith("en-")),
        "latin letters": _latin_share(text), "parts": float(int(record.get("parts", 1)) > 1),
        "focused": float(bool(record.get("excerpt"))), "length": math.log1p(len(text)) / 10.0,
    })
    values[f"written: {written_group(str(record.get('written', '')))}"] = 1.0
    values[f"kind: {kind_of(datatype)}"] = 1.0
    return values


def vector(values: Mapping[str, float]) -> list[float]:
    """The features in ``NAMES``' order."""
    return [float(values[name]) for name in NAMES]


def _logit(p: float) -> float:
    p = min(1.0, max(0.0, p))
    if p <= 0.0:
        return -LOGIT_LIMIT
    if p >= 1.0:
        return LOGIT_LIMIT
    return max(-LOGIT_LIMIT, min(LOGIT_LIMIT, math.log(p / (1.0 - p))))


def _p_yes_of_answer(answer: str) -> float | None:
    """P(yes) as older records give it, in the answer ("P(yes) 0.912; share …")."""
    if not answer.startswith("P(yes) "):
        return None
    try:
        return float(answer[7:].split(";", 1)[0])
    except ValueError:
        return None


def _latin_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 1.0
    return sum(1 for c in letters if c.isascii() or "LATIN" in _name(c)) / len(letters)


def _name(character: str) -> str:
    return unicodedata.name(character, "")
