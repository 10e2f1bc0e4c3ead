"""``refbot check``, ``refbot run``, ``refbot report`` and ``refbot demo``: the bot end to end."""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.cli import EXIT_OK, EXIT_PARTIAL, _judge_options, _sparql_options, id_list, positive_int, word_list
from bot.errors import InputError, RefbotError
from bot.options import Options


def duration(text: str) -> float:
    """``2h``, ``90m``, ``1h30m``, ``45s`` or plain seconds → seconds."""
    match = re.fullmatch(r"\s*(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?\s*(?:(\d+(?:\.\d+)?)s?)?\s*", text)
    if not text.strip() or not match or not any(match.groups()):
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (use e.g. 2h, 90m, 1h30m, 600)")
    hours, minutes, seconds = (float(group or 0) for group in match.groups())
    return hours * 3600 + minutes * 60 + seconds


def _check_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("checking")
    group.add_argument("--source", dest="check_source", choices=("web", "wikipedia", "both"),
                       help="where documents come from: web search, the sources the item's Wikipedia article "
                            "cites, or both (default)")
    group.add_argument("--strategy", dest="check_strategy", choices=("ranked", "paper"),
                       help="'ranked' (default): judge the best --top paragraphs of each document that name the "
                            "value; 'paper': every paragraph in document order, as the published method")
    group.add_argument("--top", dest="check_top", type=positive_int, metavar="K",
                       help="paragraphs judged per document at most (ranked strategy; 3)")
    group.add_argument("--no-embeddings", dest="check_embeddings", action="store_const", const=False,
                       help="pre-rank by name mentions only, without the sentence-embedding model")
    group.add_argument("--documents", dest="check_documents", type=positive_int, metavar="N",
                       help="documents per statement at most (8)")
    group.add_argument("--workers", dest="check_workers", type=positive_int, metavar="N",
                       help="statements checked at once (2)")
    group.add_argument("--reports", dest="check_reports", type=Path, metavar="DIR",
                       help="where traces and reports are written (reports/)")
    group.add_argument("--allow-address", dest="fetch_allow_addresses", type=word_list, metavar="ADDR,…",
                       help="private addresses or networks refbot may fetch from (default: none)")
    group.add_argument("--no-cache", dest="fetch_cache_days", action="store_const", const=0.0,
                       help="neither read nor write the HTTP cache")
    group.add_argument("-v", "--verbose", action="store_true", help="print each document and judgement")


def add_parsers(commands: Any) -> None:
    check = commands.add_parser(
        "check", help="dry run on one item: find and judge sources for its unsourced statements",
        description="Check one item's statements that need a reference: search the web and the sources its "
                    "Wikipedia article cites, judge the best paragraphs with the LLM, and write an XML trace and "
                    "an HTML report into reports/. Nothing is written to Wikidata.")
    check.add_argument("qid", type=id_list("item"), metavar="QID", help="the item, e.g. Q36233")
    check.add_argument("--property", type=id_list("property"), action="extend", metavar="PID",
                       help="only statements of this property (repeatable)")
    _check_options(check)
    _judge_options(check)
    _sparql_options(check)

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
    run.add_argument("--property", type=id_list("property"), action="extend", metavar="PID",
                     help="only statements of this property (repeatable)")
    run.add_argument("--limit", type=positive_int, metavar="N", help="check at most N statements in this run")
    run.add_argument("--time-budget", type=duration, metavar="DURATION",
                     help="start no statement after this long (e.g. 2h, 90m); the next run goes on")
    run.add_argument("--ledger", dest="run_ledger", type=Path, metavar="FILE",
                     help="the run ledger (SQLite; default reports/runs.sqlite)")
    run.add_argument("--recheck-days", dest="run_recheck_days", type=float, metavar="DAYS",
                     help="skip statements another run checked less than DAYS ago (30; 0 checks all again)")
    run.add_argument("--new", action="store_true", help="start a new run even if one with this worklist is unfinished")
    _check_options(run)
    _judge_options(run)
    _sparql_options(run)

    report = commands.add_parser("report", help="render a trace into an HTML report again",
                                 description="Validate a trace against xslt/trace.xsd and render it with "
                                             "xslt/report.xsl.")
    report.add_argument("trace", type=Path, metavar="TRACE.xml", help="a trace written by refbot check or run")
    report.add_argument("--out", type=Path, metavar="FILE.html", help="default: the trace's path with .html")

    demo = commands.add_parser(
        "demo", help="serve the offline demo world on loopback and check its demo item",
        description="Start the demo world (a Wikidata-shaped SPARQL store, news sites, a Wikipedia article with "
                    "citations, a dead link with an archived copy, a search engine) on 127.0.0.1 and run "
                    "`refbot check` on its item with the embedded CPU judge.")
    demo.add_argument("qid", nargs="?", type=id_list("item"), metavar="QID", help="the item (default Q990201)")
    demo.add_argument("--serve", action="store_true",
                      help="only serve the world and print a configuration file for it, until interrupted")
    _check_options(demo)
    _judge_options(demo)


