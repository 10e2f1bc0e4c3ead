"""The demo Wikibase's history, as a wiki shows it: an item's history (``action=history``), one edit's difference
(``index.php?diff=N``), a user's contributions (``Special:Contributions/NAME``) and the recent changes
(``Special:RecentChanges``), and the same for programs (``prop=revisions``, ``list=usercontribs``,
``list=recentchanges``, in the API's formatversion 2). Wikidata's own pages are the model: a history line gives the
time, the user, the edit summary and a link to the difference; the difference shows the statement before and after,
its references snak by snak, what was removed on the left and what was added on the right. Pure: a revision's
statements are given (``Revision.before`` and ``Revision.after``), labels are looked up through ``label``."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from bot.demo.item_page import value_text

JSON = dict[str, Any]
STYLE = ("body{font:14px/1.45 system-ui,sans-serif;margin:1rem 2rem;color:#202122}"
         "table.diff{border-collapse:collapse;width:100%;table-layout:fixed}"
         "table.diff td{vertical-align:top;padding:.2rem .5rem;overflow-wrap:anywhere}"
         "td.removed{background:#ffe49c}td.added{background:#a3d3ff}td.context{color:#54595d}"
         "ul.history li{margin:.2rem 0}.comment{font-style:italic;color:#54595d}.bot{font-weight:700}")


@dataclass(frozen=True)
class Revision:
    """One edit of an item: by the API (a user's write) or by a test (user ``(demo)``); ``parent`` the item's
    revision before it; ``before`` and ``after`` the statement it changed (None: there was none, or none is left)."""

    revid: int
    entity: str
    user: str
    action: str
    statement: str = ""
    summary: str = ""
    bot: bool = False
    parent: int = 0
    timestamp: str = ""
    before: JSON | None = None
    after: JSON | None = None


# -- for programs ---------------------------------------------------------------------------------------------------
def _change(revision: Revision) -> JSON:
    return {"ns": 0, "title": revision.entity, "revid": revision.revid, "parentid": revision.parent,
            "user": revision.user, "timestamp": revision.timestamp, "comment": revision.summary,
            **({"bot": True} if revision.bot else {})}


def user_contributions(revisions: Sequence[Revision], user: str, limit: int = 50) -> list[JSON]:
    """``list=usercontribs``' answer: the user's edits, newest first."""
    wanted = user.replace("_", " ")
    return [{**_change(revision), "userid": 0}
            for revision in reversed(revisions) if revision.user == wanted][:limit]


def recent_changes(revisions: Sequence[Revision], *, user: str = "", bots: bool | None = None,
                   limit: int = 50) -> list[JSON]:
    """``list=recentchanges``' answer, newest first: of ``user`` alone when given; ``bots`` False leaves out the
    edits flagged as a bot's (``rcshow=!bot``), True keeps only them."""
    chosen = [revision for revision in reversed(revisions)
              if (not user or revision.user == user.replace("_", " ")) and (bots is None or revision.bot == bots)]
    return [{"type": "edit", "rcid": revision.revid, "old_revid": revision.parent, **_change(revision)}
            for revision in chosen[:limit]]


def page_revisions(revisions: Sequence[Revision], entity: str, limit: int = 50) -> list[JSON]:
    """``prop=revisions``' revisions of one item, newest first."""
    return [_change(revision) for revision in reversed(revisions) if revision.entity == entity][:limit]


# -- for people -----------------------------------------------------------------------------------------------------
def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} - Wikidata '
            f"(refbot demo world)</title><style>{STYLE}</style></head><body><h1 class=\"firstHeading\">"
            f"{html.escape(title)}</h1>{body}</body></html>")


def _user_link(user: str) -> str:
    return (f'<a class="mw-userlink" href="/wiki/Special:Contributions/{quote(user.replace(" ", "_"))}">'
            f"{html.escape(user)}</a>")


def _line(revision: Revision, label: Callable[[str], str], *, item: bool) -> str:
    """One line of a history, a contributions list or the recent changes."""
    diff = f'<a class="mw-changeslist-diff" href="/w/index.php?{urlencode({"diff": revision.revid})}">diff</a>'
    title = (f' · <a href="/wiki/{quote(revision.entity)}">{html.escape(label(revision.entity))} '
             f"({html.escape(revision.entity)})</a>") if item else ""
    flag = ' <abbr class="bot" title="This edit was performed by a bot">b</abbr>' if revision.bot else ""
    comment = f' <span class="comment">({html.escape(revision.summary)})</span>' if revision.summary else ""
    return (f'<li data-revid="{revision.revid}">({diff}) {html.escape(revision.timestamp)}{title} · '
            f"{_user_link(revision.user)}{flag}{comment}</li>")


