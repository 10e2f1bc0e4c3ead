"""`refbot serve-review`: the review queue as a web service any Wikimedia editor can use, behind Toolforge's
``webservice`` or a Kubernetes Service.

Anyone may read: the queue of each run (``/run/N/queue``), its report (``/run/N/``) and, for the user script on
Wikidata's item pages, what refbot found about an item (``/api/item/QID``, JSON, readable from the ``[service]
cors_origins`` sites). Deciding takes a sign-in with a Wikimedia account (OAuth 2.0 with PKCE, through Authlib, at
``[service] oauth_url``; the consumer's callback is ``[service] url`` + ``/oauth/callback``) by an account
``[service] deciders`` lets decide (``bot.review.curators``). A decision is recorded under the account's name; an
approval is then written to the wiki **as the curator**, through their grant, with the checks `refbot apply` makes
(the item read again, the base revision, maxlag, the statement's value and time qualifiers unchanged, no second
reference to the same source) and one EditGroups batch per sign-in. An approval whose write fails stays approved:
approving it again tries again, and the operator's `refbot apply` writes what is left with the bot account.

The session (the account, its token, the form token, the batch) is kept on the server, in the ledger, encrypted with
``[service] secret_key`` (``bot.review.sessions``): the cookie holds a random id only — HttpOnly, SameSite=Lax (the
provider's redirect back is a top-level navigation), Secure when the service's address is https —, signing out ends
the session for every copy of the cookie, and a session ends after two idle hours or eight in all. A sign-in under
way is kept by the browser (an encrypted cookie that ends in 15 minutes) until the wiki has answered: only a curator
the wiki has named makes a row. Every form carries
the session's form token, and a POST from another origin is refused. Every page forbids other scripts, remote loads
and framing (CSP), as `refbot review`'s do.
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from authlib.integrations.flask_client import OAuth
from authlib.integrations.requests_client import OAuth2Session
from flask import Flask, Response, jsonify, redirect, request, session

from bot.errors import ConfigError, InputError, WriteError
from bot.etiquette import user_agent
from bot.options import Options
from bot.review import curators, limits
from bot.review.action_api import ActionApiWiki
from bot.review import actions as pages
from bot.review.applying import Outcome, apply_approved, new_batch
from bot.review.lanes import Lanes
from bot.review.queue import web
from bot.review import sessions
from bot.review.sessions import LedgerSessions
from bot.review.server import (DONE, FAVICON, HEADERS, MAX_NOTE, _page, edit_summary, meanwhile_page, page_number,
                               queue_response)
from bot.review.stoppable import StopRequest, StoppableServer
from bot.review.store import DecidedMeanwhile, ReviewLedger
from bot.review.undoing import undo_written
from bot.ledger.ledger import RunLedger

_SEEN = re.compile(r"[0-9]{1,18}")
_ITEM = re.compile(r"[Qq][1-9][0-9]{0,11}")
PROVIDER = "wikimedia"
# A run's id as SQLite keeps it (a signed 64-bit integer): a larger one in an address is no run, not an error.
_RUN = "int(max=9223372036854775807):run_id"
# The errors an OAuth 2.0 provider may answer with (RFC 6749 4.1.2.1, 5.2), the only words of its answer shown.
_OAUTH_ERRORS = {
    "access_denied": "you did not allow refbot to use your account",
    "invalid_request": "the provider refused the request", "unauthorized_client": "the provider refused refbot",
    "unsupported_response_type": "the provider refused the request", "invalid_scope": "the provider refused the grant",
    "server_error": "the provider failed", "temporarily_unavailable": "the provider is unavailable for now",
    "invalid_grant": "the sign-in expired or was used already", "invalid_client": "the provider refused refbot",
    "mismatching_state": "the sign-in was not started here or was used already",
}


def own_path(wanted: str) -> str:
    """The address to return to after signing in: ``wanted`` when it is a path of this service (``/run/1/queue?…``),
    else ``/``. Only a path and a query are kept, rebuilt from their parts; anything a browser could read as another
    site is refused, whole: a scheme or a host, a path beginning with two slashes, a backslash (read as a slash),
    control characters and spaces (a browser drops a tab or a newline: "/", a tab, "/evil.example" is
    "//evil.example"), and anything beyond printable ASCII (the service's own addresses never need it)."""
    if not wanted or any(not ("!" <= character <= "~") or character == "\\" for character in wanted):
        return "/"
    parts = urlsplit(wanted)
    if wanted.startswith("//") or parts.scheme or parts.netloc or not parts.path.startswith("/") \
            or parts.path.startswith("//") or {".", ".."} & set(parts.path.split("/")):  # "/.//x" resolves to "//x"
        return "/"
    return urlunsplit(("", "", parts.path, parts.query, ""))


def check_service_options(options: Options) -> str:
    """The service's own address without a trailing slash; ConfigError naming what the service lacks."""
    service = options.service
    missing = [(name, hint) for name, value, hint in (
        ("url", service.url, "the address curators open, such as https://refbot.toolforge.org"),
        ("client_id", service.client_id, "the OAuth 2.0 consumer's client key (Special:OAuthConsumerRegistration)"),
        ("client_secret", service.client_secret, "its secret, in REFBOT_SERVICE_CLIENT_SECRET"),
        ("secret_key", service.secret_key,
         "a long random string that encrypts the sessions kept in the ledger, in REFBOT_SERVICE_SECRET_KEY "
         "(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')"),
    ) if not value]
    if missing:
        name, hint = missing[0]
        raise ConfigError(f"the review service needs [service] {name}", hint=f"set it to {hint}")
    if service.reports_at_once < 1:
        raise ConfigError(f"[service] reports_at_once is {service.reports_at_once}",
                          hint="set it to how many report pages the service may put together at once: 1 or more")
    if len(service.secret_key) < 24:
        raise ConfigError("[service] secret_key is too short to sign sessions with",
                          hint="use at least 24 random characters")
    return service.url.rstrip("/")


def wiki_for(options: Options, token: dict[str, Any], user: str,
             on_token: Callable[[dict[str, Any]], None]) -> ActionApiWiki:
    """The wiki as ``user``, through their OAuth token (refreshed when it expires; ``on_token`` hears the new one)."""
    service = options.service
    http = OAuth2Session(service.client_id, service.client_secret, token=token,
                         token_endpoint=service.oauth_url.rstrip("/") + "/oauth2/access_token",
                         update_token=lambda new, **_: on_token(dict(new)))
    http.headers["User-Agent"] = user_agent(options.contact, "refbot-review-service")
    return ActionApiWiki(options.wikidata.api_url, http, user=user, maxlag=options.apply.maxlag,
                         retries=options.apply.retries, retry_wait=options.apply.retry_wait)


def make_service(options: Options, store: ReviewLedger, *,
                 connect: Callable[[Options, dict[str, Any], str, Callable[[dict[str, Any]], None]],
                                   ActionApiWiki] = wiki_for,
                 session_clock: Callable[[], float] = time.time) -> Flask:
    """The service's application over the run ledger ``store`` (shared by the service's threads, which also keeps
    the sessions: ``bot.review.sessions``, timed by ``session_clock``); ``connect`` makes the wiki a curator's
    approvals are written to."""
    own = check_service_options(options)
    # Each edit summary links the statement's run: the published report, else the run's queue here.
    options = options.replaced(apply_report_url=options.apply.report_url or own + "/run/{run}/queue")
    own_origin = "{0.scheme}://{0.netloc}".format(urlsplit(own))
    service = options.service
    app = Flask(__name__)
    app.jinja_env.globals["favicon"] = FAVICON
    app.add_template_filter(web, "safe_link")
    app.secret_key = service.secret_key
    app.config.update(MAX_CONTENT_LENGTH=64 * 1024, SESSION_COOKIE_NAME="refbot_service",
                      SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Lax",
                      SESSION_COOKIE_SECURE=own.startswith("https://"))
    reports = limits.AtOnce(service.reports_at_once)  # report pages put together at once (the rest: 503)
    kept = app.session_interface = LedgerSessions(store.ledger, service.secret_key, clock=session_clock)
    kept.cookie_name = app.config["SESSION_COOKIE_NAME"]
    app.extensions["refbot.sessions"] = kept  # (serve's threads take a signed-in curator's requests first)
    oauth = OAuth(app)
    provider = service.oauth_url.rstrip("/")
    oauth.register(PROVIDER, client_id=service.client_id, client_secret=service.client_secret,
                   authorize_url=provider + "/oauth2/authorize", access_token_url=provider + "/oauth2/access_token",
                   api_base_url=provider + "/", client_kwargs={"code_challenge_method": "S256"})
    client = oauth.create_client(PROVIDER)

    def signed_in() -> curators.Curator | None:
        user = session.get("user")
        return curators.Curator(user["name"], tuple(user["groups"]), user["blocked"]) if user else None

    def form_token() -> str:
        """The signed-in session's form token ("" for a reader, who has no session and nothing to post)."""
        return str(session.get("csrf") or "")

    def here() -> str:
        """This page, to come back to after signing in: its path and the queue's own parameters (where in the queue),
        never the rest of what the address carried."""
        if request.method != "GET":
            return "/"
        kept = {key: request.args[key] for key in ("show", "property", "at", "after") if request.args.get(key)}
        return request.path + ("?" + urlencode(kept) if kept else "")

    def account() -> dict[str, str]:
        return {"signin": "/login?" + urlencode({"next": here()}), "signout": "/logout",
                "why": curators.refusal(signed_in(), service.deciders)}

    @app.before_request
    def guard() -> Response | None:
        if request.method != "POST":
            return None
        expected = form_token()
        if not expected:  # no session, or one whose sign-in did not complete: nothing to post as
            return _page(403, "Not recorded", curators.refusal(None, service.deciders), "/", "Back to the review queue")
        if not hmac.compare_digest(request.form.get("token", "").encode(), expected.encode()):
            return _page(403, "Refused", "missing or wrong form token; reload the page and try again")
        origin = request.headers.get("Origin")
        if origin is not None and origin != own_origin:
            return _page(403, "Refused", "a request from another site")
        if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            return _page(403, "Refused", "a request from another site")
        return None

    @app.after_request
    def secure(response: Response) -> Response:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    # -- signing in -------------------------------------------------------------------------------------------
    @app.get("/login")
    def login() -> Any:
        # (Someone not signed in keeps the sign-in's state in a short-lived cookie, not a row: bot.review.sessions.)
        for key in [key for key in session if key.startswith("_state_")]:
            del session[key]  # a sign-in begun before and left: its state goes (one session never grows with them)
        session["next"] = own_path(request.args.get("next", "/"))
        return client.authorize_redirect(own + "/oauth/callback")

    @app.get("/oauth/callback")
    def callback() -> Any:
        try:
            token = client.authorize_access_token()
            answer = client.get("oauth2/resource/profile", token=token, timeout=30)
            answer.raise_for_status()
            curator = curators.Curator.from_profile(answer.json())
        except Exception as error:  # the provider said no, or answered what cannot be read: say so, keep nothing
            # of the sign-in (a signed-in curator whose browser followed a forged link stays signed in)
            for key in [key for key in session if key.startswith("_state_") or key == "next"]:
                del session[key]
            app.logger.warning("a sign-in did not complete: %r", error)
            why = _OAUTH_ERRORS.get(str(getattr(error, "error", "")), "the provider's answer could not be read")
            return _page(400, "Not signed in", f"the sign-in with your Wikimedia account did not complete: {why}; "
                                               "sign in again", "/", "Back to the review queue")
        if not getattr(session, "sid", "") and kept.crowded():  # a new session, and the table is full
            response = _page(503, "Busy", "too many curators are signed in at once; try again in a few minutes",
                             "/", "Back to the review queue")
            response.headers["Retry-After"] = str(int(sessions.SIGNING_IN_S // 3))
            return response
        wanted = own_path(str(session.pop("next", "/")))
        sessions.renew(session)  # a new session under a new id (no fixation): a fresh form token and batch
        session.update(user={"name": curator.name, "groups": list(curator.groups), "blocked": curator.blocked},
                       token=dict(token), csrf=secrets.token_urlsafe(32), batch=new_batch())
        return redirect(wanted, code=303)

    @app.post("/logout")
    def logout() -> Any:
        session.clear()
        return redirect("/", code=303)

    # -- reading ----------------------------------------------------------------------------------------------
    @app.get("/")
    def home() -> Any:
        latest = store.latest_reviewable()  # (a run that is not kept for review, a worker's still going: not yet)
        if latest is None:
            return _page(200, "Nothing to review", "no run has been recorded in this service's run ledger yet: "
                                                   "`refbot run` with the same [run] ledger records one (or `refbot "
                                                   "review TRACE.xml` brings a check's trace in), and its queue "
                                                   "opens here")
        return redirect(f"/run/{latest}/queue", code=303)

    def no_run(run_id: int) -> Response:
        """The answer for a run this service cannot show: never the ledger's path or the ledger's own words."""
        return _page(404, "No such run", f"there is no run {run_id} to review here", "/", "To the latest run")

    def busy() -> Response:
        response = _page(503, "Busy", "the service is putting other report pages together; try again in a few "
                                      "seconds", "/", "To the latest run")
        response.headers["Retry-After"] = str(limits.RETRY_AFTER_S)
        return response

    @app.errorhandler(404)
    def not_found(error: Exception) -> Response:
        return _page(404, "Not found", "there is no such page here", "/", "To the latest run")

    @app.get(f"/run/<{_RUN}>/queue")
    def queue_page(run_id: int) -> Any:
        try:
            store.index(run_id)
        except InputError:
            return no_run(run_id)
        curator = signed_in()
        if curator is not None and curator.blocked:  # blocked when last read: read again, the block may be over
            try:
                curator = account_now()
            except WriteError:
                pass  # the queue stays as it was; a decision reads the account again
        # What became of the last approval's edit: said by this service, to this session, never read from the address.
        written = session.pop("written", None)
        written = written["text"] if isinstance(written, dict) and written.get("of") == request.args.get("of") else ""

        def summary_of(card: Any) -> str:
            return edit_summary(options, run_id, card, curator=curator.name if curator else "you",
                                batch=str(session.get("batch") or ""))

        return queue_response(store, run_id, f"/run/{run_id}/", curator=curator.name if curator else "",
                              token=form_token(), can_decide=not curators.refusal(curator, service.deciders),
                              account=account(), summary_of=summary_of, archive_web=options.archive.web_url,
                              written=written)

    @app.get(f"/run/<{_RUN}>/")
    def report_page(run_id: int) -> Any:
        page = page_number(request.args.get("page", "1"))
        with reports.turn() as turn:
            if not turn:
                return busy()
            try:
                html = page and pages.report_page(store, run_id, page)
            except InputError:
                return no_run(run_id)
        if not html:
            return _page(404, "No such page", f"run {run_id}'s report has no such page", f"/run/{run_id}/",
                         "To the report's first page")
        return Response(html, mimetype="text/html")

    @app.get("/api/item/<item>")
    def item_api(item: str) -> Any:
        if not _ITEM.fullmatch(item):
            response = jsonify(error=f"not an item id: {item!r}", hint="ask for an id such as Q42")
            response.status_code = 400
        else:
            response = jsonify(item_findings(store, item.upper(), own))
        origin = request.headers.get("Origin", "")
        if origin in service.cors_origins:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Vary"] = "Origin"
        response.headers["Cache-Control"] = "no-cache"
        response.headers["Cross-Origin-Resource-Policy"] = "cross-origin"
        return response

    # -- deciding ---------------------------------------------------------------------------------------------
    def to_queue(run_id: int, status: int, title: str, message: str) -> Response:
        """A short page saying what was not done, leading back to the run's queue."""
        return _page(status, title, message, f"/run/{run_id}/queue", "Back to the review queue")

    def deciding(run_id: int, title: str) -> curators.Curator | Response:
        """The account deciding now, as the wiki says it is, or the page refusing it (titled ``title``)."""
        try:
            curator = account_now()
        except WriteError as error:
            return to_queue(run_id, 503 if error.code in ("connection", "maxlag", "api") else 403, title,
                            f"the wiki could not confirm your account now ({error}); {error.hint or 'try again'}; "
                            "nothing was done")
        refused = curators.refusal(curator, service.deciders)
        if refused or curator is None:
            return to_queue(run_id, 403, title, refused)
        return curator

    @app.post(f"/run/<{_RUN}>/decide")
    def decide(run_id: int) -> Any:
        base = f"/run/{run_id}/"
        if store.ledger.run(run_id) is None:
            return no_run(run_id)
        curator = deciding(run_id, "Not recorded")
        if isinstance(curator, Response):
            return curator

        guid = request.form.get("guid", "").strip()
        decision = request.form.get("decision", "")
        note, seen = request.form.get("note", ""), request.form.get("seen", "")
        if not guid or decision not in DONE or not _SEEN.fullmatch(seen):
            return to_queue(run_id, 400, "Not recorded", "a decision needs a statement, approve or reject, and the "
                                                         "decision it was made on; reload the page")
        if len(note) > MAX_NOTE:
            return to_queue(run_id, 400, "Not recorded", f"the note is longer than {MAX_NOTE} characters")
        try:
            store.decide(run_id, [guid], decision, curator=curator.name, note=note, seen={guid: int(seen)},
                         confirmed=True,
                         dropped=request.form.getlist("drop") if decision == "approved" else (),
                         paragraph=request.form.get("paragraph", "") if decision == "approved" else "")
        except DecidedMeanwhile as error:
            return meanwhile_page(error, decision, run_id=run_id, base=base, token=form_token())
        except InputError as error:
            return to_queue(run_id, 400, "Not recorded", str(error))
        if decision == "approved":
            session["written"] = {"of": guid, "text": write_as_curator(run_id, guid, curator.name)}
        query = {"show": request.form.get("show", ""), "property": request.form.get("property", ""),
                 "after": guid, "done": decision, "of": guid}
        return redirect(base + "queue?" + urlencode({key: value for key, value in query.items() if value}),
                        code=303)

    @app.post(f"/run/<{_RUN}>/undo")
    def undo(run_id: int) -> Any:
        base = f"/run/{run_id}/"
        if store.ledger.run(run_id) is None:
            return no_run(run_id)
        curator = deciding(run_id, "Not undone")
        if isinstance(curator, Response):
            return curator

        guid, note = request.form.get("guid", "").strip(), request.form.get("note", "")
        if len(note) > MAX_NOTE:
            return to_queue(run_id, 400, "Not undone", f"the note is longer than {MAX_NOTE} characters")
        try:
            review = store.reviews(run_id, [guid])[guid] if guid else None
        except InputError:
            return no_run(run_id)
        proposal = store.proposal(run_id, guid, review) if review is not None else None
        if review is None or proposal is None or review.state != "written" or review.revision is None:
            return to_queue(run_id, 409, "Not undone", "only a reference written to the wiki can be undone; this "
                                                       f"statement's is "
                                                       f"{review.state if review is not None else 'not proposed'}")
        try:
            wiki = connect(options, dict(session.get("token") or {}), curator.name, keep_token)
            revision, why = undo_written(store, wiki, run_id, proposal, curator=curator.name,
                                         written_revision=review.revision, written_reference=review.reference,
                                         note=note,
                                         batch=str(session.get("batch") or new_batch()))
        except WriteError as error:
            return to_queue(run_id, 503 if error.code in ("connection", "maxlag", "api") else 409, "Not undone",
                            f"the wiki refused the undo: {error}; the reference stays on the statement")
        if revision is None:
            return to_queue(run_id, 409, "Not undone", f"{why}; the edit that wrote it: {review.revision_url}")
        session["written"] = {"of": guid, "text": f"taken off as {curator.name}, revision {revision}; decide it "
                                                  "again if you wish"}
        query = {"show": request.form.get("show", ""), "property": request.form.get("property", ""),
                 "at": guid, "done": "undone", "of": guid}
        return redirect(base + "queue?" + urlencode({key: value for key, value in query.items() if value}), code=303)

    def account_now() -> curators.Curator | None:
        """The signed-in account as the wiki says it is now, not as it was at sign-in (blocked or unblocked since,
        its groups changed), kept in the session; None when signed out. WriteError when the wiki cannot say."""
        curator = signed_in()
        if curator is None:
            return None
        curator = connect(options, dict(session.get("token") or {}), curator.name, keep_token).curator()
        session["user"] = {"name": curator.name, "groups": list(curator.groups), "blocked": curator.blocked}
        return curator

    def keep_token(new: dict[str, Any]) -> None:
        """The curator's token as the provider refreshed it."""
        session["token"] = new

    def write_as_curator(run_id: int, guid: str, name: str) -> str:
        """Write the approved reference as the signed-in curator; what happened, in a few words."""
        proposal = store.proposal(run_id, guid, store.reviews(run_id, [guid])[guid])
        if proposal is None:
            return "nothing to write"

        try:
            wiki = connect(options, dict(session.get("token") or {}), name, keep_token)
            outcomes: list[Outcome] = apply_approved(
                store, wiki, [(run_id, proposal)], live=True, model_of=store.model, curator_of=lambda *_: name,
                account_of=lambda *_: name,
                report_url=lambda run: options.apply.report_url.replace("{run}", str(run)),
                documentation=options.apply.documentation_page,
                batch=str(session.get("batch") or new_batch()))
        except WriteError as error:
            return f"not written: {error} — it stays approved; approve it again to retry"
        if not outcomes:
            return "not written: its decision changed meanwhile"
        outcome = outcomes[0]
        if outcome.state == "written":
            return f"written as {name}, revision {outcome.revision}"
        if outcome.state == "skipped":
            return f"not written: {outcome.reason}"
        return f"not written: {outcome.reason} — it stays approved; approve it again to retry"

    return app


def item_findings(store: ReviewLedger, item: str, own: str) -> dict[str, Any]:
    """What refbot found about ``item``'s statements, each from the latest run that checked it: the outcome, and for
    a statement with a card (a proposed reference, evidence against) the reference's snaks, the supporting sentence,
    the evidence against, the decision and a link to the card."""
    statements = []
    for run_id, guid, outcome in store.checked_statements(item):
        found: dict[str, Any] = {"guid": guid, "run": run_id, "outcome": outcome}
        card = store.shelf(run_id).card(guid)
        if card is not None:
            quotation = next((snak.text for snak in card.snaks if snak.property_id == "P1683"), "")
            marked = "".join(text for text, marked in card.paragraph.parts if marked) if card.paragraph else ""
            sentence = marked or quotation or (card.paragraph.text if card.paragraph else "")
            found.update({
                "property": card.property_id, "property_label": card.property_label, "value": card.value_text,
                "state": card.state, "support": round(card.support, 3), "how": card.how,
                "source": ({"url": card.source.url, "title": card.source.title, "site": card.source.site,
                            "read": card.source.read} if card.source else None),
                "sentence": sentence, "paragraph": card.paragraph.text if card.paragraph else "",
                "reference": [{"property": snak.property_id, "label": snak.label, "value": snak.text}
                              for snak in card.snaks],
                "against": [{"url": evidence.url, "site": evidence.site, "why": evidence.why,
                             "paragraph": evidence.paragraph.text} for evidence in card.against],
                "card": f"{own}/run/{run_id}/queue?" + urlencode({"show": "all", "at": guid})})
        statements.append(found)
    return {"item": item, "statements": statements}


def wsgi_app(options: Options) -> Flask:
    """The service for a WSGI server that imports an application (uWSGI under Toolforge's ``webservice``): the ledger
    ``[run]`` names (made empty when there is none yet), opened for the process's life."""
    check_service_options(options)
    return make_service(options, ReviewLedger(RunLedger.of(options.run)))


def serve(options: Options, *, host: str = "127.0.0.1", port: int = 8000, threads: int = 8,
          on_ready: Callable[[str], None] | None = None, stop: StopRequest | None = None) -> None:
    """Serve the review service with waitress until ``stop`` is set (from a signal handler or another thread) or
    Ctrl-C, answering the requests in hand before it returns; ``on_ready`` hears the address it listens on."""
    own = check_service_options(options)
    ledger = RunLedger.of(options.run)  # made empty when no run was recorded yet: the queue says so
    try:
        app = make_service(options, ReviewLedger(ledger))
        lanes = Lanes(app.extensions["refbot.sessions"].is_curator, reserved=min(2, threads - 1))
        server = StoppableServer(app, host=host, port=port, threads=threads, stop=stop, dispatcher=lanes)
        try:
            if on_ready is not None:
                on_ready(f"http://{host}:{server.port}/ (curators open {own}/)")
            server.run()
        except KeyboardInterrupt:
            pass
        finally:
            server.close()  # (run closes it when it ends; this is for an on_ready that raised)
    finally:
        ledger.close()