# -- shared ----------------------------------------------------------------------------------------------------
@dataclass
class Session:
    """The clients a check needs, built once."""

    options: Options
    tools: Any = None
    services: Any = None
    endpoint: Any = None
    started: str = ""
    clock: float = field(default_factory=time.monotonic)


def _session(options: Options, *, verbose: bool = False) -> Session:
    from bot.checking import make_tools
    from bot.checking.statement import now_iso
    from bot.documents import make_politeness, make_services, make_session
    from bot.selection import make_endpoint

    endpoint = make_endpoint(options)
    http = make_session(options)
    services = make_services(options, http, make_politeness(options))
    session = Session(options, endpoint=endpoint, services=services, started=now_iso())
    session.tools = make_tools(options, http, services, endpoint)
    return session


def _statements(session: Session, items: Sequence[str], properties: Sequence[str] | None) -> list[Any]:
    from bot.selection import selection_rules
    from bot.selection.unsourced import unsourced_statements

    statements: list[Any] = []
    for selection in unsourced_statements(session.endpoint, items, selection_rules(session.options), properties):
        statements += selection.statements
    return statements


def _contexts(session: Session, statements: Sequence[Any], on_item=None) -> Iterator[tuple[Any, Any]]:
    """(item context, statement) pairs; each item is read once, when its first statement is due."""
    contexts = {}
    for statement in statements:
        if statement.item not in contexts:
            contexts[statement.item] = _read_item(session, statement.item, statement.item_label)
            if on_item is not None:
                on_item(contexts[statement.item])
        yield contexts[statement.item], statement


def _read_item(session: Session, item: str, label: str, *, strict: bool = False) -> Any:
    """The item's revision and article. Unless ``strict``, an item the Wikidata API does not know (deleted
    since the SPARQL service saw it) is recorded as the item's error, and its statements are still checked."""
    from bot.checking.items import ItemContext, read_item, wikidata_site

    options = session.options
    try:
        return read_item(session.services, options.wikidata_api_url, item, label, wiki=options.wikipedia_wiki,
                         article_url=options.wikipedia_article_url, chunk_chars=options.wikipedia_chunk_chars,
                         want_article=options.check_source != "web")
    except InputError as error:
        if strict:
            raise
        return ItemContext(item, label, wikidata_site(options.wikidata_api_url), error=str(error))


