"""`refbot review`'s pages: the run's review queue and its report with approve/reject forms, served on loopback.

Flask serves three routes under waitress, bound to 127.0.0.1, beneath a secret path drawn for each server
(``/BASE/``): ``GET /BASE/queue`` renders one card of the review queue (``bot.review.queue``, the template
``templates/queue.html``), ``GET /BASE/`` the run's report fresh from the run ledger (``xslt/report.xsl`` in
interactive mode), and ``POST /BASE/decide`` records one decision and redirects to the queue's next card or back to
the statement in the report. A queue page reads one card and the counts, and a decision one statement's rows, from
the run's cards in the ledger (``bot.review.shelf``), never the whole trace; the report page alone puts the trace
together. The report on disk (``reports/run-ID.html``) is rewritten once, when the server stops, if anything was
decided. The report runs no script; the queue runs one, its keyboard handler, allowed by a nonce
drawn for each page (``script-src 'nonce-…'``); every response forbids other scripts, remote loads and framing (CSP).
A request is refused (403) from a client that is not
loopback, with a ``Host`` that is not this server's (DNS rebinding), without this server's token (a fresh one per
server: in the address printed, then an HttpOnly cookie; in the form of a POST too), and, for a POST, from another
origin (``Origin``, ``Sec-Fetch-Site``). Cookies are not scoped by port and SameSite counts every port of 127.0.0.1
as one site, so the cookie is scoped by path to the secret base and named with the port: a browser sends it to no
page of another server on this machine (which cannot know the base). A decision carries the version of the
statement's decision its page showed, and is refused (409) when a colleague decided since. A few threads serve the
requests, sharing one ledger (each transaction on a connection of its own).
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from flask import Flask, Response, redirect, render_template, request
from markupsafe import escape

from bot.errors import ConfigError, InputError
from bot.options import Options
from bot.review import queue as cards
from bot.review.actions import report_page, write_report
from bot.review.summaries import summary_of
from bot.review.proposals import OPTIONAL_SNAKS
from bot.review.shelf import Shelf
from bot.review.stoppable import StopRequest, StoppableServer
from bot.review.store import DecidedMeanwhile, ReviewLedger
from bot.ledger.ledger import RunLedger

# The pages' icon, inline (the policy below lets images come from data: addresses): a tick on Wikidata blue.
FAVICON = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' "
           "height='16' rx='3' fill='%2336c'/%3E%3Cpath d='M4 8.5l2.5 2.5L12 5' stroke='white' stroke-width='2' "
           "fill='none'/%3E%3C/svg%3E")
CONTENT_SECURITY_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
                           "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: a browser sends "Origin: null" on a same-origin POST under no-referrer, and the
    # Origin check needs the real one; links out of the page (sources, Wikidata) still carry no referrer.
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Cross-Origin-Resource-Policy": "same-origin",
}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
COOKIE = "refbot_review"  # + "_PORT"
MAX_NOTE = 1000
_SEEN = re.compile(r"[0-9]{1,18}")
_PROPERTY = re.compile(r"P[1-9][0-9]{0,11}")
_PAGE = re.compile(r"[1-9][0-9]{0,8}")
THREADS = 4
# Each decision as the confirmation line names it.
DONE = {"approved": "Approved", "rejected": "Rejected", "acknowledged": "Seen, left as it is",
        "value-wrong": "Wikidata's value marked wrong"}


def page_number(text: str) -> int:
    """A report page's number from the address (``?page=N``); 0 for anything else (no such page)."""
    return int(text) if _PAGE.fullmatch(text) else 0


def _curator(options: Options, curator: str) -> str:
    name = curator.strip() or options.review.curator.strip()
    if not name:
        raise ConfigError("no curator name to record the decisions with",
                          hint="set [review] curator in refbot.ini or REFBOT_REVIEW_CURATOR, or pass --curator")
    return name


# The short pages' look: the queue's type and colours, a command in a message set as code.
_SHORT_PAGE_STYLE = ("body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:44rem;padding:0 1rem;"
                     "color:#202122;background:#f8f9fa}h1{font-size:1.3rem}code{font:.92em ui-monospace,monospace;"
                     "background:#eaecf0;padding:0 .25em;border-radius:2px}a{color:#36c}")


