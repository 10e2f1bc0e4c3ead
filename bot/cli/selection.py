"""``refbot select`` (the statements that need a reference), ``refbot properties`` (the properties that require
one) and ``refbot profile`` (how the judge states a property)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli import asking
from bot.cli.arguments import clip, id_list, positive_int, sparql_options, worklist_from
from bot.corroboration.identifiers import identifier_counts
from bot.errors import QueryError
from bot.options import Options
from bot.redaction import redact_url
from bot.selection import selection_rules
from bot.selection.constraints import labelled_constraints
from bot.selection.worklists import select
from bot.wiring import Wiring

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bot.datamodel import Statement
    from bot.selection.endpoint import SparqlEndpoint


def add_parsers(commands: Any) -> None:
    select = commands.add_parser(
        "select", help="list the statements that need a reference",
        description="List statements whose property has a citation needed constraint and that have no reference "
                    "(a reference made only of imports does not count): of the given items, of the items a query "
                    "or a file names, or — with only --property — a worklist of items, a page at a time.")
    select.add_argument("qids", nargs="*", metavar="QID", help="items to look at, e.g. Q36233")
    source = select.add_mutually_exclusive_group()
    source.add_argument("--items", type=Path, metavar="FILE",
                        help="a file with one item id a line (as PagePile exports), or - for standard input")
    source.add_argument("--query", metavar="NAME|FILE.rq",
                        help="a SPARQL query whose ?item column names the items (a file, or a name in queries/)")
    select.add_argument("--property", type=id_list("property"), action="extend", metavar="PID",
                        help="only statements of this property (repeatable); alone: a worklist of items with "
                             "unsourced statements of the property")
    select.add_argument("--limit", type=positive_int, metavar="N", help="stop after N statements")
    select.add_argument("--page-size", dest="sparql_page_size", type=positive_int, metavar="N",
                        help="worklist items per query (100); smaller pages keep each query short")
    select.add_argument("--after", type=id_list("item"), metavar="QID",
                        help="start the worklist after this item (to resume a listing)")
    select.add_argument("--json", action="store_true",
                        help="print JSON Lines, one statement each, for later stages instead of a table")
    asking.add_arguments(select, source)
    sparql_options(select)

    properties = commands.add_parser(
        "properties", help="list the properties that have a citation needed constraint",
        description="List the properties with a non-deprecated citation needed constraint (Q54554025) and the "
                    "items that are exceptions to it.")
    properties.add_argument("--json", action="store_true", help="print JSON Lines instead of a table")
    sparql_options(properties)

    profile = commands.add_parser(
        "profile", help="show how the judge states a property and what it tells it apart from",
        description="Show each property's profile as refbot check uses it: the phrase a sentence states it with "
                    "and its contrasting properties (inverse, opposite, related, sharing values or type "
                    "constraints), each with where it came from: the curated catalogue, the disk cache, or the "
                    "SPARQL endpoint (looked up and cached when the cache has none younger than [properties] "
                    "cache_days).")
    profile.add_argument("pids", nargs="+", type=id_list("property"), metavar="PID", help="e.g. P166")
    profile.add_argument("--offline", action="store_true",
                         help="do not ask the endpoint: the catalogue and the cache only, as `refbot eval` does")
    profile.add_argument("--json", action="store_true", help="print one JSON object a line")
    sparql_options(profile)


def validate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Combinations argparse cannot express."""
    if args.command != "select":
        return
    chosen = [name for name, given in (("QID", args.qids), ("--items", args.items), ("--query", args.query),
                                       ("--ask", args.ask)) if given]
    if len(chosen) > 1:
        parser.error(f"{' and '.join(chosen)} cannot be combined: name the items one way")
    if not chosen and not args.property:
        parser.error("name items (QID, --items FILE, --query or --ask) or a --property for a worklist")
    if not chosen and len(args.property) > 1:
        parser.error("a worklist is for one --property at a time")
    if args.after and chosen:
        parser.error("--after resumes a worklist; it needs --property alone")


def run_select(args: argparse.Namespace, options: Options) -> None:
    parts = Wiring(options)
    endpoint = parts.require_endpoint()
    answer = asking.answer(args, options, parts) if args.ask else None
    worklist = worklist_from(args, answer=answer)
    limit = args.limit or (asking.FIRST_PAGE if args.ask else None)
    printer = _StatementPrinter(args.json, endpoint if args.json else None, quiet=args.quiet)
    skipped = 0
    cut_at: str | None = None  # the first item not printed in full when --limit stopped the listing
    for selection in select(endpoint, worklist, selection_rules(options), page_size=options.sparql.page_size,
                            after=args.after[0] if args.after else None):
        for entry in selection.skipped:
            skipped += 1
            if not args.quiet:
                print(f"refbot: skipped {entry.guid} ({entry.property_id}): {entry.reason}", file=sys.stderr)
        printer.count_identifiers(selection.statements)
        for statement in selection.statements:
            if limit and printer.count >= limit:
                cut_at = statement.item
                break
            printer.print(statement)
        if cut_at:
            break
    if not args.quiet:
        print(f"refbot: {printer.count} statement(s) need a reference in {len(printer.items)} item(s); "
              f"{skipped} skipped; endpoint {redact_url(endpoint.url, service=True)}", file=sys.stderr)
        if cut_at:
            hint = _resume_hint(printer.items, cut_at, bool(worklist.worklist_property))
            print(f"refbot: stopped at --limit {limit}; {hint}", file=sys.stderr)


