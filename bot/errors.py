"""The errors refbot raises on purpose.

    RefbotError                  every error below; the CLI prints ``str(error)`` as one line
    ├── ConfigError              an option or configuration value is wrong (hint: the option to fix)
    ├── InputError               a user-supplied file or identifier is malformed (names file and line)
    ├── ModelError               model weights are missing, corrupt or cannot be loaded
    ├── QueryError               a SPARQL endpoint refused, failed or could not be reached (names query, endpoint)
    ├── ServiceError             a web API (search, Wayback, Wikidata, Wikipedia) failed or answered nonsense
    ├── JudgeError               the judge could not produce a judgement
    │   └── BackendUnavailable   the LLM server cannot be reached or keeps failing (names the URL)
    ├── TraceError               a trace does not validate against xslt/trace.xsd
    ├── WriteError               the wiki refused or failed an edit (``fatal``: no further edit can succeed:
    │                            the login failed, the account is blocked, the wiki stays lagged)
    └── InternalError            refbot's own code or installation is broken (names the component and the fix);
                                 never a page's or a statement's outcome

Each error carries the context a user needs (file and line, URL, model path) and, where there is one,
a ``hint`` saying how to fix it. No error shows a credential: every URL in a message loses its
``user:password@`` and its secret-looking parameters, and a service's URL every query value (``bot.redaction``).
"""

from __future__ import annotations

from bot.redaction import redact_text, redact_url


class RefbotError(Exception):
    """Base class; ``hint`` is a short imperative sentence telling the user what to do."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(redact_text(message))
        self.hint = redact_text(hint) if hint else hint

    def __str__(self) -> str:
        message = super().__str__()
        return f"{message} ({self.hint})" if self.hint else message


class ConfigError(RefbotError):
    pass


class InputError(RefbotError):
    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 hint: str | None = None) -> None:
        where = f"{path}:{line}: " if path and line else (f"{path}: " if path else "")
        super().__init__(where + message, hint=hint)
        self.path = path
        self.line = line


class ModelError(RefbotError):
    pass


class QueryError(RefbotError):
    def __init__(self, message: str, *, query: str, endpoint: str, status: int | None = None,
                 hint: str | None = None) -> None:
        status_text = f" (HTTP {status})" if status else ""
        message = redact_text(message, services=(endpoint,))  # the endpoint's answer may repeat its URL
        endpoint = redact_url(endpoint, service=True)
        super().__init__(f"query {query} at {endpoint}{status_text}: {message}", hint=hint)
        self.query = query
        self.endpoint = endpoint
        self.status = status


class ServiceError(RefbotError):
    def __init__(self, message: str, *, service: str, url: str, status: int | None = None,
                 hint: str | None = None) -> None:
        status_text = f" (HTTP {status})" if status else ""
        message = redact_text(message, services=(url,))
        url = redact_url(url, service=True)
        super().__init__(f"{service} at {url}{status_text}: {message}", hint=hint)
        self.service = service
        self.url = url
        self.status = status


class JudgeError(RefbotError):
    pass


class PartUnavailable(RefbotError):
    """A part every statement needs is gone — the judge's server, the workers' shared Redis: the run stops, what it
    finished is kept, and it is tried again later; never a statement's outcome."""


class BackendUnavailable(JudgeError, PartUnavailable):
    def __init__(self, message: str, *, url: str, hint: str | None = None) -> None:
        super().__init__(redact_text(message, services=(url,)), hint=hint)
        self.url = redact_url(url, service=True)


class TraceError(RefbotError):
    """A trace that does not validate against xslt/trace.xsd (a bug in refbot, or a file edited by hand)."""


class WriteError(RefbotError):
    """An edit the wiki refused or could not take; ``code`` is the API's error code (``editconflict``,
    ``blocked``, ``maxlag``, ``login``); ``fatal`` when no later edit of this apply could succeed."""

    def __init__(self, message: str, *, code: str, fatal: bool = False, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.code = code
        self.fatal = fatal


class InternalError(RefbotError):
    """refbot itself failed — a library missing or broken, or a bug — not the page, the item or a service."""

    def __init__(self, message: str, *, component: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.component = component
