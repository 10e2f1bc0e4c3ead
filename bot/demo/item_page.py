"""An item's page as Wikidata renders it, reduced to what tools on the page read: the entity id in ``mw.config``
(``wbEntityId``), one statement group per property (``wikibase-statementgroupview``, ``id`` the property) and one
``wikibase-statementview`` per statement, whose class names its GUID (``wikibase-statement-Q42$…``), with the
main snak's container a user script adds to. ``common_js``: the signed-in user's common.js, run as the wiki runs it
at the end of the page. Pure."""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from typing import Any


def value_text(snak: Mapping[str, Any], label: Callable[[str], str]) -> str:
    value = (snak.get("datavalue") or {}).get("value")
    if snak.get("snaktype") != "value" or value is None:
        return {"novalue": "no value", "somevalue": "unknown value"}.get(str(snak.get("snaktype")), "")
    if isinstance(value, dict) and "id" in value:
        return label(str(value["id"]))
    if isinstance(value, dict) and "time" in value:
        return str(value["time"]).lstrip("+").split("T", 1)[0]
    if isinstance(value, dict) and "amount" in value:
        return str(value["amount"]).lstrip("+")
    if isinstance(value, dict) and "text" in value:
        return str(value["text"])
    return str(value)


def item_page(entity: Mapping[str, Any], label: Callable[[str], str], common_js: str = "") -> str:
    item = str(entity["id"])
    title = label(item)
    groups = []
    for property_id, statements in (entity.get("claims") or {}).items():
        views = "".join(
            f'<div class="wikibase-statementview wikibase-statement-{html.escape(str(statement["id"]))} '
            f'wb-{html.escape(str(statement.get("rank", "normal")))} listview-item wikibase-toolbar-item">'
            '<div class="wikibase-statementview-rankselector"></div>'
            '<div class="wikibase-statementview-mainsnak-container">'
            '<div class="wikibase-statementview-mainsnak" dir="auto"><div class="wikibase-snakview">'
            f'<div class="wikibase-snakview-value">{html.escape(value_text(statement["mainsnak"], label))}</div>'
            '</div></div><div class="wikibase-statementview-qualifiers"></div></div>'
            '<div class="wikibase-statementview-references-container"></div></div>'
            for statement in statements)
        groups.append(
            f'<div class="wikibase-statementgroupview listview-item" id="{html.escape(property_id)}" '
            f'data-property-id="{html.escape(property_id)}"><div class="wikibase-statementgroupview-property">'
            f'{html.escape(label(property_id))}</div><div class="wikibase-statementlistview">'
            f'<div class="wikibase-statementlistview-listview">{views}</div></div></div>')
    config = json.dumps({"wgNamespaceNumber": 0, "wbEntityId": item, "wgTitle": item, "wgUserName": "Demo"})
    script = ("<script>window.mw = window.mw || {config: {values: %s, get: function (name) "
              "{ return this.values[name]; }}};</script>" % config.replace("</", "<\\/"))
    user = f"<script>{common_js.replace('</', '<' + chr(92) + '/')}</script>" if common_js else ""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)} - Wikidata '
            f'(refbot demo world)</title>{script}</head><body class="wb-entitypage ns-0">'
            f'<h1 class="firstHeading"><span class="wikibase-title"><span class="wikibase-title-label">'
            f'{html.escape(title)}</span> <span class="wikibase-title-id">({html.escape(item)})</span></span></h1>'
            f'<p class="page-actions"><a id="ca-history" '
            f'href="/w/index.php?title={html.escape(item)}&amp;action=history">View history</a></p>'
            f'<div class="wikibase-entityview"><h2 class="wb-section-heading">Statements</h2>'
            f'<div class="wikibase-statementgrouplistview">{"".join(groups)}</div></div>{user}</body></html>')
