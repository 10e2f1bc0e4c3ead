"""``refbot review``, ``approve``, ``reject``, ``export`` and ``apply``: curators decide on the references a run
proposes, and the bot writes the approved ones (``bot.review``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bot.output.file_names import run_stem
from bot.cli.arguments import ledger_target, positive_int
from bot.cli.exits import Ended
from bot.cli.signals import stopped_by_signals
from bot.errors import ConfigError, InputError, WriteError
from bot.options import Options
from bot.output.report import naming
from bot.redaction import write_private
from bot.ledger.ledger import RunLedger
from bot.review.actions import (apply, chosen_guids, decide, export_quickstatements, export_wrong_values, preview,
                                left_out_by_support, refuse_over_colleagues, report_too_large,
                                reviewing, run_proposing)
from bot.review.applying import Outcome, edit_lines, editgroups_url
from bot.verifying import export as findings
from bot.wiring import Wiring


def _run_arguments(parser: argparse.ArgumentParser,
                   run_help: str = "the run (as `refbot run` printed it; default: the latest)") -> None:
    parser.add_argument("--run", dest="run_id", type=positive_int, metavar="ID", help=run_help)
    parser.add_argument("--ledger", dest="run_ledger", type=ledger_target, metavar="FILE|URL",
                        help="the run ledger: a SQLite file (default runs.sqlite in the reports folder) or a "
                        "database URL (postgresql://USER@HOST/DB, mysql+pymysql://USER@HOST/DB)")


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {value}")
    return value


def add_parsers(commands: Any) -> None:
    review = commands.add_parser(
        "review", help="review a run's proposed references in the browser (served on 127.0.0.1)",
        description="Serve a run's report on 127.0.0.1 with approve and reject buttons beside each proposed "
                    "reference and its evidence. Decisions are kept in the run ledger with your name ([review] "
                    "curator). A trace file (from `refbot check`) is brought into the ledger as a run first.")
    review.add_argument("trace", nargs="?", type=Path, metavar="TRACE.xml", help="a trace file instead of a run")
    _run_arguments(review)
    review.add_argument("--port", type=int, default=0, metavar="N", help="the port (default: a free one)")
    review.add_argument("--curator", dest="review_curator", metavar="NAME", help="your name (default [review] curator)")

    service = commands.add_parser(
        "serve-review", help="serve the review queue to curators who sign in with their Wikimedia account",
        description="Serve every run's review queue and report as a web service ([service] url): anyone may read, "
                    "an editor [service] deciders names (default: any autoconfirmed account) signs in with their "
                    "Wikimedia account (OAuth 2.0) to decide, and an approved reference is written to the wiki as "
                    "that curator, through their grant. Also serves /api/item/QID for the user script "
                    "(gadget/refbot.js). Run it behind Toolforge's webservice or a Kubernetes Service "
                    "(docs/service.md).")
    service.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1; 0.0.0.0 "
                                                             "in a container)")
    service.add_argument("--port", type=int, default=8000, metavar="N", help="the port (default 8000)")

    for name, verb in (("approve", "approved"), ("reject", "rejected")):
        decide = commands.add_parser(
            name, help=f"record proposed references as {verb}, without the browser",
            description=f"Record the proposed references of these statements (GUIDs, as the report lists them) as "
                        f"{verb}, with your name and the time, and rewrite the run's report.")
        decide.add_argument("guids", nargs="*", metavar="GUID",
                            help="statement GUIDs as Wikidata or the query service print them: 'Q42$…' (quoted: a "
                                 "shell eats an unquoted $), Q42-…, wds:Q42-… or …/entity/statement/Q42-…")
        _run_arguments(decide, "the run (as `refbot run` printed it; default: the newest run that proposes the "
                               "GUIDs named, or with --all-supported the latest)")
        decide.add_argument("--all-supported", action="store_true",
                            help=f"every proposal of the run not decided yet is {verb}")
        decide.add_argument("--min-support", type=_fraction, default=0.0, metavar="P",
                            help="with --all-supported: only proposals whose support is at least P")
        decide.add_argument("--note", default="", help="a note kept with the decision")
        decide.add_argument("--force", action="store_true",
                            help="record the decision over a colleague's other decision of the statement (refused "
                                 "without it, as the review service refuses it)")
        decide.add_argument("--dry-run", action="store_true",
                            help=f"only list what would be {verb} (labels and support); record nothing")
        decide.add_argument("--curator", dest="review_curator", metavar="NAME",
                            help="your name (default [review] curator)")

    export = commands.add_parser(
        "export", help="write a run's proposed references as a QuickStatements batch",
        description="Write the V1 QuickStatements commands that add the run's proposed references (tab-separated, "
                    "one a line) for curators who prefer QuickStatements; or the statements curators marked as "
                    "holding a wrong value, with the evidence, for the editors who correct them.")
    _run_arguments(export)
    kind = export.add_mutually_exclusive_group(required=True)
    kind.add_argument("--wrong-values", action="store_true",
                      help="the statements curators marked as holding a wrong value, a table for editors (TSV)")
    kind.add_argument("--quickstatements", action="store_true", help="the references as QuickStatements V1 commands")
    kind.add_argument("--jsonl", action="store_true",
                      help="a verify run's findings, one JSON line per reference checked (statement GUID, reference "
                           "hash, finding, support, checked date)")
    kind.add_argument("--rdf", action="store_true",
                      help="a verify run's findings as RDF (Turtle), with Wikidata's statement and reference IRIs")
    export.add_argument("--approved", action="store_true", help="only approved references not yet written")
    export.add_argument("--out", type=Path, metavar="FILE",
                        help="the file (default in the reports folder, beside the run's report: "
                             "run-ID-quickstatements.tsv, run-ID-wrong-values.tsv, verify-ID.jsonl or .ttl)")
    export.add_argument("--reports", dest="check_reports", type=Path, metavar="DIR",
                        help="the reports folder the run's files are in ([check] reports; reports/)")

    apply = commands.add_parser(
        "apply", help="write the approved references to Wikidata with pywikibot (simulated unless --live)",
        description="For each approved statement not yet written: read the item again, skip it (with the reason "
                    "recorded) when the statement is gone, its value changed, or it has the reference already, and "
                    "otherwise add the reference in one edit. Without --live nothing is sent: the edits are "
                    "printed. Each edit's revision is recorded; nothing is written twice.")
    _run_arguments(apply, "only this run's approvals (default: every run's)")
    writes = apply.add_mutually_exclusive_group()
    writes.add_argument("--live", action="store_true", help="really edit the wiki ([wikidata] api_url)")
    writes.add_argument("--dry-run", action="store_true",
                        help="print each edit as the review card shows it and send none (the default)")
    apply.add_argument("--limit", type=positive_int, metavar="N", help="at most N edits")


def validate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.command in ("approve", "reject") and bool(args.guids) == bool(args.all_supported):
        parser.error("name statement GUIDs or --all-supported (one of them)")


def run_review(args: argparse.Namespace, options: Options) -> None:
    from bot.review.server import queue_url, serve  # Flask: loaded for the review page only

    with reviewing(options, run_id=args.run_id, trace=args.trace) as (store, run_id):
        counts = store.shelf(run_id).counts()
        too_large = report_too_large(store, run_id)
    curator = _curator_name(options)  # asked (or refused) before anything is served

    def ready(url: str) -> None:
        print(f"review: {queue_url(url)}\nreport: {url}", flush=True)
        print(f"refbot: run {run_id}: {counts.proposals} proposed reference(s), {counts.left} left to decide, as "
              f"{curator}; press Ctrl-C to stop", file=sys.stderr, flush=True)
        if too_large:
            print(f"refbot: {too_large}", file=sys.stderr, flush=True)

    with stopped_by_signals() as stop:  # Ctrl-C or a service manager's SIGTERM: the report is rewritten either way
        report = serve(options, run_id, curator=curator, port=args.port, on_ready=ready, stop=stop)
    if report is not None:
        print(f"refbot: the decisions are in the ledger; report rewritten: {report}", file=sys.stderr)


def _curator_name(options: Options) -> str:
    """[review] curator (or REFBOT_REVIEW_CURATOR, --curator); asked for at a terminal; ConfigError elsewhere."""
    name = options.review.curator.strip()
    if name:
        return name
    if sys.stdin is not None and sys.stdin.isatty():
        try:
            name = input("Your name, kept with each decision ([review] curator): ").strip()
        except EOFError:
            name = ""
    if not name:
        raise ConfigError("no curator name to record the decisions with",
                          hint="set [review] curator in refbot.ini or REFBOT_REVIEW_CURATOR, or pass --curator")
    return name


def run_decide(args: argparse.Namespace, options: Options) -> None:
    decision = "approved" if args.command == "approve" else "rejected"
    with reviewing(options, run_id=args.run_id) as (store, run_id):
        if args.run_id is None and args.guids:  # the run that proposes them, not only the latest
            proposing = run_proposing(store, args.guids)
            if proposing is not None and proposing != run_id:
                print(f"refbot: run {proposing} proposes {'it' if len(args.guids) == 1 else 'them'} (the latest run, "
                      f"{run_id}, does not); deciding in run {proposing}", file=sys.stderr)
                run_id = proposing
                store.index(run_id)
        guids = chosen_guids(store, run_id, args.guids, all_supported=args.all_supported,
                             min_support=args.min_support)
        would = preview(store, run_id, guids, decision, note=args.note)
        left_out = left_out_by_support(store, run_id, args.min_support) if args.all_supported else (0, 0)
        if not args.force:
            refuse_over_colleagues(store, run_id, [proposal.key for proposal in would], decision,
                                   curator=options.review.curator)
        if not args.dry_run:
            changed = set(decide(options, store, run_id, guids, decision, curator=options.review.curator,
                                 note=args.note))
            would = [proposal for proposal in would if proposal.key in changed]
            too_large = report_too_large(store, run_id)
            if too_large:
                print(f"refbot: {too_large}", file=sys.stderr)
    already = f", {len(guids) - len(would)} already were" if len(guids) > len(would) else ""
    if args.dry_run:
        print(f"run {run_id}: {len(would)} reference(s) would be {decision}{already} (dry run: nothing recorded)")
    else:
        print(f"run {run_id}: {len(would)} reference(s) {decision}{already}")
    for proposal in would:
        print(f"  {decision:<9} {proposal.shown} ({proposal.guid})  {proposal.grounds}")
    if left_out[0] or left_out[1]:
        print(f"  left out by --min-support {args.min_support:g}: {left_out[0]} judged below it"
              + (f", {left_out[1]} corroborated by a record (no judge's support: name them, or leave out "
                 "--min-support)" if left_out[1] else ""))


def run_export(args: argparse.Namespace, options: Options) -> Ended | None:
    """The run's batch; a reference QuickStatements would not write faithfully is left out, or written without the
    title or quotation it would change; either is said in the summary and named with its reason below it, and the
    export ends with status 1: a batch never silently lacks a reference or a snak."""
    if args.jsonl or args.rdf:
        _export_findings(args, options)
        return None
    if args.wrong_values:
        with reviewing(options, run_id=args.run_id) as (store, run_id):
            out = args.out or _named(options, store.ledger, run_id, "-wrong-values.tsv")
            written = export_wrong_values(store, run_id, out)
        print(f"run {run_id}: {written} statement(s) whose value curators marked wrong written to {out}")
        return None
    with reviewing(options, run_id=args.run_id) as (store, run_id):
        out = args.out or _named(options, store.ledger, run_id, "-quickstatements.tsv")
        chosen, left_out, trimmed = export_quickstatements(store, run_id, out, approved_only=args.approved)
    kind = "approved reference(s)" if args.approved else "proposed or approved reference(s)"
    total = len(chosen) + len(left_out)
    notes = ([f"{len(left_out)} of the {total} {kind} left out, which QuickStatements would change"]
             if left_out else [])
    if trimmed:
        notes.append(f"{len(trimmed)} written without a title or quotation QuickStatements would change")
    print(f"run {run_id}: {len(chosen)} command(s) written to {out}"
          + (f"; {'; '.join(notes)} (below)" if notes else ""))
    for proposal, problem in left_out:
        print(f"  left out {proposal.shown} ({proposal.guid}): {problem}; use refbot apply, which writes it "
              "verbatim", file=sys.stderr)
    for proposal, note in trimmed:
        print(f"  written {note}: {proposal.shown} ({proposal.guid}); refbot apply writes the whole reference",
              file=sys.stderr)
    return Ended(failed=len(left_out) + len(trimmed)) if left_out or trimmed else None


def _named(options: Options, ledger: RunLedger, run_id: int, suffix: str) -> Path:
    """An export's file beside the run's trace and report: ``reports/run-ID-quickstatements.tsv``, a verify run's
    ``reports/verify-ID.jsonl`` (``bot.output.file_names``)."""
    stem = run_stem(options.check.reports, ledger, run_id)
    return stem.with_name(stem.name + suffix)


def _export_findings(args: argparse.Namespace, options: Options) -> None:
    """A verify run's findings, one record per reference: JSON Lines or Turtle."""
    with RunLedger.of(options.run, create=False) as ledger:
        run_id = args.run_id or _latest(ledger)
        found = findings.recorded(ledger, run_id)
        out = args.out or _named(options, ledger, run_id, ".jsonl" if args.jsonl else ".ttl")
    with naming(out):
        out.parent.mkdir(parents=True, exist_ok=True)
        write_private(out, findings.jsonl(found) if args.jsonl else findings.turtle(found))
    print(f"run {run_id}: {len(found)} reference(s) written to {out}")