def _run_info(session: Session, mode: str, *, complete: bool, notes: Sequence[str] = (), skipped: int = 0,
              run_id: str = "", started: str = "", duration_s: float | None = None) -> Any:
    from bot.checking.statement import now_iso
    from bot.selection import endpoint_url
    from bot.trace import RunInfo

    options, judge = session.options, session.tools.judge
    endpoints = [("sparql", endpoint_url(options.sparql_endpoint)), ("wikidata-api", options.wikidata_api_url)]
    if options.check_source != "web":
        endpoints.append(("wikipedia", options.wikipedia_article_url))
    if options.check_source != "wikipedia" and options.search_backend:
        endpoints.append((f"search ({options.search_backend})", options.search_url or "(the engine's default)"))
    if options.archive_enabled:
        endpoints += [("wayback-availability", options.archive_availability_url),
                      ("wayback-cdx", options.archive_cdx_url), ("wayback", options.archive_web_url)]
    if options.judge_backend == "openai":
        endpoints.append(("judge", options.judge_url))
    return RunInfo(mode=mode, started=started or session.started, finished=now_iso(),
                   duration_s=time.monotonic() - session.clock if duration_s is None else duration_s,
                   complete=complete, judge_backend=options.judge_backend, model=judge.model_id,
                   template=judge.template.id, prompt_template=judge.template.text, threshold=options.threshold,
                   strategy=options.check_strategy, top=options.check_top,
                   embeddings=options.check_embedding_model if session.tools.embed else "none",
                   endpoints=endpoints, options=sorted(options.public().items()), notes=notes, skipped=skipped,
                   run_id=run_id)


