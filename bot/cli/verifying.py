"""``refbot verify``: the references statements already have, read and judged (``bot.verifying``)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.output.file_names import run_stem
from bot.cli.arguments import (check_options, duration, id_list, judge_options, ledger_target, positive_int,
                               sparql_options, worklist_from)
from bot.cli import workers
from bot.cli.exits import Ended
from bot.cli.progress import Bar
from bot.doctor import preflight
from bot.errors import InputError
from bot.options import Options
from bot.output.run_trace import verify_trace, writable_folder, write_run
from bot.review.store import ReviewLedger, keep_for_review
from bot.ledger.ledger import RunLedger
from bot.selection.binding import DOMAIN_PATTERN
from bot.selection.worklists import Worklist
from bot.verifying.records import ORDER, ReferenceCheck, statement_verdict, summarise
from bot.verify_run import Progress, VerifyResult, VerifyRun
from bot.wiring import Wiring


def add_parsers(commands: Any) -> None:
    verify = commands.add_parser(
        "verify", help="audit the references statements already have: does each cited page still support it?",
        description="For each statement of the items named that cites a page (a reference URL, P854, or an "
                    "external identifier whose property has a formatter URL), read the page as it is now — its "
                    "archived copy closest to the reference's retrieved date when it is dead, moved or a \"not "
                    "found\" page — and judge it against the statement as `refbot check` judges a page. One "
                    "finding per reference: supports, does-not-support, contradicts, dead-archived, "
                    "dead-no-archive, unreadable, error. The run is kept in the ledger (resumable; `refbot export "
                    "--run N --jsonl|--rdf` publishes one record per reference) with a trace and a report.")
    verify.add_argument("qids", nargs="*", type=id_list("item"), metavar="QID", help="items, e.g. Q42 Q1339")
    source = verify.add_mutually_exclusive_group()
    source.add_argument("--items", type=Path, metavar="FILE", help="one item id a line (PagePile), or - for stdin")
    source.add_argument("--query", metavar="NAME|FILE.rq",
                        help="a SPARQL query whose ?item column names the items (e.g. oldest-references)")
    source.add_argument("--worklist", type=id_list("property"), metavar="PID",
                        help="the items with statements of this property that cite a page, a page at a time")
    verify.add_argument("--domain", metavar="HOST",
                        help="with --worklist: only references to pages on this web domain (e.g. bbc.co.uk)")
    verify.add_argument("--property", type=id_list("property"), action="extend", metavar="PID",
                        help="only statements of this property (repeatable)")
    verify.add_argument("--limit", type=positive_int, metavar="N", help="verify at most N references in this run")
    verify.add_argument("--time-budget", type=duration, metavar="DURATION",
                        help="start no reference after this long (e.g. 2h); the next run goes on")
    verify.add_argument("--ledger", dest="run_ledger", type=ledger_target, metavar="FILE|URL",
                        help="the run ledger (default runs.sqlite in the reports folder)")
    verify.add_argument("--recheck-days", dest="run_recheck_days", type=float, metavar="DAYS",
                        help="skip references another verify run read less than DAYS ago (30; 0: all again)")
    verify.add_argument("--find-support", action="store_true",
                        help="check each statement none of whose references supports it as `refbot check` does "
                             "(--source: the web, the Wikipedia article's sources, authority records) and propose "
                             "the reference found beside its own")
    verify.add_argument("--enqueue", action="store_true",
                        help="put the worklist on the queue ([queue] broker) for `refbot worker` processes instead "
                             "of verifying it here")
    verify.add_argument("--new", action="store_true", help="start a new run even if one with this worklist is "
                                                           "unfinished")
    check_options(verify)
    judge_options(verify)
    sparql_options(verify)


def worklist_of(args: argparse.Namespace) -> Worklist:
    """The items `verify` names: QIDs, or one of --items, --query, --worklist (with --domain)."""
    given = [name for name in ("items", "query", "worklist") if getattr(args, name)]
    qids = [qid for group in args.qids for qid in group]
    if qids and given:
        raise InputError(f"give items either as QIDs or with --{given[0]}, not both")
    if not qids and not given:
        raise InputError("name the items to verify", hint="refbot verify Q42, or --items FILE, --query NAME, "
                                                          "--worklist PID")
    if args.domain and not args.worklist:
        raise InputError("--domain narrows a property's worklist", hint="use it with --worklist PID")
    if qids:
        return Worklist.of_items(qids, properties=tuple(args.property or ()), limit=args.limit)
    worklist = worklist_from(args, limit=args.limit)
    if args.domain:
        if not DOMAIN_PATTERN.match(args.domain):
            raise InputError(f"not a web domain: {args.domain!r}", hint="give a host name such as bbc.co.uk")
        worklist = replace(worklist, domain=args.domain.lower())
    return worklist


def shortened(text: str, most: int) -> str:
    """``text`` on one line, cut after at most ``most`` characters between words — never inside a word, and a web
    address it reaches is kept whole (an address cut short is one a reader copies from the terminal and cannot open)."""
    words, size = " ".join(text.split()).split(" "), 0
    kept: list[str] = []
    for word in words:
        if size + len(word) > most and kept and "://" not in word:
            return " ".join(kept) + " …"
        kept.append(word)
        size += len(word) + 1
        if size > most:
            break
    return " ".join(kept) + (" …" if len(kept) < len(words) else "")


def line(check: ReferenceCheck) -> str:
    """``  contradicts      date of birth → 1952-03-11  https://…: "12 March 1952" (“Born on 12 March 1952 …”)``"""
    statement = check.statement
    said = ""
    if check.other_value:
        said = f': gives "{check.other_value}"'
    elif check.sentence:
        said = f': "{shortened(check.sentence, 118)}"'
    elif check.finding.value not in ("supports", "does-not-support"):
        said = f" — {shortened(check.reason, 160)}"
    copy = f" (the copy: {check.archived.value.replace('-', ' ')})" if check.archived is not None else ""
    return f"  {check.finding.value:<17}{copy} {statement.item} {statement.property_label} → {statement.value.text}  " \
           f"{check.citation.url}{said}"


