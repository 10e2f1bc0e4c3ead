"""The embedded judge's model loaded in a thread of its own, while the statements are selected and their pages read.

A :class:`LoadingBackend` is a backend at once: what needs no model — its name (the calibration and the trace take
it), its arithmetic, how many requests it takes at once — is known when it is made; the first call that needs the
model waits until it has loaded. A model that fails to load stops the run (:class:`ModelUnavailable`, a part every
statement needs): its error is never a statement's outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
import threading
from typing import Any

from bot.errors import ModelError, PartUnavailable, RefbotError
from bot.judge.arithmetic import Arithmetic
from bot.judge.backend import Backend, Choice, Completion, Continuations
from bot.judge.prompts import Generation, Message


class ModelUnavailable(ModelError, PartUnavailable):
    """The judge's model could not be loaded: no statement can be judged, and none is blamed for it."""


class LoadingBackend:
    """``load`` run in a thread started now; ``model_id``, ``arithmetic`` and ``max_in_flight`` as the loaded backend
    will have them."""

    def __init__(self, load: Callable[[], Backend], *, model_id: str, arithmetic: Arithmetic | None = None,
                 max_in_flight: int = 1) -> None:
        self.model_id, self.arithmetic, self.max_in_flight = model_id, arithmetic, max_in_flight
        self._loaded: Future[Backend] = Future()
        self._thread = threading.Thread(target=self._load, args=(load,), name="refbot-judge-loading")
        self._thread.start()

    def _load(self, load: Callable[[], Backend]) -> None:
        try:
            self._loaded.set_result(load())
        except BaseException as error:  # handed to the first caller, in its thread
            self._loaded.set_exception(error)

    def loaded(self) -> Backend:
        """The backend, once its model has loaded (waiting for it)."""
        try:
            return self._loaded.result()
        except ModelUnavailable:
            raise
        except RefbotError as error:  # a model file that will not load: every statement would fail alike
            raise ModelUnavailable(f"the judge's model could not be loaded: {error}",
                                   hint=error.hint or "run `refbot doctor`") from error

    def context_tokens(self) -> int:
        return self.loaded().context_tokens()

    def count_tokens(self, text: str) -> int:
        return self.loaded().count_tokens(text)

    def complete(self, messages: Sequence[Message], generation: Generation) -> Completion:
        return self.loaded().complete(messages, generation)

    def choose(self, messages: Sequence[Message], letters: Sequence[str]) -> Choice:
        return self.loaded().choose(messages, letters)

    def render(self, messages: Sequence[Message]) -> str | None:
        return self.loaded().render(messages)

    def continuation_logprobs(self, prefix: str, continuations: Sequence[str], *,
                              rendered: bool = False) -> Continuations:
        return self.loaded().continuation_logprobs(prefix, continuations, rendered=rendered)

    def __getattr__(self, name: str) -> Any:  # what else the loaded backend has (its model, its threads)
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.loaded(), name)


def wait_for_model(backend: object) -> None:
    """Until ``backend``'s model has loaded, where it loads in a thread of its own (for what times the judgements
    alone); raises its :class:`ModelUnavailable`."""
    if isinstance(backend, LoadingBackend):
        backend.loaded()
