"""Who may decide in the review service: a signed-in Wikimedia account, as the OAuth provider's profile describes it,
against ``[service] deciders``. Pure.

``deciders`` lists user names, or ``autoconfirmed`` for any autoconfirmed account (the default: the editors who may
edit semi-protected items may approve a reference); a blocked account never decides, whatever the list says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

ANY_AUTOCONFIRMED = "autoconfirmed"


@dataclass(frozen=True)
class Curator:
    """A signed-in account: its name, groups and whether it is blocked (from the provider's profile)."""

    name: str
    groups: tuple[str, ...] = ()
    blocked: bool = False

    @classmethod
    def from_profile(cls, profile: Mapping[str, Any]) -> Curator:
        """From MediaWiki's ``/oauth2/resource/profile`` answer; ValueError without a user name."""
        name = str(profile.get("username") or "").strip()
        if not name:
            raise ValueError("the OAuth profile names no user")
        groups = tuple(str(group) for group in profile.get("groups") or ())
        return cls(name, groups, bool(profile.get("blocked")))


def _same_name(left: str, right: str) -> bool:
    """MediaWiki user names: the first letter's case and underscores for spaces do not matter."""
    def norm(name: str) -> str:
        name = " ".join(name.replace("_", " ").split())
        return name[:1].upper() + name[1:]
    return norm(left) == norm(right)


def refusal(curator: Curator | None, deciders: Iterable[str]) -> str:
    """Why ``curator`` may not decide ("" when they may): signed out, blocked, or not among ``deciders``."""
    if curator is None:
        return "sign in with your Wikimedia account to decide"
    if curator.blocked:
        return f"{curator.name} is blocked on the wiki, and may not decide"
    allowed = [entry.strip() for entry in deciders if entry.strip()]
    if ANY_AUTOCONFIRMED in allowed and ANY_AUTOCONFIRMED in curator.groups:
        return ""
    if any(_same_name(entry, curator.name) for entry in allowed if entry != ANY_AUTOCONFIRMED):
        return ""
    if ANY_AUTOCONFIRMED in allowed:
        return f"{curator.name} is not autoconfirmed yet, and this service lets autoconfirmed editors decide"
    return f"{curator.name} is not among the curators this service's operator lets decide"
