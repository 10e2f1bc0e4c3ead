"""Any OpenAI-compatible server: ``vllm serve MODEL`` in production, llama.cpp's server in tests.

The session is passed in (see :func:`make_session` for retries with backoff on 429/5xx and connection
errors); concurrency is the caller's: this class is thread-safe, and vLLM batches requests in flight.

Several servers of the same model (``[judge] url`` lists them) share the requests: at most ``max_in_flight`` on each
(the backend's own ``max_in_flight`` is their sum, what callers size their pools by). A request goes to the server
its prompt names (a hash of the question asked, or of a comparison's shared prefix: the continuations of one
comparison meet one server's prefix cache), or to the least busy one when that server is full. Chat templates,
token counts and the context length are asked of the first server: all serve one model.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any

import requests
from urllib3.util.retry import Retry

from bot.errors import BackendUnavailable, ConfigError, JudgeError
from bot.judge.backend import Choice, Completion, Continuations, letter_probabilities
from bot.judge.prompts import Generation, Message
from bot.redaction import redact_url

# A wait the server asks for is said as a warning (on standard error unless the application configures logging): a
# run that stops for minutes must say why.
log = logging.getLogger(__name__)
DOWN_HINT = "start the server (e.g. `vllm serve MODEL`) or point --judge-url at a running one"
# The longest wait between two tries, whatever a 429's or 503's Retry-After asks (``Retry-After: 100000`` would
# otherwise hold the run for a day, silently); a server still refusing after the retries stops the run instead.
MAX_RETRY_WAIT_S = 60.0


class _CappedRetry(Retry):
    """urllib3's Retry with every wait, Retry-After included, capped at ``max_wait_s``."""

    def __init__(self, *args: Any, max_wait_s: float = MAX_RETRY_WAIT_S, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_wait_s = max_wait_s
        self.asked_url = ""

    def new(self, **kw: Any) -> _CappedRetry:
        kw.setdefault("max_wait_s", self.max_wait_s)
        return super().new(**kw)

    def get_retry_after(self, response: Any) -> float | None:
        seconds = super().get_retry_after(response)
        return None if seconds is None else min(seconds, self.max_wait_s)

    def increment(self, method: str | None = None, url: str | None = None, response: Any = None,
                  error: Exception | None = None, _pool: Any = None, _stacktrace: TracebackType | None = None
                  ) -> _CappedRetry:
        """The next state, which remembers the URL to be tried again (named while it waits)."""
        following = super().increment(method, url, response, error, _pool, _stacktrace)
        if _pool is not None and url:
            following.asked_url = url if "://" in url else f"{_pool.scheme}://{_pool.host}:{_pool.port}{url}"
        return following

    def sleep_for_retry(self, response: Any) -> bool:
        """Wait what the server's Retry-After asks (capped), saying so once: a run waiting minutes in silence
        looks hung."""
        seconds = self.get_retry_after(response)
        if seconds:
            asked = response.headers.get("Retry-After", "").strip()[:40]
            log.warning("refbot: the LLM server at %s answered HTTP %s with Retry-After: %s; waiting %s s before "
                        "trying again", redact_url(self.asked_url or "?", service=True),
                        getattr(response, "status", "?"), asked, f"{seconds:g}")
        return bool(super().sleep_for_retry(response))


def make_session(retries: int = 3, backoff_s: float = 0.5, api_key: str | None = None,
                 pool_size: int = 10, max_wait_s: float = MAX_RETRY_WAIT_S) -> requests.Session:
    """A session that retries connection errors, 429 (honouring Retry-After) and 5xx with exponential backoff,
    waiting at most ``max_wait_s`` between two tries.

    Reads are retried too: a chat completion has no side effect, so sending it again is safe."""
    retry = _CappedRetry(total=retries, connect=retries, read=retries, status=retries, backoff_factor=backoff_s,
                         backoff_max=max_wait_s, status_forcelist=(429, 500, 502, 503, 504), allowed_methods=None,
                         respect_retry_after_header=True, raise_on_status=False, max_wait_s=max_wait_s)
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(max_retries=retry, pool_maxsize=max(pool_size, 1))
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    if api_key:
        session.headers["Authorization"] = f"Bearer {api_key}"
    return session


class OpenAIBackend:
    def __init__(self, session: requests.Session, base_url: str | Sequence[str], model: str | None = None, *,
                 timeout_s: float = 120.0, max_in_flight: int = 4, context_tokens: int | None = None,
                 top_logprobs: int = 20, echo: bool = True) -> None:
        """``base_url``: one server, or several serving the same model; ``max_in_flight``: requests at once on each.
        ``echo``: compare relations by their echoed prompt log-probabilities where the server gives them; False:
        by the first token's generation log-probabilities (vLLM's V1 engine reads a prompt asking for prompt
        log-probabilities again in full, past its prefix cache)."""
        self.session = session
        urls = [base_url] if isinstance(base_url, str) else list(base_url)
        if not urls:
            raise ConfigError("no LLM server URL", hint="set [judge] url, e.g. http://127.0.0.1:8000/v1")
        self.base_urls = [url.rstrip("/") for url in urls]
        self.base_url = self.base_urls[0]
        self.timeout_s = timeout_s
        self.per_server = max_in_flight
        self.max_in_flight = max_in_flight * len(self.base_urls)
        self.top_logprobs = top_logprobs
        self._context_tokens = context_tokens
        self._lock = threading.Lock()
        self._busy = [0] * len(self.base_urls)
        self._free = threading.Condition(self._lock)
        self._echoes: bool | None = None if echo else False  # whether /completions echoes prompt log-probabilities
        self._renders: str | bool | None = None  # how the server renders a chat prompt (see render); False: it cannot
        self.model_id = model or self._served_model()
        # every server must serve the one model the trace names (the first one too, when the model is named)
        for url in self.base_urls if model else self.base_urls[1:]:
            served = [str(m.get("id")) for m in self._request("GET", "/models", base=url).get("data") or []]
            if self.model_id not in served:
                raise ConfigError(f"the LLM server at {url} does not serve {self.model_id} (it serves "
                                  f"{', '.join(served) or 'nothing'})",
                                  hint="list servers of one model in [judge] url")

    @contextmanager
    def _server(self, key: str = "") -> Iterator[str]:
        """A server's base URL for one request: the one ``key`` names when it has room, else the least busy one
        with room, waiting for room when all are full."""
        count = len(self.base_urls)
        named = int(hashlib.blake2s(key.encode(), digest_size=4).hexdigest(), 16) % count if key else 0
        with self._free:
            while True:
                if self._busy[named] < self.per_server:
                    chosen = named
                    break
                chosen = min(range(count), key=lambda n: self._busy[n])
                if self._busy[chosen] < self.per_server:
                    break
                self._free.wait()
            self._busy[chosen] += 1
        try:
            yield self.base_urls[chosen]
        finally:
            with self._free:
                self._busy[chosen] -= 1
                self._free.notify()

    # -- transport -------------------------------------------------------------------------------------------
    def _request(self, method: str, path: str, payload: dict[str, Any] | None = None, *, base: str | None = None,
                 key: str = "") -> dict[str, Any]:
        """``base``: this server; else the one :meth:`_server` gives for ``key``."""
        if base is None:
            with self._server(key) as chosen:
                return self._request(method, path, payload, base=chosen)
        url = f"{base}{path}"
        try:
            response = self.session.request(method, url, json=payload, timeout=self.timeout_s)
        except requests.exceptions.ConnectionError as error:
            raise BackendUnavailable(f"cannot reach the LLM server at {url}: {_reason(error)}", url=url,
                                     hint=DOWN_HINT) from error
        except requests.exceptions.Timeout as error:
            raise BackendUnavailable(f"the LLM server at {url} did not answer within {self.timeout_s:g} s",
                                     url=url, hint="raise --judge-timeout or check the server's load") from error
        except requests.exceptions.RequestException as error:  # a malformed URL, a missing scheme…
            raise ConfigError(f"cannot send a request to {url}: {error}",
                              hint="pass --judge-url like http://127.0.0.1:8000/v1") from error
        if response.status_code in (429,) or response.status_code >= 500:
            retry_after = response.headers.get("Retry-After", "").strip()
            asked = f" (Retry-After: {retry_after[:40]})" if retry_after else ""
            raise BackendUnavailable(f"the LLM server at {url} kept answering HTTP {response.status_code}{asked}: "
                                     f"{' '.join(response.text[:200].split())}", url=url,
                                     hint="check the server's log and load (--judge-in-flight), or run again later"
                                     if asked else "check the server's log")
        if response.status_code >= 400:
            raise JudgeError(f"the LLM server at {url} refused the request: HTTP {response.status_code}: "
                             f"{response.text[:300]}")
        try:
            data: dict[str, Any] = response.json()
        except ValueError as error:
            raise JudgeError(f"the LLM server at {url} answered something that is not JSON: "
                             f"{response.text[:200]!r}") from error
        return data

    def _served_model(self) -> str:
        models = self._request("GET", "/models", base=self.base_url).get("data") or []
        if not models:
            raise JudgeError(f"the LLM server at {self.base_url} serves no model",
                             hint="pass --judge-model with the served model's name")
        return str(models[0]["id"])

    @property
    def _server_root(self) -> str:
        """The server's own endpoints (/props, /tokenize) sit beside /v1, not under it."""
        return self.base_url[: -len("/v1")] if self.base_url.endswith("/v1") else self.base_url

    # -- Backend ---------------------------------------------------------------------------------------------
    def context_tokens(self) -> int:
        with self._lock:
            if self._context_tokens is None:
                self._context_tokens = self._discover_context()
            return self._context_tokens

    def _discover_context(self) -> int:
        for model in self._request("GET", "/models", base=self.base_url).get("data") or []:
            if model.get("id") == self.model_id and model.get("max_model_len"):  # vLLM
                return int(model["max_model_len"])
        root = self._server_root
        try:  # llama.cpp: the context of one slot
            props = self.session.get(f"{root}/props", timeout=self.timeout_s).json()
            return int(props["default_generation_settings"]["n_ctx"])
        except (requests.RequestException, ValueError, KeyError, TypeError):
            raise JudgeError(f"cannot tell the context size of {self.model_id} at {self.base_url}",
                             hint="pass --judge-context with the server's context length") from None

    def count_tokens(self, text: str) -> int:
        root = self._server_root
        # vLLM reads "prompt" and answers "count"; llama.cpp reads "content" and answers "tokens".
        payload = {"model": self.model_id, "prompt": text, "content": text, "add_special_tokens": False}
        try:
            response = self.session.post(f"{root}/tokenize", json=payload, timeout=self.timeout_s)
            data = response.json()
            return int(data["count"]) if "count" in data else len(data["tokens"])
        except (requests.RequestException, ValueError, KeyError, TypeError):
            return len(text.encode("utf-8"))  # an upper bound: every token covers at least one byte

    def complete(self, messages: Sequence[Message], generation: Generation) -> Completion:
        payload = {"model": self.model_id, "messages": list(messages), **generation.as_request()}
        data = self._request("POST", "/chat/completions", payload, key=str(messages[-1]["content"]))
        try:
            text = data["choices"][0]["message"]["content"] or ""
            usage = data.get("usage") or {}
        except (KeyError, IndexError, TypeError):
            raise JudgeError(f"unexpected answer from {self.base_url}/chat/completions: {str(data)[:200]}") from None
        return Completion(text, _read(data), int(usage.get("completion_tokens", 0)))

    def render(self, messages: Sequence[Message]) -> str | None:
        """The chat prompt as the server renders it: llama.cpp's ``/apply-template``, or vLLM's ``/tokenize``
        of the messages then ``/detokenize`` of the tokens. None when the server offers neither (learnt once)."""
        if self._renders is False:
            return None
        routes = [self._renders] if isinstance(self._renders, str) else ["apply-template", "tokenize"]
        for route in routes:
            prompt = self._render_by(route, messages)
            if prompt:
                self._renders = route
                return prompt
        self._renders = False
        return None

    def _render_by(self, route: str, messages: Sequence[Message]) -> str | None:
        root = self._server_root

        def post(path: str, payload: dict[str, Any]) -> Any:
            try:
                response = self.session.post(f"{root}/{path}", json=payload, timeout=self.timeout_s)
            except requests.exceptions.ConnectionError as error:
                raise BackendUnavailable(f"cannot reach the LLM server at {root}/{path}: {_reason(error)}",
                                         url=f"{root}/{path}", hint=DOWN_HINT) from error
            except requests.exceptions.Timeout as error:
                raise BackendUnavailable(f"the LLM server at {root}/{path} did not answer within "
                                         f"{self.timeout_s:g} s", url=f"{root}/{path}",
                                         hint="raise --judge-timeout or check the server's load") from error
            return response.json() if response.status_code == 200 else {}

        try:
            if route == "apply-template":  # llama.cpp
                return str(post("apply-template", {"messages": list(messages)}).get("prompt") or "") or None
            tokens = post("tokenize", {"model": self.model_id, "messages": list(messages),  # vLLM
                                       "add_generation_prompt": True}).get("tokens")
            if not tokens:
                return None
            return str(post("detokenize", {"model": self.model_id, "tokens": tokens}).get("prompt") or "") or None
        except (ValueError, AttributeError, TypeError):  # not JSON, or not the shape asked for
            return None

    def continuation_logprobs(self, prefix: str, continuations: Sequence[str], *,
                              rendered: bool = False) -> Continuations:
        """Through ``/completions`` with ``echo``, which returns the prompt's token log-probabilities (vLLM,
        whose prefix cache computes the shared prefix once). A ``rendered`` prefix is sent without special
        tokens added (it has its own), so that it is tokenised as the chat prompt it shares its start with.

        A server that does not echo them (llama.cpp) is asked once for the token after the prefix instead, and
        each continuation is scored by its first token alone: enough to tell relations whose phrases differ in
        their first word ("increases" / "decreases"). A first token outside the top log-probabilities gets
        the lowest of them, an upper bound. Whether the server echoes is learnt from its first answer.
        """
        extra = {"add_special_tokens": False} if rendered else {}
        if self._echoes is not False and continuations:
            echoed = self._echoed(prefix, continuations, extra)
            if echoed is not None:
                return echoed
        first = self._request("POST", "/completions", {
            "model": self.model_id, "prompt": prefix, "max_tokens": 1, "temperature": 0.0,
            "logprobs": self.top_logprobs, **extra}, key=prefix)
        try:
            candidates = _first_token_candidates(first["choices"][0]["logprobs"])
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            raise JudgeError(f"the LLM server at {self.base_url} returned no logprobs for /completions",
                             hint="use a server that supports logprobs (vLLM, llama.cpp)") from None
        firsts = []
        for continuation in continuations:
            wanted = continuation.split()[0] if continuation.split() else continuation
            matches = [value for token, value in candidates.items()
                       if token.strip() and wanted.startswith(token.strip())]
            firsts.append((max(matches) if matches else min(candidates.values()),))
        return Continuations(tuple(firsts), _read(first))

    def _echoed(self, prefix: str, continuations: Sequence[str], extra: dict[str, Any]) -> Continuations | None:
        """Each continuation's echoed log-probabilities; None when the server does not echo. Once the server is
        known to echo, the continuations are sent at once (up to ``max_in_flight``): vLLM batches them and
        reads their shared prefix once."""

        def ask(continuation: str) -> tuple[tuple[float, ...] | None, int]:
            data = self._request("POST", "/completions", {
                "model": self.model_id, "prompt": prefix + continuation, "max_tokens": 1, "temperature": 0.0,
                "echo": True, "logprobs": 1, **extra}, key=prefix)
            return (_prompt_logprobs(data, len(prefix), len(prefix) + len(continuation)),
                    _read(data))

        answers = []
        rest = list(continuations)
        if self._echoes is None:  # learn from the first answer whether the server echoes at all
            answers.append(ask(rest.pop(0)))
            self._echoes = answers[0][0] is not None
            if not self._echoes:
                return None
        if rest:
            with ThreadPoolExecutor(max_workers=max(1, min(len(rest), self.max_in_flight))) as pool:
                answers += list(pool.map(ask, rest))
        if any(scores is None for scores, _ in answers):
            raise JudgeError(f"the LLM server at {self.base_url} stopped echoing prompt log-probabilities",
                             hint="check the server's version and configuration")
        # The prefix is read once (the server caches it); each continuation adds its own tokens.
        first_tokens = answers[0][1]
        tokens = first_tokens + sum(len(scores or ()) for scores, _ in answers[1:])
        return Continuations(tuple(scores or () for scores, _ in answers), tokens)

    def choose(self, messages: Sequence[Message], letters: Sequence[str]) -> Choice:
        payload = {"model": self.model_id, "messages": list(messages), "max_tokens": 1, "temperature": 0.0,
                   "logprobs": True, "top_logprobs": self.top_logprobs, "seed": 42}
        data = self._request("POST", "/chat/completions", payload, key=str(messages[-1]["content"]))
        try:
            first = data["choices"][0]["logprobs"]["content"][0]
            candidates = first.get("top_logprobs") or [first]
        except (KeyError, IndexError, TypeError):
            raise JudgeError(f"the LLM server at {self.base_url} returned no logprobs",
                             hint="use a server that supports logprobs (vLLM, llama.cpp) or --template paper") \
                from None
        token_probabilities: dict[str, float] = {}
        for candidate in candidates:
            token = candidate["token"]
            token_probabilities[token] = token_probabilities.get(token, 0.0) + math.exp(candidate["logprob"])
        return Choice(letter_probabilities(token_probabilities, letters), _read(data))


def _read(data: dict[str, Any]) -> int:
    """The prompt tokens the server read for an answer: those it reports, less those its prefix cache held
    (``usage.prompt_tokens_details.cached_tokens``, where the server reports it)."""
    usage = data.get("usage") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    return max(0, int(usage.get("prompt_tokens") or 0) - int(cached))


def _first_token_candidates(logprobs: dict[str, Any]) -> dict[str, float]:
    """The generated first token's candidates and their log-probabilities, from either form servers answer
    ``/completions`` in: the chat-like ``content`` list (llama.cpp) or the legacy ``tokens`` / ``top_logprobs``
    dictionaries (vLLM, OpenAI)."""
    if "content" in logprobs:
        content = logprobs["content"][0]
        return {c["token"]: float(c["logprob"]) for c in content.get("top_logprobs") or [content]}
    top = logprobs["top_logprobs"][0] or {logprobs["tokens"][0]: logprobs["token_logprobs"][0]}
    return {str(token): float(value) for token, value in top.items()}


def _prompt_logprobs(data: dict[str, Any], start: int, end: int) -> tuple[float, ...] | None:
    """The log-probabilities of the echoed prompt tokens starting between characters ``start`` and ``end``
    (the legacy completions format vLLM answers with; the generated token after ``end`` is left out), or None
    when the server did not return them."""
    try:
        logprobs = data["choices"][0]["logprobs"]
        offsets, values = logprobs["text_offset"], logprobs["token_logprobs"]
    except (KeyError, IndexError, TypeError):
        return None
    picked = tuple(float(value) for offset, value in zip(offsets, values) if start <= offset < end
                   and value is not None)
    return picked or None


def _reason(error: Exception) -> str:
    text = str(error)
    for marker in ("Connection refused", "Name or service not known", "timed out", "Connection reset",
                   "Remote end closed connection", "Max retries exceeded"):
        if marker in text:
            return marker.lower()
    return text[:160]
