"""Calling the web APIs refbot reads (search, Wayback, Wikidata, Wikipedia) through one polite client.

Unlike a document fetch, a failing API is an error the operator must see: ``ServiceError`` names the service,
the URL and the status, with a hint. Requests go through the same guarded, cached session as documents.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from typing import Any

import requests

from bot.documents import cache
from bot.documents.addresses import RefusedAddress
from bot.documents.fetching import RETRIED_STATUSES
from bot.documents.politeness import HostTurns, Politeness, host_key, parse_retry_after
from bot.errors import ServiceError
from bot.etiquette import require_contact


class ServiceClient:
    def __init__(self, session: requests.Session, *, user_agent: str = "", contact: str = "",
                 timeout: tuple[float, float] = (10.0, 30.0), retries: int = 2, backoff: float = 2.0,
                 politeness: HostTurns | None = None, sleep: Callable[[float], None] = time.sleep) -> None:
        self.session = session
        self.user_agent = user_agent
        self.contact = contact
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.politeness = politeness or Politeness(0.0)
        self._sleep = sleep

    def get(self, service: str, url: str, params: Mapping[str, Any] | None = None,
            headers: Mapping[str, str] | None = None, *, missing_ok: bool = False) -> requests.Response | None:
        """The answer of a GET; None for a 404 when ``missing_ok``; ServiceError for anything else that fails."""
        require_contact(url, self.contact, service)
        sent = {"User-Agent": self.user_agent} if self.user_agent else {}
        sent.update(headers or {})
        fresh = cache.fresh(self.session, self.session.prepare_request(
            requests.Request("GET", url, params=params)).url or url) is not None
        for attempt in range(self.retries + 1):
            with (nullcontext() if fresh else self.politeness.turn(url)):
                try:
                    response = self.session.get(url, params=params, headers=sent, timeout=self.timeout)
                except RefusedAddress as error:
                    raise ServiceError(str(error), service=service, url=url,
                                       hint="check the service's URL in the configuration") from error
                except requests.RequestException as error:
                    if attempt < self.retries and not isinstance(error, requests.exceptions.ConnectionError):
                        continue
                    raise ServiceError(f"cannot be reached: {type(error).__name__}", service=service, url=url,
                                       hint="check the URL in the configuration and that the service is up"
                                       ) from error
            if response.status_code in RETRIED_STATUSES and attempt < self.retries:
                asked = parse_retry_after(response.headers.get("Retry-After"))
                if asked:  # the host's wait, for every request to it (every worker's, with a shared queue)
                    self.politeness.hold_off(host_key(url), asked)
                else:
                    self._sleep(self.backoff * 2 ** attempt)
                continue
            break
        if response.status_code == 404 and missing_ok:
            return None
        if response.status_code == 200:
            cache.remember(self.session, response, response.content)
        if response.status_code >= 400:
            hint = ("check the API key" if response.status_code in (401, 403)
                    else "try again later" if response.status_code in RETRIED_STATUSES else None)
            raise ServiceError(_summary(response), service=service, url=url, status=response.status_code,
                               hint=hint)
        return response

    def get_json(self, service: str, url: str, params: Mapping[str, Any] | None = None,
                 headers: Mapping[str, str] | None = None) -> Any:
        response = self.get(service, url, params, {"Accept": "application/json", **(headers or {})})
        assert response is not None
        try:
            return response.json()
        except (ValueError, json.JSONDecodeError):
            raise ServiceError(f"answered {response.headers.get('Content-Type', 'something')} that is not JSON: "
                               f"{response.text[:80]!r}", service=service, url=url,
                               hint="check that the URL is the service's JSON API") from None


def _summary(response: requests.Response) -> str:
    text = " ".join(response.text.split())[:120]
    return f"{response.reason or 'error'}{': ' + text if text else ''}"