def _resume_hint(printed_items: list[str], cut_at: str, worklist_mode: bool) -> str:
    if not worklist_mode:
        return f"{cut_at} has more statements; raise --limit to see them"
    done = [item for item in printed_items if item != cut_at]
    if not done:
        return f"{cut_at} alone has more statements than that; raise --limit"
    return f"to continue the worklist, run the same command with --after {done[-1]}"


class _StatementPrinter:
    """A table row or a JSON line per statement, flushed as it comes so a pipe sees results early. A JSON line
    carries ``rdf_identifiers``: how many identifiers with RDF records its item has (asked of ``endpoint`` once
    per page of the worklist), where a check's authority records may corroborate it."""

    COLUMNS = "{:<10} {:<26} {:<7} {:<22} {:<40} {:<9} {}"

    def __init__(self, as_json: bool, endpoint: SparqlEndpoint | None = None, *, quiet: bool = False) -> None:
        self.as_json = as_json
        self.endpoint = endpoint
        self.quiet = quiet
        self.count = 0
        self.items: list[str] = []  # in the order printed
        self.identifiers: dict[str, int] = {}

    def count_identifiers(self, statements: Sequence[Statement]) -> None:
        items = sorted({statement.item for statement in statements} - set(self.identifiers))
        if self.endpoint is None or not items:
            return
        try:
            self.identifiers |= identifier_counts(self.endpoint, items)
        except QueryError as error:  # the rows are still printed, without the count
            if not self.quiet:
                print(f"refbot: identifiers with RDF records not counted: {error}", file=sys.stderr)
            self.endpoint = None

    def print(self, statement: Statement) -> None:
        if self.as_json:
            row = statement.to_json()
            if statement.item in self.identifiers:
                row["rdf_identifiers"] = self.identifiers[statement.item]
            print(json.dumps(row, ensure_ascii=False), flush=True)
        else:
            if not self.count:
                print(self.COLUMNS.format("item", "label", "prop", "property", "value", "rank", "statement"))
            print(self.COLUMNS.format(statement.item, clip(statement.item_label, 26), statement.property_id,
                                      clip(statement.property_label, 22), clip(statement.value.display, 40),
                                      statement.rank.value, statement.guid), flush=True)
        self.count += 1
        if statement.item not in self.items[-1:]:
            self.items.append(statement.item)


def run_properties(args: argparse.Namespace, options: Options) -> None:
    endpoint = Wiring(options).require_endpoint()
    constrained = labelled_constraints(endpoint, options.languages)
    for entry in constrained:
        if args.json:
            print(json.dumps({"property": entry.property_id, "label": entry.label, "datatype": entry.datatype,
                              "exceptions": list(entry.exceptions)}, ensure_ascii=False))
        else:
            shown = ", ".join(entry.exceptions[:5]) + (" …" if len(entry.exceptions) > 5 else "")
            print(f"{entry.property_id:<8} {clip(entry.label, 32):<32} {entry.datatype:<18} "
                  f"{len(entry.exceptions)} exception(s){': ' + shown if shown else ''}")
    if not args.quiet:
        print(f"refbot: {len(constrained)} properties have a citation needed constraint; endpoint "
              f"{redact_url(endpoint.url, service=True)}", file=sys.stderr)


def _phrases(phrase: str, others: tuple[str, ...]) -> str:
    return " or ".join(f"“{each}”" for each in (phrase, *others))


def run_profile(args: argparse.Namespace, options: Options) -> None:
    profiles = (Wiring(options, endpoint=None) if args.offline else Wiring(options)).profiles
    for pid in (pid for group in args.pids for pid in group):
        profile = profiles.profile(pid)
        if args.json:
            print(json.dumps(asdict(profile), ensure_ascii=False))
            continue
        read = f", read {profile.retrieved}" if profile.retrieved else ""
        print(f"{pid} {profile.label}: {_phrases(profile.phrase, profile.other_phrases)} ({profile.phrase_source}); "
              f"from {profile.source}{read}")
        for contrast in profile.contrasts:
            print(f"  against {contrast.property_id} {contrast.label}: "
                  f"{_phrases(contrast.phrase, contrast.other_phrases)} ({', '.join(contrast.sources)})")
        if not profile.contrasts:
            print("  no contrasting property known: the claim is judged alone")
        for note in profile.notes:
            print(f"  note: {note}")


HANDLERS = {"select": run_select, "properties": run_properties, "profile": run_profile}
