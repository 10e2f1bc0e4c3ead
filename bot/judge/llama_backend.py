"""llama.cpp in-process (xllamacpp): the generator for what the embedded model writes at length —
`select --ask`'s candidate queries —, where the GGUF runs on the CPU several times faster than transformers' bf16
copy. ``bot.wiring.make_generator`` chooses it.

One model, loaded once, keeps the prompt it last read: the next request that begins alike (the same system prompt
and worked example, the same question) reads only the rest. Prompt lookup decoding (``lookup``): a candidate query
copies most of the draft shown in its prompt, so where the last few tokens written occur earlier in the prompt or
the answer, the tokens that followed them there are proposed and checked in one batch; greedy answers are unchanged
and most proposed tokens are accepted (benchmarks/README.md, ``ask.py``).

It only generates and reads the answer's first-token probabilities (``complete``, ``choose``); the judge's
scoring (``continuation_logprobs``, prompt log-probabilities with a reused cache) is the transformers backend's.

xllamacpp serves llama.cpp's HTTP API on a loopback port as well; this backend answers its requests in-process and
uses the port only to tokenize and render prompts, with an API key of its own, so no other client can use it.
"""

from __future__ import annotations

import math
import os
import secrets
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import requests

from bot.errors import JudgeError, ModelError
from bot.judge.backend import Choice, Completion, Continuations, letter_probabilities
from bot.judge.prompts import Generation, Message
from bot.judge.threads import threads_for

TOP_LOGPROBS = 20
WRITER_SLOT = 0  # with a prompt cache, what is written is read in this slot (the one saved and restored)
# Prompt lookup decoding (n, m): a candidate query copies most of the draft shown in its prompt.
LOOKUP = (3, 16)