def _page(status: int, title: str, message: str, home: str = "", back_to: str = "Back to the report") -> Response:
    """A short page; ``home``: the report's address, for a link back (never on a refusal: it is a secret). A command
    the message names between backticks (`refbot run`) is shown as code, the rest as text."""
    back = f"<p><a href=\"{escape(home)}\">{escape(back_to)}</a></p>" if home else ""
    said = re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(message)))
    body = (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<meta name=\"viewport\" content=\"width=device-width\"><style>{_SHORT_PAGE_STYLE}</style>"
            f"<link rel=\"icon\" href=\"{FAVICON}\"></head>"
            f"<body><h1>{escape(title)}</h1><p>{said}</p>{back}</body></html>")
    return Response(body, status=status, mimetype="text/html")


def cookie_name(port: int | str) -> str:
    return f"{COOKIE}_{port}"


def queue_url(url: str) -> str:
    """The review queue's address beside the report's (``http://…/BASE/?token=…`` → ``…/BASE/queue?token=…``)."""
    page, _, query = url.partition("?")
    return f"{page}queue?{query}" if query else f"{page}queue"


def new_base() -> str:
    """A secret path for one server's pages (and its cookie): ``/<random>/``."""
    return f"/{secrets.token_urlsafe(18)}/"


def meanwhile_page(error: DecidedMeanwhile, decision: str, *, run_id: int, base: str, token: str) -> Response:
    """409: a colleague decided the statement since the page was shown. Styled as the queue, with the curator's note
    kept in a form that records their decision over the colleague's if they still want it."""
    show, prop = request.form.get("show", ""), request.form.get("property", "")
    html = render_template("meanwhile.html", run_id=run_id, base=base, token=token, guid=error.guid,
                           seen=error.review.decision_id, decision=decision, note=request.form.get("note", ""),
                           show=show, prop=prop, message=_meanwhile(error, decision),
                           card_link=base + "queue?" + urlencode({"show": "all", "at": error.guid}))
    return Response(html, status=409, mimetype="text/html")


def _meanwhile(error: DecidedMeanwhile, decision: str) -> str:
    review = error.review
    note = f" with the note “{review.note}”" if review.note else ""
    return (f"A colleague decided this statement meanwhile: {review.curator or 'a curator'} {review.state} it at "
            f"{review.decided}{note}. Your decision ({decision}) was not recorded; the report now shows theirs, "
            "decide again if you still disagree.")


# What the service did besides deciding, as its confirmation line says it.
DONE_BESIDES = {"undone": "Undone, the reference taken off the statement"}


def _flash(shelf: Shelf, done: str, guid: str) -> tuple[str, str]:
    """The line confirming the decision just recorded ("Approved: Marta Novotná · award received · …")."""
    said = DONE.get(done) or DONE_BESIDES.get(done)
    card = shelf.card(guid) if guid and said else None
    if card is None or said is None:
        return "", ""
    return f"{said}: {card.title}", "rejected" if done in ("rejected", "value-wrong", "undone") else "approved"