def _latest(ledger: RunLedger) -> int:
    latest = ledger.latest_run()
    if latest is None:
        raise InputError(f"the ledger {ledger.path} has no run", hint="run refbot verify first")
    return latest.id


def run_apply(args: argparse.Namespace, options: Options) -> Ended:
    batches: list[str] = []

    def started(account: str, batch: str) -> None:
        batches.append(batch)
        mode = "writing to" if args.live else "simulating (nothing is sent; add --live to write) on"
        print(f"refbot apply: {mode} {options.wikidata.api_url} as {account}", file=sys.stderr)
        if args.live:  # a simulation sends nothing: there is no batch to look at
            print(f"refbot apply: batch {batch}: review or undo its edits at {editgroups_url(batch)}",
                  file=sys.stderr)

    def show(outcome: Outcome) -> None:
        proposal = outcome.proposal
        head = f"{outcome.state:<9} {proposal.shown} ({proposal.guid})"
        if outcome.state == "written":
            print(f"{head}  revision {outcome.revision}" if outcome.revision is not None
                  else f"{head}  ({outcome.reason})")
        elif outcome.state == "simulated" and outcome.edit is not None:
            print(head)
            for line in edit_lines(proposal, outcome.edit):
                print(f"    {line}")
        else:
            print(f"{head}  ({outcome.reason})")

    try:
        outcomes = apply(options, lambda: Wiring(options).wiki(live=args.live), run_id=args.run_id, live=args.live,
                         limit=args.limit, on_start=started, on_outcome=show)
    except WriteError as error:
        return Ended(stopped=error, then="nothing approved is lost: the references not written stay approved for "
                                         "the next apply")
    counts = {state: sum(1 for o in outcomes if o.state == state)
              for state in ("written", "simulated", "skipped", "failed")}
    if not outcomes:
        print("refbot apply: no approved reference waits to be written")
    else:
        print(", ".join(f"{count} {state}" for state, count in counts.items() if count))
        if counts["written"] and batches:
            print(f"batch {batches[0]}: {editgroups_url(batches[0])}")
    return Ended(failed=counts["failed"])


def run_serve_review(args: argparse.Namespace, options: Options) -> None:
    from bot.review.service import serve  # Flask and Authlib: loaded for the service only

    def ready(address: str) -> None:
        print(f"refbot: the review service listens on {address}; press Ctrl-C to stop", file=sys.stderr, flush=True)

    with stopped_by_signals() as stop:  # Ctrl-C or a service manager's SIGTERM: the requests in hand are answered
        serve(options, host=args.host, port=args.port, on_ready=ready, stop=stop)
    print("refbot: the review service stopped", file=sys.stderr, flush=True)


HANDLERS = {"review": run_review, "serve-review": run_serve_review, "approve": run_decide, "reject": run_decide,
            "export": run_export, "apply": run_apply}
