"""What a judge needs from a language model, whatever runs it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Mapping, Protocol

from bot.judge.prompts import Generation, Message


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class Choice:
    """Probabilities of the option letters as the first answer token, normalised over the letters.

    ``probabilities`` is empty when none of the letters was among the likeliest tokens.
    """

    probabilities: Mapping[str, float]
    prompt_tokens: int


@dataclass(frozen=True)
class Continuations:
    """Per-token log-probabilities of each continuation after one shared prefix, and the tokens read."""

    logprobs: tuple[tuple[float, ...], ...]
    tokens: int


class Backend(Protocol):
    model_id: str
    max_in_flight: int

    def context_tokens(self) -> int:
        """How many tokens one request may hold, prompt and answer together."""
        ...

    def count_tokens(self, text: str) -> int:
        ...

    def complete(self, messages: Sequence[Message], generation: Generation) -> Completion:
        ...

    def choose(self, messages: Sequence[Message], letters: Sequence[str]) -> Choice:
        ...

    def render(self, messages: Sequence[Message]) -> str | None:
        """The prompt text the model reads for ``messages`` (the chat template applied, the assistant's turn
        opened, special tokens written out), or None when the backend cannot tell."""
        ...

    def continuation_logprobs(self, prefix: str, continuations: Sequence[str], *,
                              rendered: bool = False) -> Continuations:
        """Each continuation's token log-probabilities right after ``prefix``; the prefix is read once.
        ``rendered``: the prefix begins with a prompt from :meth:`render` (its special tokens written out, so
        none is to be added)."""
        ...


def letter_probabilities(token_probabilities: Mapping[str, float], letters: Sequence[str]) -> dict[str, float]:
    """Sum the probability of every spelling of each letter (" a", "A", "a)"…) and normalise over the letters."""
    mass = {letter: 0.0 for letter in letters}
    for token, probability in token_probabilities.items():
        key = token.strip().lower().rstrip(").:")
        if key in mass:
            mass[key] += probability
    total = sum(mass.values())
    if total <= 0.0:
        return {}
    return {letter: value / total for letter, value in mass.items()}
