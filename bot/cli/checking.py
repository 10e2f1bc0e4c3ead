"""``refbot check``, ``refbot run``, ``refbot report`` and ``refbot demo``: the bot end to end (``bot.check_run``)."""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.checking.records import StatementCheck
from bot.cli import asking, workers
from bot.cli.arguments import (check_options, duration, id_list, judge_options, ledger_target, positive_int,
                               run_or_latest, sparql_options, worklist_from)
from bot.cli.exits import Ended
from bot.cli.progress import Bar
from bot.cli.signals import sigterm_as_ctrl_c
from bot.demo.wikibase import Account
from bot.demo.world import DEMO_ITEM, DEMO_ITEMS, DemoWorld
from bot.doctor import preflight
from bot.errors import RefbotError
from bot.options import Options, ini_text, load_options, without_password
from bot.output import trace as traces
from bot.output.file_names import CLAIM
from bot.output.report import write_report
from bot.output.run_trace import default_stem, run_trace, writable_folder, write_run
from bot.review.proposals import export_problem
from bot.review.store import keep_for_review
from bot.ledger.ledger import RunLedger
from bot.check_run import Progress, Run, RunResult
from bot.wiring import Wiring


def add_parsers(commands: Any) -> None:
    check = commands.add_parser(
        "check", help="dry run on one item: find and judge sources for its unsourced statements",
        description="Check one item's statements that need a reference: search the web and the sources its "
                    "Wikipedia article cites, judge the best paragraphs with the LLM, and write an XML trace and "
                    "an HTML report into reports/. Nothing is written to Wikidata.")
    check.add_argument("qid", type=id_list("item"), metavar="QID", help="the item, e.g. Q36233")
    check.add_argument("--property", type=id_list("property"), action="extend", metavar="PID",
                       help="only statements of this property (repeatable)")
    check_options(check)
    judge_options(check)
    sparql_options(check)

    run = commands.add_parser(
        "run", help="a scheduled run over a worklist, resumable, with a trace and a report",
        description="Check the unsourced statements of many items. Finished statements are kept in a SQLite "
                    "ledger: a run that is stopped or killed resumes where it was when started again with the "
                    "same worklist, and statements checked recently are skipped.")
    source = run.add_mutually_exclusive_group(required=True)
    source.add_argument("--items", type=Path, metavar="FILE", help="one item id a line, or - for standard input")
    source.add_argument("--query", metavar="NAME|FILE.rq", help="a SPARQL query whose ?item column names the items")
    source.add_argument("--worklist", type=id_list("property"), metavar="PID",
                        help="items with unsourced statements of this property")
    asking.add_arguments(run, source, ask_help="the items a question in plain words names, as `refbot select "
                                               "--ask` (with --save, the query is kept for `run --query` next time)")
    source.add_argument("--status", type=run_or_latest, metavar="RUN|latest",
                        help="where a run that workers share stands: its items finished, statements recorded, the "
                             "oldest task still unfinished and the workers seen in the last minute")
    source.add_argument("--new-identity", action="store_true",
                        help="give the ledger an identity of its own, for a copy of another ledger made on purpose "
                             "(the queues and workers of a ledger's runs are named after its identity)")
    source.add_argument("--ledger-moved", action="store_true",
                        help="the ledger was moved here (nothing uses it at its old place): keep its identity and "
                             "record where it lives now")
    run.add_argument("--enqueue", action="store_true",
                     help="put the worklist on the queue ([queue] broker) for `refbot worker` processes, one task "
                          "a batch of items, instead of checking it here")
    run.add_argument("--property", type=id_list("property"), action="extend", metavar="PID",
                     help="only statements of this property (repeatable)")
    run.add_argument("--limit", type=positive_int, metavar="N", help="check at most N statements in this run")
    run.add_argument("--time-budget", type=duration, metavar="DURATION",
                     help="start no statement after this long (e.g. 2h, 90m); the next run goes on")
    run.add_argument("--ledger", dest="run_ledger", type=ledger_target, metavar="FILE|URL",
                     help="the run ledger: a SQLite file (default runs.sqlite in the reports folder) or a "
                     "database URL (postgresql://USER@HOST/DB, mysql+pymysql://USER@HOST/DB)")
    run.add_argument("--recheck-days", dest="run_recheck_days", type=float, metavar="DAYS",
                     help="skip statements another run checked less than DAYS ago (30; 0 checks all again)")
    run.add_argument("--new", action="store_true", help="start a new run even if one with this worklist is unfinished")
    check_options(run)
    judge_options(run)
    sparql_options(run)

    report = commands.add_parser("report", help="render a trace into an HTML report again",
                                 description="Validate a trace against xslt/trace.xsd and render it with "
                                             "xslt/report.xsl.")
    report.add_argument("trace", type=Path, nargs="?", metavar="TRACE.xml",
                        help="a trace written by refbot check or run")
    report.add_argument("--run", type=run_or_latest, metavar="RUN|latest",
                        help="instead: the trace and report of any run of the ledger (checked here or by workers; "
                             "`latest`: its newest run), from the ledger alone, loading no model")
    report.add_argument("--ledger", dest="run_ledger", type=ledger_target, metavar="FILE|URL",
                        help="with --run: the ledger ([run] ledger)")
    report.add_argument("--out", type=Path, metavar="FILE.html", help="default: the trace's path with .html")
    report.add_argument("--reports", dest="check_reports", type=Path, metavar="DIR",
                        help="with --run: the folder the run's trace and report go to ([check] reports; reports/)")

    demo = commands.add_parser(
        "demo", help="serve the offline demo world on loopback and check its demo item",
        description="Start the demo world (a Wikidata-shaped SPARQL store, news sites, a Wikipedia article with "
                    "citations, a dead link with an archived copy, a search engine) on 127.0.0.1 and run "
                    "`refbot check` on its item with the embedded CPU judge.")
    demo.add_argument("qid", nargs="?", type=id_list("item"), default=(DEMO_ITEM,), metavar="QID",
                      help=f"the item (default {DEMO_ITEM})")
    demo.set_defaults(property=None)
    demo.add_argument("--serve", action="store_true",
                      help="only serve the world and print a configuration file for it, until interrupted")
    check_options(demo)
    judge_options(demo)