def statements(result: VerifyResult) -> list[str]:
    """Each statement verified in this call: refbot's verdict and ProVe's score over its references."""
    by_guid: dict[str, list[ReferenceCheck]] = {}
    for check in result.checked:
        by_guid.setdefault(check.statement.guid, []).append(check)
    lines = []
    for checks in by_guid.values():
        counts, prove = summarise(checks)
        statement = checks[0].statement
        shown = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
        score = f"{prove:+.2f}" if prove is not None else "n/a"
        lines.append(f"  {statement_verdict(checks):<13} {statement.item} {statement.property_label} → "
                     f"{statement.value.text}: {len(checks)} reference(s): {shown}; ProVe score {score}")
    return lines


def run_verify(args: argparse.Namespace, options: Options) -> Ended | None:
    worklist = worklist_of(args)
    if args.enqueue:
        if args.find_support:
            raise InputError("--find-support is for a run verified here", hint="drop --find-support with --enqueue")
        workers.run_enqueue(args, options, worklist=worklist, verify=True)
        return None
    preflight()
    writable_folder(options.check.reports, "[check] reports (--reports)")
    parts = Wiring(options)
    with RunLedger.of(options.run, clock=parts.clock) as ledger, \
            VerifyRun.open(parts, worklist, ledger, new=args.new, find_support=args.find_support,
                           time_budget=args.time_budget) as run:
        if not args.quiet:
            state = f"resuming verify run {run.id} ({run.done_before} done)" if run.resumed else \
                f"verify run {run.id}"
            references = sum(len(entry.citations) for entry in run.selected)
            print(f"refbot: {state}: {len(run.selected)} statement(s) cite {references} page(s); "
                  f"{len(run.todo)} to verify, {run.skipped} verified in the last {options.run.recheck_days:g} days",
                  file=sys.stderr)
        bar = Bar(len(run.todo), "reference", quiet=args.quiet)

        def show(progress: Progress) -> None:
            if args.verbose:
                bar.write(line(progress.check))
            bar.step(f"{progress.check.statement.item} {progress.check.finding.value}")
        with bar:
            result = run.verify(on_progress=show, time_budget=args.time_budget)
        tree = verify_trace(result, ledger, parts)
        keep_for_review(ledger, run.id, tree)  # its fixes go to the review queue, decisions shown
        xml, html = write_run(tree, run_stem(options.check.reports, ledger, run.id))
        fixes = len(ReviewLedger(ledger).proposals(run.id))
    print(f"verify run {run.id}: {sum(result.counts.values())} reference(s) verified; {result.summary}; "
          f"{result.skipped} skipped; {result.left} left")
    for check in sorted(result.checked, key=lambda c: ORDER[c.finding]):
        print(line(check))
    lines = statements(result)
    if lines:
        print("statements:")
        print("\n".join(lines))
    for checked in run.supported_by_check:
        found = f"  ({checked.reference.url})" if checked.reference is not None else ""
        print(f"  checked for support: {checked.shown_outcome:<13} {checked.statement.item} "
              f"{checked.statement.property_label} → {checked.statement.value.text}{found}")
    print(f"trace: {xml}\nreport: {html}")
    if fixes and not args.quiet:
        print(f"refbot: {fixes} fix(es) proposed (archived copies of dead pages, references found beside the ones "
              f"that do not support): refbot review --run {run.id}, then refbot apply", file=sys.stderr)
    if result.counts and not args.quiet:
        print(f"refbot: publish the findings with refbot export --run {run.id} --jsonl (or --rdf)", file=sys.stderr)
    return Ended(failed=result.counts.get("error", 0), stopped=result.failure,
                 then="finished references are saved in the ledger; run the same command again to resume")


HANDLERS = {"verify": run_verify}