class _Progress:
    def __init__(self, total: int, quiet: bool) -> None:
        self.bar = None
        if not quiet and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="statement", file=sys.stderr, dynamic_ncols=True)

    def step(self, text: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(text[:40], refresh=False)
            self.bar.update(1)

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _describe(check: Any) -> list[str]:
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


def _summary_line(counts: dict[str, int]) -> str:
    return ", ".join(f"{counts.get(name, 0)} {name}" for name in ("supported", "not-found", "irretrievable", "error"))


def _write(trace: Any, stem: Path) -> tuple[Path, Path]:
    from bot import trace as traces
    from bot.report import write_report

    xml = traces.write(trace, stem.with_suffix(".xml"))
    return xml, write_report(trace, stem.with_suffix(".html"))


# -- refbot check ----------------------------------------------------------------------------------------------
def run_check(args: argparse.Namespace, options: Options) -> int:
    from bot.doctor import preflight
    from bot.trace import assemble, checked_statement_element, item_element

    preflight()  # a broken install stops here, named, before any page could be blamed for it
    item = args.qid[0]
    session = _session(options)
    statements = _statements(session, [item], list(args.property) if args.property else None)
    progress = _Progress(len(statements), args.quiet)
    checked: list[tuple[Any, Any]] = []
    contexts: dict[str, Any] = {}
    failure: BaseException | None = None
    try:
        from bot.checking.batch import Breaker, check_many

        for context, check in check_many(_contexts(session, statements, lambda c: contexts.setdefault(c.item, c)),
                                         session.tools, _plan(options), workers=options.check_workers,
                                         breaker=Breaker(statements=len(statements))):
            checked.append((context, check))
            if args.verbose:
                for line in _describe(check):
                    progress.write(line)
            progress.step(f"{check.statement.property_id} {check.outcome.value}")
    except (RefbotError, KeyboardInterrupt) as error:
        failure = error
    finally:
        progress.close()
    if not contexts:  # no statement, or stopped before the first: the item is still described
        contexts[item] = _read_item(session, item, statements[0].item_label if statements else "",
                                    strict=not statements)
    order = {statement.guid: index for index, statement in enumerate(statements)}
    checked.sort(key=lambda pair: order[pair[1].statement.guid])
    elements = [item_element(context) for context in contexts.values()]
    trace = assemble(_run_info(session, "check", complete=failure is None and len(checked) == len(statements)),
                     [(element, [checked_statement_element(c, s) for c, s in checked]) for element in elements])
    stamp = session.started.replace("-", "").replace(":", "")
    xml, html = _write(trace, options.check_reports / f"check-{item}-{stamp}")
    counts = {name: sum(1 for _, check in checked if check.outcome.value == name)
              for name in ("supported", "not-found", "irretrievable", "error")}
    print(f"{item}: {len(statements)} statement(s) need a reference; {_summary_line(counts)}")
    for _, check in checked:
        print(f"  {check.outcome.value:<13} {check.statement.property_label} → {check.statement.value.text}"
              + (f"  ({check.reference.url})" if check.reference else ""))
    print(f"trace: {xml}\nreport: {html}")
    if failure is not None:
        if isinstance(failure, KeyboardInterrupt):
            raise failure
        print(f"refbot: error: {failure}", file=sys.stderr)
        return EXIT_PARTIAL
    return EXIT_PARTIAL if counts["error"] else EXIT_OK


def _plan(options: Options) -> Any:
    from bot.checking import plan_from

    return plan_from(options)


# -- refbot run ------------------------------------------------------------------------------------------------
def _worklist_key(args: argparse.Namespace, options: Options) -> tuple[str, str]:
    """What makes two invocations the same run: the worklist and the checking settings."""
    if args.items:
        source = f"items {args.items}: " + ",".join(_read_items(args.items))
    elif args.query:
        source = f"query {args.query}: " + _query(args.query).text
    else:
        source = f"worklist {args.worklist[0]}"
    # Resuming with another judge or other checking settings would mix results in one run: that is a new run.
    settings = [",".join(args.property or ()), str(args.limit or ""), options.check_source, options.check_strategy,
                str(options.check_top), str(options.check_require_mention), str(options.check_require_subject),
                str(options.check_unnamed),
                str(options.check_documents),
                str(options.check_embeddings), options.check_embedding_model, options.judge_backend,
                options.judge_model, options.template, str(options.threshold), str(options.justify)]
    description = source.split(":", 1)[0] + (f", limit {args.limit}" if args.limit else "")
    return hashlib.sha256("\n".join([source, *settings]).encode()).hexdigest()[:16], description


_item_cache: dict[str, list[str]] = {}


def _read_items(path: Path) -> list[str]:
    from bot.selection.worklists import read_item_list

    if str(path) not in _item_cache:
        _item_cache[str(path)] = read_item_list(path)
    return _item_cache[str(path)]


def _query(name: str) -> Any:
    from bot.selection.binding import load_query, read_query_file

    named = not name.endswith(".rq") and "/" not in name
    return load_query(name) if named else read_query_file(Path(name))


def _items(args: argparse.Namespace, session: Session) -> list[str]:
    from bot.selection.worklists import items_from_query, worklist

    if args.items:
        return _read_items(args.items)
    if args.query:
        return items_from_query(session.endpoint, _query(args.query))
    options = session.options
    return [entry.item for entry in worklist(session.endpoint, args.worklist[0],
                                             options.ignored_reference_properties, options.sparql_page_size)]


def run_run(args: argparse.Namespace, options: Options) -> int:
    from bot.checking.batch import Breaker, check_many
    from bot.doctor import preflight
    from bot.runledger import RunLedger
    from bot.trace import assemble, checked_statement_element, from_string, item_element, to_string

    preflight()  # before the ledger holds a run that a broken install could not check
    key, description = _worklist_key(args, options)
    ledger = RunLedger(options.run_ledger)
    try:
        run = ledger.open_run(key, description, new=args.new)
        session = _session(options)
        done = ledger.done(run)
        recent = ledger.recently_checked(run, options.run_recheck_days) if options.run_recheck_days else set()
        statements = _statements(session, _items(args, session), list(args.property) if args.property else None)
        todo = [s for s in statements if s.guid not in done and s.guid not in recent]
        skipped = sum(1 for s in statements if s.guid in recent and s.guid not in done)
        if args.limit:  # at most N checked in this run, counting those done before a resume
            todo = todo[: max(0, args.limit - len(done))]
        if not args.quiet:
            state = f"resuming run {run.id} ({len(done)} done)" if run.resumed else f"run {run.id}"
            print(f"refbot: {state}: {len(statements)} statement(s) selected, {len(todo)} to check, {skipped} "
                  f"checked in the last {options.run_recheck_days:g} days", file=sys.stderr)
        progress = _Progress(len(todo), args.quiet)
        # The budget counts from the start of the command (model loading and selection included).
        deadline = session.clock + args.time_budget if args.time_budget is not None else None
        failure: BaseException | None = None
        breaker = Breaker(statements=len(todo))

        def remember(context: Any) -> None:
            ledger.record_item(run, context.item, to_string(item_element(context)))
        try:
            for context, check in check_many(_contexts(session, todo, remember), session.tools, _plan(options),
                                             workers=options.check_workers, deadline=deadline, breaker=breaker):
                ledger.record(run, check.statement.guid, check.statement.item, check.outcome.value,
                              to_string(checked_statement_element(context, check)))
                if args.verbose:
                    for line in _describe(check):
                        progress.write(line)
                progress.step(f"{check.statement.item} {check.outcome.value}")
        except RefbotError as error:  # the judge is gone, or an item could not be read: finished work is kept
            failure = error
            if error is breaker.tripped:  # refbot stopped itself: what it may have spoiled is checked on resume
                ledger.forget(run, breaker.suspects)
        finally:
            progress.close()
        left = len([s for s in todo if s.guid not in ledger.done(run)])
        notes = [f"time budget spent; {left} statement(s) left for the next run"] if left and failure is None else []
        if not left and failure is None:
            ledger.finish(run)
        items = [(from_string(element), [from_string(s) for s in statements_])
                 for _, element, statements_ in ledger.items(run)]
        info = _run_info(session, "run", complete=not left and failure is None, notes=notes, skipped=skipped,
                         run_id=str(run.id), started=run.started)
        xml, html = _write(assemble(info, items), options.check_reports / f"run-{run.id}")
        counts = ledger.counts(run)
    finally:
        ledger.close()
    print(f"run {run.id}: {sum(counts.values())} statement(s) checked; {_summary_line(counts)}; {skipped} skipped; "
          f"{left} left")
    print(f"trace: {xml}\nreport: {html}")
    if failure is not None:
        print(f"refbot: error: {failure}", file=sys.stderr)
        print("refbot: finished statements are saved in the ledger; run the same command again to resume",
              file=sys.stderr)
        return EXIT_PARTIAL
    if left and not args.quiet:
        print(f"refbot: stopped at the time budget; run the same command again to check the {left} left",
              file=sys.stderr)
    return EXIT_PARTIAL if counts.get("error") else EXIT_OK


# -- refbot report ---------------------------------------------------------------------------------------------
def run_report(args: argparse.Namespace, options: Options) -> int:
    from bot import trace as traces
    from bot.report import write_report

    tree = traces.read(args.trace)
    out = write_report(tree, args.out or args.trace.with_suffix(".html"))
    print(f"report: {out}")
    return EXIT_OK


# -- refbot demo -----------------------------------------------------------------------------------------------
def run_demo(args: argparse.Namespace, options: Options) -> int:
    from dataclasses import replace

    from bot.demo.world import DEMO_ITEM, DemoWorld

    with DemoWorld() as world:
        overrides = world.options()
        if args.serve:
            print("The demo world is served on 127.0.0.1 until you press Ctrl-C. Save this as refbot.ini to use it:\n")
            print(_ini(overrides))
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return EXIT_OK
        demo_options = replace(options, **overrides)
        args.qid = args.qid or (DEMO_ITEM,)
        args.property = None
        print(f"refbot demo: world on 127.0.0.1 (SPARQL {world.sparql_url}); checking {args.qid[0]} with the "
              f"{demo_options.judge_backend} judge ({demo_options.judge_model})", file=sys.stderr)
        return run_check(args, demo_options)


def _ini(overrides: dict[str, Any]) -> str:
    from bot.options import section_key

    lines: dict[str, list[str]] = {}
    for name, value in overrides.items():
        section, key = section_key(name)
        shown = ",".join(value) if isinstance(value, tuple) else str(value)
        lines.setdefault(section, []).append(f"{key} = {shown}")
    return "\n".join(f"[{section}]\n" + "\n".join(entries) + "\n" for section, entries in lines.items())


def handle(args: argparse.Namespace, options: Options) -> int:
    handlers = {"check": run_check, "run": run_run, "report": run_report, "demo": run_demo}
    return handlers[args.command](args, options)


__all__ = ["add_parsers", "handle", "duration", "InputError"]