def _contradiction(check: StatementCheck) -> str:
    """`` (BnF 169902021: date of birth 1974-06-14; https://…: "3 March 1921")``: what the records and the pages that
    contradict the statement say."""
    corroboration = check.corroboration
    said = [f"{r.identifier.prop.database_label or r.identifier.prop.label} {r.identifier.value}: "
            f"{r.chosen.fact.relation} {r.chosen.fact.object_text}" for r in corroboration.records
            if r.finding.value == "contradicted" and r.chosen is not None] if corroboration is not None else []
    said += [f'{document.candidate.url}: "{judged.judgement.contradiction.form}"' for document in check.documents
             if document.evidence for judged in document.contradicting if judged.judgement.contradiction is not None]
    said += [f"{document.candidate.url}: evidence against, {judged.against.reason}" for document in check.documents
             if document.evidence for judged in document.stating_otherwise if judged.against is not None]
    return f"  ({'; '.join(said)})" if said else ""


def _describe(check: StatementCheck) -> list[str]:
    """--verbose: what happened to each document of a statement."""
    lines = [f"{check.statement.item} {check.statement.property_id} {check.statement.value.text}: "
             f"{check.outcome.value} — {check.reason}"]
    for document in check.documents:
        retrieved = document.retrieved
        state = retrieved.outcome.value if retrieved is not None else "read"
        lines.append(f"  {document.candidate.origin} {document.candidate.url} {state}, "
                     f"{len(retrieved.paragraphs) if retrieved else len(document.judged)} paragraph(s)")
        for judged in document.judged:
            lines.append(f"    ¶{judged.ranked.paragraph.position} score {judged.ranked.score:.2f} → "
                         f"{judged.judgement.verdict.value} ({judged.judgement.support:.2f})")
    return lines


def _progress(args: argparse.Namespace, total: int, label: str) -> tuple[Bar, Callable[[Progress], None]]:
    """A progress bar (and --verbose lines) for a run's check; ``label``: what the bar shows per statement."""
    bar = Bar(total, "statement", quiet=args.quiet)

    def show(progress: Progress) -> None:
        if args.verbose:
            for line in _describe(progress.check):
                bar.write(line)
        bar.step(f"{getattr(progress.check.statement, label)} {progress.check.outcome.value}")
    return bar, show