def _loopback(address: str | None) -> bool:
    try:
        ip = ipaddress.ip_address((address or "").split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


def edit_summary(options: Options, run_id: int, card: cards.Card, *, curator: str, batch: str = "") -> str:
    """The summary the edit of the card's reference carries, as `apply` (or the service) writes it, from the card
    alone; without ``batch``, the batch's EditGroups tag is left out (`apply` draws it)."""
    return summary_of(card.property_id, card.property_label, card.found_by, curator=curator,
                      report_url=options.apply.report_url.replace("{run}", str(run_id)),
                      documentation=options.apply.documentation_page, batch=batch, value=card.value_text)


def queue_response(review: ReviewLedger, run_id: int, base: str, *, curator: str, token: str,
                   can_decide: bool = True, account: dict[str, str] | None = None,
                   summary_of: Callable[[cards.Card], str] | None = None, archive_web: str = "",
                   written: str = "") -> Response:
    """The review queue's page of the run for this request's filter, property and place (``request.args``); the
    run's pages are beneath ``base``; decisions carry ``token`` and are made as ``curator``. Without ``can_decide``
    the card is shown without its approve and reject buttons; ``account``: the review service's sign-in links
    (``signin``, ``signout``, ``why``: the reason the signed-in account may not decide); ``summary_of``: the summary
    the edit of a card's reference would carry; ``archive_web``: where archived copies are read
    (:func:`bot.review.queue.archived_where_read`); ``written``: what became of the last decision's edit, said by the
    caller (never read from the request)."""
    chosen = request.args.get("show", cards.DEFAULT_FILTER)
    chosen = chosen if chosen in cards.FILTERS else cards.DEFAULT_FILTER
    prop = request.args.get("property", "")
    prop = prop if _PROPERTY.fullmatch(prop) else ""
    shelf = review.index(run_id)  # (a run still checked: its statements recorded since)
    with review.ledger.transaction():  # one view of the run for the whole page
        card = shelf.pick(chosen, prop, at=request.args.get("at", ""), after=request.args.get("after", ""),
                          decided=bool(request.args.get("done")))
        flash, flash_state = _flash(shelf, request.args.get("done", ""), request.args.get("of", ""))
        counts = shelf.counts(chosen, prop)
        properties = shelf.properties()
        left_by = shelf.left_by_property()
        last = review.last_decision(run_id, curator) if curator else None
        last_card = shelf.card(last[0]) if last is not None else None
        previous = shelf.neighbour(chosen, prop, card.guid, -1) if card is not None else None
    if card is not None:
        card = cards.archived_where_read(card, archive_web)
    if flash and written:
        flash += f" — {written}"

    def link(name: str, pid: str, *, after: str = "", at: str = "") -> str:
        query = {"show": name, "property": pid, "after": after, "at": at}
        return base + "queue?" + urlencode({key: value for key, value in query.items() if value})

    nonce = secrets.token_urlsafe(16)
    html = render_template(
        "queue.html", card=card, run_id=run_id, curator=curator, token=token, base=base, nonce=nonce,
        chosen=chosen, prop=prop, filters=list(cards.FILTERS.items()), properties=properties,
        against=counts.against, left=counts.left, proposals=counts.proposals, decided=counts.decided,
        shown=counts.shown, to_resolve=counts.to_resolve,
        flash=flash, flash_state=flash_state, link=link, previous=previous,
        can_decide=can_decide, account=account, left_by=left_by, optional=OPTIONAL_SNAKS,
        last=(last_card.guid, f"{DONE.get(last[1] if last else '', '')}: {last_card.title}") if last_card else None,
        edit_summary=summary_of(card) if summary_of is not None and card is not None and card.found_by else "")
    response = Response(html, mimetype="text/html")
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY + f"; script-src 'nonce-{nonce}'"
    return response


def make_app(options: Options, run_id: int, *, curator: str, token: str, base: str,
             store: ReviewLedger | None = None, on_decision: Callable[[str], None] | None = None) -> Flask:
    """The review application for one run, served beneath ``base`` (a secret path, :func:`new_base`); decisions
    are recorded under ``curator`` and need ``token``; ``store``: the run's ledger (by default the one ``[run]``
    names, opened now); ``on_decision`` hears the GUID of each decision recorded."""

    name = _curator(options, curator)
    if not token:
        raise ValueError("the review server needs a token")
    if len(base) < 18 or not base.startswith("/") or not base.endswith("/") or "/" in base[1:-1]:
        raise ValueError("the review server needs a secret path, /<random>/")
    review = store if store is not None else ReviewLedger(RunLedger.of(options.run, create=False))
    app = Flask(__name__)
    app.jinja_env.globals["favicon"] = FAVICON
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    app.add_template_filter(cards.web, "safe_link")

    def answer(status: int, title: str, message: str) -> Response:
        if request.form.get("back") == "queue":
            return _page(status, title, message, base + "queue", "Back to the review queue")
        return _page(status, title, message, base)

    def refused(why: str) -> Response:
        return _page(403, "Refused", why)

    @app.before_request
    def guard() -> Response | None:
        if not _loopback(request.remote_addr):
            return refused("this server answers its own machine only")
        port = request.environ.get("SERVER_PORT", "")
        host = request.headers.get("Host", "").lower()
        if host not in {f"{loopback}:{port}" for loopback in LOOPBACK_NAMES}:
            return refused(f"unexpected Host header; open http://127.0.0.1:{port}/")
        # The page needs the token too (the address `refbot review` printed carries it, then a cookie does): other
        # users of this machine reach loopback as well.
        given = request.args.get("token") or request.cookies.get(cookie_name(port), "")
        if not hmac.compare_digest(given.encode(), token.encode()):
            return refused("missing or wrong session token; open the address `refbot review` printed")
        if not request.path.startswith(base):
            return answer(404, "Not found", "no such page; open the address `refbot review` printed")
        if request.method != "POST":
            return None
        if not hmac.compare_digest(request.form.get("token", "").encode(), token.encode()):
            return refused("missing or wrong session token; reload the page from the review server")
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"http://{host}":
            return refused("a request from another site")
        if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            return refused("a request from another site")
        return None

    @app.after_request
    def secure(response: Response) -> Response:
        for name, value in HEADERS.items():  # a route may only have set a stricter policy (the queue's nonce)
            response.headers.setdefault(name, value)
        if request.args.get("token") == token:
            port = request.environ.get("SERVER_PORT", "")
            response.set_cookie(cookie_name(port), token, httponly=True, samesite="Strict", path=base)
        return response

    @app.get(base)
    def page() -> Response:
        number = page_number(request.args.get("page", "1"))
        html = number and report_page(review, run_id, number, review_token=token, review_run=str(run_id),
                                      review_curator=name, review_base=base)
        if not html:
            return _page(404, "No such page", f"run {run_id}'s report has no such page", base, "To the report")
        return Response(html, mimetype="text/html")

    @app.get(base + "queue")
    def queue_page() -> Response:
        return queue_response(review, run_id, base, curator=name, token=token, archive_web=options.archive.web_url,
                              summary_of=lambda card: edit_summary(options, run_id, card, curator=name))

    @app.post(base + "decide")
    def decide_one() -> Any:
        guid = request.form.get("guid", "").strip()
        decision = request.form.get("decision", "")
        note = request.form.get("note", "")
        seen = request.form.get("seen", "")
        if not guid or decision not in DONE:
            return answer(400, "Not recorded", "a decision needs a statement and approve or reject")
        if not _SEEN.fullmatch(seen):
            return answer(400, "Not recorded", "the form does not say which decision it was made on; reload the page")
        if len(note) > MAX_NOTE:
            return answer(400, "Not recorded", f"the note is longer than {MAX_NOTE} characters")
        try:
            changed = review.decide(run_id, [guid], decision, curator=name, note=note, seen={guid: int(seen)},
                                    dropped=request.form.getlist("drop") if decision == "approved" else (),
                                    paragraph=request.form.get("paragraph", "") if decision == "approved" else "")
        except DecidedMeanwhile as error:
            if request.form.get("back") == "queue":
                return meanwhile_page(error, decision, run_id=run_id, base=base, token=token)
            return answer(409, "Decided meanwhile", _meanwhile(error, decision))
        except InputError as error:
            return answer(400, "Not recorded", str(error))
        if changed and on_decision is not None:
            on_decision(guid)
        if request.form.get("back") == "queue":
            query = {"show": request.form.get("show", ""), "property": request.form.get("property", ""),
                     "after": guid, "done": decision, "of": guid}
            return redirect(base + "queue?" + urlencode({key: value for key, value in query.items() if value}),
                            code=303)
        return redirect(base + "#" + quote("statement-" + guid.replace(" ", "_"), safe="$"), code=303)

    return app


def serve(options: Options, run_id: int, *, curator: str, port: int = 0,
          on_ready: Callable[[str], None] | None = None, stop: StopRequest | None = None) -> Path | None:
    """Serve the review page of ``run_id`` on http://127.0.0.1:PORT/BASE/ (``port`` 0: a free one; BASE a secret
    path drawn now) until ``stop`` is set (from a signal handler or another thread) or Ctrl-C; ``on_ready`` gets
    the page's URL (with the session's token) once the server listens. The requests in hand are answered before it
    stops. Then, if anything was decided, the run's report is rewritten: its path (None when nothing was).
    ConfigError without a curator name; InputError when the ledger has no trace of the run."""
    name = _curator(options, curator)
    ledger = RunLedger.of(options.run, create=False)
    try:
        store = ReviewLedger(ledger)
        store.index(run_id)  # InputError now rather than on the first page
        token, base = secrets.token_urlsafe(32), new_base()
        decided: list[str] = []
        app = make_app(options, run_id, curator=name, token=token, base=base, store=store,
                       on_decision=decided.append)
        server = StoppableServer(app, host="127.0.0.1", port=port, threads=THREADS, stop=stop)
        url = f"http://127.0.0.1:{server.port}{base}?token={token}"
        try:
            if on_ready is not None:
                on_ready(url)
            server.run()
        except KeyboardInterrupt:
            pass
        finally:
            server.close()  # (run closes it when it ends; this is for an on_ready that raised)
        written = write_report(options, store, run_id) if decided else None
        return written[1] if written is not None else None
    finally:
        ledger.close()
