"""What Wikimedia asks of clients: a User-Agent naming the tool, its version and a contact.

Policy: ``<client>/<version> (<contact URL or email>) <library>/<version>``; generic agents may be blocked,
so refbot refuses to talk to a Wikimedia host until the operator has configured a contact.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from bot import __version__
from bot.errors import ConfigError
from bot.redaction import redact_url

WIKIMEDIA_DOMAINS = ("wikidata.org", "wikipedia.org", "wikimedia.org", "wikimediafoundation.org",
                     "wikisource.org", "wikiquote.org", "wiktionary.org", "wikivoyage.org", "wikinews.org",
                     "wikibooks.org", "wikiversity.org", "mediawiki.org", "toolforge.org", "wmcloud.org")
_CONTACT = re.compile(r"^(?:[^@\s()]+@[^@\s()]+\.[^@\s()]+|https?://[^\s()]+)$")
NO_CONTACT_HINT = ("set a contact (your email address or user page URL) with `contact = …` in refbot.ini's "
                   "[refbot] section or REFBOT_CONTACT")


def is_wikimedia(url: str) -> bool:
    """Whether ``url`` is on a Wikimedia host; False for what does not parse as a URL (``http://[::1``), which
    reaches no host (the options refuse such a URL by name)."""
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    return any(host == domain or host.endswith("." + domain) for domain in WIKIMEDIA_DOMAINS)


def check_contact(contact: str) -> str:
    contact = contact.strip()
    if contact and not _CONTACT.match(contact):
        raise ConfigError(f"contact {contact!r} is neither an email address nor an http(s) URL", hint=NO_CONTACT_HINT)
    return contact


def user_agent(contact: str, library: str) -> str:
    """``refbot/0.1.0 (bot-operator@example.org) SPARQLWrapper/2.0.0``; without a contact the parentheses go."""
    contact = check_contact(contact)
    return f"refbot/{__version__} ({contact}) {library}" if contact else f"refbot/{__version__} {library}"


def require_contact(url: str, contact: str, service: str) -> None:
    if is_wikimedia(url) and not check_contact(contact):
        raise ConfigError(f"refusing to query {service} {redact_url(url, service=True)} without a contact in the "
                          "User-Agent, as Wikimedia's User-Agent policy requires", hint=NO_CONTACT_HINT)
