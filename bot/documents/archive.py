"""The Wayback Machine: finding the snapshot closest to a citation's access date, and its raw copy.

The availability API answers with the closest snapshot on either side of a date. A copy from before the
access date shows the page as the citing editor saw it, so when the closest one is later, the CDX API is
asked for the last good capture before the date. Snapshots are read raw (``<ts>id_/``: no Wayback toolbar,
no rewritten links); the viewable URL ``web/<ts>/<url>`` is what the trace and the reference record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import urlsplit

from bot.documents.services import ServiceClient

_WAYBACK = re.compile(r"^https?://(?:web\.)?archive\.org/web/(\d{4,14})(?:[a-z]{2}_)?/(.+)$", re.I)
ARCHIVE_HOSTS = ("web.archive.org", "archive.org", "archive.today", "archive.ph", "archive.is", "archive.li",
                 "archive.md", "archive.vn", "webcitation.org", "www.webcitation.org", "wayback.archive-it.org",
                 "webarchive.loc.gov", "webarchive.nationalarchives.gov.uk", "arquivo.pt", "ghostarchive.org")


@dataclass(frozen=True)
class Snapshot:
    original: str
    timestamp: str
    archive_url: str
    raw_url: str


def parse_wayback(url: str, web_url: str = "https://web.archive.org") -> Snapshot | None:
    """A Wayback URL (``…/web/20161010110745/http://…``) as a Snapshot; None for any other URL."""
    match = _WAYBACK.match(url.strip())
    if not match:
        return None
    timestamp, original = match.groups()
    return snapshot(original, timestamp, web_url)


def snapshot(original: str, timestamp: str, web_url: str = "https://web.archive.org") -> Snapshot:
    base = web_url.rstrip("/")
    return Snapshot(original, timestamp, f"https://web.archive.org/web/{timestamp}/{original}",
                    f"{base}/web/{timestamp}id_/{original}")


def is_archive_url(url: str) -> bool:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:  # a malformed URL is no archive's
        return False
    return host in ARCHIVE_HOSTS


def wayback_timestamp(day: date) -> str:
    return day.strftime("%Y%m%d")


class Wayback:
    def __init__(self, client: ServiceClient, *, availability_url: str = "https://archive.org/wayback/available",
                 cdx_url: str = "https://web.archive.org/cdx/search/cdx",
                 web_url: str = "https://web.archive.org") -> None:
        self.client = client
        self.availability_url = availability_url
        self.cdx_url = cdx_url
        self.web_url = web_url

    def closest(self, url: str, when: date | None = None) -> Snapshot | None:
        """The snapshot to read for ``url``: at or before ``when`` if there is one, else the closest."""
        params = {"url": url}
        if when is not None:
            params["timestamp"] = wayback_timestamp(when)
        answer = self.client.get_json("the Wayback availability API", self.availability_url, params)
        closest = _closest(answer)
        if when is not None and (closest is None or closest[:8] > wayback_timestamp(when)) and self.cdx_url:
            before = self._last_before(url, when)
            closest = before or closest
        return snapshot(url, closest, self.web_url) if closest else None

    def _last_before(self, url: str, when: date) -> str | None:
        rows = self.client.get_json("the Wayback CDX API", self.cdx_url, {
            "url": url, "to": wayback_timestamp(when), "output": "json", "filter": "statuscode:200",
            "limit": "-1", "fl": "timestamp,statuscode"})
        if isinstance(rows, list) and len(rows) > 1 and isinstance(rows[-1], list) and rows[-1]:
            timestamp = str(rows[-1][0])
            return timestamp if timestamp.isdigit() else None
        return None


def _closest(answer: Any) -> str | None:
    try:
        closest = answer["archived_snapshots"]["closest"]
    except (KeyError, TypeError):
        return None
    if not isinstance(closest, dict) or not closest.get("available"):
        return None
    if not str(closest.get("status", "200")).startswith("2"):
        return None
    timestamp = str(closest.get("timestamp", ""))
    return timestamp if timestamp.isdigit() else None