def _written(run: Run, result: RunResult, parts: Wiring) -> tuple[Path, Path]:
    """The run's trace and report, written where the options say; a kept run's decisions shown, and its run element
    kept in the ledger for review."""
    tree = run_trace(result, run.ledger, parts)
    if result.kept:
        keep_for_review(run.ledger, result.run_id, tree)
    return write_run(tree, default_stem(result, parts.options.check.reports, run.ledger), left_out=export_problem)


def _ended(result: RunResult, then: str = "") -> Ended:
    return Ended(failed=result.counts.get("error", 0), stopped=result.failure, then=then)


def run_check(args: argparse.Namespace, options: Options) -> Ended:
    preflight()  # a broken install stops here, named, before any page could be blamed for it (and makes nothing)
    writable_folder(options.check.reports, "[check] reports (--reports)")  # before anything is checked
    parts = Wiring(options)
    with RunLedger(None, clock=parts.clock) as ledger, Run.open(parts, worklist_from(args), ledger) as run:
        bar, show = _progress(args, len(run.todo), "property_id")
        try:
            with bar:
                result = run.check(on_progress=show)
        except KeyboardInterrupt:
            print("trace: {}\nreport: {}".format(*_written(run, run.result(), parts)))  # what was checked is not lost
            raise
        xml, html = _written(run, result, parts)
    print(f"{run.worklist.items[0]}: {len(run.selected)} statement(s) need a reference; {result.summary}")
    for check in result.checked:
        qualifiers = "; ".join(qualifier.display for qualifier in check.statement.qualifiers)
        print(f"  {check.shown_outcome:<13} {check.statement.property_label} → {check.statement.value.text}"
              + (f" — {qualifiers}" if qualifiers else "")
              + (f"  ({check.reference.url})" if check.reference else "") + _contradiction(check))
    print(f"trace: {xml}\nreport: {html}")
    return _ended(result)


def run_run(args: argparse.Namespace, options: Options) -> Ended | None:
    if args.status:
        return workers.run_status(args, options)
    if args.new_identity or args.ledger_moved:
        workers.ledger_home(options, new_identity=args.new_identity)
        return None
    if args.enqueue:
        workers.run_enqueue(args, options)
        return None
    preflight()
    writable_folder(options.check.reports, "[check] reports (--reports)")  # before anything is checked
    parts = Wiring(options)  # one model for the question and the run
    answer = asking.answer(args, options, parts) if args.ask else None
    worklist = worklist_from(args, answer=answer, limit=args.limit)
    with RunLedger.of(options.run, clock=parts.clock) as ledger, \
            Run.open(parts, worklist, ledger, new=args.new, time_budget=args.time_budget) as run:
        if not args.quiet:
            state = f"resuming run {run.id} ({run.done_before} done)" if run.resumed else f"run {run.id}"
            print(f"refbot: {state}: {len(run.selected)} statement(s) selected, {len(run.todo)} to check, "
                  f"{run.skipped} checked in the last {options.run.recheck_days:g} days", file=sys.stderr)
        bar, show = _progress(args, len(run.todo), "item")
        with bar:
            result = run.check(on_progress=show, time_budget=args.time_budget)
        xml, html = _written(run, result, parts)
    print(f"run {run.id}: {sum(result.counts.values())} statement(s) checked; {result.summary}; "
          f"{result.skipped} skipped; {result.left} left")
    print(f"trace: {xml}\nreport: {html}")
    if result.unread and result.failure is None and not args.quiet:
        print(f"refbot: stopped at the time budget before the worklist was read to its end (after "
              f"{run.reached[-1] if run.reached else 'its first item'}); run the same command again to go on",
              file=sys.stderr)
    elif result.left and result.failure is None and not args.quiet:
        print(f"refbot: stopped at the time budget; run the same command again to check the {result.left} left",
              file=sys.stderr)
    if not args.quiet and Path(xml).stem != f"run-{run.id}":  # the folder is another ledger's: say so
        print(f"refbot: {options.check.reports} holds another ledger's run files (its {CLAIM} names that ledger), so "
              f"this ledger's are named {Path(xml).stem}; give it a reports folder of its own with --reports DIR",
              file=sys.stderr)
    proposed = result.counts.get("supported", 0) + result.counts.get("corroborated", 0)
    if proposed and not args.quiet:
        where = _ledger_words(options, args.config)
        print(f"refbot: next, decide on the references it proposes: refbot review --run {run.id}{where} (or refbot "
              f"export --run {run.id}{where} --quickstatements)", file=sys.stderr)
    return _ended(result, "finished statements are saved in the ledger; run the same command again to resume")