class LlamaBackend:
    """``LlamaBackend(gguf_path, threads=0, parallel=1, context_tokens=4096)``: ``threads`` 0 takes the cores
    actually free (:func:`bot.judge.threads.threads_for`); ``parallel`` slots, each keeping its own prompt and
    taking one request at a time with up to ``context_tokens`` of prompt and answer. Thread-safe: call it from up
    to ``max_in_flight`` threads."""

    def __init__(self, gguf_path: str | Path, *, threads: int = 0, parallel: int = 1,
                 context_tokens: int = 4096, lookup: tuple[int, int] | None = LOOKUP,
                 prompt_cache: Path | None = None) -> None:
        """``prompt_cache``: a folder where the prompt last read for :meth:`complete` is kept between processes
        (its tokens and key-value cache, llama.cpp's slot file): the next process restores it when it starts, so
        that a prompt beginning alike — the same system prompt and worked example — is not read again."""
        try:
            import xllamacpp
        except ImportError as error:
            raise ModelError(f"the llama.cpp backend needs xllamacpp: {error}",
                             hint="pip install xllamacpp") from error
        path = Path(gguf_path).expanduser()
        if not path.is_file():
            raise ModelError(f"no GGUF file at {path}",
                             hint="run `refbot models fetch NAME` or pass the path of a .gguf file")
        self.model_id = path.name
        self.max_in_flight = max(1, parallel)
        self.threads = threads_for(threads)
        self._context = max(256, context_tokens)
        self._key = secrets.token_urlsafe(24)
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_parallel = self.max_in_flight
        params.kv_unified = True  # one cache for all slots: a prompt read in one slot serves the others
        params.n_ctx = self._context * self.max_in_flight
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = self.threads
        params.hostnames = ["127.0.0.1"]
        params.api_keys = [self._key]
        params.n_threads_http = 2
        params.endpoint_metrics = False
        params.endpoint_slots = prompt_cache is not None  # saving and restoring slots goes through /slots
        self._cache_file = ""
        if prompt_cache is not None:
            prompt_cache.mkdir(parents=True, exist_ok=True)
            params.slot_save_path = f"{prompt_cache}{os.sep}"  # llama.cpp puts the file name right after it
            # Each slot keeps its prompt in place: llama.cpp would otherwise move an idle slot's prompt out to host
            # memory when another slot starts, and the writer's next prompt found it gone.
            params.cache_idle_slots = False
            self._cache_file = f"{path.stem}.{params.n_ctx}.slot"  # a file of another model or size is never read
        params.verbosity = 0
        if lookup:
            # Prompt lookup: where the last n tokens written occur earlier in the prompt or the answer, the m tokens
            # that followed them there are proposed and checked in one batch (greedy answers are unchanged).
            params.speculative.types = [xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
            params.speculative.ngram_simple.size_n, params.speculative.ngram_simple.size_m = lookup
            params.speculative.draft.n_max = lookup[1]
        try:
            self._server: Any = xllamacpp.Server(params)
        except Exception as error:  # a file that is no GGUF, too little memory: whatever llama.cpp says
            raise ModelError(f"llama.cpp cannot load {path}: {error}", hint="pass a GGUF model file") from error
        self._url = str(self._server.listening_address).rstrip("/")
        self._local = threading.local()  # a requests session per thread
        self._saved = False
        if self._cache_file and (prompt_cache / self._cache_file).is_file():  # type: ignore[operator]
            try:
                self._post(f"slots/{WRITER_SLOT}?action=restore", {"filename": self._cache_file})
            except JudgeError:
                pass  # a file llama.cpp cannot read (another version's): the prompt is read again, then saved

    # -- Backend -----------------------------------------------------------------------------------------------
    def context_tokens(self) -> int:
        return self._context

    def count_tokens(self, text: str) -> int:
        return len(self._post("tokenize", {"content": text, "add_special": False}).get("tokens") or [])

    def render(self, messages: Sequence[Message]) -> str | None:
        """The prompt the model reads for ``messages``: the GGUF's chat template applied, the assistant's turn
        opened."""
        return str(self._post("apply-template", {"messages": list(messages)}).get("prompt") or "") or None

    def complete(self, messages: Sequence[Message], generation: Generation) -> Completion:
        data = self._chat({"messages": list(messages), **generation.as_request(),
                           **({"id_slot": WRITER_SLOT} if self._cache_file else {})})
        if self._cache_file and not self._saved:
            self._saved = True  # once a process: the prompt's shared beginning is what the next one reuses
            try:
                self._post(f"slots/{WRITER_SLOT}?action=save", {"filename": self._cache_file})
            except JudgeError:
                pass  # a cache not written costs the next process the read, nothing else
        try:
            text = str(data["choices"][0]["message"].get("content") or "")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise JudgeError(f"llama.cpp answered without a completion: {str(data)[:200]}") from None
        usage = data.get("usage") or {}
        return Completion(text.strip(), _read(usage), int(usage.get("completion_tokens") or 0))

    def choose(self, messages: Sequence[Message], letters: Sequence[str]) -> Choice:
        # With a prompt cache, another slot than the writer's, which keeps the prompt the next question shares.
        elsewhere = {"id_slot": WRITER_SLOT + 1} if self._cache_file and self.max_in_flight > 1 else {}
        data = self._chat({"messages": list(messages), "max_tokens": 1, "temperature": 0.0, "seed": 42,
                           "logprobs": True, "top_logprobs": TOP_LOGPROBS, **elsewhere})
        try:
            first = data["choices"][0]["logprobs"]["content"][0]
            candidates = first.get("top_logprobs") or [first]
        except (KeyError, IndexError, TypeError):
            raise JudgeError(f"llama.cpp answered without log-probabilities: {str(data)[:200]}") from None
        token_probabilities: dict[str, float] = {}
        for candidate in candidates:
            token = candidate["token"]
            token_probabilities[token] = token_probabilities.get(token, 0.0) + math.exp(candidate["logprob"])
        return Choice(letter_probabilities(token_probabilities, letters), _read(data.get("usage") or {}))

    def continuation_logprobs(self, prefix: str, continuations: Sequence[str], *,
                              rendered: bool = False) -> Continuations:
        raise JudgeError("the llama.cpp backend only generates: it cannot score continuations (llama.cpp returns no "
                         "prompt log-probabilities)", hint="score with the transformers backend (--judge transformers)")

    # -- llama.cpp ---------------------------------------------------------------------------------------------
    def _chat(self, payload: dict[str, Any]) -> dict[str, Any]:
        data: Any = self._server.handle_chat_completions(payload)  # releases the GIL while it runs
        if not isinstance(data, dict):
            raise JudgeError(f"llama.cpp answered {type(data).__name__}, not a JSON object")
        if "error" in data:
            error = data["error"] if isinstance(data["error"], dict) else {"message": data["error"]}
            raise JudgeError(f"llama.cpp refused the request: {error.get('message', error)}",
                             hint="raise --judge-context" if error.get("type") == "exceed_context_size_error"
                             else None)
        return data

    def _post(self, route: str, payload: dict[str, Any]) -> dict[str, Any]:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            session.headers["Authorization"] = f"Bearer {self._key}"
        try:
            response = session.post(f"{self._url}/{route}", json=payload, timeout=60)
            response.raise_for_status()
            data: dict[str, Any] = response.json()
        except (requests.RequestException, ValueError) as error:
            raise JudgeError(f"llama.cpp's /{route} failed: {error}") from error
        return data


def _read(usage: dict[str, Any]) -> int:
    """The prompt tokens llama.cpp read: those of the prompt less those its cache held."""
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    return max(0, int(usage.get("prompt_tokens") or 0) - int(cached))