def _lines(revisions: Iterable[Revision], label: Callable[[str], str], *, item: bool, empty: str) -> str:
    lines = [_line(revision, label, item=item) for revision in revisions]
    return f'<ul class="history">{"".join(lines)}</ul>' if lines else f"<p>{html.escape(empty)}</p>"


def history_page(revisions: Sequence[Revision], entity: str, label: Callable[[str], str]) -> str:
    """An item's history: its edits in this world, newest first (those made before the world started are not
    kept)."""
    edits = [revision for revision in reversed(revisions) if revision.entity == entity]
    return _page(f"{label(entity)} ({entity}): Revision history",
                 f'<p><a href="/wiki/{quote(entity)}">Back to the item</a></p>'
                 + _lines(edits, label, item=False, empty="No edits since the demo world started."))


def contributions_page(revisions: Sequence[Revision], user: str, label: Callable[[str], str]) -> str:
    """A user's contributions, newest first."""
    name = user.replace("_", " ")
    edits = [revision for revision in reversed(revisions) if revision.user == name]
    return _page(f"User contributions for {name}",
                 _lines(edits, label, item=True, empty=f"{name} has made no edits in the demo world."))


def recent_changes_page(revisions: Sequence[Revision], label: Callable[[str], str]) -> str:
    return _page("Recent changes", _lines(list(reversed(revisions)), label, item=True,
                                          empty="No edits since the demo world started."))


def _snak_text(snak: Mapping[str, Any], label: Callable[[str], str]) -> str:
    return f"{label(str(snak.get('property', '')))}: {value_text(snak, label)}"


def _statement_rows(statement: JSON | None, label: Callable[[str], str]) -> list[tuple[str, str]]:
    """A statement as the difference compares it: (key, text) rows, its value then each reference's snaks."""
    if statement is None:
        return []
    rows = [("value", f"{_snak_text(statement['mainsnak'], label)} ({statement.get('rank', 'normal')} rank)")]
    for reference in statement.get("references") or []:
        for property_id in reference.get("snaks-order") or list(reference.get("snaks") or {}):
            for snak in (reference.get("snaks") or {}).get(property_id, []):
                text = _snak_text(snak, label)
                rows.append((f"reference {reference.get('hash', '')} {text}", f"reference: {text}"))
    return rows


def diff_page(revision: Revision, label: Callable[[str], str]) -> str:
    """The difference one edit made: the statement before on the left, after on the right, the rows it removed and
    added marked."""
    before, after = _statement_rows(revision.before, label), _statement_rows(revision.after, label)
    kept_before, kept_after = {key for key, _ in before}, {key for key, _ in after}
    rows = []
    for key, text in before:
        if key not in kept_after:
            rows.append(f'<tr><td class="removed">− {html.escape(text)}</td><td></td></tr>')
        else:
            rows.append(f'<tr><td class="context">{html.escape(text)}</td><td class="context">{html.escape(text)}</td>'
                        "</tr>")
    rows += [f'<tr><td></td><td class="added">+ {html.escape(text)}</td></tr>'
             for key, text in after if key not in kept_before]
    flag = " (bot edit)" if revision.bot else ""
    head = (f'<table class="diff" id="diff"><tr><th>Revision {revision.parent or "before"}</th>'
            f'<th>Revision {revision.revid} as of {html.escape(revision.timestamp)} by {_user_link(revision.user)}'
            f'{flag}<br><span class="comment" id="summary">{html.escape(revision.summary)}</span></th></tr>')
    title = f"{label(revision.entity)} ({revision.entity})"
    return _page(f"{title}: Difference between revisions",
                 f'<p><a href="/wiki/{quote(revision.entity)}">{html.escape(title)}</a> · '
                 f'<a href="/w/index.php?{urlencode({"title": revision.entity, "action": "history"})}">View history'
                 f"</a></p><p>Statement {html.escape(revision.statement)}</p>{head}{''.join(rows)}</table>")
