"""FactGenius's step: the model names which of a record's relations state the statement's property, and its
answer is validated against the real relations with fuzzy matching (RapidFuzz ratio > 90), so that a relation it
invents, or one it misspells beyond recognition, is refused rather than used.

The backend is the judge's (``bot.judge.backend.Backend``); the prompt is ``bot.judge.prompts.KG_RELATIONS``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bot.judge.prompts import KG_RELATIONS, RelationTemplate

# FactGenius keeps a model's pick when it is this similar to a real relation (RapidFuzz's ratio, 0–100).
PICK_THRESHOLD = 90.0


@dataclass(frozen=True)
class Picks:
    """What the model answered, the relations of the list it named (``accepted``) and what it named that is not
    one of them (``refused``)."""

    answer: str
    accepted: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    model: str = ""


def messages(template: RelationTemplate, prop: str, description: str,
             relations: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    listed = "\n".join(f"- {name} ({example})" for name, example in relations)
    return [{"role": "system", "content": template.system},
            # The meaning is the property's description; a property without one is meant by its label.
            {"role": "user", "content": template.user.format(property=prop, description=description or prop,
                                                             relations=listed)}]


def validate(answer: str, relations: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The relations ``answer`` names (each line or comma-separated part matched to the closest relation with a
    ratio above the threshold) and the parts that name none."""
    from rapidfuzz import fuzz, process, utils

    accepted: list[str] = []
    refused: list[str] = []
    for part in re.split(r"[\n,;]+", answer):
        name = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", part).strip().strip("\"'`.").strip()
        name = re.sub(r"\s*:.*$", "", name).strip()  # "date of birth: 1968-02-11" names the relation before ':'
        if not name or name.casefold() in ("none", "no", "nothing", "n/a"):
            continue
        best = process.extractOne(name, list(relations), scorer=fuzz.ratio, processor=utils.default_process)
        if best is not None and best[1] > PICK_THRESHOLD:
            if best[0] not in accepted:
                accepted.append(best[0])
        elif name not in refused:
            refused.append(name)
    return tuple(accepted), tuple(refused)


def pick_relations(backend: object, prop: str, description: str, relations: Sequence[tuple[str, str]],
                   template: RelationTemplate = KG_RELATIONS) -> Picks:
    """Ask ``backend`` (a judge backend) once; BackendUnavailable propagates (the run stops), a JudgeError too
    (the caller records it)."""
    started = time.monotonic()
    completion = backend.complete(messages(template, prop, description, relations),  # type: ignore[attr-defined]
                                  template.generation)
    accepted, refused = validate(completion.text, [name for name, _ in relations])
    return Picks(completion.text.strip(), accepted, refused, completion.prompt_tokens, completion.completion_tokens,
                 round(time.monotonic() - started, 3), getattr(backend, "model_id", ""))