def _ledger_words(options: Options, config: Path | None) -> str:
    """`` --ledger LEDGER`` for a next step's command when the ledger is not the one that command would find by
    itself (from the same configuration file ``config`` and environment, without this command's options); ""
    otherwise."""
    chosen = options.run.ledger
    try:
        found = load_options(config).run.ledger
    except RefbotError:
        found = None
    return "" if chosen == found else f" --ledger {without_password(str(chosen))}"


def run_report(args: argparse.Namespace, options: Options) -> None:
    if args.run:
        return workers.report_run(args, options)
    out = args.out or args.trace.with_suffix(".html")
    print(f"report: {write_report(traces.read(args.trace), out, left_out=export_problem)}")


DEMO_CURATOR = "Demo Curator"
DEMO_SERVICE = "http://127.0.0.1:8000"  # where `refbot serve-review` listens by default
GADGET = Path(__file__).resolve().parents[2] / "gadget" / "refbot.js"  # in a clone of the repository


def run_demo(args: argparse.Namespace, options: Options) -> Ended | None:
    curator_password = secrets.token_urlsafe(12)
    accounts = {DEMO_CURATOR: Account({}, groups=(), password=curator_password)}
    with DemoWorld(accounts=accounts) as world:
        overrides = world.options()
        if args.serve:
            consumer = world.oauth.register(DEMO_SERVICE + "/oauth/callback")
            if GADGET.is_file():  # the demo's item pages run the user script, as a curator's common.js would
                world.common_js = f"window.refbotService = {DEMO_SERVICE!r};\n" + GADGET.read_text(encoding="utf-8")
            service = {"service_url": DEMO_SERVICE, "service_oauth_url": world.oauth_url,
                       "service_client_id": consumer.client_id, "service_cors_origins": (world.base("wikidata"),)}
            # The configuration alone on standard output (`refbot demo --serve > refbot.ini`), the rest on standard
            # error.
            print(ini_text({**overrides, "apply_user": world.bot_login, "apply_edit_delay": 0, **service}), flush=True)
            said = [
                "The demo world is served on 127.0.0.1 until you press Ctrl-C; its configuration is on standard "
                "output (`refbot demo --serve > refbot.ini` saves it).\n",
                "Its Wikidata API takes edits from the bot account in it; for `refbot apply --live`:\n",
                f"export REFBOT_APPLY_PASSWORD={world.bot_password}\n",
                f"For the review service: `printf '%s\\n' {' '.join(DEMO_ITEMS)} | refbot run --items -` (with that "
                f"refbot.ini) records a run of the demo's statements, `refbot serve-review` serves its queue; open "
                f"{DEMO_SERVICE}/ and sign in as {DEMO_CURATOR!r}, password "
                f"{curator_password} (the demo's item pages, such as {world.base('wikidata')}/wiki/Q990201, show "
                "what refbot found, and their history the edits made):\n",
                f"export REFBOT_SERVICE_CLIENT_SECRET={consumer.secret}",
                f"export REFBOT_SERVICE_SECRET_KEY={secrets.token_urlsafe(32)}\n"]
            print("\n".join(said), file=sys.stderr, flush=True)
            try:
                with sigterm_as_ctrl_c():  # stopped by a service manager: stop the world cleanly too
                    while True:
                        time.sleep(3600)
            except KeyboardInterrupt:
                return None
        demo_options = options.replaced(**overrides)
        print(f"refbot demo: world on 127.0.0.1 (SPARQL {world.sparql_url}); checking {args.qid[0]} with the "
              f"{demo_options.judge.backend} judge ({demo_options.judge.model})", file=sys.stderr)
        return run_check(args, demo_options)


HANDLERS = {"check": run_check, "run": run_run, "report": run_report, "demo": run_demo}
