"""A judge backend without a model, whose answers are given (as httpx's ``MockTransport`` scripts a server).

For every test that needs a judge but is not about the model: the answers are data, or functions of the prompt,
so what is tested is what the caller does with them. It implements the whole :class:`~bot.judge.backend.Backend`
protocol and records each request it answers. Every function is given the *prompt*: the last message's content
(for the judge's yes/no question, the text and the claim as the judge asks them)::

    backend = ScriptedBackend(support=lambda prompt: 0.9 if "Purkyně Prize" in prompt else 0.1)
    judgement = Judge(backend, REFBOT, justify=False).judge(claim, snippet)
    assert backend.questions == [...]
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from bot.judge.backend import Choice, Completion, Continuations, letter_probabilities
from bot.judge.prompts import Generation, Message

Support = float | Mapping[str, float] | Callable[[str], float | None]
Completions = str | Sequence[str] | Callable[[str], str]
LogProbs = Mapping[str, Sequence[float]] | Callable[[str, str], Sequence[float]]
Letters = Mapping[str, float] | Callable[[str], Mapping[str, float]]


def chatml(messages: Sequence[Message]) -> str:
    """The messages as a ChatML template renders them, the assistant's turn opened."""
    turns = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return turns + "<|im_start|>assistant\n"


@dataclass(frozen=True)
class Call:
    """One request the backend answered."""

    method: str  # "complete", "choose" or "continuation_logprobs"
    prompt: str  # the last message's content; for continuation_logprobs, the prefix
    messages: tuple[Message, ...] = ()
    generation: Generation | None = None
    letters: tuple[str, ...] = ()
    continuations: tuple[str, ...] = ()
    rendered: bool = False


class ScriptedBackend:
    """A :class:`~bot.judge.backend.Backend` answering from a script; safe to call from several threads.

    ``support``: P(yes) when asked yes or no (``choose(messages, ("yes", "no"))``, the judge's question): a number;
    a mapping from a piece of the prompt (a claim's value, a snippet's words) to P(yes), the first piece the prompt
    contains deciding, 0.0 when none does (an empty piece matches every prompt: last, it is the default); or a
    function of the prompt, None for a model that answers neither yes nor no.
    ``choices``: the probabilities of other letters (a mapping, or a function of the prompt), normalised over the
    letters asked; none of them given, the model named no letter.
    ``completions``: what ``complete`` answers: one text for every request (by default a justification's sentence),
    texts in order (running out is an error), or a function of the prompt.
    ``logprobs``: each continuation's token log-probabilities, by the continuation without its leading space, or a
    function of (prefix, continuation); a continuation not scripted is an error.
    ``chat_template``: how ``render`` writes messages; None for a backend that cannot tell.
    ``usage``: the (prompt, completion) tokens each answer reports; None counts words (as ``count_tokens`` does).
    ``model_id``, ``max_in_flight``, ``context`` (the ``context_tokens``): as a real backend reports them.
    Every request is kept in ``calls`` (``asked``, ``questions`` and ``prefixes`` select from it).
    """

    def __init__(self, support: Support = 0.0, *, choices: Letters | None = None,
                 completions: Completions = "The text states the claim.", logprobs: LogProbs | None = None,
                 chat_template: Callable[[Sequence[Message]], str] | None = chatml,
                 usage: tuple[int, int] | None = None, model_id: str = "scripted", max_in_flight: int = 1,
                 context: int = 4096) -> None:
        self.model_id, self.max_in_flight, self.context = model_id, max_in_flight, context
        self.support, self.choices, self.logprobs = support, choices or {}, logprobs or {}
        self.chat_template, self.usage = chat_template, usage
        self._completions = completions
        self._queue: Iterator[str] = iter(() if isinstance(completions, str) or callable(completions) else completions)
        self._lock = threading.Lock()
        self.calls: list[Call] = []

    def asked(self, method: str) -> list[Call]:
        """The requests of one method ("complete", "choose", "continuation_logprobs"), in the order answered."""
        with self._lock:
            return [call for call in self.calls if call.method == method]

    @property
    def questions(self) -> list[str]:
        """The prompts ``choose`` answered (the judge's yes/no questions)."""
        return [call.prompt for call in self.asked("choose")]

    @property
    def prefixes(self) -> list[str]:
        """The prefixes ``continuation_logprobs`` read (the summaries contrasting relations continue)."""
        return [call.prompt for call in self.asked("continuation_logprobs")]

    def context_tokens(self) -> int:
        return self.context

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def render(self, messages: Sequence[Message]) -> str | None:
        return None if self.chat_template is None else self.chat_template(messages)

    def choose(self, messages: Sequence[Message], letters: Sequence[str]) -> Choice:
        prompt = self._record(Call("choose", messages[-1]["content"], tuple(messages), letters=tuple(letters)))
        if set(letters) == {"yes", "no"}:
            p_yes = self._support(prompt)
            probabilities: Mapping[str, float] = {} if p_yes is None else {"yes": p_yes, "no": 1.0 - p_yes}
        else:
            given = self.choices(prompt) if callable(self.choices) else self.choices
            probabilities = letter_probabilities(given, letters)
        return Choice(probabilities, self._prompt_tokens(messages))

    def complete(self, messages: Sequence[Message], generation: Generation) -> Completion:
        text = self._completion(self._record(Call("complete", messages[-1]["content"], tuple(messages),
                                                  generation=generation)))
        return Completion(text, self._prompt_tokens(messages), self.usage[1] if self.usage else self.count_tokens(text))

    def continuation_logprobs(self, prefix: str, continuations: Sequence[str], *,
                              rendered: bool = False) -> Continuations:
        self._record(Call("continuation_logprobs", prefix, continuations=tuple(continuations), rendered=rendered))
        scores = tuple(tuple(self._logprobs(prefix, continuation.strip())) for continuation in continuations)
        read = self.usage[0] if self.usage else self.count_tokens(prefix)  # the prefix, then each continuation
        return Continuations(scores, read + sum(map(len, scores)))

    def _record(self, call: Call) -> str:
        with self._lock:
            self.calls.append(call)
        return call.prompt

    def _support(self, prompt: str) -> float | None:
        if callable(self.support):
            return self.support(prompt)
        if isinstance(self.support, Mapping):
            return next((p for piece, p in self.support.items() if piece in prompt), 0.0)
        return float(self.support)

    def _completion(self, prompt: str) -> str:
        if isinstance(self._completions, str):
            return self._completions
        if callable(self._completions):
            return self._completions(prompt)
        with self._lock:
            text = next(self._queue, None)
        if text is None:
            raise LookupError(f"ScriptedBackend: no completion left for {prompt[-200:]!r}")
        return text

    def _logprobs(self, prefix: str, continuation: str) -> Sequence[float]:
        if callable(self.logprobs):
            return self.logprobs(prefix, continuation)
        if continuation not in self.logprobs:
            raise KeyError(f"ScriptedBackend: no log-probabilities scripted for {continuation!r}")
        return self.logprobs[continuation]

    def _prompt_tokens(self, messages: Sequence[Message]) -> int:
        return self.usage[0] if self.usage else sum(self.count_tokens(m["content"]) for m in messages)
